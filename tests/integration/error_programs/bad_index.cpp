// Sends (or calls) to an array index outside the extents: a fatal error that
// names the array, the index and the entry.
//   bad_index [send|call]
#include <cstdio>

#include <roam/roam.hpp>

struct target : roam::element<target> {
  void poke() {}
  int peek() { return 1; }
};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    bool call = a.size() > 1 && a[1] == "call";
    auto arr = roam::create_array<target>({4});
    if (call) {
      auto f = arr[4].call<&target::peek>();
      int v = co_await f;  // must never resume: the call failed
      std::printf("bad_index: call returned %d\n", v);
    } else {
      arr[-1].send<&target::poke>();
    }
    // The error must end the program by itself; a clean exit here would hide it.
  });
}
