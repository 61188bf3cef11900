// roam-lb: replays load balancing problems offline through the strategies a
// run uses (roam/lb/strategy.hpp), from a dump written under +LBDump or from
// a synthetic problem. docs/design/lb-strategies.md describes it.
//   roam-lb FILE [--pes N] --strategy NAME [--step K] [options] [--json]
//   roam-lb --synthetic OBJECTS --pes N [--strategy NAME] [--seed S] [--spread X]
//           [--write-dump FILE] [options] [--json]
//   roam-lb --list
// options: --group-pes G, --inner NAME, --tolerance T (strategy_options).
// Exit status: 0 done, 1 a dump or strategy error, 2 bad usage.
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/lb/dump.hpp>
#include <roam/lb/strategy.hpp>

namespace {

using namespace roam::lb;

constexpr const char* usage_text =
    "usage: roam-lb FILE [--pes N] --strategy NAME [--step K] [OPTIONS] [--json]\n"
    "       roam-lb --synthetic OBJECTS --pes N [--strategy NAME] [--seed S] [--spread X]\n"
    "               [--write-dump FILE] [OPTIONS] [--json]\n"
    "       roam-lb --list\n"
    "OPTIONS: --group-pes G (Hierarchical: PEs per group), --inner NAME (Hierarchical: inside groups),\n"
    "         --tolerance T (Refine, GreedyRefine, Hierarchical: refine_tolerance)\n"
    "  FILE              a dump written by a run under the runtime option +LBDump FILE\n"
    "  --pes N           replay on N PEs; --synthetic: the problem's PEs\n"
    "  --strategy NAME   the strategy to run (roam-lb --list names them)\n"
    "  --step K          only step K of the dump (default: every step)\n"
    "  --synthetic OBJECTS  a made-up problem of OBJECTS objects instead of a dump\n"
    "  --seed S, --spread X  the synthetic problem's seed (default 1) and load spread (default 0.5)\n"
    "  --write-dump FILE write the synthetic problem as a dump\n"
    "  --json            one JSON object per step instead of a line of text\n"
    "  --list            the strategies\n"
    "  -h, --help        this text\n"
    "A dump replayed on N PEs other than its own puts each object on PE (its PE mod N) and folds\n"
    "each PE's background onto PE (its index mod N).\n"
    "Exit status: 0 done, 1 a dump or strategy error, 2 bad usage.\n"
    "Example: roam-lb --synthetic 2000 --pes 16 --strategy GreedyRefine\n";

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename Number>
Number parse_number(const std::string& option, const std::string& text) {
  Number value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty())
    throw usage_error(option + " needs a number, not '" + text + "'");
  return value;
}

struct arguments {
  std::string dump;
  std::optional<std::uint64_t> synthetic_objects;
  std::optional<std::uint32_t> pes;
  std::string strategy;
  std::optional<std::size_t> step;
  std::uint64_t seed = 1;
  double spread = 0.5;
  std::string write_dump;
  strategy_options options;
  bool json = false;
  bool list = false;
  bool help = false;  ///< -h or --help: the usage, and nothing else
};

arguments parse(int argc, char** argv) {
  arguments a;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& arg : args) a.help = a.help || arg == "-h" || arg == "--help";
  if (a.help) return a;
  if (args.empty()) throw usage_error("nothing to do");
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw usage_error(arg + " needs a value");
      return args[++i];
    };
    if (arg == "--list") a.list = true;
    else if (arg == "--json") a.json = true;
    else if (arg == "--synthetic") a.synthetic_objects = parse_number<std::uint64_t>(arg, value());
    else if (arg == "--pes") a.pes = parse_number<std::uint32_t>(arg, value());
    else if (arg == "--strategy") a.strategy = value();
    else if (arg == "--step") a.step = parse_number<std::size_t>(arg, value());
    else if (arg == "--seed") a.seed = parse_number<std::uint64_t>(arg, value());
    else if (arg == "--spread") a.spread = parse_number<double>(arg, value());
    else if (arg == "--write-dump") a.write_dump = value();
    else if (arg == "--group-pes") a.options.group_pes = parse_number<std::uint32_t>(arg, value());
    else if (arg == "--inner") a.options.inner = value();
    else if (arg == "--tolerance") a.options.refine_tolerance = parse_number<double>(arg, value());
    else if (arg.starts_with("-")) throw usage_error("unknown option " + arg);
    else if (a.dump.empty()) a.dump = arg;
    else throw usage_error("one dump at a time (" + a.dump + " and " + arg + ")");
  }
  if (a.list) return a;
  if (a.synthetic_objects && !a.dump.empty()) throw usage_error("a dump or --synthetic, not both");
  if (!a.synthetic_objects && a.dump.empty()) throw usage_error("no dump and no --synthetic");
  if (a.pes && *a.pes == 0) throw usage_error("--pes must be at least 1");
  if (a.synthetic_objects && !a.pes) throw usage_error("--synthetic needs --pes");
  if (a.synthetic_objects && a.step) throw usage_error("--step is for dumps");
  if (!a.synthetic_objects && !a.write_dump.empty()) throw usage_error("--write-dump is for --synthetic");
  if (a.strategy.empty() && a.write_dump.empty()) throw usage_error("--strategy NAME is needed (roam-lb --list)");
  if (!a.strategy.empty() && find_strategy(a.strategy) == nullptr)
    throw usage_error("no strategy named '" + a.strategy + "' (roam-lb --list)");
  if (!std::isfinite(a.spread) || a.spread < 0) throw usage_error("--spread must be finite and >= 0");
  return a;
}

