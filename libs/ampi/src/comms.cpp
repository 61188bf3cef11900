// Communicators, groups, attributes, error handlers and error strings.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <tuple>

#include "api.hpp"

namespace roam::ampi {

std::uint64_t context_mix(std::uint64_t z) {
  // splitmix64: every member computes the same value without a message; a
  // collision with a live context of this job has probability ~ live^2 / 2^62.
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t as_context(std::uint64_t z) {
  return (z | 8u) & ~std::uint64_t{1};  // even, and never world's (2) or self's (4)
}

std::uint64_t child_context(communicator& parent, std::int64_t salt) {
  // A hash of (parent, n-th child, salt).
  return as_context(context_mix(parent.context ^ context_mix(parent.children++ + 0x1234567ull) ^
                                context_mix(static_cast<std::uint64_t>(salt) * 3 + 7)));
}

std::vector<int> members_of(const communicator& c) {
  if (!c.members.empty()) return c.members;
  std::vector<int> all(static_cast<std::size_t>(c.size));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

int add_comm(communicator c) {
  rank& r = me();
  const int h = r.next_comm++;
  r.comms[h] = std::move(c);
  return h;
}

}  // namespace roam::ampi

using namespace roam::ampi;

namespace {

const communicator* checked(MPI_Comm comm, const char* function, int* err) {
  const communicator* c = find_comm(me(), comm);
  *err = c ? MPI_SUCCESS : fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(comm));
  return c;
}

// The world ranks of group `g` (null: invalid).
const std::vector<int>* group_of(MPI_Group g) {
  static const std::vector<int> empty;
  if (g == MPI_GROUP_EMPTY) return &empty;
  rank& r = me();
  auto it = r.groups.find(g);
  return it == r.groups.end() ? nullptr : &it->second;
}

int add_group(std::vector<int> members) {
  rank& r = me();
  const int h = r.next_group++;
  r.groups[h] = std::move(members);
  return h;
}

int my_world() { return world_rank(); }

}  // namespace

extern "C" int PMPI_Comm_rank(MPI_Comm comm, int* rank_out) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = checked(comm, "MPI_Comm_rank", &err);
  if (!c) return err;
  *rank_out = c->my_rank;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_rank)

extern "C" int PMPI_Comm_size(MPI_Comm comm, int* size) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = checked(comm, "MPI_Comm_size", &err);
  if (!c) return err;
  *size = c->size;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_size)

extern "C" int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = checked(comm, "MPI_Comm_dup", &err);
  if (!c) return err;
  communicator d = *c;
  d.context = child_context(me().comms.at(comm), -1);
  d.children = 0;
  d.name.clear();
  d.attributes.clear();
  if (d.inter) {  // its own hidden local communicator (freed with it)
    const int hidden = d.local;
    if (int e = PMPI_Comm_dup(hidden, &d.local)) return e;
  }
  *newcomm = add_comm(std::move(d));
  if (int e = copy_attributes(comm, *newcomm)) {
    // A copy function failed: no new communicator (MPI says MPI_COMM_NULL).
    communicator& gone = me().comms.at(*newcomm);
    int hidden = gone.inter ? gone.local : MPI_COMM_NULL;
    me().comms.erase(*newcomm);
    if (hidden != MPI_COMM_NULL) PMPI_Comm_free(&hidden);
    *newcomm = MPI_COMM_NULL;
    return e;
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_dup)

extern "C" int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = checked(comm, "MPI_Comm_split", &err);
  if (!c) return err;
  if (color < 0 && color != MPI_UNDEFINED)
    return fail(comm, MPI_ERR_ARG, "MPI_Comm_split", "negative color " + std::to_string(color));
  const int n = c->size;
  const std::vector<int> parent_members = members_of(*c);
  // Everyone learns everyone's (color, key).
  int mine[2] = {color, key};
  std::vector<int> all(2 * static_cast<std::size_t>(n));
  if (int e = PMPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, comm)) return e;
  // The context depends on the color, so each new communicator has its own;
  // every member of the parent advances the parent's count of children.
  const std::uint64_t context = child_context(me().comms.at(comm), color);
  if (color == MPI_UNDEFINED) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  std::vector<std::tuple<int, int>> chosen;  // (key, parent rank)
  for (int i = 0; i < n; ++i)
    if (all[2 * static_cast<std::size_t>(i)] == color) chosen.emplace_back(all[2 * static_cast<std::size_t>(i) + 1], i);
  std::sort(chosen.begin(), chosen.end());
  communicator d;
  d.context = context;
  d.size = static_cast<int>(chosen.size());
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    const int parent_rank = std::get<1>(chosen[k]);
    d.members.push_back(parent_members[static_cast<std::size_t>(parent_rank)]);
    if (parent_rank == me().comms.at(comm).my_rank) d.my_rank = static_cast<int>(k);
  }
  *newcomm = add_comm(std::move(d));
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_split)

