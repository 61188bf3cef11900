/* ampi_extras: MPI-3.1's smaller corners (plain C, standard MPI; a last part,
 * under ROAM_AMPI, moves each rank with that state live) checked exactly:
 *   generalized requests (completed before and during a wait; in Waitall,
 *   Waitany, Waitsome, Testall, Testany, Testsome with ordinary requests;
 *   query, free and cancel callbacks counted), user error handlers on a
 *   communicator and a window, added error classes, codes and strings,
 *   MPI_Aint_add/_diff, MPI_Pcontrol, MPI_Rsend_init, communicators' info
 *   hints, MPI_Comm_idup, datatype attributes, MPI_Type_match_size and the
 *   f90 types, and the dynamic-process functions' errors.
 *   ampi_extras [+vp N +p P ...]
 * Rank 0 prints "ampi_extras: OK (N ranks)" when every check of every rank
 * passed; the program returns nonzero otherwise. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_PROGRAM "ampi_extras"
#include "check.h"

/* State that callbacks without an extra_state argument (error handlers,
 * reduction functions) reach: one slot per world rank, since the ranks of a
 * process share the program's globals. Each rank writes only its own slot,
 * and reads it back before it can move. */
enum { MAX_RANKS = 64 };
static int handler_calls[MAX_RANKS], handler_code[MAX_RANKS], handler_object[MAX_RANKS];
static MPI_Request op_completes[MAX_RANKS];  /* a grequest the next reduction call completes */
static int op_blocked[MAX_RANKS], op_completed_during_wait[MAX_RANKS];

static int world_rank(void) {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/* ---- generalized requests ------------------------------------------------ */
struct greq {
  int query_calls, free_calls, cancel_calls, last_cancel_complete;
  int source, tag, elements, cancelled, query_rc;
};

static int greq_query(void* extra, MPI_Status* status) {
  struct greq* g = extra;
  g->query_calls++;
  status->MPI_SOURCE = g->source;
  status->MPI_TAG = g->tag;
  MPI_Status_set_elements(status, MPI_INT, g->elements);
  MPI_Status_set_cancelled(status, g->cancelled);
  return g->query_rc;
}
static int greq_free(void* extra) {
  ((struct greq*)extra)->free_calls++;
  return MPI_SUCCESS;
}
static int greq_cancel(void* extra, int complete) {
  struct greq* g = extra;
  g->cancel_calls++;
  g->last_cancel_complete = complete;
  if (!complete) g->cancelled = 1; /* the operation it stands for is called off */
  return MPI_SUCCESS;
}

static void greq_init(struct greq* g, int source, int tag, int elements) {
  memset(g, 0, sizeof *g);
  g->source = source;
  g->tag = tag;
  g->elements = elements;
}
static MPI_Request greq_start(struct greq* g) {
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &r);
  return r;
}

/* A reduction that also completes the calling rank's pending grequest: it
 * runs inside a non-blocking collective, while the rank's own thread may be
 * blocked waiting for that grequest. */
static void completing_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
  const int r = world_rank();
  if (op_completes[r] != MPI_REQUEST_NULL) {
    op_completed_during_wait[r] = op_blocked[r];
    MPI_Grequest_complete(op_completes[r]);
    op_completes[r] = MPI_REQUEST_NULL;
  }
}

