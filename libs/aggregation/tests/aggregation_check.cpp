// aggregation_check: every item an aggregator carries arrives exactly once,
// at the right object, before the streaming step's completion fires, and the
// buffers and the messages in flight stay within their bounds.
//
//   aggregation_check <group|array|migrate|lone> [dims|auto] [items per pair] [items per buffer] [window] [steps]
//
// group:   each PE's producer sends K(src, dst) items to every PE's group member.
// array:   each PE's producer sends K(src, e) items to every element (3 per PE).
// migrate: as array, while the elements keep moving to the next PE.
// lone:    one item, never flushed by hand: the idle flush must send it.
// delay:   the same with the idle flush off and a 2 ms flush delay: the timer sends it.
// Prints "aggregation_check: OK" and exits 0 when every count is exact.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <roam/aggregation/aggregator.hpp>
#include <roam/roam.hpp>

namespace {

struct item {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;  // PE (group) or element index (arrays)
  std::uint64_t seq = 0;
};

}  // namespace

template <>
inline constexpr bool roam::bitwise_serializable<item> = true;

namespace {

constexpr std::uint32_t elements_per_pe = 3;

// Items PE `src` sends to destination `dst` (varies per pair, so a swapped or
// lost route cannot balance out).
std::uint64_t expected(std::uint32_t src, std::uint32_t dst, std::uint32_t k) { return k + (src * 7 + dst * 3) % 5; }
// A checksum of an item's fields, so an item changed on the way is caught.
std::uint64_t mix(const item& it) { return (it.seq + 1) * 0x9e3779b97f4a7c15ull ^ (std::uint64_t{it.src} << 32 | it.dst); }

struct report {
  std::uint64_t errors = 0;
  std::uint64_t received = 0;
  std::uint64_t checksum = 0;
  template <class P>
  void pup(P& p) {
    p | errors | received | checksum;
  }
};

// What one receiver (a group member or an element) counted: per source PE,
// with a checksum. Both receiver kinds share it.
struct tally {
  std::vector<std::uint64_t> got = std::vector<std::uint64_t>(roam::num_pes(), 0);
  std::uint64_t checksum = 0, misrouted = 0;
  void take(const item& it, std::uint32_t me) {
    if (it.dst != me || it.src >= got.size()) {
      ++misrouted;
      return;
    }
    ++got[it.src];
    checksum += mix(it);
  }
  report check(const char* what, std::uint32_t me, std::uint32_t steps, std::uint32_t k) const {
    report r;
    r.errors = misrouted;
    for (std::uint32_t s = 0; s < got.size(); ++s) {
      r.received += got[s];
      if (got[s] != expected(s, me, k) * steps) {
        std::printf("%s %u: %llu items from pe %u, expected %llu\n", what, me, static_cast<unsigned long long>(got[s]),
                    s, static_cast<unsigned long long>(expected(s, me, k) * steps));
        ++r.errors;
      }
    }
    r.checksum = checksum;
    return r;
  }
  template <class P>
  void pup(P& p) {
    p | got | checksum | misrouted;
  }
};

// ---- group receivers --------------------------------------------------------
struct sink : roam::group_member<sink> {
  tally counts;
  void take(const item& it) { counts.take(it, roam::my_pe().value()); }
  report check(std::uint32_t steps, std::uint32_t k) { return counts.check("pe", roam::my_pe().value(), steps, k); }
};

// ---- array receivers --------------------------------------------------------
struct cell : roam::element<cell> {
  tally counts;
  std::uint32_t me() const { return static_cast<std::uint32_t>(this_index()[0]); }
  void take(const item& it) { counts.take(it, me()); }
  void move_on() { migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()}); }
  report check(std::uint32_t steps, std::uint32_t k) { return counts.check("element", me(), steps, k); }
  template <class P>
  void pup(P& p) {
    p | counts;
  }
};

std::uint64_t expected_checksum(std::uint32_t dst, std::uint32_t pes, std::uint32_t steps, std::uint32_t k) {
  std::uint64_t sum = 0;
  for (std::uint32_t s = 0; s < pes; ++s)
    for (std::uint64_t i = 0; i < expected(s, dst, k) * steps; ++i) sum += mix(item{s, dst, i});
  return sum;
}

// ---- producers: one group member per PE ------------------------------------
std::atomic<int> completions{0};
roam::promise<void> step_finished;
void on_complete() {
  completions.fetch_add(1);
  step_finished.set_value();
}

struct producer : roam::group_member<producer> {
  std::uint64_t sent = 0;  // per destination, across steps: seq numbers continue
  std::vector<std::uint64_t> next_seq;
  producer() : next_seq(roam::num_pes() * elements_per_pe, 0) {}

