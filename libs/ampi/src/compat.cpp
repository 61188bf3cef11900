// The smaller corners of the standard: MPI_Alloc_mem, group ranges, window
// attributes and names, datatype names, status setters, MPI_Bsend_init, and
// MPI-1's deprecated names (MPI_Type_extent, MPI_Attr_put, ...), which
// older programs and test suites still call: each maps to its MPI-2/3
// successor.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api.hpp"

using namespace roam::ampi;

// ---- memory -------------------------------------------------------------------------
// Not in the process heap: the memory is the rank's (its thread's heap), so
// it moves with the rank like the program's own malloc.
extern "C" int PMPI_Alloc_mem(MPI_Aint size, MPI_Info, void* baseptr) {
  if (size < 0) return fail(MPI_COMM_WORLD, MPI_ERR_SIZE, "MPI_Alloc_mem", "negative size " + std::to_string(size));
  void* p = std::malloc(size > 0 ? static_cast<std::size_t>(size) : 1);
  if (p == nullptr)
    return fail(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Alloc_mem", "out of memory for " + std::to_string(size) + " bytes");
  *static_cast<void**>(baseptr) = p;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Alloc_mem)

extern "C" int PMPI_Free_mem(void* base) {
  std::free(base);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Free_mem)

// ---- group ranges -------------------------------------------------------------------
namespace {
// The ranks (first, last, stride) triplets name, in order; -1 on a bad range.
int expand_ranges(MPI_Group group, int n, int ranges[][3], std::vector<int>* out, const char* function) {
  int size = 0;
  if (int e = PMPI_Group_size(group, &size)) return e;
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0 || first < 0 || first >= size || last < 0 || last >= size ||
        (stride > 0 && first > last) || (stride < 0 && first < last))
      return fail(MPI_COMM_WORLD, MPI_ERR_ARG, function,
                  "range " + std::to_string(i) + " (" + std::to_string(first) + ", " + std::to_string(last) + ", " +
                      std::to_string(stride) + ") is not a range of a group of size " + std::to_string(size));
    for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) out->push_back(r);
  }
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  std::vector<int> ranks_in;
  if (int e = expand_ranges(group, n, ranges, &ranks_in, "MPI_Group_range_incl")) return e;
  return PMPI_Group_incl(group, static_cast<int>(ranks_in.size()), ranks_in.data(), newgroup);
}
ROAM_AMPI_PMPI(Group_range_incl)

extern "C" int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  std::vector<int> ranks_out;
  if (int e = expand_ranges(group, n, ranges, &ranks_out, "MPI_Group_range_excl")) return e;
  return PMPI_Group_excl(group, static_cast<int>(ranks_out.size()), ranks_out.data(), newgroup);
}
ROAM_AMPI_PMPI(Group_range_excl)

// ---- window attributes and names ----------------------------------------------------
extern "C" int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* copy_fn, MPI_Win_delete_attr_function* delete_fn,
                                      int* keyval, void* extra_state) {
  // One keyval table for communicators and windows (the functions are kept
  // as words and called with the right type by their object's code).
  return PMPI_Comm_create_keyval(reinterpret_cast<MPI_Comm_copy_attr_function*>(copy_fn),
                                 reinterpret_cast<MPI_Comm_delete_attr_function*>(delete_fn), keyval, extra_state);
}
ROAM_AMPI_PMPI(Win_create_keyval)

extern "C" int PMPI_Win_free_keyval(int* keyval) { return PMPI_Comm_free_keyval(keyval); }
ROAM_AMPI_PMPI(Win_free_keyval)

namespace roam::ampi {
int delete_window_attribute(int win, int keyval, std::uint64_t value) {
  rank& r = me();
  auto k = r.keyvals.find(keyval);
  if (k == r.keyvals.end() || k->second.delete_fn == 0) return MPI_SUCCESS;
  auto* fn = reinterpret_cast<MPI_Win_delete_attr_function*>(k->second.delete_fn);
  return fn(win, keyval, reinterpret_cast<void*>(value), reinterpret_cast<void*>(k->second.extra_state));
}
}  // namespace roam::ampi

