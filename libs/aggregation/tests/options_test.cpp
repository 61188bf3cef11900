// The aggregation library's +agg_* options: declared by the library, parsed
// by the scheduler without it knowing them, listed under the library in
// +help; they are the defaults an aggregator takes where the program left 0.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <roam/aggregation/detail/command_line.hpp>

#include "support/parse_options.hpp"

namespace aggregation_options_test {

using roam::aggregation::detail::command_line_defaults;
using roam_test::parse_options;

TEST(aggregation_options, listed_under_the_library_in_help) {
  const std::string help = roam::detail::options_help();
  EXPECT_NE(help.find("message aggregation (libs/aggregation):\n  +agg_buffer N"), std::string::npos) << help;
  EXPECT_NE(help.find("+agg_in_flight N"), std::string::npos) << help;
  EXPECT_NE(help.find("+agg_dims D"), std::string::npos) << help;
}

TEST(aggregation_options, parsed_by_the_scheduler) {
  auto r = parse_options({"+agg_buffer", "64", "+agg_in_flight=2", "+agg_dims", "3", "+p2"});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(command_line_defaults().items_per_buffer, 64u);
  EXPECT_EQ(command_line_defaults().buffers_in_flight, 2u);
  EXPECT_EQ(command_line_defaults().dims, 3u);
  EXPECT_EQ(r.options.pes, 2u);
  r = parse_options({});  // every parse starts from the library's defaults
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(command_line_defaults().items_per_buffer, 1024u);
  EXPECT_EQ(command_line_defaults().buffers_in_flight, 8u);
  EXPECT_EQ(command_line_defaults().dims, 0u);
}

TEST(aggregation_options, bad_values_name_the_option) {
  auto r = parse_options({"+agg_dims", "4"});
  EXPECT_NE(r.error.find("'+agg_dims'"), std::string::npos) << r.error;
  r = parse_options({"+agg_buffer", "0"});
  EXPECT_NE(r.error.find("'+agg_buffer' expects at least 1"), std::string::npos) << r.error;
  ::setenv("ROAM_AGG_BUFFER", "12", 1);
  r = parse_options({});
  ::unsetenv("ROAM_AGG_BUFFER");
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(command_line_defaults().items_per_buffer, 12u);
  ASSERT_TRUE(parse_options({}).error.empty());
}

}  // namespace aggregation_options_test