  roam::task<> to_group(roam::aggregator<&sink::take> agg, std::uint32_t per_pair) {
    const std::uint32_t me = roam::my_pe().value(), pes = roam::num_pes();
    // Interleaved destinations: every buffer fills a little at a time.
    std::uint64_t most = 0;
    for (std::uint32_t d = 0; d < pes; ++d) most = std::max(most, expected(me, d, per_pair));
    for (std::uint64_t k = 0; k < most; ++k)
      for (std::uint32_t d = 0; d < pes; ++d)
        if (k < expected(me, d, per_pair)) co_await agg.insert(roam::pe_id{d}, item{me, d, next_seq[d]++});
    agg.done();
  }
  roam::task<> to_array(roam::aggregator<&cell::take> agg, std::uint32_t elements, std::uint32_t per_pair) {
    const std::uint32_t me = roam::my_pe().value();
    std::uint64_t most = 0;
    for (std::uint32_t e = 0; e < elements; ++e) most = std::max(most, expected(me, e, per_pair));
    for (std::uint64_t k = 0; k < most; ++k)
      for (std::uint32_t e = 0; e < elements; ++e)
        if (k < expected(me, e, per_pair))
          co_await agg.insert(roam::index<1>{static_cast<std::int32_t>(e)}, item{me, e, next_seq[e]++});
    agg.done();
  }
  roam::aggregation_stats stats_group(roam::aggregator<&sink::take> agg) { return agg.stats(); }
  roam::aggregation_stats stats_array(roam::aggregator<&cell::take> agg) { return agg.stats(); }
};

// ---- lone: one item, delivered by the idle flush ----------------------------
struct lone_sink : roam::group_member<lone_sink> {
  void take(const item& it) {
    std::printf("lone item %llu from pe %u arrived on pe %u\n", static_cast<unsigned long long>(it.seq), it.src,
                roam::my_pe().value());
    std::printf("aggregation_check: OK\n");
    roam::exit(0);
  }
};

roam::aggregation_options make_options(const roam::args& a) {
  roam::aggregation_options o;
  const std::string dims = a.size() > 2 ? a[2] : "auto";
  if (dims != "auto") o.dims = static_cast<std::uint32_t>(std::stoul(dims));
  o.items_per_buffer = static_cast<std::uint32_t>(a.int_or(4, 8));
  o.max_buffers_in_flight = static_cast<std::uint32_t>(a.int_or(5, 0));
  return o;
}

