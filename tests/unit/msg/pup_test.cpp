#include <roam/msg/pup.hpp>

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace pup_test {

namespace {

// --- user types exercising each way of opting in ---------------------------

struct point {
  int x = 0;
  int y = 0;
  void pup(roam::pup_er& p) { p | x | y; }
  bool operator==(const point&) const = default;
};

struct templated_pup {
  std::string label;
  std::vector<point> path;
  template <class P>
  void pup(P& p) {
    p | label | path;
  }
  bool operator==(const templated_pup&) const = default;
};

namespace geo {
// A free pup found by argument-dependent lookup.
struct segment {
  double from = 0;
  double to = 0;
  bool operator==(const segment&) const = default;
};
void pup(roam::pup_er& p, segment& s) { p | s.from | s.to; }
}  // namespace geo


struct pod {
  std::int32_t a;
  float b;
  std::uint16_t c[3];
  // Member-wise: the 2 padding bytes need not survive a copy of the object
  // (an optimised return may copy members only), so comparing them is noise.
  bool operator==(const pod& o) const {
    return a == o.a && b == o.b && std::memcmp(c, o.c, sizeof c) == 0;
  }
};

}  // namespace
}  // namespace pup_test

// Outside the file's namespace: a specialisation goes where its template may be defined.
template <>
inline constexpr bool roam::bitwise_serializable<pup_test::pod> = true;

namespace pup_test {

namespace {

struct leaf {
  int id = 0;
  std::string name;
  std::vector<double> weights;
  void pup(roam::pup_er& p) { p | id | name | weights; }
  bool operator==(const leaf&) const = default;
};

// The nested case the runtime relies on: containers of user types, optional,
// variant and unique_ptr inside one user type.
struct record {
  std::map<std::string, std::vector<leaf>> groups;
  std::optional<leaf> best;
  std::variant<std::monostate, int, std::string, leaf> tag;
  std::unique_ptr<leaf> extra;
  std::set<int> ids;
  std::array<point, 2> corners;
  std::int16_t raw[4] = {};

  template <class P>
  void pup(P& p) {
    p | groups | best | tag | extra | ids | corners | raw;
  }

