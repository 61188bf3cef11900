// Unpacking must treat its input as hostile: truncated, bit-flipped or
// fabricated bytes may only ever produce pup_error, never a crash, undefined
// behaviour or an allocation sized by a lying length. CI runs this under ASan
// and UBSan.

#include <roam/msg/pup.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace pup_corrupt_test {

namespace {

// --- allocation probe ----------------------------------------------------------

// Records the largest single allocation, so tests can prove a corrupt length
// was rejected before anything was sized from it.
std::size_t largest_allocation = 0;

template <class T>
struct probe_allocator {
  using value_type = T;
  probe_allocator() = default;
  template <class U>
  probe_allocator(const probe_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    largest_allocation = std::max(largest_allocation, n * sizeof(T));
    return std::allocator<T>{}.allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>{}.deallocate(p, n); }
  template <class U>
  bool operator==(const probe_allocator<U>&) const noexcept {
    return true;
  }
};

using probe_string = std::basic_string<char, std::char_traits<char>, probe_allocator<char>>;

// --- types under test ----------------------------------------------------------

struct leaf {
  int id = 0;
  std::string name;
  std::vector<double> weights;
  void pup(roam::pup_er& p) { p | id | name | weights; }
};

struct record {
  std::map<std::string, std::vector<leaf>> groups;
  std::optional<leaf> best;
  std::variant<std::monostate, int, std::string, leaf> tag;
  std::unique_ptr<leaf> extra;
  std::set<int> ids;
  void pup(roam::pup_er& p) { p | groups | best | tag | extra | ids; }
};

struct node {
  std::uint8_t value = 0;
  std::unique_ptr<node> next;
  void pup(roam::pup_er& p) { p | value | next; }
  node() = default;
  node(node&&) = default;
  node& operator=(node&&) = default;
  ~node() {
    // Unlink iteratively so long chains cannot overflow the stack here.
    while (next) next = std::move(next->next);
  }
};

enum class flag : bool { off, on };

using tuple_type = std::tuple<std::vector<std::int32_t>, std::string, bool, std::set<std::uint16_t>,
                              std::optional<std::int64_t>, std::vector<bool>>;
using hash_type = std::unordered_map<std::string, std::vector<std::uint16_t>>;
using variant_vector = std::vector<std::variant<std::monostate, std::int64_t, std::string, std::deque<std::int8_t>>>;
using multimap_type = std::multimap<int, std::list<std::string>>;

// --- helpers -------------------------------------------------------------------

std::vector<std::byte> to_bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

void put_u64(std::vector<std::byte>& bytes, std::size_t at, std::uint64_t value) {
  ASSERT_LE(at + sizeof value, bytes.size());
  std::memcpy(bytes.data() + at, &value, sizeof value);
}

template <class T>
void expect_every_strict_prefix_rejected(const T& value) {
  const auto bytes = roam::pack(value);
  ASSERT_FALSE(bytes.empty());
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    const std::span<const std::byte> prefix(bytes.data(), len);
    EXPECT_THROW((void)roam::unpack<T>(prefix), roam::pup_error) << "prefix " << len << " of " << bytes.size();
  }
  EXPECT_NO_THROW((void)roam::unpack<T>(bytes));
}

// Overwrites the u64 length at `at` with absurd values; each must be rejected
// without any allocation beyond what the few valid bytes could justify.
template <class T>
void expect_lying_length_rejected_cheaply(const T& value, std::size_t at = 0) {
  auto bytes = roam::pack(value);
  const std::uint64_t lies[] = {std::uint64_t{1} << 60, std::uint64_t{1} << 40, std::uint64_t{1} << 32,
                                ~std::uint64_t{0},      std::uint64_t{1} << 63, 1000000};
  for (std::uint64_t lie : lies) {
    put_u64(bytes, at, lie);
    largest_allocation = 0;
    EXPECT_THROW((void)roam::unpack<T>(bytes), roam::pup_error) << "length " << lie;
    EXPECT_LT(largest_allocation, 4096u) << "length " << lie;
  }
}

