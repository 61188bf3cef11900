// Two different entries whose identifiers collide must stop the program
// before any PE starts, naming both. Real ids are 64-bit name hashes, so the
// collision is forced by registering a second table under an existing id.
#include <cstdio>

#include <roam/roam.hpp>

struct real : roam::chare<real> {
  void work() {}
};

using impl = roam::detail::entry_impl<real, &real::work>;
const roam::detail::entry_ops impostor{impl::id, "impostor::work", "impostor", false, nullptr, nullptr, nullptr, nullptr};
const bool registered = roam::detail::register_entry(&impostor);

int main(int argc, char** argv) {
  (void)impl::registered;
  return roam::run(argc, argv, [](const roam::args&) {
    std::printf("main ran\n");
    roam::exit(0);
  });
}
