// ARMCI's message layer (message.h) on Adaptive MPI.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <armci.h>

#include "state.hpp"

using namespace roam::armci;

namespace {

// SCOPE_NODE holds the calling process only (each rank is its own node:
// setup.cpp); SCOPE_MASTERS is every rank's node's master: everyone.
MPI_Comm scope_comm(int scope, MPI_Comm all) { return scope == SCOPE_NODE ? MPI_COMM_SELF : all; }

MPI_Datatype mpi_type(int type) {
  switch (type) {
    case ARMCI_INT: return MPI_INT;
    case ARMCI_LONG: return MPI_LONG;
    case ARMCI_LONG_LONG: return MPI_LONG_LONG;
    case ARMCI_FLOAT: return MPI_FLOAT;
    case ARMCI_DOUBLE: return MPI_DOUBLE;
    default: fatal("armci_msg_gop", "unknown type " + std::to_string(type));
  }
}

std::size_t type_size(int type) {
  switch (type) {
    case ARMCI_INT: return sizeof(int);
    case ARMCI_LONG: return sizeof(long);
    case ARMCI_LONG_LONG: return sizeof(long long);
    case ARMCI_FLOAT: return sizeof(float);
    case ARMCI_DOUBLE: return sizeof(double);
    default: return 0;
  }
}

template <class T>
void absolute(T* x, int n) {
  for (int i = 0; i < n; ++i) x[i] = x[i] < 0 ? -x[i] : x[i];
}

void gop(MPI_Comm comm, void* x, int n, const char* op, int type) {
  if (op == nullptr) fatal("armci_msg_gop", "op is null");
  const std::string o = op;
  MPI_Op mop;
  bool abs_first = false;
  if (o == "+") mop = MPI_SUM;
  else if (o == "*") mop = MPI_PROD;
  else if (o == "max") mop = MPI_MAX;
  else if (o == "min") mop = MPI_MIN;
  else if (o == "absmax") mop = MPI_MAX, abs_first = true;
  else if (o == "absmin") mop = MPI_MIN, abs_first = true;
  else if (o == "or" || o == "||") mop = MPI_BOR;
  else if (o == "and" || o == "&&") mop = MPI_BAND;
  else fatal("armci_msg_gop", "unknown operation \"" + o + "\"");
  if (abs_first) {
    switch (type) {
      case ARMCI_INT: absolute(static_cast<int*>(x), n); break;
      case ARMCI_LONG: absolute(static_cast<long*>(x), n); break;
      case ARMCI_LONG_LONG: absolute(static_cast<long long*>(x), n); break;
      case ARMCI_FLOAT: absolute(static_cast<float*>(x), n); break;
      case ARMCI_DOUBLE: absolute(static_cast<double*>(x), n); break;
      default: break;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, x, n, mpi_type(type), mop, comm);
}

// armci_msg_sel: the contributing rank with the greatest (or least) first
// element gives everyone its whole buffer of n bytes.
void sel(MPI_Comm comm, void* x, int n, const char* op, int type, int contribute) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const std::size_t bytes = static_cast<std::size_t>(n);
  std::vector<char> mine(bytes + 1), all((bytes + 1) * static_cast<std::size_t>(size));
  mine[0] = contribute ? 1 : 0;
  std::memcpy(mine.data() + 1, x, bytes);
  MPI_Allgather(mine.data(), n + 1, MPI_BYTE, all.data(), n + 1, MPI_BYTE, comm);
  const bool want_max = op != nullptr && std::string(op) == "max";
  const std::size_t each = type_size(type);
  int best = -1;
  double best_value = 0;
  for (int i = 0; i < size; ++i) {
    const char* entry = all.data() + static_cast<std::size_t>(i) * (bytes + 1);
    if (!entry[0]) continue;
    double v = 0;
    switch (type) {
      case ARMCI_INT: { int t; std::memcpy(&t, entry + 1, each); v = t; break; }
      case ARMCI_LONG: { long t; std::memcpy(&t, entry + 1, each); v = static_cast<double>(t); break; }
      case ARMCI_LONG_LONG: { long long t; std::memcpy(&t, entry + 1, each); v = static_cast<double>(t); break; }
      case ARMCI_FLOAT: { float t; std::memcpy(&t, entry + 1, each); v = t; break; }
      default: { double t; std::memcpy(&t, entry + 1, each); v = t; break; }
    }
    if (best < 0 || (want_max ? v > best_value : v < best_value)) best = i, best_value = v;
  }
  if (best >= 0) std::memcpy(x, all.data() + static_cast<std::size_t>(best) * (bytes + 1) + 1, bytes);
}

MPI_Comm group_comm(ARMCI_Group* group, const char* function) {
  if (group == nullptr) fatal(function, "the group is null");
  return group->comm;
}

}  // namespace