extern "C" int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info, MPI_Comm* newcomm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  // Ranks "share memory" when they run in the same process now (they may
  // move apart later, as under Charm++'s AMPI).
  const int color = split_type == MPI_COMM_TYPE_SHARED ? AMPI_My_node() : MPI_UNDEFINED;
  return PMPI_Comm_split(comm, color, key, newcomm);
}
ROAM_AMPI_PMPI(Comm_split_type)

extern "C" int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = checked(comm, "MPI_Comm_create", &err);
  if (!c) return err;
  const std::vector<int>* g = group_of(group);
  if (g == nullptr) return fail(comm, MPI_ERR_GROUP, "MPI_Comm_create", "invalid group");
  const std::vector<int> members = *g;
  const std::uint64_t context = child_context(me().comms.at(comm), -2);
  const auto at = std::find(members.begin(), members.end(), my_world());
  if (at == members.end()) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  communicator d;
  d.context = context;
  d.members = members;
  d.size = static_cast<int>(members.size());
  d.my_rank = static_cast<int>(at - members.begin());
  *newcomm = add_comm(std::move(d));
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_create)

extern "C" int PMPI_Comm_free(MPI_Comm* comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return fail(*comm, MPI_ERR_COMM, "MPI_Comm_free", "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
  communicator* c = find_comm(me(), *comm);
  if (c == nullptr)
    return fail(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_free", "invalid communicator " + std::to_string(*comm));
  const std::map<int, std::uint64_t> attributes = c->attributes;
  for (const auto& [keyval, value] : attributes)
    if (int e = delete_attribute(*comm, keyval, value)) return e;
  int hidden = me().comms.at(*comm).inter ? me().comms.at(*comm).local : MPI_COMM_NULL;
  me().comms.erase(*comm);
  *comm = MPI_COMM_NULL;
  if (hidden != MPI_COMM_NULL) return PMPI_Comm_free(&hidden);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_free)

extern "C" int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* a = checked(comm1, "MPI_Comm_compare", &err);
  if (!a) return err;
  const communicator* b = checked(comm2, "MPI_Comm_compare", &err);
  if (!b) return err;
  const std::vector<int> ma = members_of(*a), mb = members_of(*b);
  if (comm1 == comm2) *result = MPI_IDENT;
  else if (ma == mb) *result = MPI_CONGRUENT;
  else {
    std::vector<int> sa = ma, sb = mb;
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    *result = sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_compare)

extern "C" int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = checked(comm, "MPI_Comm_group", &err);
  if (!c) return err;
  *group = add_group(members_of(*c));
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_group)

extern "C" int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = checked(comm, "MPI_Comm_test_inter", &err);
  if (!c) return err;
  *flag = c->inter ? 1 : 0;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_test_inter)

extern "C" int PMPI_Comm_set_name(MPI_Comm comm, const char* name) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  if (!checked(comm, "MPI_Comm_set_name", &err)) return err;
  me().comms.at(comm).name = std::string(name).substr(0, MPI_MAX_OBJECT_NAME - 1);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_set_name)

extern "C" int PMPI_Comm_get_name(MPI_Comm comm, char* name, int* resultlen) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = checked(comm, "MPI_Comm_get_name", &err);
  if (!c) return err;
  *resultlen = std::snprintf(name, MPI_MAX_OBJECT_NAME, "%s", c->name.c_str());
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_get_name)

extern "C" int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  if (!checked(comm, "MPI_Comm_get_attr", &err)) return err;
  // Values live in the library's data: the same address in every process.
  static int tag_ub = 0x7fffffff, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0;
  static int appnum = 0;
  // Computed per call: each PE thread its own (ranks of a PE run one at a time).
  static thread_local int pe = 0, pes = 0, node = 0, nodes = 0, universe = 0, lastcode = MPI_ERR_LASTCODE;
  int* value = nullptr;
  switch (keyval) {
    case MPI_TAG_UB: value = &tag_ub; break;
    case MPI_HOST: value = &host; break;
    case MPI_IO: value = &io; break;
    case MPI_WTIME_IS_GLOBAL: value = &wtime_global; break;
    case MPI_UNIVERSE_SIZE:
      universe = me().comms.at(MPI_COMM_WORLD).size;
      value = &universe;
      break;
    case MPI_APPNUM: value = &appnum; break;
    case MPI_LASTUSEDCODE: lastcode = last_used_error_code(), value = &lastcode; break;
    case AMPI_MY_WTH: pe = AMPI_My_pe(), value = &pe; break;
    case AMPI_NUM_WTHS: pes = AMPI_Num_pes(), value = &pes; break;
    case AMPI_MY_PROCESS: node = AMPI_My_node(), value = &node; break;
    case AMPI_NUM_PROCESSES: nodes = AMPI_Num_nodes(), value = &nodes; break;
    default: {
      const communicator& c = me().comms.at(comm);
      auto it = c.attributes.find(keyval);
      *flag = it != c.attributes.end();
      if (*flag) *static_cast<void**>(attribute_val) = reinterpret_cast<void*>(it->second);
      return MPI_SUCCESS;
    }
  }
  *flag = value != nullptr;
  if (value) *static_cast<int**>(attribute_val) = value;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_get_attr)