static void check_greq_basic(struct ctx* c) {
  struct greq g;
  MPI_Status st;
  int flag = -1, count = -1;
  /* completed before the wait */
  greq_init(&g, 5, 6, 7);
  MPI_Request r = greq_start(&g);
  CHECK(r != MPI_REQUEST_NULL, "no request");
  CHECK(MPI_Grequest_complete(r) == MPI_SUCCESS, "complete");
  CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS, "wait");
  CHECK(r == MPI_REQUEST_NULL, "request %d after the wait", r);
  CHECK(g.query_calls == 1 && g.free_calls == 1 && g.cancel_calls == 0, "calls %d/%d/%d", g.query_calls,
        g.free_calls, g.cancel_calls);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == 5 && st.MPI_TAG == 6 && count == 7, "status %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG, count);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 0, "cancelled %d", flag);

  /* polled while pending, then complete */
  greq_init(&g, 1, 2, 3);
  r = greq_start(&g);
  MPI_Test(&r, &flag, &st);
  CHECK(flag == 0 && r != MPI_REQUEST_NULL && g.query_calls == 0, "test of a pending grequest: flag %d", flag);
  MPI_Request_get_status(r, &flag, &st);
  CHECK(flag == 0 && g.query_calls == 0, "get_status of a pending grequest: flag %d", flag);
  MPI_Grequest_complete(r);
  MPI_Request_get_status(r, &flag, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(flag == 1 && g.query_calls == 1 && g.free_calls == 0 && st.MPI_TAG == 2 && count == 3,
        "get_status of a complete grequest: flag %d, %d queries, %d frees, tag %d, count %d", flag, g.query_calls,
        g.free_calls, st.MPI_TAG, count);
  MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  CHECK(flag == 1 && r == MPI_REQUEST_NULL && g.query_calls == 2 && g.free_calls == 1, "test: %d, %d queries, %d frees",
        flag, g.query_calls, g.free_calls);

  /* cancelled while pending (the query says so), and after completion */
  greq_init(&g, 0, 0, 0);
  r = greq_start(&g);
  CHECK(MPI_Cancel(&r) == MPI_SUCCESS, "cancel");
  CHECK(g.cancel_calls == 1 && g.last_cancel_complete == 0 && r != MPI_REQUEST_NULL, "cancel: %d calls, complete %d",
        g.cancel_calls, g.last_cancel_complete);
  MPI_Grequest_complete(r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 1 && g.free_calls == 1, "cancelled %d, %d frees", flag, g.free_calls);
  greq_init(&g, 0, 0, 0);
  r = greq_start(&g);
  MPI_Grequest_complete(r);
  MPI_Cancel(&r);
  CHECK(g.cancel_calls == 1 && g.last_cancel_complete == 1, "cancel after completion: %d calls, complete %d",
        g.cancel_calls, g.last_cancel_complete);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 0 && g.free_calls == 1 && g.query_calls == 1, "cancelled %d", flag);

  /* freed while pending: free_fn runs at completion, never the query */
  greq_init(&g, 0, 0, 0);
  r = greq_start(&g);
  MPI_Request copy = r;
  MPI_Request_free(&r);
  CHECK(r == MPI_REQUEST_NULL && g.free_calls == 0, "free of a pending grequest: %d frees", g.free_calls);
  MPI_Grequest_complete(copy);
  CHECK(g.free_calls == 1 && g.query_calls == 0, "completion of a freed grequest: %d frees, %d queries",
        g.free_calls, g.query_calls);
  /* freed once complete: free_fn at once */
  greq_init(&g, 0, 0, 0);
  r = greq_start(&g);
  MPI_Grequest_complete(r);
  MPI_Request_free(&r);
  CHECK(g.free_calls == 1 && g.query_calls == 0, "free of a complete grequest: %d frees", g.free_calls);

  /* the query's error is the wait's */
  greq_init(&g, 0, 0, 0);
  g.query_rc = MPI_ERR_OTHER;
  r = greq_start(&g);
  MPI_Grequest_complete(r);
  int e = MPI_Wait(&r, &st);
  CHECK(e == MPI_ERR_OTHER && r == MPI_REQUEST_NULL && g.free_calls == 1, "wait returned %d", e);
}

