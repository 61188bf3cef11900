// thread_migration_check: migratable threads (roam/iso/thread.hpp) moved
// while blocked, on one process, across TCP nodes and MPI ranks.
//
//   thread_migration_check walk [WALKERS=8] [DEPTH=24] [HOPS=12]
//     Each walker's thread recurses DEPTH levels, building a linked list on
//     its own heap and keeping pointers to its callers' locals; blocked at
//     the bottom and on the way up, it asks its element to move to the next
//     PE round the ring, HOPS times in all. At the end each thread checks its
//     frames, its list and the PEs it woke up on; the program prints
//     "thread_migration_check: OK (W walkers, H hops each)".
//   thread_migration_check checkpoint DIR [WALKERS=8] [DEPTH=24] [HOPS=12]
//     The walk, but every walker parks at the bottom of its recursion once
//     its hops down are done; then a disk checkpoint into DIR ends the run
//     ("checkpoint written"). `thread_migration_check +restart DIR` (any PE
//     or process count) rebuilds the blocked threads at their addresses and
//     wakes them: they hop on and finish with the walk's checks and line.
//     Both runs need the same code addresses (roamrun, or setarch -R). The
//     restarted run also starts as many new walkers, which walk alongside.
//     DIR "memory": an in-memory checkpoint instead, after which the last
//     PE's process kills itself (SIGKILL); the survivors roll back to it
//     (roamrun --ft), rebuild the blocked threads and wake them.
//   thread_migration_check heap-walk ... / heap-checkpoint DIR|memory ...
//     The same, with threads started with isomalloc_heap: the list's nodes
//     come from malloc (with strdup'ed labels), the PEs woken on go in a
//     std::vector, each level keeps a std::string in a std::map and a
//     std::unique_ptr<long[]>, and some levels throw and catch an exception
//     (all served from the thread's slot); the thread checks that all of it
//     is in its heap, and that its heap is empty again after freeing it.
//   thread_migration_check futures [CALLERS=8] [CALLS=12]
//     Each caller's thread makes CALLS calls to oracles (a group, on other
//     PEs) and waits for each in future::get while its element moves 1-3
//     times round the ring: the answer follows the thread. The oracle answers
//     once the element has moved (after its last arrival, or, in every 4th
//     call, as it leaves: the answer then reaches the future's PE before the
//     thread says where it went); some answers are exceptions, some futures
//     are future<void>. Each answer must be exact and the thread must wake
//     where its element is; the program prints "thread_migration_check: OK
//     (C callers, K calls each, M moves while waiting)". heap-futures keeps
//     the futures in the thread's heap (malloc'ed) rather than on its stack.
//   thread_migration_check balance [ELEMENTS=64] [STEPS=4]
//     Each element's thread works (units_of: a quarter of them 8 times more)
//     and calls at_sync_and_wait(); the balancer moves the elements, threads
//     and all. The sums must be exact, and each thread records on which PE it
//     woke after each step: under +balancer Rotate every one moved every step.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <roam/ft/checkpoint.hpp>
#include <roam/ft/memory_checkpoint.hpp>
#include <roam/roam.hpp>

