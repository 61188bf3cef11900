#pragma once
// Who lives where: construction contexts, reduction contributors, location
// management and migration of elements, the collectives layer's population
// hooks (g_population_counter), insertion and the initial construction of members
// (src/obj/element_*.cpp, construction.cpp).
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

namespace roam::detail {

/// What base-class constructors read to learn who they are (set around `new T(...)`).
struct construction_context {
  const collection_desc* desc = nullptr;
  index_storage index;
  std::uint64_t chare_id = 0;
  std::uint32_t pe = 0;
};
inline constinit thread_local const construction_context* tls_constructing = nullptr;
/// The current construction context; aborts with a clear message outside runtime-driven construction.
const construction_context& current_construction(const char* base);

/// Who contributes to a reduction: its collection, its key (linear index, or PE
/// for a group member), and its own count of contributions so far, which is
/// what numbers its reductions (per contributor, so it survives migration).
struct contributor {
  const collection_desc* desc = nullptr;
  std::uint64_t key = 0;
  std::uint32_t* next_reduction = nullptr;  ///< the member's own counter (arrays, groups)
  std::atomic<std::uint32_t>* shared_next = nullptr;  ///< nodegroups: any PE of the node may contribute
  element_base* element = nullptr;  ///< array elements: their section counters travel with them
  std::uint32_t take_number() const noexcept {
    return next_reduction ? (*next_reduction)++ : shared_next->fetch_add(1, std::memory_order_relaxed);
  }
};

// ---- location management and migration (obj/elements.cpp) ----

/// The home PE of an element: where its location is always known.
std::uint32_t home_of(const collection_desc* desc, const index_storage& idx) noexcept;
/// Where the calling PE should send a message for an element: here if it is
/// here, else the cached location, else its home.
std::uint32_t locate_element(const collection_desc* desc, const index_storage& idx) noexcept;
/// The element if it lives on the calling PE now, else nullptr.
void* local_element(const collection_desc* desc, const index_storage& idx) noexcept;
/// Moves the element, which must be on the calling PE, to `pe` (the load
/// balancer's call). False, with nothing done, if it is not here.
bool migrate_local_element(const collection_desc* desc, const index_storage& idx, std::uint32_t pe);
/// Number of elements of the array on the calling PE now.
std::uint32_t local_element_count(const collection_desc* desc) noexcept;

/// How the collectives layer follows the population of an array on each PE
/// (reductions count the elements that must contribute). Set at start-up.
struct population_counter {
  /// An element with this next reduction number is now on this PE (built or arrived).
  void (*here)(const collection_desc*, std::uint32_t next_reduction) = nullptr;
  /// One left this PE (migrated away).
  void (*gone)(const collection_desc*, std::uint32_t next_reduction) = nullptr;
  /// One is being inserted (on this PE or another) by an element whose next
  /// reduction is `parent_next` (or `no_parent`): returns the new one's first
  /// reduction (the parent's next, else this PE's current) and counts the
  /// birth there, unless this PE has already passed that reduction up. Then
  /// only the root may count it, before the element exists: the hook returns
  /// the PE that must see the insertion first in `count_on` (else no_pe).
  std::uint32_t (*born)(const collection_desc*, std::uint32_t parent_next, std::uint32_t& count_on) = nullptr;
  /// The root counts a birth for reduction `first` (an insertion on its way
  /// from a PE that had passed `first` up).
  void (*born_at_root)(const collection_desc*, std::uint32_t first) = nullptr;
  /// One was destroyed here.
  void (*died)(const collection_desc*, std::uint32_t next_reduction) = nullptr;
  /// The array's initial members on this PE are built.
  void (*constructed)(const collection_desc*) = nullptr;
};
inline population_counter g_population_counter;

/// The array element whose entry method runs on this thread (null outside one).
inline constinit thread_local element_base* tls_running_element = nullptr;
/// Where a new element starts: the numbers of the first reduction it joins and
/// of the last broadcast it counts as seen. Inserted from inside an element of
/// the same array, it takes over from that element (it joins the reductions and
/// broadcasts that element has not reached yet).
struct element_start {
  std::uint32_t reductions = 0;
  std::uint32_t broadcasts = 0;
  std::uint32_t issuer = 0;  ///< the PE that called insert: told when the element is built
  /// The PE that must count the birth before the insertion goes on to the
  /// element's home (the reductions' root), or no_pe: see population_counter::born.
  std::uint32_t count_birth_on = no_pe;
  void pup(pup_er& p) { p | reductions | broadcasts | issuer | count_birth_on; }
};
/// `parent_next` of an insertion that does not come from an element of the array.
inline constexpr std::uint32_t no_parent = ~0u;
/// The root counts the birth of an insertion relayed through it (element_start::count_birth_on).
void count_birth_at_root(const collection_desc* desc, std::uint32_t first);
/// The calling PE issues an insertion into `desc` (done_inserting waits for
/// it) from inside element `parent` (or null): where the new element starts.
/// Its birth is counted here and now, so no reduction can complete without it.
element_start note_insert_issued(const collection_desc* desc, element_base* parent);
/// An insertion issued by the calling PE is built (or failed).
void insert_acked(collection_wire collection);

/// Builds an element from typed arguments; runs under a construction context.
using make_fn = void* (*)(const void* args, const construction_context&);
/// Insertion, step 1, on the element's home: records where it will live and
/// returns its epoch, or ~0u if it exists already (reported).
std::uint32_t register_insertion(const collection_desc* desc, const index_storage& idx, std::uint32_t pe);
/// Insertion, step 2, on the chosen PE: builds it and delivers what waited for it.
void install_inserted(const collection_desc* desc, const index_storage& idx, std::uint32_t epoch, element_start start,
                      make_fn make, const void* args);
/// Initial population finished (sparse arrays): see array_proxy::done_inserting.
void mark_done_inserting(const collection_desc* desc);

/// A `make_fn` for members built from a tuple of constructor arguments
/// (`Args`, copied: every member of the collection gets its own).
template <class T, class Args>
void* make_from_args(const void* args, const construction_context&) {
  const Args& a = *static_cast<const Args*>(args);
  return std::apply([](const auto&... x) { return static_cast<void*>(new T(x...)); }, a);
}

/// Runs on every PE (or one) to construct the local members of a collection.
void construct_local_members(const collection_desc* desc, void* (*make)(const void* args, const construction_context&),
                             const void* args);

}  // namespace roam::detail
