// Intercommunicators (MPI_Intercomm_create, MPI_Intercomm_merge, the remote
// group) and MPI_Comm_create_group.
//
// An intercommunicator is a communicator record whose point-to-point ranks
// name the remote group (communicator::remote) while MPI_Comm_rank/size and
// MPI_Comm_group answer for the local group. Its context is the same in both
// groups: each leader proposes one derived from its local communicator and
// both take a mix of the two proposals, so no global agreement is needed.
// Each side keeps a hidden duplicate of its local communicator
// (communicator::local) for the local broadcasts MPI_Intercomm_merge needs.
// Collectives on intercommunicators are not supported (docs/design/ampi.md).
#include <algorithm>
#include <cstring>

#include "api.hpp"

using namespace roam::ampi;


extern "C" int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                                     int tag, MPI_Comm* newintercomm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const char* fn = "MPI_Intercomm_create";
  rank& r = me();
  communicator* lc = find_comm(r, local_comm);
  if (lc == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid local communicator");
  if (lc->inter) return fail(local_comm, MPI_ERR_COMM, fn, "the local communicator is an intercommunicator");
  if (local_leader < 0 || local_leader >= lc->size)
    return fail(local_comm, MPI_ERR_RANK, fn, "local leader " + std::to_string(local_leader) + " is not a rank of it");
  const bool leader = lc->my_rank == local_leader;
  const std::vector<int> mine = members_of(*lc);
  const std::uint64_t proposal = child_context(*lc, -3);

  // The leaders swap (proposal, size) then their groups' world ranks over
  // the peer communicator; everyone else learns them from its leader.
  long long head[2] = {static_cast<long long>(proposal), static_cast<long long>(mine.size())};
  long long theirs[2] = {0, 0};
  std::vector<int> remote;
  if (leader) {
    communicator* pc = find_comm(r, peer_comm);
    if (pc == nullptr) return fail(local_comm, MPI_ERR_COMM, fn, "invalid peer communicator");
    if (remote_leader < 0 || remote_leader >= pc->peer_size())
      return fail(peer_comm, MPI_ERR_RANK, fn, "remote leader " + std::to_string(remote_leader) + " is not a rank of the peer communicator");
    if (int e = PMPI_Sendrecv(head, 2, MPI_LONG_LONG, remote_leader, tag, theirs, 2, MPI_LONG_LONG, remote_leader, tag,
                              peer_comm, MPI_STATUS_IGNORE))
      return e;
    remote.resize(static_cast<std::size_t>(theirs[1]));
    if (int e = PMPI_Sendrecv(mine.data(), static_cast<int>(mine.size()), MPI_INT, remote_leader, tag, remote.data(),
                              static_cast<int>(remote.size()), MPI_INT, remote_leader, tag, peer_comm, MPI_STATUS_IGNORE))
      return e;
  }
  if (int e = PMPI_Bcast(theirs, 2, MPI_LONG_LONG, local_leader, local_comm)) return e;
  remote.resize(static_cast<std::size_t>(theirs[1]));
  if (int e = PMPI_Bcast(remote.data(), static_cast<int>(remote.size()), MPI_INT, local_leader, local_comm)) return e;
  for (int w : remote)
    if (std::find(mine.begin(), mine.end(), w) != mine.end())
      return fail(local_comm, MPI_ERR_COMM, fn, "the local and remote groups overlap (world rank " + std::to_string(w) + ")");

  MPI_Comm hidden = MPI_COMM_NULL;
  if (int e = PMPI_Comm_dup(local_comm, &hidden)) return e;
  const std::uint64_t a = proposal, b = static_cast<std::uint64_t>(theirs[0]);
  communicator d;
  d.context = as_context(context_mix(std::min(a, b)) ^ context_mix(std::max(a, b) * 3 + 1));
  const communicator& base = me().comms.at(local_comm);
  d.members = base.members;
  d.size = base.size;
  d.my_rank = base.my_rank;
  d.inter = true;
  d.remote = std::move(remote);
  d.local = hidden;
  *newintercomm = add_comm(std::move(d));
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Intercomm_create)

