// HPC Challenge Random Access on roam (apps/random_access/README.md).
//
//   random_access [--log-size n] [--variant aggregated|direct|array] [--elements-per-pe k]
//                 [--buffer items] [--dims d] [--window buffers] [--max-rss-ratio r] [--check-stream]
//
// Each PE owns 2^n 64-bit words of the table (word i of the whole table holds
// i at the start). The PEs generate 4 x the table size updates from the HPCC
// stream, each PE its own consecutive share; update `ran` goes to word
// ran & (size - 1) of the whole table, which is xor-ed with ran. Verification
// applies the same updates again: the table must be back to its start
// (the count of wrong words is printed; anything but 0 fails the run).
//
// Variants: `aggregated` (one table slice per group member, the updates
// through a roam::aggregator), `direct` (one message per update, generated in
// chunks so the PE serves incoming updates in between), `array` (k array
// elements per PE each own a slice and generate a share, through an
// aggregator to the elements).
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <roam/aggregation/aggregator.hpp>
#include <roam/roam.hpp>

#include "command_line.hpp"
#include "hpcc_stream.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

struct settings {
  std::uint32_t log_size = 20;  // words per PE: 2^log_size
  std::string variant = "aggregated";
  std::uint32_t elements_per_pe = 8;
  std::uint32_t buffer = 0;  // 0: the aggregator's default
  std::uint32_t dims = 0;
  std::uint32_t window = 0;
  double max_rss_ratio = 0;  // 0: not checked
  bool check_stream = false;
};

// The table: words [first, first + words) of the whole table.
struct slice {
  std::vector<std::uint64_t> words;
  std::uint64_t first = 0;
  void init(std::uint64_t begin, std::uint64_t count) {
    first = begin;
    words.resize(count);
    for (std::uint64_t i = 0; i < count; ++i) words[i] = begin + i;
  }
  std::uint64_t errors() const {
    std::uint64_t e = 0;
    for (std::uint64_t i = 0; i < words.size(); ++i) e += words[i] != first + i;
    return e;
  }
};

/// Peak resident memory of this process so far, in bytes.
std::uint64_t peak_rss() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::uint64_t>(u.ru_maxrss) * 1024;
}

struct measurement {
  std::uint64_t rss = 0;       // peak RSS of the member's process
  std::uint64_t baseline = 0;  // RSS before the tables were made
  template <class P>
  void pup(P& p) {
    p | rss | baseline;
  }
};

// Before roam starts: what the process holds without a table.
const std::uint64_t rss_at_start = peak_rss();

// One per PE: reports its process's memory.
struct probe : roam::group_member<probe> {
  measurement measure() { return {peak_rss(), rss_at_start}; }
};

// ---- group variants: one slice per PE -----------------------------------------
struct table : roam::group_member<table> {
  slice s;
  std::uint64_t mask = 0;   // words per PE - 1
  std::uint64_t total = 0;  // words in the whole table
  std::uint32_t log_size = 0;
  explicit table(std::uint32_t log) : log_size(log) {
    const std::uint64_t n = std::uint64_t{1} << log;
    mask = n - 1;
    total = n * roam::num_pes();
    s.init(n * roam::my_pe().value(), n);
    d.unacked.assign(roam::num_pes(), 0);
    d.unacknowledged.assign(roam::num_pes(), 0);
  }
  void update(std::uint64_t ran) { s.words[ran & mask] ^= ran; }

  /// Generates this PE's share of the updates through the aggregator.
  roam::task<> generate(roam::aggregator<&table::update> agg) {
    const std::uint64_t count = 4 * (mask + 1);
    std::uint64_t ran = random_access::starts(static_cast<std::int64_t>(count * roam::my_pe().value()));
    const std::uint64_t index_mask = total - 1;
    for (std::uint64_t i = 0; i < count; ++i) {
      ran = random_access::next(ran);
      co_await agg.insert(roam::pe_id{static_cast<std::uint32_t>((ran & index_mask) >> log_size)}, ran);
    }
    agg.done();
  }

