// fib: a dynamic tree of chares joined by futures. Each `fib` chare computes
// fib(n) by creating two children for n-1 and n-2 (placed round robin by the
// runtime), awaiting their futures, destroying them and returning the sum.
// Below the grain size it computes sequentially.
//   fib [N=20] [GRAIN=10] [+p N ...runtime options]
#include <cstdio>

#include <roam/roam.hpp>

#include "command_line.hpp"

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

namespace {

constexpr examples::usage_text usage{"fib", "[N in 0..90] [GRAIN in 0..1000]",
                                     "  N             which Fibonacci number (default 20)\n"
                                     "  GRAIN         below this n a chare computes fib(n) itself (default 10)\n",
                                     "fib 25 12 +p4"};

struct fib_args {
  long long n = 20;
  long long grain = 10;
};

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const std::optional<fib_args> parsed =
        examples::read_command_line(a, usage, 2, {}, [](const examples::command_line& c) {
          return fib_args{c.whole(1, "N", 20LL, 0LL, 90LL), c.whole(2, "GRAIN", 10LL, 0LL, 1000LL)};
        });
    if (!parsed) co_return;  // the usage is printed and the program ends
    const long long n = parsed->n;
    const long long g = parsed->grain;
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
