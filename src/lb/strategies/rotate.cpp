// Rotate: a strategy for testing migration, not for balance. At step s each
// migratable object on PE q moves to PE (q + 1 + s mod (P - 1)) mod P, so it
// always leaves its PE when there are two or more, and the distance changes
// from step to step (1, 2, ..., P - 1, 1, ...). When that PE is not
// available, the next available one after it (cyclically) takes the object.
#include "strategies/builtin.hpp"

namespace roam::lb::detail {

assignment rotate_strategy(const problem& p, const strategy_options&) {
  validate_problem(p, "Rotate");
  assignment a = stay(p);
  const std::size_t pes = p.pes.size();
  if (pes < 2) return a;
  // next_available[q]: the first available PE at or after q, cyclically (one pass each way).
  std::vector<std::uint32_t> next_available(pes);
  std::uint32_t next = UINT32_MAX;
  for (std::size_t round = 0; round < 2; ++round)
    for (std::size_t q = pes; q-- > 0;) {
      if (p.pes[q].available) next = static_cast<std::uint32_t>(q);
      next_available[q] = next;
    }
  const std::uint64_t shift = 1 + p.step % (pes - 1);
  for (std::size_t i = 0; i < p.objects.size(); ++i) {
    const object_load& o = p.objects[i];
    if (!o.migratable) continue;
    a.pe[i] = next_available[(o.pe + shift) % pes];
  }
  return a;
}

}  // namespace roam::lb::detail
