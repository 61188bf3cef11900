// roam::checkpoint in a running program (include/roam/ft/checkpoint.hpp),
// each test a small program run in-process on 2 PEs:
//   - a checkpoint of every object kind reports the exact object count, the
//     bytes on disk, its number and path, and leaves exactly one directory;
//   - refusals (a task suspended on a future, an element without pup, a
//     reduction partly contributed) fail through the callback, leave nothing
//     in the directory, and the program goes on unharmed;
//   - a second request while one runs fails on its own; a directory that is
//     a regular file fails with its path; keep = 1 keeps only the newest;
//   - the callback waits for every message in flight when it was asked.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <roam/ft/checkpoint.hpp>
#include <roam/roam.hpp>

#include "support/run_roam.hpp"

namespace checkpoint_test {

namespace {

namespace fs = std::filesystem;
using roam_test::run_on;

/// A fresh directory per test, removed at the end.
class scratch_dir {
 public:
  scratch_dir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("roam-ft-checkpoint-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~scratch_dir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

/// The names directly in `dir`, sorted (empty when it does not exist).
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// `text` contains `part` (gtest here has no gmock matchers).
bool mentions(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Sum of the sizes of every regular file under `dir`.
std::uint64_t bytes_under(const fs::path& dir) {
  std::uint64_t total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) total += entry.file_size();
  return total;
}

/// Takes a checkpoint and hands back what its callback reported. Awaited from
/// main, whose task belongs to no object, so it does not stop the cut.
roam::task<roam::checkpoint_result> checkpoint_into(fs::path dir, roam::checkpoint_options options = {}) {
  auto [saved, done] = roam::make_future_callback<roam::checkpoint_result>();
  roam::checkpoint(dir.string(), done, options);
  co_return co_await saved;
}

template <class Main>
void run_program(Main main) {
  EXPECT_EQ(run_on(2, std::move(main)), 0);
}

// ---------------------------------------------------------------------------
// 1. Every kind of object.

struct tally : roam::chare<tally> {
  int seen = 3;
  void pup(roam::pup_er& p) { p | seen; }
};
struct dense_cell : roam::element<dense_cell> {
  long value = 7;
  void pup(roam::pup_er& p) { p | value; }
};
struct sparse_cell : roam::element<sparse_cell, roam::index<2>> {
  std::string label = "sparse";
  void pup(roam::pup_er& p) { p | label; }
};
struct per_pe : roam::group_member<per_pe> {
  std::vector<int> history{1, 2, 3};
  void pup(roam::pup_er& p) { p | history; }
};
struct per_process : roam::nodegroup_member<per_process> {
  std::uint64_t total = 11;
  void pup(roam::pup_er& p) { p | total; }
};

TEST(checkpoint, saves_every_object_kind_and_reports_what_it_wrote) {
  constexpr std::uint64_t dense_elements = 6, sparse_elements = 3;
  scratch_dir dir;
  roam::checkpoint_result r;
  std::uint32_t pes = 0, processes = 0;
  run_program([&](const roam::args&) -> roam::task<> {
    pes = roam::num_pes();
    processes = roam::num_nodes();
    roam::create_chare_on<tally>(roam::pe_id{1});
    roam::create_array<dense_cell>({static_cast<std::int32_t>(dense_elements)});
    auto sparse = roam::create_sparse_array<sparse_cell>();
    sparse.insert({0, 0});
    sparse.insert({4, 1});
    sparse.insert({9, 9});
    sparse.done_inserting();
    roam::create_group<per_pe>();
    roam::create_nodegroup<per_process>();
    r = co_await checkpoint_into(dir.path());
    roam::exit(0);
  });
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.restarted);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.number, 1u);
  EXPECT_EQ(pes, 2u);
  EXPECT_EQ(r.pes, pes);
  EXPECT_EQ(r.processes, processes);
  // One chare, the elements, a group member per PE, a nodegroup member per process.
  EXPECT_EQ(r.objects, 1 + dense_elements + sparse_elements + pes + processes);
  EXPECT_EQ(fs::path(r.path), dir.path() / "ckpt-00000001");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"ckpt-00000001"});