namespace {

using pe_list = std::vector<int, roam::thread_heap_allocator<int>>;

struct node {
  node* next;
  long value;
};

int here() { return static_cast<int>(roam::my_pe().value()); }

// Work per step: the even elements of the first half are 8 times heavier, so
// PE 0 is overloaded under the block and the round-robin maps alike.
long units_of(int idx, int n) { return idx % 2 == 0 && idx < n / 2 ? 8 : 1; }

// ---- walk ------------------------------------------------------------------------

struct walker;

// Collects the walkers' reports. With a checkpoint directory, once every
// walker has parked (blocked at the bottom of its recursion, every hop of
// the way down done) it checkpoints; the run ends there, and a run restarted
// from the checkpoint wakes them to finish, on however many PEs it has.
struct tally : roam::chare<tally> {
  tally(int n, int depth, int hops, bool routed, std::string dir)
      : n_(n), depth_(depth), hops_(hops), routed_(routed), dir_(std::move(dir)) {}
  explicit tally(roam::migrating) {}
  void set_walkers(roam::array_proxy<walker> w, roam::group_proxy<struct assassin> a) {
    walkers_ = w;
    assassins_ = a;
  }
  void parked();
  void saved(roam::checkpoint_result r);
  void done(int idx, bool ok, std::vector<int> pes, std::string why) {
    if (!ok) {
      std::printf("thread_migration_check: FAILED: walker %d: %s (woke on", idx, why.c_str());
      for (int p : pes) std::printf(" %d", p);
      std::printf(")\n");
      bad_ = true;
    }
    if (ok && static_cast<int>(pes.size()) - 1 != hops_) {
      std::printf("thread_migration_check: FAILED: walker %d hopped %zu times, not %d\n", idx, pes.size() - 1, hops_);
      bad_ = true;
    }
    if (++seen_ < n_) return;
    if (roam::thread_memory_shared_on_host()) std::printf("thread_migration_check: thread memory shared on the host\n");
    if (!bad_) std::printf("thread_migration_check: OK (%d walkers, %d hops each)\n", n_, hops_);
    roam::exit(bad_ ? 1 : 0);
  }
  void pup(roam::pup_er& p) { p | n_ | depth_ | hops_ | routed_ | dir_ | seen_ | parked_ | bad_ | walkers_ | assassins_; }

 private:
  int n_ = 0, depth_ = 0, hops_ = 0;
  bool routed_ = false;
  std::string dir_;
  int seen_ = 0, parked_ = 0;
  bool bad_ = false;
  roam::array_proxy<walker> walkers_;
  roam::group_proxy<struct assassin> assassins_;
};

struct walker : roam::element<walker> {
  static constexpr bool pup_on_migration = true;
  walker() = default;
  explicit walker(roam::migrating) {}

  void begin(roam::chare_proxy<tally> t, int depth, int hops, bool park, bool routed) {
    tally_ = t;
    depth_ = depth;
    hops_left_ = hops;
    park_ = park;
    if (routed) thread.start(this, [] { run_routed(); }, roam::thread_options{.isomalloc_heap = true});
    else thread.start(this, [] { run(); });
  }
  void go(int pe) {
    if (pe == here()) this_proxy().send<&walker::poke>();  // one PE: nowhere to go
    else migrate_to(roam::pe_id{static_cast<std::uint32_t>(pe)});
  }
  void after_migration() { this_proxy().send<&walker::poke>(); }
  void poke() { thread.resume(); }
  void unpark() {
    if (thread.suspended()) thread.resume();
  }
  void pup(roam::pup_er& p) { p | tally_ | depth_ | hops_left_ | park_ | thread; }

  roam::migratable_thread thread;
  roam::chare_proxy<tally> tally_;
  int depth_ = 0, hops_left_ = 0;
  bool park_ = false;

  // On the thread: the element is reached through this_thread_owner() only.
  static walker& self() { return roam::this_thread_owner<walker>(); }

  template <class List>
  static void hop(List& pes) {
    walker& w = self();
    if (w.hops_left_ == 0) return;
    --w.hops_left_;
    w.this_proxy().send<&walker::go>((here() + 1) % static_cast<int>(roam::num_pes()));
    roam::suspend_this_thread();
    pes.push_back(here());
  }

  // Pauses at the bottom of the recursion (the hops down, the checkpoint).
  template <class List>
  static void bottom(List& pes) {
    while (self().hops_left_ > self().depth_ / 5 + 1) hop(pes);
    if (self().park_) {  // checkpointed here; goes on in the restarted run
      self().tally_.send<&tally::parked>();
      roam::suspend_this_thread();
      pes.push_back(-1);  // the restart: the PE count may have changed
      pes.push_back(here());
    }
  }

  static long recurse(int depth, node*& list, const long* parent_local, bool& frames_ok, pe_list& pes) {
    long local = depth * 3L + 2;
    const long* mine = &local;
    auto* n = static_cast<node*>(roam::thread_heap_allocate(sizeof(node)));
    *n = node{list, depth};
    list = n;
    long below = 0;
    if (depth > 0) below = recurse(depth - 1, list, mine, frames_ok, pes);
    else bottom(pes);
    if (depth % 5 == 0) hop(pes);  // half-way back up
    if (*mine != depth * 3L + 2 || (parent_local && *parent_local != (depth + 1) * 3L + 2) || n->value != depth)
      frames_ok = false;
    return below + local + n->value;
  }

