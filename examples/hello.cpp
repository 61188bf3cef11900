// hello: an array of greeters; a broadcast asks each to say hello, and each
// reports back to a counter chare on PE 0, which ends the program.
//   hello [GREETERS=8] [+p N ...runtime options]
#include <cstdio>

#include <roam/roam.hpp>

#include "command_line.hpp"

struct counter : roam::chare<counter> {
  explicit counter(int expected) : expected_(expected) {}
  void greeted(int who, std::uint32_t pe) {
    sum_ += who;
    if (++seen_ == expected_) {
      std::printf("all %d greeters said hello (sum of indices %ld)\n", seen_, sum_);
      roam::exit(sum_ == static_cast<long>(expected_) * (expected_ - 1) / 2 ? 0 : 1);
    }
    (void)pe;
  }
  int expected_;
  int seen_ = 0;
  long sum_ = 0;
};

struct greeter : roam::element<greeter> {
  explicit greeter(roam::chare_proxy<counter> c) : counter_(c) {}
  void say_hello(const std::string& greeting) {
    std::printf("[pe %u] greeter %d: %s\n", roam::my_pe().value(), this_index()[0], greeting.c_str());
    counter_.send<&counter::greeted>(this_index()[0], roam::my_pe().value());
  }
  roam::chare_proxy<counter> counter_;
};

constexpr examples::usage_text usage{"hello", "[GREETERS in 1..1000000]",
                                     "  GREETERS      array elements that say hello (default 8)\n", "hello 16 +p4"};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) {
    const std::optional<int> parsed = examples::read_command_line(
        a, usage, 1, {}, [](const examples::command_line& c) { return c.whole(1, "GREETERS", 8, 1, 1'000'000); });
    if (!parsed) return;  // the usage is printed and the program ends
    const int n = *parsed;
    auto c = roam::create_chare_on<counter>(roam::pe_id{0}, n);
    auto greeters = roam::create_array<greeter>({n}, c);
    greeters.send<&greeter::say_hello>(std::string("hello from roam"));
  });
}
