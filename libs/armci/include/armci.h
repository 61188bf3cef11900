/* ARMCI on roam's Adaptive MPI (libs/armci; docs/design/armci.md).
 *
 * ARMCI processes are Adaptive MPI's virtual ranks: `+vp N` migratable
 * threads on any number of PEs and processes. Memory from ARMCI_Malloc is in
 * the calling rank's own heap, at the same address wherever the rank moves;
 * a put, get, accumulate or read-modify-write is applied by the PE where the
 * target rank is, without its thread. Programs call MPI_Init (or
 * ARMCI_Init_args alone) and are built with ampicc / ampicxx.
 *
 * The calls and their meanings are ARMCI's (as ARMCI-MPI provides them);
 * the types' layouts are roam's own. */
#ifndef ROAM_ARMCI_H
#define ROAM_ARMCI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ARMCI_ROAM 1

/* Accumulate types: dst += scale * src. */
enum ARMCI_Acc_e {
  ARMCI_ACC_INT, /* int */
  ARMCI_ACC_LNG, /* long */
  ARMCI_ACC_FLT, /* float */
  ARMCI_ACC_DBL, /* double */
  ARMCI_ACC_CPL, /* float complex (two floats; scale too) */
  ARMCI_ACC_DCP  /* double complex */
};

typedef long armci_size_t;

int ARMCI_Init(void);
int ARMCI_Init_args(int *argc, char ***argv);
int ARMCI_Init_thread(int armci_requested);
/* ARMCI-MPI's: ARMCI over a communicator (Global Arrays' GA_Initialize_comm).
 * roam's ARMCI processes are MPI_COMM_WORLD's ranks: `comm` must hold all of
 * them in order (MPI_COMM_WORLD or a duplicate), else the job stops saying
 * so. 0 on success, as ARMCI-MPI. */
int ARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm);
int ARMCI_Init_mpi_comm(MPI_Comm comm);
int ARMCI_Initialized(void);
int ARMCI_Finalize(void);
void ARMCI_Cleanup(void);
void ARMCI_Error(const char *msg, int code);

/* Collective: every process's block, by process (null where it asked 0 bytes). */
int ARMCI_Malloc(void **base_ptrs, armci_size_t size);
int ARMCI_Free(void *ptr);
void *ARMCI_Malloc_local(armci_size_t size);
int ARMCI_Free_local(void *ptr);

void ARMCI_Barrier(void);
void ARMCI_Fence(int proc);
void ARMCI_AllFence(void);
void ARMCI_Access_begin(void *ptr);
void ARMCI_Access_end(void *ptr);
void ARMCI_Copy(void *src, void *dst, int size);

/* Blocking calls return once the local buffer may be reused (a put may
 * still be on its way: ARMCI_Fence / ARMCI_Barrier complete it remotely);
 * a get once the data is in `dst`. */
int ARMCI_Get(void *src, void *dst, int size, int proc);
int ARMCI_Put(void *src, void *dst, int size, int proc);
int ARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc);

/* Strided: count[0] bytes contiguous, count[i] blocks at level i, each
 * stride_ar[i-1] bytes apart (stride_levels levels, 0 = contiguous). */
int ARMCI_PutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
               int stride_levels, int proc);
int ARMCI_GetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
               int stride_levels, int proc);
int ARMCI_AccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
               int count[], int stride_levels, int proc);
int ARMCI_Put_flag(void *src, void *dst, int size, int *flag, int value, int proc);
int ARMCI_PutS_flag(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                    int stride_levels, int *flag, int value, int proc);

/* Non-blocking handles (one handle may aggregate several operations). */
typedef struct armci_hdl_s {
  int id;        /* 0: nothing pending */
  int target;
  int aggregate;
  int reserved;
} armci_hdl_t;

void ARMCI_INIT_HANDLE(armci_hdl_t *hdl);
void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *handle);
void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *handle);

int ARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
int ARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
int ARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
int ARMCI_Wait(armci_hdl_t *hdl);
int ARMCI_Test(armci_hdl_t *hdl);
int ARMCI_WaitProc(int proc);
int ARMCI_WaitAll(void);
int ARMCI_NbPutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                 int stride_levels, int proc, armci_hdl_t *hdl);
int ARMCI_NbGetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                 int stride_levels, int proc, armci_hdl_t *hdl);
int ARMCI_NbAccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
                 int dst_stride_ar[], int count[], int stride_levels, int proc, armci_hdl_t *hdl);

void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);
void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);

/* Vectors: each descriptor moves ptr_array_len segments of `bytes`. */
typedef struct {
  void **src_ptr_array;
  void **dst_ptr_array;
  int bytes;
  int ptr_array_len;
} armci_giov_t;

int ARMCI_PutV(armci_giov_t *iov, int iov_len, int proc);
int ARMCI_GetV(armci_giov_t *iov, int iov_len, int proc);
int ARMCI_AccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc);
int ARMCI_NbPutV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
int ARMCI_NbGetV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
int ARMCI_NbAccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);

int ARMCI_PutValueInt(int src, void *dst, int proc);
int ARMCI_PutValueLong(long src, void *dst, int proc);
int ARMCI_PutValueFloat(float src, void *dst, int proc);
int ARMCI_PutValueDouble(double src, void *dst, int proc);
int ARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *hdl);
int ARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *hdl);
int ARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *hdl);
int ARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *hdl);
int ARMCI_GetValueInt(void *src, int proc);
long ARMCI_GetValueLong(void *src, int proc);
float ARMCI_GetValueFloat(void *src, int proc);
double ARMCI_GetValueDouble(void *src, int proc);

/* Mutexes: `count` on every process (collective); queued in request order. */
int ARMCI_Create_mutexes(int count);
int ARMCI_Destroy_mutexes(void);
void ARMCI_Lock(int mutex, int proc);
void ARMCI_Unlock(int mutex, int proc);

enum ARMCI_Rmw_e { ARMCI_FETCH_AND_ADD, ARMCI_FETCH_AND_ADD_LONG, ARMCI_SWAP, ARMCI_SWAP_LONG };
/* *ploc gets the old value at prem (int or long); add `value` or swap in *ploc. */
int ARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc);

/* Groups: a communicator of ARMCI processes. */
typedef struct {
  MPI_Comm comm;
  int rank;
  int size;
  int *grp_to_abs; /* absolute id of each member (in the member's own heap) */
} ARMCI_Group;

void ARMCI_Group_create(int grp_size, int *pid_list, ARMCI_Group *group_out);
void ARMCI_Group_create_child(int grp_size, int *pid_list, ARMCI_Group *group_out, ARMCI_Group *group_parent);
void ARMCI_Group_free(ARMCI_Group *group);
int ARMCI_Group_rank(ARMCI_Group *group, int *rank);
void ARMCI_Group_size(ARMCI_Group *group, int *size);
void ARMCI_Group_set_default(ARMCI_Group *group);
void ARMCI_Group_get_default(ARMCI_Group *group_out);
void ARMCI_Group_get_world(ARMCI_Group *group_out);
int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank);
int ARMCI_Malloc_group(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group);
int ARMCI_Free_group(void *ptr, ARMCI_Group *group);
/* ARMCI-MPI's memory-device allocations (Global Arrays calls them): the
 * device is ignored, as in ARMCI-MPI. */
int ARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device);
int ARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group, const char *device);
int ARMCI_Free_memdev(void *ptr);

/* Topology: a "node" is a process of the job (its PEs share memory). */
enum armci_domain_e { ARMCI_DOMAIN_SMP };
typedef int armci_domain_t;
int armci_domain_nprocs(armci_domain_t domain, int id);
int armci_domain_id(armci_domain_t domain, int glob_proc_id);
int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id);
int armci_domain_my_id(armci_domain_t domain);
int armci_domain_count(armci_domain_t domain);
int armci_domain_same_id(armci_domain_t domain, int proc);
int ARMCI_Same_node(int proc);

