// Checkpoint and restart with every object kind and non-trivial state: a
// driver chare and a dense 2-D array of blocks whose lives are restart-entry
// tasks, a sparse 3-D array and a sparse array with a user index type fed by
// the blocks, a group and a nodegroup keeping the history of the sums, and
// readonly globals. State is integers mixed by hashing, so the final
// checksum is the same bits on any number of PEs and processes, with or
// without a checkpoint and restart in between.
//
//   checkpoint_check DIR STEPS AT [EVERY [STOP]]
//       checkpoint into DIR when step AT begins (AT < 0: never), then every
//       EVERY steps (0: only once); exit 0 once STOP checkpoints were written
//       (0: never). A checkpoint that fails is reported and the run goes on.
//   checkpoint_check +restart DIR          go on from the newest checkpoint in DIR
//                                          (or from DIR itself, a checkpoint directory)
//
// DIR "memory": in-memory checkpoints (roam::checkpoint_in_memory) for the
// fault-tolerance tests: every node prints "node N pid P" at the start, the
// driver prints "step S" as each step begins, and a recovery after a failed
// process is reported like a restart. WORK (6th argument) is mixing rounds
// each block does per step, so that a run lasts long enough to be hit;
// DIE (7th, "NODE:STEP") makes the process first started as node NODE go
// silent (roam::die_now) when step STEP begins.
//
// The checkpoint is requested right after the step's broadcast, so that
// broadcasts, halo messages and a reduction are in flight when it is asked for.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <roam/ft/checkpoint.hpp>
#include <roam/roam.hpp>

