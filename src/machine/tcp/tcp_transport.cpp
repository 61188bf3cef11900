// Placeholder until the TCP transport lands (replaced by its implementation).
#include "machine/transport.hpp"
namespace roam::detail {
std::unique_ptr<transport> make_tcp_transport(std::string& error) {
  error = "tcp transport: not built yet";
  return nullptr;
}
}  // namespace roam::detail
