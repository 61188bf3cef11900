// Metis: communication-aware balancing with METIS 5.1's k-way partitioner.
//
// The graph: one vertex per migratable object, weighted by its load; one
// undirected edge per pair of migratable objects that communicated, weighted
// by bytes (by messages when the problem records no bytes). Both are scaled
// to integers that cannot overflow METIS's idx_t sums. Non-migratable objects
// and background are not vertices: they are the fixed load of their PE.
//
// Parts: one per available PE. When every available PE should receive the
// same migratable work (equal speed and fixed load, to 1e-6), the parts are
// interchangeable and are mapped to PEs so that as little load as possible
// moves: (part, PE, load of the part already there) triples are taken
// heaviest first, each pairing a part and a PE both still free, and the
// parts left over go to the PEs left over in order. Otherwise each part gets
// a target weight (the PE's share of the average minus its fixed load) and
// part k is the k-th available PE.
//
// With fewer migratable objects than available PEs there is nothing for a
// partitioner to do, and Greedy's answer is returned. A failure inside METIS
// is a std::runtime_error.
#ifdef ROAM_HAVE_METIS
#include <metis.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>

#include "strategies/builtin.hpp"

namespace roam::lb::detail {

namespace {

/// Scales non-negative weights to idx_t >= 1, keeping both the largest and the sum far below idx_t's limit.
std::vector<idx_t> integer_weights(const std::vector<double>& w) {
  double max = 0, sum = 0;
  for (double x : w) {
    max = std::max(max, x);
    sum += x;
  }
  const double limit = static_cast<double>(std::numeric_limits<idx_t>::max());
  double scale = max > 0 ? std::min(1e6 / max, limit / 4 / sum) : 0;
  std::vector<idx_t> out(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) out[i] = std::max<idx_t>(1, static_cast<idx_t>(std::llround(w[i] * scale)));
  return out;
}

}  // namespace

assignment metis_strategy(const problem& p, const strategy_options& o) {
  validate_problem(p, "Metis");
  assignment a = stay(p);
  const std::size_t n = p.objects.size();
  std::vector<std::uint32_t> movers;
  std::vector<std::uint32_t> vertex(n, UINT32_MAX);
  for (std::size_t i = 0; i < n; ++i)
    if (p.objects[i].migratable) {
      vertex[i] = static_cast<std::uint32_t>(movers.size());
      movers.push_back(static_cast<std::uint32_t>(i));
    }
  std::vector<std::uint32_t> available;
  for (std::size_t q = 0; q < p.pes.size(); ++q)
    if (p.pes[q].available) available.push_back(static_cast<std::uint32_t>(q));
  if (movers.empty()) return a;
  if (available.size() == 1) {
    for (std::uint32_t obj : movers) a.pe[obj] = available[0];
    return a;
  }
  if (movers.size() < available.size()) return greedy_strategy(p, o);
  if (movers.size() > static_cast<std::size_t>(std::numeric_limits<idx_t>::max() / 2))
    throw std::invalid_argument("Metis: " + std::to_string(movers.size()) + " migratable objects are more than METIS's idx_t holds");

  // Undirected, merged, without self loops: (u, v, weight) both ways, sorted.
  bool any_bytes = false;
  for (const comm_edge& e : p.edges) any_bytes = any_bytes || e.bytes > 0;
  std::vector<std::tuple<std::uint32_t, std::uint32_t, double>> arcs;
  arcs.reserve(2 * p.edges.size());
  for (const comm_edge& e : p.edges) {
    const std::uint32_t u = vertex[e.from], v = vertex[e.to];
    const auto w = static_cast<double>(any_bytes ? e.bytes : e.messages);
    if (u == UINT32_MAX || v == UINT32_MAX || u == v || w <= 0) continue;
    arcs.emplace_back(u, v, w);
    arcs.emplace_back(v, u, w);
  }
  std::sort(arcs.begin(), arcs.end());
  std::vector<idx_t> xadj(movers.size() + 1, 0);
  std::vector<idx_t> adjncy;
  std::vector<double> arc_weight;
  for (std::size_t k = 0; k < arcs.size(); ++k) {
    const auto [u, v, w] = arcs[k];
    if (k > 0 && std::get<0>(arcs[k - 1]) == u && std::get<1>(arcs[k - 1]) == v) {
      arc_weight.back() += w;
      continue;
    }
    adjncy.push_back(static_cast<idx_t>(v));
    arc_weight.push_back(w);
    ++xadj[u + 1];
  }
  arcs = {};
  for (std::size_t v = 0; v < movers.size(); ++v) xadj[v + 1] += xadj[v];
  std::vector<idx_t> adjwgt = integer_weights(arc_weight);
  std::vector<double> load(movers.size());
  for (std::size_t v = 0; v < movers.size(); ++v) load[v] = p.objects[movers[v]].load;
  std::vector<idx_t> vwgt = integer_weights(load);

  // What each available PE should receive, as a share of the migratable work.
  const std::vector<double> fixed = fixed_loads(p);
  const double average = balanced_average(p);
  std::vector<real_t> share(available.size());
  double share_sum = 0;
  for (std::size_t k = 0; k < available.size(); ++k) {
    const std::uint32_t q = available[k];
    share_sum += share[k] = static_cast<real_t>(std::max(average * p.pes[q].speed - fixed[q], 1e-9 * average));
  }
  bool uniform = true;
  for (std::size_t k = 0; k < available.size() && share_sum > 0; ++k) {
    share[k] = static_cast<real_t>(share[k] / share_sum);
    uniform = uniform && std::abs(share[k] * static_cast<double>(available.size()) - 1.0) < 1e-6;
  }

  idx_t vertices = static_cast<idx_t>(movers.size()), constraints = 1, parts = static_cast<idx_t>(available.size());
  idx_t cut = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = static_cast<idx_t>(p.seed % 1000000007u);
  std::vector<idx_t> part(movers.size());
  idx_t no_arc = 0;  // METIS reads adjncy even for a graph without edges
  const int status = METIS_PartGraphKway(&vertices, &constraints, xadj.data(), adjncy.empty() ? &no_arc : adjncy.data(),
                                         vwgt.data(), nullptr, adjwgt.empty() ? nullptr : adjwgt.data(), &parts,
                                         uniform ? nullptr : share.data(), nullptr, options, &cut, part.data());
  if (status != METIS_OK)
    throw std::runtime_error("Metis: METIS_PartGraphKway failed (status " + std::to_string(status) + ") on " +
                             std::to_string(movers.size()) + " objects, " + std::to_string(adjncy.size() / 2) +
                             " edges, " + std::to_string(parts) + " parts");

  std::vector<std::uint32_t> pe_of_part(available.size(), UINT32_MAX);
  if (!uniform) {
    for (std::size_t k = 0; k < available.size(); ++k) pe_of_part[k] = available[k];
  } else {
    // (load already in place, part, PE), merged per (part, PE), heaviest first.
    std::vector<std::tuple<std::uint32_t, std::uint32_t, double>> in_place;
    in_place.reserve(movers.size());
    for (std::size_t v = 0; v < movers.size(); ++v)
      if (p.pes[p.objects[movers[v]].pe].available)
        in_place.emplace_back(static_cast<std::uint32_t>(part[v]), p.objects[movers[v]].pe, load[v]);
    std::sort(in_place.begin(), in_place.end());
    std::vector<std::tuple<double, std::uint32_t, std::uint32_t>> overlap;
    for (const auto& [prt, pe, w] : in_place) {
      if (!overlap.empty() && std::get<1>(overlap.back()) == prt && std::get<2>(overlap.back()) == pe)
        std::get<0>(overlap.back()) += w;
      else
        overlap.emplace_back(w, prt, pe);
    }
    in_place = {};
    std::sort(overlap.begin(), overlap.end(), [](const auto& x, const auto& y) {
      return std::get<0>(x) != std::get<0>(y) ? std::get<0>(x) > std::get<0>(y) : x < y;
    });
    std::vector<bool> pe_taken(p.pes.size(), false);
    for (const auto& [w, prt, pe] : overlap) {
      if (pe_of_part[prt] != UINT32_MAX || pe_taken[pe]) continue;
      pe_of_part[prt] = pe;
      pe_taken[pe] = true;
    }
    std::size_t next = 0;
    for (std::uint32_t& pe : pe_of_part) {
      if (pe != UINT32_MAX) continue;
      while (pe_taken[available[next]]) ++next;
      pe = available[next];
      pe_taken[pe] = true;
    }
  }
  for (std::size_t v = 0; v < movers.size(); ++v) a.pe[movers[v]] = pe_of_part[static_cast<std::size_t>(part[v])];
  return a;
}

}  // namespace roam::lb::detail
#endif
