// The process-wide runtime state (runtime_state.hpp): its construction, the
// node queue, and the exit and recovery requests.
#include <roam/machine/detail/topology.hpp>
#include <roam/machine/detail/transport.hpp>
#include <roam/sched/detail/runtime_state.hpp>

namespace roam::detail {

runtime_state::runtime_state(runtime_options o, node_layout layout, transport* t)
    : opts(o),
      my_node(layout.node),
      num_nodes(layout.nodes),
      ppn(layout.ppn),
      first_pe(layout.node * layout.ppn),
      num_pes(layout.nodes * layout.ppn),
      net(t) {
  static std::atomic<std::uint64_t> generations{0};
  generation = ++generations;
  oversubscribed = ppn + (t && (ppn > 1 || o.commthread) ? 1 : 0) > static_cast<std::uint32_t>(available_cores());
  pes.reserve(ppn);
  for (std::uint32_t i = 0; i < ppn; ++i) pes.push_back(std::make_unique<pe_state>(*this, first_pe + i, num_pes));
}

runtime_state::~runtime_state() = default;

void runtime_state::enqueue_node(work_item* w) noexcept {
  {
    std::lock_guard lock(node_mutex_);
    node_queue_.push_back(w);
    node_pending_.fetch_add(1, std::memory_order_seq_cst);
  }
  // Wake one sleeping PE; busy PEs look at the node queue between messages.
  for (auto& pe : pes) {
    if (pe.get() != tls_pe) {
      pe->wake();
      break;
    }
  }
}

work_item* runtime_state::take_node_item() noexcept {
  if (node_pending_.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard lock(node_mutex_);
  work_item* w = node_queue_.pop();
  if (w) node_pending_.fetch_sub(1, std::memory_order_relaxed);
  return w;
}

void runtime_state::request_exit(int code, bool from_peer) noexcept {
  if (exit_requested_.exchange(true)) return;
  exit_code_.store(code);
  if (net && !from_peer && g_remote.broadcast_exit) g_remote.broadcast_exit(*this, code);
  stopping_.store(true, std::memory_order_seq_cst);
  for (auto& pe : pes) pe->wake();
  if (net) net->wake();
}

bool runtime_state::request_recovery_stop() noexcept {
  if (exit_requested_.exchange(true)) return false;
  stopping_.store(true, std::memory_order_seq_cst);
  for (auto& pe : pes) pe->wake();
  if (net) net->wake();
  return true;
}

}  // namespace roam::detail
