// roam-bench checkpoint: disk checkpoint time against the state's size, beside
// the raw write bandwidth of the same directory measured in the same minutes
// (the same bytes written 1 MiB at a time and fsynced, as `dd bs=1M
// conv=fsync` does), and the checkpoint of a small program (8 elements, a
// chare, a group and a nodegroup: Charm++'s anchor). Not part of `all`: it
// writes gigabytes. Under several processes, the memory_* cases time
// in-memory checkpoints against memcpy plus the transport's bandwidth, one
// way (one process sends, the other only receives) and in the checkpoint's
// own pattern (every process sends to its buddy at once).
//   roam-bench checkpoint [--dir DIR] [--case small|state_16M|memory|...] [--reps R] [+p N]
//   roamrun -n 2 roam-bench checkpoint --case memory
// Each state case leaves its last checkpoint in DIR/<case>; restarting from it
// (`roam-bench +restart DIR/state_64M`) prints the restart's time as one more
// result line (bench/checkpoint_restart.sh runs both).
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"

namespace roam_bench {

namespace {

struct small_elem : roam::element<small_elem, roam::index<1>> {
  small_elem() = default;
  explicit small_elem(roam::migrating) {}
  std::vector<int> v = std::vector<int>(16, 1);
  void pup(roam::pup_er& p) { p | v; }
};
struct small_chare : roam::chare<small_chare> {
  small_chare() = default;
  explicit small_chare(roam::migrating) {}
  std::string name = "small";
  void pup(roam::pup_er& p) { p | name; }
};
struct small_group : roam::group_member<small_group> {
  small_group() = default;
  explicit small_group(roam::migrating) {}
  int n = 0;
  void pup(roam::pup_er& p) { p | n; }
};
struct small_node : roam::nodegroup_member<small_node> {
  small_node() = default;
  explicit small_node(roam::migrating) {}
  int n = 0;
  void pup(roam::pup_er& p) { p | n; }
};

// The state: every element holds an equal share of the bytes.
struct blob : roam::element<blob, roam::index<1>> {
  blob() = default;
  explicit blob(roam::migrating) {}
  std::vector<double> data;
  void resize(std::uint64_t bytes, roam::callback<void> done) {
    data.assign(bytes / sizeof(double), 1.0 + this_index()[0]);
    contribute(done);
  }
  void pup(roam::pup_er& p) { p | data; }
};

// The result of the checkpoint in progress comes here (a function, so that it
// also survives a restart: then it reports the restart and ends the program).
std::optional<roam::promise<roam::checkpoint_result>> g_waiting;

void checkpoint_done(roam::checkpoint_result r) {
  if (r.restarted) {
    // The case is the directory the checkpoint went into: DIR/<case>/ckpt-N.
    const std::string name = std::filesystem::path(r.path).parent_path().filename().string();
    result res{"checkpoint", "restart_" + name, roam::num_pes(), static_cast<std::int64_t>(r.bytes),
               "ms",         {r.seconds * 1e3}};
    print(res, true);
    roam::exit(r.ok ? 0 : 1);
    return;
  }
  if (g_waiting) std::exchange(g_waiting, std::nullopt)->set_value(std::move(r));
}

roam::future<roam::checkpoint_result> take_checkpoint_in_memory() {
  auto [f, p] = roam::make_future<roam::checkpoint_result>();
  g_waiting = p;
  roam::checkpoint_in_memory(roam::callback<roam::checkpoint_result>::function<&checkpoint_done>(roam::pe_id{0}));
  return std::move(f);
}

// The transport's bandwidth from process 0 to its buddy (process 1), as an
// in-memory checkpoint's copy goes: `size` bytes in messages of at most
// 64 MiB sent back to back, one word back once all are in.
struct carrier : roam::group_member<carrier> {
  carrier() = default;
  explicit carrier(roam::migrating) {}
  void start(std::uint64_t size, std::uint32_t to, roam::promise<double> done) {
    done_ = done;
    t0_ = bench_clock::now();
    send_leg(size, to);
  }
  // Every process at once sends `size` bytes to its buddy, as a checkpoint
  // does: the seconds until every copy is in. On a host whose cores all
  // take part, this is the bandwidth the checkpoint's transfers really
  // share (both directions at once), unlike start()'s one-way figure with a
  // free core at the receiver.
  void exchange(std::uint64_t size, std::uint32_t pes_per_node, std::uint32_t nodes, roam::promise<double> done) {
    done_ = done;
    legs_ = nodes;
    t0_ = bench_clock::now();
    for (std::uint32_t n = 0; n < nodes; ++n)
      this_group()[roam::pe_id{n * pes_per_node}].send<&carrier::send_leg>(size, ((n + 1) % nodes) * pes_per_node);
  }
  void send_leg(std::uint64_t size, std::uint32_t to) {
    const std::uint64_t chunk = std::min<std::uint64_t>(size, std::uint64_t{64} << 20);
    const roam::bytes payload(static_cast<std::size_t>(chunk), std::byte{'c'});
    for (std::uint64_t sent = 0; sent < size; sent += chunk)
      this_group()[roam::pe_id{to}].send<&carrier::take>(payload, size);
  }
  void take(roam::bytes data, std::uint64_t size) {
    received_ += data.size();
    if (received_ < size) return;
    received_ = 0;
    this_group()[roam::pe_id{0}].send<&carrier::all_in>();
  }
  void all_in() {
    if (legs_ > 1) {
      --legs_;
      return;
    }
    legs_ = 0;
    done_.set_value(seconds_since(t0_));
  }
  void pup(roam::pup_er&) {}  // between measurements it holds nothing worth keeping
  roam::promise<double> done_;
  bench_clock::time_point t0_;
  std::uint64_t received_ = 0;
  std::uint32_t legs_ = 0;  // exchange(): copies still to arrive
};

// Seconds to copy `bytes` from one warm buffer to another (the best a
// process can do to keep its own copy).
double memcpy_seconds(std::uint64_t bytes) {
  std::vector<std::byte> from(static_cast<std::size_t>(bytes), std::byte{1}), to(static_cast<std::size_t>(bytes));
  std::memcpy(to.data(), from.data(), from.size());  // warm both
  const auto t0 = bench_clock::now();
  std::memcpy(to.data(), from.data(), from.size());
  const double s = seconds_since(t0);
  if (to[to.size() / 2] != std::byte{1}) std::abort();  // the copy happened
  return s;
}

roam::future<roam::checkpoint_result> take_checkpoint(const std::string& dir, std::uint32_t keep,
                                                      bool durable = true) {
  auto [f, p] = roam::make_future<roam::checkpoint_result>();
  g_waiting = p;
  roam::checkpoint(dir, roam::callback<roam::checkpoint_result>::function<&checkpoint_done>(roam::pe_id{0}),
                   {keep, durable});
  return std::move(f);
}

// `bytes` written 1 MiB at a time to a new file in `dir`, fsynced: seconds (dd bs=1M conv=fsync).
double raw_write_seconds(const std::filesystem::path& dir, std::uint64_t bytes) {
  const auto path = dir / "raw-write-probe";
  std::vector<char> block(1 << 20, 'x');
  const auto t0 = bench_clock::now();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -1;
  for (std::uint64_t done = 0; done < bytes;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), bytes - done));
    const ssize_t w = ::write(fd, block.data(), n);
    if (w <= 0) {
      ::close(fd);
      return -1;
    }
    done += static_cast<std::uint64_t>(w);
  }
  ::fsync(fd);
  ::close(fd);
  const double s = seconds_since(t0);
  std::filesystem::remove(path);
  return s;
}

