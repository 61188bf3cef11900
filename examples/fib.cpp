// fib: a dynamic tree of chares joined by futures. Each `fib` chare computes
// fib(n) by creating two children for n-1 and n-2 (placed round robin by the
// runtime), awaiting their futures, destroying them and returning the sum.
// Below the grain size it computes sequentially.
//   fib [N=20] [GRAIN=10] [+p N ...runtime options]
#include <cstdio>

#include <roam/roam.hpp>

namespace {

// Set once in main before any message leaves; every PE reads it.
roam::readonly<int> grain;

long fib_seq(int n) { return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2); }

long fib_loop(int n) {
  long a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    long t = a + b;
    a = b;
    b = t;
  }
  return a;
}

}  // namespace

struct fib : roam::chare<fib> {
  roam::task<long> compute(int n) {
    if (n < 2 || n < *grain) co_return fib_seq(n);
    auto left = roam::create_chare<fib>();
    auto right = roam::create_chare<fib>();
    auto fl = left.call<&fib::compute>(n - 1);
    auto fr = right.call<&fib::compute>(n - 2);
    long x = co_await fl;
    long y = co_await fr;
    left.destroy();
    right.destroy();
    co_return x + y;
  }
};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const long long n = a.int_or(1, 20);
    const long long g = a.int_or(2, 10);
    if (n < 0 || n > 90 || g < 0 || g > 1000) {
      std::fprintf(stderr, "usage: fib [N in 0..90] [GRAIN >= 0] [+p N]\n");
      roam::exit(2);
      co_return;
    }
    grain = static_cast<int>(g);

    auto root = roam::create_chare<fib>();
    long v = co_await root.call<&fib::compute>(static_cast<int>(n));
    root.destroy();

    long expected = fib_loop(static_cast<int>(n));
    if (v == expected) {
      std::printf("fib(%lld) = %ld: OK (grain %lld, %u pes)\n", n, v, g, roam::num_pes());
      roam::exit(0);
    } else {
      std::printf("fib(%lld) = %ld: WRONG, expected %ld\n", n, v, expected);
      roam::exit(1);
    }
  });
}