/* Grequests beside ordinary requests in the multiple-completion calls. */
static void check_greq_mixed(struct ctx* c) {
  const int right = (me + 1) % np, left = (me - 1 + np) % np;
  struct greq g[8];
  MPI_Request reqs[4];
  MPI_Status sts[4];
  int in = -1, out = me * 10, index = -1, outcount = -1, flag = -1, indices[4];

  /* Waitall: a receive, a completed grequest, a send */
  greq_init(&g[0], 40 + me, 41, 2);
  reqs[1] = greq_start(&g[0]);
  MPI_Grequest_complete(reqs[1]);
  MPI_Irecv(&in, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &reqs[0]);
  MPI_Isend(&out, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &reqs[2]);
  CHECK(MPI_Waitall(3, reqs, sts) == MPI_SUCCESS, "waitall");
  CHECK(in == left * 10 && sts[0].MPI_SOURCE == left, "received %d from %d", in, sts[0].MPI_SOURCE);
  CHECK(sts[1].MPI_SOURCE == 40 + me && sts[1].MPI_TAG == 41 && g[0].query_calls == 1 && g[0].free_calls == 1,
        "grequest status %d/%d", sts[1].MPI_SOURCE, sts[1].MPI_TAG);
  CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL && reqs[2] == MPI_REQUEST_NULL, "handles left");

  /* Waitall with a failing query: MPI_ERR_IN_STATUS, the error in its status */
  greq_init(&g[1], 0, 0, 0);
  g[1].query_rc = MPI_ERR_OTHER;
  reqs[0] = greq_start(&g[1]);
  greq_init(&g[2], 0, 0, 0);
  reqs[1] = greq_start(&g[2]);
  MPI_Grequest_complete(reqs[0]);
  MPI_Grequest_complete(reqs[1]);
  int e = MPI_Waitall(2, reqs, sts);
  CHECK(e == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPI_ERR_OTHER && sts[1].MPI_ERROR == MPI_SUCCESS,
        "waitall %d, errors %d/%d", e, sts[0].MPI_ERROR, sts[1].MPI_ERROR);

  /* Waitany: the grequest is pending, the receive completes */
  greq_init(&g[3], 0, 3, 0);
  reqs[0] = greq_start(&g[3]);
  MPI_Irecv(&in, 1, MPI_INT, left, 12, MPI_COMM_WORLD, &reqs[1]);
  MPI_Send(&out, 1, MPI_INT, right, 12, MPI_COMM_WORLD);
  MPI_Waitany(2, reqs, &index, &sts[0]);
  CHECK(index == 1 && reqs[1] == MPI_REQUEST_NULL && g[3].query_calls == 0, "waitany index %d", index);
  MPI_Grequest_complete(reqs[0]);
  MPI_Waitany(2, reqs, &index, &sts[0]);
  CHECK(index == 0 && sts[0].MPI_TAG == 3 && g[3].free_calls == 1, "waitany index %d tag %d", index, sts[0].MPI_TAG);
  MPI_Waitany(2, reqs, &index, &sts[0]);
  CHECK(index == MPI_UNDEFINED, "waitany over nothing: %d", index);

  /* Testsome: a complete grequest, a pending one, a send */
  greq_init(&g[4], 0, 4, 0);
  greq_init(&g[5], 0, 5, 0);
  reqs[0] = greq_start(&g[4]);
  reqs[1] = greq_start(&g[5]);
  MPI_Grequest_complete(reqs[0]);
  MPI_Irecv(&in, 1, MPI_INT, left, 13, MPI_COMM_WORLD, &reqs[3]);
  MPI_Isend(&out, 1, MPI_INT, right, 13, MPI_COMM_WORLD, &reqs[2]);
  MPI_Wait(&reqs[3], MPI_STATUS_IGNORE);
  MPI_Testsome(3, reqs, &outcount, indices, sts);
  CHECK(outcount == 2 && indices[0] == 0 && indices[1] == 2 && sts[0].MPI_TAG == 4, "testsome: %d (%d, %d)", outcount,
        indices[0], indices[1]);
  CHECK(g[4].free_calls == 1 && g[5].query_calls == 0 && reqs[1] != MPI_REQUEST_NULL, "testsome left the pending one");
  MPI_Testsome(3, reqs, &outcount, indices, sts);
  CHECK(outcount == 0, "testsome of a pending grequest: %d", outcount);
  MPI_Grequest_complete(reqs[1]);
  MPI_Testsome(3, reqs, &outcount, indices, sts);
  CHECK(outcount == 1 && indices[0] == 1 && sts[0].MPI_TAG == 5 && g[5].free_calls == 1, "testsome: %d", outcount);
  MPI_Testsome(3, reqs, &outcount, indices, sts);
  CHECK(outcount == MPI_UNDEFINED, "testsome over nothing: %d", outcount);

  /* Testany, Testall, Waitsome */
  greq_init(&g[6], 0, 6, 0);
  reqs[0] = MPI_REQUEST_NULL;
  reqs[1] = greq_start(&g[6]);
  MPI_Testany(2, reqs, &index, &flag, &sts[0]);
  CHECK(flag == 0 && index == MPI_UNDEFINED, "testany of a pending grequest: %d/%d", flag, index);
  MPI_Grequest_complete(reqs[1]);
  MPI_Testany(2, reqs, &index, &flag, &sts[0]);
  CHECK(flag == 1 && index == 1 && sts[0].MPI_TAG == 6 && g[6].free_calls == 1, "testany: %d/%d", flag, index);
  greq_init(&g[7], 0, 7, 0);
  greq_init(&g[0], 0, 8, 0);
  reqs[0] = greq_start(&g[7]);
  reqs[1] = greq_start(&g[0]);
  MPI_Grequest_complete(reqs[0]);
  MPI_Testall(2, reqs, &flag, sts);
  CHECK(flag == 0 && g[7].free_calls == 0 && g[7].query_calls == 0 && reqs[0] != MPI_REQUEST_NULL,
        "testall with one pending: flag %d, %d frees", flag, g[7].free_calls);
  MPI_Waitsome(2, reqs, &outcount, indices, sts);
  CHECK(outcount == 1 && indices[0] == 0 && sts[0].MPI_TAG == 7 && g[7].free_calls == 1, "waitsome: %d", outcount);
  MPI_Grequest_complete(reqs[1]);
  MPI_Testall(2, reqs, &flag, sts);
  CHECK(flag == 1 && sts[1].MPI_TAG == 8 && g[0].free_calls == 1 && reqs[1] == MPI_REQUEST_NULL, "testall: %d", flag);
}

/* A grequest completed while its rank waits for it: by the reduction
 * function of the rank's own MPI_Ireduce. Rank 0 (the root, which combines)
 * waits for the grequest first; the others let their part go first, the
 * root's "go" holding them back until it is waiting. */
static void check_greq_during_wait(struct ctx* c) {
  if (np < 2 || np > MAX_RANKS) return;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Op op;
  MPI_Op_create(completing_sum, 1, &op);
  struct greq g;
  greq_init(&g, 0, 9, 1);
  MPI_Request greq = greq_start(&g), coll = MPI_REQUEST_NULL;
  op_completes[me] = greq;
  op_completed_during_wait[me] = 0;
  int mine = me + 1, sum = 0, go = 1;
  if (me == 0) {
    for (int r = 1; r < np; ++r) MPI_Send(&go, 1, MPI_INT, r, 30, comm);
    MPI_Ireduce(&mine, &sum, 1, MPI_INT, op, 0, comm, &coll);
    op_blocked[me] = 1;
    MPI_Status st;
    MPI_Wait(&greq, &st);
    op_blocked[me] = 0;
    CHECK(st.MPI_TAG == 9 && g.query_calls == 1 && g.free_calls == 1, "grequest completed during the wait: tag %d",
          st.MPI_TAG);
    MPI_Wait(&coll, MPI_STATUS_IGNORE);
    CHECK(sum == np * (np + 1) / 2, "reduced %d", sum);
    CHECK(op_completes[me] == MPI_REQUEST_NULL, "the reduction did not complete the grequest");
#ifdef ROAM_AMPI
    /* on one PE the order is certain: the function ran while rank 0 waited */
    if (AMPI_Num_pes() == 1) CHECK(op_completed_during_wait[me] == 1, "completed before the wait");
#endif
  } else {
    MPI_Recv(&go, 1, MPI_INT, 0, 30, comm, MPI_STATUS_IGNORE);
    MPI_Ireduce(&mine, &sum, 1, MPI_INT, op, 0, comm, &coll);
    MPI_Wait(&coll, MPI_STATUS_IGNORE);
    if (op_completes[me] != MPI_REQUEST_NULL) { /* this rank's part combined nothing */
      MPI_Grequest_complete(op_completes[me]);
      op_completes[me] = MPI_REQUEST_NULL;
    }
    MPI_Wait(&greq, MPI_STATUS_IGNORE);
    CHECK(g.query_calls == 1 && g.free_calls == 1, "calls %d/%d", g.query_calls, g.free_calls);
  }
  MPI_Op_free(&op);
  MPI_Comm_free(&comm);
}

