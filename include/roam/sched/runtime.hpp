#pragma once
/// Starting and stopping roam, and what every PE can ask of its scheduler.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <roam/machine/ids.hpp>
#include <roam/sched/detail/unique_function.hpp>
#include <roam/sched/task.hpp>

namespace roam {

/// The program's arguments after the runtime removed its `+` options.
class args {
 public:
  args() = default;
  explicit args(std::vector<std::string> v) : v_(std::move(v)) {}
  /// Number of arguments, the program name included.
  std::size_t size() const noexcept { return v_.size(); }
  const std::string& operator[](std::size_t i) const { return v_.at(i); }
  auto begin() const noexcept { return v_.begin(); }
  auto end() const noexcept { return v_.end(); }
  /// Argument i parsed as an integer, or `fallback` when absent. Throws std::invalid_argument when malformed.
  long long int_or(std::size_t i, long long fallback) const;

 private:
  std::vector<std::string> v_;
};

/// Runs a roam program: starts the PEs (`+p N`), runs `main(args)` on PE 0 and
/// returns the code given to roam::exit once every PE has stopped. `main` may
/// return void or `roam::task<>`. Runtime options (`+help` lists them) are
/// removed from argv (argc is updated). Returns 2 on a bad option.
template <class Main>
int run(int& argc, char** argv, Main main);

/// What roam::run will start with these arguments, known before it starts:
/// from the `+` options (argv is left as it is) and the launcher's
/// environment (roamrun's, or mpirun's for the MPI transport). For code that
/// must size things before the run, as ROSS models do with tw_nnodes()
/// between tw_init and tw_run. It is the layout at start: a recovery after a
/// failure may change it.
struct startup_layout {
  std::uint32_t num_pes = 0;       ///< PEs of the whole program
  std::uint32_t num_nodes = 1;     ///< processes running PEs (spares not counted)
  std::uint32_t node = 0;          ///< this process (num_nodes or above: a spare, no PEs)
  std::uint32_t pes_per_node = 0;
  std::uint32_t first_pe() const noexcept { return node < num_nodes ? node * pes_per_node : num_pes; }
};
/// The layout, or nullopt and `error` (what roam::run would say) when the
/// options or the environment are malformed.
std::optional<startup_layout> planned_layout(int argc, char** argv, std::string& error);

/// Ends the program with `code`: every PE stops after its current message. The
/// first call wins. Callable from any PE.
void exit(int code = 0);

/// Stops the program with a fatal error (printed with the PE prefix) and exit code 1.
void abort(std::string_view message);

/// The PE the caller runs on. Aborts when called off a PE thread.
pe_id my_pe();
/// Number of PEs in this program.
std::uint32_t num_pes();
/// This process's node and the number of nodes (processes) of the program.
node_id my_node();
std::uint32_t num_nodes();
/// Whether node `n` runs on this process's host (as roamrun's --hosts or the
/// host name says): processes of one host can share memory. True for
/// my_node(); false for a node out of range.
bool shares_host(node_id n);

/// Runs `fn` on the calling PE once `delay` has passed (not before; later if busy).
void after(std::chrono::nanoseconds delay, detail::unique_function<void()> fn);
/// Runs `fn` on the calling PE the next time it has nothing to do.
void when_idle(detail::unique_function<void()> fn);

/// Messages created and processed so far on the calling PE (what quiescence detection counts).
std::uint64_t messages_created();
std::uint64_t messages_processed();

namespace detail {
int run_main(int& argc, char** argv, unique_function<void(const roam::args&)> main);
void report_task_failure(std::exception_ptr e, const std::string& where) noexcept;
}  // namespace detail

template <class Main>
int run(int& argc, char** argv, Main main) {
  using result = std::invoke_result_t<Main&, const roam::args&>;
  if constexpr (is_task_v<result>) {
    return detail::run_main(argc, argv, [main = std::move(main)](const roam::args& a) mutable {
      detail::spawn(main(a), [](std::exception_ptr e) {
        if (e) detail::report_task_failure(e, "main");
      });
    });
  } else {
    static_assert(std::is_void_v<result>, "roam::run: main must return void or roam::task<>");
    return detail::run_main(argc, argv, [main = std::move(main)](const roam::args& a) mutable { main(a); });
  }
}

}  // namespace roam
