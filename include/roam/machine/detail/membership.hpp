#pragma once
// membership_transport: the runtime's transport in a job that can lose
// processes (docs/design/fault-tolerance.md). It wraps the physical transport
// (tcp, mpi) and gives the runtime *logical* nodes 0..M-1: the first M live
// processes in physical order, M = min(workers, live). Processes beyond them
// are spares: they run no PEs and wait to be given a place.
//
// When a physical peer fails (the physical transport reports it), the
// survivors agree on the failed set: a process that suspects a peer tells
// the coordinator (the lowest process it believes alive), which declares the
// set with a new epoch number; every process adopting an epoch rebroadcasts
// the declaration once its runtime has stopped. That rebroadcast is also the
// process's *marker*: on each (FIFO) channel, runtime frames before a peer's
// marker for the current epoch belong to the abandoned epoch and are
// discarded; those after it belong to the new one and are held until the new
// runtime is installed. A process that finds itself in a declared set is
// fenced: it exits at once. Then the survivors exchange blobs (what the
// checkpoint layer holds, then the checkpoint itself: exchange()) and the
// run loop starts a new runtime on the new layout.
//
// Threads: everything but send() and wake() runs on the progress thread.
// The logical layout changes only in resume(), while no PE of this process
// runs, so send() reads it without locks.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <roam/machine/detail/transport.hpp>

namespace roam::detail {

class membership_transport final : public transport {
 public:
  static constexpr std::uint32_t no_node = ~std::uint32_t{0};

  /// `workers`: processes that host PEs at the start; the other
  /// physical->num_nodes() - workers are spares (at least 1 worker).
  membership_transport(std::unique_ptr<transport> physical, std::uint32_t workers);
  ~membership_transport() override;

  const char* name() const noexcept override { return physical_->name(); }
  /// This process's logical node (no_node for a spare).
  std::uint32_t my_node() const noexcept override { return my_logical_; }
  /// Logical nodes (processes hosting PEs) in this epoch.
  std::uint32_t num_nodes() const noexcept override { return static_cast<std::uint32_t>(phys_of_.size()); }
  void set_handlers(transport_handlers h) override;
  void send(std::uint32_t dst, out_frame frame) override;
  bool progress() override;
  void wait(std::chrono::microseconds timeout) override;
  void wake() noexcept override { physical_->wake(); }
  bool sends_started() const noexcept override { return physical_->sends_started(); }
  /// Bootstrap only (epoch 0): every process takes part, spares too; the
  /// workers' blobs are returned.
  std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> mine) override;
  void finish() override;
  void tell_launcher(std::string_view line) override { physical_->tell_launcher(line); }
  bool go_silent() override { return physical_->go_silent(); }

  // --- failures and recovery (progress thread) ---

  bool is_spare() const noexcept { return my_logical_ == no_node; }
  std::uint32_t physical_node() const noexcept { return me_; }
  std::uint64_t epoch() const noexcept { return epoch_; }
  /// A failure was declared: the runtime must stop (or has) and recover.
  bool recovery_requested() const noexcept { return recovering_; }
  /// A worker told this spare that the job ended, with this exit code.
  std::optional<int> job_ended() const noexcept { return job_end_; }

  /// The runtime of this process is stopped (or there is none): broadcast the
  /// current declaration, which is also this process's marker for the epoch.
  void stopped();
  /// Drives progress until every live process has stopped for the current
  /// epoch. False when the epoch changed meanwhile (call stopped() again).
  bool settle();
  /// Every live process's blob for `round` of this epoch, in physical order
  /// of the live processes (this process's own included); nullopt when the
  /// epoch changed meanwhile.
  std::optional<std::vector<std::vector<std::byte>>> exchange(std::uint32_t round, std::vector<std::byte> mine);
  /// Index of this process among the live ones (the order exchange() uses).
  std::uint32_t live_index() const;
  /// The layout of the current epoch takes effect: my_node(), num_nodes()
  /// and send() follow it; held frames go to the next set_handlers().
  void resume();
  /// A spare: drives progress until it is needed (recovery_requested) or
  /// the job ends (job_ended).
  void idle_as_spare();

