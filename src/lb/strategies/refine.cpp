// Refine: improve the current placement with as few migrations as it can.
//
// The threshold of an available PE q is refine_tolerance x average x speed(q)
// seconds; an unavailable PE's is 0 (it is being emptied: every migratable
// object on it must leave). Donors (PEs above their threshold) are taken
// heaviest first (unavailable ones before all), each until it is at or below
// its threshold. Each move goes to the least loaded available PE (load over
// speed) and never lifts it above its threshold; of the donor's objects that
// fit there it takes the lightest one that removes the whole excess in one
// move, else the heaviest (so no move is wasted on a crumb when a bigger
// object fits). An object the receiver cannot take stays put; a PE being
// emptied hands its leftovers to the least loaded PE regardless.
//
// Without PEs to empty, no move lifts a PE above the threshold of a PE that
// was above it, so the maximum does not grow; the result is checked anyway and
// the current placement kept if the ratio got worse.
//
// Cost: O(n + P) to bucket objects by PE, O(k log k) to sort each donor's k
// objects, O(log P + log k) per move (plus erasing from the donor's list).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "strategies/builtin.hpp"

namespace roam::lb::detail {

assignment refine_strategy(const problem& p, const strategy_options& o) {
  validate_problem(p, "Refine");
  validate_tolerance(o, "Refine");
  assignment a = stay(p);
  const std::size_t pes = p.pes.size();
  const std::size_t n = p.objects.size();

  std::vector<double> load(pes);
  for (std::size_t q = 0; q < pes; ++q) load[q] = p.pes[q].background;
  for (const object_load& obj : p.objects) load[obj.pe] += obj.load;
  const double average = balanced_average(p);
  std::vector<double> threshold(pes);
  for (std::size_t q = 0; q < pes; ++q)
    threshold[q] = p.pes[q].available ? o.refine_tolerance * average * p.pes[q].speed : 0.0;
  const double max_before = max_normalised(p, load);

  // Migratable objects bucketed by PE: objects of q are bucket[first[q] .. first[q+1]).
  std::vector<std::uint32_t> first(pes + 1, 0);
  for (const object_load& obj : p.objects)
    if (obj.migratable) ++first[obj.pe + 1];
  for (std::size_t q = 0; q < pes; ++q) first[q + 1] += first[q];
  std::vector<std::uint32_t> bucket(first[pes]);
  {
    std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      if (p.objects[i].migratable) bucket[fill[p.objects[i].pe]++] = static_cast<std::uint32_t>(i);
  }

  bool emptying = false;
  std::vector<std::uint32_t> donors;
  for (std::size_t q = 0; q < pes; ++q) {
    if (first[q + 1] == first[q] || load[q] <= threshold[q]) continue;
    donors.push_back(static_cast<std::uint32_t>(q));
    emptying = emptying || !p.pes[q].available;
  }
  if (donors.empty()) return a;
  std::sort(donors.begin(), donors.end(), [&](std::uint32_t x, std::uint32_t y) {
    if (p.pes[x].available != p.pes[y].available) return !p.pes[x].available;
    const double lx = load[x] / p.pes[x].speed, ly = load[y] / p.pes[y].speed;
    return lx != ly ? lx > ly : x < y;
  });

  // Available PEs by load over speed: the first is the next receiver.
  std::set<std::pair<double, std::uint32_t>> by_load;
  for (std::size_t q = 0; q < pes; ++q)
    if (p.pes[q].available) by_load.emplace(load[q] / p.pes[q].speed, static_cast<std::uint32_t>(q));
  const auto change_load = [&](std::uint32_t q, double delta) {
    if (p.pes[q].available) by_load.erase({load[q] / p.pes[q].speed, q});
    load[q] += delta;
    if (p.pes[q].available) by_load.emplace(load[q] / p.pes[q].speed, q);
  };

  using candidate = std::pair<double, std::uint32_t>;  // (load, object), ascending
  std::set<candidate> objects;
  for (std::uint32_t d : donors) {
    const bool must_empty = !p.pes[d].available;
    objects.clear();
    for (std::uint32_t k = first[d]; k < first[d + 1]; ++k) objects.emplace(p.objects[bucket[k]].load, bucket[k]);
    while (!objects.empty()) {
      const double excess = load[d] - threshold[d];
      if (!must_empty && excess <= 0) break;
      const auto receiver = by_load.begin();
      if (receiver->second == d) break;  // the least loaded PE is this donor: nobody has room
      const std::uint32_t r = receiver->second;
      const double room = threshold[r] - load[r];
      // Candidates that fit are those before `fits`.
      const auto fits = objects.upper_bound(candidate{room, UINT32_MAX});
      std::set<candidate>::iterator pick;
      if (must_empty) {
        pick = fits != objects.begin() ? std::prev(fits) : objects.begin();  // heaviest that fits, else lightest, forced
      } else {
        if (fits == objects.begin()) break;
        const auto clears = objects.lower_bound(candidate{excess, 0});
        // With excess <= room, clears precedes fits unless no fitting object clears the excess.
        pick = excess <= room && clears != fits ? clears : std::prev(fits);
        if (pick->first <= 0) break;  // only weightless objects fit: moving them changes nothing
      }
      const auto [w, obj] = *pick;
      objects.erase(pick);
      change_load(d, -w);
      change_load(r, w);
      a.pe[obj] = r;
    }
  }
  if (!emptying && max_normalised(p, load) > max_before) return stay(p);
  return a;
}

}  // namespace roam::lb::detail
