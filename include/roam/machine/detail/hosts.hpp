#pragma once
// Which host each process of the job runs on, and the buddy ring of the
// in-memory checkpoints built from it (docs/design/fault-tolerance.md §2):
// a process's checkpoint must survive its host, so its copy goes to a
// process on another host whenever there is one.
#include <cstdint>
#include <span>
#include <vector>

namespace roam::detail {

/// This process's host, as a number: a hash of $ROAM_HOST when set (roamrun
/// sets it to the process's entry of --hosts), else of gethostname().
std::uint64_t this_host_id();

/// The host of each logical node of the current epoch; empty in a single
/// process. The run loop sets it before each epoch's runtime starts (no PE
/// runs while it changes).
const std::vector<std::uint64_t>& node_hosts() noexcept;
void set_node_hosts(std::vector<std::uint64_t> hosts);

/// buddy[n]: the node that keeps the copy of node n's in-memory checkpoint.
/// The nodes are dealt round-robin from their hosts (first node of each
/// host in order of appearance, then the second of each...) and each one's
/// buddy is the next in that sequence, cyclically. So every node keeps
/// exactly one other's copy (memory stays even), a node's buddy is on
/// another host whenever the interleaving allows it (always, when every
/// host has as many nodes), and on one host the ring is n -> n + 1 mod N.
/// What names this job and epoch apart from every other run on the host
/// (node 0's random number from the bootstrap exchange, and the epoch):
/// processes of one host that share memory find each other by it
/// (src/iso/host_share.cpp). Zero in a single process. Set with the hosts.
struct job_instance {
  std::uint64_t key = 0;
  std::uint64_t epoch = 0;
};
const job_instance& this_job() noexcept;
void set_this_job(job_instance job) noexcept;

std::vector<std::uint32_t> buddy_ring(std::span<const std::uint64_t> hosts);

}  // namespace roam::detail
