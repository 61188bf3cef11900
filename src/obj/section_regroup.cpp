// Regrouping a section's multicast tree by where its members are now
// (section_regroup.hpp has the protocol; docs/design/collectives.md why).
#include "section_regroup.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include <roam/msg/detail/control.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

namespace {

section_pe_state& regroup_state() {
  pe_objects& objs = objects();
  if (!objs.sections) objs.sections = std::make_unique<section_pe_state>();
  return *objs.sections;
}

// The root, once every PE of the closed version and every marker answered:
// the next layout from where the members are, then the held multicasts.
void finish_regroup(const section_desc& sec, section_root_state& r) {
  const section_layout* old = find_section_layout(&sec, r.version);
  const std::uint32_t root = sec.root_pe();
  std::map<std::uint32_t, std::vector<index_storage>> by_pe;
  by_pe[root];  // the root stays in the tree, members or not: senders reach it there
  for (std::uint32_t rank = 0; rank < old->tree_pes.size(); ++rank)
    for (const index_storage& key : old->keys[rank]) {
      auto f = r.found.find(key);
      by_pe[f != r.found.end() ? f->second : old->tree_pes[rank]].push_back(key);
    }
  // Ascending from the root, wrapping around, as the home layout's tree.
  std::vector<std::uint32_t> tree_pes;
  std::vector<std::vector<index_storage>> keys;
  auto take = [&](std::pair<const std::uint32_t, std::vector<index_storage>>& entry) {
    std::sort(entry.second.begin(), entry.second.end(), index_order);
    tree_pes.push_back(entry.first);
    keys.push_back(std::move(entry.second));
  };
  const auto at_root = by_pe.find(root);
  for (auto it = at_root; it != by_pe.end(); ++it) take(*it);
  for (auto it = by_pe.begin(); it != at_root; ++it) take(*it);
  const bool moved = tree_pes != old->tree_pes || keys != old->keys;
  if (moved) {
    add_section_layout(&sec, std::move(tree_pes), std::move(keys), r.version + 1, true);
    ++r.version;
  }
  r.regrouping = false;
  r.pes_closed = r.markers_expected = r.markers_found = 0;
  r.found.clear();
  // In order; a released multicast may close the new version at once (then
  // the rest stay held, in front of anything newer).
  pe_objects& objs = objects();
  while (!r.regrouping && !r.held.empty()) {
    message* m = r.held.front();
    r.held.pop_front();
    deliver_section(objs, m);
  }
}

void try_finish(const section_desc& sec, section_root_state& r) {
  const section_layout* old = find_section_layout(&sec, r.version);
  if (r.regrouping && r.pes_closed == old->tree_pes.size() && r.markers_found == r.markers_expected)
    finish_regroup(sec, r);
}

section_root_state* root_state_of(std::uint32_t id, const section_desc*& sec) {
  sec = find_section(id);
  if (!sec || sec->root_pe() != tls_pe->id()) return nullptr;
  return &regroup_state().roots[id];
}

// ---- the root's control entries ----------------------------------------------

void member_away_reported(std::uint32_t id, std::uint32_t version) {
  const section_desc* sec = nullptr;
  section_root_state* r = root_state_of(id, sec);
  if (r && version == r->version && !r->regrouping) r->wanted = true;  // an older version's news is stale
}

void version_closed(std::uint32_t id, std::uint32_t markers) {
  const section_desc* sec = nullptr;
  section_root_state* r = root_state_of(id, sec);
  if (!r || !r->regrouping) return;
  ++r->pes_closed;
  r->markers_expected += markers;
  try_finish(*sec, *r);
}

void member_found(std::uint32_t id, index_storage key, std::uint32_t pe) {
  const section_desc* sec = nullptr;
  section_root_state* r = root_state_of(id, sec);
  if (!r || !r->regrouping) return;
  r->found[key] = pe;
  ++r->markers_found;
  try_finish(*sec, *r);
}

}  // namespace

section_pe_state::~section_pe_state() {
  for (auto& [id, r] : roots)
    for (message* m : r.held) discard_message(m);
}

bool admit_at_root(const section_desc& sec, message* m) noexcept {
  // Group sections never regroup: group members do not move.
  if (sec.array->kind != collection_kind::array) {
    m->seq = 0;
    return true;
  }
  section_root_state& r = regroup_state().roots[sec.id];
  if (r.regrouping) {
    r.held.push_back(m);
    return false;
  }
  m->seq = r.version;
  if (r.wanted) {
    r.wanted = false;
    r.regrouping = true;
    m->seq |= section_closing_bit;
  }
  return true;
}

void note_member_away(const section_desc& sec, std::uint32_t version) noexcept {
  if (!regroup_state().reported.insert(std::uint64_t{sec.id} << 32 | version).second) return;
  post_control<&member_away_reported>(sec.root_pe(), 0, sec.id, version);
}

message* section_marker_after(const message* copy, const section_desc& sec) noexcept {
  message* marker = clone_message(copy);
  marker->seq = sec.id;
  return marker;
}

void note_version_closed(const section_desc& sec, std::uint32_t markers) noexcept {
  post_control<&version_closed>(sec.root_pe(), 0, sec.id, markers);
}

void absorb_section_marker(const message& m, std::uint32_t where) noexcept {
  const section_desc* sec = find_section(m.seq);
  if (!sec) return;  // the process forgot its sections (a recovery): nothing waits for it
  post_control<&member_found>(sec->root_pe(), 0, sec->id, m.index, where);
}

}  // namespace roam::detail
