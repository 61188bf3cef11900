// MPI_Type_* and MPI_Pack/Unpack.
#include <algorithm>
#include <cstring>

#include "api.hpp"

using namespace roam::ampi;

namespace {

const type_info* old_type(MPI_Datatype t, const char* function, int* err) {
  const type_info* info = find_type(me(), t);
  *err = info ? MPI_SUCCESS : fail(MPI_COMM_WORLD, MPI_ERR_TYPE, function, "invalid datatype " + std::to_string(t));
  return info;
}

int add_type(type_info t, MPI_Datatype* out) {
  rank& r = me();
  t.committed = false;
  t.predefined = false;
  const int h = r.next_type++;
  r.types[h] = std::move(t);
  *out = h;
  return MPI_SUCCESS;
}

int count_error(int count, const char* function) {
  return count < 0 ? fail(MPI_COMM_WORLD, MPI_ERR_COUNT, function, "negative count " + std::to_string(count)) : 0;
}

}  // namespace

extern "C" int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  if (int e = count_error(count, "MPI_Type_contiguous")) return e;
  const type_info* old = old_type(oldtype, "MPI_Type_contiguous", &err);
  if (!old) return err;
  return add_type(replicate(*old, {{0, count}}, MPI_COMBINER_CONTIGUOUS), newtype);
}
ROAM_AMPI_PMPI(Type_contiguous)

extern "C" int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                        MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  if (int e = count_error(count, "MPI_Type_create_hvector")) return e;
  const type_info* old = old_type(oldtype, "MPI_Type_create_hvector", &err);
  if (!old) return err;
  std::vector<std::pair<std::int64_t, std::int64_t>> places;
  for (int i = 0; i < count; ++i) places.emplace_back(static_cast<std::int64_t>(i) * stride, blocklength);
  return add_type(replicate(*old, places, MPI_COMBINER_HVECTOR), newtype);
}
ROAM_AMPI_PMPI(Type_create_hvector)

extern "C" int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* old = old_type(oldtype, "MPI_Type_vector", &err);
  if (!old) return err;
  if (int e = PMPI_Type_create_hvector(count, blocklength, static_cast<MPI_Aint>(stride) * old->extent(), oldtype, newtype))
    return e;
  me().types.at(*newtype).combiner = MPI_COMBINER_VECTOR;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_vector)

extern "C" int PMPI_Type_create_hindexed(int count, const int lengths[], const MPI_Aint displs[], MPI_Datatype oldtype,
                                         MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  if (int e = count_error(count, "MPI_Type_create_hindexed")) return e;
  const type_info* old = old_type(oldtype, "MPI_Type_create_hindexed", &err);
  if (!old) return err;
  std::vector<std::pair<std::int64_t, std::int64_t>> places;
  for (int i = 0; i < count; ++i) places.emplace_back(displs[i], lengths[i]);
  return add_type(replicate(*old, places, MPI_COMBINER_HINDEXED), newtype);
}
ROAM_AMPI_PMPI(Type_create_hindexed)

extern "C" int PMPI_Type_indexed(int count, const int lengths[], const int displs[], MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  if (int e = count_error(count, "MPI_Type_indexed")) return e;
  const type_info* old = old_type(oldtype, "MPI_Type_indexed", &err);
  if (!old) return err;
  std::vector<std::pair<std::int64_t, std::int64_t>> places;
  for (int i = 0; i < count; ++i) places.emplace_back(static_cast<std::int64_t>(displs[i]) * old->extent(), lengths[i]);
  return add_type(replicate(*old, places, MPI_COMBINER_INDEXED), newtype);
}
ROAM_AMPI_PMPI(Type_indexed)