record sample_record() {
  record r;
  r.groups["alpha"] = {leaf{1, "one", {1.5, -2.25}}, leaf{2, "two", {}}};
  r.groups["beta"] = {};
  r.best = leaf{9, "best", {3.0}};
  r.tag = std::string("tag");
  r.extra = std::make_unique<leaf>(leaf{5, "extra", {8.0}});
  r.ids = {-3, 0, 42};
  return r;
}

}  // namespace

TEST(pup_corrupt, rejects_every_strict_prefix_of_a_packing) {
  expect_every_strict_prefix_rejected(sample_record());
  expect_every_strict_prefix_rejected(std::vector<double>{1, 2, 3});
  expect_every_strict_prefix_rejected(std::string("truncate me"));
  expect_every_strict_prefix_rejected(std::map<std::string, std::vector<int>>{{"a", {1, 2}}, {"bb", {}}});
  expect_every_strict_prefix_rejected(tuple_type{{1, 2}, "s", true, {4, 5}, 6, {true, false, true}});
  expect_every_strict_prefix_rejected(std::vector<bool>(19, true));
  expect_every_strict_prefix_rejected(std::variant<int, std::string>{std::string("v")});
  expect_every_strict_prefix_rejected(std::optional<std::string>{"o"});
  expect_every_strict_prefix_rejected(std::make_unique<std::string>("u"));
  expect_every_strict_prefix_rejected(std::deque<std::list<int>>{{1}, {}, {2, 3}});
  expect_every_strict_prefix_rejected(std::unordered_multiset<std::string>{"x", "x", "y"});
  expect_every_strict_prefix_rejected(std::array<std::uint64_t, 3>{1, 2, 3});
  expect_every_strict_prefix_rejected(7);
  expect_every_strict_prefix_rejected(true);
}

TEST(pup_corrupt, rejects_absurd_lengths_before_allocating) {
  expect_lying_length_rejected_cheaply(std::vector<double, probe_allocator<double>>{1, 2});
  expect_lying_length_rejected_cheaply(std::vector<std::string, probe_allocator<std::string>>{"a", "b"});
  expect_lying_length_rejected_cheaply(probe_string("abc"));
  expect_lying_length_rejected_cheaply(std::vector<bool, probe_allocator<bool>>{true, false});
  expect_lying_length_rejected_cheaply(std::deque<int, probe_allocator<int>>{1, 2});
  expect_lying_length_rejected_cheaply(std::list<std::string, probe_allocator<std::string>>{"x"});
  expect_lying_length_rejected_cheaply(
      std::map<int, int, std::less<>, probe_allocator<std::pair<const int, int>>>{{1, 2}});
  expect_lying_length_rejected_cheaply(std::set<int, std::less<>, probe_allocator<int>>{1, 2});
  expect_lying_length_rejected_cheaply(
      std::unordered_map<int, int, std::hash<int>, std::equal_to<>, probe_allocator<std::pair<const int, int>>>{
          {1, 2}});
  expect_lying_length_rejected_cheaply(
      std::unordered_multiset<int, std::hash<int>, std::equal_to<>, probe_allocator<int>>{1, 1});
  // The inner length of a nested vector sits after the outer length.
  using nested = std::vector<std::vector<int, probe_allocator<int>>>;
  expect_lying_length_rejected_cheaply(nested{{1, 2, 3}}, 8);
  // The first map key's length inside a user type.
  expect_lying_length_rejected_cheaply(sample_record(), 8);
}

TEST(pup_corrupt, rejects_a_length_one_past_what_the_input_holds) {
  auto doubles = roam::pack(std::vector<double>{1, 2, 3});
  put_u64(doubles, 0, 4);
  EXPECT_THROW((void)roam::unpack<std::vector<double>>(doubles), roam::pup_error);

  auto strings = roam::pack(std::vector<std::string>{"a"});
  put_u64(strings, 0, 2);
  EXPECT_THROW((void)roam::unpack<std::vector<std::string>>(strings), roam::pup_error);

  auto bits = roam::pack(std::vector<bool>(16, true));
  put_u64(bits, 0, 17);
  EXPECT_THROW((void)roam::unpack<std::vector<bool>>(bits), roam::pup_error);
}

