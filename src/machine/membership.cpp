// membership_transport (include/roam/machine/detail/membership.hpp):
// failures agreed on, epochs, logical nodes over the live processes.
// docs/design/fault-tolerance.md has the protocol and its reasons.
#include <roam/machine/detail/membership.hpp>

#include "membership_lists.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace roam::detail {

using namespace membership_lists;

namespace {

// A membership frame starts with this (a runtime frame starts with the wire
// magic, 0x4d414f52), then u8 kind, 3 zero bytes, u64 epoch, the payload.
constexpr std::uint32_t control_magic = 0x5446524d;  // "MRFT"
constexpr std::size_t header_size = 16;

enum control_kind : std::uint8_t {
  suspect_kind = 1,   // a suspicion (membership_lists.hpp): the nodes the sender believes failed, and why
  declare_kind = 2,   // u32 count, u32 physical nodes: the failed set of this epoch (also a marker)
  exchange_kind = 3,  // u32 round, then the blob
  job_end_kind = 4,   // i32 exit code: the job ended (to spares)
};

void put_u32(std::byte* at, std::uint32_t v) { std::memcpy(at, &v, 4); }
void put_u64(std::byte* at, std::uint64_t v) { std::memcpy(at, &v, 8); }
std::uint32_t get_u32(const std::byte* at) {
  std::uint32_t v;
  std::memcpy(&v, at, 4);
  return v;
}
std::uint64_t get_u64(const std::byte* at) {
  std::uint64_t v;
  std::memcpy(&v, at, 8);
  return v;
}

std::int64_t now_ns();

void log(std::uint32_t me, const std::string& line) {
  const std::string s = "roam ft [process " + std::to_string(me) + "]: " + line + "\n";
  std::fwrite(s.data(), 1, s.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

membership_transport::membership_transport(std::unique_ptr<transport> physical, std::uint32_t workers)
    : physical_(std::move(physical)),
      total_(physical_->num_nodes()),
      workers_(std::clamp<std::uint32_t>(workers, 1, physical_->num_nodes())),
      me_(physical_->my_node()),
      logical_of_(total_),
      my_logical_(me_),
      dead_(total_, 0),
      suspected_(total_, 0),
      marker_(total_, 0),
      reasons_(total_) {
  // Until the first resume() the view is the physical one (bootstrap: every
  // process, spares included, takes part in the all-gathers).
  for (std::uint32_t p = 0; p < total_; ++p) {
    phys_of_.push_back(p);
    logical_of_[p] = p;
  }
  transport_handlers h;
  h.ctx = this;
  h.on_frame = &on_frame_cb;
  h.on_peer_failure = &on_failure_cb;
  h.frame_memory = &frame_memory_cb;
  physical_->set_handlers(h);
}

membership_transport::~membership_transport() = default;

void membership_transport::set_handlers(transport_handlers h) {
  runtime_ = h;
  runtime_set_ = h.on_frame != nullptr;
}

void membership_transport::send(std::uint32_t dst, out_frame frame) {
  const std::uint32_t p = phys_of_[dst];
  // A failed peer's frames are dropped by the physical transport (drop_peer).
  physical_->send(p, std::move(frame));
}

bool membership_transport::progress() {
  bool did = physical_->progress();
  if (runtime_set_ && !recovering_ && !held_.empty()) {
    deliver_held();
    did = true;
  }
  return did;
}

void membership_transport::wait(std::chrono::microseconds timeout) {
  if (runtime_set_ && !recovering_ && !held_.empty()) return;
  physical_->wait(timeout);
}

std::vector<std::vector<std::byte>> membership_transport::allgather(std::span<const std::byte> mine) {
  return physical_->allgather(mine);
}

void membership_transport::finish() {
  // Spares wait for a place until told that the job is over.
  if (!is_spare()) {
    std::byte code[4];
    put_u32(code, 0);
    for (std::uint32_t p : live())
      if (p != me_ && logical_of_[p] == no_node) send_control(p, job_end_kind, code);
  }
  physical_->finish();
}

void membership_transport::deliver_held() {
  auto held = std::move(held_);
  held_.clear();
  for (held_frame& f : held) {
    if (dead_[f.src] || marker_[f.src] != epoch_ || logical_of_[f.src] == no_node) continue;
    runtime_.on_frame(runtime_.ctx, logical_of_[f.src], f.bytes, f.segments);
  }
}

void membership_transport::on_frame_cb(void* ctx, std::uint32_t src, std::span<const std::byte> frame,
                                       std::span<frame_segment> segments) {
  auto& m = *static_cast<membership_transport*>(ctx);
  // Nothing from a process declared failed counts, a declaration least of all
  // (a fenced process that woke up must not fence the survivors). Over TCP
  // its connection is closed; over MPI its frames still arrive.
  if (m.dead_[src]) return;
  if (frame.size() >= header_size && get_u32(frame.data()) == control_magic) {
    m.on_control(src, frame);
    return;
  }
  // A runtime frame: of the abandoned epoch (before its sender's marker), of
  // this one (deliver, or hold until the runtime is there), or from a process
  // declared failed (gone).
  if (m.marker_[src] < m.epoch_) return;
  if (m.runtime_set_ && !m.recovering_ && m.held_.empty()) {
    const std::uint32_t logical = m.logical_of_[src];
    if (logical != no_node) m.runtime_.on_frame(m.runtime_.ctx, logical, frame, segments);
    return;
  }
  held_frame f{src, std::vector<std::byte>(frame.begin(), frame.end()), {}};
  for (frame_segment& s : segments) f.segments.push_back(std::move(s));
  m.held_.push_back(std::move(f));
}

std::byte* membership_transport::frame_memory_cb(void* ctx, std::size_t bytes) {
  auto& m = *static_cast<membership_transport*>(ctx);
  if (!m.runtime_set_ || m.recovering_ || !m.held_.empty() || !m.runtime_.frame_memory) return nullptr;
  return m.runtime_.frame_memory(m.runtime_.ctx, bytes);
}

void membership_transport::on_failure_cb(void* ctx, std::uint32_t node, const std::string& why) {
  static_cast<membership_transport*>(ctx)->suspect(node, why);
}

std::vector<std::uint32_t> membership_transport::live() const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t p = 0; p < total_; ++p)
    if (!dead_[p]) out.push_back(p);
  return out;
}

std::uint32_t membership_transport::coordinator() const {
  for (std::uint32_t p = 0; p < total_; ++p)
    if (!dead_[p] && !suspected_[p]) return p;
  return me_;
}

void membership_transport::send_control(std::uint32_t dst, std::uint8_t kind, std::span<const std::byte> payload) {
  out_frame f(header_size + payload.size());
  std::memset(f.data(), 0, header_size);
  put_u32(f.data(), control_magic);
  f.data()[4] = static_cast<std::byte>(kind);
  put_u64(f.data() + 8, epoch_);
  if (!payload.empty()) std::memcpy(f.data() + header_size, payload.data(), payload.size());
  physical_->send(dst, std::move(f));
}

void membership_transport::suspect(std::uint32_t node, const std::string& why) {
  if (node >= total_ || node == me_ || dead_[node] || suspected_[node]) return;
  suspected_[node] = 1;
  reasons_[node] = why;
  if (detected_ns_ == 0) detected_ns_ = now_ns();
  notes_.push_back(why);
  send_suspicions();
}

void membership_transport::send_suspicions() {
  std::vector<std::uint32_t> mine;
  for (std::uint32_t p = 0; p < total_; ++p)
    if (suspected_[p] && !dead_[p]) mine.push_back(p);
  if (mine.empty()) return;
  const std::uint32_t c = coordinator();
  if (c == me_) {
    std::vector<std::uint32_t> dead = failed_order_;
    dead.insert(dead.end(), mine.begin(), mine.end());
    adopt(epoch_ + 1, dead);
  } else {
    send_control(c, suspect_kind, suspicion_list(mine, reasons_));
  }
}

void membership_transport::adopt(std::uint64_t epoch, const std::vector<std::uint32_t>& dead) {
  if (std::find(dead.begin(), dead.end(), me_) != dead.end()) {
    // The others gave up on this process (it was silent too long, or cut
    // off): going on would split the job in two. Fenced: over MPI, which
    // cannot lose a rank, it stays a silent rank until the job ends;
    // elsewhere it exits.
    if (silenced_) return;
    silenced_ = true;
    log(me_, "the other processes declared this one failed (epoch " + std::to_string(epoch) +
                 "); fenced so that the job does not split: " +
                 (std::string_view(physical_->name()) == "mpi" ? "silent until the job ends (MPI keeps every rank)"
                                                               : "exiting"));
    if (physical_->go_silent()) return;  // inside a handler: the transport ends it after this frame
    std::_Exit(1);
  }
  std::vector<std::uint32_t> fresh;
  for (std::uint32_t p : dead)
    if (!dead_[p] && std::find(fresh.begin(), fresh.end(), p) == fresh.end()) fresh.push_back(p);
  bool knew_more = false;  // this process knows of failures the declaration lacks
  for (std::uint32_t p : failed_order_)
    if (std::find(dead.begin(), dead.end(), p) == dead.end()) knew_more = true;
  const std::uint64_t next = std::max(epoch, epoch_) + (knew_more ? 1 : 0);
  if (fresh.empty() && next <= epoch_) return;
  for (std::uint32_t p : fresh) {
    dead_[p] = 1;
    failed_order_.push_back(p);
  }
  epoch_ = next;
  if (coordinator() == me_)  // roamrun fences the failed processes it started, and reports them
    for (std::uint32_t p : fresh) physical_->tell_launcher("failed " + std::to_string(p));
  const auto all = node_list(failed_order_);
  for (std::uint32_t p : fresh) {
    // The declared process is told before its connection closes: if it is
    // alive after all (stopped, cut off), it reads this first and fences itself.
    send_control(p, declare_kind, all);
    physical_->drop_peer(p);
    suspected_[p] = 0;
  }
  if (detected_ns_ == 0) detected_ns_ = now_ns();
  recovering_ = true;
  announced_ = false;
  rounds_.clear();
  if (runtime_set_ && runtime_.on_membership_change) runtime_.on_membership_change(runtime_.ctx);
  // Suspicions the declaration did not cover go to the (maybe new) coordinator.
  send_suspicions();
}

void membership_transport::on_control(std::uint32_t src, std::span<const std::byte> frame) {
  const auto kind = static_cast<std::uint8_t>(frame[4]);
  const std::uint64_t epoch = get_u64(frame.data() + 8);
  const auto payload = frame.subspan(header_size);
  std::vector<std::uint32_t> nodes;
  switch (kind) {
    case suspect_kind: {
      std::vector<std::string> reasons;
      if (!parse_suspicions(payload, total_, nodes, reasons)) break;
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        const std::uint32_t p = nodes[i];
        if (!dead_[p] && p != me_ && !suspected_[p]) {
          suspected_[p] = 1;
          reasons_[p] = reasons[i].empty() ? "process " + std::to_string(p) + ": no reason given" : reasons[i];
          notes_.push_back(reasons_[p] + " (reported by process " + std::to_string(src) + ")");
        }
      }
      send_suspicions();
      return;
    }
    case declare_kind:
      if (!parse_node_list(payload, total_, nodes)) break;
      marker_[src] = std::max(marker_[src], epoch);
      adopt(epoch, nodes);
      return;
    case exchange_kind: {
      if (payload.size() < 4) break;
      if (epoch != epoch_ || dead_[src]) return;  // an abandoned round
      const std::uint32_t round = get_u32(payload.data());
      if (round > 64) break;
      if (rounds_.size() <= round) rounds_.resize(round + 1);
      auto& r = rounds_[round];
      if (r.size() < total_) r.resize(total_);
      r[src].emplace(payload.begin() + 4, payload.end());
      return;
    }
    case job_end_kind:
      if (payload.size() != 4) break;
      job_end_ = static_cast<int>(get_u32(payload.data()));
      return;
    default: break;
  }
  log(me_, "malformed membership frame (kind " + std::to_string(kind) + ") from process " + std::to_string(src) +
               "; ignored");
}

