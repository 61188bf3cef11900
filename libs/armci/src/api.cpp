// ARMCI's one-sided calls (armci.h) on the operations of ops.cpp.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <armci.h>

#include "state.hpp"

using namespace roam::armci;

namespace {

void check_target(int proc, const char* function) {
  int& size = my_state().world_size;
  if (size == 0) MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (proc < 0 || proc >= size)
    fatal(function, "process " + std::to_string(proc) + " does not exist (there are " + std::to_string(size) + ")");
}

void check_strided(const int* count, int levels, const char* function) {
  if (levels < 0) fatal(function, "stride_levels is " + std::to_string(levels));
  if (count == nullptr) fatal(function, "count is null");
  if (count[0] < 0) fatal(function, "count[0] (bytes) is " + std::to_string(count[0]));
}

int handle_id(armci_hdl_t* hdl, int proc) {
  if (hdl == nullptr) return 0;
  state& s = my_state();
  if (hdl->id == 0 || s.handles.count(hdl->id) == 0) hdl->id = s.next_handle++;
  hdl->target = proc;
  return hdl->id;
}

int run(op_header::kind_t kind, layout local, layout remote, int proc, armci_hdl_t* hdl, int type = 0,
        const void* scale = nullptr, std::int64_t value = 0) {
  operation op{kind, proc, std::move(local), std::move(remote), type, value, scale, handle_id(hdl, proc)};
  const int ticket = start(op);
  if (hdl == nullptr) wait_ticket(ticket);
  return 0;
}

void check_acc(int type, const void* scale, std::int64_t bytes, const char* function) {
  const std::int64_t each = acc_element_bytes(type);
  if (each == 0) fatal(function, "unknown accumulate type " + std::to_string(type));
  if (scale == nullptr) fatal(function, "scale is null");
  if (bytes % each != 0)
    fatal(function, std::to_string(bytes) + " bytes is not a whole number of elements of " + std::to_string(each));
}

// A strided call that moves one block (no levels, or one block at each).
bool one_block(const int* count, int levels) {
  for (int i = 1; i <= levels; ++i)
    if (count[i] != 1) return false;
  return true;
}

int put_s(void* src, int* src_stride, void* dst, int* dst_stride, int* count, int levels, int proc,
          armci_hdl_t* hdl, const char* function) {
  check_strided(count, levels, function);
  check_target(proc, function);
  if (hdl == nullptr && one_block(count, levels) && direct_contiguous(op_header::put, src, dst, count[0], proc, 0, nullptr))
    return 0;
  return run(op_header::put, strided(src, src_stride, count, levels), strided(dst, dst_stride, count, levels), proc,
             hdl);
}

int get_s(void* src, int* src_stride, void* dst, int* dst_stride, int* count, int levels, int proc,
          armci_hdl_t* hdl, const char* function) {
  check_strided(count, levels, function);
  check_target(proc, function);
  if (hdl == nullptr && one_block(count, levels) && direct_contiguous(op_header::get, dst, src, count[0], proc, 0, nullptr))
    return 0;
  return run(op_header::get, strided(dst, dst_stride, count, levels), strided(src, src_stride, count, levels), proc,
             hdl);
}

int acc_s(int type, void* scale, void* src, int* src_stride, void* dst, int* dst_stride, int* count, int levels,
          int proc, armci_hdl_t* hdl, const char* function) {
  check_strided(count, levels, function);
  check_target(proc, function);
  check_acc(type, scale, count[0], function);
  if (hdl == nullptr && one_block(count, levels) &&
      direct_contiguous(op_header::acc, src, dst, count[0], proc, type, scale))
    return 0;
  return run(op_header::acc, strided(src, src_stride, count, levels), strided(dst, dst_stride, count, levels), proc,
             hdl, type, scale);
}

// Each descriptor of a vector call is one operation (same order, so they
// are applied in order at the target).
int vector_op(op_header::kind_t kind, armci_giov_t* iov, int n, int proc, armci_hdl_t* hdl, int type,
              const void* scale, const char* function) {
  check_target(proc, function);
  if (n < 0 || (n > 0 && iov == nullptr)) fatal(function, "bad descriptor array");
  armci_hdl_t local_handle;
  ARMCI_INIT_HANDLE(&local_handle);
  armci_hdl_t* h = hdl ? hdl : &local_handle;
  for (int i = 0; i < n; ++i) {
    const armci_giov_t& d = iov[i];
    if (d.bytes < 0 || d.ptr_array_len < 0) fatal(function, "negative bytes or ptr_array_len");
    if (kind == op_header::acc) check_acc(type, scale, d.bytes, function);
    layout src = segments(d.src_ptr_array, d.ptr_array_len, d.bytes);
    layout dst = segments(d.dst_ptr_array, d.ptr_array_len, d.bytes);
    if (kind == op_header::get) run(kind, std::move(dst), std::move(src), proc, h, type, scale);
    else run(kind, std::move(src), std::move(dst), proc, h, type, scale);
  }
  if (hdl == nullptr) PARMCI_Wait(&local_handle);
  return 0;
}

}  // namespace

