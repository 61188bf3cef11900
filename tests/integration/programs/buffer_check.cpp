// buffer_check: roam::buffer<T> arguments and results of several sizes
// (0, 1, 16 KiB, 16 KiB + 1 — the first out-of-line size — 1 MiB, 4 MiB),
// checked byte for byte, between the first and the last PE (another process
// under roamrun or mpirun), so the same program covers the in-process path,
// +serialize, and both transports' zero-copy segments:
//   - a call whose argument is checked by the receiver,
//   - a buffer sent back as the result (forwarded without a copy),
//   - a buffer modified in place by the receiver and returned,
//   - several buffers (one of them twice) beside other arguments,
//   - copy on write: the sender overwrites its buffer right after sending,
//     the receiver must still see what was sent,
//   - a broadcast of a large buffer to every element (fan-out).
//   buffer_check [+p N | +ppn K | +serialize ...runtime options]
// Prints "buffer_check: OK (N checks)" or the first mismatches and exits 1.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <roam/roam.hpp>

namespace {

std::byte pattern(std::uint32_t seed, std::size_t i) {
  return static_cast<std::byte>((seed * 131u + i * 7u + (i >> 9)) & 0xffu);
}

roam::bytes make_bytes(std::size_t n, std::uint32_t seed) {
  auto b = roam::bytes::uninitialized(n);
  auto w = b.mutable_span();
  for (std::size_t i = 0; i < n; ++i) w[i] = pattern(seed, i);
  return b;
}

long mismatches(const roam::bytes& b, std::size_t n, std::uint32_t seed) {
  if (b.size() != n) return static_cast<long>(n) + 1000000;
  long bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += b[i] != pattern(seed, i);
  return bad;
}

std::uint32_t spread(const roam::index<1>& i, const roam::index<1>&, std::uint32_t pes) {
  return static_cast<std::uint32_t>(i[0]) % pes;
}

struct cell : roam::element<cell> {
  long check(roam::bytes b, std::uint64_t n, std::uint32_t seed) { return mismatches(b, n, seed); }
  roam::bytes bounce(roam::bytes b) { return b; }
  roam::buffer<double> scale(roam::buffer<double> b, double k) {
    for (double& x : b.mutable_span()) x *= k;
    return b;
  }
  long mixed(int tag, roam::bytes a, std::string s, roam::buffer<std::uint64_t> c, roam::bytes again,
             std::vector<int> v) {
    long bad = tag == 7 ? 0 : 1;
    bad += mismatches(a, a.size(), 11) + mismatches(again, a.size(), 11);
    bad += s == "between" ? 0 : 1;
    for (std::size_t i = 0; i < c.size(); ++i) bad += c[i] != i * i;
    bad += v == std::vector<int>{1, 2, 3} ? 0 : 1;
    return bad;
  }
  void broadcast_in(roam::bytes b, std::uint64_t n, std::uint32_t seed, roam::callback<long> cb) {
    contribute(mismatches(b, n, seed), roam::sum, cb);
  }
};

// (Outside the coroutine: GCC 12 rejects braced lists inside it, "array used as initializer".)
std::vector<std::size_t> argument_sizes() { return {0, 1, 16 << 10, (16 << 10) + 1, 1 << 20, 4 << 20}; }
std::vector<std::size_t> element_counts() { return {0, 2049, std::size_t{1} << 17}; }
std::vector<std::size_t> broadcast_byte_counts() { return {100, std::size_t{1} << 20}; }
std::vector<int> one_two_three() { return {1, 2, 3}; }

int failures = 0;
int checks = 0;
void expect(const std::string& what, long got, long want) {
  ++checks;
  if (got == want) return;
  ++failures;
  std::printf("buffer_check: MISMATCH %s: got %ld, expected %ld\n", what.c_str(), got, want);
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args&) -> roam::task<> {
    const std::uint32_t pes = roam::num_pes();
    std::printf("buffer_check: %u pes in %u nodes\n", pes, roam::num_nodes());
    auto cells = roam::create_array<cell>(roam::array_options<1>({static_cast<int>(pes)}, roam::custom_map<&spread>()));
    auto far = cells[static_cast<int>(pes - 1)];

    const std::vector<std::size_t> sizes = argument_sizes();
    std::uint32_t seed = 1;
    for (std::size_t n : sizes) {
      const std::string at = " (" + std::to_string(n) + " bytes)";
      ++seed;
      roam::bytes b = make_bytes(n, seed);
      expect("argument checked by the receiver" + at, co_await far.call<&cell::check>(b, std::uint64_t{n}, seed), 0);
      roam::bytes back = co_await far.call<&cell::bounce>(b);
      expect("buffer sent back" + at, mismatches(back, n, seed), 0);
      expect("the sender's buffer after the round trip" + at, mismatches(b, n, seed), 0);

      // Copy on write: overwrite right after sending; the message keeps the original.
      auto pending = far.call<&cell::check>(b, std::uint64_t{n}, seed);
      for (std::byte& x : b.mutable_span()) x = std::byte{0xee};
      expect("sent contents after the sender overwrote its buffer" + at, co_await pending, 0);
      bool overwritten = true;
      for (std::byte x : b) overwritten = overwritten && x == std::byte{0xee};
      expect("the sender's own overwrite" + at, overwritten ? 1 : 0, 1);
    }

    const std::vector<std::size_t> counts = element_counts();
    for (std::size_t count : counts) {
      roam::buffer<double> d(count);
      for (std::size_t i = 0; i < count; ++i) d.mutable_span()[i] = static_cast<double>(i) + 0.5;
      roam::buffer<double> r = co_await far.call<&cell::scale>(d, 2.0);
      long bad = r.size() == count ? 0 : 1;
      for (std::size_t i = 0; i < r.size(); ++i) bad += r[i] != 2.0 * (static_cast<double>(i) + 0.5);
      for (std::size_t i = 0; i < count; ++i) bad += d[i] != static_cast<double>(i) + 0.5;  // the original is intact
      expect("buffer<double> scaled in place by the receiver (" + std::to_string(count) + " elements)", bad, 0);
    }

    {
      roam::bytes a = make_bytes(40000, 11);
      roam::buffer<std::uint64_t> c = roam::buffer<std::uint64_t>::uninitialized(5000);
      for (std::size_t i = 0; i < c.size(); ++i) c.mutable_span()[i] = i * i;
      expect("several buffers beside other arguments, one buffer twice",
             co_await far.call<&cell::mixed>(7, a, std::string("between"), c, a, one_two_three()), 0);
    }

    const std::vector<std::size_t> broadcast_sizes = broadcast_byte_counts();
    for (std::size_t n : broadcast_sizes) {
      ++seed;
      auto [f, p] = roam::make_future<long>();
      cells.send<&cell::broadcast_in>(make_bytes(n, seed), std::uint64_t{n}, seed, roam::callback<long>::to_future(p));
      expect("broadcast to every element (" + std::to_string(n) + " bytes)", co_await f, 0);
    }

    if (failures == 0) std::printf("buffer_check: OK (%d checks)\n", checks);
    else std::printf("buffer_check: FAILED (%d of %d checks)\n", failures, checks);
    roam::exit(failures == 0 ? 0 : 1);
  });
}
