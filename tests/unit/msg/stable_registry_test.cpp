// The stable-id registry template: the same thing registered twice is one
// entry; two different things under one id are a collision that the start-up
// report names (registry, id, both names), and the first stays.
#include <gtest/gtest.h>

#include <string>

#include <roam/msg/detail/stable_registry.hpp>

namespace stable_registry_test {

namespace {

using roam::detail::registry_collision_report;
using roam::detail::stable_registry;

TEST(stable_registry, the_same_value_twice_is_not_a_collision) {
  static const int thing = 0;
  stable_registry<const int*> r("test thing");
  EXPECT_TRUE(r.add(42, &thing, "thing"));
  EXPECT_TRUE(r.add(42, &thing, "thing"));
  EXPECT_TRUE(r.collisions().empty());
  EXPECT_EQ(r.find(42), &thing);
  EXPECT_EQ(r.find(7), nullptr);
  EXPECT_EQ(registry_collision_report(), "");
}

TEST(stable_registry, a_collision_keeps_the_first_and_is_reported_with_both_names) {
  static const int first = 0, second = 0;
  {
    stable_registry<const int*> r("test thing");
    r.add(0xabc, &first, "first_thing");
    r.add(0xabc, &second, "second_thing");
    EXPECT_EQ(r.find(0xabc), &first);
    ASSERT_EQ(r.collisions().size(), 1u);
    EXPECT_EQ(r.collisions()[0], "test thing id 0x0000000000000abc: 'first_thing' and 'second_thing'");
    const std::string report = registry_collision_report();
    EXPECT_NE(report.find("identifier collision"), std::string::npos) << report;
    EXPECT_NE(report.find("test thing id 0x0000000000000abc: 'first_thing' and 'second_thing'"), std::string::npos)
        << report;
  }
  EXPECT_EQ(registry_collision_report(), "") << "a destroyed registry leaves the list";
}

TEST(stable_registry, values_compare_by_equality_and_names_come_back) {
  stable_registry<std::string_view> r("test name");
  r.add(1, "alpha", "alpha");
  r.add(1, std::string_view(std::string("alpha")), "alpha");  // equal content, another buffer: the same
  EXPECT_TRUE(r.collisions().empty());
  std::string_view v;
  std::string name;
  ASSERT_TRUE(r.find(1, v, name));
  EXPECT_EQ(v, "alpha");
  EXPECT_EQ(name, "alpha");
  EXPECT_FALSE(r.find(2, v, name));
  int seen = 0;
  r.for_each([&](std::uint64_t id, std::string_view value, std::string_view) {
    EXPECT_EQ(id, 1u);
    EXPECT_EQ(value, "alpha");
    ++seen;
  });
  EXPECT_EQ(seen, 1);
}

}  // namespace

}  // namespace stable_registry_test