int ARMCI_Uses_shm(void);
void ARMCI_Set_shm_limit(unsigned long shmemlimit);
int ARMCI_Uses_shm_grp(ARMCI_Group *group);

/* The adaptive runtime's own (seed: "Support for Adaptivity in ARMCI"):
 * collective calls at a point where no operation is in progress. */
/* Load balancing: ranks may move (their ARMCI memory keeps its addresses). */
int ARMCI_Migrate(void);
/* A checkpoint of every rank to `dirname` (restart: +restart DIR), or to
 * the memory of peer processes with a null or empty name. */
int ARMCI_Checkpoint(const char *dirname);

/* The profiling interface: each call above also as PARMCI_<name> (the
 * library's definitions; ARMCI_<name> are weak aliases a tool may replace). */
int PARMCI_Init(void);
int PARMCI_Init_args(int *argc, char ***argv);
int PARMCI_Init_thread(int armci_requested);
int PARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm);
int PARMCI_Init_mpi_comm(MPI_Comm comm);
int PARMCI_Initialized(void);
int PARMCI_Finalize(void);
int PARMCI_Malloc(void **base_ptrs, armci_size_t size);
int PARMCI_Free(void *ptr);
int PARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device);
int PARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group, const char *device);
int PARMCI_Free_memdev(void *ptr);
void *PARMCI_Malloc_local(armci_size_t size);
int PARMCI_Free_local(void *ptr);
void PARMCI_Barrier(void);
void PARMCI_Fence(int proc);
void PARMCI_AllFence(void);
void PARMCI_Access_begin(void *ptr);
void PARMCI_Access_end(void *ptr);
int PARMCI_Get(void *src, void *dst, int size, int proc);
int PARMCI_Put(void *src, void *dst, int size, int proc);
int PARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc);
int PARMCI_PutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
               int stride_levels, int proc);
int PARMCI_GetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
               int stride_levels, int proc);
int PARMCI_AccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
               int count[], int stride_levels, int proc);
int PARMCI_Put_flag(void *src, void *dst, int size, int *flag, int value, int proc);
int PARMCI_PutS_flag(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                    int stride_levels, int *flag, int value, int proc);
int PARMCI_PutV(armci_giov_t *iov, int iov_len, int proc);
int PARMCI_GetV(armci_giov_t *iov, int iov_len, int proc);
int PARMCI_AccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc);
int PARMCI_Wait(armci_hdl_t *hdl);
int PARMCI_Test(armci_hdl_t *hdl);
int PARMCI_WaitProc(int proc);
int PARMCI_WaitAll(void);
int PARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
int PARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
int PARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
int PARMCI_NbPutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                 int stride_levels, int proc, armci_hdl_t *hdl);
int PARMCI_NbGetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                 int stride_levels, int proc, armci_hdl_t *hdl);
int PARMCI_NbAccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
                 int dst_stride_ar[], int count[], int stride_levels, int proc, armci_hdl_t *hdl);
int PARMCI_NbPutV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
int PARMCI_NbGetV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
int PARMCI_NbAccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
int PARMCI_Create_mutexes(int count);
int PARMCI_Destroy_mutexes(void);
void PARMCI_Lock(int mutex, int proc);
void PARMCI_Unlock(int mutex, int proc);
int PARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc);
int PARMCI_PutValueInt(int src, void *dst, int proc);
int PARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *hdl);
int PARMCI_GetValueInt(void *src, int proc);
int PARMCI_PutValueLong(long src, void *dst, int proc);
int PARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *hdl);
long PARMCI_GetValueLong(void *src, int proc);
int PARMCI_PutValueFloat(float src, void *dst, int proc);
int PARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *hdl);
float PARMCI_GetValueFloat(void *src, int proc);
int PARMCI_PutValueDouble(double src, void *dst, int proc);
int PARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *hdl);
double PARMCI_GetValueDouble(void *src, int proc);

#ifdef __cplusplus
}
#endif

#include <message.h>

#endif /* ROAM_ARMCI_H */
