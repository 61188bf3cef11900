#pragma once
// The launcher proper: starts the nodes, serves their bootstrap, forwards
// their output, watches them and decides roamrun's exit status.
//
// Lifecycle
// - All nodes run until each exits. The first node to fail (non-zero exit or
//   a signal) is reported and decides the exit status; the others get `grace`
//   to notice (their transports see the dead peer) and exit, then their process
//   groups get SIGTERM and, 2 s later, SIGKILL.
// - SIGINT/SIGTERM/SIGHUP to roamrun: every node's group gets SIGTERM at once
//   (SIGKILL 2 s later, or at a second signal); roamrun exits 128+signal.
// - Signals are read from a signalfd, so the event loop is one poll() and has
//   no async handler state.
#include "options.hpp"

namespace roam::detail::roamrun {

/// Runs the job; returns roamrun's exit status. Writes its own messages
/// ("roamrun: ...") to stderr.
int run_job(const options& o);

}  // namespace roam::detail::roamrun