  // Direct: one message per update, generated in chunks, each chunk a
  // message to itself so that updates from the other PEs (queued meanwhile)
  // are served between chunks. Back-pressure, as HPCC bounds its look-ahead:
  // a receiver acknowledges every `ack_every` updates from a PE, and a PE
  // with more than `in_flight_limit` unacknowledged updates to any one PE
  // generates no more until acknowledgements come back. Without it a PE
  // that generated faster than the other served held 12-16x the table in
  // queued messages.
  static constexpr std::uint64_t chunk = 1024;
  static constexpr std::uint32_t ack_every = 256;
  static constexpr std::uint64_t in_flight_limit = 4 * chunk;
  struct direct_state {
    std::uint64_t next = 0, ran = 0;             // the next update to generate, and the stream there
    std::vector<std::uint64_t> unacked;           // per destination PE
    std::vector<std::uint32_t> unacknowledged;    // per source PE: received since the last acknowledgement
    bool stalled = false;                         // waiting for acknowledgements
    std::uint64_t stalls = 0;
    roam::callback<void> finished;
  } d;

  void update_from(std::uint64_t ran, std::uint32_t source) {
    update(ran);
    if (++d.unacknowledged[source] == ack_every) {
      d.unacknowledged[source] = 0;
      this_group()[roam::pe_id{source}].send<&table::acknowledged>(roam::my_pe().value(), ack_every);
    }
  }
  void acknowledged(std::uint32_t destination, std::uint32_t n) {
    d.unacked[destination] -= n;
    if (d.stalled && d.unacked[destination] + ack_every <= in_flight_limit) {
      d.stalled = false;
      generate_direct();
    }
  }
  void generate_direct() {
    const std::uint64_t count = 4 * (mask + 1);
    const std::uint64_t end = std::min(count, d.next + chunk);
    const std::uint64_t index_mask = total - 1;
    const std::uint32_t me = roam::my_pe().value();
    auto group = this_group();
    std::uint64_t ran = d.ran;
    std::uint64_t i = d.next;
    for (; i < end; ++i) {
      const std::uint64_t candidate = random_access::next(ran);
      const auto owner = static_cast<std::uint32_t>((candidate & index_mask) >> log_size);
      if (owner == me) {
        update(candidate);
      } else {
        if (d.unacked[owner] >= in_flight_limit) break;  // resumed by acknowledged()
        ++d.unacked[owner];
        group[roam::pe_id{owner}].send<&table::update_from>(candidate, me);
      }
      ran = candidate;
    }
    d.next = i;
    d.ran = ran;
    if (i == count) return contribute(d.finished);
    if (i < end) {
      d.stalled = true;
      ++d.stalls;
      return;
    }
    group[roam::my_pe()].send<&table::generate_direct>();
  }
  void start_direct(roam::callback<void> finished) {
    const std::uint64_t count = 4 * (mask + 1);
    d.next = 0;
    d.ran = random_access::starts(static_cast<std::int64_t>(count * roam::my_pe().value()));
    // The counters (made with the table) carry over from the timed run to
    // the verification run: what a receiver has not acknowledged yet, its
    // sender still counts.
    d.stalled = false;
    d.finished = finished;
    generate_direct();
  }
  std::uint64_t direct_stalls() { return d.stalls; }

  std::uint64_t errors() { return s.errors(); }
};

// ---- array variant: k elements per PE, each a slice and a producer ------------
struct part : roam::element<part> {
  slice s;
  std::uint64_t mask = 0;
  std::uint32_t log_size = 0;
  std::uint64_t total = 0;
  part(std::uint32_t log, std::uint32_t parts) : log_size(log) {
    const std::uint64_t n = std::uint64_t{1} << log;  // words per element
    mask = n - 1;
    total = n * parts;
    s.init(n * static_cast<std::uint64_t>(this_index()[0]), n);
  }
  void update(std::uint64_t ran) { s.words[ran & mask] ^= ran; }
  roam::task<> generate(roam::aggregator<&part::update> agg) {
    const std::uint64_t count = 4 * (mask + 1);
    std::uint64_t ran = random_access::starts(static_cast<std::int64_t>(count * static_cast<std::uint64_t>(this_index()[0])));
    const std::uint64_t index_mask = total - 1;
    for (std::uint64_t i = 0; i < count; ++i) {
      ran = random_access::next(ran);
      co_await agg.insert(roam::index<1>{static_cast<std::int32_t>((ran & index_mask) >> log_size)}, ran);
    }
    agg.done();
  }
  std::uint64_t errors() { return s.errors(); }
  template <class P>
  void pup(P& p) {
    p | s.words | s.first | mask | log_size | total;
  }
};

