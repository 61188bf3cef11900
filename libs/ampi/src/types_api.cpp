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

// A new derived type made by `combiner` from these arguments (kept for
// MPI_Type_get_contents).
int add_type(type_info t, MPI_Datatype* out, int combiner, type_contents contents) {
  rank& r = me();
  t.committed = false;
  t.predefined = false;
  t.combiner = combiner;
  t.contents = std::move(contents);
  const int h = r.new_type_handle();
  r.types[h] = std::move(t);
  *out = h;
  return MPI_SUCCESS;
}

std::vector<int> ints_of(int count, const int values[]) { return std::vector<int>(values, values + count); }
std::vector<std::int64_t> aints_of(int count, const MPI_Aint values[]) {
  return std::vector<std::int64_t>(values, values + count);
}
template <class... V>
std::vector<int> join(V&&... parts) {
  std::vector<int> out;
  (out.insert(out.end(), parts.begin(), parts.end()), ...);
  return out;
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
  return add_type(replicate(*old, {{0, count}}, MPI_COMBINER_CONTIGUOUS), newtype, MPI_COMBINER_CONTIGUOUS,
                  {{count}, {}, {oldtype}});
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
  return add_type(replicate(*old, places, MPI_COMBINER_HVECTOR), newtype, MPI_COMBINER_HVECTOR,
                  {{count, blocklength}, {stride}, {oldtype}});
}
ROAM_AMPI_PMPI(Type_create_hvector)

extern "C" int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* old = old_type(oldtype, "MPI_Type_vector", &err);
  if (!old) return err;
  if (int e = PMPI_Type_create_hvector(count, blocklength, static_cast<MPI_Aint>(stride) * old->extent(), oldtype, newtype))
    return e;
  type_info& made = me().types.at(*newtype);
  made.combiner = MPI_COMBINER_VECTOR;
  made.contents = {{count, blocklength, stride}, {}, {oldtype}};
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
  return add_type(replicate(*old, places, MPI_COMBINER_HINDEXED), newtype, MPI_COMBINER_HINDEXED,
                  {join(std::vector<int>{count}, ints_of(count, lengths)), aints_of(count, displs), {oldtype}});
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
  return add_type(replicate(*old, places, MPI_COMBINER_INDEXED), newtype, MPI_COMBINER_INDEXED,
                  {join(std::vector<int>{count}, ints_of(count, lengths), ints_of(count, displs)), {}, {oldtype}});
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
  return add_type(replicate(*old, places, MPI_COMBINER_INDEXED_BLOCK), newtype, MPI_COMBINER_INDEXED_BLOCK,
                  {join(std::vector<int>{count, blocklength}, ints_of(count, displs)), {}, {oldtype}});
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
  return add_type(replicate(*old, places, MPI_COMBINER_HINDEXED_BLOCK), newtype, MPI_COMBINER_HINDEXED_BLOCK,
                  {{count, blocklength}, aints_of(count, displs), {oldtype}});
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
  return add_type(make_struct(parts, d, l), newtype, MPI_COMBINER_STRUCT,
                  {join(std::vector<int>{count}, ints_of(count, lengths)), aints_of(count, displs),
                   ints_of(count, types)});
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
  t.explicit_lb = t.explicit_ub = true;  // the whole array's bounds, as MPI defines the subarray type
  return add_type(std::move(t), newtype, MPI_COMBINER_SUBARRAY,
                  {join(std::vector<int>{ndims}, ints_of(ndims, sizes), ints_of(ndims, subsizes), ints_of(ndims, starts),
                        std::vector<int>{order}),
                   {}, {oldtype}});
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
  t.explicit_lb = t.explicit_ub = true;  // as if marked by MPI_LB and MPI_UB
  return add_type(std::move(t), newtype, MPI_COMBINER_RESIZED, {{}, {lb, extent}, {oldtype}});
}
ROAM_AMPI_PMPI(Type_create_resized)

extern "C" int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* old = old_type(oldtype, "MPI_Type_dup", &err);
  if (!old) return err;
  type_info t = *old;
  const bool committed = old->committed;
  add_type(std::move(t), newtype, MPI_COMBINER_DUP, {{}, {}, {oldtype}});
  me().types.at(*newtype).committed = committed;
  if (int e = copy_type_attributes(oldtype, newtype)) return e;  // type_attrs.cpp
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
  if (*datatype < first_derived_type || r.types.count(*datatype) == 0 || r.freed_types.count(*datatype) != 0 ||
      r.held_types.count(*datatype) != 0)
    return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_free",
                "datatype " + std::to_string(*datatype) + " is predefined or not a datatype");
  // Operations in progress keep using it (MPI): it goes once none does.
  r.freed_types.insert(*datatype);
  r.sweep_freed_types();
  if (int e = delete_type_attributes(*datatype)) return e;  // type_attrs.cpp
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

extern "C" int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                                      int* num_datatypes, int* combiner) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const type_info* t = old_type(datatype, "MPI_Type_get_envelope", &err);
  if (!t) return err;
  *combiner = t->predefined ? MPI_COMBINER_NAMED : t->combiner;
  *num_integers = static_cast<int>(t->contents.ints.size());
  *num_addresses = static_cast<int>(t->contents.aints.size());
  *num_datatypes = static_cast<int>(t->contents.types.size());
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_get_envelope)

// The constituent types come back as predefined handles or as new
// derived ones equal to those of the construction (MPI: the caller frees
// them), whether or not the program freed the originals meanwhile.
extern "C" int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                                      int integers[], MPI_Aint addresses[], MPI_Datatype datatypes[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const char* fn = "MPI_Type_get_contents";
  int err = 0;
  const type_info* t = old_type(datatype, fn, &err);
  if (!t) return err;
  if (t->predefined) return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "a predefined datatype has no contents");
  const type_contents c = t->contents;  // copied: new types below may move the table
  if (max_integers < static_cast<int>(c.ints.size()) || max_addresses < static_cast<int>(c.aints.size()) ||
      max_datatypes < static_cast<int>(c.types.size()))
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                "the arrays are too small (MPI_Type_get_envelope says " + std::to_string(c.ints.size()) + ", " +
                    std::to_string(c.aints.size()) + ", " + std::to_string(c.types.size()) + ")");
  std::copy(c.ints.begin(), c.ints.end(), integers);
  std::copy(c.aints.begin(), c.aints.end(), addresses);
  rank& r = me();
  for (std::size_t i = 0; i < c.types.size(); ++i) {
    const int h = c.types[i];
    if (h < first_derived_type) {
      datatypes[i] = h;
      continue;
    }
    type_info copy = r.types.at(h);  // kept alive while `datatype` refers to it
    const int handle = r.new_type_handle();
    r.types[handle] = std::move(copy);
    datatypes[i] = handle;
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_get_contents)
