#pragma once
// The applications' command lines, read the same way by every app: -h and
// --help print the usage on stdout (exit status 0); a bad argument prints one
// line saying what is wrong and the usage on stderr (exit status 2). The
// runtime has removed its own options (+p N, ...) before main sees the rest.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

#include <roam/sched/runtime.hpp>

namespace roam_apps {

/// What an app says about its command line.
struct usage_text {
  const char* program;  ///< "phold"
  const char* text;     ///< "usage: phold [options]\n" and a line per option, each ending in '\n'
  const char* example;  ///< a command line that runs: "phold --lps 80 --synch optimistic +p4"
};

inline void print_usage(std::FILE* to, const usage_text& u) {
  std::fprintf(to,
               "%s"
               "Runtime options start with '+' and may go anywhere; `%s +help` lists them.\n"
               "Example: %s\n",
               u.text, u.program, u.example);
}

inline bool is_help(std::string_view arg) { return arg == "-h" || arg == "--help"; }

inline bool asks_for_help(const roam::args& a) {
  for (std::size_t i = 1; i < a.size(); ++i)
    if (is_help(a[i])) return true;
  return false;
}

/// Reads the command line with `parse()`, which throws (std::invalid_argument)
/// saying what is wrong: anything it throws is a bad command line. Prints the usage and ends the program (roam::exit 0
/// for -h/--help, 2 for a bad argument) when the program must not go on:
/// false then, and main returns at once.
template <class Parse>
bool read_command_line(const roam::args& a, const usage_text& u, Parse&& parse) {
  if (asks_for_help(a)) {
    print_usage(stdout, u);
    std::fflush(stdout);
    roam::exit(0);
    return false;
  }
  try {
    parse();
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", u.program, e.what());
    print_usage(stderr, u);
    roam::exit(2);
    return false;
  }
}

/// The value after option a[i], advancing i to it; std::invalid_argument
/// naming the option when the command line ends first.
inline const std::string& option_value(const roam::args& a, std::size_t& i) {
  if (i + 1 >= a.size()) throw std::invalid_argument("option " + a[i] + " needs a value");
  return a[++i];
}

/// `v`, the value of `option`, as a whole number in [low, high] (std::stoull
/// alone takes "-1" and "3x").
inline std::uint64_t whole(const std::string& option, const std::string& v, std::uint64_t low, std::uint64_t high) {
  std::size_t used = 0;
  unsigned long long x = 0;
  try {
    if (!v.empty() && v[0] != '-') x = std::stoull(v, &used);
  } catch (const std::logic_error&) {  // not a number, or out of range
    used = 0;
  }
  if (used == 0 || used != v.size() || x < low || x > high)
    throw std::invalid_argument(option + " " + v + ": need a whole number in [" + std::to_string(low) + ", " +
                                std::to_string(high) + "]");
  return x;
}

/// `v`, the value of `option`, as a number (not NaN; "inf" where `infinite_ok`).
inline double number(const std::string& option, const std::string& v, bool infinite_ok = false) {
  std::size_t used = 0;
  double x = 0;
  try {
    x = std::stod(v, &used);
  } catch (const std::logic_error&) {  // not a number, or out of range
    used = 0;
  }
  if (used == 0 || used != v.size() || std::isnan(x) || (std::isinf(x) && !infinite_ok))
    throw std::invalid_argument(option + " " + v + ": need a number");
  return x;
}

/// `v`, the value of `option`, as a number above 0 ("inf" where `infinite_ok`).
inline double positive(const std::string& option, const std::string& v, bool infinite_ok) {
  double x = 0;
  try {
    x = number(option, v, infinite_ok);
  } catch (const std::invalid_argument&) {
    x = 0;  // reported below, as any number not above 0
  }
  if (!(x > 0)) throw std::invalid_argument(option + " " + v + ": need a number above 0");
  return x;
}

}  // namespace roam_apps