TEST(pup_corrupt, rejects_bool_bytes_other_than_zero_and_one) {
  for (int b : {2, 0x80, 0xFF}) {
    EXPECT_THROW((void)roam::unpack<bool>(to_bytes({b})), roam::pup_error) << b;
    EXPECT_THROW((void)roam::unpack<flag>(to_bytes({b})), roam::pup_error) << b;
    EXPECT_THROW((void)roam::unpack<std::optional<std::uint8_t>>(to_bytes({b, 0})), roam::pup_error) << b;
    EXPECT_THROW((void)roam::unpack<std::unique_ptr<std::uint8_t>>(to_bytes({b, 0})), roam::pup_error) << b;
    // One bit used, so every other bit of the byte is padding.
    EXPECT_THROW((void)roam::unpack<std::vector<bool>>(roam::pack(std::uint64_t{1}, static_cast<std::uint8_t>(b))),
                 roam::pup_error)
        << b;
  }
  EXPECT_EQ(roam::unpack<flag>(to_bytes({1})), flag::on);
}

TEST(pup_corrupt, rejects_set_padding_bits_in_a_vector_of_bool) {
  // Three bits used; bit 3 of the only byte is padding.
  const auto bytes = roam::pack(std::uint64_t{3}, std::uint8_t{0x08});
  EXPECT_THROW((void)roam::unpack<std::vector<bool>>(bytes), roam::pup_error);
  EXPECT_EQ(roam::unpack<std::vector<bool>>(roam::pack(std::uint64_t{3}, std::uint8_t{0x05})),
            (std::vector<bool>{true, false, true}));
}

TEST(pup_corrupt, rejects_variant_index_out_of_range) {
  using v = std::variant<int, float>;
  for (std::uint32_t index : {2u, 3u, 0x80000000u, 0xFFFFFFFFu})
    EXPECT_THROW((void)roam::unpack<v>(roam::pack(index, 5)), roam::pup_error) << index;
  EXPECT_EQ(std::get<0>(roam::unpack<v>(roam::pack(std::uint32_t{0}, 5))), 5);
}

TEST(pup_corrupt, rejects_duplicate_keys_only_in_unique_key_containers) {
  // A vector packs exactly like a set or map of the same elements.
  const auto keys = roam::pack(std::vector<int>{1, 1});
  EXPECT_THROW((void)roam::unpack<std::set<int>>(keys), roam::pup_error);
  EXPECT_THROW((void)roam::unpack<std::unordered_set<int>>(keys), roam::pup_error);
  EXPECT_EQ(roam::unpack<std::multiset<int>>(keys).count(1), 2u);
  EXPECT_EQ(roam::unpack<std::unordered_multiset<int>>(keys).count(1), 2u);

  using map = std::map<int, int>;
  using hash_map = std::unordered_map<int, int>;
  using multimap = std::multimap<int, int>;
  using hash_multimap = std::unordered_multimap<int, int>;
  const auto pairs = roam::pack(std::vector<std::pair<int, int>>{{1, 2}, {1, 3}});
  EXPECT_THROW((void)roam::unpack<map>(pairs), roam::pup_error);
  EXPECT_THROW((void)roam::unpack<hash_map>(pairs), roam::pup_error);
  EXPECT_EQ(roam::unpack<multimap>(pairs).count(1), 2u);
  EXPECT_EQ(roam::unpack<hash_multimap>(pairs).count(1), 2u);
}

TEST(pup_corrupt, accepts_unsorted_keys_and_sorts_them) {
  const auto set = roam::unpack<std::set<int>>(roam::pack(std::vector<int>{3, 1, 2}));
  EXPECT_EQ(set, (std::set<int>{1, 2, 3}));
}