  /// The host of each physical process (this_host_id() of each, from the
  /// bootstrap), so that the layout can say where each logical node runs.
  void set_hosts(std::vector<std::uint64_t> by_physical) { hosts_ = std::move(by_physical); }
  /// The job's key (node 0's random number from the bootstrap), for job_instance.
  void set_job_key(std::uint64_t key) noexcept { job_key_ = key; }
  std::uint64_t job_key() const noexcept { return job_key_; }
  /// The host of each logical node in effect (empty if set_hosts was not called).
  std::vector<std::uint64_t> logical_hosts() const {
    std::vector<std::uint64_t> out;
    if (hosts_.size() != total_) return out;
    for (std::uint32_t p : phys_of_) out.push_back(hosts_[p]);
    return out;
  }

  /// Physical processes declared failed so far, in the order they were.
  const std::vector<std::uint32_t>& failed() const noexcept { return failed_order_; }
  /// How the newest failures were detected (for the report): one line each.
  std::vector<std::string> take_failure_notes();
  /// "node 2" or "nodes 1, 2" (logical numbers before the failure; spares
  /// as "spare process P"): what failed since the last resume().
  std::string failure_summary() const;
  /// The logical nodes (numbers before the failure) of the workers that
  /// failed since the last resume(); spares are not among them.
  std::vector<std::uint32_t> failed_nodes() const {
    std::vector<std::uint32_t> out;
    for (std::size_t i = failed_since_resume_; i < failed_order_.size(); ++i)
      if (logical_of_[failed_order_[i]] != no_node) out.push_back(logical_of_[failed_order_[i]]);
    return out;
  }
  /// steady_clock nanoseconds when this process first learned of a failure
  /// since the last resume() (0: none).
  std::int64_t detected_ns() const noexcept { return detected_ns_; }

 private:
  struct held_frame {
    std::uint32_t src;  // physical
    std::vector<std::byte> bytes;
    std::vector<frame_segment> segments;
  };

  static void on_frame_cb(void* ctx, std::uint32_t src, std::span<const std::byte> frame,
                          std::span<frame_segment> segments);
  static void on_failure_cb(void* ctx, std::uint32_t node, const std::string& why);
  static std::byte* frame_memory_cb(void* ctx, std::size_t bytes);

  void on_control(std::uint32_t src, std::span<const std::byte> frame);
  void suspect(std::uint32_t node, const std::string& why);
  std::uint32_t coordinator() const;
  void adopt(std::uint64_t epoch, const std::vector<std::uint32_t>& dead);
  void send_control(std::uint32_t dst, std::uint8_t kind, std::span<const std::byte> payload);
  void send_suspicions();
  std::vector<std::uint32_t> live() const;
  void recompute_layout(std::vector<std::uint32_t>& phys_of, std::uint32_t& my_logical) const;
  void deliver_held();

  std::unique_ptr<transport> physical_;
  std::uint32_t total_;
  std::uint32_t workers_;
  std::uint32_t me_;

  transport_handlers runtime_{};
  bool runtime_set_ = false;

  // The layout in effect (changed only by resume()).
  std::vector<std::uint32_t> phys_of_;     // [logical] -> physical
  std::vector<std::uint32_t> logical_of_;  // [physical] -> logical or no_node
  std::uint32_t my_logical_ = no_node;
  std::vector<std::uint64_t> hosts_;  // [physical]
  std::uint64_t job_key_ = 0;

  // Membership (progress thread).
  std::uint64_t epoch_ = 0;
  std::vector<char> dead_;                // [physical]
  std::vector<char> suspected_;           // [physical]
  std::vector<std::uint64_t> marker_;     // [physical]: the newest epoch it stopped for
  std::vector<std::uint32_t> failed_order_;
  std::vector<std::string> notes_;
  std::vector<std::string> reasons_;  ///< per physical node: why it is suspected (travels with the suspicion)
  std::size_t failed_since_resume_ = 0;  // index into failed_order_
  std::int64_t detected_ns_ = 0;
  bool recovering_ = false;
  bool announced_ = false;  // stopped() broadcast the current epoch
  bool silenced_ = false;   // fenced: declared failed by the others
  std::optional<int> job_end_;

  // exchange(): [round] -> blobs by physical sender, for the current epoch.
  std::vector<std::vector<std::optional<std::vector<std::byte>>>> rounds_;
  std::vector<held_frame> held_;
};

}  // namespace roam::detail
