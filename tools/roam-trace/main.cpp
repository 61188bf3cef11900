// roam-trace: reads a trace directory written by a run with +trace.
//   roam-trace summary DIR                 the summary table
//   roam-trace perfetto DIR -o run.json[.gz]   for ui.perfetto.dev / chrome://tracing
//   roam-trace report DIR -o report.html   one self-contained HTML page
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>
#include <zlib.h>

#include "analysis.hpp"
#include "perfetto.hpp"
#include "report.hpp"

namespace {

constexpr const char* usage_text =
    "usage: roam-trace summary DIR\n"
    "       roam-trace perfetto DIR -o FILE.json[.gz]\n"
    "       roam-trace report DIR -o FILE.html\n"
    "Reads DIR, the trace directory a roam program wrote under its runtime option +trace=DIR.\n"
    "  summary         the summary table on stdout\n"
    "  perfetto        a trace for ui.perfetto.dev or chrome://tracing (.gz: compressed)\n"
    "  report          one self-contained HTML page\n"
    "  -o FILE         where perfetto and report write\n"
    "  -h, --help      this text\n"
    "Exit status: 0 done, 1 an unreadable trace or unwritable FILE, 2 bad usage.\n"
    "Example: ./jacobi2d 256 8 +p4 +trace=jt && roam-trace report jt -o jt.html\n";

/// A bad command line: why, then the usage, on stderr; exit status 2.
int usage_error(const std::string& why) {
  std::fprintf(stderr, "roam-trace: %s\n%s", why.c_str(), usage_text);
  return 2;
}

bool ends_with(const std::string& s, const char* tail) {
  const std::size_t n = std::strlen(tail);
  return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

std::string write_file(const std::string& path, const std::string& text) {
  if (ends_with(path, ".gz")) {
    gzFile f = gzopen(path.c_str(), "wb6");
    if (!f) return "cannot write " + path;
    const bool ok = gzwrite(f, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size());
    if (gzclose(f) != Z_OK || !ok) return "writing " + path + " failed";
    return {};
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) return "cannot write " + path;
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& arg : args) {
    if (arg == "-h" || arg == "--help") {
      std::fputs(usage_text, stdout);
      return 0;
    }
  }
  if (args.empty()) return usage_error("which command?");
  const std::string command = args[0];
  if (command.starts_with("-")) return usage_error("unknown option " + command);
  std::string dir, out;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "-o") {
      if (i + 1 >= args.size()) return usage_error("-o needs a file name");
      out = args[++i];
    } else if (args[i].starts_with("-")) {
      return usage_error("unknown option " + args[i]);
    } else if (dir.empty()) {
      dir = args[i];
    } else {
      return usage_error("unexpected argument " + args[i]);
    }
  }
  if (command != "summary" && command != "perfetto" && command != "report")
    return usage_error("unknown command '" + command + "'");
  if (dir.empty()) return usage_error("which trace directory?");
  if (command != "summary" && out.empty()) return usage_error("-o FILE is required");
  try {
    const roam_trace::trace_run run = roam_trace::read_trace(dir);
    const roam_trace::analysis a = roam_trace::analyze(run);
    std::string text;
    if (command == "summary") {
      std::fputs(roam_trace::summary_text(run, a).c_str(), stdout);
      return 0;
    }
    text = command == "perfetto" ? roam_trace::perfetto_json(run, a) : roam_trace::report_html(run, a);
    if (auto e = write_file(out, text); !e.empty()) {
      std::fprintf(stderr, "roam-trace: %s\n", e.c_str());
      return 1;
    }
    std::printf("roam-trace: wrote %s\n", out.c_str());
    return 0;
  } catch (const roam_trace::trace_error& e) {
    std::fprintf(stderr, "roam-trace: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "roam-trace: %s: %s\n", dir.c_str(), e.what());
    return 1;
  }
}
