#pragma once
// Section multicasts follow members that migrate (docs/design/collectives.md,
// "Sections after migration"). A PE of the multicast tree that finds one of
// its members gone tells the root once per layout version; the root then
// closes that version with its next multicast: every PE of the tree delivers
// it, sends a marker right behind each copy that had to follow a member
// elsewhere, and tells the root how many; each marker, delivered where its
// member is (or absorbed at the home of a member that does not exist), tells
// the root where that is. When every PE and every marker has answered, no
// copy of the old version is in flight: the root builds the next layout from
// the answers, announces it to every process and releases the multicasts it
// held meanwhile, so members see every multicast once and in order.
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include <roam/obj/detail/objects.hpp>

#include "flat_map.hpp"

namespace roam::detail {

/// Section multicasts carry their layout version in `seq`, with the top bit
/// set on the one that closes its version.
inline constexpr std::uint32_t section_closing_bit = 1u << 31;
inline std::uint32_t section_version_of(const message& m) noexcept { return m.seq & ~section_closing_bit; }
inline bool section_closing(const message& m) noexcept { return (m.seq & section_closing_bit) != 0; }

/// The root's side of one section.
struct section_root_state {
  std::uint32_t version = 0;  ///< the layout new multicasts are stamped with
  bool wanted = false;        ///< a member was reported away: the next multicast closes `version`
  bool regrouping = false;    ///< closed, waiting for the answers; new multicasts are held
  std::uint32_t pes_closed = 0;
  std::uint32_t markers_expected = 0;
  std::uint32_t markers_found = 0;
  std::unordered_map<index_storage, std::uint32_t, index_hash> found;  ///< member -> its PE now
  std::deque<message*> held;
};

/// One PE's regrouping state: the sections it is the root of, and the
/// (section, version) pairs it already reported a member away for.
struct section_pe_state {
  std::unordered_map<std::uint32_t, section_root_state> roots;
  std::unordered_set<std::uint64_t> reported;
  section_pe_state() = default;
  section_pe_state(const section_pe_state&) = delete;
  section_pe_state& operator=(const section_pe_state&) = delete;
  ~section_pe_state();
};

/// On the root, a multicast from its sender (called under the section
/// table's lock: it touches only this PE's state): stamps it with the current
/// version (closing it if a regroup is wanted) and returns true, or holds it
/// while a regroup runs and returns false.
bool admit_at_root(const section_desc& sec, message* m) noexcept;
/// A PE of the tree found a member of `version` elsewhere (once per version).
void note_member_away(const section_desc& sec, std::uint32_t version) noexcept;
/// A marker to follow `copy` (a closing multicast's copy for a member not
/// here) along the same path.
message* section_marker_after(const message* copy, const section_desc& sec) noexcept;
/// This PE delivered the closing multicast and sent `markers` markers.
void note_version_closed(const section_desc& sec, std::uint32_t markers) noexcept;
/// Whether an element message is a section marker (`seq`: its section's id;
/// every other element message has 0 there).
inline bool is_section_marker(const message& m) noexcept { return m.seq != 0 && m.target == target_kind::element; }
/// A marker delivered where its member is, or absorbed at the home of a
/// member that is nowhere (`where`: that PE): tells the root. The caller frees it.
void absorb_section_marker(const message& m, std::uint32_t where) noexcept;

}  // namespace roam::detail
