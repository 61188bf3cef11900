#pragma once
// The examples' command lines, read the same way by every example: -h and
// --help print the usage on stdout (exit status 0); a bad argument prints one
// line saying what is wrong and the usage on stderr (exit status 2). The
// runtime has removed its own options (+p N, ...) before main sees the rest.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <roam/roam.hpp>

namespace examples {

/// What an example says about its command line.
struct usage_text {
  const char* program;   ///< "fib"
  const char* synopsis;  ///< the arguments after the name: "[N=20] [GRAIN=10]"
  const char* details;   ///< one line per argument, each ending in '\n' ("" when there is none)
  const char* example;   ///< a command line that runs: "fib 25 12 +p4"
};

inline void print_usage(std::FILE* to, const usage_text& u) {
  std::fprintf(to,
               "usage: %s %s [+p N and other runtime options]\n%s"
               "  -h, --help    this text\n"
               "Runtime options start with '+' and may go anywhere; `%s +help` lists them.\n"
               "Example: %s\n",
               u.program, u.synopsis, u.details, u.program, u.example);
}

/// A wrong argument; the message says which and why.
struct bad_argument : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

inline bool is_help(std::string_view arg) { return arg == "-h" || arg == "--help"; }

/// "-x" and "--x" are options; "-3" and "-.5" are (negative) numbers.
inline bool looks_like_option(std::string_view arg) {
  return arg.size() > 1 && arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9') && arg[1] != '.';
}

/// The arguments of an example: `--name value` options it declares, anywhere,
/// and at most `max_positional` positional arguments, numbered from 1.
class command_line {
 public:
  command_line(const roam::args& a, std::size_t max_positional, const std::vector<std::string>& options) {
    for (std::size_t i = 1; i < a.size(); ++i) {
      const std::string& arg = a[i];
      if (!looks_like_option(arg)) {
        positional_.push_back(arg);
        continue;
      }
      if (std::find(options.begin(), options.end(), arg) == options.end())
        throw bad_argument("unknown option " + arg);
      if (i + 1 == a.size()) throw bad_argument(arg + " needs a value");
      options_[arg] = a[++i];
    }
    if (positional_.size() > max_positional)
      throw bad_argument("too many arguments (at most " + std::to_string(max_positional) + "): '" +
                         positional_[max_positional] + "' is one more");
  }

  /// Positional argument `i` (from 1), if given.
  const std::string* word(std::size_t i) const { return i - 1 < positional_.size() ? &positional_[i - 1] : nullptr; }

  /// The value of option `name` (declared in the constructor), if given.
  const std::string* option(const std::string& name) const {
    const auto it = options_.find(name);
    return it == options_.end() ? nullptr : &it->second;
  }

  /// Positional argument `i` as a whole number in [low, high]; `fallback` when absent.
  template <class Int = long long>
  Int whole(std::size_t i, const char* name, Int fallback, Int low, Int high) const {
    const std::string* text = word(i);
    return text ? whole_number(name, *text, low, high) : fallback;
  }

  /// Positional argument `i` as a number in [low, high]; `fallback` when absent.
  double real(std::size_t i, const char* name, double fallback, double low, double high) const {
    const std::string* text = word(i);
    return text ? real_number(name, *text, low, high) : fallback;
  }

  /// `text` as a whole number in [low, high]; `name` says what it is in the error.
  template <class Int>
  static Int whole_number(const std::string& name, const std::string& text, Int low, Int high) {
    Int value{};
    const char* end = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc{} || stop != end || value < low || value > high)
      throw bad_argument(name + ": '" + text + "' is not a whole number in " + std::to_string(low) + ".." +
                         std::to_string(high));
    return value;
  }

  /// `text` as a number in [low, high] (not NaN).
  static double real_number(const std::string& name, const std::string& text, double low, double high) {
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc{} || stop != end || !(value >= low && value <= high))
      throw bad_argument(name + ": '" + text + "' is not a number in [" + format(low) + ", " + format(high) + "]");
    return value;
  }

 private:
  static std::string format(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", x);
    return text;
  }

  std::vector<std::string> positional_;
  std::map<std::string, std::string, std::less<>> options_;
};

/// Reads the command line with `parse(const command_line&)`, which returns
/// the program's settings or throws bad_argument. Nothing after printing the
/// usage for -h/--help or a bad argument, and ending the program (roam::exit
/// 0 or 2): main then returns at once.
template <class Parse>
auto read_command_line(const roam::args& a, const usage_text& u, std::size_t max_positional,
                       const std::vector<std::string>& options, Parse parse)
    -> std::optional<decltype(parse(std::declval<const command_line&>()))> {
  for (std::size_t i = 1; i < a.size(); ++i) {
    if (is_help(a[i])) {
      print_usage(stdout, u);
      std::fflush(stdout);
      roam::exit(0);
      return std::nullopt;
    }
  }
  try {
    return parse(command_line(a, max_positional, options));
  } catch (const bad_argument& e) {
    std::fprintf(stderr, "%s: %s\n", u.program, e.what());
    print_usage(stderr, u);
    roam::exit(2);
    return std::nullopt;
  }
}

}  // namespace examples