constexpr roam_apps::usage_text usage{
    "random_access",
    "usage: random_access [options] (on a power-of-two number of PEs)\n"
    "  --log-size N          each PE owns 2^N 64-bit words of the table, N in [3, 34] (default 20)\n"
    "  --variant KIND        aggregated: updates through a roam::aggregator to group members [default];\n"
    "                        direct: one message per update; array: through an aggregator to K elements per PE\n"
    "  --elements-per-pe K   array variant: elements per PE, a power of two (default 8)\n"
    "  --buffer ITEMS        aggregator: updates per buffer (default: the aggregator's)\n"
    "  --dims D              aggregator: dimensions of its mesh of PEs (default: the aggregator's)\n"
    "  --window BUFFERS      aggregator: most buffers in flight per PE (default: the aggregator's)\n"
    "  --max-rss-ratio R     fail if peak memory per PE exceeds R x its table share (default: not checked)\n"
    "  --check-stream        only check the HPCC random stream's jump-ahead, then exit\n"
    "  -h, --help            this text\n"
    "Exit status: 0 when the table verifies, 1 otherwise, 2 on bad arguments.\n",
    "random_access --log-size 22 --variant aggregated +p4"};

/// Reads the command line into `s`; throws std::invalid_argument naming the bad option.
void parse(const roam::args& a, settings& s) {
  using roam_apps::whole;
  constexpr std::uint64_t u32 = std::numeric_limits<std::uint32_t>::max();
  for (std::size_t i = 1; i < a.size(); ++i) {
    const std::string& k = a[i];
    auto value = [&]() -> const std::string& { return roam_apps::option_value(a, i); };
    if (k == "--log-size") s.log_size = static_cast<std::uint32_t>(whole(k, value(), 3, 34));
    else if (k == "--variant") s.variant = value();
    else if (k == "--elements-per-pe") s.elements_per_pe = static_cast<std::uint32_t>(whole(k, value(), 0, u32));
    else if (k == "--buffer") s.buffer = static_cast<std::uint32_t>(whole(k, value(), 0, u32));
    else if (k == "--dims") s.dims = static_cast<std::uint32_t>(whole(k, value(), 0, u32));
    else if (k == "--window") s.window = static_cast<std::uint32_t>(whole(k, value(), 0, u32));
    else if (k == "--max-rss-ratio") s.max_rss_ratio = roam_apps::number(k, value());
    else if (k == "--check-stream") s.check_stream = true;
    else throw std::invalid_argument("unknown option '" + k + "'");
  }
  if (s.variant != "aggregated" && s.variant != "direct" && s.variant != "array")
    throw std::invalid_argument("unknown variant '" + s.variant + "' (aggregated, direct, array)");
  if (s.elements_per_pe == 0 || (s.elements_per_pe & (s.elements_per_pe - 1)) != 0)
    throw std::invalid_argument("--elements-per-pe must be a power of two");
}

