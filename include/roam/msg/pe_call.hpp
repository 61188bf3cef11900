#pragma once
/// \file
/// roam::call_on_pe<&fn>(pe, args...): runs a free function on any PE of the
/// program, in this process or another, with its arguments moved (one
/// process) or serialized (`pup`, across processes). For libraries that keep
/// per-PE or per-process records of their own (roam::direct's channel
/// locations) without an object to address.
///
/// ```cpp
/// void landed(std::uint64_t id, roam::buffer<std::byte> data);  // a plain function
/// roam::call_on_pe<&landed>(pe, id, std::move(data));
/// ```
///
/// The function's printed name is its identity in every process (as for
/// entry methods), so it must be a named free function or static member,
/// not a lambda. It runs as a message of the given priority (smaller runs
/// first; 0: FIFO), counted by quiescence detection; calls from one PE to
/// another run in the order they were made. An exception escaping it stops
/// the program naming the function and the PE.
#include <cstdint>
#include <utility>

#include <roam/msg/detail/control.hpp>

namespace roam {

template <auto Fn, class... A>
void call_on_pe(std::uint32_t pe, A&&... args) {
  detail::post_control<Fn>(pe, 0, std::forward<A>(args)...);
}

/// The same with a priority (negative: before the PE's FIFO work).
template <auto Fn, class... A>
void call_on_pe_with_priority(std::uint32_t pe, std::int32_t priority, A&&... args) {
  detail::post_control<Fn>(pe, priority, std::forward<A>(args)...);
}

}  // namespace roam
