#pragma once
/// PHOLD, the classic PDES benchmark, as ROSS's models/phold defines it: each
/// LP starts with `start_events` events; an event sends one new event, to a
/// uniformly drawn LP with probability `remote` (else to itself),
/// `lookahead` plus an exponential of mean `mean` later (ROSS's `--mean`
/// option minus the lookahead). One stream per LP, two or three draws per
/// event: the same options commit the same events as ROSS. Used by
/// apps/phold and `roam-bench pdes`.
#include <cstdint>

#include <roam/pdes/model.hpp>
#include <roam/pdes/rng.hpp>

namespace roam::pdes {

struct phold_model {
  using state = long;
  using message = long;
  double remote = 0.25;
  double lookahead = 1.0;
  double mean = 0.0;  ///< of the exponential part (ROSS: --mean minus the lookahead)
  std::uint32_t start_events = 1;
  std::uint64_t lps = 1;
  bool wrong_reverse = false;  ///< a deliberately broken reverse handler (forgets a draw), for the rollback check's test

  void init(state&, lp<phold_model>& l) {
    for (std::uint32_t i = 0; i < start_events; ++i) l.send(l.gid(), exponential(l.rng(), mean) + lookahead, 0);
  }
  void event(state&, bitfield& bf, message&, lp<phold_model>& l) {
    lp_id dest = l.gid();
    if (unif(l.rng()) <= remote) {
      bf.c1 = 1;
      dest = static_cast<lp_id>(integer(l.rng(), 0, static_cast<long>(lps) - 1));
    }
    l.send(dest, exponential(l.rng(), mean) + lookahead, 0);
  }
  void reverse(state&, bitfield& bf, message&, lp<phold_model>& l) {
    reverse_unif(l.rng());
    if (bf.c1 && !wrong_reverse) reverse_unif(l.rng());
    reverse_unif(l.rng());
  }
  void commit(state&, bitfield&, message&, lp<phold_model>&) {}
  void final(state&, lp<phold_model>&) {}
  template <class P>
  void pup(P& p) {
    p | remote | lookahead | mean | start_events | lps | wrong_reverse;
  }
};

}  // namespace roam::pdes