// starts(n) against stepping the stream n times.
bool check_stream() {
  std::uint64_t x = 1;
  for (std::int64_t n = 0; n < 5000; ++n) {
    if (random_access::starts(n) != x) {
      std::printf("random_access: starts(%lld) is wrong\n", static_cast<long long>(n));
      return false;
    }
    x = random_access::next(x);
  }
  std::printf("random_access: stream check OK\n");
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    settings s;
    if (!roam_apps::read_command_line(a, usage, [&] { parse(a, s); })) co_return;  // the usage is printed and the program ends
    if (s.check_stream) {
      roam::exit(check_stream() ? 0 : 1);
      co_return;
    }
    const std::uint32_t pes = roam::num_pes();
    if (pes & (pes - 1)) {
      std::fprintf(stderr, "random_access: the table is split in powers of two: run on a power-of-two number of PEs (not %u)\n", pes);
      roam::exit(2);
      co_return;
    }
    const std::uint64_t words_per_pe = std::uint64_t{1} << s.log_size;
    const std::uint64_t total_words = words_per_pe * pes;
    const std::uint64_t updates = 4 * total_words;
    roam::aggregation_options o;
    o.items_per_buffer = s.buffer;
    o.dims = s.dims;
    o.max_buffers_in_flight = s.window;

    std::vector<double> seconds;
    std::uint64_t errors = 0;
    std::string mesh = "-";
    if (s.variant == "array") {
      const std::uint32_t parts = pes * s.elements_per_pe;
      std::uint32_t log_part = s.log_size;
      for (std::uint32_t k = s.elements_per_pe; k > 1; k /= 2) --log_part;
      auto cells = roam::create_array<part>(roam::index<1>{static_cast<std::int32_t>(parts)}, log_part, parts);
      auto agg = roam::make_aggregator<&part::update>(cells, o);
      mesh = agg.mesh().describe();
      for (int phase = 0; phase < 2; ++phase) {  // the timed run, then verification
        auto [done, p] = roam::make_future<void>();
        const auto t0 = clock_type::now();
        agg.start(parts, roam::callback<void>::to_future(p));
        cells.send<&part::generate>(agg);
        co_await done;
        seconds.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());
      }
      for (std::uint32_t e = 0; e < parts; ++e) errors += co_await cells[static_cast<std::int32_t>(e)].call<&part::errors>();
    } else {
      auto tables = roam::create_group<table>(s.log_size);
      auto agg = roam::make_aggregator<&table::update>(tables, o);
      if (s.variant == "aggregated") mesh = agg.mesh().describe();
      for (int phase = 0; phase < 2; ++phase) {
        auto [done, p] = roam::make_future<void>();
        const auto t0 = clock_type::now();
        if (s.variant == "aggregated") {
          agg.start(pes, roam::callback<void>::to_future(p));
          tables.send<&table::generate>(agg);
          co_await done;
        } else {
          // Every PE has generated its share; then quiescence: every update delivered.
          auto [generated, g] = roam::make_future<void>();
          tables.send<&table::start_direct>(roam::callback<void>::to_future(g));
          co_await generated;
          co_await roam::quiescence();
        }
        seconds.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());
      }
      for (std::uint32_t pe = 0; pe < pes; ++pe) errors += co_await tables[roam::pe_id{pe}].call<&table::errors>();
      if (s.variant == "direct") {
        std::uint64_t stalls = 0;
        for (std::uint32_t pe = 0; pe < pes; ++pe) stalls += co_await tables[roam::pe_id{pe}].call<&table::direct_stalls>();
        std::printf("random_access: direct: generation paused %llu times for acknowledgements (at most %llu "
                    "updates in flight to a PE)\n",
                    static_cast<unsigned long long>(stalls), static_cast<unsigned long long>(table::in_flight_limit));
      }
    }
    // Peak memory above the process's start, per PE, against the table's share.
    std::uint64_t worst_extra = 0;
    {
      auto probes = roam::create_group<probe>();
      const std::uint32_t pes_per_process = pes / roam::num_nodes();
      for (std::uint32_t pe = 0; pe < pes; ++pe) {
        measurement m = co_await probes[roam::pe_id{pe}].call<&probe::measure>();
        worst_extra = std::max<std::uint64_t>(worst_extra, (m.rss - std::min(m.rss, m.baseline)) / pes_per_process);
      }
    }
    const double table_bytes = static_cast<double>(words_per_pe * sizeof(std::uint64_t));
    const double rss_ratio = static_cast<double>(worst_extra) / table_bytes;
    const double gups = static_cast<double>(updates) / seconds[0] / 1e9;
    std::printf("random_access: %s, %u PEs, %llu words per PE (2^%u), %llu updates, mesh %s\n", s.variant.c_str(), pes,
                static_cast<unsigned long long>(words_per_pe), s.log_size, static_cast<unsigned long long>(updates),
                mesh.c_str());
    std::printf("random_access: %.3f s, %.2f M updates/s, %.6f GUP/s (verification run %.3f s)\n", seconds[0],
                updates / seconds[0] / 1e6, gups, seconds[1]);
    std::printf("random_access: peak memory %.1f MiB per PE above start, %.2f x its table share (%.1f MiB)\n",
                worst_extra / 1048576.0, rss_ratio, table_bytes / 1048576.0);
    std::printf("random_access: verification %llu errors\n", static_cast<unsigned long long>(errors));
    bool ok = errors == 0;
    if (s.max_rss_ratio > 0 && rss_ratio > s.max_rss_ratio) {
      std::printf("random_access: peak memory %.2f x the table exceeds --max-rss-ratio %.2f\n", rss_ratio, s.max_rss_ratio);
      ok = false;
    }
    if (ok) std::printf("random_access: OK\n");
    roam::exit(ok ? 0 : 1);
  });
}
