// memory_store: which in-memory checkpoint a recovery chooses from what the
// survivors hold, who gives which part, and installing it whole (checked).
#include "memory_store.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace memory_store_test {

namespace {

namespace ckpt = roam::detail::ckpt;
using bytes = std::vector<std::byte>;

constexpr std::uint64_t this_program = 0x5EEDF00Dull;
constexpr std::uint32_t processes = 3;

// A real in-memory data file of process `p` of checkpoint `number` (one
// record), laid out in place as checkpoint_in_memory does.
std::shared_ptr<const ckpt::byte_region> data_file(std::uint64_t number, std::uint32_t p, ckpt::file_entry& entry) {
  const ckpt::file_identity id{this_program, number, processes, processes};
  const std::string meta = "object of process " + std::to_string(p);
  const std::string state = "state " + std::to_string(number * 10 + p);
  const std::uint64_t length = ckpt::record_length(meta.size(), state.size());
  bytes file(ckpt::data_file_length(length));
  ckpt::record_writer out{std::span(file).subspan(ckpt::first_record_offset(), length)};
  const std::span<std::byte> at = out.begin_record(std::as_bytes(std::span(meta)), state.size());
  std::memcpy(at.data(), state.data(), state.size());
  out.end_record();
  entry = ckpt::seal_data_file(file, id, p, out.records(), out.crc());
  return ckpt::region_of(std::move(file));
}

// Process `me` of a 3-process job after checkpoint `number`: its own file and
// its buddy copy (of process me-1), committed when `commit`.
struct checkpoint_parts {
  std::vector<std::shared_ptr<const ckpt::byte_region>> files;
  std::shared_ptr<const ckpt::byte_region> manifest;
};
checkpoint_parts make_checkpoint(std::uint64_t number) {
  checkpoint_parts c;
  std::vector<ckpt::file_entry> entries(processes);
  for (std::uint32_t p = 0; p < processes; ++p) c.files.push_back(data_file(number, p, entries[p]));
  const ckpt::file_identity id{this_program, number, processes, processes};
  c.manifest = ckpt::region_of(ckpt::manifest_bytes(id, {}, entries));
  return c;
}
void hold(ckpt::memory_store& s, std::uint32_t me, std::uint64_t number, const checkpoint_parts& c, bool commit) {
  s.add_file(number, processes, processes, me, c.files[me]);
  const std::uint32_t buddy_of = (me + processes - 1) % processes;
  s.add_file(number, processes, processes, buddy_of, c.files[buddy_of]);
  if (commit) s.commit(number, c.manifest);
}

TEST(memory_store, a_recovery_takes_the_newest_checkpoint_the_survivors_hold_whole) {
  const auto one = make_checkpoint(1), two = make_checkpoint(2);
  // Process 0 died. Checkpoint 2 was committed at process 1 only (PE 0 died
  // while sending the commits); process 2 still has 1 committed and 2's files.
  ckpt::memory_store p1, p2;
  hold(p1, 1, 1, one, true);
  hold(p1, 1, 2, two, true);
  hold(p2, 2, 1, one, true);
  hold(p2, 2, 2, two, false);
  const std::vector<bytes> inventories{p1.inventory(), p2.inventory()};
  bytes c1, c2;
  std::string error;
  ASSERT_TRUE(p1.plan(inventories, 0, c1, error)) << error;
  ASSERT_TRUE(p2.plan(inventories, 1, c2, error)) << error;
  // Both chose 2 (process 0's file survives as process 1's buddy copy).
  ckpt::memory_store fresh1, fresh2;
  ASSERT_TRUE(fresh1.install({c1, c2}, this_program, error)) << error;
  ASSERT_TRUE(fresh2.install({c1, c2}, this_program, error)) << error;
  ASSERT_NE(fresh1.installed(), nullptr);
  EXPECT_EQ(fresh1.installed()->identity().number, 2u);
  EXPECT_EQ(fresh1.installed()->records().size(), 3u);
  EXPECT_EQ(fresh2.installed()->identity().number, 2u);
}

TEST(memory_store, a_checkpoint_missing_a_file_is_passed_over_for_the_one_before) {
  const auto one = make_checkpoint(1), two = make_checkpoint(2);
  // Survivor x committed checkpoint 2 but holds only files 1 and 2 of it;
  // process 0's file died with processes 0 and its buddy. Survivor y holds
  // checkpoint 1 whole (it got no commit of 2).
  ckpt::memory_store x, y;
  hold(x, 2, 2, two, true);
  for (std::uint32_t p = 0; p < processes; ++p) y.add_file(1, processes, processes, p, one.files[p]);
  y.commit(1, one.manifest);
  const std::vector<bytes> inventories{x.inventory(), y.inventory()};
  bytes cx, cy;
  std::string error;
  ASSERT_TRUE(x.plan(inventories, 0, cx, error)) << error;
  ASSERT_TRUE(y.plan(inventories, 1, cy, error)) << error;
  ckpt::memory_store fresh;
  ASSERT_TRUE(fresh.install({cx, cy}, this_program, error)) << error;
  EXPECT_EQ(fresh.installed()->identity().number, 1u);
}

TEST(memory_store, nothing_whole_is_refused_with_the_reason) {
  const auto two = make_checkpoint(2);
  ckpt::memory_store s;
  hold(s, 2, 2, two, true);  // files 1 and 2 only
  bytes c;
  std::string error;
  EXPECT_FALSE(s.plan({s.inventory()}, 0, c, error));
  EXPECT_NE(error.find("no complete in-memory checkpoint survived"), std::string::npos) << error;
}

TEST(memory_store, no_checkpoint_at_all_is_said_plainly) {
  ckpt::memory_store s;
  bytes c;
  std::string error;
  EXPECT_FALSE(s.plan({s.inventory()}, 0, c, error));
  EXPECT_NE(error.find("no in-memory checkpoint was completed"), std::string::npos) << error;
}

TEST(memory_store, a_commit_drops_only_older_checkpoints) {
  const auto one = make_checkpoint(1), two = make_checkpoint(2);
  ckpt::memory_store s;
  hold(s, 1, 1, one, true);
  const std::uint64_t after_one = s.bytes();
  hold(s, 1, 2, two, false);
  EXPECT_GT(s.bytes(), after_one);  // both held while 2 is being taken
  s.commit(2, two.manifest);
  // Only checkpoint 2 is left: its two files and its manifest.
  EXPECT_EQ(s.bytes(), two.files[1]->bytes().size() + two.files[0]->bytes().size() + two.manifest->bytes().size());
}

TEST(memory_store, a_corrupt_contribution_is_refused_by_the_checks) {
  const auto one = make_checkpoint(1);
  ckpt::memory_store s;
  hold(s, 0, 1, one, true);
  hold(s, 1, 1, one, false);  // the third file as a buddy copy too
  s.add_file(1, processes, processes, 2, one.files[2]);
  bytes c;
  std::string error;
  ASSERT_TRUE(s.plan({s.inventory()}, 0, c, error)) << error;
  c[c.size() - 20] ^= std::byte{0x40};  // a byte of the last data file's footer region
  ckpt::memory_store fresh;
  EXPECT_FALSE(fresh.install({c}, this_program, error));
  EXPECT_NE(error.find("memory/ckpt-1"), std::string::npos) << error;
  EXPECT_EQ(fresh.installed(), nullptr);
}

}  // namespace

}  // namespace memory_store_test
