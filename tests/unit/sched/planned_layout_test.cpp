// roam::planned_layout: the PEs roam::run will start, from the options and
// the launcher's environment, before anything starts (ROSS's tw_nnodes()
// after tw_init). Each case sets the variables it needs and restores them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <roam/sched/runtime.hpp>

namespace planned_layout_test {

namespace {

// Sets variables for one scope (unset: nullptr), restoring what was there.
class scoped_env {
 public:
  explicit scoped_env(std::map<std::string, const char*> vars) {
    for (const auto& [name, value] : vars) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
      if (value) ::setenv(name.c_str(), value, 1);
      else ::unsetenv(name.c_str());
    }
  }
  ~scoped_env() {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// No launcher around: what a plain `./program` sees.
std::map<std::string, const char*> no_launcher() {
  return {{"ROAM_TRANSPORT", nullptr}, {"OMPI_COMM_WORLD_SIZE", nullptr}, {"OMPI_COMM_WORLD_RANK", nullptr},
          {"PMI_SIZE", nullptr}, {"PMI_RANK", nullptr}, {"PMIX_RANK", nullptr}, {"ROAM_SPARES", nullptr},
          {"ROAM_TCP_NODES", nullptr}, {"ROAM_TCP_NODE", nullptr}};
}

std::optional<roam::startup_layout> plan(std::vector<std::string> args, std::string& error) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  const std::vector<std::string> before = args;
  auto l = roam::planned_layout(static_cast<int>(argv.size()), argv.data(), error);
  for (std::size_t i = 0; i < argv.size(); ++i) EXPECT_EQ(std::string(argv[i]), before[i]) << "argv changed";
  return l;
}

TEST(PlannedLayout, OneProcessTakesPlusP) {
  scoped_env env(no_launcher());
  std::string error;
  auto l = plan({"model", "--nlp=8", "+p3"}, error);
  ASSERT_TRUE(l) << error;
  EXPECT_EQ(l->num_pes, 3u);
  EXPECT_EQ(l->num_nodes, 1u);
  EXPECT_EQ(l->first_pe(), 0u);
}

TEST(PlannedLayout, RoamrunJob) {
  auto vars = no_launcher();
  vars["ROAM_TRANSPORT"] = "tcp";
  vars["ROAM_TCP_NODES"] = "3";
  vars["ROAM_TCP_NODE"] = "2";
  scoped_env env(vars);
  std::string error;
  auto l = plan({"model", "+ppn", "2"}, error);
  ASSERT_TRUE(l) << error;
  EXPECT_EQ(l->num_pes, 6u);
  EXPECT_EQ(l->num_nodes, 3u);
  EXPECT_EQ(l->first_pe(), 4u);
}

TEST(PlannedLayout, MpiJobWithASpare) {
  auto vars = no_launcher();
  vars["OMPI_COMM_WORLD_SIZE"] = "4";
  vars["OMPI_COMM_WORLD_RANK"] = "3";
  vars["ROAM_SPARES"] = "1";
  scoped_env env(vars);
  std::string error;
  auto l = plan({"model"}, error);
  ASSERT_TRUE(l) << error;
  EXPECT_EQ(l->num_pes, 3u);  // +ppn 1 by default; the spare runs none
  EXPECT_EQ(l->node, 3u);
  EXPECT_EQ(l->first_pe(), 3u);  // a spare: past the last PE
}

TEST(PlannedLayout, MalformedEnvironmentIsNamed) {
  auto vars = no_launcher();
  vars["ROAM_TRANSPORT"] = "tcp";
  vars["ROAM_TCP_NODES"] = "three";
  vars["ROAM_TCP_NODE"] = "0";
  scoped_env env(vars);
  std::string error;
  EXPECT_FALSE(plan({"model"}, error));
  EXPECT_NE(error.find("ROAM_TCP_NODES='three' is not a number"), std::string::npos) << error;
}

TEST(PlannedLayout, BadOptionIsReported) {
  scoped_env env(no_launcher());
  std::string error;
  EXPECT_FALSE(plan({"model", "+p", "many"}, error));
  EXPECT_NE(error.find("+p"), std::string::npos) << error;
}

}  // namespace

}  // namespace planned_layout_test
