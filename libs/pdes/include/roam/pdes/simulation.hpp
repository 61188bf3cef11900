#pragma once
/// Parallel discrete-event simulation on roam: a model (model.hpp) run by
/// the sequential, conservative or optimistic (Time Warp) scheduler on every
/// PE of the program, with the same committed events under each.
///
/// ```cpp
/// roam::pdes::engine_options o;
/// o.lps = 80; o.end = 25000; o.mode = roam::pdes::synch::optimistic;
/// roam::pdes::run_stats r = co_await roam::pdes::simulate(my_model{...}, o);
/// ```
/// LPs are grouped into LP chares (an array, block-mapped); each PE's
/// manager runs its chares' events in batches, rolls LPs back on stragglers
/// and anti-messages, and commits below GVT, computed by rounds that never
/// stop event processing. docs/design/pdes.md has the design.
#include <stdexcept>
#include <string>

#include <roam/pdes/detail/command_line.hpp>
#include <roam/pdes/detail/lp_chare.hpp>
#include <roam/pdes/detail/manager.hpp>
#include <roam/pdes/options.hpp>
#include <roam/pdes/sequential.hpp>
#include <roam/roam.hpp>

namespace roam::pdes {

/// Applies the +pdes_* runtime options given (they override the program's
/// values), checks `o` and fills in its defaults for this program; throws
/// std::invalid_argument naming the bad option.
inline engine_options resolve(engine_options o) {
  o = detail::apply_command_line(std::move(o));
  if (o.lps == 0) throw std::invalid_argument("roam::pdes: a simulation needs at least one LP");
  if (!(o.end > 0)) throw std::invalid_argument("roam::pdes: the end time must be above 0");
  if (o.batch == 0) throw std::invalid_argument("roam::pdes: the batch must be at least 1 event");
  if (o.gvt_interval == 0) throw std::invalid_argument("roam::pdes: the GVT interval must be at least 1 batch");
  if (o.mode == synch::conservative && !(o.lookahead > 0))
    throw std::invalid_argument("roam::pdes: the conservative scheduler needs a lookahead above 0");
  if (!(o.max_optimism > 0)) throw std::invalid_argument("roam::pdes: the optimism window must be above 0");
  if (!(o.target_efficiency > 0 && o.target_efficiency < 1))
    throw std::invalid_argument("roam::pdes: the target efficiency must lie between 0 and 1 (exclusive)");
  if (o.checkpoint_every != 0 && o.mode == synch::sequential)
    throw std::invalid_argument("roam::pdes: the sequential scheduler takes no checkpoints (use a parallel one)");
  if (o.checkpoint_every != 0 && o.checkpoint_dir.empty())
    throw std::invalid_argument("roam::pdes: checkpoints every " + std::to_string(o.checkpoint_every) +
                                " GVT rounds need a checkpoint directory");
  const lp_id chares = 4 * lp_id{num_pes()};
  if (o.lps_per_chare == 0) o.lps_per_chare = std::max<lp_id>(1, (o.lps + chares - 1) / chares);
  return o;
}

/// Runs `model` under `options`; `done` receives the result (statistics,
/// and the model's merged summary if it has one: model.hpp) once every event
/// is committed and every LP's final handler ran. Call on one PE.
template <class Model>
void simulate(Model model, engine_options options, callback<result_t<Model>> done) {
  options = resolve(std::move(options));
  if (options.mode == synch::sequential) {
    sequential_engine<Model> engine(std::move(model), options.lps, options.end);
    const auto t0 = std::chrono::steady_clock::now();
    run_stats r = engine.run();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if constexpr (has_summary<Model>) {
      result<Model> out{r, {}};
      for (lp_id g = 0; g < options.lps; ++g) Model::merge(out.summary, engine.summarize(g));
      done.send(std::move(out));
    } else {
      done.send(std::move(r));
    }
    return;
  }
  using manager_type = detail::manager<Model>;
  auto managers = create_group<manager_type>(std::move(model), options, std::move(done));
  auto chares = create_array<detail::lp_chare<Model>>(index<1>{static_cast<std::int32_t>(options.chares())}, managers,
                                                      options.lps, options.lps_per_chare);
  managers.template send<&manager_type::begin>(chares);
}

/// The same, with a future for the result.
template <class Model>
future<result_t<Model>> simulate(Model model, engine_options options) {
  auto [f, p] = make_future<result_t<Model>>();
  simulate(std::move(model), std::move(options), callback<result_t<Model>>::to_future(p));
  return std::move(f);
}

}  // namespace roam::pdes
