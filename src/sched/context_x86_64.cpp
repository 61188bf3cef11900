// The x86-64 System V context switch (see context.hpp). A saved context is
// its stack pointer; the stack it points at holds, from low to high address:
//   [MXCSR (4 B), x87 control word (2 B), pad (2 B)] r15 r14 r13 r12 rbx rbp [return address]
// Switching pushes those onto the stack being left, stores rsp, loads the
// other rsp and pops in reverse, so `ret` continues the other context where
// it called roam_i_ctx_switch (or, the first time, in the trampoline).
// The FP control state is per context: a thread that changes its rounding
// mode must not change it for the scheduler or for other threads; the status
// flags are not saved (like Boost.Context and the ABI's callee-saved rules).
// Loading MXCSR and the x87 control word is slow (fldcw alone was half of a
// switch here) and they almost never differ between two contexts, so each
// is loaded only when it differs from the value being left.
#include "context.hpp"

#if !defined(ROAM_ULT_UCONTEXT)

#include <cstdint>

extern "C" void roam_i_ctx_trampoline() noexcept;

// rdi: where to store this context's rsp; rsi: the rsp to load; rdx: the
// value the other side receives (returned in rax, or for a new context passed
// by the trampoline as the entry function's argument).
asm(R"(
  .text
  .globl roam_i_ctx_switch
  .hidden roam_i_ctx_switch
  .type roam_i_ctx_switch, @function
  .p2align 4
roam_i_ctx_switch:
  .cfi_startproc
  pushq %rbp
  .cfi_adjust_cfa_offset 8
  pushq %rbx
  .cfi_adjust_cfa_offset 8
  pushq %r12
  .cfi_adjust_cfa_offset 8
  pushq %r13
  .cfi_adjust_cfa_offset 8
  pushq %r14
  .cfi_adjust_cfa_offset 8
  pushq %r15
  .cfi_adjust_cfa_offset 8
  subq $8, %rsp
  .cfi_adjust_cfa_offset 8
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movl (%rsp), %ecx
  movzwl 4(%rsp), %r8d
  movq %rsi, %rsp
  cmpl (%rsp), %ecx
  je 1f
  ldmxcsr (%rsp)
1:
  cmpw 4(%rsp), %r8w
  je 2f
  fldcw 4(%rsp)
2:
  addq $8, %rsp
  .cfi_adjust_cfa_offset -8
  popq %r15
  .cfi_adjust_cfa_offset -8
  popq %r14
  .cfi_adjust_cfa_offset -8
  popq %r13
  .cfi_adjust_cfa_offset -8
  popq %r12
  .cfi_adjust_cfa_offset -8
  popq %rbx
  .cfi_adjust_cfa_offset -8
  popq %rbp
  .cfi_adjust_cfa_offset -8
  movq %rdx, %rax
  ret
  .cfi_endproc
  .size roam_i_ctx_switch, .-roam_i_ctx_switch

  .globl roam_i_ctx_trampoline
  .hidden roam_i_ctx_trampoline
  .type roam_i_ctx_trampoline, @function
  .p2align 4
roam_i_ctx_trampoline:
  .cfi_startproc
  .cfi_undefined rip
  movq %rax, %rdi
  callq *%r12
  ud2
  .cfi_endproc
  .size roam_i_ctx_trampoline, .-roam_i_ctx_trampoline
)");

namespace roam::detail {

void context_make(machine_context& c, void* lo, std::size_t size, context_entry entry) noexcept {
  // The trampoline starts with rsp 16-byte aligned, so that its call leaves
  // the entry function with rsp = 8 mod 16, as the ABI says a function starts.
  auto top = (reinterpret_cast<std::uintptr_t>(lo) + size) & ~std::uintptr_t{15};
  auto* slot = reinterpret_cast<std::uint64_t*>(top);
  std::uint32_t mxcsr = 0;
  std::uint16_t fpucw = 0;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpucw));
  slot[-1] = reinterpret_cast<std::uint64_t>(&roam_i_ctx_trampoline);  // popped by ret
  slot[-2] = 0;                                                         // rbp: ends frame-pointer walks
  slot[-3] = 0;                                                         // rbx
  slot[-4] = reinterpret_cast<std::uint64_t>(entry);                    // r12: the trampoline calls it
  slot[-5] = 0;                                                         // r13
  slot[-6] = 0;                                                         // r14
  slot[-7] = 0;                                                         // r15
  slot[-8] = mxcsr | (std::uint64_t{fpucw} << 32);
  c.sp = &slot[-8];
}

}  // namespace roam::detail

#endif
