#pragma once
// The machine part of user-level threads: a saved execution context and the
// switch between two of them. Nothing here knows about PEs, stacks pools or
// sanitizers (ult.cpp adds those); it is just "save my registers, load yours".
//
// x86-64 (System V): our own switch in assembly (context_x86_64.cpp) saves
// the callee-saved registers (rbx, rbp, r12-r15), the MXCSR and the x87
// control word on the stack being left and keeps only the stack pointer: the
// caller-saved registers are dead across a call anyway. Other targets use
// ucontext (context_ucontext.cpp), which is slower (swapcontext makes a
// sigprocmask system call) but portable; ROAM_ULT_UCONTEXT forces it on
// x86-64 too, so the fallback stays tested.
#include <cstddef>

#if !defined(__x86_64__) && !defined(ROAM_ULT_UCONTEXT)
#define ROAM_ULT_UCONTEXT 1
#endif

#if defined(ROAM_ULT_UCONTEXT)
#include <ucontext.h>
#endif

namespace roam::detail {

/// Where a context continues once switched to. Not copyable once made or
/// switched from (the x86-64 form is only a stack pointer, but ucontext
/// holds pointers into itself).
struct machine_context {
#if defined(ROAM_ULT_UCONTEXT)
  ucontext_t uc;
  void (*entry)(void*) noexcept = nullptr;
#else
  void* sp = nullptr;
#endif
};

/// The function a new context starts in: receives the value given to the
/// first switch into it, and must never return (it switches away for good).
using context_entry = void (*)(void* transfer) noexcept;

/// Prepares `c` to start `entry` on the stack [lo, lo + size) when first
/// switched to. The new context inherits the caller's floating point control
/// state (rounding mode, exception masks). `size` at least a few KiB.
void context_make(machine_context& c, void* lo, std::size_t size, context_entry entry) noexcept;

/// Saves the running context into `from` and continues `to`; returns, once
/// something switches back to `from`, the `transfer` value that switch gave.
#if defined(ROAM_ULT_UCONTEXT)
void* context_switch(machine_context& from, machine_context& to, void* transfer) noexcept;
#else
}  // namespace roam::detail
extern "C" void* roam_i_ctx_switch(void** save_sp, void* load_sp, void* transfer) noexcept;
namespace roam::detail {
// Inline: each call level between the two sides of a switch is one more
// return the CPU's return-address predictor gets wrong after the stack swap.
inline void* context_switch(machine_context& from, machine_context& to, void* transfer) noexcept {
  return roam_i_ctx_switch(&from.sp, to.sp, transfer);
}
#endif

}  // namespace roam::detail