  std::vector<std::string> expected_files{"manifest"};
  for (std::uint32_t p = 0; p < processes; ++p) {
    char name[32];
    std::snprintf(name, sizeof name, "process-%04u.dat", static_cast<unsigned>(p));
    expected_files.emplace_back(name);
  }
  std::sort(expected_files.begin(), expected_files.end());
  EXPECT_EQ(names_in(r.path), expected_files);
  EXPECT_EQ(r.bytes, bytes_under(r.path));
  EXPECT_GE(r.seconds, 0.0);
}

// ---------------------------------------------------------------------------
// 2. A coroutine entry suspended on a future (not a restart entry on a mailbox).

struct holder : roam::element<holder> {
  roam::promise<int> wake;  // not state: lives only while the task waits
  int woken_with = 0;
  roam::task<> wait_for_wake(roam::callback<int> finished) {
    auto [woken, p] = roam::make_future<int>();
    wake = p;
    woken_with = co_await woken;
    finished.send(woken_with);
  }
  void wake_up(int v) { wake.set_value(v); }
  void pup(roam::pup_er& p) { p | woken_with; }
};

TEST(checkpoint, a_task_suspended_on_a_future_refuses_it_and_the_program_goes_on) {
  scratch_dir dir;
  roam::checkpoint_result refused, later;
  std::vector<std::string> left_after_refusal;
  int woken_with = 0;
  run_program([&](const roam::args&) -> roam::task<> {
    auto holders = roam::create_array<holder>({2});
    auto [finished, finished_cb] = roam::make_future_callback<int>();
    holders[1].send<&holder::wait_for_wake>(finished_cb);
    refused = co_await checkpoint_into(dir.path());
    left_after_refusal = names_in(dir.path());
    holders[1].send<&holder::wake_up>(42);
    woken_with = co_await finished;
    later = co_await checkpoint_into(dir.path());
    roam::exit(0);
  });
  EXPECT_FALSE(refused.ok);
  EXPECT_TRUE(mentions(refused.error, "array ")) << refused.error;
  EXPECT_TRUE(mentions(refused.error, "holder[1]")) << refused.error;
  EXPECT_TRUE(mentions(refused.error, "cannot be checkpointed")) << refused.error;
  EXPECT_TRUE(mentions(refused.error, "suspended")) << refused.error;
  EXPECT_EQ(refused.path, "");
  EXPECT_TRUE(left_after_refusal.empty()) << "a refused checkpoint left " << left_after_refusal.front();
  EXPECT_EQ(woken_with, 42) << "the suspended task did not go on after the refusal";
  ASSERT_TRUE(later.ok) << later.error;
  // last_number (src/ft/format_directories.cpp) counts .partial directories too, but the
  // refused attempt removed its ckpt-00000001.partial, so number 1 is free again.
  EXPECT_EQ(later.number, 1u);
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"ckpt-00000001"});
}

// ---------------------------------------------------------------------------
// 3. An element type without pup.

struct opaque : roam::element<opaque> {
  int secret = 5;  // no pup: its state cannot be saved
  void poke() { ++secret; }
};

TEST(checkpoint, an_element_without_pup_refuses_it_naming_its_type) {
  scratch_dir dir;
  roam::checkpoint_result r;
  std::vector<std::string> left;
  run_program([&](const roam::args&) -> roam::task<> {
    auto opaques = roam::create_array<opaque>({2});
    opaques.send<&opaque::poke>();
    r = co_await checkpoint_into(dir.path());
    left = names_in(dir.path());
    roam::exit(0);
  });
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(mentions(r.error, "opaque[")) << r.error;
  EXPECT_TRUE(mentions(r.error, "cannot be checkpointed")) << r.error;
  EXPECT_TRUE(mentions(r.error, "pup")) << r.error;
  EXPECT_TRUE(left.empty()) << "a refused checkpoint left " << left.front();
}

// ---------------------------------------------------------------------------
// 4. A reduction partly contributed at the cut.

struct half : roam::element<half> {
  void give(roam::callback<long> sum) { contribute(10L * (this_index()[0] + 1), roam::sum, sum); }
  void pup(roam::pup_er&) {}
};