extern "C" int PMPI_Win_set_attr(MPI_Win win, int keyval, void* attribute_val) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  auto w = r.windows.find(win);
  if (w == r.windows.end()) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_set_attr", "invalid window");
  if (r.keyvals.count(keyval) == 0)
    return fail(w->second.comm, MPI_ERR_KEYVAL, "MPI_Win_set_attr", "invalid keyval " + std::to_string(keyval));
  auto old = w->second.attributes.find(keyval);
  if (old != w->second.attributes.end())
    if (int e = delete_window_attribute(win, keyval, old->second)) return e;
  me().windows.at(win).attributes[keyval] = reinterpret_cast<std::uint64_t>(attribute_val);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_set_attr)

extern "C" int PMPI_Win_delete_attr(MPI_Win win, int keyval) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  auto w = r.windows.find(win);
  if (w == r.windows.end()) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_delete_attr", "invalid window");
  auto it = w->second.attributes.find(keyval);
  if (it == w->second.attributes.end())
    return fail(w->second.comm, MPI_ERR_KEYVAL, "MPI_Win_delete_attr", "no attribute for keyval " + std::to_string(keyval));
  const std::uint64_t value = it->second;
  if (int e = delete_window_attribute(win, keyval, value)) return e;
  me().windows.at(win).attributes.erase(keyval);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_delete_attr)

namespace {
void copy_name(const std::string& from, char* name, int* resultlen) {
  const std::size_t n = std::min<std::size_t>(from.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(name, from.data(), n);
  name[n] = '\0';
  *resultlen = static_cast<int>(n);
}
}  // namespace

extern "C" int PMPI_Win_set_name(MPI_Win win, const char* name) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  auto w = me().windows.find(win);
  if (w == me().windows.end()) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_set_name", "invalid window");
  w->second.name = std::string(name).substr(0, MPI_MAX_OBJECT_NAME - 1);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_set_name)

extern "C" int PMPI_Win_get_name(MPI_Win win, char* name, int* resultlen) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  auto w = me().windows.find(win);
  if (w == me().windows.end()) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_get_name", "invalid window");
  copy_name(w->second.name, name, resultlen);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_get_name)

