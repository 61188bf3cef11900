// Sends to a group member on a PE that does not exist (or creates a chare
// there): a fatal error naming the PE.
//   bad_group_pe [group|chare]
#include <roam/roam.hpp>

struct member : roam::group_member<member> {
  void poke() {}
};

struct lonely : roam::chare<lonely> {};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) {
    if (a.size() > 1 && a[1] == "chare") {
      (void)roam::create_chare_on<lonely>(roam::pe_id{99});
    } else {
      auto g = roam::create_group<member>();
      g[roam::pe_id{99}].send<&member::poke>();
    }
  });
}