  friend bool operator==(const record& l, const record& r) {
    const bool extras_equal = (l.extra == nullptr) == (r.extra == nullptr) && (!l.extra || *l.extra == *r.extra);
    return l.groups == r.groups && l.best == r.best && l.tag == r.tag && extras_equal && l.ids == r.ids &&
           l.corners == r.corners && std::equal(std::begin(l.raw), std::end(l.raw), std::begin(r.raw));
  }
};

record sample_record() {
  record r;
  r.groups["alpha"] = {leaf{1, "one", {1.5, -2.25}}, leaf{2, "two", {}}};
  r.groups["beta"] = {};
  r.groups[""] = {leaf{3, std::string("nul\0inside", 10), {0.0}}};
  r.best = leaf{9, "best", {3.0, 4.0, 5.0}};
  r.tag = leaf{4, "tagged", {7.0}};
  r.extra = std::make_unique<leaf>(leaf{5, "extra", {8.0, 9.0}});
  r.ids = {-3, 0, 42};
  r.corners = {point{1, 2}, point{-3, 4}};
  r.raw[0] = -1;
  r.raw[3] = 1234;
  return r;
}

// A recursive type: depth is bounded only by pup_er::max_nesting_depth.
struct tree {
  int value = 0;
  std::vector<tree> children;
  void pup(roam::pup_er& p) { p | value | children; }
  bool operator==(const tree&) const = default;
};

struct chain {
  int value = 0;
  std::unique_ptr<chain> next;
  void pup(roam::pup_er& p) { p | value | next; }
  ~chain() {
    // Unlink iteratively so long chains cannot overflow the stack here.
    while (next) next = std::move(next->next);
  }
  chain() = default;
  chain(chain&&) = default;
  chain& operator=(chain&&) = default;
};

std::unique_ptr<chain> make_chain(int length) {
  std::unique_ptr<chain> head;
  for (int i = 0; i < length; ++i) {
    auto node = std::make_unique<chain>();
    node->value = i;
    node->next = std::move(head);
    head = std::move(node);
  }
  return head;
}

struct nothing {
  void pup(roam::pup_er&) {}
  bool operator==(const nothing&) const = default;
};

enum class color : std::uint8_t { red = 1, green = 2, blue = 200 };
enum legacy : std::int32_t { legacy_a = -7, legacy_b = 1 << 20 };

// --- helpers ---------------------------------------------------------------

// Packs, checks the sizing pass and pack_into agree with pack, and unpacks.
template <class T>
T round_trip(const T& value) {
  const std::vector<std::byte> bytes = roam::pack(value);
  EXPECT_EQ(roam::packed_size(value), bytes.size());
  std::vector<std::byte> exact(bytes.size());
  EXPECT_EQ(roam::pack_into(exact, value), bytes.size());
  EXPECT_EQ(exact, bytes);
  if (!bytes.empty()) {
    std::vector<std::byte> short_by_one(bytes.size() - 1);
    EXPECT_THROW(roam::pack_into(short_by_one, value), roam::pup_error);
  }
  return roam::unpack<T>(bytes);
}

template <class T>
void expect_round_trip(const T& value) {
  EXPECT_EQ(round_trip(value), value);
}

template <class T>
std::vector<std::byte> bytes_of(const T& v) {
  std::vector<std::byte> out(sizeof(T));
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

std::vector<std::byte> concat(std::initializer_list<std::vector<std::byte>> parts) {
  std::vector<std::byte> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

template <class... T>
void expect_scalars_round_trip() {
  (
      [] {
        using lim = std::numeric_limits<T>;
        for (T v : {T{}, lim::min(), lim::max(), lim::lowest(), static_cast<T>(1)}) {
          const auto bytes = roam::pack(v);
          EXPECT_EQ(roam::packed_size(v), sizeof(T));
          EXPECT_EQ(bytes.size(), sizeof(T));
          EXPECT_EQ(bytes, bytes_of(v));
          EXPECT_EQ(roam::unpack<T>(bytes), v);
        }
      }(),
      ...);
}

}  // namespace

// --- scalars -----------------------------------------------------------------

TEST(pup, round_trips_every_arithmetic_type_in_native_layout) {
  expect_scalars_round_trip<char, signed char, unsigned char, wchar_t, char8_t, char16_t, char32_t, short,
                            unsigned short, int, unsigned, long, unsigned long, long long, unsigned long long,
                            float, double>();
  expect_round_trip(static_cast<long double>(-3.25));
}

TEST(pup, keeps_floating_point_bits_exactly) {
  const double values[] = {std::numeric_limits<double>::quiet_NaN(), -0.0, std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::denorm_min()};
  for (double v : values) {
    const double back = round_trip(v);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back), std::bit_cast<std::uint64_t>(v));
  }
}

TEST(pup, packs_bool_as_one_byte) {
  EXPECT_EQ(roam::pack(true), std::vector<std::byte>{std::byte{1}});
  EXPECT_EQ(roam::pack(false), std::vector<std::byte>{std::byte{0}});
  expect_round_trip(true);
  expect_round_trip(false);
}

TEST(pup, round_trips_std_byte_and_enums_as_their_underlying_type) {
  expect_round_trip(std::byte{0xA5});
  expect_round_trip(color::blue);
  expect_round_trip(legacy_a);
  EXPECT_EQ(roam::pack(color::blue), bytes_of(std::uint8_t{200}));
  EXPECT_EQ(roam::pack(legacy_b), bytes_of(std::int32_t{1 << 20}));
}

// --- strings and sequences ---------------------------------------------------

TEST(pup, round_trips_strings_including_embedded_nuls) {
  expect_round_trip(std::string());
  expect_round_trip(std::string("hello"));
  expect_round_trip(std::string("a\0b\0", 4));
  expect_round_trip(std::string(100000, 'x'));
  expect_round_trip(std::u16string(u"wide \u00e9"));
  expect_round_trip(std::u32string(U"\U0001F600"));
  expect_round_trip(std::wstring(L"w"));
}

TEST(pup, packs_string_as_u64_length_then_characters) {
  EXPECT_EQ(roam::pack(std::string("ab")),
            concat({bytes_of(std::uint64_t{2}), {std::byte{'a'}, std::byte{'b'}}}));
}

TEST(pup, packs_vector_of_arithmetic_as_u64_length_then_raw_element_bytes) {
  const std::vector<double> v{1.0, -2.5, 1e300};
  std::vector<std::byte> raw(v.size() * sizeof(double));
  std::memcpy(raw.data(), v.data(), raw.size());
  EXPECT_EQ(roam::pack(v), concat({bytes_of(std::uint64_t{3}), raw}));
  expect_round_trip(v);
  expect_round_trip(std::vector<double>{});
  std::vector<std::uint64_t> big(100000);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = i * 0x9E3779B97F4A7C15ull;
  expect_round_trip(big);
}

TEST(pup, round_trips_vectors_of_non_trivial_elements) {
  expect_round_trip(std::vector<std::string>{"", "a", "bc"});
  expect_round_trip(std::vector<std::vector<int>>{{}, {1}, {2, 3}});
  expect_round_trip(std::vector<point>{{1, 2}, {3, 4}});
  expect_round_trip(std::vector<std::array<float, 3>>{{1, 2, 3}, {4, 5, 6}});
  expect_round_trip(std::vector<color>{color::red, color::blue});
  expect_round_trip(std::vector<bool>{});
}

TEST(pup, round_trips_vector_of_bool_at_every_length_around_byte_boundaries) {
  for (std::size_t n = 0; n <= 70; ++n) {
    std::vector<bool> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = (i * 7 + n) % 3 == 0;
    EXPECT_EQ(round_trip(v), v) << "length " << n;
    EXPECT_EQ(roam::packed_size(v), 8 + (n + 7) / 8) << "length " << n;
  }
}

TEST(pup, packs_vector_of_bool_eight_bits_per_byte_lsb_first) {
  const std::vector<bool> v{true, false, true, true, false, false, false, false, true};
  EXPECT_EQ(roam::pack(v), concat({bytes_of(std::uint64_t{9}), {std::byte{0x0D}, std::byte{0x01}}}));
}

TEST(pup, round_trips_std_array_and_c_arrays_without_a_length) {
  expect_round_trip(std::array<int, 4>{1, 2, 3, 4});
  expect_round_trip(std::array<std::string, 3>{"x", "", "zz"});
  expect_round_trip(std::array<bool, 3>{true, false, true});
  expect_round_trip(std::array<int, 0>{});
  EXPECT_EQ(roam::packed_size(std::array<std::int16_t, 5>{}), 10u);

  int in[5] = {5, 4, 3, 2, 1};
  const auto bytes = roam::pack(in);
  EXPECT_EQ(roam::packed_size(in), sizeof in);
  EXPECT_EQ(bytes.size(), sizeof in);
  int out[5] = {};
  roam::unpack_into(bytes, out);
  EXPECT_TRUE(std::equal(std::begin(in), std::end(in), std::begin(out)));

  std::string names[2] = {"p", "q"};
  std::string names_out[2];
  roam::unpack_into(roam::pack(names), names_out);
  EXPECT_EQ(names_out[0], "p");
  EXPECT_EQ(names_out[1], "q");

  double grid[2][3] = {{1, 2, 3}, {4, 5, 6}};
  double grid_out[2][3] = {};
  roam::unpack_into(roam::pack(grid), grid_out);
  EXPECT_EQ(grid_out[1][2], 6.0);
}

TEST(pup, round_trips_deque_and_list) {
  expect_round_trip(std::deque<int>{1, 2, 3});
  expect_round_trip(std::deque<std::string>{"a", "b"});
  expect_round_trip(std::list<std::pair<int, double>>{{1, 1.5}, {2, 2.5}});
  expect_round_trip(std::list<std::string>{});
}

// --- associative containers ------------------------------------------------

TEST(pup, round_trips_ordered_maps_and_sets) {
  expect_round_trip(std::map<std::string, std::vector<int>>{{"a", {1}}, {"b", {}}, {"c", {2, 3}}});
  expect_round_trip(std::map<int, int>{});
  expect_round_trip(std::multimap<int, std::string>{{1, "x"}, {1, "y"}, {1, "x"}, {2, "z"}});
  expect_round_trip(std::set<std::string>{"b", "a", "c"});
  expect_round_trip(std::multiset<int>{3, 1, 3, 3, 2});
  expect_round_trip(std::map<int, int, std::greater<>>{{1, 1}, {2, 2}});
}

TEST(pup, keeps_the_order_of_equal_keys_in_a_multimap) {
  const std::multimap<int, std::string> m{{1, "first"}, {1, "second"}, {1, "third"}};
  const auto back = round_trip(m);
  std::vector<std::string> order;
  for (const auto& kv : back) order.push_back(kv.second);
  EXPECT_EQ(order, (std::vector<std::string>{"first", "second", "third"}));
}

TEST(pup, round_trips_unordered_maps_and_sets) {
  std::unordered_map<std::string, std::vector<std::uint16_t>> m;
  for (int i = 0; i < 100; ++i) m["k" + std::to_string(i)] = std::vector<std::uint16_t>(static_cast<std::size_t>(i % 5), 7);
  expect_round_trip(m);
  expect_round_trip(std::unordered_set<int>{5, 1, 9});
  expect_round_trip(std::unordered_multimap<int, int>{{1, 1}, {1, 2}, {2, 3}});
  expect_round_trip(std::unordered_multiset<std::string>{"a", "a", "b"});
}

// --- wrappers ----------------------------------------------------------------

TEST(pup, round_trips_pair_and_tuple) {
  expect_round_trip(std::pair<int, std::string>{7, "seven"});
  expect_round_trip(std::tuple<>{});
  expect_round_trip(std::tuple<bool, std::string, std::vector<int>, double>{true, "t", {1, 2}, 0.5});
  EXPECT_EQ(roam::packed_size(std::tuple<std::int8_t, std::int64_t>{}), 9u) << "no padding on the wire";
  EXPECT_EQ(roam::packed_size(std::tuple<>{}), 0u);
}

TEST(pup, round_trips_optional_empty_and_engaged) {
  expect_round_trip(std::optional<int>{});
  expect_round_trip(std::optional<int>{5});
  expect_round_trip(std::optional<std::string>{"s"});
  expect_round_trip(std::optional<std::vector<point>>{std::vector<point>{{1, 1}}});
  EXPECT_EQ(roam::pack(std::optional<std::uint8_t>{}), std::vector<std::byte>{std::byte{0}});
  EXPECT_EQ(roam::pack(std::optional<std::uint8_t>{9}), (std::vector<std::byte>{std::byte{1}, std::byte{9}}));
}

TEST(pup, round_trips_variant_in_every_alternative) {
  using v = std::variant<std::monostate, int, std::string, std::vector<double>, point>;
  expect_round_trip(v{});
  expect_round_trip(v{3});
  expect_round_trip(v{std::string("str")});
  expect_round_trip(v{std::vector<double>{1.0}});
  expect_round_trip(v{point{1, 2}});
  EXPECT_EQ(roam::pack(v{3}), concat({bytes_of(std::uint32_t{1}), bytes_of(3)})) << "index packed as u32";
}

TEST(pup, keeps_the_alternative_index_when_a_variant_repeats_a_type) {
  using v = std::variant<int, int>;
  const v second(std::in_place_index<1>, 5);
  const v back = round_trip(second);
  EXPECT_EQ(back.index(), 1u);
  EXPECT_EQ(std::get<1>(back), 5);
}

TEST(pup, round_trips_unique_ptr_null_and_owning) {
  const std::unique_ptr<std::string> null;
  EXPECT_EQ(round_trip(null), nullptr);
  const auto owned = std::make_unique<std::vector<int>>(std::vector<int>{1, 2, 3});
  const auto back = round_trip(owned);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(*back, *owned);
  EXPECT_EQ(roam::packed_size(owned), 1 + 8 + 3 * sizeof(int));
}

TEST(pup, round_trips_chrono_durations_as_their_count) {
  expect_round_trip(std::chrono::nanoseconds(-123456789));
  expect_round_trip(std::chrono::duration<double, std::milli>(2.5));
  expect_round_trip(std::vector<std::chrono::seconds>{std::chrono::seconds(1), std::chrono::seconds(2)});
  EXPECT_EQ(roam::pack(std::chrono::microseconds(5)), bytes_of(std::chrono::microseconds::rep{5}));
}

// --- user types ----------------------------------------------------------------

TEST(pup, round_trips_user_type_with_member_pup) { expect_round_trip(point{-1, 99}); }

TEST(pup, round_trips_user_type_with_template_member_pup) {
  expect_round_trip(templated_pup{"route", {{0, 0}, {1, 1}}});
}

TEST(pup, round_trips_user_type_with_adl_free_pup) {
  expect_round_trip(geo::segment{1.5, 2.5});
  expect_round_trip(std::vector<geo::segment>{{0, 1}, {2, 3}});
}

TEST(pup, copies_bitwise_serializable_types_as_raw_bytes) {
  const pod value{-5, 1.25f, {1, 2, 3}};
  EXPECT_EQ(roam::pack(value), bytes_of(value));
  expect_round_trip(value);
  const std::vector<pod> many(10, value);
  EXPECT_EQ(roam::packed_size(many), 8 + 10 * sizeof(pod));
  expect_round_trip(many);
  expect_round_trip(std::array<pod, 2>{value, value});
}

TEST(pup, round_trips_nested_user_type) {
  const record r = sample_record();
  expect_round_trip(r);
  expect_round_trip(record{});
  expect_round_trip(std::vector<record>(3));
  record moved_variant = sample_record();
  moved_variant.tag = std::string("other");
  moved_variant.extra.reset();
  moved_variant.best.reset();
  expect_round_trip(moved_variant);
}

TEST(pup, round_trips_recursive_user_type) {
  tree t{1, {tree{2, {}}, tree{3, {tree{4, {}}}}}};
  expect_round_trip(t);
}

TEST(pup, round_trips_containers_of_elements_that_pack_to_nothing) {
  expect_round_trip(std::vector<std::monostate>(1000));
  expect_round_trip(std::vector<nothing>(17));
  expect_round_trip(std::list<std::tuple<>>(3));
  expect_round_trip(std::map<int, std::monostate>{{1, {}}, {2, {}}});
  EXPECT_EQ(roam::packed_size(std::vector<std::monostate>(1000)), 8u);
}

// --- multiple values and the pup_er itself --------------------------------

TEST(pup, packs_several_values_back_to_back) {
  const std::string s = "abc";
  const std::vector<int> v{1, 2};
  const auto bytes = roam::pack(42, s, v, true);
  EXPECT_EQ(bytes.size(), roam::packed_size(42, s, v, true));
  EXPECT_EQ(bytes.size(), 4 + 8 + 3 + 8 + 8 + 1);
  int i = 0;
  std::string s2;
  std::vector<int> v2;
  bool b = false;
  roam::unpack_into(bytes, i, s2, v2, b);
  EXPECT_EQ(i, 42);
  EXPECT_EQ(s2, s);
  EXPECT_EQ(v2, v);
  EXPECT_TRUE(b);
  EXPECT_EQ(roam::packed_size(), 0u);
  EXPECT_TRUE(roam::pack().empty());
}

TEST(pup, unpack_into_rebuilds_containers_that_already_hold_data) {
  const auto bytes = roam::pack(std::vector<int>{1}, std::map<int, int>{{1, 1}}, std::optional<int>{},
                                std::variant<int, std::string>{std::string("v")});
  std::vector<int> v{9, 9, 9};
  std::map<int, int> m{{5, 5}, {6, 6}};
  std::optional<int> o = 3;
  std::variant<int, std::string> var = 4;
  roam::unpack_into(bytes, v, m, o, var);
  EXPECT_EQ(v, std::vector<int>{1});
  EXPECT_EQ(m, (std::map<int, int>{{1, 1}}));
  EXPECT_FALSE(o.has_value());
  EXPECT_EQ(std::get<std::string>(var), "v");
}

TEST(pup, packs_const_objects_but_refuses_to_unpack_into_them) {
  const point c{3, 4};
  const auto bytes = roam::pack(c);
  auto p = roam::pup_er::unpacker(bytes.data(), bytes.size());
  EXPECT_THROW(p | c, std::logic_error);
  auto q = roam::pup_er::unpacker(bytes.data(), bytes.size());
  point target;
  q | target;
  EXPECT_EQ(target, c);
}

TEST(pup, pack_into_reports_a_buffer_that_is_too_small_with_the_offset) {
  const std::vector<int> v{1, 2, 3};
  std::array<std::byte, 12> small{};
  try {
    roam::pack_into(small, v);
    FAIL() << "expected pup_error";
  } catch (const roam::pup_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("buffer too small"), std::string::npos) << what;
    EXPECT_NE(what.find("byte offset 8"), std::string::npos) << what;
  }
}

