#pragma once
/// Quiescence detection: `roam::on_quiescence(cb)` delivers `cb` once, when no
/// PE is processing a message and no message is in flight anywhere. It counts
/// the messages every PE created and processed, in waves down and up the PE
/// tree, and fires only after two consecutive waves saw equal and unchanged
/// totals (so it cannot fire early). Any number of requests may be pending;
/// each fires exactly once. Its own wave messages are not counted.
#include <roam/coll/callback.hpp>

namespace roam {

/// Requests `cb` at the next quiescence (callable on any PE).
void on_quiescence(callback<void> cb);

/// A future of the next quiescence, for tasks: `co_await roam::quiescence();`
/// (a task of a chare or element holds its object in place meanwhile).
inline future<void> quiescence() {
  auto [f, p] = make_future<void>();
  on_quiescence(callback<void>::to_future(p));
  return std::move(f);
}

}  // namespace roam
