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

int usage(const char* why) {
  if (why) std::fprintf(stderr, "roam-trace: %s\n", why);
  std::fprintf(stderr,
               "usage: roam-trace summary DIR\n"
               "       roam-trace perfetto DIR -o FILE.json[.gz]\n"
               "       roam-trace report DIR -o FILE.html\n");
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
  if (args.empty() || args[0] == "-h" || args[0] == "--help") return usage(nullptr);
  const std::string command = args[0];
  std::string dir, out;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "-o") {
      if (i + 1 >= args.size()) return usage("-o needs a file name");
      out = args[++i];
    } else if (args[i].starts_with("-")) {
      return usage(("unknown option " + args[i]).c_str());
    } else if (dir.empty()) {
      dir = args[i];
    } else {
      return usage(("unexpected argument " + args[i]).c_str());
    }
  }
  if (command != "summary" && command != "perfetto" && command != "report")
    return usage(("unknown command '" + command + "'").c_str());
  if (dir.empty()) return usage("which trace directory?");
  if (command != "summary" && out.empty()) return usage("-o FILE is required");
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