TEST(pup, pup_er_reports_mode_offset_and_remaining) {
  auto s = roam::pup_er::sizer();
  EXPECT_TRUE(s.is_sizing());
  EXPECT_EQ(s.get_mode(), roam::pup_er::mode::sizing);
  s | 1 | std::string("ab");
  EXPECT_EQ(s.offset(), 4u + 8u + 2u);

  std::array<std::byte, 16> buf{};
  auto w = roam::pup_er::packer(buf.data(), buf.size());
  EXPECT_TRUE(w.is_packing());
  w | std::uint32_t{7};
  EXPECT_EQ(w.offset(), 4u);
  EXPECT_EQ(w.remaining(), 12u);

  auto r = roam::pup_er::unpacker(buf.data(), 4);
  EXPECT_TRUE(r.is_unpacking());
  std::uint32_t x = 0;
  r | x;
  EXPECT_EQ(x, 7u);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(pup, raw_bytes_round_trip_and_overruns_throw) {
  char text[6] = "hello";
  std::array<std::byte, 6> buf{};
  auto w = roam::pup_er::packer(buf.data(), buf.size());
  w.bytes(text, 6);
  EXPECT_THROW(w.bytes(text, 1), roam::pup_error);

  char back[6] = {};
  auto r = roam::pup_er::unpacker(buf.data(), buf.size());
  r.bytes(back, 6);
  EXPECT_STREQ(back, "hello");
  EXPECT_THROW(r.bytes(back, 1), roam::pup_error);
  r.bytes(nullptr, 0);
}

namespace {
// A hand-written container using check_count, as runtime code would.
struct int_bag {
  std::unique_ptr<int[]> items;
  std::size_t size = 0;
  void pup(roam::pup_er& p) {
    const std::uint64_t n = p.check_count(size, sizeof(int));
    if (p.is_unpacking()) {
      size = static_cast<std::size_t>(n);
      items = std::make_unique<int[]>(size);
    }
    p.bytes(items.get(), size * sizeof(int));
  }
};
}  // namespace

TEST(pup, check_count_lets_hand_written_containers_validate_lengths) {
  int_bag bag;
  bag.size = 3;
  bag.items = std::make_unique<int[]>(3);
  bag.items[2] = 77;
  auto bytes = roam::pack(bag);
  EXPECT_EQ(roam::unpack<int_bag>(bytes).items[2], 77);

  const std::uint64_t huge = std::uint64_t{1} << 60;
  std::memcpy(bytes.data(), &huge, sizeof huge);
  EXPECT_THROW((void)roam::unpack<int_bag>(bytes), roam::pup_error);
}

TEST(pup, rejects_nesting_deeper_than_the_limit_in_every_pass) {
  const auto ok = make_chain(static_cast<int>(roam::pup_er::max_nesting_depth) - 1);
  const auto back = round_trip(ok);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->value, ok->value);

  const auto too_deep = make_chain(static_cast<int>(roam::pup_er::max_nesting_depth) + 1);
  EXPECT_THROW((void)roam::packed_size(too_deep), roam::pup_error);
}