// ---- datatype names -----------------------------------------------------------------
namespace {
// The standard's names of the predefined types ("" for the others).
const char* predefined_name(MPI_Datatype t) {
  switch (t) {
    case MPI_CHAR: return "MPI_CHAR";
    case MPI_SIGNED_CHAR: return "MPI_SIGNED_CHAR";
    case MPI_UNSIGNED_CHAR: return "MPI_UNSIGNED_CHAR";
    case MPI_BYTE: return "MPI_BYTE";
    case MPI_SHORT: return "MPI_SHORT";
    case MPI_UNSIGNED_SHORT: return "MPI_UNSIGNED_SHORT";
    case MPI_INT: return "MPI_INT";
    case MPI_UNSIGNED: return "MPI_UNSIGNED";
    case MPI_LONG: return "MPI_LONG";
    case MPI_UNSIGNED_LONG: return "MPI_UNSIGNED_LONG";
    case MPI_LONG_LONG_INT: return "MPI_LONG_LONG_INT";
    case MPI_UNSIGNED_LONG_LONG: return "MPI_UNSIGNED_LONG_LONG";
    case MPI_FLOAT: return "MPI_FLOAT";
    case MPI_DOUBLE: return "MPI_DOUBLE";
    case MPI_LONG_DOUBLE: return "MPI_LONG_DOUBLE";
    case MPI_WCHAR: return "MPI_WCHAR";
    case MPI_C_BOOL: return "MPI_C_BOOL";
    case MPI_INT8_T: return "MPI_INT8_T";
    case MPI_INT16_T: return "MPI_INT16_T";
    case MPI_INT32_T: return "MPI_INT32_T";
    case MPI_INT64_T: return "MPI_INT64_T";
    case MPI_UINT8_T: return "MPI_UINT8_T";
    case MPI_UINT16_T: return "MPI_UINT16_T";
    case MPI_UINT32_T: return "MPI_UINT32_T";
    case MPI_UINT64_T: return "MPI_UINT64_T";
    case MPI_C_FLOAT_COMPLEX: return "MPI_C_FLOAT_COMPLEX";
    case MPI_C_DOUBLE_COMPLEX: return "MPI_C_DOUBLE_COMPLEX";
    case MPI_C_LONG_DOUBLE_COMPLEX: return "MPI_C_LONG_DOUBLE_COMPLEX";
    case MPI_AINT: return "MPI_AINT";
    case MPI_OFFSET: return "MPI_OFFSET";
    case MPI_COUNT: return "MPI_COUNT";
    case MPI_PACKED: return "MPI_PACKED";
    case MPI_FLOAT_INT: return "MPI_FLOAT_INT";
    case MPI_DOUBLE_INT: return "MPI_DOUBLE_INT";
    case MPI_LONG_INT: return "MPI_LONG_INT";
    case MPI_2INT: return "MPI_2INT";
    case MPI_SHORT_INT: return "MPI_SHORT_INT";
    case MPI_LONG_DOUBLE_INT: return "MPI_LONG_DOUBLE_INT";
    case MPI_INTEGER: return "MPI_INTEGER";
    case MPI_REAL: return "MPI_REAL";
    case MPI_DOUBLE_PRECISION: return "MPI_DOUBLE_PRECISION";
    case MPI_LOGICAL: return "MPI_LOGICAL";
    case MPI_CHARACTER: return "MPI_CHARACTER";
    case MPI_COMPLEX: return "MPI_COMPLEX";
    case MPI_DOUBLE_COMPLEX: return "MPI_DOUBLE_COMPLEX";
    default: return "";
  }
}
}  // namespace

extern "C" int PMPI_Type_set_name(MPI_Datatype datatype, const char* name) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (find_type(r, datatype) == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_set_name", "invalid datatype");
  r.type_names[datatype] = std::string(name).substr(0, MPI_MAX_OBJECT_NAME - 1);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_set_name)

extern "C" int PMPI_Type_get_name(MPI_Datatype datatype, char* name, int* resultlen) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (find_type(r, datatype) == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_get_name", "invalid datatype");
  auto it = r.type_names.find(datatype);
  copy_name(it != r.type_names.end() ? it->second : std::string(predefined_name(datatype)), name, resultlen);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_get_name)

// ---- status setters (generalized requests, layered libraries) -----------------------
extern "C" int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const type_info* t = find_type(me(), datatype);
  if (t == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Status_set_elements", "invalid datatype");
  if (count < 0) return fail(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Status_set_elements", "negative count");
  status->MPI_LENGTH = element_bytes(*t, count);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Status_set_elements)

extern "C" int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  status->roam_cancelled = flag ? 1 : 0;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Status_set_cancelled)

// Sends are eager (the data is copied out at the call), so a buffered send
// is a standard one: MPI_Bsend_init is MPI_Send_init.
extern "C" int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request) {
  return PMPI_Send_init(buf, count, datatype, dest, tag, comm, request);
}
ROAM_AMPI_PMPI(Bsend_init)

// ---- MPI-1's names ------------------------------------------------------------------
extern "C" int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return PMPI_Comm_set_errhandler(comm, errhandler);
}
ROAM_AMPI_PMPI(Errhandler_set)

extern "C" int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return PMPI_Comm_get_errhandler(comm, errhandler);
}
ROAM_AMPI_PMPI(Errhandler_get)

extern "C" int PMPI_Address(void* location, MPI_Aint* address) { return PMPI_Get_address(location, address); }
ROAM_AMPI_PMPI(Address)