  static void run() {
    const int depth = self().depth_;
    const int ring = static_cast<int>(roam::num_pes());  // on the thread's stack: it survives the checkpoint
    pe_list pes;
    pes.push_back(here());
    node* list = nullptr;
    bool frames_ok = true;
    const long r = recurse(depth, list, nullptr, frames_ok, pes);
    const long sum = static_cast<long>(depth) * (depth + 1) / 2;
    long listed = 0, count = 0;
    for (node* n = list; n; n = n->next, ++count) listed += n->value;
    std::string why;
    if (!frames_ok) why = "a frame's pointers went wrong";
    else if (r != 4 * sum + 2L * (depth + 1)) why = "the recursion's result is " + std::to_string(r);
    else if (listed != sum || count != depth + 1) why = "the heap's list is wrong";
    check_hops(pes, ring, why);
    while (list) {
      node* next = list->next;
      roam::thread_heap_release(list);
      list = next;
    }
    report(pes, why);
  }

  // The hops went round the ring (of the new PE count after a restart).
  template <class List>
  static void check_hops(const List& pes, int ring, std::string& why) {
    int hops = 0;
    for (std::size_t i = 1; i < pes.size() && why.empty(); ++i) {
      if (pes[i] == -1) {  // restarted: the next entry is where, the rest go round the new ring
        ring = static_cast<int>(roam::num_pes());
        ++i;
        continue;
      }
      ++hops;
      if (pes[i] != (pes[i - 1] + 1) % ring) why = "hop " + std::to_string(hops) + " woke on the wrong PE";
    }
  }

  template <class List>
  static void report(const List& pes, const std::string& why) {
    walker& w = self();
    std::vector<int> woke;  // the hops' PEs, the restart's marker and place left out
    for (std::size_t i = 0; i < pes.size(); ++i) {
      if (pes[i] == -1) {
        ++i;
        continue;
      }
      woke.push_back(pes[i]);
    }
    w.tally_.send<&tally::done>(w.this_index()[0], why.empty(), woke, why);
  }

  // ---- the same on a thread whose malloc and new are its slot's ----------------

  struct c_node {
    c_node* next;
    long value;
    char* label;  // strdup'ed
  };

  static long recurse_routed(int depth, c_node*& list, std::map<int, std::string>& names, std::vector<int>& pes,
                             const long* parent_local, bool& frames_ok, bool& heap_ok) {
    long local = depth * 3L + 2;
    const long* mine = &local;
    auto* n = static_cast<c_node*>(std::malloc(sizeof(c_node)));
    const std::string label = "level " + std::to_string(depth) + std::string(24, '.');  // beyond the inline buffer
    *n = c_node{list, depth, strdup(label.c_str())};
    list = n;
    names[depth] = label;
    auto owned = std::make_unique<long[]>(static_cast<std::size_t>(depth) + 1);
    owned[static_cast<std::size_t>(depth)] = depth;
    heap_ok = heap_ok && roam::thread_heap_owns(n) && roam::thread_heap_owns(n->label) &&
              roam::thread_heap_owns(owned.get()) && roam::thread_heap_owns(names[depth].data()) &&
              roam::thread_heap_owns(pes.data());
    long below = 0;
    if (depth > 0) below = recurse_routed(depth - 1, list, names, pes, mine, frames_ok, heap_ok);
    else bottom(pes);
    if (depth % 5 == 0) hop(pes);
    if (depth % 7 == 3) {  // an exception object, allocated in the slot, thrown after the hops below
      try {
        throw std::runtime_error(label);
      } catch (const std::runtime_error& e) {
        frames_ok = frames_ok && label == e.what();
      }
    }
    if (*mine != depth * 3L + 2 || (parent_local && *parent_local != (depth + 1) * 3L + 2) || n->value != depth ||
        owned[static_cast<std::size_t>(depth)] != depth || names.at(depth) != label || label != n->label)
      frames_ok = false;
    return below + local + n->value;
  }

