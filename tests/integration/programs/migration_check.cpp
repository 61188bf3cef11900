// migration_check: exact accounting while array elements move, appear and
// die, on one process, TCP nodes or MPI ranks alike.
//   1. A storm: every element starts message chains that hop to random
//      elements while a random subset migrates on every hop; every message is
//      received exactly once (count and a checksum of message ids). Elements
//      that never move exchange numbered messages that must arrive in order.
//      Broadcasts and reductions run during the storm: every element sees
//      every broadcast once and in order, every reduction sums exactly.
//   2. Large state: an element carrying 1 MiB visits every PE and checks it.
//   3. A sparse array with a user index: blocks split (insert two children,
//      destroy themselves) and migrate while reductions conserve mass exactly.
//   4. Demand creation: a message to a never-inserted index creates it.
//   5. A singleton chare tours the PEs while every PE streams messages at it:
//      each arrives exactly once (count and checksum), its state intact.
//   6. A section of a sparse array with a user index, built before some
//      members exist: multicasts reach every member once and in order while
//      members move, and section reductions sum exactly.
//   7. Restart entries: elements whose run() task waits on a mailbox while
//      they hop PEs; a packed move (another process, +serialize) ends the
//      task and starts it again from the pupped state. Every numbered
//      message is taken once, and starts = elements + packed arrivals.
//   migration_check [elements=400] [chains=3] [hops=12]
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <roam/roam.hpp>

namespace {

roam::readonly<int> g_n;
roam::readonly<int> g_hops;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
std::uint64_t message_id(std::int64_t origin, std::int64_t chain, std::int64_t left) {
  return mix((static_cast<std::uint64_t>(origin) << 32) ^ (static_cast<std::uint64_t>(chain) << 16) ^
             static_cast<std::uint64_t>(left));
}
bool is_anchor(int i) { return i % 10 == 0; }  // never migrates
constexpr std::uint64_t checksum_modulus = 2147483647;

struct walker : roam::element<walker> {
  walker() = default;
  explicit walker(roam::migrating) {}

  void start(int chains) {
    for (int c = 0; c < chains; ++c) hop_on(this_index()[0], c, *g_hops);
    // Anchors send numbered messages to the next anchors: order must hold.
    if (is_anchor(this_index()[0]))
      for (int k = 0; k < 20; ++k)
        for (int step = 1; step <= 3; ++step)
          if (int to = this_index()[0] + 10 * step; to < *g_n) this_array()[to].send<&walker::ordered>(this_index()[0], k);
  }
  void hop(std::int64_t origin, std::int64_t chain, std::int64_t left) {
    ++received;
    checksum += static_cast<long>(message_id(origin, chain, left) % checksum_modulus);
    if (left > 0) hop_on(origin, chain, left - 1);
    maybe_move(origin + chain + left);
  }
  void ordered(int from, int k) {
    if (next_from.size() <= static_cast<std::size_t>(from)) next_from.resize(static_cast<std::size_t>(from) + 1, 0);
    if (next_from[static_cast<std::size_t>(from)] != k) ++order_errors;
    next_from[static_cast<std::size_t>(from)] = k + 1;
    ++ordered_received;
  }
  void tick(int k, roam::callback<long> cb) {
    if (k != last_tick + 1) ++tick_errors;
    last_tick = k;
    contribute(static_cast<long>(this_index()[0]) * k, roam::sum, cb);
    maybe_move(static_cast<std::uint64_t>(k) * 7919);
  }
  void report(roam::callback<std::vector<long>> cb) {
    contribute(std::vector<long>{received, checksum, ordered_received, order_errors,
                                 tick_errors, last_tick},
               roam::sum, cb);
  }
  void pup(roam::pup_er& p) {
    p | received | checksum | ordered_received | order_errors | tick_errors | last_tick | next_from | rng;
  }
  void after_migration() { ++moves; }

  long received = 0;
  long checksum = 0;
  long ordered_received = 0, order_errors = 0, tick_errors = 0;
  int last_tick = 0;
  std::vector<int> next_from;
  std::uint64_t rng = 1;
  int moves = 0;

