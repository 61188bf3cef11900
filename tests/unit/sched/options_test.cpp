// Options declared by a layer or library (roam/sched/options.hpp): the
// scheduler's parser applies them, +help lists them under their layer,
// every parse starts from their defaults, and a name is declared once.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/sched/options.hpp>

#include "support/parse_options.hpp"

namespace sched_options_test {

// What a library would hold: its own settings, declared at static
// initialisation, never named by the scheduler.
struct widget_settings {
  std::uint32_t widgets = 3;
  bool loud = false;
};
widget_settings g_widget;

[[maybe_unused]] const bool registered = roam::register_runtime_options(
    "widget library (tests)",
    {{"unittestwidgets", "ROAM_UNITTESTWIDGETS", "N", "widgets per PE (default 3)",
      [](std::string_view v) { return roam::option_parse::count(v, 1, 100, g_widget.widgets); }},
     {"unittestloud", "", "", "widgets say what they do",
      [](std::string_view v) { return roam::option_parse::flag(v, g_widget.loud); }}},
    [] { g_widget = {}; });

using roam_test::parse_options;

TEST(layer_options, parsed_by_the_scheduler_without_it_knowing_them) {
  auto r = parse_options({"+unittestwidgets", "7", "+unittestloud", "+p2"});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(g_widget.widgets, 7u);
  EXPECT_TRUE(g_widget.loud);
  EXPECT_EQ(r.options.pes, 2u);
  r = parse_options({"+unittestwidgets=9"});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(g_widget.widgets, 9u);
  EXPECT_FALSE(g_widget.loud);  // back to the default: every parse starts from them
}

TEST(layer_options, errors_name_the_option) {
  auto r = parse_options({"+unittestwidgets", "0"});
  EXPECT_NE(r.error.find("runtime option '+unittestwidgets' expects at least 1"), std::string::npos) << r.error;
  r = parse_options({"+unittestwidget"});
  EXPECT_NE(r.error.find("unknown runtime option '+unittestwidget' (+help lists them)"), std::string::npos) << r.error;
  r = parse_options({"+unittestwidgets"});
  EXPECT_NE(r.error.find("'+unittestwidgets' needs a value N"), std::string::npos) << r.error;
}

TEST(layer_options, from_the_environment) {
  ::setenv("ROAM_UNITTESTWIDGETS", "5", 1);
  auto r = parse_options({});
  ::unsetenv("ROAM_UNITTESTWIDGETS");
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(g_widget.widgets, 5u);
}

TEST(layer_options, listed_by_layer_in_help) {
  const std::string help = roam::detail::options_help();
  const auto at = help.find("widget library (tests):\n  +unittestwidgets N");
  EXPECT_NE(at, std::string::npos) << help;
  EXPECT_NE(help.find("widgets per PE (default 3) [ROAM_UNITTESTWIDGETS]"), std::string::npos);
  // The other layers' options are there too, each under its layer.
  EXPECT_NE(help.find("load balancing (src/lb):\n  +balancer"), std::string::npos) << help;
  EXPECT_NE(help.find("tracing (src/trace):\n  +trace[=DIR]"), std::string::npos) << help;
}

TEST(layer_options, a_name_is_declared_once) {
  try {
    roam::register_runtime_options("another library", {{"unittestwidgets", "", "", "again", {}}});
    FAIL() << "a second +unittestwidgets was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("'+unittestwidgets' of another library is already declared by widget library"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(roam::register_runtime_options("x", {{"p", "", "N", "", {}}}), std::logic_error);  // the scheduler's
}

}  // namespace sched_options_test
