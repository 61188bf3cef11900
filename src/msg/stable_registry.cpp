// The list of registries and the one start-up check that reports their
// collisions (include/roam/msg/detail/stable_registry.hpp).
#include <roam/msg/detail/stable_registry.hpp>

#include <algorithm>
#include <cstdio>

#include <roam/sched/detail/startup.hpp>

namespace roam::detail {

namespace {

struct registry_list {
  std::mutex mutex;
  std::vector<const registry_base*> all;
};
registry_list& registries() {
  static registry_list r;
  return r;
}

std::string check_registries() { return registry_collision_report(); }

const bool check_registered = register_startup_check(&check_registries);

}  // namespace

registry_base::registry_base(std::string_view kind) : kind_(kind) {
  (void)check_registered;
  auto& r = registries();
  std::lock_guard lock(r.mutex);
  r.all.push_back(this);
}

registry_base::~registry_base() {
  auto& r = registries();
  std::lock_guard lock(r.mutex);
  std::erase(r.all, this);
}

std::vector<std::string> registry_base::collisions() const {
  std::lock_guard lock(mutex_);
  return collisions_;
}

void registry_base::record_collision(std::uint64_t id, std::string_view first, std::string_view second) {
  char hex[24];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(id));
  collisions_.push_back(std::string(kind_) + " id 0x" + hex + ": '" + std::string(first) + "' and '" +
                        std::string(second) + "'");
}

std::string registry_collision_report() {
  std::vector<std::string> lines;
  {
    auto& r = registries();
    std::lock_guard lock(r.mutex);
    for (const registry_base* reg : r.all)
      for (auto& c : reg->collisions()) lines.push_back(std::move(c));
  }
  if (lines.empty()) return {};
  std::string text = "stable identifier collision(s): two different things hash to one id; rename one of each pair:";
  for (const auto& l : lines) text += "\n  " + l;
  return text;
}

std::uint64_t program_registry_hash() {
  std::vector<std::pair<std::string, std::vector<std::uint64_t>>> all;
  {
    auto& r = registries();
    std::lock_guard lock(r.mutex);
    for (const registry_base* reg : r.all) {
      auto ids = reg->ids();
      if (ids.empty()) continue;  // a registry some test made and left empty
      std::sort(ids.begin(), ids.end());
      all.emplace_back(std::string(reg->kind()), std::move(ids));
    }
  }
  std::sort(all.begin(), all.end());
  // FNV-1a over the kinds and ids, in a fixed order.
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xff;
      h *= 0x100000001b3ull;
    }
  };
  for (const auto& [kind, ids] : all) {
    for (char c : kind) mix(static_cast<unsigned char>(c));
    mix(ids.size());
    for (std::uint64_t id : ids) mix(id);
  }
  return h;
}

}  // namespace roam::detail