 private:
  void hop_on(std::int64_t origin, std::int64_t chain, std::int64_t left) {
    rng = mix(rng + static_cast<std::uint64_t>(this_index()[0]) * 31 + static_cast<std::uint64_t>(left));
    this_array()[static_cast<int>(rng % static_cast<std::uint64_t>(*g_n))].send<&walker::hop>(origin, chain, left);
  }
  void maybe_move(std::uint64_t salt) {
    if (is_anchor(this_index()[0])) return;
    std::uint64_t r = mix(salt ^ static_cast<std::uint64_t>(this_index()[0]) ^ (rng << 1));
    if (r % 4 == 0) migrate_to(roam::pe_id{static_cast<std::uint32_t>((r >> 8) % roam::num_pes())});
  }
};

// An element carrying 1 MiB that visits every PE in turn.
struct traveller : roam::element<traveller> {
  traveller() = default;
  explicit traveller(std::uint64_t seed) : data(1 << 17) {
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = mix(seed + i);
  }
  void visit(std::uint32_t next, roam::callback<long> done) {
    bool ok = roam::my_pe().value() == (next == 0 ? 0 : next - 1) || next == 0;
    for (std::size_t i = 0; i < data.size(); i += 4099) ok = ok && data[i] == mix(seed_of() + i);
    if (!ok) ++errors;
    if (next >= roam::num_pes()) {
      done.send(errors * 1000 + static_cast<long>(visited));
      return;
    }
    ++visited;
    migrate_to(roam::pe_id{next});
    this_proxy().send<&traveller::visit>(next + 1, done);
  }
  std::uint64_t seed_of() const { return 77; }
  void pup(roam::pup_er& p) { p | data | errors | visited; }
  std::vector<std::uint64_t> data;
  long errors = 0;
  std::uint32_t visited = 0;
};

// A quad-tree-like user index: a path of bits and a depth.
struct block_id {
  std::uint32_t path = 0;
  std::uint32_t depth = 0;
  friend bool operator==(const block_id&, const block_id&) = default;
};

struct block : roam::element<block, block_id> {
  block() = default;
  explicit block(long m) : mass(m) {}
  void step(int k, roam::callback<std::vector<long>> cb) {
    contribute(std::vector<long>{mass, 1}, roam::sum, cb);
    const block_id me = this_index();
    std::uint64_t r = mix(static_cast<std::uint64_t>(me.path) * 131 + me.depth * 7 + static_cast<std::uint64_t>(k));
    if (me.depth < 8 && mass > 1 && r % 3 == 0) {  // split: children take over
      this_array().insert(block_id{me.path * 2, me.depth + 1}, mass / 2);
      this_array().insert_on(roam::pe_id{static_cast<std::uint32_t>(r % roam::num_pes())},
                             block_id{me.path * 2 + 1, me.depth + 1}, mass - mass / 2);
      destroy_self();
      return;
    }
    if (r % 5 == 1) migrate_to(roam::pe_id{static_cast<std::uint32_t>((r >> 7) % roam::num_pes())});
  }
  void pup(roam::pup_er& p) { p | mass; }
  long mass = 0;
};

struct lazy : roam::element<lazy, roam::index<2>> {
  lazy() = default;
  void poke(roam::callback<long> cb) { cb.send(static_cast<long>(this_index()[0] * 100 + this_index()[1])); }
  void pup(roam::pup_er&) {}
};

// A chare that moves on every `hop_every` messages, carrying a checked ballast.
struct rover : roam::chare<rover> {
  rover() = default;
  rover(long expect_count, roam::callback<std::vector<long>> when_done)
      : expected(expect_count), done(when_done), ballast(1 << 15) {
    for (std::size_t i = 0; i < ballast.size(); ++i) ballast[i] = mix(i);
  }
  void take(std::uint32_t from, long k) {
    ++received;
    sum = (sum + static_cast<long>(message_id(from, 9, k) % checksum_modulus)) % checksum_modulus;
    if (received % 61 == 0) migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()});
    if (received == expected) {
      long bad = 0;
      for (std::size_t i = 0; i < ballast.size(); i += 97) bad += ballast[i] != mix(i);
      done.send(std::vector<long>{received, sum, moves, bad});
    }
  }
  void after_migration() { ++moves; }
  void pup(roam::pup_er& p) { p | expected | done | ballast | received | sum | moves; }
  long expected = 0;
  roam::callback<std::vector<long>> done;
  std::vector<std::uint64_t> ballast;
  long received = 0, sum = 0, moves = 0;
};

