// Generalized requests (MPI_Grequest_start/_complete): a request the
// program completes itself. Its record is an ordinary request of kind
// `generalized` (so every wait and test sees it complete like any other);
// its callbacks are in rank::extras.grequests. The request functions of
// p2p.cpp hand such a request here: a wait or test that finds it complete
// runs query_fn (which fills the status; its return code is the error) and
// then free_fn; MPI_Request_get_status runs query_fn; MPI_Cancel runs
// cancel_fn; MPI_Request_free runs free_fn now, or at MPI_Grequest_complete
// when the request is still pending (MPI: free_fn never runs before the
// request is complete).
//
// MPI_Grequest_complete must be called by the rank that started the request
// (its own thread, or a thread of its non-blocking collectives): a request
// handle names a slot in the calling rank's table. Another rank asks it with
// a message.
#include "api.hpp"

using namespace roam::ampi;

namespace {

bool is_generalized(rank& r, MPI_Request h) {
  return h > 0 && static_cast<std::size_t>(h) <= r.requests.size() &&
         r.req(h).what == request_record::kind::generalized;
}

// The callbacks, called with the program's extra state. They are the
// program's code and may call MPI (MPI_Status_set_elements...): the rank's
// records are re-read after each.
int run_query(const grequest_record& g, MPI_Status* status) {
  if (g.query_fn == 0) return MPI_SUCCESS;
  return reinterpret_cast<MPI_Grequest_query_function*>(g.query_fn)(reinterpret_cast<void*>(g.extra_state), status);
}
int run_free(const grequest_record& g) {
  if (g.free_fn == 0) return MPI_SUCCESS;
  return reinterpret_cast<MPI_Grequest_free_function*>(g.free_fn)(reinterpret_cast<void*>(g.extra_state));
}

// The status query_fn starts from: what an empty receive would give.
MPI_Status blank_status() {
  MPI_Status s{};
  s.MPI_SOURCE = MPI_ANY_SOURCE;
  s.MPI_TAG = MPI_ANY_TAG;
  s.MPI_ERROR = MPI_SUCCESS;
  s.MPI_COMM = MPI_COMM_NULL;
  s.MPI_LENGTH = 0;
  s.roam_cancelled = 0;
  return s;
}

// Runs query_fn and keeps what it said in the record (fill_status copies it
// from there like a receive's outcome); returns query_fn's code.
int query_into_record(MPI_Request h) {
  const grequest_record g = me().extras.grequests.at(h);
  MPI_Status s = blank_status();
  const int err = run_query(g, &s);
  request_record& q = me().req(h);
  q.status_source = s.MPI_SOURCE;
  q.status_tag = s.MPI_TAG;
  q.bytes = s.MPI_LENGTH;
  q.comm = s.MPI_COMM;
  q.cancelled = s.roam_cancelled != 0;
  q.status_error = err;
  return err;
}

// Drops the request's slot and callbacks, then runs free_fn (once).
int release_and_free(MPI_Request h) {
  rank& r = me();
  const grequest_record g = r.extras.grequests.at(h);
  r.extras.grequests.erase(h);
  r.release_request(h);
  return run_free(g);
}

}  // namespace

namespace roam::ampi {

int finish_generalized(MPI_Request* handle, MPI_Status* status) {
  const int h = *handle;
  const int err = query_into_record(h);
  fill_status(me().req(h), status);
  *handle = MPI_REQUEST_NULL;
  const int freed = release_and_free(h);
  return err != MPI_SUCCESS ? err : freed;
}

int generalized_status(MPI_Request request, int* flag, MPI_Status* status) {
  // A poll that finds it pending lets the PE run (whatever completes it).
  if (!me().req(request).complete) this_thread_yield();
  *flag = me().req(request).complete ? 1 : 0;
  if (!*flag) return MPI_SUCCESS;
  const int err = query_into_record(request);
  fill_status(me().req(request), status);
  return err;
}

int free_generalized(MPI_Request* request) {
  const int h = *request;
  *request = MPI_REQUEST_NULL;
  request_record& q = me().req(h);
  if (!q.complete) {  // free_fn runs at MPI_Grequest_complete
    q.freed = true;
    return MPI_SUCCESS;
  }
  return release_and_free(h);
}

int cancel_generalized(MPI_Request request) {
  const grequest_record g = me().extras.grequests.at(request);
  if (g.cancel_fn == 0) return MPI_SUCCESS;
  const int complete = me().req(request).complete ? 1 : 0;
  return reinterpret_cast<MPI_Grequest_cancel_function*>(g.cancel_fn)(reinterpret_cast<void*>(g.extra_state), complete);
}

}  // namespace roam::ampi

extern "C" int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                                   MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                                   MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (request == nullptr)
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Grequest_start", "the request argument is a null pointer");
  rank& r = me();
  const int h = r.new_request();
  request_record& q = r.req(h);
  q.what = request_record::kind::generalized;
  q.active = true;
  r.extras.grequests[h] = grequest_record{reinterpret_cast<std::uint64_t>(query_fn),
                                          reinterpret_cast<std::uint64_t>(free_fn),
                                          reinterpret_cast<std::uint64_t>(cancel_fn),
                                          reinterpret_cast<std::uint64_t>(extra_state)};
  *request = h;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Grequest_start)

extern "C" int PMPI_Grequest_complete(MPI_Request request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (!is_generalized(r, request))
    return fail(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                "request " + std::to_string(request) + " is not a generalized request of this rank");
  request_record& q = r.req(request);
  if (q.complete)
    return fail(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                "request " + std::to_string(request) + " was completed already");
  q.complete = true;
  if (q.freed) return release_and_free(request);  // MPI_Request_free'd: nobody waits for it
  r.notify();  // the rank's thread may wait for it (completed from a collective's thread)
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Grequest_complete)
