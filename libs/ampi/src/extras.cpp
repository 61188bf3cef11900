// Small MPI-3.1 functions: address arithmetic, MPI_Pcontrol, MPI_Rsend_init,
// communicators' info hints and MPI_Comm_idup, MPI_Type_match_size and the
// Fortran 90 parameterized types.
#include <cfloat>

#include "api.hpp"

using namespace roam::ampi;

extern "C" MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  // As unsigned: addresses may be above the signed range's middle.
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(disp));
}
ROAM_AMPI_PMPI(Aint_add)

extern "C" MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) - static_cast<std::uintptr_t>(addr2));
}
ROAM_AMPI_PMPI(Aint_diff)

// Profiling control: for a profiling library that defines MPI_Pcontrol; the
// library itself has nothing to switch.
extern "C" int PMPI_Pcontrol(const int, ...) { return MPI_SUCCESS; }
ROAM_AMPI_PMPI(Pcontrol)

// Sends are eager (the data is copied out when the send starts), so a ready
// send is a standard one: MPI_Rsend_init is MPI_Send_init.
extern "C" int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request) {
  return PMPI_Send_init(buf, count, datatype, dest, tag, comm, request);
}
ROAM_AMPI_PMPI(Rsend_init)

// ---- communicators' info hints ------------------------------------------------------
namespace {

// The entries of `info` (MPI_INFO_NULL: none); false when it is not an info.
bool entries_of(MPI_Info info, std::vector<std::pair<std::string, std::string>>* out) {
  out->clear();
  if (info == MPI_INFO_NULL) return true;
  rank& r = me();
  auto it = r.infos.find(info);
  if (it == r.infos.end()) return false;
  *out = it->second.entries;
  return true;
}

int set_hints(MPI_Comm comm, MPI_Info info, const char* function) {
  std::vector<std::pair<std::string, std::string>> hints;
  if (!entries_of(info, &hints)) return fail(comm, MPI_ERR_INFO, function, "invalid info " + std::to_string(info));
  me().extras.comm_hints[comm] = std::move(hints);
  return MPI_SUCCESS;
}

int check_comm(MPI_Comm comm, const char* function) {
  if (find_comm(me(), comm) == nullptr)
    return fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(comm));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = check_comm(comm, "MPI_Comm_set_info")) return e;
  return set_hints(comm, info, "MPI_Comm_set_info");
}
ROAM_AMPI_PMPI(Comm_set_info)

extern "C" int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = check_comm(comm, "MPI_Comm_get_info")) return e;
  if (int e = PMPI_Info_create(info_used)) return e;
  rank& r = me();
  auto hints = r.extras.comm_hints.find(comm);
  if (hints != r.extras.comm_hints.end()) r.infos.at(*info_used).entries = hints->second;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_get_info)

extern "C" int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  std::vector<std::pair<std::string, std::string>> hints;
  if (!entries_of(info, &hints))
    return fail(comm, MPI_ERR_INFO, "MPI_Comm_dup_with_info", "invalid info " + std::to_string(info));
  if (int e = PMPI_Comm_dup(comm, newcomm)) return e;
  // MPI: the new communicator has the given hints, not the old one's.
  me().extras.comm_hints[*newcomm] = std::move(hints);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_dup_with_info)

// MPI_Comm_dup agrees on the new context without a message, so the
// duplicate is made at once and the request is complete from the start.
extern "C" int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = PMPI_Comm_dup(comm, newcomm)) return e;
  rank& r = me();
  const int h = r.new_request();
  request_record& q = r.req(h);
  q.what = request_record::kind::send;  // completes with an empty status
  q.active = true;
  q.complete = true;
  q.comm = comm;
  *request = h;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_idup)

