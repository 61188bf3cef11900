// User error handlers and user error classes, codes and strings.
//
// A user handler is a rank's record (rank::extras.errhandlers, handles from
// 3 on: 1 and 2 are MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN) set on a
// communicator as its `errhandler`; a window's handler is its hidden
// communicator's. fail() (runtime.cpp) calls it for an error raised on the
// communicator or window, then returns the code, as under MPI_ERRORS_RETURN.
//
// Added classes and codes are the rank's (MPI_Add_error_class is local: MPI
// does not promise the same value in every process), numbered after
// MPI_ERR_LASTCODE; MPI_Error_class and MPI_Error_string (comms.cpp) ask
// here for them.
#include <cstring>

#include "api.hpp"

using namespace roam::ampi;

namespace {

// The window whose hidden communicator is `comm` (MPI_WIN_NULL: none).
int window_of(rank& r, int comm) {
  for (const auto& [handle, w] : r.windows)
    if (w.comm == comm) return handle;
  return MPI_WIN_NULL;
}

bool in_use(rank& r, int handler) {
  for (const auto& [handle, c] : r.comms)
    if (c.errhandler == handler) return true;
  return false;
}

// Handlers freed while in use go once no communicator (or window) has them.
void sweep_freed(rank& r) {
  for (auto it = r.extras.errhandlers.begin(); it != r.extras.errhandlers.end();) {
    if (it->second.freed && !in_use(r, it->first)) it = r.extras.errhandlers.erase(it);
    else ++it;
  }
}

int create(std::uint64_t fn, int kind, MPI_Errhandler* errhandler, const char* function) {
  if (fn == 0 || errhandler == nullptr)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, function, "the function or the handle argument is a null pointer");
  rank& r = me();
  sweep_freed(r);
  const int h = r.extras.next_errhandler++;
  r.extras.errhandlers[h] = errhandler_record{fn, kind, false};
  *errhandler = h;
  return MPI_SUCCESS;
}

}  // namespace

namespace roam::ampi {

bool user_errhandler(int handler) {
  const rank& r = me();
  auto it = r.extras.errhandlers.find(handler);
  return it != r.extras.errhandlers.end() && !it->second.freed;
}

int call_errhandler(int comm, int handler, int code) {
  rank& r = me();
  auto it = r.extras.errhandlers.find(handler);
  if (it == r.extras.errhandlers.end()) return code;
  const errhandler_record h = it->second;
  int object = comm;
  if (h.kind == errhandler_record::win) {
    const int win = window_of(r, comm);
    if (win != MPI_WIN_NULL) object = win;
  }
  int passed = code;  // the handler may write through its pointers: ours are copies
  if (h.kind == errhandler_record::win) reinterpret_cast<MPI_Win_errhandler_function*>(h.fn)(&object, &passed);
  else reinterpret_cast<MPI_Comm_errhandler_function*>(h.fn)(&object, &passed);
  return code;
}

bool added_error_class(int code, int* error_class) {
  const rank& r = me();
  auto it = r.extras.error_classes.find(code);
  if (it == r.extras.error_classes.end()) return false;
  *error_class = it->second;
  return true;
}

bool added_error_string(int code, std::string* text) {
  const rank& r = me();
  if (r.extras.error_classes.count(code) == 0) return false;
  auto it = r.extras.error_strings.find(code);
  *text = it == r.extras.error_strings.end() ? std::string() : it->second;  // MPI: "" until one is set
  return true;
}

int last_used_error_code() {
  const int last = me().extras.last_error_code;
  return last != 0 ? last : MPI_ERR_LASTCODE;
}

}  // namespace roam::ampi

extern "C" int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return create(reinterpret_cast<std::uint64_t>(function), errhandler_record::comm, errhandler,
                "MPI_Comm_create_errhandler");
}
ROAM_AMPI_PMPI(Comm_create_errhandler)

extern "C" int PMPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return create(reinterpret_cast<std::uint64_t>(function), errhandler_record::comm, errhandler,
                "MPI_Errhandler_create");
}
ROAM_AMPI_PMPI(Errhandler_create)

extern "C" int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* function, MPI_Errhandler* errhandler) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return create(reinterpret_cast<std::uint64_t>(function), errhandler_record::win, errhandler,
                "MPI_Win_create_errhandler");
}
ROAM_AMPI_PMPI(Win_create_errhandler)

extern "C" int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  auto w = me().windows.find(win);
  if (w == me().windows.end())
    return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_call_errhandler", "invalid window " + std::to_string(win));
  // MPI: MPI_SUCCESS once the handler returned (MPI_ERRORS_RETURN's too).
  fail(w->second.comm, errorcode, "MPI_Win_call_errhandler", "called by the program");
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_call_errhandler)

extern "C" int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (errhandler == nullptr)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_free", "the handle argument is a null pointer");
  rank& r = me();
  const int h = *errhandler;
  if (h != MPI_ERRORS_ARE_FATAL && h != MPI_ERRORS_RETURN) {
    auto it = r.extras.errhandlers.find(h);
    if (it == r.extras.errhandlers.end() || it->second.freed)
      return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_free", "invalid error handler " + std::to_string(h));
    // A communicator or window that still has it keeps calling it (MPI):
    // the record goes when none has it any more.
    if (in_use(r, h)) it->second.freed = true;
    else r.extras.errhandlers.erase(it);
  }
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Errhandler_free)

// ---- user error classes, codes and strings ----------------------------------------

extern "C" int PMPI_Add_error_class(int* errorclass) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  const int c = last_used_error_code() + 1;
  r.extras.last_error_code = c;
  r.extras.error_classes[c] = c;
  *errorclass = c;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Add_error_class)

extern "C" int PMPI_Add_error_code(int errorclass, int* errorcode) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  const bool predefined = errorclass >= MPI_SUCCESS && errorclass <= MPI_ERR_LASTCODE;
  auto added = r.extras.error_classes.find(errorclass);
  const bool user_class = added != r.extras.error_classes.end() && added->second == errorclass;
  if (!predefined && !user_class)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_code", "error class " + std::to_string(errorclass) + " does not exist");
  const int c = last_used_error_code() + 1;
  r.extras.last_error_code = c;
  r.extras.error_classes[c] = errorclass;
  *errorcode = c;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Add_error_code)

extern "C" int PMPI_Add_error_string(int errorcode, const char* string) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (r.extras.error_classes.count(errorcode) == 0)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_string",
                "error code " + std::to_string(errorcode) + " was not added by MPI_Add_error_class or MPI_Add_error_code");
  if (string == nullptr || std::strlen(string) >= MPI_MAX_ERROR_STRING)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_string",
                "the string is null or not shorter than MPI_MAX_ERROR_STRING");
  r.extras.error_strings[errorcode] = string;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Add_error_string)