extern "C" int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  MPI_Aint lb = 0;
  return PMPI_Type_get_extent(datatype, &lb, extent);
}
ROAM_AMPI_PMPI(Type_extent)

extern "C" int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint extent = 0;
  return PMPI_Type_get_extent(datatype, displacement, &extent);
}
ROAM_AMPI_PMPI(Type_lb)

extern "C" int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint lb = 0, extent = 0;
  const int e = PMPI_Type_get_extent(datatype, &lb, &extent);
  *displacement = lb + extent;
  return e;
}
ROAM_AMPI_PMPI(Type_ub)

extern "C" int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}
ROAM_AMPI_PMPI(Type_hvector)

extern "C" int PMPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  return PMPI_Type_create_hindexed(count, blocklengths, displacements, oldtype, newtype);
}
ROAM_AMPI_PMPI(Type_hindexed)

extern "C" int PMPI_Type_struct(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype types[],
                                MPI_Datatype* newtype) {
  return PMPI_Type_create_struct(count, blocklengths, displacements, types, newtype);
}
ROAM_AMPI_PMPI(Type_struct)

extern "C" int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}
ROAM_AMPI_PMPI(Attr_put)

extern "C" int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
ROAM_AMPI_PMPI(Attr_get)

extern "C" int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return PMPI_Comm_delete_attr(comm, keyval); }
ROAM_AMPI_PMPI(Attr_delete)

extern "C" int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                                  void* extra_state) {
  return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}
ROAM_AMPI_PMPI(Keyval_create)

extern "C" int PMPI_Keyval_free(int* keyval) { return PMPI_Comm_free_keyval(keyval); }
ROAM_AMPI_PMPI(Keyval_free)

