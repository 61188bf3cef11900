// wanderer: one array element that visits every PE in turn, carrying its
// data (a log of where it has been and a payload it checks on arrival).
// migrate_to moves it after the running entry method returns; the message it
// sends to itself just before follows it to its next PE.
//   wanderer [laps=2] [payload_kib=64] [+p N]
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#include <roam/roam.hpp>

#include "command_line.hpp"

namespace {

struct wanderer : roam::element<wanderer> {
  wanderer(int laps, int kib, roam::promise<std::vector<std::uint32_t>> done)
      : laps_(laps), payload_(static_cast<std::size_t>(kib) * 128), done_(done) {
    std::iota(payload_.begin(), payload_.end(), std::uint64_t{1});
  }
  explicit wanderer(roam::migrating) {}

  void step() {
    std::uint32_t here = roam::my_pe().value();
    log_.push_back(here);
    if (std::accumulate(payload_.begin(), payload_.end(), std::uint64_t{0}) != expected_sum()) log_.push_back(~0u);
    if (log_.size() == static_cast<std::size_t>(laps_) * roam::num_pes()) {
      done_.set_value(log_);
      return;
    }
    migrate_to(roam::pe_id{(here + 1) % roam::num_pes()});
    this_proxy().send<&wanderer::step>();
  }
  void before_migration() { ++moves_out_; }
  void after_migration() { ++moves_in_; }

  void pup(roam::pup_er& p) { p | laps_ | payload_ | log_ | done_ | moves_out_ | moves_in_; }

 private:
  std::uint64_t expected_sum() const {
    std::uint64_t n = payload_.size();
    return n * (n + 1) / 2;
  }
  int laps_ = 0;
  std::vector<std::uint64_t> payload_;
  std::vector<std::uint32_t> log_;
  roam::promise<std::vector<std::uint32_t>> done_;
  int moves_out_ = 0, moves_in_ = 0;
};

}  // namespace

namespace {

constexpr examples::usage_text usage{"wanderer", "[LAPS in 1..100000] [PAYLOAD_KIB in 0..1048576]",
                                     "  LAPS          how often the element visits every PE (default 2)\n"
                                     "  PAYLOAD_KIB   the data it carries, in KiB (default 64)\n",
                                     "wanderer 3 1024 +p4"};

struct wanderer_args {
  int laps = 2;
  int kib = 64;
};

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const std::optional<wanderer_args> parsed =
        examples::read_command_line(a, usage, 2, {}, [](const examples::command_line& c) {
          return wanderer_args{c.whole(1, "LAPS", 2, 1, 100'000), c.whole(2, "PAYLOAD_KIB", 64, 0, 1 << 20)};
        });
    if (!parsed) co_return;  // the usage is printed and the program ends
    const int laps = parsed->laps;
    const int kib = parsed->kib;
    auto [f, p] = roam::make_future<std::vector<std::uint32_t>>();
    auto w = roam::create_array<wanderer>(roam::index<1>{1}, laps, kib, p);
    w[0].send<&wanderer::step>();
    std::vector<std::uint32_t> log = co_await f;
    bool ok = log.size() == static_cast<std::size_t>(laps) * roam::num_pes();
    std::printf("visited:");
    for (std::size_t i = 0; i < log.size(); ++i) {
      std::printf(" %u", log[i]);
      ok = ok && log[i] == i % roam::num_pes();
    }
    std::printf("\nwanderer: %s (%d laps over %u pes carrying %d KiB)\n", ok ? "OK" : "FAILED", laps, roam::num_pes(), kib);
    roam::exit(ok ? 0 : 1);
  });
}