TEST(pup_corrupt, rejects_trailing_bytes) {
  auto bytes = roam::pack(std::string("x"));
  bytes.push_back(std::byte{0});
  EXPECT_THROW((void)roam::unpack<std::string>(bytes), roam::pup_error);
  std::string s;
  EXPECT_THROW(roam::unpack_into(bytes, s), roam::pup_error);
  int a = 0;
  int b = 0;
  EXPECT_THROW(roam::unpack_into(roam::pack(1, 2, 3), a, b), roam::pup_error);
  EXPECT_THROW((void)roam::unpack<std::tuple<>>(to_bytes({0})), roam::pup_error);
}

TEST(pup_corrupt, rejects_empty_input_for_a_type_that_packs_bytes) {
  const std::span<const std::byte> empty;
  EXPECT_THROW((void)roam::unpack<int>(empty), roam::pup_error);
  EXPECT_THROW((void)roam::unpack<std::string>(empty), roam::pup_error);
  EXPECT_THROW((void)roam::unpack<record>(empty), roam::pup_error);
  EXPECT_NO_THROW((void)roam::unpack<std::monostate>(empty));
}

TEST(pup_corrupt, caps_counts_of_elements_that_pack_to_nothing) {
  const auto over = roam::pack(roam::pup_er::max_zero_size_elements + 1);
  EXPECT_THROW((void)roam::unpack<std::vector<std::monostate>>(over), roam::pup_error);
  EXPECT_THROW((void)roam::unpack<std::list<std::tuple<>>>(over), roam::pup_error);
  const auto at_cap = roam::pack(std::uint64_t{1000});
  EXPECT_EQ(roam::unpack<std::vector<std::monostate>>(at_cap).size(), 1000u);
}

TEST(pup_corrupt, rejects_input_nested_deeper_than_the_limit) {
  // Each node is its value byte and a presence flag for the next one.
  const std::size_t depth = roam::pup_er::max_nesting_depth + 10;
  std::vector<std::byte> bytes{std::byte{1}};  // the outer unique_ptr's flag
  for (std::size_t i = 0; i < depth; ++i) {
    bytes.push_back(std::byte{7});
    bytes.push_back(i + 1 < depth ? std::byte{1} : std::byte{0});
  }
  EXPECT_THROW((void)roam::unpack<std::unique_ptr<node>>(bytes), roam::pup_error);

  std::vector<std::byte> shallow{std::byte{1}, std::byte{7}, std::byte{1}, std::byte{8}, std::byte{0}};
  const auto head = roam::unpack<std::unique_ptr<node>>(shallow);
  ASSERT_NE(head, nullptr);
  ASSERT_NE(head->next, nullptr);
  EXPECT_EQ(head->next->value, 8);
}

TEST(pup_corrupt, error_messages_say_what_was_read_and_where) {
  auto bytes = roam::pack(std::uint32_t{5}, std::vector<int>{1, 2});
  put_u64(bytes, 4, std::uint64_t{1} << 60);
  try {
    std::uint32_t head = 0;
    std::vector<int> v;
    roam::unpack_into(bytes, head, v);
    FAIL() << "expected pup_error";
  } catch (const roam::pup_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("length of std::vector<int"), std::string::npos) << what;
    EXPECT_NE(what.find("byte offset 4"), std::string::npos) << what;
  }
  try {
    (void)roam::unpack<double>(to_bytes({1, 2, 3}));
    FAIL() << "expected pup_error";
  } catch (const roam::pup_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("truncated"), std::string::npos) << what;
    EXPECT_NE(what.find("double"), std::string::npos) << what;
    EXPECT_NE(what.find("byte offset 0"), std::string::npos) << what;
  }
}

// --- randomized robustness ---------------------------------------------------

namespace {

class fuzzer {
 public:
  explicit fuzzer(std::uint64_t seed) : rng_(seed) {}

