// The isomalloc range: reserved at its address or refused with a message
// naming it, slots handed out per PE from their slices and reused, pages
// opened and closed, the options, and the fault handler's message.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <roam/iso/detail/region.hpp>

#include "support/parse_options.hpp"

namespace iso_region_test {

namespace iso = roam::detail::iso;

std::string hex(std::uintptr_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%lx", static_cast<unsigned long>(v));
  return buf;
}

// Inside this build's default range (where a sanitizer lets programs map),
// 2 GiB in: no run is going, so the range is the test's.
iso::region_layout test_layout() {
  iso::region_layout l;
  l.base = iso::default_layout().base + (std::uintptr_t{2} << 30);
  l.size = std::size_t{16} << 20;
  l.slot_size = std::size_t{1} << 20;
  return l;
}

TEST(iso_region, a_range_in_use_is_refused_with_its_address) {
  const iso::region_layout l = test_layout();
  void* squatter = ::mmap(reinterpret_cast<void*>(l.base + (4 << 20)), 4096, PROT_READ,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  ASSERT_NE(squatter, MAP_FAILED);
  const std::string error = iso::reserve(l);
  ::munmap(squatter, 4096);
  EXPECT_NE(error.find("cannot reserve the range [" + hex(l.base) + ", " + hex(l.base + l.size) + ")"), std::string::npos)
      << error;
  EXPECT_NE(error.find("+isomalloc_base"), std::string::npos) << error;
  EXPECT_EQ(iso::layout().size, 0u);
  EXPECT_EQ(iso::reserve(l), "");  // free again
  EXPECT_EQ(iso::layout().slots(), 16u);
  iso::release_region();
}

TEST(iso_region, slots_come_from_each_pe_s_slice_and_are_reused) {
  ASSERT_EQ(iso::reserve(test_layout()), "");
  iso::reset_slots(4);  // 4 slots per PE
  std::string error;
  std::set<std::uint32_t> seen;
  for (std::uint32_t pe = 0; pe < 4; ++pe)
    for (int k = 0; k < 4; ++k) {
      const std::uint32_t s = iso::take_slot(pe, error);
      ASSERT_NE(s, ~0u) << error;
      EXPECT_EQ(s / 4, pe);
      EXPECT_TRUE(seen.insert(s).second);
    }
  EXPECT_EQ(iso::take_slot(2, error), ~0u);
  EXPECT_NE(error.find("pe 2 has used all 4 slots of its slice"), std::string::npos) << error;
  // A slot given back on another PE (its thread ended there) is that PE's to reuse.
  iso::give_back_slot(3, 9);
  EXPECT_EQ(iso::take_slot(3, error), 9u);
  EXPECT_FALSE(iso::adopt_slot(0, 9)) << "in use";
  iso::release_region();
}

TEST(iso_region, an_adopted_slot_is_skipped_by_its_slice) {
  ASSERT_EQ(iso::reserve(test_layout()), "");
  iso::reset_slots(2);  // 8 slots per PE
  EXPECT_TRUE(iso::adopt_slot(1, 8));  // restored onto pe 1, in pe 1's own slice
  EXPECT_TRUE(iso::adopt_slot(0, 9));  // arrived on pe 0 from pe 1's slice
  std::string error;
  EXPECT_EQ(iso::take_slot(1, error), 10u);
  iso::release_region();
}

// After a restart, the slots restored threads hold in any process are
// skipped by every slice, even once their thread left the process that
// restored it; the one restored here is reused when its thread ends here.
TEST(iso_region, slots_restored_anywhere_are_skipped_by_the_slices) {
  ASSERT_EQ(iso::reserve(test_layout()), "");
  iso::reset_slots(2);  // 8 slots per PE
  EXPECT_TRUE(iso::adopt_slot(0, 0));  // restored here
  iso::mark_slots_restored({0, 1, 2, 9});  // 1, 2 and 9: restored in other processes
  EXPECT_EQ(iso::live_slots(), (std::vector<std::uint32_t>{0}));
  iso::leave_slot(0, 0, "a thread that moved away");
  std::string error;
  EXPECT_EQ(iso::take_slot(0, error), 3u);
  EXPECT_EQ(iso::take_slot(1, error), 8u);
  EXPECT_EQ(iso::take_slot(1, error), 10u);
  EXPECT_TRUE(iso::adopt_slot(0, 1));  // the thread of slot 1 arrives and ends here
  iso::give_back_slot(0, 1);
  EXPECT_EQ(iso::take_slot(0, error), 1u);
  iso::release_region();
}

TEST(iso_region, pages_open_and_close) {
  ASSERT_EQ(iso::reserve(test_layout()), "");
  iso::reset_slots(1);
  std::string error;
  const std::uint32_t s = iso::take_slot(0, error);
  const std::uintptr_t at = iso::layout().slot_address(s);
  ASSERT_TRUE(iso::open_pages(at, 8192, error)) << error;
  *reinterpret_cast<int*>(at + 4096) = 42;
  EXPECT_EQ(*reinterpret_cast<int*>(at + 4096), 42);
  iso::close_pages(at, 8192);
  ASSERT_TRUE(iso::open_pages(at, 8192, error)) << error;
  EXPECT_EQ(*reinterpret_cast<int*>(at + 4096), 0) << "closed pages are dropped";
  EXPECT_EQ(iso::layout().slot_of(at + 5), s);
  EXPECT_EQ(iso::layout().slot_of(at - 1), ~0u);
  iso::release_region();
}

TEST(iso_region, options) {
  auto r = roam_test::parse_options({"+isomalloc_base", "0x300000000000", "+isomalloc_size", "2G", "+isomalloc_slot=1M"});
  ASSERT_TRUE(r.error.empty()) << r.error;
  r = roam_test::parse_options({"+isomalloc_base", "12345"});
  EXPECT_NE(r.error.find("'12345' is not a multiple of the page size"), std::string::npos) << r.error;
  r = roam_test::parse_options({"+isomalloc_base", "0xzz"});
  EXPECT_NE(r.error.find("is not an address"), std::string::npos) << r.error;
  const std::string help = roam::detail::options_help();
  EXPECT_NE(help.find("isomalloc: migratable threads' memory (src/iso):\n  +isomalloc_base ADDR"), std::string::npos);
  ASSERT_TRUE(roam_test::parse_options({}).error.empty());
}

TEST(iso_region_death, a_stale_pointer_into_a_slot_names_the_slot_and_its_owner) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        if (!iso::reserve(test_layout()).empty()) std::abort();
        iso::reset_slots(1);
        std::string error;
        const std::uint32_t s = iso::take_slot(0, error);
        const std::uintptr_t at = iso::layout().slot_address(s);
        iso::open_pages(at, 4096, error);
        iso::describe_slot_owner(s, "array worker[3], moved to pe 1");
        iso::close_pages(at, 4096);  // as when its thread left
        *reinterpret_cast<volatile int*>(at + 16) = 1;
      },
      "access to " + hex(test_layout().base + 16) + " in isomalloc slot 0 \\[" + hex(test_layout().base) + ", " +
          hex(test_layout().base + (1 << 20)) + "\\), which is not open here: array worker\\[3\\], moved to pe 1");
}

}  // namespace iso_region_test
