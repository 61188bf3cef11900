// The portable context switch (see context.hpp): ucontext, for targets
// without an assembly switch here, or on x86-64 when ROAM_ULT_UCONTEXT is set.
#include "context.hpp"

#if defined(ROAM_ULT_UCONTEXT)

#include <cstdint>

namespace roam::detail {

namespace {
// swapcontext carries no value: the switching side leaves it here. Each PE
// is one OS thread and switches only among its own contexts.
thread_local void* tls_transfer = nullptr;

// makecontext passes int arguments only: the context's address comes in two halves.
void trampoline(unsigned hi, unsigned lo) {
  auto* c = reinterpret_cast<machine_context*>((std::uintptr_t{hi} << 32) | lo);
  c->entry(tls_transfer);
  __builtin_trap();  // an entry never returns
}
}  // namespace

void context_make(machine_context& c, void* lo, std::size_t size, context_entry entry) noexcept {
  getcontext(&c.uc);  // also takes the caller's FP control state
  c.uc.uc_stack.ss_sp = lo;
  c.uc.uc_stack.ss_size = size;
  c.uc.uc_link = nullptr;
  c.entry = entry;
  auto addr = reinterpret_cast<std::uintptr_t>(&c);
  makecontext(&c.uc, reinterpret_cast<void (*)()>(&trampoline), 2, static_cast<unsigned>(addr >> 32),
              static_cast<unsigned>(addr & 0xffffffffu));
}

void* context_switch(machine_context& from, machine_context& to, void* transfer) noexcept {
  tls_transfer = transfer;
  swapcontext(&from.uc, &to.uc);
  return tls_transfer;
}

}  // namespace roam::detail

#endif
