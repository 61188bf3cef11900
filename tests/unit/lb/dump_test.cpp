// Load balancing dumps: exact round trips, and every kind of damage reported
// as a std::runtime_error that names the file and the fault, never a crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/lb/dump.hpp>

namespace dump_test {

namespace {

using namespace roam::lb;

problem sample(std::uint32_t step) {
  problem p;
  p.step = step;
  p.seed = 0x0123456789abcdefull + step;
  p.pes.resize(3);
  p.pes[0].background = 0.125;
  p.pes[1].idle = 1e-300;
  p.pes[1].speed = 2.5;
  p.pes[2].available = false;
  p.pes[2].group = 0xfffffffeu;
  for (std::uint32_t i = 0; i < 4; ++i) {
    object_load o;
    o.key = 0xfedcba9876543210ull - i;
    o.load = 0.1 * (i + 1) / 3.0;
    o.pe = i % 3;
    o.migratable = i != 2;
    p.objects.push_back(o);
  }
  p.edges.push_back({0, 3, 17, 1ull << 40});
  p.edges.push_back({2, 1, 0, 9});
  return p;
}

void expect_same(const problem& a, const problem& b) {
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.seed, b.seed);
  ASSERT_EQ(a.pes.size(), b.pes.size());
  for (std::size_t i = 0; i < a.pes.size(); ++i) {
    EXPECT_EQ(a.pes[i].background, b.pes[i].background);
    EXPECT_EQ(a.pes[i].idle, b.pes[i].idle);
    EXPECT_EQ(a.pes[i].speed, b.pes[i].speed);
    EXPECT_EQ(a.pes[i].available, b.pes[i].available);
    EXPECT_EQ(a.pes[i].group, b.pes[i].group);
  }
  ASSERT_EQ(a.objects.size(), b.objects.size());
  for (std::size_t i = 0; i < a.objects.size(); ++i) {
    EXPECT_EQ(a.objects[i].key, b.objects[i].key);
    EXPECT_EQ(a.objects[i].load, b.objects[i].load);
    EXPECT_EQ(a.objects[i].pe, b.objects[i].pe);
    EXPECT_EQ(a.objects[i].migratable, b.objects[i].migratable);
  }
  ASSERT_EQ(a.edges.size(), b.edges.size());
  for (std::size_t i = 0; i < a.edges.size(); ++i) {
    EXPECT_EQ(a.edges[i].from, b.edges[i].from);
    EXPECT_EQ(a.edges[i].to, b.edges[i].to);
    EXPECT_EQ(a.edges[i].messages, b.edges[i].messages);
    EXPECT_EQ(a.edges[i].bytes, b.edges[i].bytes);
  }
}

class lb_dump : public ::testing::Test {
 protected:
  std::string path_ = (std::filesystem::temp_directory_path() /
                       ("roam_lb_dump_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                        ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".lbdump"))
                          .string();
  void TearDown() override { std::filesystem::remove(path_); }

  /// A dump of two steps, the second with a recorded decision, as bytes.
  std::vector<unsigned char> two_steps() {
    {
      dump_writer w(path_);
      w.append(sample(0));
      const assignment decided{{1, 1, 2, 0}};
      w.append(sample(1), "GreedyRefine", &decided);
    }
    return bytes();
  }
  std::vector<unsigned char> bytes() {
    std::ifstream in(path_, std::ios::binary);
    return std::vector<unsigned char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  std::string error_of(const std::vector<unsigned char>& b) {
    try {
      parse_dump(b, "test.lbdump");
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "(no error)";
  }
};

TEST_F(lb_dump, steps_round_trip_exactly) {
  two_steps();
  const std::vector<dump_step> steps = read_dump_steps(path_);
  ASSERT_EQ(steps.size(), 2u);
  expect_same(steps[0].p, sample(0));
  expect_same(steps[1].p, sample(1));
  EXPECT_EQ(steps[0].strategy, "");
  EXPECT_FALSE(steps[0].decided.has_value());
  EXPECT_EQ(steps[1].strategy, "GreedyRefine");
  ASSERT_TRUE(steps[1].decided.has_value());
  EXPECT_EQ(steps[1].decided->pe, (std::vector<std::uint32_t>{1, 1, 2, 0}));
  const std::vector<problem> problems = read_dump(path_);
  ASSERT_EQ(problems.size(), 2u);
  expect_same(problems[1], sample(1));
}

TEST_F(lb_dump, appending_by_path_creates_the_header_once_and_refuses_foreign_files) {
  append_dump_step(path_, sample(0));
  append_dump_step(path_, sample(1), "Greedy");
  const std::vector<dump_step> steps = read_dump_steps(path_);
  ASSERT_EQ(steps.size(), 2u);
  expect_same(steps[1].p, sample(1));
  EXPECT_EQ(steps[1].strategy, "Greedy");
  {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out << "not a dump at all";
  }
  try {
    append_dump_step(path_, sample(0));
    FAIL() << "appended to a foreign file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path_), std::string::npos) << e.what();
  }
}

TEST_F(lb_dump, a_header_alone_is_an_empty_dump) {
  { dump_writer w(path_); }
  EXPECT_TRUE(read_dump(path_).empty());
}

TEST_F(lb_dump, a_missing_file_is_named) {
  try {
    read_dump(path_ + ".missing");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path_ + ".missing"), std::string::npos) << e.what();
  }
}

TEST_F(lb_dump, a_wrong_magic_or_version_is_reported) {
  std::vector<unsigned char> b = two_steps();
  std::vector<unsigned char> bad = b;
  bad[0] = 'X';
  EXPECT_NE(error_of(bad).find("test.lbdump: bad magic"), std::string::npos) << error_of(bad);
  bad = b;
  bad[8] = 2;
  EXPECT_NE(error_of(bad).find("version 2 is not supported"), std::string::npos) << error_of(bad);
}

TEST_F(lb_dump, every_flipped_byte_is_an_error) {
  const std::vector<unsigned char> b = two_steps();
  for (std::size_t i = 0; i < b.size(); ++i) {
    std::vector<unsigned char> bad = b;
    bad[i] ^= 0x20;
    EXPECT_THROW(parse_dump(bad, "test.lbdump"), std::runtime_error) << "byte " << i;
  }
  // A flipped byte inside the second step's payload: its checksum says so.
  std::vector<unsigned char> bad = b;
  bad[b.size() - 10] ^= 1;
  EXPECT_NE(error_of(bad).find("checksum mismatch in step 1"), std::string::npos) << error_of(bad);
}

TEST_F(lb_dump, every_cut_is_an_error_except_between_steps) {
  const std::vector<unsigned char> b = two_steps();
  const std::size_t second_step = 16 + [&] {
    // The first step's record length: its header, payload and checksum.
    std::uint64_t payload = 0;
    for (int k = 0; k < 8; ++k) payload |= static_cast<std::uint64_t>(b[16 + 4 + k]) << (8 * k);
    return 12 + payload + 4;
  }();
  for (std::size_t cut = 0; cut < b.size(); ++cut) {
    const std::vector<unsigned char> part(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(cut));
    if (cut == 16 || cut == second_step) {
      EXPECT_EQ(parse_dump(part, "test.lbdump").size(), cut == 16 ? 0u : 1u) << "cut " << cut;
      continue;
    }
    const std::string error = error_of(part);
    EXPECT_NE(error.find("truncated at byte " + std::to_string(cut)), std::string::npos) << "cut " << cut << ": " << error;
    EXPECT_NE(error.find("test.lbdump"), std::string::npos) << error;
  }
}

/// CRC-32 as the format defines it, to forge steps whose only fault is a count.
std::uint32_t crc32(const unsigned char* data, std::size_t size) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < size; ++i) {
    c ^= data[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFu;
}

void put_u64(std::vector<unsigned char>& b, std::size_t at, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) b[at + k] = static_cast<unsigned char>(v >> (8 * k));
}
void put_u32(std::vector<unsigned char>& b, std::size_t at, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) b[at + k] = static_cast<unsigned char>(v >> (8 * k));
}

TEST_F(lb_dump, absurd_counts_are_errors_not_allocations) {
  {
    dump_writer w(path_);
    w.append(sample(0));
  }
  const std::vector<unsigned char> b = bytes();
  const std::size_t payload_at = 16 + 12;
  const std::size_t payload = b.size() - payload_at - 4;
  const auto forged = [&](std::size_t field, std::uint64_t value, int width) {
    std::vector<unsigned char> bad = b;
    if (width == 8) put_u64(bad, payload_at + field, value);
    else put_u32(bad, payload_at + field, static_cast<std::uint32_t>(value));
    put_u32(bad, payload_at + payload, crc32(bad.data() + 16 + 4, 8 + payload));
    return bad;
  };
  // Payload: step u32 @0, seed u64 @4, pes u32 @12, objects u64 @16, edges u64 @24, name length u32 @32.
  std::string e = error_of(forged(12, 0xffffffffu, 4));
  EXPECT_NE(e.find("4294967295 PEs need"), std::string::npos) << e;
  e = error_of(forged(16, std::numeric_limits<std::uint64_t>::max(), 8));
  EXPECT_NE(e.find("objects need"), std::string::npos) << e;
  e = error_of(forged(24, 1ull << 62, 8));
  EXPECT_NE(e.find("edges need"), std::string::npos) << e;
  e = error_of(forged(32, 0xfffffff0u, 4));
  EXPECT_NE(e.find("strategy name"), std::string::npos) << e;
  e = error_of(forged(24, 0, 8));  // fewer edges than the bytes hold
  EXPECT_NE(e.find("left over"), std::string::npos) << e;
  // A huge payload length: truncated, whatever the checksum.
  std::vector<unsigned char> bad = b;
  put_u64(bad, 16 + 4, std::numeric_limits<std::uint64_t>::max());
  e = error_of(bad);
  EXPECT_NE(e.find("step 0: truncated"), std::string::npos) << e;
  for (std::uint64_t huge : {std::numeric_limits<std::uint64_t>::max() - 3, std::numeric_limits<std::uint64_t>::max() - 15}) {
    put_u64(bad, 16 + 4, huge);
    EXPECT_THROW(parse_dump(bad, "x"), std::runtime_error);
  }
}

TEST_F(lb_dump, a_recorded_assignment_must_place_every_object) {
  dump_writer w(path_);
  const assignment short_one{{0}};
  EXPECT_THROW(w.append(sample(0), "Greedy", &short_one), std::invalid_argument);
}

}  // namespace

}  // namespace dump_test
