// direct_check: roam::direct channels in a ring. Element i receives element
// i-1's edge through a channel into its ghost buffer every iteration; the
// callback checks every value exactly (a function of sender and iteration)
// and re-arms. A barrier per iteration orders each put after the receiver's
// ready(), as the application's own synchronisation must.
//
//   direct_check ring N ITERS VALUES [--move-every K] [--split] [+p P ...]
//     --move-every K: every K iterations each element puts, then migrates to
//                     the next PE in the same entry, so puts race with the
//                     receivers' moves (as themselves in one process, through
//                     pup under +serialize or across processes);
//     --split:        receivers use ready_mark() after consuming and
//                     ready_poll() when the next iteration starts.
//   direct_check twice | size | closed | empty [+p P]   misuse: must fail with a clear error
//
// Prints "direct_check: OK (ring, N elements, ITERS iterations, M moves, A arrivals)".
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <roam/direct/channel.hpp>
#include <roam/direct/host_buffer.hpp>
#include <roam/roam.hpp>

namespace {

struct settings {
  std::string mode = "ring";
  int elements = 8;
  int iterations = 20;
  int values = 64;
  int move_every = 0;
  bool split = false;
  bool host_buffer = false;  // ghosts in roam::direct::host_buffers (written directly from other processes)
  void pup(roam::pup_er& p) { p | mode | elements | iterations | values | move_every | split | host_buffer; }
};
roam::readonly<settings> config;

double value(int sender, int iteration, int k) { return sender * 1e6 + iteration * 1e3 + k * 0.5; }

using totals = std::array<std::int64_t, 4>;  // arrivals, moves, wrong values, ghosts in the shared segment

void finished(totals sums) {
  struct {
    std::int64_t arrivals, moves, bad, shared;
  } t{sums[0], sums[1], sums[2], sums[3]};
  const settings& s = *config;
  const std::int64_t expected = std::int64_t{s.elements} * s.iterations;
  if (t.bad != 0 || t.arrivals != expected) {
    std::printf("direct_check: FAILED (%lld arrivals of %lld, %lld wrong values)\n", static_cast<long long>(t.arrivals),
                static_cast<long long>(expected), static_cast<long long>(t.bad));
    roam::exit(1);
    return;
  }
  std::printf("direct_check: OK (ring, %d elements, %d iterations, %lld moves, %lld arrivals)\n", s.elements,
              s.iterations, static_cast<long long>(t.moves), static_cast<long long>(t.arrivals));
  if (s.host_buffer) std::printf("direct_check: %lld of %d ghosts in host buffers\n", static_cast<long long>(t.shared), s.elements);
  roam::exit(0);
}

struct node : roam::element<node> {
  int me() const { return this_index()[0]; }
  node() : edge(static_cast<std::size_t>(config->values)) {
    if (config->host_buffer) ghost_host = roam::direct::host_buffer<double>(static_cast<std::size_t>(config->values));
    else ghost_vector.assign(static_cast<std::size_t>(config->values), 0.0);
  }
  std::span<double> ghost() { return config->host_buffer ? ghost_host.span() : std::span(ghost_vector); }
  explicit node(roam::migrating) {}

  int left() const { return (me() + config->elements - 1) % config->elements; }
  int right() const { return (me() + 1) % config->elements; }

  // Phase 1: make the receiver, hand the channel to the sender (left).
  void setup() {
    in = roam::direct::make_channel(*this, ghost(), [this] { arrived(); });
    this_array()[left()].send<&node::connect>(roam::direct::channel(in));
  }
  void connect(roam::direct::channel c) {
    out = std::move(c);
    out.attach(std::span(edge));
    contribute(roam::callback<>::broadcast<&node::step>(this_array()));
  }

  // One iteration: the edge goes into the right neighbour's ghost.
  void step() {
    // The left neighbour's put of this iteration may have landed (and even
    // been reported) before this step: iterations are counted apart.
    if (config->split && steps > 0) in.ready_poll();
    for (int k = 0; k < config->values; ++k) edge[static_cast<std::size_t>(k)] = value(me(), steps, k);
    out.put();
    ++steps;
    // Not after the last put: this element's last arrival (and its final
    // contribution, with the count of moves) may already have happened.
    if (config->move_every > 0 && steps % config->move_every == 0 && steps < config->iterations) {
      ++moves;
      migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()});
    }
  }

  // The channel's callback: the left neighbour's edge of this iteration is in ghost.
  void arrived() {
    for (int k = 0; k < config->values; ++k)
      if (ghost()[static_cast<std::size_t>(k)] != value(left(), iteration, k)) ++bad;
    ++arrivals;
    ++iteration;
    if (config->split)
      in.ready_mark();  // the next put may land; the callback waits for ready_poll
    else
      in.ready();
    if (iteration < config->iterations)
      contribute(roam::callback<>::broadcast<&node::step>(this_array()));
    else
      contribute(totals{arrivals, moves, bad, ghost_host.shared() ? 1 : 0}, roam::sum,
                 roam::callback<totals>::function<&finished>(roam::pe_id{0}));
  }

  void after_migration() {
    in.rebind(*this, ghost(), [this] { arrived(); });
    out.attach(std::span(edge));
  }
  void pup(roam::pup_er& p) { p | ghost_vector | ghost_host | edge | in | out | iteration | steps | arrivals | moves | bad; }

  std::vector<double> ghost_vector, edge;
  roam::direct::host_buffer<double> ghost_host;
  roam::direct::receiver in;
  roam::direct::channel out;
  int iteration = 0;  // arrivals so far
  int steps = 0;      // puts so far
  std::int64_t arrivals = 0, moves = 0, bad = 0;
};

