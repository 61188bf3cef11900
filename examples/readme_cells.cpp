// The program shown in README.md; kept compiling so the README cannot rot.
// (Here also the -h/--help every example answers: the `usage` and the first
// line of main, which README.md leaves out.)
#include <cstdio>
#include <roam/roam.hpp>

#include "command_line.hpp"

struct cell : roam::element<cell, roam::index<2>> {
  explicit cell(double scale) : scale_(scale) {}
  double energy(int step) { return scale_ * (this_index()[0] + this_index()[1]) * step; }
  void greet(const std::string& who) { std::printf("[pe %u] cell %d,%d greets %s\n",
      roam::my_pe().value(), this_index()[0], this_index()[1], who.c_str()); }
  double scale_;
};

constexpr examples::usage_text usage{"readme_cells", "(no arguments)", "", "readme_cells +p4"};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    if (!examples::read_command_line(a, usage, 0, {}, [](const examples::command_line&) { return true; })) co_return;
    auto cells = roam::create_array<cell>({4, 4}, 0.5);     // 16 elements, block-mapped
    cells.send<&cell::greet>(std::string("everyone"));       // broadcast
    double e = co_await cells[{1, 2}].call<&cell::energy>(3); // call -> future
    std::printf("energy of cell 1,2 at step 3: %g\n", e);
    roam::exit(0);
  });
}
