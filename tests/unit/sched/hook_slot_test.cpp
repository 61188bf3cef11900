// One-owner extension points (include/roam/sched/detail/hook_slot.hpp): the
// first owner fills a slot, the same owner may fill it again, a second owner
// is refused with an error naming the slot and both owners.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include <roam/sched/detail/hook_slot.hpp>

namespace hook_slot_test {

int answer_a() { return 1; }
int answer_b() { return 2; }
int (*g_test_slot)() = nullptr;

TEST(hook_slot, one_owner_only) {
  roam::detail::install_hook(g_test_slot, &answer_a, "g_test_slot", "layer a");
  EXPECT_EQ(g_test_slot(), 1);
  roam::detail::install_hook(g_test_slot, &answer_a, "g_test_slot", "layer a");  // the same owner again
  try {
    roam::detail::install_hook(g_test_slot, &answer_b, "g_test_slot", "layer b");
    FAIL() << "a second owner was accepted";
  } catch (const std::logic_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("g_test_slot is filled by layer a; layer b tried to fill it too"), std::string::npos) << what;
  }
  EXPECT_EQ(g_test_slot(), 1);  // untouched
}

}  // namespace hook_slot_test