struct rover_fan : roam::group_member<rover_fan> {
  void stream(roam::chare_proxy<rover> to, long count) {
    for (long k = 0; k < count; ++k) to.send<&rover::take>(roam::my_pe().value(), k);
  }
};

// Tiles of a sparse quad-tree-like array (user index), some in a section.
struct tile : roam::element<tile, block_id> {
  tile() = default;
  // Multicast order is promised to members that stay put (as for messages);
  // a member that moves may take cast k+1 before cast k, so what it
  // contributes does not depend on k (contributions are numbered in the
  // order each member makes them).
  void cast(roam::section_proxy<tile> sec, int k, roam::callback<long> cb) {
    const bool anchor = this_index().path % 4 == 0;
    if (anchor && k != last + 1) ++out_of_order;
    last = k;
    ++casts;
    contribute(sec, static_cast<long>(this_index().path), roam::sum, cb);
    std::uint64_t r = mix(static_cast<std::uint64_t>(this_index().path) * 17 + static_cast<std::uint64_t>(k));
    if (!anchor && r % 3 == 0) migrate_to(roam::pe_id{static_cast<std::uint32_t>((r >> 5) % roam::num_pes())});
  }
  void census(roam::callback<std::vector<long>> cb) { contribute(std::vector<long>{casts, out_of_order, 1}, roam::sum, cb); }
  void pup(roam::pup_er& p) { p | last | casts | out_of_order; }
  int last = 0;
  long casts = 0, out_of_order = 0;
};

int failures = 0;
void expect(const std::string& what, long got, long want) {
  std::printf("%-40s %ld%s\n", what.c_str(), got, got == want ? "" : ("  MISMATCH, expected " + std::to_string(want)).c_str());
  if (got != want) ++failures;
}

// Part 7: sums numbered gifts in order, moving on every 5 steps.
using pilgrim_report = std::tuple<long, long, long>;  // (sum, starts, packed arrivals)
constexpr auto pilgrim_reducer = roam::tuple_of(roam::sum, roam::sum, roam::sum);
using pilgrim_total = std::remove_cvref_t<decltype(pilgrim_reducer)>::result_t<pilgrim_report>;

struct pilgrim : roam::element<pilgrim> {
  static constexpr auto restart_entry() { return &pilgrim::run; }
  pilgrim() = default;
  explicit pilgrim(roam::migrating) : rebuilt_(true) {}
  pilgrim(long n, roam::callback<pilgrim_total> done) : n_(n), done_(done) {}

  roam::mailbox<long, long> gift;  // (step, value)