extern "C" int PMPI_Type_create_indexed_block(int count, int blocklength, const int displs[], MPI_Datatype oldtype,
                                              MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  if (int e = count_error(count, "MPI_Type_create_indexed_block")) return e;
  const type_info* old = old_type(oldtype, "MPI_Type_create_indexed_block", &err);
  if (!old) return err;
  std::vector<std::pair<std::int64_t, std::int64_t>> places;
  for (int i = 0; i < count; ++i) places.emplace_back(static_cast<std::int64_t>(displs[i]) * old->extent(), blocklength);
  return add_type(replicate(*old, places, MPI_COMBINER_INDEXED_BLOCK), newtype);
}
ROAM_AMPI_PMPI(Type_create_indexed_block)

extern "C" int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displs[],
                                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  if (int e = count_error(count, "MPI_Type_create_hindexed_block")) return e;
  const type_info* old = old_type(oldtype, "MPI_Type_create_hindexed_block", &err);
  if (!old) return err;
  std::vector<std::pair<std::int64_t, std::int64_t>> places;
  for (int i = 0; i < count; ++i) places.emplace_back(displs[i], blocklength);
  return add_type(replicate(*old, places, MPI_COMBINER_HINDEXED_BLOCK), newtype);
}
ROAM_AMPI_PMPI(Type_create_hindexed_block)

extern "C" int PMPI_Type_create_struct(int count, const int lengths[], const MPI_Aint displs[],
                                       const MPI_Datatype types[], MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = count_error(count, "MPI_Type_create_struct")) return e;
  std::vector<const type_info*> parts;
  std::vector<std::int64_t> d, l;
  for (int i = 0; i < count; ++i) {
    int err = 0;
    const type_info* t = old_type(types[i], "MPI_Type_create_struct", &err);
    if (!t) return err;
    parts.push_back(t);
    d.push_back(displs[i]);
    l.push_back(lengths[i]);
  }
  return add_type(make_struct(parts, d, l), newtype);
}
ROAM_AMPI_PMPI(Type_create_struct)

extern "C" int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[],
                                         int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* old = old_type(oldtype, "MPI_Type_create_subarray", &err);
  if (!old) return err;
  if (ndims <= 0) return fail(MPI_COMM_WORLD, MPI_ERR_DIMS, "MPI_Type_create_subarray", "ndims must be positive");
  // Dimensions from the slowest-varying to the fastest.
  std::vector<int> sz(sizes, sizes + ndims), sub(subsizes, subsizes + ndims), st(starts, starts + ndims);
  if (order == MPI_ORDER_FORTRAN) {
    std::reverse(sz.begin(), sz.end());
    std::reverse(sub.begin(), sub.end());
    std::reverse(st.begin(), st.end());
  } else if (order != MPI_ORDER_C) {
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_create_subarray", "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN");
  }
  for (int i = 0; i < ndims; ++i)
    if (sub[static_cast<std::size_t>(i)] < 1 || st[static_cast<std::size_t>(i)] < 0 ||
        st[static_cast<std::size_t>(i)] + sub[static_cast<std::size_t>(i)] > sz[static_cast<std::size_t>(i)])
      return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_create_subarray", "the subarray leaves the array");
  const auto n = static_cast<std::size_t>(ndims);
  std::vector<std::int64_t> stride(n);  // elements between consecutive indices of each dimension
  stride[n - 1] = 1;
  for (std::size_t i = n - 1; i > 0; --i) stride[i - 1] = stride[i] * sz[i];
  // One row (the fastest dimension's run) per combination of the others.
  std::vector<std::pair<std::int64_t, std::int64_t>> places;
  std::vector<int> idx(n, 0);  // an odometer over every dimension but the fastest
  for (;;) {
    std::int64_t at = st[n - 1];
    for (std::size_t i = 0; i + 1 < n; ++i) at += (st[i] + idx[i]) * stride[i];
    places.emplace_back(at * old->extent(), sub[n - 1]);
    int d = static_cast<int>(n) - 2;
    for (; d >= 0; --d) {
      if (++idx[static_cast<std::size_t>(d)] < sub[static_cast<std::size_t>(d)]) break;
      idx[static_cast<std::size_t>(d)] = 0;
    }
    if (d < 0) break;
  }
  type_info t = replicate(*old, places, MPI_COMBINER_SUBARRAY);
  t.lb = 0;
  t.ub = stride[0] * sz[0] * old->extent();
  return add_type(std::move(t), newtype);
}
ROAM_AMPI_PMPI(Type_create_subarray)