/* ---- error handlers and codes ---------------------------------------------- */
static void note_error(int object, int code) {
  const int r = world_rank();
  handler_calls[r]++;
  handler_code[r] = code;
  handler_object[r] = object;
}
static void comm_handler(MPI_Comm* comm, int* code, ...) { note_error(*comm, *code); }
static void win_handler(MPI_Win* win, int* code, ...) { note_error(*win, *code); }

static void check_comm_errhandler(struct ctx* c) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Comm_create_errhandler(comm_handler, &eh) == MPI_SUCCESS && eh != MPI_ERRHANDLER_NULL, "create");
  MPI_Comm dc;
  MPI_Comm_dup(MPI_COMM_WORLD, &dc);
  MPI_Comm_set_errhandler(dc, eh);
  MPI_Comm_get_errhandler(dc, &got);
  CHECK(got == eh, "got handler %d, set %d", got, eh);
  const int before = handler_calls[me];
  int v = 0;
  int e = MPI_Send(&v, 1, MPI_INT, np + 5, 0, dc);
  CHECK(e == MPI_ERR_RANK, "send to a bad rank returned %d", e);
  CHECK(handler_calls[me] == before + 1 && handler_code[me] == MPI_ERR_RANK && handler_object[me] == dc,
        "handler calls %d, code %d, comm %d (dc %d)", handler_calls[me] - before, handler_code[me], handler_object[me],
        dc);
  e = MPI_Comm_call_errhandler(dc, MPI_ERR_OTHER);
  CHECK(e == MPI_SUCCESS && handler_calls[me] == before + 2 && handler_code[me] == MPI_ERR_OTHER,
        "call_errhandler: %d, code %d", e, handler_code[me]);
  /* freed: the communicator keeps it */
  CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL, "free");
  MPI_Comm_call_errhandler(dc, MPI_ERR_TAG);
  CHECK(handler_calls[me] == before + 3 && handler_code[me] == MPI_ERR_TAG, "after free: code %d", handler_code[me]);
  /* a duplicate inherits it */
  MPI_Comm dd;
  MPI_Comm_dup(dc, &dd);
  MPI_Comm_call_errhandler(dd, MPI_ERR_COUNT);
  CHECK(handler_calls[me] == before + 4 && handler_object[me] == dd, "duplicate's handler: object %d",
        handler_object[me]);
  MPI_Comm_free(&dd);
  MPI_Comm_free(&dc);
  /* MPI-1's name */
  MPI_Errhandler old = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Errhandler_create(comm_handler, &old) == MPI_SUCCESS, "errhandler_create");
  MPI_Comm_dup(MPI_COMM_WORLD, &dc);
  MPI_Comm_set_errhandler(dc, old);
  MPI_Comm_call_errhandler(dc, MPI_ERR_ROOT);
  CHECK(handler_calls[me] == before + 5 && handler_code[me] == MPI_ERR_ROOT, "MPI-1 handler: code %d",
        handler_code[me]);
  MPI_Comm_set_errhandler(dc, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&old);
  e = MPI_Comm_call_errhandler(dc, MPI_ERR_ROOT);
  CHECK(e == MPI_SUCCESS && handler_calls[me] == before + 5, "MPI_ERRORS_RETURN again: %d", e);
  MPI_Comm_free(&dc);
}

static void check_win_errhandler(struct ctx* c) {
  int mem[4] = {0, 0, 0, 0};
  MPI_Win win;
  MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Win_create_errhandler(win_handler, &eh) == MPI_SUCCESS, "win_create_errhandler");
  MPI_Win_set_errhandler(win, eh);
  MPI_Win_get_errhandler(win, &got);
  CHECK(got == eh, "window handler %d, set %d", got, eh);
  const int before = handler_calls[me];
  int e = MPI_Win_call_errhandler(win, MPI_ERR_WIN);
  CHECK(e == MPI_SUCCESS && handler_calls[me] == before + 1 && handler_code[me] == MPI_ERR_WIN &&
            handler_object[me] == win,
        "win_call_errhandler %d: code %d, object %d (win %d)", e, handler_code[me], handler_object[me], win);
  MPI_Win_fence(0, win);
  int v = 1;
  e = MPI_Put(&v, 1, MPI_INT, np + 3, 0, 1, MPI_INT, win);
  CHECK(e == MPI_ERR_RANK && handler_calls[me] == before + 2 && handler_code[me] == MPI_ERR_RANK &&
            handler_object[me] == win,
        "put to a bad rank: %d, code %d, object %d", e, handler_code[me], handler_object[me]);
  MPI_Win_fence(0, win);
  MPI_Errhandler_free(&eh);
  MPI_Win_free(&win);
}

