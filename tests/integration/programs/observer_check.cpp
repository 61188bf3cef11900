// Runtime observers (roam/sched/observe.hpp) see every entry, task resumption
// and threaded-entry slice, exactly: two observers subscribe in every
// process, and each PE checks, for both, that their counts equal what the
// program itself counted running there:
//   - `ping` (a plain entry): K per element, sent by main: begins, ends,
//     sends and receipts of that entry all equal K * N in total, and per PE
//     the begins equal the pings the elements counted;
//   - `await_echo` (a coroutine entry awaiting a call): one task resumption
//     per element, naming the element;
//   - `block_on_echo` (a threaded entry blocking on a call's get()): two
//     thread slices per element (start to block, resume to end);
//   - begins and ends pair up on every PE (the check itself runs inside one
//     entry, so that kind has one more begin), idle periods pair up too.
//   observer_check [+p N ...]
#include <array>
#include <atomic>
#include <cstdio>
#include <string>

#include <roam/roam.hpp>
#include <roam/sched/observe.hpp>

namespace {

constexpr int pings_per_element = 5;
constexpr int elements_per_pe = 6;
constexpr std::size_t max_pes = 64;

struct pe_counts {
  std::array<std::atomic<long>, 3> begins{}, ends{};  // by run_kind
  std::atomic<long> ping_begins{0}, ping_ends{0}, ping_sent{0}, ping_received{0};
  std::atomic<long> element_resumes{0}, element_slices{0}, idle_begins{0}, idle_ends{0};
  std::atomic<long> wrong{0};  // events whose identity does not match what ran
};

struct obs_cell;
std::uint64_t ping_id();

class counting_observer : public roam::runtime_observer {
 public:
  std::array<pe_counts, max_pes> pes;

  void entry_begin(const roam::entry_event& e) noexcept override {
    pe_counts& c = pes[e.pe];
    ++c.begins[static_cast<std::size_t>(e.how)];
    if (e.how == roam::run_kind::entry && e.entry == ping_id()) {
      ++c.ping_begins;
      if (e.object.kind != roam::object_kind::array_element || e.object.dims != 1 || !e.obj) ++c.wrong;
    }
    if (e.how == roam::run_kind::task_resume && e.object.kind == roam::object_kind::array_element) {
      ++c.element_resumes;
      if (!e.obj) ++c.wrong;
    }
    if (e.how == roam::run_kind::thread) {
      ++c.element_slices;
      if (e.object.kind != roam::object_kind::array_element || e.entry_name.find("block_on_echo") == std::string_view::npos)
        ++c.wrong;
    }
  }
  void entry_end(const roam::entry_event& e) noexcept override {
    pe_counts& c = pes[e.pe];
    ++c.ends[static_cast<std::size_t>(e.how)];
    if (e.how == roam::run_kind::entry && e.entry == ping_id()) ++c.ping_ends;
  }
  void message_sent(const roam::message_event& e) noexcept override {
    if (e.entry == ping_id()) {
      ++pes[e.pe].ping_sent;
      if (e.bytes == 0) ++pes[e.pe].wrong;
    }
  }
  void message_received(const roam::message_event& e) noexcept override {
    if (e.entry == ping_id()) ++pes[e.pe].ping_received;
  }
  void idle_begin(std::uint32_t pe, std::uint64_t) noexcept override { ++pes[pe].idle_begins; }
  void idle_end(std::uint32_t pe, std::uint64_t) noexcept override { ++pes[pe].idle_ends; }
};

counting_observer first_observer, second_observer;

// What the program counted running on each PE.
std::array<std::atomic<long>, max_pes> pings_run{}, awaits_run{}, blocks_run{};

struct obs_cell : roam::element<obs_cell> {
  static constexpr auto threaded_entries() { return roam::entry_list<&obs_cell::block_on_echo>{}; }

