#pragma once
// Singleton chares: their type registry, placement, location after moves
// and destruction (src/obj/chares.cpp, chare_moves.cpp).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <roam/msg/buffer.hpp>
#include <roam/msg/detail/control.hpp>
#include <roam/msg/detail/entry.hpp>
#include <roam/msg/detail/wire.hpp>
#include <roam/obj/detail/element_base.hpp>
#include <roam/obj/detail/migratable.hpp>
#include <roam/obj/send_options.hpp>
#include <roam/sched/observe.hpp>
#include <roam/obj/detail/collections.hpp>

namespace roam {
class chare_base;
}  // namespace roam

namespace roam::detail {

/// What the runtime does to move a singleton chare of a type it does not know.
struct chare_ops {
  std::uint64_t cls_id = 0;
  const class_ops* cls = nullptr;
  chare_base* (*base)(void* obj) noexcept = nullptr;
  const move_ops* moves = nullptr;
};
/// Registers a chare type so that a chare of it can arrive from another process.
bool register_chare_ops(const chare_ops* ops);

/// Registers a constructed singleton chare on the calling PE and delivers what waited for it.
void register_chare(std::uint64_t id, void* obj, chare_base* base, const chare_ops* ops);
/// Where this PE would send a message for chare `id` born on `home`: `home`,
/// or where the chare was last heard of once chares have started moving.
std::uint32_t chare_location(std::uint64_t id, std::uint32_t home) noexcept;
/// The home of a chare born on `birth_pe` in this run: `birth_pe` itself, or,
/// after a restart on fewer PEs, birth_pe modulo the PE count.
std::uint32_t restored_chare_home(std::uint32_t birth_pe) noexcept;
/// Set once any chare of this process has moved: until then a chare is
/// always where its proxy says, and sending needs no lookup.
inline std::atomic<bool> g_chares_moved{false};
/// A fresh chare id allocated by the calling PE, and a placement for "anywhere".
std::uint64_t new_chare_id() noexcept;
std::uint32_t place_chare() noexcept;
/// Asks PE `pe` to destroy chare `id` (after messages already queued for it).
void destroy_chare(std::uint32_t pe, std::uint64_t id);

}  // namespace roam::detail