  std::uint64_t next() { return rng_(); }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_() % n); }

  std::string word() {
    std::string s(below(6), 'a');
    for (auto& c : s) c = static_cast<char>('a' + below(26));
    return s;
  }

  leaf make_leaf() {
    leaf l{static_cast<int>(next()), word(), {}};
    for (std::size_t i = below(3); i > 0; --i) l.weights.push_back(static_cast<double>(below(1000)) / 8);
    return l;
  }

  record make_record() {
    record r;
    for (std::size_t i = below(3); i > 0; --i) {
      auto& group = r.groups[word()];
      for (std::size_t j = below(3); j > 0; --j) group.push_back(make_leaf());
    }
    if (below(2) != 0) r.best = make_leaf();
    switch (below(4)) {
      case 1: r.tag = static_cast<int>(next()); break;
      case 2: r.tag = word(); break;
      case 3: r.tag = make_leaf(); break;
      default: break;
    }
    if (below(2) != 0) r.extra = std::make_unique<leaf>(make_leaf());
    for (std::size_t i = below(4); i > 0; --i) r.ids.insert(static_cast<int>(below(100)));
    return r;
  }

  tuple_type make_tuple() {
    tuple_type t;
    for (std::size_t i = below(5); i > 0; --i) std::get<0>(t).push_back(static_cast<std::int32_t>(next()));
    std::get<1>(t) = word();
    std::get<2>(t) = below(2) != 0;
    for (std::size_t i = below(4); i > 0; --i) std::get<3>(t).insert(static_cast<std::uint16_t>(next()));
    if (below(2) != 0) std::get<4>(t) = static_cast<std::int64_t>(next());
    for (std::size_t i = below(20); i > 0; --i) std::get<5>(t).push_back(below(2) != 0);
    return t;
  }

  hash_type make_hash() {
    hash_type h;
    for (std::size_t i = below(4); i > 0; --i) h[word()] = std::vector<std::uint16_t>(below(4), 3);
    return h;
  }

  variant_vector make_variants() {
    variant_vector v;
    for (std::size_t i = below(5); i > 0; --i) {
      switch (below(4)) {
        case 0: v.emplace_back(); break;
        case 1: v.emplace_back(static_cast<std::int64_t>(next())); break;
        case 2: v.emplace_back(word()); break;
        default: v.emplace_back(std::deque<std::int8_t>(below(4), 1)); break;
      }
    }
    return v;
  }

  multimap_type make_multimap() {
    multimap_type m;
    for (std::size_t i = below(4); i > 0; --i) m.emplace(static_cast<int>(below(3)), std::list<std::string>(below(3), word()));
    return m;
  }

  std::unique_ptr<node> make_chain() {
    std::unique_ptr<node> head;
    for (std::size_t i = below(6); i > 0; --i) {
      auto n = std::make_unique<node>();
      n->value = static_cast<std::uint8_t>(next());
      n->next = std::move(head);
      head = std::move(n);
    }
    return head;
  }

  // Either fresh random bytes or a damaged copy of a valid packing.
  std::vector<std::byte> mutate(const std::vector<std::byte>& valid) {
    std::vector<std::byte> out = valid;
    switch (below(8)) {
      case 0: {  // random bytes
        out.resize(below(65));
        for (auto& b : out) b = static_cast<std::byte>(next());
        break;
      }
      case 1:  // bit flips
        for (std::size_t i = 1 + below(4); i > 0 && !out.empty(); --i)
          out[below(out.size())] ^= static_cast<std::byte>(1u << below(8));
        break;
      case 2:  // truncation
        out.resize(below(out.size()));
        break;
      case 3: {  // a plausible-looking or absurd u64 over any 8 bytes, as a lying length would be
        if (out.size() < 8) break;
        const std::uint64_t values[] = {0, 1, 2, 255, std::uint64_t{1} << 32, std::uint64_t{1} << 60, ~std::uint64_t{0},
                                        next()};
        const std::uint64_t v = values[below(std::size(values))];
        std::memcpy(out.data() + below(out.size() - 7), &v, sizeof v);
        break;
      }
      case 4:  // inserted bytes
        for (std::size_t i = 1 + below(3); i > 0; --i)
          out.insert(out.begin() + static_cast<std::ptrdiff_t>(below(out.size() + 1)), static_cast<std::byte>(next()));
        break;
      case 5: {  // deleted range
        if (out.empty()) break;
        const std::size_t at = below(out.size());
        const std::size_t len = 1 + below(std::min<std::size_t>(8, out.size() - at));
        out.erase(out.begin() + static_cast<std::ptrdiff_t>(at), out.begin() + static_cast<std::ptrdiff_t>(at + len));
        break;
      }
      case 6:  // one byte set to an edge value
        if (!out.empty()) out[below(out.size())] = std::byte{static_cast<unsigned char>(below(2) != 0 ? 0xFF : 2)};
        break;
      default:  // trailing garbage
        for (std::size_t i = 1 + below(4); i > 0; --i) out.push_back(static_cast<std::byte>(next()));
        break;
    }
    return out;
  }

 private:
  std::mt19937_64 rng_;
};