static void check_error_codes(struct ctx* c) {
  int cls = -1, code1 = -1, code2 = -1, got = -1, len = -1;
  char text[MPI_MAX_ERROR_STRING];
  CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS && cls > MPI_ERR_LASTCODE, "class %d", cls);
  CHECK(MPI_Add_error_code(cls, &code1) == MPI_SUCCESS && code1 > cls, "code %d", code1);
  CHECK(MPI_Add_error_code(MPI_ERR_ARG, &code2) == MPI_SUCCESS && code2 > code1, "code %d", code2);
  MPI_Add_error_string(cls, "roam extras: a class of its own");
  MPI_Add_error_string(code1, "roam extras: code one");
  MPI_Error_class(code1, &got);
  CHECK(got == cls, "class of code1 %d", got);
  MPI_Error_class(cls, &got);
  CHECK(got == cls, "class of the class %d", got);
  MPI_Error_class(code2, &got);
  CHECK(got == MPI_ERR_ARG, "class of code2 %d", got);
  MPI_Error_string(code1, text, &len);
  CHECK(strcmp(text, "roam extras: code one") == 0 && len == (int)strlen(text), "string '%s' (%d)", text, len);
  MPI_Error_string(cls, text, &len);
  CHECK(strcmp(text, "roam extras: a class of its own") == 0, "string '%s'", text);
  MPI_Error_string(code2, text, &len);
  CHECK(len == 0 && text[0] == '\0', "no string set: '%s'", text);
  MPI_Add_error_string(code1, "roam extras: code one, again");
  MPI_Error_string(code1, text, &len);
  CHECK(strcmp(text, "roam extras: code one, again") == 0, "replaced string '%s'", text);
  int* last = NULL;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
  CHECK(flag == 1 && last != NULL && *last == code2, "MPI_LASTUSEDCODE %d, last added %d", last ? *last : -1, code2);
  /* a user handler gets the user's code */
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(comm_handler, &eh);
  MPI_Comm dc;
  MPI_Comm_dup(MPI_COMM_WORLD, &dc);
  MPI_Comm_set_errhandler(dc, eh);
  MPI_Comm_call_errhandler(dc, code1);
  CHECK(handler_code[me] == code1 && handler_object[me] == dc, "handler got code %d", handler_code[me]);
  MPI_Comm_free(&dc);
  MPI_Errhandler_free(&eh);
  /* errors */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Add_error_string(MPI_ERR_ARG, "no") == MPI_ERR_ARG, "a predefined code's string was set");
  CHECK(MPI_Add_error_code(code1, &got) == MPI_ERR_ARG, "a code made a class");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- small ones -------------------------------------------------------------- */
static void check_small(struct ctx* c) {
  int a[8];
  MPI_Aint base, third;
  MPI_Get_address(&a[0], &base);
  MPI_Get_address(&a[3], &third);
  CHECK(MPI_Aint_diff(third, base) == (MPI_Aint)(3 * sizeof(int)), "aint_diff %ld", (long)MPI_Aint_diff(third, base));
  CHECK(MPI_Aint_add(base, (MPI_Aint)(3 * sizeof(int))) == third, "aint_add");
  CHECK(MPI_Pcontrol(0) == MPI_SUCCESS && MPI_Pcontrol(2, "trace", 3) == MPI_SUCCESS, "pcontrol");

  /* ready sends in a persistent loop: the receive is started before the send */
  const int right = (me + 1) % np, left = (me - 1 + np) % np;
  int out = -1, in = -1;
  MPI_Request reqs[2];
  MPI_Recv_init(&in, 1, MPI_INT, left, 21, MPI_COMM_WORLD, &reqs[0]);
  CHECK(MPI_Rsend_init(&out, 1, MPI_INT, right, 21, MPI_COMM_WORLD, &reqs[1]) == MPI_SUCCESS, "rsend_init");
  int good = 0;
  for (int i = 0; i < 10; ++i) {
    MPI_Start(&reqs[0]);
    MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted */
    out = me * 100 + i;
    MPI_Start(&reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    good += in == left * 100 + i;
  }
  CHECK(good == 10 && reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL, "%d of 10 ready sends right", good);
  MPI_Request_free(&reqs[0]);
  MPI_Request_free(&reqs[1]);

  /* info hints */
  MPI_Info info, used;
  char value[MPI_MAX_INFO_VAL];
  int flag = 0, nkeys = -1;
  MPI_Info_create(&info);
  MPI_Info_set(info, "roam_hint", "yes");
  MPI_Comm dc;
  CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dc) == MPI_SUCCESS, "dup_with_info");
  MPI_Info_free(&info);
  MPI_Comm_get_info(dc, &used);
  MPI_Info_get_nkeys(used, &nkeys);
  MPI_Info_get(used, "roam_hint", MPI_MAX_INFO_VAL - 1, value, &flag);
  CHECK(nkeys == 1 && flag == 1 && strcmp(value, "yes") == 0, "hints: %d keys, roam_hint %d '%s'", nkeys, flag,
        flag ? value : "");
  MPI_Info_free(&used);
  MPI_Info_create(&info);
  MPI_Info_set(info, "a", "1");
  MPI_Info_set(info, "b", "2");
  MPI_Comm_set_info(dc, info);
  MPI_Info_free(&info);
  MPI_Comm_get_info(dc, &used);
  MPI_Info_get_nkeys(used, &nkeys);
  MPI_Info_get(used, "b", MPI_MAX_INFO_VAL - 1, value, &flag);
  CHECK(nkeys == 2 && flag == 1 && strcmp(value, "2") == 0, "set_info: %d keys", nkeys);
  MPI_Info_free(&used);
  MPI_Comm_get_info(MPI_COMM_WORLD, &used);
  MPI_Info_get_nkeys(used, &nkeys);
  CHECK(nkeys == 0, "world's hints: %d", nkeys);
  MPI_Info_free(&used);
  MPI_Comm_free(&dc);

  /* MPI_Comm_idup: a request the wait completes, then a working communicator */
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Comm ic = MPI_COMM_NULL;
  CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &ic, &r) == MPI_SUCCESS && r != MPI_REQUEST_NULL, "idup");
  CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && r == MPI_REQUEST_NULL, "idup's wait");
  int result = -1, sum = 0, one = me + 1;
  MPI_Comm_compare(ic, MPI_COMM_WORLD, &result);
  CHECK(result == MPI_CONGRUENT, "idup compare %d", result);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ic);
  CHECK(sum == np * (np + 1) / 2, "allreduce on the idup %d", sum);
  MPI_Comm_free(&ic);
}