extern "C" int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const char* fn = "MPI_Intercomm_merge";
  rank& r = me();
  communicator* ic = find_comm(r, intercomm);
  if (ic == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
  if (!ic->inter) return fail(intercomm, MPI_ERR_COMM, fn, "not an intercommunicator");
  // The leaders (rank 0 of each group) swap their groups' `high`, then tell
  // their groups. Both sides derive the same new context from the
  // intercommunicator's.
  const std::uint64_t context = child_context(*ic, -4);
  const int hidden = ic->local;
  const bool leader = ic->my_rank == 0;
  int their_high = 0;
  {
    // On the intercommunicator's collective context (every member of both
    // groups takes the same collective number), so no tag of the program's
    // point-to-point traffic can be taken.
    const coll_scope scope(intercomm);
    if (leader) {
      auto out = roam::buffer<std::byte>::uninitialized(sizeof(int));
      const int mine = high ? 1 : 0;
      std::memcpy(out.mutable_data(), &mine, sizeof mine);
      coll_send(intercomm, 0, 0, std::move(out));
      const roam::buffer<std::byte> in = coll_recv(intercomm, 0, 0);
      std::memcpy(&their_high, in.data(), sizeof their_high);
    }
  }
  if (int e = PMPI_Bcast(&their_high, 1, MPI_INT, 0, hidden)) return e;
  const communicator& c = me().comms.at(intercomm);
  const std::vector<int> local = members_of(c);
  const std::vector<int>& remote = c.remote;
  // The low group first; with equal `high`, the group holding the lower
  // world rank among the two groups' first ranks.
  bool local_first = (high ? 1 : 0) < their_high;
  if ((high ? 1 : 0) == their_high) local_first = local.front() < remote.front();
  std::vector<int> members = local_first ? local : remote;
  const std::vector<int>& second = local_first ? remote : local;
  members.insert(members.end(), second.begin(), second.end());
  communicator d;
  d.context = context;
  d.size = static_cast<int>(members.size());
  d.my_rank = static_cast<int>(std::find(members.begin(), members.end(), world_rank()) - members.begin());
  d.members = std::move(members);
  *newintracomm = add_comm(std::move(d));
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Intercomm_merge)

extern "C" int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  communicator* c = find_comm(me(), comm);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_remote_size", "invalid communicator");
  if (!c->inter) return fail(comm, MPI_ERR_COMM, "MPI_Comm_remote_size", "not an intercommunicator");
  *size = static_cast<int>(c->remote.size());
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_remote_size)

extern "C" int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  communicator* c = find_comm(r, comm);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_remote_group", "invalid communicator");
  if (!c->inter) return fail(comm, MPI_ERR_COMM, "MPI_Comm_remote_group", "not an intercommunicator");
  const int h = r.next_group++;
  r.groups[h] = c->remote;
  *group = h;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_remote_group)

extern "C" int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const char* fn = "MPI_Comm_create_group";
  rank& r = me();
  communicator* c = find_comm(r, comm);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
  if (c->inter) return fail(comm, MPI_ERR_COMM, fn, "intercommunicators are not supported here");
  std::vector<int> members;
  if (group != MPI_GROUP_EMPTY) {
    auto g = r.groups.find(group);
    if (g == r.groups.end()) return fail(comm, MPI_ERR_GROUP, fn, "invalid group");
    members = g->second;
  }
  const auto at = std::find(members.begin(), members.end(), world_rank());
  if (at == members.end()) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  // Only the group's members call: they agree on the context from the
  // parent's, the group, the tag and their count of such calls.
  std::uint64_t key = context_mix(static_cast<std::uint64_t>(tag) + 0x51ull);
  for (int w : members) key = context_mix(key ^ static_cast<std::uint64_t>(w));
  const std::uint32_t n = c->group_children[key]++;
  communicator d;
  d.context = as_context(context_mix(c->context ^ context_mix(key ^ context_mix(n + 0x77ull))));
  d.size = static_cast<int>(members.size());
  d.my_rank = static_cast<int>(at - members.begin());
  d.members = std::move(members);
  *newcomm = add_comm(std::move(d));
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_create_group)
