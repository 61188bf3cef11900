// Reports of suspended tasks (include/roam/obj/task_report.hpp): walks this PE's
// objects, counts their unfinished tasks and lets each of their classes'
// mailbox entries describe what it waits for and keeps.
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <roam/obj/task_report.hpp>
#include <roam/msg/detail/control.hpp>
#include <roam/obj/detail/element_base.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

namespace {

std::string tasks_text(std::size_t n) { return std::to_string(n) + (n == 1 ? " task" : " tasks"); }

// The mailbox entries of each class met in one report, looked up once.
class mailbox_lookup {
 public:
  void describe(std::string_view class_name, const void* obj, std::string& out) {
    auto it = by_class_.find(class_name);
    if (it == by_class_.end()) it = by_class_.emplace(class_name, mailbox_entries_of(class_name)).first;
    for (const entry_ops* ops : it->second) ops->describe_waiting(obj, out);
  }

 private:
  std::map<std::string_view, std::vector<const entry_ops*>> by_class_;
};

void print_here() {
  std::string text = waiting_tasks_here();
  if (text.empty()) return;
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

std::string waiting_tasks_here() {
  pe_state* pe = tls_pe;
  if (!pe || !pe->slot(layer_slot::objects)) return {};
  std::size_t total = 0;
  std::string lines;
  mailbox_lookup mailboxes;
  for (const auto& lc : objects().collections) {
    if (!lc || !lc->desc || !lc->desc->elem) continue;
    const collection_desc& d = *lc->desc;
    for (const auto& member : lc->order) {
      const std::size_t n = element_access::unfinished_tasks(*d.elem->base(member.obj));
      if (n == 0) continue;
      total += n;
      lines += "\n  " + describe_target(target_kind::element, &d, member.index, d.dims, {}) + ": " + tasks_text(n);
      mailboxes.describe(d.cls->name, member.obj, lines);
    }
  }
  for (const auto& [id, rec] : objects().chares) {
    const std::size_t n = chare_access::unfinished_tasks(*rec.base);
    if (n == 0) continue;
    total += n;
    index_storage idx;
    idx.v[0] = static_cast<std::int32_t>(static_cast<std::uint32_t>(id));
    idx.v[1] = static_cast<std::int32_t>(static_cast<std::uint32_t>(id >> 32));
    std::string who = describe_target(target_kind::chare, nullptr, idx, 0, {});
    who.replace(0, 5, "chare " + std::string(rec.ops->cls->name));
    lines += "\n  " + who + ": " + tasks_text(n);
    mailboxes.describe(rec.ops->cls->name, rec.obj, lines);
  }
  if (const std::size_t n = pe->root_tasks.size()) {
    total += n;
    lines += "\n  " + tasks_text(n) + " of no object (main's, or started outside an entry of a chare or element)";
  }
  if (total == 0) return {};
  return pe_prefix() + std::to_string(total) + (total == 1 ? " unfinished task:" : " unfinished tasks:") + lines + "\n";
}

void print_waiting_tasks_here() noexcept {
  try {
    print_here();
  } catch (...) {
    // A report that cannot be built (out of memory) is not worth ending the program for.
  }
}

}  // namespace roam::detail

namespace roam {

namespace detail {
namespace {
// One PE after another, so that the reports come out in PE order and the
// last one knows that all have printed.
void report_and_pass_on(std::uint32_t next, promise<> done) {
  print_waiting_tasks_here();
  if (next < roam::num_pes()) post_control_uncounted<&report_and_pass_on>(next, next + 1, std::move(done));
  else done.set_value();
}
}  // namespace
}  // namespace detail

future<> report_waiting_tasks() {
  detail::this_pe("roam::report_waiting_tasks");
  auto [printed, done] = make_future<>();
  detail::post_control_uncounted<&detail::report_and_pass_on>(0, 1u, std::move(done));
  return std::move(printed);
}

}  // namespace roam