/* ---- datatype attributes ------------------------------------------------------ */
struct attr_counts {
  int copies, deletes, fail_copy;
};
static int count_copy(MPI_Datatype t, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)t, (void)keyval;
  struct attr_counts* n = extra;
  n->copies++;
  if (n->fail_copy) return MPI_ERR_OTHER;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}
static int count_delete(MPI_Datatype t, int keyval, void* value, void* extra) {
  (void)t, (void)keyval, (void)value;
  ((struct attr_counts*)extra)->deletes++;
  return MPI_SUCCESS;
}

static void check_type_attrs(struct ctx* c) {
  struct attr_counts n = {0, 0, 0};
  int kv = MPI_KEYVAL_INVALID, x = 42, y = 43, z = 44, flag = -1;
  void* v = NULL;
  CHECK(MPI_Type_create_keyval(count_copy, count_delete, &kv, &n) == MPI_SUCCESS && kv != MPI_KEYVAL_INVALID,
        "type keyval");
  MPI_Datatype t, t2, t3;
  MPI_Type_contiguous(4, MPI_INT, &t);
  MPI_Type_commit(&t);
  MPI_Type_get_attr(t, kv, &v, &flag);
  CHECK(flag == 0, "an attribute before any was set");
  MPI_Type_set_attr(t, kv, &x);
  MPI_Type_get_attr(t, kv, &v, &flag);
  CHECK(flag == 1 && v == &x, "get_attr %d", flag);
  MPI_Type_dup(t, &t2);
  CHECK(n.copies == 1 && n.deletes == 0, "dup: %d copies", n.copies);
  MPI_Type_get_attr(t2, kv, &v, &flag);
  CHECK(flag == 1 && v == &x, "the duplicate's attribute %d", flag);
  MPI_Type_dup(t, &t3);
  CHECK(n.copies == 2, "second dup: %d copies", n.copies);
  MPI_Type_free(&t2);
  CHECK(n.deletes == 1 && t2 == MPI_DATATYPE_NULL, "free: %d deletes", n.deletes);
  MPI_Type_delete_attr(t, kv);
  CHECK(n.deletes == 2, "delete_attr: %d deletes", n.deletes);
  MPI_Type_get_attr(t, kv, &v, &flag);
  CHECK(flag == 0, "a deleted attribute");
  MPI_Type_set_attr(t, kv, &y);
  MPI_Type_set_attr(t, kv, &z); /* replaces: the old value's delete runs */
  CHECK(n.deletes == 3, "replace: %d deletes", n.deletes);
  MPI_Type_get_attr(t, kv, &v, &flag);
  CHECK(flag == 1 && v == &z, "replaced value");
  /* a failing copy: no new type */
  n.fail_copy = 1;
  MPI_Datatype bad = MPI_INT;
  int e = MPI_Type_dup(t, &bad);
  CHECK(e == MPI_ERR_OTHER && bad == MPI_DATATYPE_NULL && n.copies == 3, "failed copy: %d, type %d", e, bad);
  n.fail_copy = 0;
  MPI_Type_free(&t);
  MPI_Type_free(&t3);
  CHECK(n.deletes == 5 && n.copies == 3, "at the end: %d copies, %d deletes", n.copies, n.deletes);
  /* on a predefined type */
  MPI_Type_set_attr(MPI_INT, kv, &x);
  MPI_Type_get_attr(MPI_INT, kv, &v, &flag);
  CHECK(flag == 1 && v == &x, "predefined type's attribute");
  MPI_Type_delete_attr(MPI_INT, kv);
  CHECK(n.deletes == 6, "predefined delete: %d", n.deletes);
  MPI_Type_free_keyval(&kv);
  CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval");

  /* the predefined copy functions */
  int knull = 0, kdup = 0;
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &knull, NULL);
  MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kdup, NULL);
  MPI_Type_contiguous(2, MPI_DOUBLE, &t);
  MPI_Type_set_attr(t, knull, &x);
  MPI_Type_set_attr(t, kdup, &y);
  MPI_Type_dup(t, &t2);
  MPI_Type_get_attr(t2, knull, &v, &flag);
  CHECK(flag == 0, "MPI_TYPE_NULL_COPY_FN copied");
  MPI_Type_get_attr(t2, kdup, &v, &flag);
  CHECK(flag == 1 && v == &y, "MPI_TYPE_DUP_FN did not copy");
  MPI_Type_free(&t2);
  MPI_Type_free(&t);
  MPI_Type_free_keyval(&knull);
  MPI_Type_free_keyval(&kdup);
}

