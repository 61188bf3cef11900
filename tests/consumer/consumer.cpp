// A program outside roam's tree (tests/packaging builds it against an installed
// roam, an unpacked .deb, pkg-config flags, and roam as a subdirectory): an
// array, a reduction into a future, a coroutine entry method, the version
// header and the build description. Prints one line ending in "OK" and exits 0
// when every result is right, on any PE and process count.
#include <cstdint>
#include <cstdio>
#include <string>

#include <roam/machine/build_info.hpp>
#include <roam/roam.hpp>
#include <roam/version.hpp>

static_assert(ROAM_VERSION_NUMBER >= 100, "roam 0.1.0 or newer");

struct square : roam::element<square> {
  explicit square(roam::promise<std::int64_t> total) : total_(total) {}

  // Every element contributes i*i + round; the sum goes to main's future.
  void add(int round) {
    const std::int64_t i = this_index()[0];
    contribute(i * i + round, roam::sum, roam::callback<std::int64_t>::to_future(total_));
  }

  // A coroutine entry method: asks its right neighbour for its index and
  // returns the pair's product.
  roam::task<std::int64_t> times_neighbour(int n) {
    const int me = this_index()[0];
    const std::int64_t other = co_await this_array()[{(me + 1) % n}].call<&square::index_value>();
    co_return other * me;
  }

  int index_value() { return this_index()[0]; }

  roam::promise<std::int64_t> total_;
};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const int n = static_cast<int>(a.int_or(1, 24));
    auto [total_f, total_p] = roam::make_future<std::int64_t>();
    auto squares = roam::create_array<square>({n}, total_p);
    squares.send<&square::add>(3);
    const std::int64_t total = co_await total_f;
    const std::int64_t product = co_await squares[{n - 1}].call<&square::times_neighbour>(n);

    std::int64_t expected_total = 0;
    for (std::int64_t i = 0; i < n; ++i) expected_total += i * i + 3;
    const bool ok = total == expected_total && product == 0;  // element n-1's neighbour is 0
    std::printf("consumer: roam %s (library %s), %u PEs, %d elements, sum %lld, product %lld: %s\n",
                ROAM_VERSION_STRING, std::string(roam::this_build().version).c_str(), roam::num_pes(), n,
                static_cast<long long>(total), static_cast<long long>(product), ok ? "OK" : "WRONG");
    roam::exit(ok ? 0 : 1);
  });
}