  static void run_routed() {
    const int depth = self().depth_;
    const int ring = static_cast<int>(roam::num_pes());
    const std::size_t heap_at_start = roam::thread_heap_in_use();
    std::string why;
    std::vector<int> woke;
    {
      std::vector<int> pes;
      pes.reserve(4);  // grows (and moves) in the slot as the hops go on
      pes.push_back(here());
      std::map<int, std::string> names;
      c_node* list = nullptr;
      bool frames_ok = true, heap_ok = true;
      const long r = recurse_routed(depth, list, names, pes, nullptr, frames_ok, heap_ok);
      const long sum = static_cast<long>(depth) * (depth + 1) / 2;
      long listed = 0, count = 0;
      for (c_node* n = list; n; n = n->next, ++count) listed += n->value;
      if (!frames_ok) why = "a frame's pointers or values went wrong";
      else if (!heap_ok) why = "an allocation was not in the thread's heap";
      else if (r != 4 * sum + 2L * (depth + 1)) why = "the recursion's result is " + std::to_string(r);
      else if (listed != sum || count != depth + 1 || names.size() != static_cast<std::size_t>(depth) + 1)
        why = "the heap's list or map is wrong";
      check_hops(pes, ring, why);
      while (list) {
        c_node* next = list->next;
        std::free(list->label);
        std::free(list);
        list = next;
      }
      woke = pes;
    }
    if (why.empty() && roam::thread_heap_in_use() > heap_at_start + 4096)  // woke's own block stays
      why = "the thread's heap holds " + std::to_string(roam::thread_heap_in_use()) + " bytes after freeing";
    report(woke, why);
  }
};

// Kills its own process (SIGKILL: no goodbye), for the in-memory test.
struct assassin : roam::group_member<assassin> {
  void strike() { std::raise(SIGKILL); }
  void pup(roam::pup_er&) {}
};

void tally::parked() {
  if (++parked_ < n_) return;
  if (dir_ == "memory") {
    roam::checkpoint_in_memory(roam::callback<roam::checkpoint_result>::to<&tally::saved>(this_proxy()));
    return;
  }
  roam::checkpoint(dir_, roam::callback<roam::checkpoint_result>::to<&tally::saved>(this_proxy()),
                   {.keep = 2, .durable = false});
}

void tally::saved(roam::checkpoint_result r) {
  if (!r.ok) {
    std::printf("thread_migration_check: FAILED: checkpoint: %s\n", r.error.c_str());
    roam::exit(1);
    return;
  }
  if (!r.restarted && r.in_memory) {  // the last PE's process dies; the others roll back to this
    std::printf("thread_migration_check: checkpoint in memory (%d walkers parked), killing the last process\n",
                parked_);
    std::fflush(stdout);
    assassins_[roam::pe_id{roam::num_pes() - 1}].send<&assassin::strike>();
    return;
  }
  if (!r.restarted) {
    std::printf("thread_migration_check: checkpoint written (%d walkers parked)\n", parked_);
    roam::exit(0);
    return;
  }
  std::printf("thread_migration_check: %s %s on %u pes\n", r.recovered ? "recovered from" : "restarted from",
              r.path.c_str(), roam::num_pes());
  walkers_.send<&walker::unpark>();
  // As many new walkers, started in this run: their slots come from this
  // run's slices, which overlap the restored threads' (another PE count).
  // They must not take a restored thread's slot: the two would meet.
  const int fresh = n_;
  n_ += fresh;
  roam::create_array<walker>(roam::index<1>{fresh}).send<&walker::begin>(this_proxy(), depth_, hops_, false, routed_);
}

// ---- futures ------------------------------------------------------------------------

std::string failure_text(int caller, int k) {
  return "call " + std::to_string(k) + " of caller " + std::to_string(caller) + " failed on purpose";
}
long answer_of(int caller, int k) { return caller * 1000L + k; }
// The exception object alone owns its message, and its one reference
// travels: a temporary sharing the copy-on-write string would be freed here
// after the future's PE read it, ordered only by libstdc++'s atomic count,
// which ThreadSanitizer does not see.
std::exception_ptr failure(int caller, int k) {
  try {
    throw std::runtime_error(failure_text(caller, k));
  } catch (...) {
    return std::current_exception();
  }
}

// What a call asks for (k % 4): the answer after the moves, the answer as
// the element leaves (one move), an exception, a future<void>.
enum call_kind : int { answer_after = 0, answer_on_leaving = 1, fails = 2, nothing = 3 };
int moves_of(int k) { return k % 4 == answer_on_leaving ? 1 : 1 + k % 3; }

// Answers a call once it was asked and its caller's element has moved.
struct oracle : roam::group_member<oracle> {
  struct pending {
    roam::promise<long> value;
    roam::promise<void> done;
    int kind = 0;
    bool asked = false, moved = false;
  };
  void ask(int caller, int k, int kind, roam::promise<long> value, roam::promise<void> done) {
    pending& c = calls_[{caller, k}];
    c.value = value;
    c.done = done;
    c.kind = kind;
    c.asked = true;
    answer(caller, k);
  }
  void moved(int caller, int k) {
    calls_[{caller, k}].moved = true;
    answer(caller, k);
  }
  void pup(roam::pup_er&) {}