// ---- distributed arrays -------------------------------------------------------------
// MPI_Type_create_darray: this process's part of a global array distributed
// block-, cyclic- or not at all per dimension over a process grid (ranks in
// row-major order of psizes, whatever the array's order). Built as the
// hindexed list of this rank's runs along the fastest dimension, in storage
// order, resized to the whole global array's extent, as MPI defines it.
namespace {
// The global indices of dimension `d` that process coordinate `p` owns.
int owned_indices(int gsize, int distrib, int darg, int psize, int p, std::vector<int>* out, std::string* why) {
  out->clear();
  if (distrib == MPI_DISTRIBUTE_NONE) {
    if (psize != 1) {
      *why = "MPI_DISTRIBUTE_NONE over " + std::to_string(psize) + " processes (must be 1)";
      return MPI_ERR_ARG;
    }
    for (int i = 0; i < gsize; ++i) out->push_back(i);
  } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
    const int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
    if (b <= 0 || static_cast<long>(b) * psize < gsize) {
      *why = "block size " + std::to_string(b) + " does not cover " + std::to_string(gsize) + " over " +
             std::to_string(psize) + " processes";
      return MPI_ERR_ARG;
    }
    for (long i = static_cast<long>(p) * b; i < std::min<long>(static_cast<long>(p + 1) * b, gsize); ++i)
      out->push_back(static_cast<int>(i));
  } else if (distrib == MPI_DISTRIBUTE_CYCLIC) {
    const int k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    if (k <= 0) {
      *why = "cyclic block size " + std::to_string(k);
      return MPI_ERR_ARG;
    }
    for (long start = static_cast<long>(p) * k; start < gsize; start += static_cast<long>(psize) * k)
      for (long i = start; i < std::min<long>(start + k, gsize); ++i) out->push_back(static_cast<int>(i));
  } else {
    *why = "unknown distribution " + std::to_string(distrib);
    return MPI_ERR_ARG;
  }
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Type_create_darray(int size, int rank_in, int ndims, const int gsizes[], const int distribs[],
                                       const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const char* fn = "MPI_Type_create_darray";
  const type_info* old = find_type(me(), oldtype);
  if (old == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "invalid datatype");
  if (old->extent() <= 0) return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "the old type's extent is not positive");
  if (ndims <= 0 || size <= 0 || rank_in < 0 || rank_in >= size)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad ndims, size or rank");
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "unknown order " + std::to_string(order));
  long procs = 1;
  for (int d = 0; d < ndims; ++d) procs *= psizes[d];
  if (procs != size)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                "the process grid has " + std::to_string(procs) + " processes, size is " + std::to_string(size));
  // This rank's coordinates (row-major), then the indices it owns per dimension.
  std::vector<std::vector<int>> owned(static_cast<std::size_t>(ndims));
  int rest = rank_in;
  for (int d = ndims - 1; d >= 0; --d) {
    const int p = rest % psizes[d];
    rest /= psizes[d];
    std::string why;
    if (int e = owned_indices(gsizes[d], distribs[d], dargs[d], psizes[d], p, &owned[static_cast<std::size_t>(d)], &why))
      return fail(MPI_COMM_WORLD, e, fn, "dimension " + std::to_string(d) + ": " + why);
  }
  // Dimensions from slowest to fastest in storage order.
  std::vector<int> dims(static_cast<std::size_t>(ndims));
  for (int i = 0; i < ndims; ++i) dims[static_cast<std::size_t>(i)] = order == MPI_ORDER_C ? i : ndims - 1 - i;
  std::vector<long> stride(static_cast<std::size_t>(ndims));  // elements per step of each dimension
  long total = 1;
  for (int i = ndims - 1; i >= 0; --i) {
    const int d = dims[static_cast<std::size_t>(i)];
    stride[static_cast<std::size_t>(d)] = total;
    total *= gsizes[d];
  }
  std::vector<int> lengths;
  std::vector<MPI_Aint> displs;
  bool empty = false;
  for (const auto& o : owned) empty = empty || o.empty();
  if (!empty) {
    std::vector<std::size_t> at(static_cast<std::size_t>(ndims), 0);  // position in each owned list
    const int fastest = dims.back();
    for (;;) {
      long base = 0;
      for (int d = 0; d < ndims; ++d)
        if (d != fastest) base += owned[static_cast<std::size_t>(d)][at[static_cast<std::size_t>(d)]] * stride[static_cast<std::size_t>(d)];
      for (int i : owned[static_cast<std::size_t>(fastest)]) {
        const long off = base + i * stride[static_cast<std::size_t>(fastest)];
        if (!displs.empty() && displs.back() / old->extent() + lengths.back() == off) ++lengths.back();
        else {
          displs.push_back(static_cast<MPI_Aint>(off * old->extent()));
          lengths.push_back(1);
        }
      }
      // the next combination of the slower dimensions (odometer, fastest of them last)
      int i = ndims - 2;
      for (; i >= 0; --i) {
        const auto d = static_cast<std::size_t>(dims[static_cast<std::size_t>(i)]);
        if (++at[d] < owned[d].size()) break;
        at[d] = 0;
      }
      if (i < 0) break;
    }
  }
  MPI_Datatype runs = MPI_DATATYPE_NULL;
  if (int e = PMPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), displs.data(), oldtype, &runs))
    return e;
  const int e = PMPI_Type_create_resized(runs, 0, static_cast<MPI_Aint>(total * old->extent()), newtype);
  if (e == MPI_SUCCESS) {
    type_info& made = me().types.at(*newtype);
    made.combiner = MPI_COMBINER_DARRAY;
    std::vector<int> ints{size, rank_in, ndims};
    for (const int* part : {gsizes, distribs, dargs, psizes}) ints.insert(ints.end(), part, part + ndims);
    ints.push_back(order);
    made.contents = {std::move(ints), {}, {oldtype}};
  }
  PMPI_Type_free(&runs);
  return e;
}
ROAM_AMPI_PMPI(Type_create_darray)
