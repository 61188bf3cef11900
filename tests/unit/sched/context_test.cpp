// The raw context switch (src/sched/context.hpp) and the stack pool, without a runtime.
#include <gtest/gtest.h>

#include <cfenv>
#include <csignal>
#include <cstdint>
#include <cstring>

#include "context.hpp"
#include "stack_pool.hpp"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace context_test {

using namespace roam::detail;

namespace {

machine_context g_main;
machine_context g_other;
int g_rounds = 0;

void back_to_main() { context_switch(g_other, g_main, nullptr); }

}  // namespace

#if defined(__x86_64__)
extern "C" {
// Loads sentinels into every callee-saved register (rbx, rbp, r12-r15), calls
// fn, and returns a bit per register that no longer holds its sentinel.
unsigned roam_test_callee_saved_survive(void (*fn)());
// Fills every callee-saved register with garbage and calls fn (restoring its
// caller's registers before returning, as the ABI requires).
void roam_test_trash_callee_saved_then(void (*fn)());
}

asm(R"(
  .text
  .globl roam_test_callee_saved_survive
  .type roam_test_callee_saved_survive, @function
roam_test_callee_saved_survive:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  movabsq $0x1111111111111111, %rbx
  movabsq $0x2222222222222222, %rbp
  movabsq $0x3333333333333333, %r12
  movabsq $0x4444444444444444, %r13
  movabsq $0x5555555555555555, %r14
  movabsq $0x6666666666666666, %r15
  callq *%rdi
  xorl %eax, %eax
  movabsq $0x1111111111111111, %rcx
  cmpq %rcx, %rbx
  je 1f
  orl $1, %eax
1:
  movabsq $0x2222222222222222, %rcx
  cmpq %rcx, %rbp
  je 2f
  orl $2, %eax
2:
  movabsq $0x3333333333333333, %rcx
  cmpq %rcx, %r12
  je 3f
  orl $4, %eax
3:
  movabsq $0x4444444444444444, %rcx
  cmpq %rcx, %r13
  je 4f
  orl $8, %eax
4:
  movabsq $0x5555555555555555, %rcx
  cmpq %rcx, %r14
  je 5f
  orl $16, %eax
5:
  movabsq $0x6666666666666666, %rcx
  cmpq %rcx, %r15
  je 6f
  orl $32, %eax
6:
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size roam_test_callee_saved_survive, .-roam_test_callee_saved_survive

  .globl roam_test_trash_callee_saved_then
  .type roam_test_trash_callee_saved_then, @function
roam_test_trash_callee_saved_then:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  movq $-1, %rbx
  movq $-2, %rbp
  movq $-3, %r12
  movq $-4, %r13
  movq $-5, %r14
  movq $-6, %r15
  callq *%rdi
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size roam_test_trash_callee_saved_then, .-roam_test_trash_callee_saved_then
)");

namespace {

// The other context: each time it runs, it trashes every callee-saved register and switches back.
void trashing_entry(void*) noexcept {
  for (;;) {
    ++g_rounds;
    roam_test_trash_callee_saved_then(&back_to_main);
  }
}

void round_trip() { context_switch(g_main, g_other, nullptr); }

}  // namespace

TEST(context_switch, callee_saved_registers_survive_a_round_trip_through_code_that_trashes_them) {
  stack_pool pool(64 * 1024, 1);
  ult_stack s = pool.take();
  context_make(g_other, s.lo, s.size, &trashing_entry);
  g_rounds = 0;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(roam_test_callee_saved_survive(&round_trip), 0u) << "bit mask rbx,rbp,r12..r15";
  EXPECT_EQ(g_rounds, 3);
  pool.give(s);
}

