// hello: an array of greeters; a broadcast asks each to say hello, and each
// reports back to a counter chare on PE 0, which ends the program.
#include <cstdio>

#include <roam/roam.hpp>

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

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) {
    int n = static_cast<int>(a.int_or(1, 8));
    auto c = roam::create_chare_on<counter>(roam::pe_id{0}, n);
    auto greeters = roam::create_array<greeter>({n}, c);
    greeters.send<&greeter::say_hello>(std::string("hello from roam"));
  });
}