extern "C" {

void ARMCI_INIT_HANDLE(armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  if (hdl) *hdl = armci_hdl_t{0, -1, 0, 0};
}
void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  if (hdl) hdl->aggregate = 1;
}
void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  if (hdl) hdl->aggregate = 0;
}

int PARMCI_Put(void* src, void* dst, int size, int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  check_target(proc, "ARMCI_Put");
  if (size >= 0 && direct_contiguous(op_header::put, src, dst, size, proc, 0, nullptr)) return 0;
  return run(op_header::put, contiguous(src, size), contiguous(dst, size), proc, nullptr);
}
int PARMCI_Get(void* src, void* dst, int size, int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  check_target(proc, "ARMCI_Get");
  if (size >= 0 && direct_contiguous(op_header::get, dst, src, size, proc, 0, nullptr)) return 0;
  return run(op_header::get, contiguous(dst, size), contiguous(src, size), proc, nullptr);
}
int PARMCI_Acc(int type, void* scale, void* src, void* dst, int bytes, int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  check_target(proc, "ARMCI_Acc");
  check_acc(type, scale, bytes, "ARMCI_Acc");
  if (bytes >= 0 && direct_contiguous(op_header::acc, src, dst, bytes, proc, type, scale)) return 0;
  return run(op_header::acc, contiguous(src, bytes), contiguous(dst, bytes), proc, nullptr, type, scale);
}
int PARMCI_NbPut(void* src, void* dst, int bytes, int proc, armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  check_target(proc, "ARMCI_NbPut");
  return run(op_header::put, contiguous(src, bytes), contiguous(dst, bytes), proc, hdl);
}
int PARMCI_NbGet(void* src, void* dst, int bytes, int proc, armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  check_target(proc, "ARMCI_NbGet");
  return run(op_header::get, contiguous(dst, bytes), contiguous(src, bytes), proc, hdl);
}
int PARMCI_NbAcc(int type, void* scale, void* src, void* dst, int bytes, int proc, armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  check_target(proc, "ARMCI_NbAcc");
  check_acc(type, scale, bytes, "ARMCI_NbAcc");
  return run(op_header::acc, contiguous(src, bytes), contiguous(dst, bytes), proc, hdl, type, scale);
}

int PARMCI_PutS(void* src, int src_stride[], void* dst, int dst_stride[], int count[], int levels, int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  return put_s(src, src_stride, dst, dst_stride, count, levels, proc, nullptr, "ARMCI_PutS");
}
int PARMCI_GetS(void* src, int src_stride[], void* dst, int dst_stride[], int count[], int levels, int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  return get_s(src, src_stride, dst, dst_stride, count, levels, proc, nullptr, "ARMCI_GetS");
}
int PARMCI_AccS(int type, void* scale, void* src, int src_stride[], void* dst, int dst_stride[], int count[],
               int levels, int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  return acc_s(type, scale, src, src_stride, dst, dst_stride, count, levels, proc, nullptr, "ARMCI_AccS");
}
int PARMCI_NbPutS(void* src, int src_stride[], void* dst, int dst_stride[], int count[], int levels, int proc,
                 armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  return put_s(src, src_stride, dst, dst_stride, count, levels, proc, hdl, "ARMCI_NbPutS");
}
int PARMCI_NbGetS(void* src, int src_stride[], void* dst, int dst_stride[], int count[], int levels, int proc,
                 armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  return get_s(src, src_stride, dst, dst_stride, count, levels, proc, hdl, "ARMCI_NbGetS");
}
int PARMCI_NbAccS(int type, void* scale, void* src, int src_stride[], void* dst, int dst_stride[], int count[],
                 int levels, int proc, armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  return acc_s(type, scale, src, src_stride, dst, dst_stride, count, levels, proc, hdl, "ARMCI_NbAccS");
}