/* ---- sized types ------------------------------------------------------------- */
static int size_of(MPI_Datatype t) {
  int s = -1;
  MPI_Type_size(t, &s);
  return s;
}

static void check_sized_types(struct ctx* c) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t) == MPI_SUCCESS && t == MPI_INTEGER, "integer 4: %d", t);
  CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &t) == MPI_SUCCESS && size_of(t) == 8, "integer 8");
  CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 1, &t) == MPI_SUCCESS && size_of(t) == 1, "integer 1");
  CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t) == MPI_SUCCESS && t == MPI_REAL, "real 4: %d", t);
  CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t) == MPI_SUCCESS && t == MPI_DOUBLE_PRECISION, "real 8: %d", t);
  CHECK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 8, &t) == MPI_SUCCESS && t == MPI_COMPLEX, "complex 8: %d", t);
  CHECK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t) == MPI_SUCCESS && size_of(t) == 16, "complex 16");
  CHECK(MPI_Type_create_f90_integer(2, &t) == MPI_SUCCESS && size_of(t) == 1, "f90 integer 2: %d", size_of(t));
  CHECK(MPI_Type_create_f90_integer(9, &t) == MPI_SUCCESS && size_of(t) == 4, "f90 integer 9: %d", size_of(t));
  CHECK(MPI_Type_create_f90_integer(10, &t) == MPI_SUCCESS && size_of(t) == 8, "f90 integer 10: %d", size_of(t));
  CHECK(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t) == MPI_SUCCESS && size_of(t) == 4, "f90 real 6");
  CHECK(MPI_Type_create_f90_real(7, MPI_UNDEFINED, &t) == MPI_SUCCESS && size_of(t) == 8, "f90 real 7");
  CHECK(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &t) == MPI_SUCCESS && size_of(t) == 8, "f90 real r 300");
  CHECK(MPI_Type_create_f90_complex(15, 307, &t) == MPI_SUCCESS && size_of(t) == 16, "f90 complex 15");
  CHECK(MPI_Type_create_f90_complex(5, MPI_UNDEFINED, &t) == MPI_SUCCESS && size_of(t) == 8, "f90 complex 5");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t) == MPI_ERR_ARG, "integer 3");
  CHECK(MPI_Type_match_size(99, 4, &t) == MPI_ERR_ARG, "type class 99");
  CHECK(MPI_Type_create_f90_integer(19, &t) == MPI_ERR_ARG, "f90 integer 19");
  CHECK(MPI_Type_create_f90_real(40, MPI_UNDEFINED, &t) == MPI_ERR_ARG, "f90 real 40");
  CHECK(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t) == MPI_ERR_ARG, "f90 real undefined");
  CHECK(MPI_Type_create_f90_complex(40, MPI_UNDEFINED, &t) == MPI_ERR_ARG, "f90 complex 40");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- dynamic processes: none, and errors that say so ----------------------- */
static void expect_class(struct ctx* c, int e, int cls, const char* what) {
  int got = -1;
  MPI_Error_class(e, &got);
  CHECK(got == cls, "%s: error %d, class %d (expected %d)", what, e, got, cls);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(e, text, &len);
  CHECK(len > 0, "%s: no error string", what);
}

