// The trace layer in one process: user spans, marks and counters land in the
// trace with their names and values, nested in the entry that made them;
// reductions and quiescence show as phases; +summary writes exact counts;
// the option parser takes +trace, +trace=DIR, +tracebuf and +summary=FILE.
// (Traces of whole programs on 1-4 PEs, TCP and MPI: tests/integration,
// trace_verify.cpp.)
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "analysis.hpp"
#include "support/parse_options.hpp"
#include "trace_options.hpp"
#include "support/run_roam.hpp"

namespace {

namespace fs = std::filesystem;

const roam::trace::name step_name{"step"};

struct tracer_cell : roam::element<tracer_cell> {
  void work(int steps, roam::callback<int> done) {
    for (int s = 0; s < steps; ++s) {
      roam::trace::span outer(step_name);
      roam::trace::span inner("inner part");
      roam::trace::counter("steps done", s + 1);
    }
    roam::trace::mark("worked");
    contribute(1, roam::sum, done);
  }
  void ping() {}
  // Busy for `us` microseconds of the steady clock.
  void spin(int us) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
};

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("roam_trace_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

TEST(trace, user_events_and_phases_are_recorded_with_names_and_values) {
  const fs::path dir = fresh_dir("user");
  constexpr int elements = 6, steps = 3;
  int got = 0;
  int rc = roam_test::run_on(
      2,
      [&](const roam::args&) -> roam::task<> {
        EXPECT_TRUE(roam::trace::enabled());
        auto cells = roam::create_array<tracer_cell>(roam::array_options<1>({elements}));
        auto [f, p] = roam::make_future<int>();
        cells.send<&tracer_cell::work>(steps, roam::callback<int>::to_future(p));
        got = co_await f;
        auto [fq, pq] = roam::make_future<>();
        roam::on_quiescence(roam::callback<>::to_future(pq));
        co_await fq;
        roam::exit(0);
      },
      {"+trace=" + dir.string()});
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(got, elements);
  EXPECT_FALSE(roam::trace::enabled()) << "recording ends with the run";

  const roam_trace::trace_run run = roam_trace::read_trace(dir.string());
  const roam_trace::analysis a = roam_trace::analyze(run);
  EXPECT_EQ(a.unbalanced, 0u);
  std::map<std::string, int> spans, marks;
  std::vector<double> counter_values;
  int reductions = 0, quiescence = 0;
  for (std::size_t p = 0; p < run.pe.size(); ++p) {
    for (const auto& s : a.pe[p].spans) {
      ++spans[run.user_name(run.pe[p].node, s.name)];
      // Every span lies inside an entry slice of the same PE.
      bool inside = false;
      for (const auto& sl : a.pe[p].slices) inside |= sl.begin <= s.begin && s.end <= sl.end;
      EXPECT_TRUE(inside) << run.user_name(run.pe[p].node, s.name);
    }
    for (const auto& e : run.pe[p].events) {
      using roam_trace::record_type;
      if (e.r.type == record_type::mark) ++marks[run.user_name(run.pe[p].node, e.r.a)];
      if (e.r.type == record_type::counter) counter_values.push_back(std::bit_cast<double>(e.r.b));
      if (e.r.type == record_type::phase && e.r.kind == static_cast<std::uint8_t>(roam::phase_kind::reduction_done))
        ++reductions;
      if (e.r.type == record_type::phase && e.r.kind == static_cast<std::uint8_t>(roam::phase_kind::quiescence))
        ++quiescence;
    }
  }
  EXPECT_EQ(spans["step"], elements * steps);
  EXPECT_EQ(spans["inner part"], elements * steps);
  EXPECT_EQ(marks["worked"], elements);
  ASSERT_EQ(counter_values.size(), static_cast<std::size_t>(elements * steps));
  double sum = 0;
  for (double v : counter_values) sum += v;
  EXPECT_EQ(sum, elements * (1 + 2 + 3));
  EXPECT_EQ(reductions, 1);
  EXPECT_EQ(quiescence, 1);
  fs::remove_all(dir);
}

TEST(trace, summary_json_counts_every_invocation) {
  const fs::path file = fresh_dir("summary").string() + ".json";
  constexpr int elements = 8, pings = 5;
  int rc = roam_test::run_on(
      2,
      [&](const roam::args&) -> roam::task<> {
        auto cells = roam::create_array<tracer_cell>(roam::array_options<1>({elements}));
        for (int k = 0; k < pings; ++k)
          for (int i = 0; i < elements; ++i) cells[i].send<&tracer_cell::ping>();
        for (int i = 0; i < 4; ++i) cells[i].send<&tracer_cell::spin>(2000);
        auto [fq, pq] = roam::make_future<>();
        roam::on_quiescence(roam::callback<>::to_future(pq));
        co_await fq;
        roam::exit(0);
      },
      {"+summary=" + file.string()});
  ASSERT_EQ(rc, 0);
  std::ifstream in(file);
  ASSERT_TRUE(in) << file;
  const auto j = nlohmann::json::parse(in);
  std::uint64_t ping_count = 0, spin_count = 0, sent = 0, received = 0;
  double spin_total = 0, spin_max = 0, busy = 0;
  for (const auto& e : j.at("entries")) {
    const std::string name = e.at("entry");
    if (name.ends_with("tracer_cell::ping")) ping_count = e.at("count");
    if (name.ends_with("tracer_cell::spin")) {
      spin_count = e.at("count");
      spin_total = e.at("total_s");
      spin_max = e.at("max_s");
    }
  }
  // Entries are timed from their begin to the PE's next timed event (one clock reading each).
  EXPECT_EQ(spin_count, 4u);
  EXPECT_GE(spin_total, 4 * 0.002);
  EXPECT_LT(spin_total, 4 * 0.002 + 0.5);
  EXPECT_GE(spin_max, 0.002);
  for (const auto& p : j.at("pe")) {
    sent += p.at("sent").get<std::uint64_t>();
    received += p.at("received").get<std::uint64_t>();
    busy += p.at("busy_s").get<double>();
  }
  EXPECT_GE(busy, spin_total);
  EXPECT_EQ(ping_count, static_cast<std::uint64_t>(elements * pings));
  EXPECT_EQ(sent, static_cast<std::uint64_t>(elements * pings + 4));
  EXPECT_EQ(received, sent);
  fs::remove(file);
}

// A trace of a short run on 2 PEs, to corrupt.
fs::path small_trace(const std::string& name) {
  const fs::path dir = fresh_dir(name);
  int rc = roam_test::run_on(
      2,
      [](const roam::args&) -> roam::task<> {
        auto cells = roam::create_array<tracer_cell>(roam::array_options<1>({40}));
        for (int i = 0; i < 40; ++i) cells[i].send<&tracer_cell::ping>();
        auto [fq, pq] = roam::make_future<>();
        roam::on_quiescence(roam::callback<>::to_future(pq));
        co_await fq;
        roam::exit(0);
      },
      {"+trace=" + dir.string(), "+tracebuf", "4K"});
  EXPECT_EQ(rc, 0);
  return dir;
}

std::string read_error(const fs::path& dir) {
  try {
    roam_trace::read_trace(dir.string());
  } catch (const roam_trace::trace_error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a trace_error: ") + e.what();
  }
  return "read without error";
}

std::vector<char> bytes_of(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const fs::path& f, const std::vector<char>& b) {
  std::ofstream out(f, std::ios::binary | std::ios::trunc);
  out.write(b.data(), static_cast<std::streamsize>(b.size()));
}

TEST(trace_files, corrupt_or_truncated_files_are_refused_with_the_file_and_place) {
  const fs::path dir = small_trace("corrupt");
  ASSERT_EQ(read_error(dir), "read without error");
  const fs::path pe1 = dir / "pe-1.roamtrace", index = dir / "process-0.json";
  const std::vector<char> good = bytes_of(pe1), good_index = bytes_of(index);
  ASSERT_GT(good.size(), 200u);

  std::vector<char> cut(good.begin(), good.end() - 30);
  write_bytes(pe1, cut);
  EXPECT_NE(read_error(dir).find("cut short ("), std::string::npos) << read_error(dir);

  std::vector<char> flipped = good;
  flipped[good.size() / 2] ^= 0x40;
  write_bytes(pe1, flipped);
  EXPECT_NE(read_error(dir).find("checksum mismatch (file corrupt)"), std::string::npos) << read_error(dir);

  std::vector<char> longer = good;
  longer.push_back('x');
  write_bytes(pe1, longer);
  EXPECT_NE(read_error(dir).find("bytes after the end marker"), std::string::npos) << read_error(dir);

  std::vector<char> not_ours = good;
  not_ours[0] = 'X';
  write_bytes(pe1, not_ours);
  EXPECT_NE(read_error(dir).find("pe-1.roamtrace: not a roam trace file"), std::string::npos) << read_error(dir);

  fs::remove(pe1);
  EXPECT_NE(read_error(dir).find("pe-1.roamtrace: cannot open"), std::string::npos) << read_error(dir);
  write_bytes(pe1, good);

  write_bytes(index, std::vector<char>{'{', '"', 'f'});
  EXPECT_NE(read_error(dir).find("process-0.json: not a roam trace index"), std::string::npos) << read_error(dir);
  write_bytes(index, good_index);
  EXPECT_EQ(read_error(dir), "read without error");

  fs::remove(index);
  EXPECT_NE(read_error(dir).find("no process-0.json"), std::string::npos) << read_error(dir);
  fs::remove_all(dir);
}

TEST(trace_files, a_small_buffer_flushes_every_event_exactly_once) {
  const fs::path dir = small_trace("flush");
  const roam_trace::trace_run run = roam_trace::read_trace(dir.string());
  const roam_trace::analysis a = roam_trace::analyze(run);
  std::uint64_t begins = 0, sends = 0, receipts = 0;
  for (const auto& t : run.pe)
    for (const auto& e : t.events) {
      using roam_trace::record_type;
      const bool ping = run.entry_name(e.r.type == record_type::entry_begin ? e.r.b : e.r.c).ends_with("tracer_cell::ping");
      begins += e.r.type == record_type::entry_begin && ping;
      sends += e.r.type == record_type::send && ping;
      receipts += e.r.type == record_type::receive && ping;
    }
  EXPECT_EQ(begins, 40u);
  EXPECT_EQ(sends, 40u);
  EXPECT_EQ(receipts, 40u);
  EXPECT_EQ(a.unmatched_receipts, 0u);
  fs::remove_all(dir);
}

TEST(trace_files, an_untraced_run_writes_nothing) {
  const fs::path dir = fresh_dir("off");
  fs::create_directories(dir);
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  int rc = roam_test::run_on(2, [](const roam::args&) -> roam::task<> {
    EXPECT_FALSE(roam::trace::enabled());
    roam::trace::mark("nobody records this");
    roam::exit(0);
    co_return;
  });
  fs::current_path(before);
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(fs::is_empty(dir)) << "files appeared in " << dir;
  fs::remove_all(dir);
}

TEST(trace_options, trace_summary_and_buffer) {
  auto parse = [](std::vector<std::string> words) { return roam_test::parse_options(std::move(words)); };
  // The trace layer declares these itself (src/trace/trace_options.cpp):
  // the scheduler's parser applies them without knowing them.
  const auto& t = roam::trace::detail::settings();
  auto r = parse({"+trace"});
  EXPECT_TRUE(r.error.empty());
  EXPECT_TRUE(t.trace);
  EXPECT_EQ(t.trace_dir, "roam-trace");
  r = parse({"+trace=/tmp/x", "+tracebuf", "64K", "+summary"});
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(t.trace_dir, "/tmp/x");
  EXPECT_EQ(t.trace_buf, 64u * 1024);
  EXPECT_TRUE(t.summary);
  EXPECT_TRUE(t.summary_json.empty());
  r = parse({"+summary=s.json"});
  EXPECT_EQ(t.summary_json, "s.json");
  EXPECT_FALSE(t.trace);  // every parse starts from the defaults
  r = parse({"+tracebuf", "12"});
  EXPECT_NE(r.error.find("'+tracebuf' expects at least 4K"), std::string::npos) << r.error;
  r = parse({"+tracebuffer"});
  EXPECT_NE(r.error.find("unknown runtime option '+tracebuffer'"), std::string::npos) << r.error;
  EXPECT_NE(roam::detail::options_help().find("tracing (src/trace):\n  +trace[=DIR]"), std::string::npos);
}

TEST(trace, an_unwritable_directory_is_a_clear_start_up_error) {
  testing::internal::CaptureStderr();
  int rc = roam_test::run_on(
      1, [](const roam::args&) -> roam::task<> {
        ADD_FAILURE() << "main must not run";
        roam::exit(0);
        co_return;
      },
      {"+trace=/proc/no/such/dir"});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(rc, 0);
  EXPECT_NE(err.find("+trace: cannot create directory '/proc/no/such/dir'"), std::string::npos) << err;
}

}  // namespace