extern "C" {

int armci_msg_me(void) {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int armci_msg_nproc(void) {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}
void armci_msg_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }
double armci_timer(void) { return MPI_Wtime(); }

void armci_msg_snd(int tag, void* buffer, int len, int to) {
  MPI_Send(buffer, len, MPI_BYTE, to, tag, MPI_COMM_WORLD);
}
void armci_msg_rcv(int tag, void* buffer, int buflen, int* msglen, int from) {
  MPI_Status st;
  MPI_Recv(buffer, buflen, MPI_BYTE, from, tag, MPI_COMM_WORLD, &st);
  if (msglen) MPI_Get_count(&st, MPI_BYTE, msglen);
}
int armci_msg_rcvany(int tag, void* buffer, int buflen, int* msglen) {
  MPI_Status st;
  MPI_Recv(buffer, buflen, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
  if (msglen) MPI_Get_count(&st, MPI_BYTE, msglen);
  return st.MPI_SOURCE;
}

void armci_msg_barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }
void armci_msg_group_barrier(ARMCI_Group* group) { MPI_Barrier(group_comm(group, "armci_msg_group_barrier")); }

void armci_msg_bintree(int scope, int* root, int* up, int* left, int* right) {
  int me = 0, n = 1;
  const MPI_Comm c = scope_comm(scope, MPI_COMM_WORLD);
  MPI_Comm_rank(c, &me);
  MPI_Comm_size(c, &n);
  *root = 0;
  *up = me == 0 ? -1 : (me - 1) / 2;
  *left = 2 * me + 1 < n ? 2 * me + 1 : -1;
  *right = 2 * me + 2 < n ? 2 * me + 2 : -1;
}

void armci_msg_bcast_scope(int scope, void* buffer, int len, int root) {
  MPI_Bcast(buffer, len, MPI_BYTE, scope == SCOPE_NODE ? 0 : root, scope_comm(scope, MPI_COMM_WORLD));
}
void armci_msg_bcast(void* buffer, int len, int root) { armci_msg_bcast_scope(SCOPE_ALL, buffer, len, root); }
void armci_msg_brdcst(void* buffer, int len, int root) { armci_msg_bcast_scope(SCOPE_ALL, buffer, len, root); }
void armci_msg_group_bcast_scope(int scope, void* buf, int len, int root, ARMCI_Group* group) {
  const MPI_Comm c = group_comm(group, "armci_msg_group_bcast_scope");
  MPI_Bcast(buf, len, MPI_BYTE, scope == SCOPE_NODE ? 0 : root, scope_comm(scope, c));
}

void armci_msg_sel_scope(int scope, void* x, int n, char* op, int type, int contribute) {
  sel(scope_comm(scope, MPI_COMM_WORLD), x, n, op, type, contribute);
}
void armci_msg_sel(void* x, int n, char* op, int type, int contribute) {
  sel(MPI_COMM_WORLD, x, n, op, type, contribute);
}

void armci_msg_gop_scope(int scope, void* x, int n, char* op, int type) {
  gop(scope_comm(scope, MPI_COMM_WORLD), x, n, op, type);
}
void armci_msg_igop(int* x, int n, char* op) { gop(MPI_COMM_WORLD, x, n, op, ARMCI_INT); }
void armci_msg_lgop(long* x, int n, char* op) { gop(MPI_COMM_WORLD, x, n, op, ARMCI_LONG); }
void armci_msg_llgop(long long* x, int n, char* op) { gop(MPI_COMM_WORLD, x, n, op, ARMCI_LONG_LONG); }
void armci_msg_fgop(float* x, int n, char* op) { gop(MPI_COMM_WORLD, x, n, op, ARMCI_FLOAT); }
void armci_msg_dgop(double* x, int n, char* op) { gop(MPI_COMM_WORLD, x, n, op, ARMCI_DOUBLE); }

void armci_msg_group_gop_scope(int scope, void* x, int n, char* op, int type, ARMCI_Group* group) {
  gop(scope_comm(scope, group_comm(group, "armci_msg_group_gop_scope")), x, n, op, type);
}
void armci_msg_group_igop(int* x, int n, char* op, ARMCI_Group* group) {
  gop(group_comm(group, "armci_msg_group_igop"), x, n, op, ARMCI_INT);
}
void armci_msg_group_lgop(long* x, int n, char* op, ARMCI_Group* group) {
  gop(group_comm(group, "armci_msg_group_lgop"), x, n, op, ARMCI_LONG);
}
void armci_msg_group_llgop(long long* x, int n, char* op, ARMCI_Group* group) {
  gop(group_comm(group, "armci_msg_group_llgop"), x, n, op, ARMCI_LONG_LONG);
}
void armci_msg_group_fgop(float* x, int n, char* op, ARMCI_Group* group) {
  gop(group_comm(group, "armci_msg_group_fgop"), x, n, op, ARMCI_FLOAT);
}
void armci_msg_group_dgop(double* x, int n, char* op, ARMCI_Group* group) {
  gop(group_comm(group, "armci_msg_group_dgop"), x, n, op, ARMCI_DOUBLE);
}

}  // extern "C"