static void check_dynamic(struct ctx* c) {
  MPI_Comm parent = MPI_COMM_WORLD, inter = MPI_COMM_WORLD;
  MPI_Comm_get_parent(&parent);
  CHECK(parent == MPI_COMM_NULL, "parent %d", parent);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int codes[3] = {0, 0, 0};
  char cmd[] = "./child";
  char* argv0[] = {NULL};
  expect_class(c, MPI_Comm_spawn(cmd, argv0, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes), MPI_ERR_SPAWN,
               "spawn");
  CHECK(inter == MPI_COMM_NULL && codes[0] == MPI_ERR_SPAWN && codes[2] == MPI_ERR_SPAWN, "spawn's results");
  char* cmds[] = {cmd};
  char** argvs[] = {argv0};
  int maxprocs[] = {1};
  MPI_Info infos[] = {MPI_INFO_NULL};
  expect_class(c, MPI_Comm_spawn_multiple(1, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &inter,
                                          MPI_ERRCODES_IGNORE),
               MPI_ERR_SPAWN, "spawn_multiple");
  expect_class(c, MPI_Comm_spawn(cmd, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE),
               MPI_ERR_SPAWN, "spawn with MPI_ARGV_NULL");
  (void)MPI_ARGVS_NULL;
  char port[MPI_MAX_PORT_NAME];
  expect_class(c, MPI_Open_port(MPI_INFO_NULL, port), MPI_ERR_PORT, "open_port");
  expect_class(c, MPI_Close_port("port"), MPI_ERR_PORT, "close_port");
  expect_class(c, MPI_Comm_accept("port", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), MPI_ERR_PORT, "accept");
  expect_class(c, MPI_Comm_connect("port", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), MPI_ERR_PORT, "connect");
  CHECK(inter == MPI_COMM_NULL, "connect's communicator %d", inter);
  expect_class(c, MPI_Publish_name("service", MPI_INFO_NULL, "port"), MPI_ERR_SERVICE, "publish_name");
  expect_class(c, MPI_Unpublish_name("service", MPI_INFO_NULL, "port"), MPI_ERR_SERVICE, "unpublish_name");
  expect_class(c, MPI_Lookup_name("service", MPI_INFO_NULL, port), MPI_ERR_NAME, "lookup_name");
  expect_class(c, MPI_Comm_join(0, &inter), MPI_ERR_UNSUPPORTED_OPERATION, "join");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  /* disconnect: after the communicator's receive completes, it is freed */
  MPI_Comm dc;
  MPI_Comm_dup(MPI_COMM_WORLD, &dc);
  const int right = (me + 1) % np, left = (me - 1 + np) % np;
  int in = -1, out = me;
  MPI_Request r;
  MPI_Irecv(&in, 1, MPI_INT, left, 31, dc, &r);
  MPI_Send(&out, 1, MPI_INT, right, 31, dc);
  CHECK(MPI_Comm_disconnect(&dc) == MPI_SUCCESS && dc == MPI_COMM_NULL, "disconnect");
  CHECK(in == left, "the receive before disconnect got %d", in);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/* ---- all of it across a move ----------------------------------------------- */
#ifdef ROAM_AMPI
static void check_after_move(struct ctx* c) {
  struct greq g;
  greq_init(&g, 70, 71, 5);
  MPI_Request greq = greq_start(&g);
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(comm_handler, &eh);
  MPI_Comm dc;
  MPI_Comm_dup(MPI_COMM_WORLD, &dc);
  MPI_Comm_set_errhandler(dc, eh);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "kept", "across");
  MPI_Comm_set_info(dc, info);
  MPI_Info_free(&info);
  struct attr_counts n = {0, 0, 0};
  int kv, x = 77, cls, code;
  MPI_Type_create_keyval(count_copy, count_delete, &kv, &n);
  MPI_Datatype t;
  MPI_Type_contiguous(3, MPI_INT, &t);
  MPI_Type_set_attr(t, kv, &x);
  MPI_Add_error_class(&cls);
  MPI_Add_error_code(cls, &code);
  MPI_Add_error_string(code, "kept across a move");

  AMPI_Migrate_to_pe((AMPI_My_pe() + 1) % AMPI_Num_pes());

  MPI_Grequest_complete(greq);
  MPI_Status st;
  int count = -1, flag = -1, len = -1, got = -1;
  MPI_Wait(&greq, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == 70 && count == 5 && g.query_calls == 1 && g.free_calls == 1, "grequest after the move");
  const int before = handler_calls[me];
  MPI_Comm_call_errhandler(dc, code);
  CHECK(handler_calls[me] == before + 1 && handler_code[me] == code && handler_object[me] == dc,
        "handler after the move: code %d", handler_code[me]);
  char text[MPI_MAX_ERROR_STRING];
  MPI_Error_string(code, text, &len);
  MPI_Error_class(code, &got);
  CHECK(strcmp(text, "kept across a move") == 0 && got == cls, "error string '%s', class %d", text, got);
  MPI_Comm_get_info(dc, &info);
  char value[MPI_MAX_INFO_VAL];
  MPI_Info_get(info, "kept", MPI_MAX_INFO_VAL - 1, value, &flag);
  CHECK(flag == 1 && strcmp(value, "across") == 0, "hint after the move");
  MPI_Info_free(&info);
  void* v = NULL;
  MPI_Type_get_attr(t, kv, &v, &flag);
  CHECK(flag == 1 && v == &x && *(int*)v == 77, "type attribute after the move");
  MPI_Type_free(&t);
  CHECK(n.deletes == 1, "delete after the move: %d", n.deletes);
  MPI_Type_free_keyval(&kv);
  MPI_Comm_free(&dc);
  MPI_Errhandler_free(&eh);
}
#endif

int main(int argc, char** argv) {
  struct ctx context = {0, 0, 0}, *c = &context;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np > MAX_RANKS) {
    if (me == 0) printf("ampi_extras: at most %d ranks\n", MAX_RANKS);
    MPI_Finalize();
    return 1;
  }
  check_greq_basic(c);
  check_greq_mixed(c);
  check_greq_during_wait(c);
  check_comm_errhandler(c);
  check_win_errhandler(c);
  check_error_codes(c);
  check_small(c);
  check_type_attrs(c);
  check_sized_types(c);
  check_dynamic(c);
#ifdef ROAM_AMPI
  check_after_move(c);
#endif
  int total = 0;
  MPI_Allreduce(&c->failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && total == 0) printf("ampi_extras: OK (%d ranks)\n", np);
  if (me == 0 && total != 0) printf("ampi_extras: FAILED (%d failed checks)\n", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