TEST(checkpoint, a_reduction_partly_contributed_refuses_it_and_completes_afterwards) {
  scratch_dir dir;
  roam::checkpoint_result refused, later;
  std::vector<std::string> left_after_refusal;
  long total = 0;
  run_program([&](const roam::args&) -> roam::task<> {
    auto halves = roam::create_array<half>({2});
    auto [summed, sum_cb] = roam::make_future_callback<long>();
    halves[0].send<&half::give>(sum_cb);
    refused = co_await checkpoint_into(dir.path());
    left_after_refusal = names_in(dir.path());
    // Only now does element 1 contribute: the refused checkpoint must not have lost element 0's part.
    halves[1].send<&half::give>(sum_cb);
    total = co_await summed;
    later = co_await checkpoint_into(dir.path());
    roam::exit(0);
  });
  EXPECT_FALSE(refused.ok);
  EXPECT_TRUE(mentions(refused.error, "partly contributed")) << refused.error;
  EXPECT_TRUE(left_after_refusal.empty()) << "a refused checkpoint left " << left_after_refusal.front();
  EXPECT_EQ(total, 10 + 20);
  EXPECT_TRUE(later.ok) << later.error;
}

// ---------------------------------------------------------------------------
// 4b. A balancing step half entered: one element waits in at_sync for the
// other. A restarted program would know nothing of the step, so the element
// could never resume: refused, and the step completes afterwards.

struct syncer : roam::element<syncer> {
  syncer() = default;
  explicit syncer(roam::migrating) {}
  roam::callback<void> resumed;
  void sync(roam::callback<void> cb) {
    resumed = cb;
    at_sync();
  }
  void resume_from_sync() { resumed.send(); }
  void pup(roam::pup_er& p) { p | resumed; }
};

TEST(checkpoint, objects_waiting_in_at_sync_refuse_it_and_the_step_completes_afterwards) {
  scratch_dir dir;
  roam::checkpoint_result refused, later;
  EXPECT_EQ(run_on(2,
                   [&](const roam::args&) -> roam::task<> {
                     auto syncers = roam::create_array<syncer>({2});
                     auto [first, first_cb] = roam::make_future_callback<void>();
                     auto [second, second_cb] = roam::make_future_callback<void>();
                     syncers[0].send<&syncer::sync>(first_cb);
                     refused = co_await checkpoint_into(dir.path());
                     syncers[1].send<&syncer::sync>(second_cb);
                     co_await first;
                     co_await second;
                     later = co_await checkpoint_into(dir.path());
                     roam::exit(0);
                   },
                   {"+balancer", "Rotate"}),
            0);
  EXPECT_FALSE(refused.ok);
  EXPECT_TRUE(mentions(refused.error, "during load balancing")) << refused.error;
  EXPECT_TRUE(later.ok) << later.error;
}

// ---------------------------------------------------------------------------
// 4c. Not durable: the same files and the same publication, without fsync.

TEST(checkpoint, a_checkpoint_that_is_not_durable_writes_the_same_files) {
  scratch_dir dir;
  roam::checkpoint_result durable, fast;
  run_program([&](const roam::args&) -> roam::task<> {
    auto cells = roam::create_array<dense_cell>({6});
    (void)cells;
    durable = co_await checkpoint_into(dir.path());
    fast = co_await checkpoint_into(dir.path(), {.keep = 2, .durable = false});
    roam::exit(0);
  });
  ASSERT_TRUE(durable.ok) << durable.error;
  ASSERT_TRUE(fast.ok) << fast.error;
  EXPECT_EQ(fast.number, 2u);
  EXPECT_EQ(fast.objects, durable.objects);
  EXPECT_EQ(fast.bytes, bytes_under(fast.path));
  EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{"ckpt-00000001", "ckpt-00000002"}));
}

// ---------------------------------------------------------------------------
// 5. Two requests back to back.

TEST(checkpoint, a_second_request_while_one_runs_fails_through_its_own_callback) {
  scratch_dir dir;
  roam::checkpoint_result first, second;
  run_program([&](const roam::args&) -> roam::task<> {
    roam::create_array<dense_cell>({4});
    auto [first_saved, first_cb] = roam::make_future_callback<roam::checkpoint_result>();
    auto [second_saved, second_cb] = roam::make_future_callback<roam::checkpoint_result>();
    roam::checkpoint(dir.path().string(), first_cb);
    roam::checkpoint(dir.path().string(), second_cb);
    second = co_await second_saved;
    first = co_await first_saved;
    roam::exit(0);
  });
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_EQ(first.number, 1u);
  EXPECT_FALSE(second.ok);
  EXPECT_TRUE(mentions(second.error, "is being taken")) << second.error;
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"ckpt-00000001"});
}