// ---- groups ----------------------------------------------------------------------

extern "C" int PMPI_Group_size(MPI_Group group, int* size) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const std::vector<int>* g = group_of(group);
  if (!g) return fail(MPI_COMM_WORLD, MPI_ERR_GROUP, "MPI_Group_size", "invalid group");
  *size = static_cast<int>(g->size());
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Group_size)

extern "C" int PMPI_Group_rank(MPI_Group group, int* rank_out) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const std::vector<int>* g = group_of(group);
  if (!g) return fail(MPI_COMM_WORLD, MPI_ERR_GROUP, "MPI_Group_rank", "invalid group");
  const auto at = std::find(g->begin(), g->end(), my_world());
  *rank_out = at == g->end() ? MPI_UNDEFINED : static_cast<int>(at - g->begin());
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Group_rank)

extern "C" int PMPI_Group_free(MPI_Group* group) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (*group != MPI_GROUP_EMPTY && me().groups.erase(*group) == 0)
    return fail(MPI_COMM_WORLD, MPI_ERR_GROUP, "MPI_Group_free", "invalid group");
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Group_free)

extern "C" int PMPI_Group_incl(MPI_Group group, int n, const int ranks_in[], MPI_Group* newgroup) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const std::vector<int>* g = group_of(group);
  if (!g) return fail(MPI_COMM_WORLD, MPI_ERR_GROUP, "MPI_Group_incl", "invalid group");
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    if (ranks_in[i] < 0 || ranks_in[i] >= static_cast<int>(g->size()))
      return fail(MPI_COMM_WORLD, MPI_ERR_RANK, "MPI_Group_incl", "rank " + std::to_string(ranks_in[i]) + " is not in the group");
    out.push_back((*g)[static_cast<std::size_t>(ranks_in[i])]);
  }
  *newgroup = out.empty() ? MPI_GROUP_EMPTY : add_group(std::move(out));
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Group_incl)

extern "C" int PMPI_Group_excl(MPI_Group group, int n, const int ranks_in[], MPI_Group* newgroup) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const std::vector<int>* g = group_of(group);
  if (!g) return fail(MPI_COMM_WORLD, MPI_ERR_GROUP, "MPI_Group_excl", "invalid group");
  std::vector<bool> drop(g->size());
  for (int i = 0; i < n; ++i) {
    if (ranks_in[i] < 0 || ranks_in[i] >= static_cast<int>(g->size()))
      return fail(MPI_COMM_WORLD, MPI_ERR_RANK, "MPI_Group_excl", "rank " + std::to_string(ranks_in[i]) + " is not in the group");
    drop[static_cast<std::size_t>(ranks_in[i])] = true;
  }
  std::vector<int> out;
  for (std::size_t i = 0; i < g->size(); ++i)
    if (!drop[i]) out.push_back((*g)[i]);
  *newgroup = out.empty() ? MPI_GROUP_EMPTY : add_group(std::move(out));
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Group_excl)

namespace {
int set_op(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup, int which, const char* function) {
  const std::vector<int>* a = group_of(group1);
  const std::vector<int>* b = group_of(group2);
  if (!a || !b) return fail(MPI_COMM_WORLD, MPI_ERR_GROUP, function, "invalid group");
  auto in = [](const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  std::vector<int> out;
  if (which == 0) {  // union: a, then b's not in a
    out = *a;
    for (int x : *b)
      if (!in(*a, x)) out.push_back(x);
  } else {
    for (int x : *a)
      if (in(*b, x) == (which == 1)) out.push_back(x);  // 1: intersection, 2: difference
  }
  *newgroup = out.empty() ? MPI_GROUP_EMPTY : add_group(std::move(out));
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return set_op(group1, group2, newgroup, 0, "MPI_Group_union");
}
ROAM_AMPI_PMPI(Group_union)
extern "C" int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return set_op(group1, group2, newgroup, 1, "MPI_Group_intersection");
}
ROAM_AMPI_PMPI(Group_intersection)
extern "C" int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return set_op(group1, group2, newgroup, 2, "MPI_Group_difference");
}
ROAM_AMPI_PMPI(Group_difference)