/// splitmix64 and Box-Muller: the same synthetic problem from a seed with any standard library.
class generator {
 public:
  explicit generator(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit_open() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  double normal() {
    return std::sqrt(-2.0 * std::log(unit_open())) * std::cos(6.283185307179586 * unit_open());
  }

 private:
  std::uint64_t state_;
};

/// OBJECTS objects block-placed on PES PEs; loads lognormal (sigma = spread)
/// times a ramp from 1 to 2 over the objects, so later PEs start up to twice
/// as loaded; groups of round(sqrt(PES)) consecutive PEs; a ring of edges.
problem synthetic(std::uint64_t objects, std::uint32_t pes, std::uint64_t seed, double spread, bool with_edges) {
  problem p;
  p.seed = seed;
  p.pes.resize(pes);
  const auto group_size = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::lround(std::sqrt(pes))));
  for (std::uint32_t q = 0; q < pes; ++q) p.pes[q].group = q / group_size;
  generator gen(seed);
  p.objects.resize(objects);
  for (std::uint64_t i = 0; i < objects; ++i) {
    object_load& o = p.objects[i];
    o.key = i;
    o.load = 1e-3 * std::exp(spread * gen.normal()) * (1.0 + static_cast<double>(i) / static_cast<double>(objects));
    o.pe = static_cast<std::uint32_t>(i * pes / objects);
  }
  if (with_edges && objects > 1) {
    p.edges.reserve(objects);
    for (std::uint64_t i = 0; i < objects; ++i)
      p.edges.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>((i + 1) % objects), 1 + i % 4,
                         1024 * (1 + gen.next() % 64)});
  }
  return p;
}

/// The problem on `pes` PEs: objects to (PE mod pes), backgrounds and idle
/// times summed likewise; PE j keeps dump PE j's speed, availability and group
/// (dump PE j mod P for new PEs).
problem fold(const problem& in, std::uint32_t pes) {
  if (pes == in.pes.size() || in.pes.empty()) return in;
  problem p;
  p.step = in.step;
  p.seed = in.seed;
  p.pes.resize(pes);
  for (std::uint32_t j = 0; j < pes; ++j) {
    p.pes[j] = in.pes[j % in.pes.size()];
    p.pes[j].background = p.pes[j].idle = 0;
  }
  for (std::size_t i = 0; i < in.pes.size(); ++i) {
    p.pes[i % pes].background += in.pes[i].background;
    p.pes[i % pes].idle += in.pes[i].idle;
  }
  p.objects = in.objects;
  for (object_load& o : p.objects) o.pe %= pes;
  p.edges = in.edges;
  return p;
}

void report(const arguments& args, std::size_t index, const problem& p) {
  const strategy_info* s = find_strategy(args.strategy);
  const balance_stats before = evaluate(p, stay(p));
  const auto start = std::chrono::steady_clock::now();
  const assignment a = s->run(p, args.options);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const balance_stats after = evaluate(p, a);
  if (args.json)
    std::printf("{\"step\":%zu,\"pes\":%zu,\"objects\":%zu,\"edges\":%zu,\"strategy\":\"%s\",\"max_over_avg_before\":%.6f,"
                "\"max_over_avg_after\":%.6f,\"migrations\":%zu,\"time_ms\":%.3f}\n",
                index, p.pes.size(), p.objects.size(), p.edges.size(), s->name.c_str(), before.max_over_avg,
                after.max_over_avg, after.migrations, ms);
  else
    std::printf("step %zu: %zu PEs, %zu objects, %zu edges; %s: max/avg %.4f -> %.4f, migrations %zu, time %.3f ms\n",
                index, p.pes.size(), p.objects.size(), p.edges.size(), s->name.c_str(), before.max_over_avg,
                after.max_over_avg, after.migrations, ms);
}

int run(const arguments& args) {
  if (args.help) {
    std::fputs(usage_text, stdout);
    return 0;
  }
  if (args.list) {
    for (const std::string& name : strategy_names())
      std::printf("%-14s %s%s\n", name.c_str(), find_strategy(name)->description.c_str(),
                  find_strategy(name)->needs_comm ? " [communication]" : "");
    return 0;
  }
  const strategy_info* s = args.strategy.empty() ? nullptr : find_strategy(args.strategy);
  if (args.synthetic_objects) {
    const bool edges = !args.write_dump.empty() || (s != nullptr && s->needs_comm);
    const problem p = synthetic(*args.synthetic_objects, *args.pes, args.seed, args.spread, edges);
    if (!args.write_dump.empty()) {
      dump_writer w(args.write_dump);
      w.append(p);
    }
    if (s != nullptr) report(args, 0, p);
    return 0;
  }
  const std::vector<problem> steps = read_dump(args.dump);
  if (args.step && *args.step >= steps.size())
    throw usage_error("--step " + std::to_string(*args.step) + ": " + args.dump + " has " +
                      std::to_string(steps.size()) + " steps");
  if (steps.empty()) std::printf("%s: no steps\n", args.dump.c_str());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (args.step && *args.step != i) continue;
    report(args, i, args.pes ? fold(steps[i], *args.pes) : steps[i]);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const usage_error& e) {
    std::fprintf(stderr, "roam-lb: %s\n", e.what());
    std::fputs(usage_text, stderr);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "roam-lb: %s\n", e.what());
    return 1;
  }
}