std::uint64_t fuzz_seed() {
  if (const char* env = std::getenv("ROAM_PUP_FUZZ_SEED")) return std::strtoull(env, nullptr, 0);
  return 0x5EEDF00Dull;
}

struct fuzz_stats {
  std::size_t accepted = 0;
  std::size_t rejected = 0;
};

// Feeds `iterations` hostile inputs derived from values of T to unpack<T>.
// Anything accepted must re-pack to a canonical form that is stable: the
// bytes (or, for unordered containers, the values) survive another trip.
template <class T, class Make>
fuzz_stats fuzz_type(fuzzer& f, Make make, int iterations, bool compare_values = false) {
  std::vector<std::vector<std::byte>> seeds;
  for (int i = 0; i < 16; ++i) seeds.push_back(roam::pack(make()));
  fuzz_stats stats;
  for (int i = 0; i < iterations; ++i) {
    const auto input = f.mutate(seeds[f.below(seeds.size())]);
    try {
      const T value = roam::unpack<T>(input);
      ++stats.accepted;
      const auto canonical = roam::pack(value);
      const T again = roam::unpack<T>(canonical);
      if (compare_values) {
        if constexpr (std::equality_comparable<T>) {
          EXPECT_TRUE(again == value) << "iteration " << i;
        }
      } else {
        EXPECT_EQ(roam::pack(again), canonical) << "iteration " << i;
      }
    } catch (const roam::pup_error&) {
      ++stats.rejected;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "iteration " << i << ": unexpected exception: " << e.what();
    }
  }
  return stats;
}

}  // namespace

TEST(pup_corrupt, survives_random_bytes_and_mutations_of_valid_packings) {
  const std::uint64_t seed = fuzz_seed();
  SCOPED_TRACE("fuzz seed " + std::to_string(seed) + " (set ROAM_PUP_FUZZ_SEED to replay)");
  RecordProperty("fuzz_seed", std::to_string(seed));
  fuzzer f(seed);
  constexpr int iterations = 2500;

  const fuzz_stats results[] = {
      fuzz_type<record>(f, [&] { return f.make_record(); }, iterations),
      fuzz_type<tuple_type>(f, [&] { return f.make_tuple(); }, iterations),
      fuzz_type<hash_type>(f, [&] { return f.make_hash(); }, iterations, true),
      fuzz_type<variant_vector>(f, [&] { return f.make_variants(); }, iterations),
      fuzz_type<multimap_type>(f, [&] { return f.make_multimap(); }, iterations),
      fuzz_type<std::unique_ptr<node>>(f, [&] { return f.make_chain(); }, iterations),
  };
  for (std::size_t i = 0; i < std::size(results); ++i) {
    RecordProperty("type_" + std::to_string(i) + "_accepted", std::to_string(results[i].accepted));
    EXPECT_GT(results[i].rejected, 0u) << "type " << i;
    EXPECT_GT(results[i].accepted, 0u) << "type " << i << ": no mutation survived, so success paths went untested";
    EXPECT_EQ(results[i].accepted + results[i].rejected, static_cast<std::size_t>(iterations)) << "type " << i;
  }
}

}  // namespace pup_corrupt_test
