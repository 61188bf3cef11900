#pragma once
/// \file
/// Reports of suspended tasks (roam::task entries, mailboxes: <roam/flow/mailbox.hpp>), for a program that hangs: a task awaiting a
/// reference number that never comes waits silently forever.
///
/// ```
/// [pe 2/4] 2 unfinished tasks:
///   array cell[1,2]: 1 task
///     mailbox cell::ghost: 1 receive waits (ref 17); 2 messages kept (refs 18, 19)
///   chare driver #0.3: 1 task
/// ```
///
/// - `co_await roam::report_waiting_tasks();` has every PE print its report
///   to stderr, one PE after another in PE order (each when it next runs a
///   message; quiescence detection does not count these requests), and
///   resumes once all have. PEs with no unfinished task print nothing.
///   Called after quiescence it shows what a stuck program waits for; a
///   program that exits without awaiting it may lose the reports.
/// - The runtime option `+taskreport` prints the same on every PE at exit.
/// - Listed per object with unfinished tasks: each mailbox that has a
///   receive waiting or messages kept (with their reference numbers: numbers
///   and strings as themselves, other types as "?"). Tasks waiting on a
///   future, a timer, quiescence or another task are counted, not described.
///   Mailboxes are known through the sends that name them: one that no code
///   sends to is not listed.
#include <string>

#include <roam/msg/future.hpp>

namespace roam {

/// Every PE prints its unfinished tasks to stderr, in PE order; the future
/// is ready once all have.
future<> report_waiting_tasks();

namespace detail {
/// The calling PE's report ("" when it has no suspended task).
std::string waiting_tasks_here();
}  // namespace detail

}  // namespace roam