void membership_transport::stopped() {
  announced_ = true;
  marker_[me_] = epoch_;
  const auto all = node_list(failed_order_);
  for (std::uint32_t p : live())
    if (p != me_) send_control(p, declare_kind, all);
}

bool membership_transport::settle() {
  const std::uint64_t at = epoch_;
  for (;;) {
    if (epoch_ != at || !announced_) return false;
    bool all = true;
    for (std::uint32_t p : live())
      if (marker_[p] < epoch_) all = false;
    if (all) return true;
    if (!physical_->progress()) physical_->wait(std::chrono::milliseconds(1));
  }
}

std::optional<std::vector<std::vector<std::byte>>> membership_transport::exchange(std::uint32_t round,
                                                                                  std::vector<std::byte> mine) {
  const std::uint64_t at = epoch_;
  std::vector<std::byte> payload(4 + mine.size());
  put_u32(payload.data(), round);
  if (!mine.empty()) std::memcpy(payload.data() + 4, mine.data(), mine.size());
  for (std::uint32_t p : live())
    if (p != me_) send_control(p, exchange_kind, payload);
  payload = {};
  if (rounds_.size() <= round) rounds_.resize(round + 1);
  if (rounds_[round].size() < total_) rounds_[round].resize(total_);
  rounds_[round][me_].emplace(std::move(mine));
  for (;;) {
    if (epoch_ != at) return std::nullopt;
    auto& r = rounds_[round];
    if (r.size() < total_) r.resize(total_);
    const auto alive = live();
    if (std::all_of(alive.begin(), alive.end(), [&](std::uint32_t p) { return r[p].has_value(); })) {
      std::vector<std::vector<std::byte>> out;
      for (std::uint32_t p : alive) out.push_back(std::move(*r[p]));
      r.clear();
      return out;
    }
    if (!physical_->progress()) physical_->wait(std::chrono::milliseconds(1));
  }
}

