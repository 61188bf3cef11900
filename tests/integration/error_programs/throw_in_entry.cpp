// An array element's entry method throws: the runtime must stop the program
// with exit code 1 and a report naming the PE, the array, the index and the entry.
//   throw_in_entry [send|broadcast] [ELEMENTS=4] [VICTIM=3]
// send: only the victim is asked to explode; broadcast: every element is, and
// only the victim throws.
#include <stdexcept>

#include <roam/roam.hpp>

struct thrower : roam::element<thrower> {
  void explode(int victim) {
    if (this_index()[0] == victim) throw std::runtime_error("boom");
  }
};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) {
    bool broadcast = a.size() > 1 && a[1] == "broadcast";
    int n = static_cast<int>(a.int_or(2, 4));
    int victim = static_cast<int>(a.int_or(3, 3));
    auto arr = roam::create_array<thrower>({n});
    // Nobody calls roam::exit: only the failure may end the program.
    if (broadcast) arr.send<&thrower::explode>(victim);
    else arr[victim].send<&thrower::explode>(victim);
  });
}