 private:
  void answer(int caller, int k) {
    auto it = calls_.find({caller, k});
    if (!it->second.asked || !it->second.moved) return;
    const pending c = it->second;
    calls_.erase(it);
    if (c.kind == nothing) c.done.set_value();
    else if (c.kind == fails) c.value.set_exception(failure(caller, k));
    else c.value.set_value(answer_of(caller, k));
  }
  std::map<std::pair<int, int>, pending> calls_;
};

struct ledger_of_calls : roam::chare<ledger_of_calls> {
  ledger_of_calls(int n, int calls) : n_(n), calls_(calls) {}
  void done(int idx, std::string why, int moves) {
    if (!why.empty()) {
      std::printf("thread_migration_check: FAILED: caller %d: %s\n", idx, why.c_str());
      bad_ = true;
    }
    moves_ += moves;
    if (++seen_ < n_) return;
    if (!bad_)
      std::printf("thread_migration_check: OK (%d callers, %d calls each, %d moves while waiting)\n", n_, calls_, moves_);
    roam::exit(bad_ ? 1 : 0);
  }

 private:
  int n_, calls_, seen_ = 0, moves_ = 0;
  bool bad_ = false;
};

struct caller : roam::element<caller> {
  static constexpr bool pup_on_migration = true;
  caller() = default;
  explicit caller(roam::migrating) {}

  void begin(roam::chare_proxy<ledger_of_calls> l, roam::group_proxy<oracle> o, int calls, bool routed) {
    ledger_ = l;
    oracles_ = o;
    calls_ = calls;
    if (routed) thread.start(this, [] { run(true); }, roam::thread_options{.isomalloc_heap = true});
    else thread.start(this, [] { run(false); });
  }
  // The moves of call k (the thread waits in get meanwhile).
  void go_many(int moves, int k, int kind) {
    moves_left_ = moves;
    k_ = k;
    kind_ = kind;
    told_ = false;
    step();
  }
  void step() {
    if (moves_left_ == 0) {
      tell_oracle();
      return;
    }
    --moves_left_;
    const int to = (here() + 1) % static_cast<int>(roam::num_pes());
    if (to == here()) this_proxy().send<&caller::step>();  // one PE: nowhere to go
    else migrate_to(roam::pe_id{static_cast<std::uint32_t>(to)});
  }
  void before_migration() {
    if (kind_ == answer_on_leaving) tell_oracle();  // its only move: the answer races the thread
  }
  void after_migration() { this_proxy().send<&caller::step>(); }
  void pup(roam::pup_er& p) { p | ledger_ | oracles_ | calls_ | moves_left_ | k_ | kind_ | told_ | thread; }

  roam::migratable_thread thread;
  roam::chare_proxy<ledger_of_calls> ledger_;
  roam::group_proxy<oracle> oracles_;
  int calls_ = 0, moves_left_ = 0, k_ = 0, kind_ = 0;
  bool told_ = false;

  static caller& self() { return roam::this_thread_owner<caller>(); }
  static int oracle_pe(int idx, int k) { return (idx + k + 1) % static_cast<int>(roam::num_pes()); }

  void tell_oracle() {
    if (std::exchange(told_, true)) return;
    oracles_[roam::pe_id{static_cast<std::uint32_t>(oracle_pe(this_index()[0], k_))}].send<&oracle::moved>(
        this_index()[0], k_);
  }

