// The pdes library's +pdes_* options: declared by the library, parsed by the
// scheduler without it knowing them, listed under the library in +help, and
// applied over the program's engine_options by resolve().
#include <gtest/gtest.h>

#include <string>

#include <roam/pdes/simulation.hpp>

#include "support/parse_options.hpp"

namespace pdes_options_test {

using roam_test::parse_options;
namespace pdes = roam::pdes;

pdes::engine_options a_program_s_options() {
  pdes::engine_options o;
  o.lps = 8;
  o.end = 100;
  o.lps_per_chare = 2;  // resolve() would otherwise ask how many PEs run
  return o;
}

TEST(pdes_options, listed_under_the_library_in_help) {
  const std::string help = roam::detail::options_help();
  EXPECT_NE(help.find("parallel discrete-event simulation (libs/pdes):\n  +pdes_synch MODE"), std::string::npos) << help;
  for (const char* name : {"+pdes_batch N", "+pdes_gvt_interval N", "+pdes_optimism auto|none|T", "+pdes_efficiency F",
                           "+pdes_check_gvt", "[ROAM_PDES_BATCH]"})
    EXPECT_NE(help.find(name), std::string::npos) << name;
}

TEST(pdes_options, override_the_program_s_values) {
  auto r = parse_options({"+pdes_synch", "conservative", "+pdes_batch=16", "+pdes_gvt_interval", "4",
                          "+pdes_efficiency", "0.9", "+pdes_check_gvt", "+p2"});
  ASSERT_TRUE(r.error.empty()) << r.error;
  pdes::engine_options o = a_program_s_options();
  o.lookahead = 0.5;
  o = pdes::resolve(o);
  EXPECT_EQ(o.mode, pdes::synch::conservative);
  EXPECT_EQ(o.batch, 16u);
  EXPECT_EQ(o.gvt_interval, 4u);
  EXPECT_DOUBLE_EQ(o.target_efficiency, 0.9);
  EXPECT_TRUE(o.check_gvt);
  EXPECT_EQ(r.options.pes, 2u);  // the scheduler's own options still parse beside them
}

TEST(pdes_options, the_optimism_window) {
  ASSERT_TRUE(parse_options({"+pdes_optimism=2.5"}).error.empty());
  pdes::engine_options o = pdes::resolve(a_program_s_options());
  EXPECT_FALSE(o.auto_optimism);
  EXPECT_DOUBLE_EQ(o.max_optimism, 2.5);
  ASSERT_TRUE(parse_options({"+pdes_optimism", "none"}).error.empty());
  o = pdes::resolve(a_program_s_options());
  EXPECT_FALSE(o.auto_optimism);
  EXPECT_EQ(o.max_optimism, pdes::infinite_time);
  pdes::engine_options fixed = a_program_s_options();
  fixed.auto_optimism = false;
  fixed.max_optimism = 3;
  ASSERT_TRUE(parse_options({"+pdes_optimism", "auto"}).error.empty());
  o = pdes::resolve(fixed);
  EXPECT_TRUE(o.auto_optimism);
  EXPECT_EQ(o.max_optimism, pdes::infinite_time);
}

TEST(pdes_options, none_given_leaves_the_program_s_values) {
  ASSERT_TRUE(parse_options({"+pdes_batch", "8"}).error.empty());
  ASSERT_TRUE(parse_options({}).error.empty());  // every parse starts from the defaults
  pdes::engine_options mine = a_program_s_options();
  mine.batch = 200;
  mine.mode = pdes::synch::optimistic_check;
  const pdes::engine_options o = pdes::resolve(mine);
  EXPECT_EQ(o.batch, 200u);
  EXPECT_EQ(o.mode, pdes::synch::optimistic_check);
  EXPECT_TRUE(o.auto_optimism);
  EXPECT_FALSE(o.check_gvt);
}

TEST(pdes_options, bad_values_name_the_option) {
  auto r = parse_options({"+pdes_synch", "warp"});
  EXPECT_NE(r.error.find("'+pdes_synch'"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("'warp' is not a scheduler"), std::string::npos) << r.error;
  r = parse_options({"+pdes_efficiency", "1"});
  EXPECT_NE(r.error.find("'1' is not an efficiency between 0 and 1"), std::string::npos) << r.error;
  r = parse_options({"+pdes_optimism", "-1"});
  EXPECT_NE(r.error.find("'-1' is not auto, none or a window above 0"), std::string::npos) << r.error;
  r = parse_options({"+pdes_batch", "0"});
  EXPECT_NE(r.error.find("'+pdes_batch' expects at least 1"), std::string::npos) << r.error;
  ASSERT_TRUE(parse_options({}).error.empty());
}

TEST(pdes_options, from_the_environment) {
  ::setenv("ROAM_PDES_BATCH", "32", 1);
  auto r = parse_options({});
  ::unsetenv("ROAM_PDES_BATCH");
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(pdes::resolve(a_program_s_options()).batch, 32u);
  ASSERT_TRUE(parse_options({}).error.empty());
}

}  // namespace pdes_options_test
