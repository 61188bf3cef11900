// Per-rank state and messages of the libraries on Adaptive MPI's ranks
// (extension.hpp).
#include "extension.hpp"

#include <cstdio>
#include <cstdlib>

#include "rank.hpp"

namespace roam::ampi {
namespace {

std::vector<extension_kind>& kinds() {
  static std::vector<extension_kind> registered;
  return registered;
}

}  // namespace

int register_extension(const extension_kind& kind) {
  kinds().push_back(kind);
  return static_cast<int>(kinds().size()) - 1;
}

rank_extension& extension_state(rank& r, int kind) {
  auto& slots = r.extras.extensions.slots;
  const auto at = static_cast<std::size_t>(kind);
  if (slots.size() <= at) slots.resize(at + 1);
  if (!slots[at]) slots[at] = kinds().at(at).make();
  return *slots[at];
}

void send_extension(rank& from, int to_world, int kind, std::vector<std::byte> header, buffer<std::byte> data) {
  from.this_array()[to_world].send<&rank::extension_message>(kind, from.this_index()[0], std::move(header),
                                                               std::move(data));
}

int world_rank_of(const rank& r) { return r.this_index()[0]; }

void extensions_arrived(rank& r) {
  for (const extension_kind& k : kinds())
    if (k.arrived) k.arrived(r);
}

void extensions_leaving(rank& r) {
  for (const extension_kind& k : kinds())
    if (k.leaving) k.leaving(r);
}

void block_rank() { rank::block(); }
void wake_rank(rank& r) { r.notify(); }
rank& current_rank() { return me(); }

void rank::extension_message(std::int32_t kind, std::int32_t from_world, std::vector<std::byte> header,
                             buffer<std::byte> data) {
  if (kind < 0 || static_cast<std::size_t>(kind) >= kinds().size()) {
    std::fprintf(stderr, "ampi: rank %d (PE %u): a library message of unknown kind %d from rank %d\n",
                 this_index()[0], roam::my_pe().value(), kind, from_world);
    std::abort();
  }
  kinds()[static_cast<std::size_t>(kind)].receive(*this, from_world, header, data);
}

void extension_slots::pup(pup_er& p) {
  auto n = static_cast<std::uint32_t>(slots.size());
  p | n;
  if (p.is_unpacking()) slots.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    bool present = slots[i] != nullptr;
    p | present;
    if (!present) continue;
    if (p.is_unpacking()) {
      if (i >= kinds().size()) {
        std::fprintf(stderr, "ampi: a rank arrived with the state of library kind %u, which this process lacks\n", i);
        std::abort();
      }
      slots[i] = kinds()[i].make();
    }
    slots[i]->pup(p);
  }
}

}  // namespace roam::ampi