extern "C" int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const std::vector<int>* a = group_of(group1);
  const std::vector<int>* b = group_of(group2);
  if (!a || !b) return fail(MPI_COMM_WORLD, MPI_ERR_GROUP, "MPI_Group_translate_ranks", "invalid group");
  for (int i = 0; i < n; ++i) {
    if (ranks1[i] == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    if (ranks1[i] < 0 || ranks1[i] >= static_cast<int>(a->size()))
      return fail(MPI_COMM_WORLD, MPI_ERR_RANK, "MPI_Group_translate_ranks", "rank " + std::to_string(ranks1[i]) + " is not in the group");
    const auto at = std::find(b->begin(), b->end(), (*a)[static_cast<std::size_t>(ranks1[i])]);
    ranks2[i] = at == b->end() ? MPI_UNDEFINED : static_cast<int>(at - b->begin());
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Group_translate_ranks)

extern "C" int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const std::vector<int>* a = group_of(group1);
  const std::vector<int>* b = group_of(group2);
  if (!a || !b) return fail(MPI_COMM_WORLD, MPI_ERR_GROUP, "MPI_Group_compare", "invalid group");
  if (*a == *b) *result = MPI_IDENT;
  else {
    std::vector<int> sa = *a, sb = *b;
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    *result = sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Group_compare)

// ---- errors ----------------------------------------------------------------------

extern "C" int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  if (!checked(comm, "MPI_Comm_set_errhandler", &err)) return err;
  if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN && !user_errhandler(errhandler))
    return fail(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler", "unknown error handler " + std::to_string(errhandler));
  me().comms.at(comm).errhandler = errhandler;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_set_errhandler)

extern "C" int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = checked(comm, "MPI_Comm_get_errhandler", &err);
  if (!c) return err;
  *errhandler = c->errhandler;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_get_errhandler)

// MPI_Errhandler_free and the user handlers: errhandlers.cpp.

extern "C" int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  if (!checked(comm, "MPI_Comm_call_errhandler", &err)) return err;
  fail(comm, errorcode, "MPI_Comm_call_errhandler", "called by the program");
  return MPI_SUCCESS;  // MPI: once the handler returned (MPI_ERRORS_RETURN's too)
}
ROAM_AMPI_PMPI(Comm_call_errhandler)

extern "C" int PMPI_Error_class(int errorcode, int* errorclass) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (errorcode > MPI_ERR_LASTCODE && added_error_class(errorcode, errorclass)) return MPI_SUCCESS;  // errhandlers.cpp
  if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE) return MPI_ERR_ARG;
  *errorclass = errorcode;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Error_class)

extern "C" int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  static const char* const names[] = {
      "no error", "invalid buffer pointer", "invalid count argument", "invalid datatype", "invalid tag",
      "invalid communicator", "invalid rank", "invalid request", "invalid root", "invalid group", "invalid operation",
      "invalid topology", "invalid dimension argument", "invalid argument", "unknown error",
      "message truncated on receive", "other error", "internal error", "error code in status",
      "pending request", "invalid keyval", "out of memory", "invalid base", "invalid info key",
      "invalid info value", "info key not defined", "spawn error", "invalid port", "invalid service name",
      "invalid name", "invalid window", "invalid size", "invalid displacement", "invalid info",
      "invalid lock type", "invalid assert", "conflicting accesses to window", "wrong synchronization of RMA calls",
      "invalid file handle", "collective argument not identical", "invalid amode", "unsupported datarep",
      "unsupported operation", "no such file", "file exists", "invalid file name", "permission denied",
      "not enough space", "quota exceeded", "read-only file or file system", "file in use",
      "datarep already defined", "conversion error", "I/O error", "RMA target out of range",
      "RMA attach error", "RMA shared memory error", "RMA flavor error"};
  const int n = static_cast<int>(sizeof names / sizeof names[0]);
  if (std::string added; errorcode > MPI_ERR_LASTCODE && added_error_string(errorcode, &added)) {  // errhandlers.cpp
    *resultlen = std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", added.c_str());
    return MPI_SUCCESS;
  }
  const char* text = errorcode >= 0 && errorcode < n ? names[errorcode] : "unknown error code";
  *resultlen = std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", text);
  return errorcode >= 0 && errorcode <= MPI_ERR_LASTCODE ? MPI_SUCCESS : MPI_ERR_ARG;
}
ROAM_AMPI_PMPI(Error_string)
