// The built-in load balancing strategies as pure functions: balance, how
// many objects they move, what they must never do, and the registry.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/lb/strategy.hpp>

namespace strategies_test {

namespace {

using namespace roam::lb;

/// Loads uniform in [0.1, 1.0), objects placed uniformly at random (imbalanced), from `seed`.
problem random_problem(std::uint32_t pes, std::size_t objects, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> load(0.1, 1.0);
  problem p;
  p.seed = seed;
  p.pes.resize(pes);
  for (std::size_t i = 0; i < objects; ++i) {
    object_load o;
    o.key = 1000 + i;
    o.load = load(gen);
    o.pe = static_cast<std::uint32_t>(gen() % pes);
    p.objects.push_back(o);
  }
  return p;
}

/// Objects of the given loads on PE `pe`, appended to p (keys: their indices).
void put(problem& p, std::uint32_t pe, const std::vector<double>& loads) {
  for (double w : loads) {
    object_load o;
    o.key = p.objects.size();
    o.load = w;
    o.pe = pe;
    p.objects.push_back(o);
  }
}

assignment run(const char* name, const problem& p, const strategy_options& o = {}) {
  const strategy_info* s = find_strategy(name);
  if (s == nullptr) throw std::logic_error(std::string("no strategy ") + name);
  return s->run(p, o);
}

std::vector<std::string> balancing_strategies() {
  std::vector<std::string> names = {"Greedy", "Refine", "GreedyRefine", "Hierarchical", "Rotate", "Random"};
  if (find_strategy("Metis") != nullptr) names.push_back("Metis");
  return names;
}

TEST(lb_strategies, the_built_ins_are_registered_and_listed_sorted) {
  const std::vector<std::string> names = strategy_names();
  for (const char* name : {"Greedy", "Refine", "GreedyRefine", "Rotate", "Random", "Hierarchical"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  if (const strategy_info* metis = find_strategy("Metis")) {
    EXPECT_TRUE(metis->needs_comm);
  }
  EXPECT_FALSE(find_strategy("Greedy")->needs_comm);
  EXPECT_EQ(find_strategy("greedy"), nullptr) << "names are case-sensitive";
}

assignment everything_on_pe_zero(const problem& p, const strategy_options&) {
  return assignment{std::vector<std::uint32_t>(p.objects.size(), 0)};
}

TEST(lb_strategies, a_user_strategy_registers_once_and_a_taken_name_is_refused) {
  EXPECT_TRUE(register_strategy({"TestAllOnZero", "everything on PE 0", everything_on_pe_zero, false}));
  EXPECT_FALSE(register_strategy({"TestAllOnZero", "again", everything_on_pe_zero, false}));
  EXPECT_FALSE(register_strategy({"Greedy", "a second Greedy", everything_on_pe_zero, false}));
  const strategy_info* s = find_strategy("TestAllOnZero");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->description, "everything on PE 0");
  problem p = random_problem(4, 20, 7);
  const assignment a = s->run(p, {});
  EXPECT_EQ(a.pe, std::vector<std::uint32_t>(20, 0));
  const std::vector<std::string> names = strategy_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "TestAllOnZero"), names.end());
  EXPECT_EQ(find_strategy("Greedy")->run, find_strategy("Greedy")->run);
  EXPECT_NE(find_strategy("Greedy")->run, &everything_on_pe_zero) << "the duplicate did not replace the built-in";
  EXPECT_THROW(register_strategy({"", "nameless", everything_on_pe_zero, false}), std::invalid_argument);
  EXPECT_THROW(register_strategy({"TestNoFunction", "", nullptr, false}), std::invalid_argument);
}

TEST(lb_strategies, evaluate_reports_max_average_and_migrations) {
  problem p;
  p.pes.resize(2);
  p.pes[1].speed = 2;
  p.pes[0].background = 1;
  put(p, 0, {2, 3});
  // Work 6 over speed 3: average 2. Staying: PE 0 has 6 -> max 6.
  balance_stats s = evaluate(p, stay(p));
  EXPECT_DOUBLE_EQ(s.avg_load, 2.0);
  EXPECT_DOUBLE_EQ(s.max_load, 6.0);
  EXPECT_DOUBLE_EQ(s.max_over_avg, 3.0);
  EXPECT_EQ(s.migrations, 0u);
  s = evaluate(p, assignment{{0, 1}});  // PE 0: 1 + 2 = 3; PE 1: 3 / 2 = 1.5
  EXPECT_DOUBLE_EQ(s.max_load, 3.0);
  EXPECT_EQ(s.migrations, 1u);
  EXPECT_THROW(evaluate(p, assignment{{0}}), std::invalid_argument);
  EXPECT_THROW(evaluate(p, assignment{{0, 2}}), std::invalid_argument);
  problem empty;
  empty.pes.resize(3);
  EXPECT_DOUBLE_EQ(evaluate(empty, stay(empty)).max_over_avg, 1.0);
}

TEST(lb_strategies, greedy_reaches_max_over_average_within_5_percent_with_8_objects_per_pe) {
  for (std::uint32_t pes : {1u, 2u, 4u, 64u})
    for (std::uint64_t seed : {11u, 12u, 13u}) {
      std::cout << "[ seed ] pes " << pes << " seed " << seed << "\n";
      const problem p = random_problem(pes, 8 * pes, seed);
      const balance_stats s = evaluate(p, run("Greedy", p));
      EXPECT_LE(s.max_over_avg, 1.05) << "pes " << pes << " seed " << seed;
    }
}

TEST(lb_strategies, greedy_counts_background_and_fixed_objects_before_placing) {
  problem p;
  p.pes.resize(2);
  p.pes[0].background = 4;
  put(p, 1, {3});
  p.objects[0].migratable = false;  // PE 1 holds 3 fixed
  put(p, 0, {1, 1, 1, 1});
  const assignment a = run("Greedy", p);
  const balance_stats s = evaluate(p, a);
  // 11 seconds of work in units over two PEs: the best is 6 and 5 (ignoring the fixed work gives 4 + 2 and 3 + 2).
  EXPECT_DOUBLE_EQ(s.max_load, 6.0);
  EXPECT_EQ(a.pe[0], 1u);
}

TEST(lb_strategies, greedy_gives_faster_pes_proportionally_more) {
  problem p = random_problem(4, 400, 21);
  p.pes[1].speed = 2;
  p.pes[3].speed = 4;
  const assignment a = run("Greedy", p);
  const balance_stats s = evaluate(p, a);
  EXPECT_LE(s.max_over_avg, 1.05);
  std::vector<double> load(4);
  for (std::size_t i = 0; i < p.objects.size(); ++i) load[a.pe[i]] += p.objects[i].load;
  EXPECT_NEAR(load[3] / load[0], 4.0, 0.4);
  EXPECT_NEAR(load[1] / load[0], 2.0, 0.2);
}

TEST(lb_strategies, no_strategy_moves_a_non_migratable_object) {
  problem p = random_problem(8, 200, 31);
  for (std::size_t i = 0; i < p.objects.size(); i += 3) p.objects[i].migratable = false;
  strategy_options o;
  o.group_pes = 2;
  for (const std::string& name : balancing_strategies()) {
    const assignment a = run(name.c_str(), p, o);
    ASSERT_EQ(a.pe.size(), p.objects.size()) << name;
    for (std::size_t i = 0; i < p.objects.size(); i += 3) EXPECT_EQ(a.pe[i], p.objects[i].pe) << name << " object " << i;
  }
}

TEST(lb_strategies, unavailable_pes_receive_nothing_and_are_emptied) {
  problem p = random_problem(8, 160, 41);
  p.pes[2].available = false;
  p.pes[5].available = false;
  p.objects[0].pe = 2;
  p.objects[0].migratable = false;  // stays on its unavailable PE
  strategy_options o;
  o.group_pes = 4;
  for (const std::string& name : balancing_strategies()) {
    const assignment a = run(name.c_str(), p, o);
    EXPECT_EQ(a.pe[0], 2u) << name;
    for (std::size_t i = 1; i < p.objects.size(); ++i)
      EXPECT_TRUE(p.pes[a.pe[i]].available) << name << " put object " << i << " on PE " << a.pe[i];
  }
}

TEST(lb_strategies, every_strategy_answers_the_same_problem_the_same_way) {
  problem p = random_problem(16, 300, 51);
  p.edges.push_back({0, 1, 10, 1000});
  p.edges.push_back({2, 3, 5, 500});
  strategy_options o;
  o.group_pes = 4;
  for (const std::string& name : balancing_strategies()) EXPECT_EQ(run(name.c_str(), p, o).pe, run(name.c_str(), p, o).pe) << name;
}

TEST(lb_strategies, invalid_input_is_refused_with_a_message_not_a_crash) {
  for (const std::string& name : balancing_strategies()) {
    const auto message = [&](const problem& bad) -> std::string {
      try {
        run(name.c_str(), bad);
      } catch (const std::invalid_argument& e) {
        return e.what();
      }
      return "(nothing thrown)";
    };
    problem p = random_problem(4, 10, 61);
    p.objects[3].pe = 4;
    EXPECT_NE(message(p).find("object 3 (key 1003) is on PE 4 but the problem has 4 PEs"), std::string::npos)
        << name << ": " << message(p);
    EXPECT_NE(message(p).find(name + ":"), std::string::npos) << message(p);
    problem none = random_problem(4, 10, 61);
    none.pes.clear();
    EXPECT_NE(message(none).find("no PE"), std::string::npos) << name;
    problem closed = random_problem(2, 10, 61);
    closed.pes[0].available = closed.pes[1].available = false;
    EXPECT_NE(message(closed).find("no PE is available"), std::string::npos) << name;
    problem negative = random_problem(2, 10, 61);
    negative.objects[1].load = -1;
    EXPECT_NE(message(negative).find("load"), std::string::npos) << name;
    problem slow = random_problem(2, 10, 61);
    slow.pes[1].speed = 0;
    EXPECT_NE(message(slow).find("speed"), std::string::npos) << name;
    problem edge = random_problem(2, 10, 61);
    edge.edges.push_back({1, 10, 1, 1});
    EXPECT_NE(message(edge).find("edge 0"), std::string::npos) << name;
  }
  strategy_options loose;
  loose.refine_tolerance = 0.5;
  EXPECT_THROW(run("Refine", random_problem(2, 10, 1), loose), std::invalid_argument);
}

TEST(lb_strategies, refine_never_makes_max_over_average_worse) {
  for (std::uint64_t seed = 100; seed < 110; ++seed) {
    std::cout << "[ seed ] " << seed << "\n";
    const problem p = random_problem(8, 40 + seed % 7 * 10, seed);
    const balance_stats before = evaluate(p, stay(p));
    const balance_stats after = evaluate(p, run("Refine", p));
    EXPECT_LE(after.max_over_avg, before.max_over_avg) << "seed " << seed;
    EXPECT_LT(after.migrations, p.objects.size()) << "seed " << seed;
  }
}

TEST(lb_strategies, refine_moves_one_object_when_one_pe_is_over_by_one_object) {
  problem p;
  p.pes.resize(4);
  put(p, 0, {1, 1, 1, 1, 1});
  put(p, 1, {1, 1, 1});
  put(p, 2, {1, 1, 1, 1});
  put(p, 3, {1, 1, 1, 1});
  const assignment a = run("Refine", p);
  const balance_stats s = evaluate(p, a);
  EXPECT_EQ(s.migrations, 1u);
  EXPECT_DOUBLE_EQ(s.max_over_avg, 1.0);
}

TEST(lb_strategies, refine_moves_the_object_that_best_fits_the_excess) {
  problem p;
  p.pes.resize(4);
  put(p, 0, {3, 1, 0.5, 0.5});  // 5: one over the average of 4
  put(p, 1, {1, 1, 1});
  put(p, 2, {1, 1, 1, 1});
  put(p, 3, {1, 1, 1, 1});
  const assignment a = run("Refine", p);
  EXPECT_EQ(evaluate(p, a).migrations, 1u);
  EXPECT_EQ(a.pe[1], 1u) << "the object of load 1 goes to PE 1, the only one with room";
  EXPECT_DOUBLE_EQ(evaluate(p, a).max_over_avg, 1.0);
}

TEST(lb_strategies, refine_moves_exactly_the_minimum_when_two_pes_must_each_take_one) {
  problem p;
  p.pes.resize(4);
  put(p, 0, {1, 1, 1, 1, 1, 1});
  put(p, 1, {1, 1, 1});
  put(p, 2, {1, 1, 1});
  put(p, 3, {1, 1, 1, 1});
  const assignment a = run("Refine", p);
  EXPECT_EQ(evaluate(p, a).migrations, 2u);
  EXPECT_DOUBLE_EQ(evaluate(p, a).max_over_avg, 1.0);
}

TEST(lb_strategies, refine_leaves_a_placement_within_tolerance_alone) {
  problem p;
  p.pes.resize(3);
  put(p, 0, {1, 1, 1.01});
  put(p, 1, {1, 1, 1});
  put(p, 2, {1, 0.99, 1});
  EXPECT_EQ(evaluate(p, run("Refine", p)).migrations, 0u);
  // Nothing fits anywhere without making it worse: stays.
  problem lumpy;
  lumpy.pes.resize(2);
  put(lumpy, 0, {5});
  put(lumpy, 1, {4});
  EXPECT_EQ(evaluate(lumpy, run("Refine", lumpy)).migrations, 0u);
}

TEST(lb_strategies, greedy_refine_balances_like_greedy_with_fewer_migrations) {
  for (std::uint64_t seed : {201u, 202u, 203u}) {
    std::cout << "[ seed ] " << seed << "\n";
    // Round-robin (fairly balanced), then a tenth of the objects moved at random.
    problem p = random_problem(16, 16 * 12, seed);
    std::mt19937_64 gen(seed);
    for (std::size_t i = 0; i < p.objects.size(); ++i)
      p.objects[i].pe = static_cast<std::uint32_t>(gen() % 10 == 0 ? gen() % 16 : i % 16);
    const balance_stats greedy = evaluate(p, run("Greedy", p));
    const balance_stats refined = evaluate(p, run("GreedyRefine", p));
    EXPECT_LE(refined.max_over_avg, std::max(greedy.max_over_avg, 1.02) + 1e-9) << "seed " << seed;
    EXPECT_LT(refined.migrations * 2, greedy.migrations) << "seed " << seed;
  }
}

TEST(lb_strategies, rotate_moves_every_migratable_object_by_one_more_than_the_step) {
  problem p;
  p.pes.resize(4);
  for (std::uint32_t q = 0; q < 4; ++q) put(p, q, {1});
  EXPECT_EQ(run("Rotate", p).pe, (std::vector<std::uint32_t>{1, 2, 3, 0}));
  p.step = 1;
  EXPECT_EQ(run("Rotate", p).pe, (std::vector<std::uint32_t>{2, 3, 0, 1}));
  p.step = 3;  // 1 + 3 mod 3 = 1: always a move
  EXPECT_EQ(run("Rotate", p).pe, (std::vector<std::uint32_t>{1, 2, 3, 0}));
  p.step = 0;
  p.pes[2].available = false;  // skipped: the next available PE takes its arrivals
  EXPECT_EQ(run("Rotate", p).pe, (std::vector<std::uint32_t>{1, 3, 3, 0}));
  problem one;
  one.pes.resize(1);
  put(one, 0, {1, 2});
  EXPECT_EQ(run("Rotate", one).pe, (std::vector<std::uint32_t>{0, 0}));
}

TEST(lb_strategies, random_draws_available_pes_from_the_seed_only) {
  problem p = random_problem(8, 400, 301);
  p.pes[4].available = false;
  const assignment a = run("Random", p);
  EXPECT_EQ(a.pe, run("Random", p).pe);
  std::vector<int> count(8);
  for (std::uint32_t pe : a.pe) ++count[pe];
  EXPECT_EQ(count[4], 0);
  for (std::uint32_t q : {0u, 1u, 2u, 3u, 5u, 6u, 7u}) EXPECT_GT(count[q], 20) << "PE " << q;
  problem other = p;
  other.seed = 302;
  EXPECT_NE(run("Random", other).pe, a.pe);
  other = p;
  other.step = 1;
  EXPECT_NE(run("Random", other).pe, a.pe);
}

/// Two clusters of 10 objects, all pairs inside a cluster talking heavily,
/// one light edge between them, placed alternately on two PEs.
problem two_clusters() {
  problem p;
  p.pes.resize(2);
  for (std::uint32_t i = 0; i < 20; ++i) put(p, i % 2, {1.0});
  for (std::uint32_t c = 0; c < 2; ++c)
    for (std::uint32_t i = 0; i < 10; ++i)
      for (std::uint32_t j = i + 1; j < 10; ++j) p.edges.push_back({c * 10 + i, c * 10 + j, 100, 1u << 20});
  p.edges.push_back({0, 10, 1, 8});
  return p;
}

TEST(lb_strategies, metis_puts_each_heavily_communicating_cluster_on_one_pe) {
  if (find_strategy("Metis") == nullptr) GTEST_SKIP() << "built without METIS";
  const problem p = two_clusters();
  const assignment a = run("Metis", p);
  for (std::uint32_t i = 1; i < 10; ++i) {
    EXPECT_EQ(a.pe[i], a.pe[0]) << "object " << i;
    EXPECT_EQ(a.pe[10 + i], a.pe[10]) << "object " << 10 + i;
  }
  EXPECT_NE(a.pe[0], a.pe[10]);
  EXPECT_LE(evaluate(p, a).max_over_avg, 1.05);
}

TEST(lb_strategies, metis_maps_parts_to_the_pes_that_hold_most_of_them) {
  if (find_strategy("Metis") == nullptr) GTEST_SKIP() << "built without METIS";
  problem p = two_clusters();
  // Cluster 0 mostly on PE 1, cluster 1 mostly on PE 0: the parts follow.
  for (std::uint32_t i = 0; i < 10; ++i) p.objects[i].pe = i < 8 ? 1 : 0;
  for (std::uint32_t i = 10; i < 20; ++i) p.objects[i].pe = i < 18 ? 0 : 1;
  const assignment a = run("Metis", p);
  EXPECT_EQ(a.pe[0], 1u);
  EXPECT_EQ(a.pe[10], 0u);
  EXPECT_EQ(evaluate(p, a).migrations, 4u);
}

/// Objects block-placed with a load ramp, so later PEs start far heavier.
problem ramp_problem(std::uint32_t pes, std::size_t objects, std::uint64_t seed) {
  problem p = random_problem(pes, objects, seed);
  for (std::size_t i = 0; i < objects; ++i) {
    p.objects[i].pe = static_cast<std::uint32_t>(i * pes / objects);
    p.objects[i].load *= 1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(objects);
  }
  return p;
}

TEST(lb_strategies, hierarchical_is_within_5_percent_of_flat_greedy) {
  struct shape {
    std::uint32_t pes, group_pes;
    std::size_t objects;
  };
  for (const shape s : {shape{64, 8, 64 * 12}, shape{1024, 32, 1024 * 8}}) {
    const std::uint64_t seed = 401 + s.pes;
    std::cout << "[ seed ] " << seed << " pes " << s.pes << "\n";
    const problem p = ramp_problem(s.pes, s.objects, seed);
    strategy_options o;
    o.group_pes = s.group_pes;
    const balance_stats greedy = evaluate(p, run("Greedy", p));
    const balance_stats hier = evaluate(p, run("Hierarchical", p, o));
    EXPECT_LE(hier.max_over_avg, greedy.max_over_avg * 1.05) << s.pes << " PEs";
    EXPECT_LT(hier.migrations, greedy.migrations) << s.pes << " PEs";
  }
}

TEST(lb_strategies, hierarchical_groups_by_the_pe_group_field_and_checks_its_inner_strategy) {
  problem p = ramp_problem(16, 16 * 10, 501);
  for (std::uint32_t q = 0; q < 16; ++q) p.pes[q].group = 7 + q % 4;  // interleaved groups, sparse numbers
  const balance_stats s = evaluate(p, run("Hierarchical", p));
  EXPECT_LE(s.max_over_avg, evaluate(p, run("Greedy", p)).max_over_avg * 1.05);
  strategy_options o;
  o.inner = "Refine";
  EXPECT_LE(evaluate(p, run("Hierarchical", p, o)).max_over_avg, evaluate(p, stay(p)).max_over_avg);
  o.inner = "NoSuchStrategy";
  EXPECT_THROW(run("Hierarchical", p, o), std::invalid_argument);
  o.inner = "Hierarchical";
  EXPECT_THROW(run("Hierarchical", p, o), std::invalid_argument);
}

TEST(lb_strategies, hierarchical_empties_a_group_with_no_available_pe) {
  problem p = random_problem(8, 80, 601);
  for (std::uint32_t q = 4; q < 8; ++q) p.pes[q].available = false;
  strategy_options o;
  o.group_pes = 4;
  const assignment a = run("Hierarchical", p, o);
  for (std::uint32_t pe : a.pe) EXPECT_LT(pe, 4u);
  EXPECT_LE(evaluate(p, a).max_over_avg, 1.1);
}

}  // namespace

}  // namespace strategies_test
