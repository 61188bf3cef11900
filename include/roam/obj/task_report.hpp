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
/// - `roam::report_waiting_tasks()` prints the calling PE's report at once
///   and asks every other PE to print its own to stderr when it next runs a
///   message (quiescence detection does not count these requests); PEs with
///   no unfinished task print nothing. Calling it from a quiescence callback
///   shows what a stuck program waits for. Other PEs' reports are lost if
///   the program exits before they run them: for a report at the end, use
///   the runtime option `+taskreport`, which prints it on every PE at exit.
/// - Listed per object with unfinished tasks: each mailbox that has a
///   receive waiting or messages kept (with their reference numbers: numbers
///   and strings as themselves, other types as "?"). Tasks waiting on a
///   future, a timer, quiescence or another task are counted, not described.
///   Mailboxes are known through the sends that name them: one that no code
///   sends to is not listed.
#include <string>

namespace roam {

/// Every PE prints its unfinished tasks to stderr (this one now, the others asynchronously).
void report_waiting_tasks();

namespace detail {
/// The calling PE's report ("" when it has no suspended task).
std::string waiting_tasks_here();
}  // namespace detail

}  // namespace roam