std::string dir_option() {
  return g_config.dir.empty() ? (std::filesystem::temp_directory_path() / "roam-bench-checkpoint").string()
                              : g_config.dir;
}

}  // namespace

roam::task<> bench_checkpoint() {
  const std::uint32_t pes = roam::num_pes();
  const std::filesystem::path root = dir_option();
  std::filesystem::create_directories(root);

  if (wanted("small")) {
    auto elems = roam::create_array<small_elem>(roam::index<1>{8});
    auto c = roam::create_chare_on<small_chare>(roam::pe_id{0});
    auto g = roam::create_group<small_group>();
    auto n = roam::create_nodegroup<small_node>();
    (void)elems;
    (void)c;
    (void)g;
    (void)n;
    // Durable (every file and directory fsynced) and not (checkpoint_options::durable = false).
    for (const bool durable : {true, false}) {
      result r{"checkpoint", durable ? "small_program" : "small_program_not_durable", pes, -1, "ms", {}};
      for (int rep = 0; rep <= g_config.reps; ++rep) {
        const auto t0 = bench_clock::now();
        const roam::checkpoint_result cr = co_await take_checkpoint((root / "small").string(), 1, durable);
        const double ms = seconds_since(t0) * 1e3;
        if (!cr.ok) {
          std::fprintf(stderr, "roam-bench checkpoint: %s\n", cr.error.c_str());
          roam::exit(1);
          co_return;
        }
        r.bytes = static_cast<std::int64_t>(cr.bytes);
        if (rep > 0) r.samples.push_back(ms);  // the first one creates the directory
      }
      print(r, g_config.json);
    }
  }

  const std::uint64_t mib = 1 << 20;
  const std::uint64_t sizes[] = {1 * mib, 16 * mib, 64 * mib, 256 * mib, 1024 * mib};
  std::optional<roam::array_proxy<blob>> blobs;
  for (std::uint64_t size : sizes) {
    const std::string name = "state_" + std::to_string(size / mib) + "M";
    if (!wanted(name)) continue;
    const std::int32_t elements = static_cast<std::int32_t>(8 * pes);
    if (!blobs) blobs = roam::create_array<blob>(roam::index<1>{elements});
    auto [resized, resized_p] = roam::make_future<void>();
    blobs->send<&blob::resize>(size / static_cast<std::uint64_t>(elements), roam::callback<void>::to_future(resized_p));
    co_await std::move(resized);
    const int reps = size >= 256 * mib ? std::min(g_config.reps, 3) : g_config.reps;
    result ck{"checkpoint", name, pes, static_cast<std::int64_t>(size), "MB/s", {}};
    result raw{"checkpoint", name + "_raw_write", pes, static_cast<std::int64_t>(size), "MB/s", {}};
    result ratio{"checkpoint", name + "_over_raw", pes, static_cast<std::int64_t>(size), "ratio", {}};
    for (int rep = 0; rep < reps; ++rep) {
      // Raw and checkpoint alternate in the same minutes: the disk's speed drifts.
      const double raw_s = raw_write_seconds(root, size);
      const auto t0 = bench_clock::now();
      const roam::checkpoint_result cr = co_await take_checkpoint((root / name).string(), 1);
      const double s = seconds_since(t0);
      if (!cr.ok) {
        std::fprintf(stderr, "roam-bench checkpoint: %s\n", cr.error.c_str());
        roam::exit(1);
        co_return;
      }
      ck.samples.push_back(static_cast<double>(cr.bytes) / s / 1e6);
      raw.samples.push_back(static_cast<double>(size) / raw_s / 1e6);
      ratio.samples.push_back(ck.samples.back() / raw.samples.back());
    }
    print(ck, g_config.json);
    print(raw, g_config.json);
    print(ratio, g_config.json);
    // The next case's state replaces this one's (and its checkpoint stays for a restart).
  }

  // In memory (#17): every process packs its share and sends a copy to its
  // buddy. Against the bound of a memcpy of the process's state plus moving
  // it over the transport at the bandwidth measured in the same minutes.
  // Needs several processes (roamrun -n 2 roam-bench checkpoint --case memory).
  const std::uint32_t nodes = roam::num_nodes();
  std::optional<roam::group_proxy<carrier>> carriers;
  for (std::uint64_t size : {1 * mib, 16 * mib, 64 * mib, 256 * mib, 512 * mib}) {
    const std::string name = "memory_" + std::to_string(size / mib) + "M_per_process";
    if (!wanted(name)) continue;
    if (nodes < 2) {
      std::fprintf(stderr, "roam-bench checkpoint: %s needs several processes (roamrun -n 2 ...)\n", name.c_str());
      continue;
    }
    if (!carriers) carriers = roam::create_group<carrier>();
    const std::int32_t elements = static_cast<std::int32_t>(8 * pes);
    if (!blobs) blobs = roam::create_array<blob>(roam::index<1>{elements});
    auto [resized, resized_p] = roam::make_future<void>();
    blobs->send<&blob::resize>(size * nodes / static_cast<std::uint64_t>(elements),
                               roam::callback<void>::to_future(resized_p));
    co_await std::move(resized);
    const int reps = size >= 256 * mib ? std::min(g_config.reps, 3) : g_config.reps;
    result ck{"checkpoint", name, pes, static_cast<std::int64_t>(size), "ms", {}};
    result bound{"checkpoint", name + "_memcpy_plus_transfer", pes, static_cast<std::int64_t>(size), "ms", {}};
    result link{"checkpoint", name + "_transport", pes, static_cast<std::int64_t>(size), "MB/s", {}};
    result ratio{"checkpoint", name + "_over_bound", pes, static_cast<std::int64_t>(size), "ratio", {}};
    result xbound{"checkpoint", name + "_memcpy_plus_exchange", pes, static_cast<std::int64_t>(size), "ms", {}};
    result xratio{"checkpoint", name + "_over_exchange_bound", pes, static_cast<std::int64_t>(size), "ratio", {}};
    // Two checkpoints first, not timed: the first allocates its files, the
    // second too (the first is still held); at the second's commit the
    // first's blocks go to the block cache, and from the third on every
    // checkpoint reuses the blocks of the one before the last, as a program
    // checkpointing periodically does.
    constexpr int warmup = 2;
    for (int rep = 0; rep < reps + warmup; ++rep) {
      auto [moved, moved_p] = roam::make_future<double>();
      (*carriers)[roam::pe_id{0}].send<&carrier::start>(size, pes / nodes, moved_p);
      const double transfer_s = co_await std::move(moved);
      auto [swapped, swapped_p] = roam::make_future<double>();
      (*carriers)[roam::pe_id{0}].send<&carrier::exchange>(size, pes / nodes, nodes, swapped_p);
      const double exchange_s = co_await std::move(swapped);
      const double copy_s = memcpy_seconds(size);
      const auto t0 = bench_clock::now();
      const roam::checkpoint_result cr = co_await take_checkpoint_in_memory();
      const double s = seconds_since(t0);
      if (!cr.ok) {
        std::fprintf(stderr, "roam-bench checkpoint: %s\n", cr.error.c_str());
        roam::exit(1);
        co_return;
      }
      if (rep < warmup) continue;
      ck.samples.push_back(s * 1e3);
      bound.samples.push_back((copy_s + transfer_s) * 1e3);
      link.samples.push_back(static_cast<double>(size) / transfer_s / 1e6);
      ratio.samples.push_back(s / (copy_s + transfer_s));
      xbound.samples.push_back((copy_s + exchange_s) * 1e3);
      xratio.samples.push_back(s / (copy_s + exchange_s));
    }
    print(ck, g_config.json);
    print(bound, g_config.json);
    print(link, g_config.json);
    print(ratio, g_config.json);
    print(xbound, g_config.json);
    print(xratio, g_config.json);
  }
}

}  // namespace roam_bench
