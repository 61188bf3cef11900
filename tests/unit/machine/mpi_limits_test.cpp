// The mpi transport's tunables (no MPI calls: unit_machine is not run under mpirun).
#ifdef ROAM_HAVE_MPI
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "mpi/mpi_limits.hpp"

namespace mpi_limits_test {

using namespace roam::detail;

namespace {
std::map<std::string, std::string> g_env;
const char* fake_getenv(const char* name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}
}  // namespace

TEST(mpi_limits, unset_variables_keep_the_defaults) {
  g_env = {{"ROAM_MPI_MAX_SENDS", ""}};
  mpi_limits l;
  std::string error;
  ASSERT_TRUE(read_mpi_limits(&fake_getenv, l, error)) << error;
  mpi_limits defaults;
  EXPECT_EQ(l.max_sends, defaults.max_sends);
  EXPECT_EQ(l.max_recvs, defaults.max_recvs);
  EXPECT_EQ(l.spin, defaults.spin);
  EXPECT_GT(l.spin.count(), 25) << "the spin must outlast the shortest real sleep (see mpi_limits.hpp)";
}

TEST(mpi_limits, every_variable_is_read) {
  g_env = {{"ROAM_MPI_MAX_SENDS", "3"},     {"ROAM_MPI_MAX_TESTS", "4"},    {"ROAM_MPI_MAX_RECVS", "5"},
           {"ROAM_MPI_MAX_INFLIGHT", "6"},  {"ROAM_MPI_SPIN_US", "0"},      {"ROAM_MPI_MAX_SLEEP_US", "250"},
           {"ROAM_MPI_FINISH_TIMEOUT_S", "9"}, {"ROAM_MPI_SMALL_FRAME", "128"}, {"ROAM_MPI_RECV_SLOTS", "2"},
           {"ROAM_MPI_SPIN_INFLIGHT_US", "77"}, {"ROAM_MPI_HEARTBEAT_INTERVAL_MS", "20"},
           {"ROAM_MPI_HEARTBEAT_TIMEOUT_MS", "300"}};
  mpi_limits l;
  std::string error;
  ASSERT_TRUE(read_mpi_limits(&fake_getenv, l, error)) << error;
  EXPECT_EQ(l.max_sends, 3u);
  EXPECT_EQ(l.max_tests, 4u);
  EXPECT_EQ(l.max_recvs, 5u);
  EXPECT_EQ(l.max_inflight, 6u);
  EXPECT_EQ(l.spin.count(), 0);
  EXPECT_EQ(l.max_sleep.count(), 250);
  EXPECT_EQ(l.finish_timeout.count(), 9);
  EXPECT_EQ(l.small_frame, 128u);
  EXPECT_EQ(l.recv_slots, 2u);
  EXPECT_EQ(l.spin_in_flight.count(), 77);
  EXPECT_EQ(l.heartbeat_interval.count(), 20);
  EXPECT_EQ(l.heartbeat_timeout.count(), 300);
}

TEST(mpi_limits, the_heartbeat_timeout_must_exceed_the_interval) {
  // A timeout within one interval would declare an idle, healthy peer failed.
  g_env = {{"ROAM_MPI_HEARTBEAT_INTERVAL_MS", "500"}, {"ROAM_MPI_HEARTBEAT_TIMEOUT_MS", "500"}};
  mpi_limits l;
  std::string error;
  EXPECT_FALSE(read_mpi_limits(&fake_getenv, l, error));
  EXPECT_NE(error.find("ROAM_MPI_HEARTBEAT_TIMEOUT_MS (500 ms) must exceed"), std::string::npos) << error;
  EXPECT_EQ(l.heartbeat_timeout, mpi_limits{}.heartbeat_timeout) << "a failed read leaves the limits untouched";
  g_env = {{"ROAM_MPI_HEARTBEAT_TIMEOUT_MS", "900"}};  // below the default interval of 1000 ms
  EXPECT_FALSE(read_mpi_limits(&fake_getenv, l, error));
}

TEST(mpi_limits, the_small_frame_limit_must_hold_a_big_frame_header) {
  g_env = {{"ROAM_MPI_SMALL_FRAME", "8"}};
  mpi_limits l;
  std::string error;
  EXPECT_FALSE(read_mpi_limits(&fake_getenv, l, error));
  EXPECT_NE(error.find("ROAM_MPI_SMALL_FRAME='8'"), std::string::npos) << error;
}

TEST(mpi_limits, a_bad_value_names_the_variable_and_the_range_and_changes_nothing) {
  for (const char* bad : {"lots", "0", "-1", "12x", "99999999999"}) {
    g_env = {{"ROAM_MPI_MAX_TESTS", "7"}, {"ROAM_MPI_MAX_RECVS", bad}};
    mpi_limits l;
    std::string error;
    EXPECT_FALSE(read_mpi_limits(&fake_getenv, l, error)) << bad;
    EXPECT_NE(error.find("ROAM_MPI_MAX_RECVS='" + std::string(bad) + "'"), std::string::npos) << error;
    EXPECT_NE(error.find("[1, 1048576]"), std::string::npos) << error;
    EXPECT_EQ(l.max_tests, mpi_limits{}.max_tests) << "a failed read leaves the limits untouched";
  }
}

}  // namespace mpi_limits_test
#endif
