// Datatype attributes (MPI_Type_create_keyval, MPI_Type_set/get/delete_attr).
// Keyvals are the rank's one table (communicators' and windows' too: a
// keyval record keeps its callbacks as words, called with the right type
// here). Values are in rank::extras.type_attributes by type handle, outside
// type_info (they are not part of the layout); MPI_Type_dup calls
// copy_type_attributes and MPI_Type_free delete_type_attributes
// (types_api.cpp).
#include "api.hpp"

using namespace roam::ampi;

namespace {

int type_delete_callback(int type, int keyval, std::uint64_t value) {
  rank& r = me();
  auto k = r.keyvals.find(keyval);
  if (k == r.keyvals.end() || k->second.delete_fn == 0) return MPI_SUCCESS;
  auto* fn = reinterpret_cast<MPI_Type_delete_attr_function*>(k->second.delete_fn);
  return fn(type, keyval, reinterpret_cast<void*>(value), reinterpret_cast<void*>(k->second.extra_state));
}

// The copy callback's answer for one attribute: false when it is not copied.
int type_copy_callback(int type, int keyval, std::uint64_t value, std::uint64_t* out, bool* copied) {
  rank& r = me();
  *copied = false;
  auto k = r.keyvals.find(keyval);
  if (k == r.keyvals.end() || k->second.copy_fn == 0) return MPI_SUCCESS;  // MPI_TYPE_NULL_COPY_FN
  if (k->second.copy_fn == 1) {                                            // MPI_TYPE_DUP_FN
    *out = value;
    *copied = true;
    return MPI_SUCCESS;
  }
  auto* fn = reinterpret_cast<MPI_Type_copy_attr_function*>(k->second.copy_fn);
  void* made = nullptr;
  int flag = 0;
  const int e = fn(type, keyval, reinterpret_cast<void*>(k->second.extra_state), reinterpret_cast<void*>(value), &made,
                   &flag);
  *out = reinterpret_cast<std::uint64_t>(made);
  *copied = e == MPI_SUCCESS && flag != 0;
  return e;
}

bool valid_type(MPI_Datatype t) { return t != MPI_DATATYPE_NULL && find_type(me(), t) != nullptr; }

}  // namespace

namespace roam::ampi {

int copy_type_attributes(int oldtype, int* newtype) {
  auto from = me().extras.type_attributes.find(oldtype);
  if (from == me().extras.type_attributes.end()) return MPI_SUCCESS;
  const std::map<int, std::uint64_t> attributes = from->second;  // callbacks may change the table
  for (const auto& [keyval, value] : attributes) {
    std::uint64_t out = 0;
    bool copied = false;
    if (int e = type_copy_callback(oldtype, keyval, value, &out, &copied)) {
      // MPI: no new type when a copy fails (its copies so far are dropped
      // without their delete callbacks, as for MPI_Comm_dup).
      me().extras.type_attributes.erase(*newtype);
      PMPI_Type_free(newtype);
      *newtype = MPI_DATATYPE_NULL;
      return e;
    }
    if (copied) me().extras.type_attributes[*newtype][keyval] = out;
  }
  return MPI_SUCCESS;
}

int delete_type_attributes(int type) {
  auto it = me().extras.type_attributes.find(type);
  if (it == me().extras.type_attributes.end()) return MPI_SUCCESS;
  const std::map<int, std::uint64_t> attributes = it->second;
  for (const auto& [keyval, value] : attributes) {
    if (int e = type_delete_callback(type, keyval, value)) return e;
    me().extras.type_attributes[type].erase(keyval);
  }
  me().extras.type_attributes.erase(type);
  return MPI_SUCCESS;
}

}  // namespace roam::ampi

extern "C" int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn, MPI_Type_delete_attr_function* delete_fn,
                                       int* keyval, void* extra_state) {
  // The rank's one keyval table (MPI_TYPE_NULL_COPY_FN and MPI_TYPE_DUP_FN
  // are 0 and 1, as the communicator ones).
  return PMPI_Comm_create_keyval(reinterpret_cast<MPI_Comm_copy_attr_function*>(copy_fn),
                                 reinterpret_cast<MPI_Comm_delete_attr_function*>(delete_fn), keyval, extra_state);
}
ROAM_AMPI_PMPI(Type_create_keyval)

extern "C" int PMPI_Type_free_keyval(int* keyval) { return PMPI_Comm_free_keyval(keyval); }
ROAM_AMPI_PMPI(Type_free_keyval)

extern "C" int PMPI_Type_set_attr(MPI_Datatype datatype, int keyval, void* attribute_val) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (!valid_type(datatype))
    return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_set_attr", "invalid datatype " + std::to_string(datatype));
  if (me().keyvals.count(keyval) == 0)
    return fail(MPI_COMM_WORLD, MPI_ERR_KEYVAL, "MPI_Type_set_attr", "invalid keyval " + std::to_string(keyval));
  auto& values = me().extras.type_attributes[datatype];
  auto old = values.find(keyval);
  if (old != values.end())  // MPI: the old value's delete callback runs first
    if (int e = type_delete_callback(datatype, keyval, old->second)) return e;
  me().extras.type_attributes[datatype][keyval] = reinterpret_cast<std::uint64_t>(attribute_val);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_set_attr)

extern "C" int PMPI_Type_get_attr(MPI_Datatype datatype, int keyval, void* attribute_val, int* flag) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (!valid_type(datatype))
    return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_get_attr", "invalid datatype " + std::to_string(datatype));
  rank& r = me();
  if (r.keyvals.count(keyval) == 0)
    return fail(MPI_COMM_WORLD, MPI_ERR_KEYVAL, "MPI_Type_get_attr", "invalid keyval " + std::to_string(keyval));
  *flag = 0;
  auto t = r.extras.type_attributes.find(datatype);
  if (t == r.extras.type_attributes.end()) return MPI_SUCCESS;
  auto it = t->second.find(keyval);
  if (it == t->second.end()) return MPI_SUCCESS;
  *flag = 1;
  *static_cast<void**>(attribute_val) = reinterpret_cast<void*>(it->second);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_get_attr)

extern "C" int PMPI_Type_delete_attr(MPI_Datatype datatype, int keyval) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (!valid_type(datatype))
    return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_delete_attr", "invalid datatype " + std::to_string(datatype));
  auto t = me().extras.type_attributes.find(datatype);
  if (t == me().extras.type_attributes.end() || t->second.count(keyval) == 0)
    return fail(MPI_COMM_WORLD, MPI_ERR_KEYVAL, "MPI_Type_delete_attr",
                "datatype " + std::to_string(datatype) + " has no attribute for keyval " + std::to_string(keyval));
  const std::uint64_t value = t->second.at(keyval);
  if (int e = type_delete_callback(datatype, keyval, value)) return e;  // MPI: kept when the callback fails
  auto& values = me().extras.type_attributes[datatype];
  values.erase(keyval);
  if (values.empty()) me().extras.type_attributes.erase(datatype);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Type_delete_attr)
