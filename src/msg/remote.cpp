// Messages that leave the process: packing them onto the transport, turning
// received frames back into messages on the right PE, exit notices, and the
// readonly globals node 0 sends before anything else may run elsewhere.
#include <algorithm>
#include <mutex>
#include <vector>

#include <roam/msg/detail/control.hpp>
#include <roam/msg/detail/remote.hpp>
#include <roam/msg/detail/wire.hpp>

#include <roam/machine/detail/transport.hpp>
#include <roam/sched/detail/hook_slot.hpp>

namespace roam::detail {

namespace {

struct readonly_entry {
  void* obj;
  readonly_pup pup;
  std::uint64_t type;
};
struct readonly_table {
  std::mutex mutex;
  std::vector<readonly_entry> entries;  // in registration (static initialisation) order
};
readonly_table& readonlies() {
  static readonly_table t;
  return t;
}

std::string node_prefix(const runtime_state& rt) { return "node " + std::to_string(rt.my_node) + ": "; }

// Everything a peer needs to mirror node 0's readonly globals.
std::vector<std::byte> pack_readonlies() {
  auto& t = readonlies();
  std::lock_guard lock(t.mutex);
  auto pup_all = [&](pup_er& p) {
    auto n = static_cast<std::uint32_t>(t.entries.size());
    p | n;
    for (auto& e : t.entries) {
      std::uint64_t type = e.type;
      p | type;
      e.pup(p, e.obj);
    }
  };
  pup_er sizer = pup_er::sizer();
  pup_all(sizer);
  std::vector<std::byte> out(sizer.offset());
  pup_er packer = pup_er::packer(out.data(), out.size());
  pup_all(packer);
  return out;
}

void apply_readonlies(std::vector<std::byte> blob) {
  auto& t = readonlies();
  std::lock_guard lock(t.mutex);
  pup_er p = pup_er::unpacker(blob.data(), blob.size());
  std::uint32_t n = 0;
  p | n;
  if (n != t.entries.size())
    throw pup_error("node 0 has " + std::to_string(n) + " readonly globals, this node " +
                    std::to_string(t.entries.size()) + " (are all nodes running the same binary?)");
  for (auto& e : t.entries) {
    std::uint64_t type = 0;
    p | type;
    if (type != e.type) throw pup_error("readonly globals differ between node 0 and this node (same binary?)");
    e.pup(p, e.obj);
  }
  if (p.remaining() != 0) throw pup_error("trailing bytes after the readonly globals");
}

void remote_exit(int code) {
  if (runtime_state* rt = g_runtime.load()) rt->request_exit(code, true);
}

void send_frame(runtime_state& rt, std::uint32_t dst_pe, message* m) {
  m->dst_pe = dst_pe;
  out_frame frame = pack_message(*m);  // shares the blocks of large buffers with the arguments
  m->ops->destroy(m);
  free_message(m);
  rt.net->send(rt.node_of(dst_pe), std::move(frame));
}

// Node 0 sends its readonlies once, before its first message to another node
// or when main's synchronous part ends, whichever comes first. Other nodes hold
// every frame until they have them, so the order of arrival does not matter.
std::atomic<std::uint64_t> g_readonlies_sent_for{0};  // runtime_state::generation

void send_readonlies_once(runtime_state& rt) noexcept {
  if (rt.my_node != 0 || g_readonlies_sent_for.load(std::memory_order_acquire) == rt.generation) return;
  if (g_readonlies_sent_for.exchange(rt.generation) == rt.generation) return;
  std::vector<std::byte> blob;
  try {
    blob = pack_readonlies();
  } catch (const std::exception& e) {
    report_fatal(std::string("packing the readonly globals: ") + e.what());
    return;
  }
  for (std::uint32_t node = 1; node < rt.num_nodes; ++node) {
    message* m = build_control<&apply_readonlies, void>(0, blob);
    m->flags |= work_uncounted;
    m->src_pe = tls_pe ? tls_pe->id() : 0;
    send_frame(rt, rt.first_pe_of(node), m);
  }
}

void send_remote(runtime_state& rt, std::uint32_t dst, work_item* w) noexcept {
  heap_route_pause pause;  // frames and transport buffers are the process's
  if (w->flags & work_closure) [[unlikely]] {
    w->run(w, work_action::discard);
    report_fatal("internal error: a closure was sent to pe " + std::to_string(dst) + " in another process");
    return;
  }
  send_readonlies_once(rt);
  auto* m = static_cast<message*>(w);
  try {
    send_frame(rt, dst, m);
  } catch (const std::exception& e) {
    report_fatal("packing a message (" + std::string(m->ops->name) + ") for pe " + std::to_string(dst) + ": " + e.what());
  }
}

// Large message memory comes from the block cache (byte_block.hpp), whose
// blocks keep their pages mapped; beyond its largest class a block would be
// faulted in page by page during the receive, no faster than copying out of
// the transport's warm buffer.
constexpr std::size_t in_place_limit = std::size_t{64} << 20;

// Frames held on nodes other than 0 until the readonlies arrive, and the block
// a large frame is being received into (progress thread only).
struct arrival_state {
  std::uint64_t ready_for = 0;  // runtime_state::generation
  std::uint64_t holding_for = 0;
  std::vector<message*> held;
  void* block = nullptr;  // handed to the transport, not delivered yet
  const std::byte* block_frame = nullptr;
};
arrival_state g_arrivals;

std::byte* frame_memory(runtime_state&, std::size_t bytes) noexcept {
  if (g_arrivals.block) free_frame_block(g_arrivals.block);  // a receive that failed
  g_arrivals.block = nullptr;
  if (bytes > in_place_limit) return nullptr;
  std::byte* at = nullptr;
  g_arrivals.block = allocate_frame_block(bytes, at);
  g_arrivals.block_frame = at;
  return at;
}

void dispatch(runtime_state& rt, message* m) {
  m->run = m->target == target_kind::control ? &deliver_control : g_deliver_entry;
  if (m->target == target_kind::nodegroup) {
    rt.enqueue_node(m);
  } else if (rt.is_local(m->dst_pe)) {
    rt.pe(m->dst_pe).enqueue_remote(m);
  } else {
    report_fatal(node_prefix(rt) + "received a message for pe " + std::to_string(m->dst_pe) + ", which is not on this node");
    m->ops->destroy(m);
    free_message(m);
  }
}

void on_frame(runtime_state& rt, std::uint32_t src, std::span<const std::byte> frame,
              std::span<frame_segment> segments) noexcept {
  void* block = nullptr;
  if (g_arrivals.block && frame.data() == g_arrivals.block_frame) {
    block = g_arrivals.block;  // received in place: this frame's memory is ours now
    g_arrivals.block = nullptr;
  }
  if (rt.stopping()) {  // the program is ending: late traffic is dropped (the transport frees the segments)
    if (block) free_frame_block(block);
    return;
  }
  message* m = nullptr;
  try {
    m = block ? unpack_message_in_place(block, frame.size()) : unpack_message(frame, segments);
  } catch (const wire_error& e) {
    if (block) free_frame_block(block);
    report_fatal(node_prefix(rt) + "corrupt message from node " + std::to_string(src) + ": " + e.what());
    return;
  }
  if (m->ops == &control_impl<&remote_exit>::ops || m->ops == &control_impl<&apply_readonlies>::ops) {
    bool readonly = m->ops == &control_impl<&apply_readonlies>::ops;
    m->run = &deliver_control;
    m->run(m, work_action::run);  // here, on the progress thread: nothing may run before it
    if (!readonly) return;
    g_arrivals.ready_for = rt.generation;
    if (g_arrivals.holding_for == rt.generation) {
      auto held = std::move(g_arrivals.held);
      g_arrivals.held.clear();
      for (message* h : held) dispatch(rt, h);
    }
    return;
  }
  if (rt.my_node != 0 && g_arrivals.ready_for != rt.generation) {
    if (g_arrivals.holding_for != rt.generation) {
      g_arrivals.holding_for = rt.generation;
      g_arrivals.held.clear();
    }
    g_arrivals.held.push_back(m);
    return;
  }
  dispatch(rt, m);
}

void broadcast_exit(runtime_state& rt, int code) noexcept {
  for (std::uint32_t node = 0; node < rt.num_nodes; ++node) {
    if (node == rt.my_node) continue;
    message* m = build_control<&remote_exit, void>(0, code);
    m->flags |= work_uncounted;
    m->src_pe = tls_pe ? tls_pe->id() : rt.first_pe;
    try {
      send_frame(rt, rt.first_pe_of(node), m);
    } catch (...) {
      // A node we cannot reach any more stops on its own (peer failure).
    }
  }
}

}  // namespace

void send_copy_to(runtime_state& rt, std::uint32_t dst_pe, message& m) {
  send_readonlies_once(rt);
  m.dst_pe = dst_pe;
  rt.net->send(rt.node_of(dst_pe), pack_message(m));
}

void install_remote_hooks() noexcept {
  remote_hooks h;
  h.send = &send_remote;
  h.on_frame = &on_frame;
  h.frame_memory = &frame_memory;
  h.broadcast_exit = &broadcast_exit;
  h.main_returned = &send_readonlies_once;
  install_hook(g_remote, h, "g_remote", "msg (src/msg/remote.cpp)");
}

std::vector<std::byte> readonly_globals_packed() { return pack_readonlies(); }

void restore_readonly_globals(std::span<const std::byte> blob) {
  apply_readonlies(std::vector<std::byte>(blob.begin(), blob.end()));
}

void register_readonly(void* obj, readonly_pup pup, std::string_view type) {
  auto& t = readonlies();
  std::lock_guard lock(t.mutex);
  t.entries.push_back({obj, pup, stable_hash(type)});
}

void unregister_readonly(void* obj) noexcept {
  auto& t = readonlies();
  std::lock_guard lock(t.mutex);
  std::erase_if(t.entries, [obj](const readonly_entry& e) { return e.obj == obj; });
}

}  // namespace roam::detail