namespace {
std::uint32_t mxcsr_rounding() { return _mm_getcsr() & 0x6000u; }
int g_fp_failures = 0;
void fp_entry(void*) noexcept {
  // Inherited from the context that made it.
  if (std::fegetround() != FE_TOWARDZERO || mxcsr_rounding() != _MM_ROUND_TOWARD_ZERO) ++g_fp_failures;
  std::fesetround(FE_UPWARD);  // sets both the x87 control word and the MXCSR
  volatile double third = 1.0 / 3.0;
  context_switch(g_other, g_main, nullptr);
  // Ours again, whatever the other context did meanwhile.
  if (std::fegetround() != FE_UPWARD || mxcsr_rounding() != _MM_ROUND_UP) ++g_fp_failures;
  volatile double again = 1.0 / 3.0;
  if (again != third) ++g_fp_failures;
  context_switch(g_other, g_main, nullptr);
  __builtin_trap();
}
}  // namespace

TEST(context_switch, each_context_keeps_its_own_floating_point_rounding_mode) {
  stack_pool pool(64 * 1024, 1);
  ult_stack s = pool.take();
  g_fp_failures = 0;
  std::fesetround(FE_TOWARDZERO);
  context_make(g_other, s.lo, s.size, &fp_entry);
  context_switch(g_main, g_other, nullptr);
  int main_round = std::fegetround();
  std::uint32_t main_mxcsr = mxcsr_rounding();
  std::fesetround(FE_DOWNWARD);
  context_switch(g_main, g_other, nullptr);
  int main_round_after = std::fegetround();
  std::fesetround(FE_TONEAREST);
  EXPECT_EQ(main_round, FE_TOWARDZERO) << "the other context's FE_UPWARD leaked into this one";
  EXPECT_EQ(main_mxcsr, static_cast<std::uint32_t>(_MM_ROUND_TOWARD_ZERO));
  EXPECT_EQ(main_round_after, FE_DOWNWARD);
  EXPECT_EQ(g_fp_failures, 0);
  pool.give(s);
}
#endif  // __x86_64__

namespace {
void* g_received = nullptr;
void echo_entry(void* transfer) noexcept {
  g_received = transfer;
  void* next = context_switch(g_other, g_main, static_cast<char*>(transfer) + 1);
  g_received = next;
  context_switch(g_other, g_main, nullptr);
  __builtin_trap();
}
}  // namespace

TEST(context_switch, passes_a_value_each_way) {
  stack_pool pool(64 * 1024, 1);
  ult_stack s = pool.take();
  context_make(g_other, s.lo, s.size, &echo_entry);
  char buf[4];
  void* back = context_switch(g_main, g_other, buf);
  EXPECT_EQ(g_received, buf);
  EXPECT_EQ(back, buf + 1);
  context_switch(g_main, g_other, buf + 2);
  EXPECT_EQ(g_received, buf + 2);
  pool.give(s);
}

TEST(stack_pool, reuses_given_back_stacks_and_unmaps_beyond_its_cap) {
  stack_pool pool(20000, 2);
  EXPECT_EQ(pool.stack_size() % stack_pool::page_size(), 0u);
  EXPECT_GE(pool.stack_size(), 20000u);
  ult_stack a = pool.take();
  std::memset(a.lo, 0xab, a.size);  // the whole usable range is writable
  pool.give(a);
  ult_stack b = pool.take();
  EXPECT_EQ(a.lo, b.lo) << "a given-back stack is reused";
  ult_stack c = pool.take(), d = pool.take();
  EXPECT_EQ(pool.mapped(), 3u);
  EXPECT_EQ(pool.mapped_total(), 3u);
  pool.give(b);
  pool.give(c);
  pool.give(d);  // above the cap of 2: unmapped
  EXPECT_EQ(pool.cached(), 2u);
  EXPECT_EQ(pool.mapped(), 2u);
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST(stack_pool_death, writing_below_a_stack_hits_its_guard_page) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        stack_pool pool(16384, 1);
        ult_stack s = pool.take();
        volatile std::byte* below = s.lo - 1;
        *below = std::byte{1};
      },
      testing::KilledBySignal(SIGSEGV), "");
}
#endif

}  // namespace context_test