bool check_stats(const roam::aggregation_stats& s, std::uint32_t pe, const roam::aggregation_options& o,
                 std::size_t peers, std::uint32_t window) {
  bool ok = true;
  // Every buffer on this PE is at most full: peers x items_per_buffer items.
  // 0: the aggregator took this run's default (+agg_buffer, else 1024).
  const std::uint32_t per_buffer =
      o.items_per_buffer ? o.items_per_buffer : roam::aggregation::detail::command_line_defaults().items_per_buffer;
  if (s.peak_buffered > peers * per_buffer) {
    std::printf("pe %u: %llu items buffered at once, bound %zu\n", pe, static_cast<unsigned long long>(s.peak_buffered),
                peers * per_buffer);
    ok = false;
  }
  // Per peer: the producers stop at the window; forwarding (which never
  // waits) adds at most a window per upstream peer, whose acknowledgements
  // are held back meanwhile; the final flush one more. An unthrottled
  // producer would have all its buffers in flight at once.
  if (s.peak_in_flight > peers * (window * (1 + peers) + 1)) {
    std::printf("pe %u: %u buffers in flight at once, window %u\n", pe, s.peak_in_flight, window);
    ok = false;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const std::string mode = a.size() > 1 ? a[1] : "group";
    const auto per_pair = static_cast<std::uint32_t>(a.int_or(3, 40));
    const auto steps = static_cast<std::uint32_t>(a.int_or(6, 2));
    const std::uint32_t pes = roam::num_pes();
    roam::aggregation_options opts = make_options(a);

    if (mode == "lone" || mode == "delay") {
      auto sinks = roam::create_group<lone_sink>();
      opts.items_per_buffer = 1024;
      if (mode == "delay") {  // the timer alone must send it
        opts.flush_when_idle = false;
        opts.flush_delay = std::chrono::milliseconds(2);
      }
      auto agg = roam::make_aggregator<&lone_sink::take>(sinks, opts);
      agg.insert(roam::pe_id{pes - 1}, item{0, pes - 1, 42});  // no flush, no done: only idle sends it
      co_return;
    }

    auto producers = roam::create_group<producer>();
    std::uint64_t errors = 0, received = 0, total_expected = 0;
    for (std::uint32_t s = 0; s < pes; ++s)
      for (std::uint32_t d = 0; d < (mode == "group" ? pes : pes * elements_per_pe); ++d)
        total_expected += expected(s, d, per_pair) * steps;

    if (mode == "group") {
      auto sinks = roam::create_group<sink>();
      auto agg = roam::make_aggregator<&sink::take>(sinks, opts);
      std::printf("aggregation_check: group, %u PEs, mesh %s, %u items per buffer\n", pes, agg.mesh().describe().c_str(),
                  opts.items_per_buffer == 0 ? 1024 : opts.items_per_buffer);
      for (std::uint32_t step = 0; step < steps; ++step) {
        auto [done, p] = roam::make_future<void>();
        step_finished = p;
        agg.start(pes, roam::callback<void>::function<&on_complete>(roam::my_pe()));
        producers.send<&producer::to_group>(agg, per_pair);
        co_await done;
      }
      for (std::uint32_t pe = 0; pe < pes; ++pe) {
        report r = co_await sinks[roam::pe_id{pe}].call<&sink::check>(steps, per_pair);
        errors += r.errors;
        received += r.received;
        if (r.checksum != expected_checksum(pe, pes, steps, per_pair)) {
          std::printf("pe %u: checksum %llx, expected %llx\n", pe, static_cast<unsigned long long>(r.checksum),
                      static_cast<unsigned long long>(expected_checksum(pe, pes, steps, per_pair)));
          ++errors;
        }
        auto s = co_await producers[roam::pe_id{pe}].call<&producer::stats_group>(agg);
        const std::uint32_t window = opts.max_buffers_in_flight ? opts.max_buffers_in_flight
                                                             : roam::aggregation::detail::command_line_defaults().buffers_in_flight;
        if (!check_stats(s, pe, opts, agg.mesh().peers(pe).size(), window)) ++errors;
        std::printf("pe %u: inserted %llu delivered %llu forwarded %llu buffers %llu (full %llu) waits %llu peak in flight %u\n",
                    pe, static_cast<unsigned long long>(s.inserted), static_cast<unsigned long long>(s.delivered),
                    static_cast<unsigned long long>(s.forwarded), static_cast<unsigned long long>(s.buffers_sent),
                    static_cast<unsigned long long>(s.full_sends), static_cast<unsigned long long>(s.waits),
                    s.peak_in_flight);
      }
    } else if (mode == "array" || mode == "migrate") {
      const std::uint32_t elements = pes * elements_per_pe;
      auto cells = roam::create_array<cell>(roam::index<1>{static_cast<std::int32_t>(elements)});
      auto agg = roam::make_aggregator<&cell::take>(cells, opts);
      std::printf("aggregation_check: %s, %u PEs, %u elements, mesh %s\n", mode.c_str(), pes, elements,
                  agg.mesh().describe().c_str());
      for (std::uint32_t step = 0; step < steps; ++step) {
        auto [done, p] = roam::make_future<void>();
        step_finished = p;
        agg.start(pes, roam::callback<void>::function<&on_complete>(roam::my_pe()));
        producers.send<&producer::to_array>(agg, elements, per_pair);
        if (mode == "migrate")  // every element moves on while the items are on their way
          for (int round = 0; round < 3; ++round) cells.send<&cell::move_on>();
        co_await done;
      }
      for (std::uint32_t e = 0; e < elements; ++e) {
        report r = co_await cells[static_cast<std::int32_t>(e)].call<&cell::check>(steps, per_pair);
        errors += r.errors;
        received += r.received;
        if (r.checksum != expected_checksum(e, pes, steps, per_pair)) {
          std::printf("element %u: checksum mismatch\n", e);
          ++errors;
        }
      }
    } else {
      std::fprintf(stderr, "aggregation_check: unknown mode '%s' (group, array, migrate, lone)\n", mode.c_str());
      roam::exit(2);
      co_return;
    }
    if (completions.load() != static_cast<int>(steps)) {
      std::printf("completion fired %d times for %u steps\n", completions.load(), steps);
      ++errors;
    }
    if (received != total_expected) ++errors;
    std::printf("aggregation_check: %llu of %llu items, %llu errors\n", static_cast<unsigned long long>(received),
                static_cast<unsigned long long>(total_expected), static_cast<unsigned long long>(errors));
    if (errors == 0) std::printf("aggregation_check: OK\n");
    roam::exit(errors == 0 ? 0 : 1);
  });
}