namespace {

struct settings {
  std::string dir;
  int steps = 0;
  int at = -1;
  int every = 0;
  int stop_after = 0;
  int work = 0;
  int die_node = -1, die_step = -1;
  std::int32_t w = 4, h = 3;
  bool in_memory() const { return dir == "memory"; }
  bool checkpoint_at(int step) const {
    return at >= 0 && step >= at && (step == at || (every > 0 && (step - at) % every == 0));
  }
  void pup(roam::pup_er& p) { p | dir | steps | at | every | stop_after | work | die_node | die_step | w | h; }
};
roam::readonly<settings> cfg;
roam::readonly<std::uint64_t> salt;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct tag_key {
  std::int32_t a = 0, b = 0;
  friend bool operator==(const tag_key&, const tag_key&) = default;
};

// The node this process was started as (-1: it joined later, as a spare).
int g_original_node = -1;

struct history_group : roam::group_member<history_group> {
  history_group() = default;
  explicit history_group(roam::migrating) {}
  void die() {
    if (g_original_node == static_cast<int>(roam::my_node().value())) roam::die_now();
  }
  std::map<int, std::vector<std::uint64_t>> sums;
  void record(int step, std::uint64_t s) { sums[step].push_back(s); }
  void report(roam::callback<std::uint64_t> cb) {
    std::uint64_t h = 0;
    for (auto& [k, v] : sums)
      for (auto x : v) h = mix(h ^ mix(static_cast<std::uint64_t>(k) ^ x));
    contribute(h, roam::max, cb);
  }
  void pup(roam::pup_er& p) { p | sums; }
};

struct history_node : roam::nodegroup_member<history_node> {
  history_node() {
    g_original_node = static_cast<int>(roam::my_node().value());
    if (cfg->in_memory()) {
      std::printf("checkpoint_check: node %u pid %ld\n", roam::my_node().value(), static_cast<long>(::getpid()));
      std::fflush(stdout);
    }
  }
  explicit history_node(roam::migrating) {}
  std::vector<std::pair<int, std::uint64_t>> seen;
  void record(int step, std::uint64_t s) {
    std::lock_guard lock(m);
    seen.emplace_back(step, s);
  }
  void report(roam::callback<std::uint64_t> cb) {
    // By step: a node's records may run on any of its PEs, two at once, so
    // their order of arrival is not promised (ppn 2 under TSan once swapped
    // two). A lost or repeated record still changes the hash.
    auto by_step = seen;
    std::sort(by_step.begin(), by_step.end());
    std::uint64_t h = 3;
    for (auto& [k, v] : by_step) h = mix(h ^ mix(static_cast<std::uint64_t>(k) + v));
    cb.send(h);
  }
  std::mutex m;
  void pup(roam::pup_er& p) { p | seen; }
};

struct tag : roam::element<tag, tag_key> {
  tag() = default;
  explicit tag(roam::migrating) {}
  // Notes from two blocks arrive in either order: kept so that the order does not matter.
  std::map<std::string, int> notes;
  std::uint64_t acc = 1;
  void note(int step, std::uint64_t v) {
    ++notes[std::to_string(step) + ":" + std::to_string(v % 1000)];
    acc += mix(v);
  }
  void total(roam::callback<std::uint64_t> cb) {
    std::uint64_t h = acc;
    for (auto& [s, n] : notes) h = mix(h ^ std::hash<std::string>{}(s) ^ static_cast<std::uint64_t>(n));
    contribute(h, roam::sum, cb);
  }
  void pup(roam::pup_er& p) { p | notes | acc; }
};

struct cube : roam::element<cube, roam::index<3>> {
  cube() = default;
  explicit cube(roam::migrating) {}
  std::map<int, std::uint64_t> by_step;
  void add(int step, std::uint64_t v) { by_step[step] ^= mix(v); }
  void total(roam::callback<std::uint64_t> cb) {
    std::uint64_t h = 7;
    for (auto& [k, v] : by_step) h = mix(h + static_cast<std::uint64_t>(k) * v);
    contribute(h, roam::sum, cb);
  }
  void pup(roam::pup_er& p) { p | by_step; }
};

struct driver;

struct block : roam::element<block, roam::index<2>> {
  static constexpr auto restart_entry() { return &block::run; }
  block(roam::chare_proxy<driver> d, roam::array_proxy<tag> t, roam::array_proxy<cube> c) : drv(d), tags(t), cubes(c) {
    value = mix(static_cast<std::uint64_t>(this_index()[0] * 100 + this_index()[1]) ^ *salt);
  }
  explicit block(roam::migrating) {}
  roam::chare_proxy<driver> drv;
  roam::array_proxy<tag> tags;
  roam::array_proxy<cube> cubes;
  roam::mailbox<int> go;
  roam::mailbox<int, std::uint64_t> halo;  // (step, left neighbour's value)
  int step = 0;
  int sent = -1;
  std::uint64_t value = 0;
  std::map<int, std::vector<std::uint64_t>> history;
  roam::task<> run();
  void pup(roam::pup_er& p) { p | drv | tags | cubes | go | halo | step | sent | value | history; }
};

struct driver : roam::chare<driver> {
  static constexpr auto restart_entry() { return &driver::run; }
  driver(roam::array_proxy<block> b, roam::array_proxy<tag> t, roam::array_proxy<cube> c,
         roam::group_proxy<history_group> g, roam::nodegroup_proxy<history_node> n)
      : blocks(b), tags(t), cubes(c), groups(g), nodes(n) {}
  explicit driver(roam::migrating) {}
  roam::array_proxy<block> blocks;
  roam::array_proxy<tag> tags;
  roam::array_proxy<cube> cubes;
  roam::group_proxy<history_group> groups;
  roam::nodegroup_proxy<history_node> nodes;
  roam::mailbox<int, std::uint64_t> sums;
  roam::mailbox<int, roam::checkpoint_result> saved;  // (step, result)
  roam::mailbox<int, std::uint64_t> finals;
  void adopt(roam::array_proxy<block> b) { blocks = b; }
  int step = 0;
  int announced = -1;
  int asked = -1;  // the last step a checkpoint was asked at
  int written = 0;
  std::uint64_t checksum = 0;
  roam::task<> run();
  void pup(roam::pup_er& p) {
    p | blocks | tags | cubes | groups | nodes | sums | saved | finals | step | announced | asked | written | checksum;
  }
};

roam::task<> block::run() {
  const auto [x, y] = std::pair{this_index()[0], this_index()[1]};
  for (; step < cfg->steps; ++step) {
    co_await go.receive(step);
    if (sent < step) {
      sent = step;
      this_array()[{(x + 1) % cfg->w, y}].send<&block::halo>(step, value);
      tags[tag_key{x % 2, y}].send<&tag::note>(step, value);
      cubes[{x % 2, y % 2, step % 2}].send<&cube::add>(step, value);
    }
    const auto [s, left] = co_await halo.receive(step);
    history[step % 3].push_back(left % 997);
    value = mix(value ^ left ^ static_cast<std::uint64_t>(s));
    for (int k = 0; k < cfg->work; ++k) value = mix(value);
    contribute(value, roam::sum, roam::callback<std::uint64_t>::to<&driver::sums>(drv, step));
  }
}

roam::task<> driver::run() {
  for (; step < cfg->steps; ++step) {
    if (announced < step) {
      announced = step;
      if (cfg->in_memory()) {
        std::printf("checkpoint_check: step %d\n", step);
        std::fflush(stdout);
      }
      blocks.send<&block::go>(step);
      if (step == cfg->die_step)
        groups[roam::pe_id{static_cast<std::uint32_t>(cfg->die_node) * (roam::num_pes() / roam::num_nodes())}]
            .send<&history_group::die>();
      // Asked while the step's broadcast, halos and reduction are in flight.
      if (cfg->checkpoint_at(step) && asked < step) {
        asked = step;
        auto done = roam::callback<roam::checkpoint_result>::to<&driver::saved>(this_proxy(), step);
        if (cfg->in_memory()) {
          std::printf("checkpoint_check: in-memory checkpoint asked at step %d\n", step);
          std::fflush(stdout);
          roam::checkpoint_in_memory(done);
        } else {
          roam::checkpoint(cfg->dir, done);
        }
      }
    }
    if (cfg->checkpoint_at(step)) {
      const roam::checkpoint_result r = std::get<1>(co_await saved.receive(step));
      if (!r.ok) {
        std::printf("checkpoint_check: checkpoint at step %d FAILED: %s\n", step, r.error.c_str());
      } else {
        if (!r.restarted) ++written;
        std::printf("checkpoint_check: %s %s (%llu objects, %llu bytes, %u pes, %u processes) in %.3f ms\n",
                    r.recovered ? "recovered from" : r.restarted ? "restarted from" : "checkpoint written to",
                    r.path.c_str(),
                    static_cast<unsigned long long>(r.objects), static_cast<unsigned long long>(r.bytes), r.pes,
                    r.processes, r.seconds * 1e3);
      }
      std::fflush(stdout);
      if (r.ok && !r.restarted && written == cfg->stop_after) {
        roam::exit(0);
        co_return;
      }
    }
    const auto [s, sum] = co_await sums.receive(step);
    checksum = mix(checksum ^ sum ^ static_cast<std::uint64_t>(s));
    groups.send<&history_group::record>(step, sum);
    nodes.send<&history_node::record>(step, sum);
  }
  // The blocks' notes and adds of the last steps may still be on their way
  // to the tags and cubes (the sums reduction does not wait for them; under
  // load the totals then missed some, a different checksum): all in first.
  co_await roam::quiescence();
  auto cb = [&](int k) { return roam::callback<std::uint64_t>::to<&driver::finals>(this_proxy(), k); };
  tags.send<&tag::total>(cb(0));
  cubes.send<&cube::total>(cb(1));
  groups.send<&history_group::report>(cb(2));
  std::uint64_t parts[3];
  for (int k = 0; k < 3; ++k) parts[k] = std::get<1>(co_await finals.receive(k));
  nodes.send<&history_node::report>(cb(3));
  std::uint64_t node_hash = 0;
  for (std::uint32_t n = 0; n < roam::num_nodes(); ++n) {
    const std::uint64_t h = std::get<1>(co_await finals.receive(3));
    if (n > 0 && h != node_hash) {
      std::printf("checkpoint_check: FAILED: nodegroup members disagree\n");
      roam::exit(1);
      co_return;
    }
    node_hash = h;
  }
  std::printf("checkpoint_check: checksum %016llx tags %016llx cubes %016llx groups %016llx nodes %016llx\n",
              static_cast<unsigned long long>(checksum), static_cast<unsigned long long>(parts[0]),
              static_cast<unsigned long long>(parts[1]), static_cast<unsigned long long>(parts[2]),
              static_cast<unsigned long long>(node_hash));
  std::printf("checkpoint_check: done on %u pes, %u processes\n", roam::num_pes(), roam::num_nodes());
  std::fflush(stdout);
  roam::exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) {
    if (a.size() < 4) {
      std::fprintf(stderr,
                   "usage: checkpoint_check DIR|memory STEPS AT [EVERY [STOP [WORK]]]  |  checkpoint_check +restart DIR\n");
      roam::exit(2);
      return;
    }
    settings s;
    s.dir = a[1];
    s.steps = static_cast<int>(a.int_or(2, 10));
    s.at = static_cast<int>(a.int_or(3, -1));
    s.every = static_cast<int>(a.int_or(4, 0));
    s.stop_after = static_cast<int>(a.int_or(5, 0));
    s.work = static_cast<int>(a.int_or(6, 0));
    if (a.size() > 7 && std::sscanf(a[7].c_str(), "%d:%d", &s.die_node, &s.die_step) != 2) {
      std::fprintf(stderr, "checkpoint_check: DIE must be NODE:STEP, not '%s'\n", a[7].c_str());
      roam::exit(2);
      return;
    }
    cfg = s;
    salt = 0x1234567u;
    auto tags = roam::create_sparse_array<tag>();
    for (std::int32_t i = 0; i < 2; ++i)
      for (std::int32_t j = 0; j < s.h; ++j) tags.insert(tag_key{i, j});
    tags.done_inserting();
    auto cubes = roam::create_sparse_array<cube>();
    for (std::int32_t i = 0; i < 2; ++i)
      for (std::int32_t j = 0; j < 2; ++j)
        for (std::int32_t k = 0; k < 2; ++k) cubes.insert({i, j, k});
    cubes.done_inserting();
    auto groups = roam::create_group<history_group>();
    auto nodes = roam::create_nodegroup<history_node>();
    auto drv = roam::create_chare_on<driver>(roam::pe_id{0}, roam::array_proxy<block>{}, tags, cubes, groups, nodes);
    auto blocks = roam::create_array<block>(roam::index<2>{s.w, s.h}, drv, tags, cubes);
    drv.send<&driver::adopt>(blocks);
    drv.send<&driver::run>();
    blocks.send<&block::run>();
  });
}