  // Waits for `f` (on the thread's stack, or in its heap when routed).
  template <class T>
  static auto wait(roam::future<T>& f) {
    return f.get();
  }

  static void run(bool routed) {
    const int idx = self().this_index()[0];
    const int calls = self().calls_;
    const int ring = static_cast<int>(roam::num_pes());
    std::string why;
    int moved = 0;
    for (int k = 0; k < calls && why.empty(); ++k) {
      const int kind = k % 4, moves = moves_of(k), before = here();
      auto [value, value_promise] = roam::make_future<long>();
      auto [done, done_promise] = roam::make_future<void>();
      // Routed: the futures the thread waits on are in its heap (malloc'ed by new).
      std::unique_ptr<roam::future<long>> value_in_heap;
      std::unique_ptr<roam::future<void>> done_in_heap;
      if (routed) {
        value_in_heap = std::make_unique<roam::future<long>>(std::move(value));
        done_in_heap = std::make_unique<roam::future<void>>(std::move(done));
        if (!roam::thread_heap_owns(value_in_heap.get())) why = "a future made by new is not in the thread's heap";
      }
      roam::future<long>& v = routed ? *value_in_heap : value;
      roam::future<void>& d = routed ? *done_in_heap : done;
      self().this_proxy().send<&caller::go_many>(moves, k, kind);
      self().oracles_[roam::pe_id{static_cast<std::uint32_t>(oracle_pe(idx, k))}].send<&oracle::ask>(
          idx, k, kind, kind == nothing ? roam::promise<long>() : value_promise,
          kind == nothing ? done_promise : roam::promise<void>());
      try {
        if (kind == nothing) wait(d);
        else if (const long got = wait(v); got != answer_of(idx, k))
          why = "call " + std::to_string(k) + " answered " + std::to_string(got);
        if (kind == fails) why = "call " + std::to_string(k) + " did not throw";
      } catch (const std::exception& e) {
        if (kind != fails || e.what() != failure_text(idx, k))
          why = "call " + std::to_string(k) + " threw '" + e.what() + "'";
      }
      const int expected_pe = (before + moves) % ring;
      if (why.empty() && here() != expected_pe)
        why = "call " + std::to_string(k) + " woke on pe " + std::to_string(here()) + ", not " +
              std::to_string(expected_pe);
      if (ring > 1) moved += moves;
      if (kind == nothing) value_promise.set_value(0);  // the unused future of the call, fulfilled to end it
      else done_promise.set_value();
    }
    self().ledger_.send<&ledger_of_calls::done>(idx, why, moved);
  }
};

// ---- balance ------------------------------------------------------------------------

struct ledger : roam::chare<ledger> {
  ledger(int n, int steps) : n_(n), steps_(steps) {}
  void done(int idx, long total, int moves) {
    const long units = units_of(idx, n_);
    long expected = 0;
    for (int s = 0; s < steps_; ++s) expected += units * (idx + 1) * (s + 1);
    if (total != expected) {
      std::printf("thread_migration_check: FAILED: element %d: total %ld, expected %ld\n", idx, total, expected);
      bad_ = true;
    }
    moves_ += moves;
    if (++seen_ < n_) return;
    const char* strict = std::getenv("ROAM_TEST_EVERY_STEP_MOVES");
    if (strict && moves_ != n_ * steps_) {
      std::printf("thread_migration_check: FAILED: %d moves, expected %d (every element every step)\n", moves_,
                  n_ * steps_);
      bad_ = true;
    }
    if (roam::num_pes() > 1 && moves_ == 0) {
      std::printf("thread_migration_check: FAILED: the balancer moved no thread\n");
      bad_ = true;
    }
    if (!bad_) std::printf("thread_migration_check: OK (%d elements, %d steps, %d moves)\n", n_, steps_, moves_);
    roam::exit(bad_ ? 1 : 0);
  }

 private:
  int n_, steps_, seen_ = 0, moves_ = 0;
  bool bad_ = false;
};

struct worker : roam::element<worker> {
  static constexpr bool pup_on_migration = true;
  worker() = default;
  explicit worker(roam::migrating) {}

