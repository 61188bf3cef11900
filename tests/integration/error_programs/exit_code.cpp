// roam::exit(7) called from an entry method on the last PE: the program's exit
// status must be 7, whatever PE 0 is doing meanwhile.
#include <cstdio>

#include <roam/roam.hpp>

struct quitter : roam::chare<quitter> {
  void quit(int code) {
    if (roam::my_pe().value() != roam::num_pes() - 1) {
      roam::abort("quitter is not on the last pe");
      return;
    }
    std::printf("exit_code: pe %u of %u calls roam::exit(%d)\n", roam::my_pe().value(), roam::num_pes(), code);
    std::fflush(stdout);
    roam::exit(code);
  }
};

struct spinner : roam::chare<spinner> {
  // Keeps PE 0 busy with a stream of messages until the program ends.
  void spin() { this_proxy().send<&spinner::spin>(); }
};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) {
    int code = static_cast<int>(a.int_or(1, 7));
    auto s = roam::create_chare_on<spinner>(roam::pe_id{0});
    s.send<&spinner::spin>();
    auto q = roam::create_chare_on<quitter>(roam::pe_id{roam::num_pes() - 1});
    q.send<&quitter::quit>(code);
  });
}