// ---- sized types ------------------------------------------------------------------------
namespace {

// The predefined types of a type class, preferred first (Fortran's names
// where MPI has them: the type classes are Fortran's kinds).
std::vector<MPI_Datatype> candidates(int typeclass) {
  switch (typeclass) {
    case MPI_TYPECLASS_INTEGER: return {MPI_INTEGER, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T};
    case MPI_TYPECLASS_REAL: return {MPI_REAL, MPI_DOUBLE_PRECISION, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    case MPI_TYPECLASS_COMPLEX:
      return {MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX};
    default: return {};
  }
}

// The first candidate of `typeclass` of `size` bytes (MPI_DATATYPE_NULL: none).
MPI_Datatype sized(int typeclass, int size) {
  for (MPI_Datatype t : candidates(typeclass)) {
    const type_info* info = predefined_type(t);
    if (info != nullptr && info->size == size) return t;
  }
  return MPI_DATATYPE_NULL;
}

// The decimal digits (precision) and decimal exponent range of the real
// types, as Fortran's PRECISION and RANGE give them.
struct real_kind {
  int bytes, precision, range;
};
constexpr real_kind real_kinds[] = {
    {static_cast<int>(sizeof(float)), FLT_DIG, FLT_MAX_10_EXP < -FLT_MIN_10_EXP ? FLT_MAX_10_EXP : -FLT_MIN_10_EXP},
    {static_cast<int>(sizeof(double)), DBL_DIG, DBL_MAX_10_EXP < -DBL_MIN_10_EXP ? DBL_MAX_10_EXP : -DBL_MIN_10_EXP},
    {static_cast<int>(sizeof(long double)), LDBL_DIG,
     LDBL_MAX_10_EXP < -LDBL_MIN_10_EXP ? LDBL_MAX_10_EXP : -LDBL_MIN_10_EXP},
};

// The smallest real of at least `p` digits and range `r` (MPI_UNDEFINED:
// any), in bytes; 0 when none.
int real_bytes(int p, int r) {
  for (const real_kind& k : real_kinds)
    if ((p == MPI_UNDEFINED || p <= k.precision) && (r == MPI_UNDEFINED || r <= k.range)) return k.bytes;
  return 0;
}

int f90_real(int p, int r, int typeclass, int factor, MPI_Datatype* newtype, const char* function) {
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, function, "p and r are both MPI_UNDEFINED");
  const int bytes = real_bytes(p, r);
  const MPI_Datatype t = bytes == 0 ? MPI_DATATYPE_NULL : sized(typeclass, factor * bytes);
  if (t == MPI_DATATYPE_NULL)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, function,
                "no real type has precision " + std::to_string(p) + " and range " + std::to_string(r));
  *newtype = t;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (candidates(typeclass).empty())
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_match_size", "unknown type class " + std::to_string(typeclass));
  const MPI_Datatype t = sized(typeclass, size);
  if (t == MPI_DATATYPE_NULL)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_match_size",
                "no type of class " + std::to_string(typeclass) + " has " + std::to_string(size) + " bytes");
  *datatype = t;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_match_size)

extern "C" int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  // The smallest integer holding every value of r decimal digits, as
  // Fortran's SELECTED_INT_KIND(r).
  const int bytes = r < 0 ? 0 : r <= 2 ? 1 : r <= 4 ? 2 : r <= 9 ? 4 : r <= 18 ? 8 : 0;
  const MPI_Datatype t = bytes == 0 ? MPI_DATATYPE_NULL : sized(MPI_TYPECLASS_INTEGER, bytes);
  if (t == MPI_DATATYPE_NULL)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_create_f90_integer",
                "no integer type has range " + std::to_string(r));
  *newtype = t;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_create_f90_integer)

extern "C" int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return f90_real(p, r, MPI_TYPECLASS_REAL, 1, newtype, "MPI_Type_create_f90_real");
}
ROAM_AMPI_PMPI(Type_create_f90_real)

extern "C" int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return f90_real(p, r, MPI_TYPECLASS_COMPLEX, 2, newtype, "MPI_Type_create_f90_complex");
}
ROAM_AMPI_PMPI(Type_create_f90_complex)