  void ping() { ++pings_run[roam::my_pe().value()]; }
  int echo(int x) { return x + 1; }
  roam::task<> await_echo(roam::array_proxy<obs_cell> all, int n, roam::callback<long> done) {
    int v = co_await all[(this_index()[0] + 1) % n].call<&obs_cell::echo>(this_index()[0]);
    ++awaits_run[roam::my_pe().value()];
    contribute(static_cast<long>(v), roam::sum, done);
  }
  void block_on_echo(roam::array_proxy<obs_cell> all, int n, roam::callback<long> done) {
    int v = all[(this_index()[0] + 1) % n].call<&obs_cell::echo>(this_index()[0]).get();
    ++blocks_run[roam::my_pe().value()];
    contribute(static_cast<long>(v), roam::sum, done);
  }
};

std::uint64_t ping_id() { return roam::detail::entry_impl<obs_cell, &obs_cell::ping>::ops.id; }

// Per PE: 0 when both observers agree with the program, else a bit per failed check.
long check_pe(const counting_observer& o, std::uint32_t pe) {
  const pe_counts& c = o.pes[pe];
  long bad = 0;
  auto kind = [&](roam::run_kind k) { return static_cast<std::size_t>(k); };
  if (c.ping_begins != pings_run[pe] || c.ping_ends != pings_run[pe]) bad |= 1;
  if (c.ping_received != pings_run[pe]) bad |= 2;
  if (c.element_resumes != awaits_run[pe]) bad |= 4;
  if (c.element_slices != 2 * blocks_run[pe]) bad |= 8;
  if (c.begins[kind(roam::run_kind::entry)] != c.ends[kind(roam::run_kind::entry)] + 1) bad |= 16;
  if (c.begins[kind(roam::run_kind::task_resume)] != c.ends[kind(roam::run_kind::task_resume)]) bad |= 32;
  if (c.begins[kind(roam::run_kind::thread)] != c.ends[kind(roam::run_kind::thread)]) bad |= 64;
  if (c.idle_begins != c.idle_ends) bad |= 128;
  if (c.wrong != 0) bad |= 256;
  if (bad)
    std::fprintf(stderr,
                 "observer_check: pe %u: failed checks %#lx: pings run %ld, begins %ld ends %ld received %ld; awaits %ld "
                 "resumes %ld; blocks %ld slices %ld; entry %ld/%ld task %ld/%ld thread %ld/%ld; idle %ld/%ld; wrong %ld\n",
                 pe, bad, pings_run[pe].load(), c.ping_begins.load(), c.ping_ends.load(), c.ping_received.load(),
                 awaits_run[pe].load(), c.element_resumes.load(), blocks_run[pe].load(), c.element_slices.load(),
                 c.begins[0].load(), c.ends[0].load(), c.begins[1].load(), c.ends[1].load(), c.begins[2].load(),
                 c.ends[2].load(), c.idle_begins.load(), c.idle_ends.load(), c.wrong.load());
  return bad;
}

struct reporter : roam::group_member<reporter> {
  void report(roam::callback<long> failures, roam::callback<long> sent, roam::callback<long> begins) {
    const std::uint32_t pe = roam::my_pe().value();
    long bad = check_pe(first_observer, pe) | check_pe(second_observer, pe);
    contribute(bad ? 1L : 0L, roam::sum, failures);
    contribute(first_observer.pes[pe].ping_sent + second_observer.pes[pe].ping_sent, roam::sum, sent);
    contribute(first_observer.pes[pe].ping_begins + second_observer.pes[pe].ping_begins, roam::sum, begins);
  }
};

}  // namespace

int main(int argc, char** argv) {
  roam::add_observer(first_observer);
  roam::add_observer(second_observer);
  return roam::run(argc, argv, [](const roam::args&) -> roam::task<> {
    const int n = static_cast<int>(roam::num_pes()) * elements_per_pe;
    auto cells = roam::create_array<obs_cell>(roam::array_options<1>({n}));
    for (int k = 0; k < pings_per_element; ++k)
      for (int i = 0; i < n; ++i) cells[i].send<&obs_cell::ping>();
    auto [fa, pa] = roam::make_future<long>();
    cells.send<&obs_cell::await_echo>(cells, n, roam::callback<long>::to_future(pa));
    long a = co_await fa;
    auto [fb, pb] = roam::make_future<long>();
    cells.send<&obs_cell::block_on_echo>(cells, n, roam::callback<long>::to_future(pb));
    long b = co_await fb;
    const long expect_echo = static_cast<long>(n) * (n - 1) / 2 + n;
    // Every ping ran before the awaits finished? Not promised: wait for quiescence.
    auto [fq, pq] = roam::make_future<>();
    roam::on_quiescence(roam::callback<>::to_future(pq));
    co_await fq;
    auto reporters = roam::create_group<reporter>();
    auto [ff, pf] = roam::make_future<long>();
    auto [fs, ps] = roam::make_future<long>();
    auto [fg, pg] = roam::make_future<long>();
    reporters.send<&reporter::report>(roam::callback<long>::to_future(pf), roam::callback<long>::to_future(ps),
                                      roam::callback<long>::to_future(pg));
    long failures = co_await ff, sent = co_await fs, begins = co_await fg;
    const long expect_pings = 2L * n * pings_per_element;  // seen by each of two observers
    bool ok = failures == 0 && a == expect_echo && b == expect_echo && sent == expect_pings && begins == expect_pings;
    std::printf("observer_check: %s (%u pes, %d elements; failing pes %ld; pings sent %ld begun %ld of %ld)\n",
                ok ? "OK" : "WRONG", roam::num_pes(), n, failures, sent, begins, expect_pings);
    roam::exit(ok ? 0 : 1);
  });
}