extern "C" int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* old = old_type(oldtype, "MPI_Type_create_resized", &err);
  if (!old) return err;
  type_info t = *old;
  t.lb = lb;
  t.ub = lb + extent;
  t.combiner = MPI_COMBINER_RESIZED;
  return add_type(std::move(t), newtype);
}
ROAM_AMPI_PMPI(Type_create_resized)

extern "C" int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* old = old_type(oldtype, "MPI_Type_dup", &err);
  if (!old) return err;
  type_info t = *old;
  t.combiner = MPI_COMBINER_DUP;
  const bool committed = old->committed;
  add_type(std::move(t), newtype);
  me().types.at(*newtype).committed = committed;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_dup)

extern "C" int PMPI_Type_commit(MPI_Datatype* datatype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (*datatype < first_derived_type) {
    if (predefined_type(*datatype)) return MPI_SUCCESS;
    return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_commit", "invalid datatype " + std::to_string(*datatype));
  }
  auto it = r.types.find(*datatype);
  if (it == r.types.end())
    return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_commit", "invalid datatype " + std::to_string(*datatype));
  it->second.committed = true;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_commit)

extern "C" int PMPI_Type_free(MPI_Datatype* datatype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (*datatype < first_derived_type || r.types.count(*datatype) == 0 || r.freed_types.count(*datatype) != 0)
    return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_free",
                "datatype " + std::to_string(*datatype) + " is predefined or not a datatype");
  // Operations in progress keep using it (MPI): it goes once none does.
  r.freed_types.insert(*datatype);
  r.sweep_freed_types();
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_free)

extern "C" int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* t = old_type(datatype, "MPI_Type_size", &err);
  if (!t) return err;
  *size = static_cast<int>(t->size);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_size)

extern "C" int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* t = old_type(datatype, "MPI_Type_size_x", &err);
  if (!t) return err;
  *size = t->size;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_size_x)

extern "C" int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* t = old_type(datatype, "MPI_Type_get_extent", &err);
  if (!t) return err;
  *lb = t->lb;
  *extent = t->extent();
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_get_extent)

extern "C" int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* t = old_type(datatype, "MPI_Type_get_true_extent", &err);
  if (!t) return err;
  *true_lb = t->true_lb;
  *true_extent = t->true_ub - t->true_lb;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_get_true_extent)

extern "C" int PMPI_Get_address(const void* location, MPI_Aint* address) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Get_address)

extern "C" int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm, int* size) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* t = old_type(datatype, "MPI_Pack_size", &err);
  if (!t) return err;
  *size = static_cast<int>(incount * t->size);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Pack_size)

extern "C" int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
                         int* position, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* t = old_type(datatype, "MPI_Pack", &err);
  if (!t) return err;
  const std::int64_t n = incount * t->size;
  if (*position + n > outsize)
    return fail(comm, MPI_ERR_TRUNCATE, "MPI_Pack", "the output buffer is too small");
  pack(*t, inbuf, incount, static_cast<std::byte*>(outbuf) + *position);
  *position += static_cast<int>(n);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Pack)

extern "C" int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                           MPI_Datatype datatype, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* t = old_type(datatype, "MPI_Unpack", &err);
  if (!t) return err;
  const std::int64_t n = outcount * t->size;
  if (*position + n > insize) return fail(comm, MPI_ERR_TRUNCATE, "MPI_Unpack", "the input buffer is too short");
  unpack(*t, static_cast<const std::byte*>(inbuf) + *position, n, outbuf, outcount);
  *position += static_cast<int>(n);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Unpack)
