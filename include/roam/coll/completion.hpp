#pragma once
/// Completion detection: "all N producers have finished, and everything they
/// produced was consumed". Producers call `produce(n)` for each item they
/// create and `done()` once when they will produce no more; consumers call
/// `consume(n)` per item handled; `start(N, cb)` arms the detector, and `cb`
/// fires once when N `done()`s have arrived and the produced and consumed
/// totals over all PEs agree in two consecutive counting waves. Unlike
/// quiescence detection it ignores unrelated traffic. A detector may be
/// started again after it fired (a new phase); its counters carry over.
#include <cstdint>

#include <roam/coll/callback.hpp>

namespace roam {

class completion_detector {
 public:
  completion_detector() noexcept = default;
  /// A new detector; usable on every PE at once (counters are made on first use).
  static completion_detector create();

  /// Arms the detector for `producers` producers (any PE).
  void start(std::uint64_t producers, callback<void> finished) const;
  /// Counts `n` items produced / consumed on the calling PE (no message is sent).
  void produce(std::uint64_t n = 1) const;
  void consume(std::uint64_t n = 1) const;
  /// One producer has finished producing (any PE; sends one message).
  void done() const;

  std::uint32_t id() const noexcept { return id_; }
  template <class P>
  void pup(P& p) {
    p | id_;
  }

 private:
  explicit completion_detector(std::uint32_t id) noexcept : id_(id) {}
  std::uint32_t id_ = 0;
};

}  // namespace roam