  roam::task<> run() {
    ++starts_;
    while (step_ < n_) {
      auto [s, v] = co_await gift.receive(step_);
      (void)s;
      sum_ += v;
      ++step_;
      if (step_ % 5 == 0) migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()});
    }
    contribute(pilgrim_report{sum_, starts_, packed_arrivals_}, pilgrim_reducer, done_);
  }
  void after_migration() {
    if (rebuilt_) ++packed_arrivals_;
    rebuilt_ = false;
  }
  void pup(roam::pup_er& p) { p | n_ | done_ | step_ | sum_ | starts_ | packed_arrivals_ | gift; }

  long n_ = 0;
  roam::callback<pilgrim_total> done_;
  long step_ = 0, sum_ = 0, starts_ = 0, packed_arrivals_ = 0;
  bool rebuilt_ = false;  // not state: true only in an object unpacked from a move
};

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines survive a hang or a crash
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    g_n = static_cast<int>(a.int_or(1, 400));
    const int chains = static_cast<int>(a.int_or(2, 3));
    g_hops = static_cast<int>(a.int_or(3, 12));
    const long n = *g_n;
    std::printf("migration_check: %ld elements, %d chains of %d hops, %u pes in %u nodes\n", n, chains, *g_hops,
                roam::num_pes(), roam::num_nodes());

    // 1. The storm, with broadcasts and reductions running through it.
    auto walkers = roam::create_array<walker>(roam::index<1>{static_cast<int>(n)});
    walkers.send<&walker::start>(chains);
    constexpr int ticks = 6;
    std::vector<roam::future<long>> sums;
    for (int k = 1; k <= ticks; ++k) {
      auto [f, p] = roam::make_future<long>();
      walkers.send<&walker::tick>(k, roam::callback<long>::to_future(p));
      sums.push_back(f);
    }
    for (int k = 1; k <= ticks; ++k) expect("reduction during the storm #" + std::to_string(k), co_await sums[static_cast<std::size_t>(k - 1)], k * n * (n - 1) / 2);
    {
      auto [fq, pq] = roam::make_future<>();
      roam::on_quiescence(roam::callback<>::to_future(pq));
      co_await fq;
    }
    long want_sum = 0;
    for (long o = 0; o < n; ++o)
      for (int c = 0; c < chains; ++c)
        for (int left = 0; left <= *g_hops; ++left) want_sum += static_cast<long>(message_id(o, c, left) % checksum_modulus);
    long ordered_want = 0;
    for (int i = 0; i < n; i += 10)
      for (int step = 1; step <= 3; ++step)
        if (i + 10 * step < n) ordered_want += 20;
    auto [fr, pr] = roam::make_future<std::vector<long>>();
    walkers.send<&walker::report>(roam::callback<std::vector<long>>::to_future(pr));
    std::vector<long> got = co_await fr;
    expect("storm messages received", got[0], n * chains * (*g_hops + 1));
    expect("storm checksum of message ids", got[1], want_sum);
    expect("ordered messages between anchors", got[2], ordered_want);
    expect("ordered messages out of order", got[3], 0);
    expect("broadcasts out of order or missed", got[4], 0);
    expect("sum of last broadcast numbers", got[5], n * ticks);

    // 2. 1 MiB of state visiting every PE.
    auto trav = roam::create_array<traveller>(roam::array_options<1>({1}, roam::block_map()), std::uint64_t{77});
    auto [ft, pt] = roam::make_future<long>();
    trav[0].send<&traveller::visit>(1u, roam::callback<long>::to_future(pt));
    expect("1 MiB element visits every pe intact", co_await ft, static_cast<long>(roam::num_pes()) - 1);

    // 3. Splitting blocks: mass and count conserved through inserts, deaths and moves.
    auto blocks = roam::create_sparse_array<block>();
    constexpr long roots = 16, root_mass = 1 << 12;
    for (std::uint32_t i = 0; i < roots; ++i) blocks.insert(block_id{i, 0}, root_mass);
    blocks.done_inserting();
    for (int k = 1; k <= 8; ++k) {
      auto [fb, pb] = roam::make_future<std::vector<long>>();
      blocks.send<&block::step>(k, roam::callback<std::vector<long>>::to_future(pb));
      std::vector<long> mc = co_await fb;
      expect("mass conserved, step " + std::to_string(k), mc[0], roots * root_mass);
      if (mc[1] < roots) expect("blocks alive, step " + std::to_string(k), mc[1], roots);
    }

    // 4. Demand creation.
    roam::sparse_options<roam::index<2>> lazy_options;
    lazy_options.demand_creation();
    auto lazies = roam::create_sparse_array<lazy>(lazy_options);
    auto [fl, pl] = roam::make_future<long>();
    lazies[roam::index<2>{3, 4}].send<&lazy::poke>(roam::callback<long>::to_future(pl));
    expect("demand-created element answers", co_await fl, 304);

    // 5. A touring chare.
    {
      const long per_pe = 2000;
      auto [fc, pc] = roam::make_future<std::vector<long>>();
      auto r = roam::create_chare_on<rover>(roam::pe_id{0}, per_pe * roam::num_pes(),
                                            roam::callback<std::vector<long>>::to_future(pc));
      roam::create_group<rover_fan>().send<&rover_fan::stream>(r, per_pe);
      std::vector<long> tour = co_await fc;
      long want = 0;
      for (std::uint32_t pe = 0; pe < roam::num_pes(); ++pe)
        for (long k = 0; k < per_pe; ++k) want = (want + static_cast<long>(message_id(pe, 9, k) % checksum_modulus)) % checksum_modulus;
      expect("messages to a touring chare", tour[0], per_pe * roam::num_pes());
      expect("their checksum", tour[1], want);
      expect("its ballast damaged", tour[3], 0);
      if (roam::num_pes() > 1 && tour[2] < 10) expect("the chare moved", tour[2], 10);
      r.destroy();
    }

    // 6. A section of a sparse, user-indexed array whose members move.
    {
      auto tiles = roam::create_sparse_array<tile>();
      constexpr std::uint32_t count = 60, depth = 5;
      std::vector<block_id> members;
      long path_sum = 0;
      for (std::uint32_t i = 0; i < count; i += 3) {
        members.push_back(block_id{i, depth});
        path_sum += i;
      }
      auto sec = roam::section_proxy<tile>::of(tiles, members);
      // Members inserted after the section was made, some away from home.
      for (std::uint32_t i = 0; i < count; ++i) {
        if (i % 2) tiles.insert_on(roam::pe_id{i % roam::num_pes()}, block_id{i, depth});
        else tiles.insert(block_id{i, depth});
      }
      tiles.done_inserting();
      constexpr int casts = 12;
      std::vector<roam::future<long>> cast_sums;
      for (int k = 1; k <= casts; ++k) {
        auto [f, p] = roam::make_future<long>();
        sec.send<&tile::cast>(sec, k, roam::callback<long>::to_future(p));
        cast_sums.push_back(f);
      }
      for (int k = 1; k <= casts; ++k)
        expect("section reduction over moving tiles #" + std::to_string(k),
               co_await cast_sums[static_cast<std::size_t>(k - 1)], path_sum);
      auto [fc, pc] = roam::make_future<std::vector<long>>();
      tiles.send<&tile::census>(roam::callback<std::vector<long>>::to_future(pc));
      std::vector<long> c = co_await fc;
      expect("section multicasts delivered", c[0], static_cast<long>(members.size()) * casts);
      expect("section multicasts out of order (tiles that stay)", c[1], 0);
      expect("tiles", c[2], count);
    }

    // 7. Restart entries across packed moves.
    {
      constexpr long pilgrims = 8, steps = 40;
      auto [fp, pp] = roam::make_future<pilgrim_total>();
      auto pil = roam::create_array<pilgrim>(roam::index<1>{pilgrims}, steps, roam::callback<pilgrim_total>::to_future(pp));
      pil.send<&pilgrim::run>();
      for (long s = steps - 1; s >= 0; s -= 2)  // odd steps first, backwards, then the even ones
        for (long e = 0; e < pilgrims; ++e) pil[e].send<&pilgrim::gift>(s, s + 1);
      for (long s = 0; s < steps; s += 2)
        for (long e = 0; e < pilgrims; ++e) pil[e].send<&pilgrim::gift>(s, s + 1);
      auto [sum, starts, packed] = co_await fp;
      expect("restartable tasks: gifts summed", sum, pilgrims * steps * (steps + 1) / 2);
      expect("restartable tasks: starts = elements + packed arrivals", starts, pilgrims + packed);
      if (roam::num_nodes() > 1 && packed == 0) expect("restartable tasks moved packed across processes", packed, 1);
    }

    std::printf("migration_check: %s\n", failures == 0 ? "OK" : "FAILED");
    roam::exit(failures == 0 ? 0 : 1);
  });
}
