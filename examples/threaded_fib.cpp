// threaded_fib: fib as a tree of chares whose entry method blocks. `compute`
// is a threaded entry method: it runs on a user-level thread of its chare's
// PE, so it may call `get()` on its children's futures and simply wait, as
// sequential code would, while the PE runs other messages (the children, on
// this PE or elsewhere). Compare examples/fib.cpp, the same tree written with
// coroutines (`co_await` instead of `get()`).
//   threaded_fib [N=16] [GRAIN=6] [+p N] [+ulstack BYTES ...runtime options]
#include <cstdio>

#include <roam/roam.hpp>

#include "command_line.hpp"

namespace {

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
  // Runs compute on a thread of its own for every call.
  static constexpr auto threaded_entries() { return roam::entry_list<&fib::compute>{}; }

  long compute(int n) {
    if (n < 2 || n < *grain) return fib_seq(n);
    auto left = roam::create_chare<fib>();
    auto right = roam::create_chare<fib>();
    auto fl = left.call<&fib::compute>(n - 1);
    auto fr = right.call<&fib::compute>(n - 2);
    long sum = fl.get() + fr.get();  // blocks this thread only
    left.destroy();
    right.destroy();
    return sum;
  }
};

namespace {

constexpr examples::usage_text usage{
    "threaded_fib", "[N in 0..40] [GRAIN in 0..1000]",
    "  N             which Fibonacci number (default 16)\n"
    "  GRAIN         below this n a chare computes fib(n) itself (default 6)\n"
    "  +ulstack BYTES  (runtime option) the stack of each user-level thread\n",
    "threaded_fib 20 8 +p4"};

struct fib_args {
  long long n = 16;
  long long grain = 6;
};

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const std::optional<fib_args> parsed =
        examples::read_command_line(a, usage, 2, {}, [](const examples::command_line& c) {
          return fib_args{c.whole(1, "N", 16LL, 0LL, 40LL), c.whole(2, "GRAIN", 6LL, 0LL, 1000LL)};
        });
    if (!parsed) co_return;  // the usage is printed and the program ends
    const long long n = parsed->n;
    const long long g = parsed->grain;
    grain = static_cast<int>(g);

    auto root = roam::create_chare<fib>();
    long v = co_await root.call<&fib::compute>(static_cast<int>(n));
    root.destroy();

    long expected = fib_loop(static_cast<int>(n));
    std::printf("threaded_fib(%lld) = %ld: %s (grain %lld, %u pes)\n", n, v, v == expected ? "OK" : "WRONG", g,
                roam::num_pes());
    roam::exit(v == expected ? 0 : 1);
  });
}