int PARMCI_Put_flag(void* src, void* dst, int size, int* flag, int value, int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  PARMCI_Put(src, dst, size, proc);
  return ARMCI_PutValueInt(value, flag, proc);  // applied after the data (the origin's order)
}
int PARMCI_PutS_flag(void* src, int src_stride[], void* dst, int dst_stride[], int count[], int levels, int* flag,
                    int value, int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  PARMCI_PutS(src, src_stride, dst, dst_stride, count, levels, proc);
  return ARMCI_PutValueInt(value, flag, proc);
}

int PARMCI_PutV(armci_giov_t* iov, int n, int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  return vector_op(op_header::put, iov, n, proc, nullptr, 0, nullptr, "ARMCI_PutV");
}
int PARMCI_GetV(armci_giov_t* iov, int n, int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  return vector_op(op_header::get, iov, n, proc, nullptr, 0, nullptr, "ARMCI_GetV");
}
int PARMCI_AccV(int type, void* scale, armci_giov_t* iov, int n, int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  return vector_op(op_header::acc, iov, n, proc, nullptr, type, scale, "ARMCI_AccV");
}
int PARMCI_NbPutV(armci_giov_t* iov, int n, int proc, armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  return vector_op(op_header::put, iov, n, proc, hdl, 0, nullptr, "ARMCI_NbPutV");
}
int PARMCI_NbGetV(armci_giov_t* iov, int n, int proc, armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  return vector_op(op_header::get, iov, n, proc, hdl, 0, nullptr, "ARMCI_NbGetV");
}
int PARMCI_NbAccV(int type, void* scale, armci_giov_t* iov, int n, int proc, armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  return vector_op(op_header::acc, iov, n, proc, hdl, type, scale, "ARMCI_NbAccV");
}

int PARMCI_Wait(armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  if (hdl == nullptr) return 0;
  wait_handle(hdl->id);
  hdl->id = 0;
  return 0;
}
int PARMCI_Test(armci_hdl_t* hdl) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  if (hdl == nullptr || hdl->id == 0) return 0;
  return my_state().handles.count(hdl->id) != 0 ? 1 : 0;  // 0: complete
}
int PARMCI_WaitProc(int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  wait_target(proc);
  return 0;
}
int PARMCI_WaitAll(void) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  wait_target(-1);
  return 0;
}

void PARMCI_Fence(int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  fence(proc);
}
void PARMCI_AllFence(void) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  fence(-1);
}

// ---- values ----
#define ROAM_ARMCI_VALUE(Name, T)                                           \
  int PARMCI_PutValue##Name(T src, void* dst, int proc) {                   \
    return PARMCI_Put(&src, dst, sizeof(T), proc);                          \
  }                                                                         \
  int PARMCI_NbPutValue##Name(T src, void* dst, int proc, armci_hdl_t* hdl) { \
    return PARMCI_NbPut(&src, dst, sizeof(T), proc, hdl);                   \
  }                                                                         \
  T PARMCI_GetValue##Name(void* src, int proc) {                            \
    T v{};                                                                  \
    PARMCI_Get(src, &v, sizeof(T), proc);                                   \
    return v;                                                               \
  }
ROAM_ARMCI_VALUE(Int, int)
ROAM_ARMCI_VALUE(Long, long)
ROAM_ARMCI_VALUE(Float, float)
ROAM_ARMCI_VALUE(Double, double)
#undef ROAM_ARMCI_VALUE

