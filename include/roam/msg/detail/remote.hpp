#pragma once
// The message layer's side of crossing processes: readonly globals that node 0
// sends to every other node before anything else runs there, and the run
// function of entry messages that arrive from the wire (set by the object layer).
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <roam/msg/pup.hpp>
#include <roam/sched/detail/work.hpp>

namespace roam::detail {

/// How an entry message received from another node runs (objects' `deliver`).
inline void (*g_deliver_entry)(work_item*, work_action) noexcept = nullptr;

/// Fills the scheduler's remote hooks (g_remote); the object layer calls it at
/// start-up, which also makes sure this part of the library is linked in.
void install_remote_hooks() noexcept;

struct message;
struct runtime_state;
/// Packs a copy of `m` for PE `dst_pe` of another node and sends it (`m` stays the caller's).
void send_copy_to(runtime_state& rt, std::uint32_t dst_pe, message& m);

/// A readonly global: its address, how to pup it, and its type (to check that
/// every node registered the same globals in the same order).
using readonly_pup = void (*)(pup_er& p, void* obj);
void register_readonly(void* obj, readonly_pup pup, std::string_view type);
void unregister_readonly(void* obj) noexcept;
/// Every readonly global of this process, packed (what node 0 sends, and what a checkpoint keeps).
std::vector<std::byte> readonly_globals_packed();
/// Overwrites this process's readonly globals from readonly_globals_packed()'s
/// bytes. Throws pup_error when they do not match this program's globals.
void restore_readonly_globals(std::span<const std::byte> blob);

}  // namespace roam::detail
