// roamrun: the launcher of multi-process roam jobs over the tcp transport.
// See docs/design/tcp-transport.md for the protocol and the environment contract.
#include <cstdio>

#include <roam/machine/build_info.hpp>

#include "launcher.hpp"
#include "options.hpp"

int main(int argc, char** argv) {
  using namespace roam::detail::roamrun;
  const parsed_options p = parse_options(argc, argv);
  if (p.help) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  if (p.version) {
    std::fputs(("roamrun: " + roam::build_description()).c_str(), stdout);
    return 0;
  }
  if (!p.ok) {
    std::fprintf(stderr, "roamrun: %s\n%s", p.error.c_str(), usage_text().c_str());
    return 2;
  }
  return run_job(p.opts);
}