  void begin(roam::chare_proxy<ledger> l, int n, int steps) {
    ledger_ = l;
    n_ = n;
    steps_ = steps;
    thread.start(this, [] { run(); });
  }
  void resume_from_sync() { thread.resume(); }
  void pup(roam::pup_er& p) { p | ledger_ | n_ | steps_ | thread; }

  roam::migratable_thread thread;
  roam::chare_proxy<ledger> ledger_;
  int n_ = 0, steps_ = 0;

  static void run() {
    worker& w0 = roam::this_thread_owner<worker>();
    const int idx = w0.this_index()[0];
    const int steps = w0.steps_;
    const long units = units_of(idx, w0.n_);
    long total = 0;
    int moves = 0;
    volatile double sink = 0;
    for (int s = 0; s < steps; ++s) {
      for (long u = 0; u < units * 20000; ++u) sink = sink + 1e-9 * static_cast<double>(u);  // skewed work
      total += units * (idx + 1) * (s + 1);
      const int before = here();
      roam::at_sync_and_wait();
      moves += here() != before;
    }
    roam::this_thread_owner<worker>().ledger_.send<&ledger::done>(idx, total, moves);
  }
};

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) {
    std::string mode = a.size() > 1 ? a[1] : "walk";
    const bool routed = mode.rfind("heap-", 0) == 0;  // heap-walk, heap-checkpoint
    if (routed) mode = mode.substr(5);
    if (mode == "--help" || mode == "-h") {
      std::printf(
          "usage: thread_migration_check [runtime options] MODE ...\n"
          "  walk [WALKERS=8] [DEPTH=24] [HOPS=12]        blocked threads hop round the PEs\n"
          "  checkpoint DIR|memory [WALKERS] [DEPTH] [HOPS] park, checkpoint (then +restart DIR, or a kill)\n"
          "  futures [CALLERS=8] [CALLS=12]               threads wait in future::get while they move\n"
          "  balance [ELEMENTS=64] [STEPS=4]              threads load balanced in at_sync_and_wait\n"
          "  heap-walk, heap-checkpoint, heap-futures     the same, threads with isomalloc_heap (malloc, new)\n");
      roam::exit(0);
      return;
    }
    if (mode == "walk") {
      const int walkers = static_cast<int>(a.int_or(2, 8));
      const int depth = static_cast<int>(a.int_or(3, 24));
      const int hops = static_cast<int>(a.int_or(4, 12));
      auto t = roam::create_chare<tally>(walkers, depth, hops, routed, std::string());
      roam::create_array<walker>(roam::index<1>{walkers}).send<&walker::begin>(t, depth, hops, false, routed);
    } else if (mode == "checkpoint") {
      const std::string dir = a.size() > 2 ? a[2] : "thread_ckpt";
      const int walkers = static_cast<int>(a.int_or(3, 8));
      const int depth = static_cast<int>(a.int_or(4, 24));
      const int hops = static_cast<int>(a.int_or(5, 12));
      auto t = roam::create_chare<tally>(walkers, depth, hops, routed, dir);
      auto w = roam::create_array<walker>(roam::index<1>{walkers});
      t.send<&tally::set_walkers>(w, roam::create_group<assassin>());
      w.send<&walker::begin>(t, depth, hops, true, routed);
    } else if (mode == "futures") {
      const int callers = static_cast<int>(a.int_or(2, 8));
      const int calls = static_cast<int>(a.int_or(3, 12));
      auto l = roam::create_chare<ledger_of_calls>(callers, calls);
      roam::create_array<caller>(roam::index<1>{callers})
          .send<&caller::begin>(l, roam::create_group<oracle>(), calls, routed);
    } else if (mode == "balance") {
      const int n = static_cast<int>(a.int_or(2, 64));
      const int steps = static_cast<int>(a.int_or(3, 4));
      auto l = roam::create_chare<ledger>(n, steps);
      roam::create_array<worker>(roam::index<1>{n}).send<&worker::begin>(l, n, steps);
    } else {
      std::printf("thread_migration_check: unknown mode '%s' (walk, checkpoint, futures or balance)\n", mode.c_str());
      roam::exit(2);
    }
  });
}