// Quiescence: every element puts once per round into its right neighbour,
// with no other synchronisation; the callback sends its element a message
// that counts. main waits for quiescence after each round: the count must
// be complete then (puts across processes are counted like messages).
struct quiet_node : roam::element<quiet_node> {
  int me() const { return this_index()[0]; }
  void setup(roam::callback<void> done) {
    in = roam::direct::make_channel(*this, std::span(ghost), [this] {
      ok += ghost[0] == static_cast<double>(round_seen * 1000 + left()) ? 1 : 0;
      in.ready();
      this_array()[me()].send<&quiet_node::bump>();
    });
    this_array()[left()].send<&quiet_node::connect>(roam::direct::channel(in), done);
  }
  int left() const { return (me() + config->elements - 1) % config->elements; }
  void connect(roam::direct::channel c, roam::callback<void> done) {
    out = std::move(c);
    out.attach(std::span(edge));
    contribute(done);
  }
  void fire(int round) {
    edge[0] = static_cast<double>(round * 1000 + me());
    out.put();
  }
  void bump() {
    ++count;
    ++round_seen;
  }
  void report(roam::callback<std::array<std::int64_t, 2>> done) { contribute(std::array<std::int64_t, 2>{count, ok}, roam::sum, done); }
  std::vector<double> ghost = std::vector<double>(4), edge = std::vector<double>(4);
  roam::direct::receiver in;
  roam::direct::channel out;
  std::int64_t count = 0, ok = 0;
  int round_seen = 0;
};

// Misuse: each must stop the program with a clear message.
struct misuser : roam::element<misuser> {
  std::vector<double> buffer = std::vector<double>(16), source = std::vector<double>(16);
  std::vector<double> small = std::vector<double>(8);
  roam::direct::receiver in;
  void setup() {
    in = roam::direct::make_channel(*this, std::span(buffer), [] {});
    const std::string& m = config->mode;
    if (m == "closed") {
      roam::direct::channel c(in);
      in.close();  // as when the receiver is destroyed
      this_array()[1].send<&misuser::use>(c);
    } else {
      this_array()[1].send<&misuser::use>(roam::direct::channel(in));
    }
  }
  void use(roam::direct::channel c) {
    const std::string& m = config->mode;
    if (m == "size") {
      c.attach(std::span(small));
      return;
    }
    c.attach(std::span(source));
    if (m == "empty") {  // no attach: a fresh handle
      roam::direct::channel d;
      d.put();
    }
    c.put();
    if (m == "twice") c.put();  // the receiver has not called ready()
  }
};

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    settings s;
    std::vector<std::string> pos;
    for (std::size_t i = 1; i < a.size(); ++i) {
      std::string w = a[i];
      if (w == "--move-every" && i + 1 < a.size()) s.move_every = std::atoi(a[++i].c_str());
      else if (w == "--split") s.split = true;
      else if (w == "--host-buffer") s.host_buffer = true;
      else pos.push_back(w);
    }
    if (!pos.empty() && (pos[0] == "--help" || pos[0] == "-h")) {
      std::printf("usage: direct_check ring N ITERS VALUES [--move-every K] [--split] [--host-buffer] | quiescence N ROUNDS | "
                  "twice | size | closed | empty\n");
      roam::exit(0);
      co_return;
    }
    if (!pos.empty()) s.mode = pos[0];
    if (pos.size() > 1) s.elements = std::atoi(pos[1].c_str());
    if (pos.size() > 2) s.iterations = std::atoi(pos[2].c_str());
    if (pos.size() > 3) s.values = std::atoi(pos[3].c_str());
    config = s;
    if (s.mode == "ring") {
      roam::create_array<node>(roam::index<1>{s.elements}).send<&node::setup>();
    } else if (s.mode == "quiescence") {
      auto arr = roam::create_array<quiet_node>(roam::index<1>{s.elements});
      auto [ready, ready_cb] = roam::make_future_callback<void>();
      arr.send<&quiet_node::setup>(ready_cb);
      co_await ready;
      for (int r = 0; r < s.iterations; ++r) {
        arr.send<&quiet_node::fire>(r);
        co_await roam::quiescence();
      }
      auto [sums, sums_cb] = roam::make_future_callback<std::array<std::int64_t, 2>>();
      arr.send<&quiet_node::report>(sums_cb);
      const std::array<std::int64_t, 2> got = co_await sums;
      const std::int64_t expected = std::int64_t{s.elements} * s.iterations;
      std::printf("direct_check: %s (quiescence, %lld of %lld counted at quiescence, %lld right)\n",
                  got[0] == expected && got[1] == expected ? "OK" : "FAILED", static_cast<long long>(got[0]),
                  static_cast<long long>(expected), static_cast<long long>(got[1]));
      roam::exit(got[0] == expected && got[1] == expected ? 0 : 1);
    } else if (s.mode == "twice" || s.mode == "size" || s.mode == "closed" || s.mode == "empty") {
      auto arr = roam::create_array<misuser>(roam::index<1>{2});
      arr[0].send<&misuser::setup>();
    } else {
      std::fprintf(stderr, "direct_check: unknown mode '%s' (--help lists them)\n", s.mode.c_str());
      roam::exit(2);
    }
  });
}