std::uint32_t membership_transport::live_index() const {
  const auto alive = live();
  return static_cast<std::uint32_t>(std::find(alive.begin(), alive.end(), me_) - alive.begin());
}

void membership_transport::recompute_layout(std::vector<std::uint32_t>& phys_of, std::uint32_t& my_logical) const {
  const auto alive = live();
  const std::size_t m = std::min<std::size_t>(workers_, alive.size());
  phys_of.assign(alive.begin(), alive.begin() + static_cast<std::ptrdiff_t>(m));
  my_logical = no_node;
  for (std::uint32_t l = 0; l < m; ++l)
    if (phys_of[l] == me_) my_logical = l;
}

void membership_transport::resume() {
  recompute_layout(phys_of_, my_logical_);
  std::fill(logical_of_.begin(), logical_of_.end(), no_node);
  for (std::uint32_t l = 0; l < phys_of_.size(); ++l) logical_of_[phys_of_[l]] = l;
  recovering_ = false;
  rounds_.clear();
  failed_since_resume_ = failed_order_.size();
  detected_ns_ = 0;
}

void membership_transport::idle_as_spare() {
  while (!recovering_ && !job_end_)
    if (!physical_->progress()) physical_->wait(std::chrono::milliseconds(100));
}

std::vector<std::string> membership_transport::take_failure_notes() { return std::exchange(notes_, {}); }

std::string membership_transport::failure_summary() const {
  std::string nodes, spares;
  std::size_t count = 0;
  for (std::size_t i = failed_since_resume_; i < failed_order_.size(); ++i) {
    const std::uint32_t p = failed_order_[i];
    if (logical_of_[p] != no_node) {
      nodes += (nodes.empty() ? "" : ", ") + std::to_string(logical_of_[p]);
      ++count;
    } else {
      spares += (spares.empty() ? "" : ", ") + std::to_string(p);
    }
  }
  std::string out;
  if (!nodes.empty()) out = (count == 1 ? "node " : "nodes ") + nodes;
  if (!spares.empty()) out += (out.empty() ? "" : " and ") + std::string("spare process ") + spares;
  return out.empty() ? "a process" : out;
}

namespace {
std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

}  // namespace roam::detail
