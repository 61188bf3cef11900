// Object walking (roam/obj/walk.hpp): every object on a PE is enumerated
// once, with its kind, identity, type and migratability; each kind packs and
// unpacks through its pup; the load slot keeps what the balancer writes; and
// migrate_local_object moves elements and chares (not group members).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <roam/obj/walk.hpp>

#include "support/run_roam.hpp"

namespace walk_test {

namespace {

struct walk_cell : roam::element<walk_cell> {
  walk_cell() : value(this_index()[0] * 10) {}
  explicit walk_cell(roam::migrating) {}
  void pup(roam::pup_er& p) { p | value | history; }
  int value = 0;
  std::vector<int> history{1, 2, 3};
};
struct walk_member : roam::group_member<walk_member> {
  void pup(roam::pup_er& p) { p | value; }
  int value = 7;
};
struct plain_member : roam::group_member<plain_member> {  // no pup
  int value = 0;
};
struct walk_node : roam::nodegroup_member<walk_node> {
  void pup(roam::pup_er& p) { p | value; }
  int value = 11;
};
struct walk_chare : roam::chare<walk_chare> {
  walk_chare() = default;
  explicit walk_chare(roam::migrating) {}
  void pup(roam::pup_er& p) { p | value; }
  int ping() { return value; }
  int value = 5;
};

struct seen_object {
  roam::object_identity id;
  std::string type;
  std::uint32_t pe;
  bool migratable, packable;
  double load;
};

std::mutex g_mutex;
std::vector<seen_object> g_seen;
std::vector<std::string> g_failures;

int& value_of(const roam::local_object& o) {
  if (o.type_name.find("walk_cell") != std::string_view::npos) return static_cast<walk_cell*>(o.obj)->value;
  if (o.type_name.find("walk_member") != std::string_view::npos) return static_cast<walk_member*>(o.obj)->value;
  if (o.type_name.find("walk_node") != std::string_view::npos) return static_cast<walk_node*>(o.obj)->value;
  return static_cast<walk_chare*>(o.obj)->value;
}

void fail(const std::string& what) {
  std::lock_guard lock(g_mutex);
  g_failures.push_back("pe " + std::to_string(roam::my_pe().value()) + ": " + what);
}

// Walks this PE: records every object, checks the pack/unpack round trip of
// each packable one, and (`move`) sends elements with an even index and the
// chares one PE on.
struct census : roam::group_member<census> {
  void walk(bool move, roam::callback<> done) {
    std::vector<roam::object_identity> to_move;
    roam::for_each_local_object([&](const roam::local_object& o) {
      {
        std::lock_guard lock(g_mutex);
        g_seen.push_back({o.id, std::string(o.type_name), roam::my_pe().value(), o.migratable, o.packable, *o.load});
      }
      *o.load += 1.5;  // the balancer's slot: kept until the object moves
      if (o.type_name.find("census") != std::string_view::npos) return;
      auto found = roam::find_local_object(o.id);
      if (!found || found->obj != o.obj) fail("find_local_object misses " + std::string(o.type_name));
      if (!o.packable) {
        if (o.type_name.find("plain_member") == std::string_view::npos) fail(std::string(o.type_name) + " not packable");
        bool threw = false;
        try {
          (void)roam::pack_local_object(o);
        } catch (const std::logic_error&) {
          threw = true;
        }
        if (!threw) fail("packing a type without pup did not throw");
        return;
      }
      roam::bytes before = roam::pack_local_object(o);
      int& v = value_of(o);
      const int kept = v;
      v = -12345;
      roam::unpack_local_object(o, before.span());
      if (v != kept) fail(std::string(o.type_name) + ": unpack did not restore the state");
      roam::bytes after = roam::pack_local_object(o);
      if (after.size() != before.size() || std::memcmp(after.data(), before.data(), before.size()) != 0)
        fail(std::string(o.type_name) + ": pack/unpack/pack differs");
      const bool even_element = o.id.kind == roam::object_kind::array_element && o.id.index[0] % 2 == 0;
      if (move && (even_element || o.id.kind == roam::object_kind::chare)) to_move.push_back(o.id);
    });
    const std::uint32_t next = (roam::my_pe().value() + 1) % roam::num_pes();
    for (const auto& id : to_move)
      if (!roam::migrate_local_object(id, next)) fail("migrate_local_object refused a migratable object");
    roam::for_each_local_object([&](const roam::local_object& o) {
      if (o.id.kind == roam::object_kind::group_member && roam::migrate_local_object(o.id, next))
        fail("a group member migrated");
    });
    contribute(done);
  }
};

void run_walk(unsigned pes) {
  g_seen.clear();
  g_failures.clear();
  const int n = 3 * static_cast<int>(pes);
  std::vector<seen_object> first;
  int rc = roam_test::run_on(pes, [n, &first](const roam::args&) -> roam::task<> {
    roam::create_array<walk_cell>(roam::array_options<1>({n}));
    roam::create_group<walk_member>();
    roam::create_group<plain_member>();
    roam::create_nodegroup<walk_node>();
    auto c1 = roam::create_chare_on<walk_chare>(roam::pe_id{0});
    auto c2 = roam::create_chare_on<walk_chare>(roam::pe_id{roam::num_pes() - 1});
    co_await c1.call<&walk_chare::ping>();
    co_await c2.call<&walk_chare::ping>();
    auto censuses = roam::create_group<census>();
    for (bool move : {true, false}) {
      auto [f, p] = roam::make_future<>();
      censuses.send<&census::walk>(move, roam::callback<>::to_future(p));
      co_await f;
      auto [fq, pq] = roam::make_future<>();
      roam::on_quiescence(roam::callback<>::to_future(pq));
      co_await fq;
      if (move) {
        std::lock_guard lock(g_mutex);
        first = std::move(g_seen);
        g_seen.clear();
      }
    }
    roam::exit(0);
  });
  ASSERT_EQ(rc, 0);
  for (const auto& f : g_failures) ADD_FAILURE() << f;
  for (const auto* walk : {&first, &g_seen}) {
    std::map<roam::object_kind, int> by_kind;
    std::set<std::string> keys;
    for (const auto& s : *walk) {
      ++by_kind[s.id.kind];
      std::string key = std::to_string(static_cast<int>(s.id.kind)) + "/" + std::to_string(s.id.collection) + "/" +
                        std::to_string(s.id.index[0]) + "/" + std::to_string(s.id.chare_id);
      EXPECT_TRUE(keys.insert(key).second) << "seen twice: " << key << " " << s.type;
      const bool movable = s.id.kind == roam::object_kind::array_element || s.id.kind == roam::object_kind::chare;
      EXPECT_EQ(s.migratable, movable) << s.type;
    }
    EXPECT_EQ(by_kind[roam::object_kind::array_element], n);
    EXPECT_EQ(by_kind[roam::object_kind::group_member], 3 * static_cast<int>(pes));  // three groups
    EXPECT_EQ(by_kind[roam::object_kind::nodegroup_member], 1);
    EXPECT_EQ(by_kind[roam::object_kind::chare], 2);
  }
  // Second walk: moved objects are one PE on with a fresh load slot; the rest kept theirs.
  for (const auto& s : g_seen) {
    auto was = std::find_if(first.begin(), first.end(), [&](const seen_object& f) { return f.id == s.id; });
    ASSERT_NE(was, first.end()) << s.type;
    const bool moved = pes > 1 && ((s.id.kind == roam::object_kind::array_element && s.id.index[0] % 2 == 0) ||
                                   s.id.kind == roam::object_kind::chare);
    EXPECT_EQ(s.pe, moved ? (was->pe + 1) % pes : was->pe) << s.type << " index " << s.id.index[0];
    EXPECT_EQ(s.load, moved ? 0.0 : 1.5) << s.type << " index " << s.id.index[0];
  }
}

TEST(walk, every_object_once_round_trips_and_moves_p1) { run_walk(1); }
TEST(walk, every_object_once_round_trips_and_moves_p2) { run_walk(2); }
TEST(walk, every_object_once_round_trips_and_moves_p4) { run_walk(4); }

}  // namespace

}  // namespace walk_test