// --- compile-time properties -------------------------------------------------

namespace {
struct not_serializable {
  int x;
};
struct needs_args {
  explicit needs_args(int) {}
  void pup(roam::pup_er&) {}
};
}  // namespace

TEST(pup, serializable_concept_accepts_supported_types_recursively) {
  static_assert(roam::serializable<int>);
  static_assert(roam::serializable<const double>);
  static_assert(roam::serializable<std::byte>);
  static_assert(roam::serializable<color>);
  static_assert(roam::serializable<std::string>);
  static_assert(roam::serializable<std::vector<std::map<std::string, std::optional<point>>>>);
  static_assert(roam::serializable<std::variant<std::monostate, geo::segment, pod>>);
  static_assert(roam::serializable<std::unique_ptr<record>>);
  static_assert(roam::serializable<int[3][4]>);
  static_assert(roam::serializable<std::chrono::milliseconds>);
  static_assert(roam::serializable<std::tuple<>>);
  static_assert(roam::serializable<needs_args>, "serializable; only unpacking needs a default constructor");
  SUCCEED();
}

TEST(pup, serializable_concept_rejects_pointers_and_types_without_pup) {
  static_assert(!roam::serializable<int*>);
  static_assert(!roam::serializable<const char*>);
  static_assert(!roam::serializable<not_serializable>);
  static_assert(!roam::serializable<std::vector<int*>>);
  static_assert(!roam::serializable<std::map<int, not_serializable>>);
  static_assert(!roam::serializable<std::pair<int, void*>>);
  static_assert(!roam::serializable<std::optional<not_serializable>>);
  static_assert(!roam::serializable<std::variant<int, int*>>);
  static_assert(!roam::serializable<std::unique_ptr<int[]>>);
  static_assert(!roam::serializable<std::shared_ptr<int>>);
  static_assert(!roam::serializable<std::basic_string<bool>>);
  SUCCEED();
}

TEST(pup, pup_er_stays_small) {
  // Buffer, capacity, offset, depth and mode, and the segment table of a message pass.
  static_assert(sizeof(roam::pup_er) <= 5 * sizeof(void*));
  static_assert(!std::is_copy_constructible_v<roam::pup_er>);
  SUCCEED();
}

}  // namespace pup_test