int PARMCI_Rmw(int op, void* ploc, void* prem, int value, int proc) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  check_target(proc, "ARMCI_Rmw");
  if (ploc == nullptr) fatal("ARMCI_Rmw", "ploc is null");
  std::int64_t operand = value;
  std::int64_t bytes = sizeof(int);
  switch (op) {
    case ARMCI_FETCH_AND_ADD: break;
    case ARMCI_FETCH_AND_ADD_LONG: bytes = sizeof(long); break;
    case ARMCI_SWAP: std::memcpy(&value, ploc, sizeof(int)), operand = value; break;
    case ARMCI_SWAP_LONG: {
      long v;
      std::memcpy(&v, ploc, sizeof v);
      operand = v;
      bytes = sizeof(long);
      break;
    }
    default: fatal("ARMCI_Rmw", "unknown operation " + std::to_string(op));
  }
  return run(op_header::rmw, contiguous(ploc, bytes), contiguous(prem, bytes), proc, nullptr, op, nullptr, operand);
}

void ARMCI_Copy(void* src, void* dst, int size) { std::memmove(dst, src, static_cast<std::size_t>(size)); }

void armci_write_strided(void* ptr, int levels, int stride_arr[], int count[], char* buf) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  scatter(strided(ptr, stride_arr, count, levels), reinterpret_cast<const std::byte*>(buf));
}
void armci_read_strided(void* ptr, int levels, int stride_arr[], int count[], char* buf) {
  const roam::process_heap_scope runtime_heap;  // layouts and records: runtime memory
  gather(strided(ptr, stride_arr, count, levels), reinterpret_cast<std::byte*>(buf));
}

void PARMCI_Access_begin(void*) {}  // memory is the rank's own: loads and stores need no epoch
void PARMCI_Access_end(void*) {}

}  // extern "C"

// The profiling interface: ARMCI_<name> is a weak alias of PARMCI_<name>
// (a tool defines ARMCI_<name> and calls PARMCI_<name>).
ROAM_ARMCI_PARMCI(Fence)
ROAM_ARMCI_PARMCI(AllFence)
ROAM_ARMCI_PARMCI(Access_begin)
ROAM_ARMCI_PARMCI(Access_end)
ROAM_ARMCI_PARMCI(Get)
ROAM_ARMCI_PARMCI(Put)
ROAM_ARMCI_PARMCI(Acc)
ROAM_ARMCI_PARMCI(PutS)
ROAM_ARMCI_PARMCI(GetS)
ROAM_ARMCI_PARMCI(AccS)
ROAM_ARMCI_PARMCI(Put_flag)
ROAM_ARMCI_PARMCI(PutS_flag)
ROAM_ARMCI_PARMCI(PutV)
ROAM_ARMCI_PARMCI(GetV)
ROAM_ARMCI_PARMCI(AccV)
ROAM_ARMCI_PARMCI(Wait)
ROAM_ARMCI_PARMCI(Test)
ROAM_ARMCI_PARMCI(WaitProc)
ROAM_ARMCI_PARMCI(WaitAll)
ROAM_ARMCI_PARMCI(NbPut)
ROAM_ARMCI_PARMCI(NbGet)
ROAM_ARMCI_PARMCI(NbAcc)
ROAM_ARMCI_PARMCI(NbPutS)
ROAM_ARMCI_PARMCI(NbGetS)
ROAM_ARMCI_PARMCI(NbAccS)
ROAM_ARMCI_PARMCI(NbPutV)
ROAM_ARMCI_PARMCI(NbGetV)
ROAM_ARMCI_PARMCI(NbAccV)
ROAM_ARMCI_PARMCI(Rmw)
ROAM_ARMCI_PARMCI(PutValueInt)
ROAM_ARMCI_PARMCI(NbPutValueInt)
ROAM_ARMCI_PARMCI(GetValueInt)
ROAM_ARMCI_PARMCI(PutValueLong)
ROAM_ARMCI_PARMCI(NbPutValueLong)
ROAM_ARMCI_PARMCI(GetValueLong)
ROAM_ARMCI_PARMCI(PutValueFloat)
ROAM_ARMCI_PARMCI(NbPutValueFloat)
ROAM_ARMCI_PARMCI(GetValueFloat)
ROAM_ARMCI_PARMCI(PutValueDouble)
ROAM_ARMCI_PARMCI(NbPutValueDouble)
ROAM_ARMCI_PARMCI(GetValueDouble)