// ---------------------------------------------------------------------------
// 6. The directory cannot be written.

TEST(checkpoint, a_directory_that_is_a_regular_file_fails_naming_it_and_a_later_one_succeeds) {
  scratch_dir dir;
  const fs::path not_a_directory = dir.path() / "plain-file";
  std::ofstream(not_a_directory) << "not a checkpoint directory\n";
  roam::checkpoint_result failed, later;
  run_program([&](const roam::args&) -> roam::task<> {
    roam::create_array<dense_cell>({4});
    failed = co_await checkpoint_into(not_a_directory);
    later = co_await checkpoint_into(dir.path() / "good");
    roam::exit(0);
  });
  EXPECT_FALSE(failed.ok);
  EXPECT_TRUE(mentions(failed.error, not_a_directory.string())) << failed.error;
  EXPECT_TRUE(fs::is_regular_file(not_a_directory));
  ASSERT_TRUE(later.ok) << later.error;
  EXPECT_EQ(later.number, 1u);
  EXPECT_EQ(fs::path(later.path), dir.path() / "good" / "ckpt-00000001");
}

// ---------------------------------------------------------------------------
// 7. keep.

TEST(checkpoint, keep_one_leaves_only_the_newest) {
  scratch_dir dir;
  std::vector<roam::checkpoint_result> results;
  run_program([&](const roam::args&) -> roam::task<> {
    roam::create_array<dense_cell>({4});
    for (int k = 0; k < 3; ++k)
      results.push_back(co_await checkpoint_into(dir.path(), roam::checkpoint_options{.keep = 1}));
    roam::exit(0);
  });
  ASSERT_EQ(results.size(), 3u);
  for (std::size_t k = 0; k < results.size(); ++k) {
    EXPECT_TRUE(results[k].ok) << results[k].error;
    EXPECT_EQ(results[k].number, k + 1);
  }
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"ckpt-00000003"});
}

// ---------------------------------------------------------------------------
// 8. Messages in flight when it is asked for.

// Ticks processed by every counter of the program: read when the callback
// fires, before anything else can run ticks.
std::atomic<long> g_ticks_processed{0};

struct counter : roam::element<counter> {
  long ticks = 0;
  void tick() {
    ++ticks;
    g_ticks_processed.fetch_add(1, std::memory_order_relaxed);
  }
  void report(roam::callback<long> sum) { contribute(ticks, roam::sum, sum); }
  void pup(roam::pup_er& p) { p | ticks; }
};

struct launcher : roam::chare<launcher> {
  // Sends the ticks and asks for the checkpoint in the same entry, so that they are all in flight then.
  void go(roam::array_proxy<counter> counters, std::int32_t elements, int messages, std::string dir,
          roam::callback<roam::checkpoint_result> done) {
    for (int k = 0; k < messages; ++k) counters[k % elements].send<&counter::tick>();
    roam::checkpoint(dir, done);
  }
  void pup(roam::pup_er&) {}
};

TEST(checkpoint, the_callback_fires_after_every_message_in_flight_was_processed) {
  constexpr int messages = 1000;
  constexpr std::int32_t elements = 8;
  g_ticks_processed = 0;
  scratch_dir dir;
  roam::checkpoint_result r;
  long processed_at_callback = -1, counted = -1;
  run_program([&](const roam::args&) -> roam::task<> {
    auto counters = roam::create_array<counter>({elements});
    auto starter = roam::create_chare_on<launcher>(roam::pe_id{1});
    auto [saved, done] = roam::make_future_callback<roam::checkpoint_result>();
    starter.send<&launcher::go>(counters, elements, messages, dir.path().string(), done);
    r = co_await saved;
    processed_at_callback = g_ticks_processed.load();
    auto [summed, sum_cb] = roam::make_future_callback<long>();
    counters.send<&counter::report>(sum_cb);
    counted = co_await summed;
    roam::exit(0);
  });
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.objects, 1u + elements);
  EXPECT_EQ(processed_at_callback, messages) << "the checkpoint was taken with ticks still in flight";
  EXPECT_EQ(counted, messages);
}

}  // namespace

}  // namespace checkpoint_test
