/* mpi.h: Adaptive MPI on roam (libs/ampi; docs/design/ampi.md).
 *
 * An MPI program built with ampicc/ampicxx runs each MPI rank as a
 * migratable user-level thread held by an element of a roam array: `+vp N`
 * ranks on any number of PEs and processes (`./prog +vp 16 +p2`,
 * `roamrun -n 2 ./prog +vp 16`, `mpirun -n 2 ./prog +vp 16`). Ranks may move
 * between PEs and processes while blocked (AMPI_Migrate, AMPI_Migrate_to_pe).
 *
 * This is roam's own ABI: handles are ints, MPI_Status has the standard's
 * three public fields first. Every MPI_ function has its PMPI_ name (link
 * names AMPI_ and PAMPI_: see below).
 *
 * The program's `main` is renamed (below): the library provides the real
 * main, which starts roam and runs the program's main once per rank. */
#ifndef ROAM_AMPI_MPI_H
#define ROAM_AMPI_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define ROAM_AMPI 1
#define AMPI 1

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Group;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Message;
typedef int MPI_Win;
typedef ptrdiff_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int MPI_COMM;         /* Adaptive MPI: the communicator the message came on (receives and probes) */
  long long MPI_LENGTH; /* Adaptive MPI: the message's size in bytes (MPI_Get_count's) */
  int roam_cancelled;   /* private: MPI_Test_cancelled */
} MPI_Status;

/* ---- null handles and special values ---------------------------------- */
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY ((MPI_Group)1)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_INFO_ENV ((MPI_Info)1)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)-1)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)
#define MPI_WIN_NULL ((MPI_Win)0)

#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)

#define MPI_BOTTOM ((void*)0)
#define MPI_IN_PLACE ((void*)-1)
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)
#define MPI_ERRCODES_IGNORE ((int*)0)
#define MPI_ARGV_NULL ((char**)0)
#define MPI_ARGVS_NULL ((char***)0)

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_BSEND_OVERHEAD 96
#define MPI_MAX_PORT_NAME 256

/* MPI_Type_match_size's type classes */
#define MPI_TYPECLASS_INTEGER 1
#define MPI_TYPECLASS_REAL 2
#define MPI_TYPECLASS_COMPLEX 3

/* comparisons */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* thread levels */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* one-sided */
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_WIN_BASE 20
#define MPI_WIN_SIZE 21
#define MPI_WIN_DISP_UNIT 22
#define MPI_WIN_CREATE_FLAVOR 23
#define MPI_WIN_MODEL 24
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2

/* MPI_Comm_split_type */
#define MPI_COMM_TYPE_SHARED 1

/* topology kinds (MPI_Topo_test) */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
/* MPI_Dist_graph_create*'s weights: none (an unweighted graph), or none
 * because this rank has no such edges (a weighted graph). Distinct from
 * MPI_BOTTOM, MPI_IN_PLACE and every array; not small numbers, which GCC
 * takes for null-based pointers (-Wstringop-overread on array arguments). */
#define MPI_UNWEIGHTED ((int*)-2)
#define MPI_WEIGHTS_EMPTY ((int*)-3)

/* type constructors' orders and distributions */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* MPI_Type_get_envelope combiners */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_RESIZED 13

/* predefined attribute keys */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_APPNUM 6
#define MPI_LASTUSEDCODE 7
#define AMPI_MY_WTH 8
#define AMPI_NUM_WTHS 9
#define AMPI_MY_PROCESS 10
#define AMPI_NUM_PROCESSES 11

/* ---- error classes ----------------------------------------------------- */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_KEYVAL 20
#define MPI_ERR_NO_MEM 21
#define MPI_ERR_BASE 22
#define MPI_ERR_INFO_KEY 23
#define MPI_ERR_INFO_VALUE 24
#define MPI_ERR_INFO_NOKEY 25
#define MPI_ERR_SPAWN 26
#define MPI_ERR_PORT 27
#define MPI_ERR_SERVICE 28
#define MPI_ERR_NAME 29
#define MPI_ERR_WIN 30
#define MPI_ERR_SIZE 31
#define MPI_ERR_DISP 32
#define MPI_ERR_INFO 33
#define MPI_ERR_LOCKTYPE 34
#define MPI_ERR_ASSERT 35
#define MPI_ERR_RMA_CONFLICT 36
#define MPI_ERR_RMA_SYNC 37
#define MPI_ERR_FILE 38
#define MPI_ERR_NOT_SAME 39
#define MPI_ERR_AMODE 40
#define MPI_ERR_UNSUPPORTED_DATAREP 41
#define MPI_ERR_UNSUPPORTED_OPERATION 42
#define MPI_ERR_NO_SUCH_FILE 43
#define MPI_ERR_FILE_EXISTS 44
#define MPI_ERR_BAD_FILE 45
#define MPI_ERR_ACCESS 46
#define MPI_ERR_NO_SPACE 47
#define MPI_ERR_QUOTA 48
#define MPI_ERR_READ_ONLY 49
#define MPI_ERR_FILE_IN_USE 50
#define MPI_ERR_DUP_DATAREP 51
#define MPI_ERR_CONVERSION 52
#define MPI_ERR_IO 53
#define MPI_ERR_RMA_RANGE 54
#define MPI_ERR_RMA_ATTACH 55
#define MPI_ERR_RMA_SHARED 56
#define MPI_ERR_RMA_FLAVOR 57
#define MPI_ERR_LASTCODE 63

/* ---- predefined datatypes ---------------------------------------------- */
#define MPI_CHAR ((MPI_Datatype)1)
#define MPI_SIGNED_CHAR ((MPI_Datatype)2)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)3)
#define MPI_BYTE ((MPI_Datatype)4)
#define MPI_SHORT ((MPI_Datatype)5)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)6)
#define MPI_INT ((MPI_Datatype)7)
#define MPI_UNSIGNED ((MPI_Datatype)8)
#define MPI_LONG ((MPI_Datatype)9)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)10)
#define MPI_LONG_LONG_INT ((MPI_Datatype)11)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)12)
#define MPI_FLOAT ((MPI_Datatype)13)
#define MPI_DOUBLE ((MPI_Datatype)14)
#define MPI_LONG_DOUBLE ((MPI_Datatype)15)
#define MPI_WCHAR ((MPI_Datatype)16)
#define MPI_C_BOOL ((MPI_Datatype)17)
#define MPI_INT8_T ((MPI_Datatype)18)
#define MPI_INT16_T ((MPI_Datatype)19)
#define MPI_INT32_T ((MPI_Datatype)20)
#define MPI_INT64_T ((MPI_Datatype)21)
#define MPI_UINT8_T ((MPI_Datatype)22)
#define MPI_UINT16_T ((MPI_Datatype)23)
#define MPI_UINT32_T ((MPI_Datatype)24)
#define MPI_UINT64_T ((MPI_Datatype)25)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)26)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)27)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)28)
#define MPI_AINT ((MPI_Datatype)29)
#define MPI_OFFSET ((MPI_Datatype)30)
#define MPI_COUNT ((MPI_Datatype)31)
#define MPI_PACKED ((MPI_Datatype)32)
#define MPI_CXX_BOOL ((MPI_Datatype)33)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)34)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)35)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)36)
/* pairs for MPI_MINLOC / MPI_MAXLOC */
#define MPI_FLOAT_INT ((MPI_Datatype)37)
#define MPI_DOUBLE_INT ((MPI_Datatype)38)
#define MPI_LONG_INT ((MPI_Datatype)39)
#define MPI_2INT ((MPI_Datatype)40)
#define MPI_SHORT_INT ((MPI_Datatype)41)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)42)
#define MPI_2FLOAT ((MPI_Datatype)43)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)44)
#define MPI_2INTEGER ((MPI_Datatype)45)
/* Fortran's, for C programs that name them */
#define MPI_INTEGER ((MPI_Datatype)46)
#define MPI_REAL ((MPI_Datatype)47)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)48)
#define MPI_LOGICAL ((MPI_Datatype)49)
#define MPI_CHARACTER ((MPI_Datatype)50)
#define MPI_COMPLEX ((MPI_Datatype)51)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)52)
#define MPI_UB ((MPI_Datatype)53) /* MPI-1's bound markers (removed in MPI-3; accepted in struct types) */
#define MPI_LB ((MPI_Datatype)54)

/* ---- predefined operations --------------------------------------------- */
#define MPI_MAX ((MPI_Op)1)
#define MPI_MIN ((MPI_Op)2)
#define MPI_SUM ((MPI_Op)3)
#define MPI_PROD ((MPI_Op)4)
#define MPI_LAND ((MPI_Op)5)
#define MPI_BAND ((MPI_Op)6)
#define MPI_LOR ((MPI_Op)7)
#define MPI_BOR ((MPI_Op)8)
#define MPI_LXOR ((MPI_Op)9)
#define MPI_BXOR ((MPI_Op)10)
#define MPI_MINLOC ((MPI_Op)11)
#define MPI_MAXLOC ((MPI_Op)12)
#define MPI_REPLACE ((MPI_Op)13)
#define MPI_NO_OP ((MPI_Op)14)

typedef void(MPI_User_function)(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);
typedef void(MPI_Comm_errhandler_function)(MPI_Comm*, int*, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef int(MPI_Comm_copy_attr_function)(MPI_Comm, int, void*, void*, void*, int*);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm, int, void*, void*);
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype, int, void*, void*, void*, int*);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype, int, void*, void*);
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function*)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function*)0)
#define MPI_COMM_DUP_FN ((MPI_Comm_copy_attr_function*)1)
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function*)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function*)0)
#define MPI_TYPE_DUP_FN ((MPI_Type_copy_attr_function*)1)
typedef int(MPI_Win_copy_attr_function)(MPI_Win, int, void*, void*, void*, int*);
typedef int(MPI_Win_delete_attr_function)(MPI_Win, int, void*, void*);
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function*)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function*)0)
#define MPI_WIN_DUP_FN ((MPI_Win_copy_attr_function*)1)
/* MPI-1's names (deprecated, still in wide use) */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
typedef MPI_Comm_errhandler_function MPI_Handler_function;
#define MPI_NULL_COPY_FN MPI_COMM_NULL_COPY_FN
#define MPI_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
#define MPI_DUP_FN MPI_COMM_DUP_FN
typedef void(MPI_Win_errhandler_function)(MPI_Win*, int*, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
/* generalized requests (MPI_Grequest_start) */
typedef int(MPI_Grequest_query_function)(void* extra_state, MPI_Status* status);
typedef int(MPI_Grequest_free_function)(void* extra_state);
typedef int(MPI_Grequest_cancel_function)(void* extra_state, int complete);

/* ---- the functions (each also as PMPI_<name>) -------------------------- */
#define ROAM_AMPI_FUNCTIONS(X)                                                                                        \
  X(int, Init, (int* argc, char*** argv))                                                                             \
  X(int, Init_thread, (int* argc, char*** argv, int required, int* provided))                                        \
  X(int, Finalize, (void))                                                                                            \
  X(int, Initialized, (int* flag))                                                                                    \
  X(int, Finalized, (int* flag))                                                                                      \
  X(int, Abort, (MPI_Comm comm, int errorcode))                                                                       \
  X(int, Query_thread, (int* provided))                                                                               \
  X(int, Is_thread_main, (int* flag))                                                                                 \
  X(int, Get_version, (int* version, int* subversion))                                                                \
  X(int, Get_library_version, (char* version, int* resultlen))                                                       \
  X(int, Get_processor_name, (char* name, int* resultlen))                                                           \
  X(double, Wtime, (void))                                                                                            \
  X(double, Wtick, (void))                                                                                            \
  X(int, Error_string, (int errorcode, char* string, int* resultlen))                                                \
  X(int, Error_class, (int errorcode, int* errorclass))                                                               \
  X(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))                                            \
  X(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler * errhandler))                                          \
  X(int, Errhandler_free, (MPI_Errhandler * errhandler))                                                             \
  X(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))                                                       \
  /* communicators */                                                                                                 \
  X(int, Comm_rank, (MPI_Comm comm, int* rank))                                                                       \
  X(int, Comm_size, (MPI_Comm comm, int* size))                                                                       \
  X(int, Comm_dup, (MPI_Comm comm, MPI_Comm * newcomm))                                                              \
  X(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* newcomm))                                         \
  X(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm))                \
  X(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm * newcomm))                                          \
  X(int, Comm_free, (MPI_Comm * comm))                                                                                \
  X(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int* result))                                                \
  X(int, Comm_group, (MPI_Comm comm, MPI_Group * group))                                                             \
  X(int, Comm_test_inter, (MPI_Comm comm, int* flag))                                                                 \
  X(int, Comm_set_name, (MPI_Comm comm, const char* name))                                                           \
  X(int, Comm_get_name, (MPI_Comm comm, char* name, int* resultlen))                                                 \
  /* groups */                                                                                                        \
  X(int, Group_size, (MPI_Group group, int* size))                                                                    \
  X(int, Group_rank, (MPI_Group group, int* rank))                                                                    \
  X(int, Group_free, (MPI_Group * group))                                                                             \
  X(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group* newgroup))                               \
  X(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group* newgroup))                               \
  X(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group * newgroup))                                    \
  X(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group * newgroup))                             \
  X(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group * newgroup))                               \
  X(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))       \
  X(int, Group_compare, (MPI_Group group1, MPI_Group group2, int* result))                                           \
  /* point to point */                                                                                                \
  X(int, Send, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))                \
  X(int, Ssend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))               \
  X(int, Bsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))               \
  X(int, Rsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))               \
  X(int, Recv, (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status)) \
  X(int, Isend,                                                                                                       \
    (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request))     \
  X(int, Issend,                                                                                                      \
    (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request))     \
  X(int, Ibsend,                                                                                                      \
    (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request))     \
  X(int, Irsend,                                                                                                      \
    (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request))     \
  X(int, Irecv,                                                                                                       \
    (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request))         \
  X(int, Send_init,                                                                                                   \
    (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request))     \
  X(int, Ssend_init,                                                                                                  \
    (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request))     \
  X(int, Recv_init,                                                                                                   \
    (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request))         \
  X(int, Start, (MPI_Request * request))                                                                              \
  X(int, Startall, (int count, MPI_Request array_of_requests[]))                                                     \
  X(int, Sendrecv,                                                                                                    \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf, int recvcount, \
     MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status))                             \
  X(int, Sendrecv_replace,                                                                                            \
    (void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm,     \
     MPI_Status* status))                                                                                             \
  X(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status* status))                                            \
  X(int, Iprobe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status))                                \
  X(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status))                    \
  X(int, Improbe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status))        \
  X(int, Mrecv, (void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status))            \
  X(int, Imrecv, (void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request))         \
  X(int, Get_count, (const MPI_Status* status, MPI_Datatype datatype, int* count))                                   \
  X(int, Get_elements, (const MPI_Status* status, MPI_Datatype datatype, int* count))                                \
  X(int, Wait, (MPI_Request * request, MPI_Status * status))                                                         \
  X(int, Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]))                     \
  X(int, Waitany, (int count, MPI_Request array_of_requests[], int* index, MPI_Status* status))                     \
  X(int, Waitsome,                                                                                                    \
    (int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],                            \
     MPI_Status array_of_statuses[]))                                                                                 \
  X(int, Test, (MPI_Request * request, int* flag, MPI_Status* status))                                               \
  X(int, Testall, (int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]))          \
  X(int, Testany, (int count, MPI_Request array_of_requests[], int* index, int* flag, MPI_Status* status))          \
  X(int, Testsome,                                                                                                    \
    (int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],                            \
     MPI_Status array_of_statuses[]))                                                                                 \
  X(int, Request_free, (MPI_Request * request))                                                                       \
  X(int, Request_get_status, (MPI_Request request, int* flag, MPI_Status* status))                                   \
  X(int, Cancel, (MPI_Request * request))                                                                             \
  X(int, Test_cancelled, (const MPI_Status* status, int* flag))                                                      \
  X(int, Buffer_attach, (void* buffer, int size))                                                                     \
  X(int, Buffer_detach, (void* buffer_addr, int* size))                                                              \
  /* datatypes */                                                                                                     \
  X(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype* newtype))                                  \
  X(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype))        \
  X(int, Type_create_hvector,                                                                                         \
    (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype))                     \
  X(int, Type_indexed,                                                                                                \
    (int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype,        \
     MPI_Datatype* newtype))                                                                                          \
  X(int, Type_create_hindexed,                                                                                        \
    (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,   \
     MPI_Datatype* newtype))                                                                                          \
  X(int, Type_create_indexed_block,                                                                                   \
    (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype))  \
  X(int, Type_create_hindexed_block,                                                                                  \
    (int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,                     \
     MPI_Datatype* newtype))                                                                                          \
  X(int, Type_create_struct,                                                                                          \
    (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],                         \
     const MPI_Datatype array_of_types[], MPI_Datatype* newtype))                                                    \
  X(int, Type_create_subarray,                                                                                        \
    (int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order,  \
     MPI_Datatype oldtype, MPI_Datatype* newtype))                                                                   \
  X(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype))          \
  X(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype * newtype))                                                   \
  X(int, Type_commit, (MPI_Datatype * datatype))                                                                      \
  X(int, Type_free, (MPI_Datatype * datatype))                                                                        \
  X(int, Type_size, (MPI_Datatype datatype, int* size))                                                               \
  X(int, Type_size_x, (MPI_Datatype datatype, MPI_Count * size))                                                     \
  X(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint * lb, MPI_Aint * extent))                                 \
  X(int, Type_get_envelope,                                                                                           \
    (MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes, int* combiner))             \
  X(int, Type_get_contents,                                                                                           \
    (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int integers[],                \
     MPI_Aint addresses[], MPI_Datatype datatypes[]))                                                               \
  X(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint * true_lb, MPI_Aint * true_extent))                  \
  X(int, Get_address, (const void* location, MPI_Aint* address))                                                     \
  X(int, Pack,                                                                                                        \
    (const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize, int* position,               \
     MPI_Comm comm))                                                                                                  \
  X(int, Unpack,                                                                                                      \
    (const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype,               \
     MPI_Comm comm))                                                                                                  \
  X(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int* size))                                  \
  X(int, Pack_external,                                                                                               \
    (const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, MPI_Aint outsize,   \
     MPI_Aint* position))                                                                                             \
  X(int, Unpack_external,                                                                                             \
    (const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position, void* outbuf, int outcount,      \
     MPI_Datatype datatype))                                                                                          \
  X(int, Pack_external_size, (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint* size))             \
  /* collectives */                                                                                                   \
  X(int, Barrier, (MPI_Comm comm))                                                                                    \
  X(int, Bcast, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))                           \
  X(int, Reduce,                                                                                                      \
    (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))     \
  X(int, Allreduce,                                                                                                   \
    (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))               \
  X(int, Reduce_local, (const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))            \
  X(int, Reduce_scatter_block,                                                                                        \
    (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))           \
  X(int, Reduce_scatter,                                                                                              \
    (const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))  \
  X(int, Scan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))    \
  X(int, Exscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))  \
  X(int, Gather,                                                                                                      \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, \
     int root, MPI_Comm comm))                                                                                        \
  X(int, Gatherv,                                                                                                     \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],              \
     const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm))                                            \
  X(int, Scatter,                                                                                                     \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, \
     int root, MPI_Comm comm))                                                                                        \
  X(int, Scatterv,                                                                                                    \
    (const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,         \
     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))                                                 \
  X(int, Allgather,                                                                                                   \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, \
     MPI_Comm comm))                                                                                                  \
  X(int, Allgatherv,                                                                                                  \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],              \
     const int displs[], MPI_Datatype recvtype, MPI_Comm comm))                                                      \
  X(int, Alltoall,                                                                                                    \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, \
     MPI_Comm comm))                                                                                                  \
  X(int, Alltoallv,                                                                                                   \
    (const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf,        \
     const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))                             \
  X(int, Alltoallw,                                                                                                   \
    (const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],              \
     void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))    \
  /* non-blocking collectives */                                                                                      \
  X(int, Ibarrier, (MPI_Comm comm, MPI_Request * request))                                                           \
  X(int, Ibcast, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request))   \
  X(int, Ireduce,                                                                                                     \
    (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,      \
     MPI_Request* request))                                                                                           \
  X(int, Iallreduce,                                                                                                  \
    (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,                \
     MPI_Request* request))                                                                                           \
  X(int, Ireduce_scatter_block,                                                                                       \
    (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,            \
     MPI_Request* request))                                                                                           \
  X(int, Ireduce_scatter,                                                                                             \
    (const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,   \
     MPI_Request* request))                                                                                           \
  X(int, Iscan,                                                                                                       \
    (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,                \
     MPI_Request* request))                                                                                           \
  X(int, Iexscan,                                                                                                     \
    (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,                \
     MPI_Request* request))                                                                                           \
  X(int, Igather,                                                                                                     \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, \
     int root, MPI_Comm comm, MPI_Request* request))                                                                 \
  X(int, Igatherv,                                                                                                    \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],              \
     const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request))                      \
  X(int, Iscatter,                                                                                                    \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, \
     int root, MPI_Comm comm, MPI_Request* request))                                                                 \
  X(int, Iscatterv,                                                                                                   \
    (const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,         \
     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request))                          \
  X(int, Iallgather,                                                                                                  \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, \
     MPI_Comm comm, MPI_Request* request))                                                                            \
  X(int, Iallgatherv,                                                                                                 \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],              \
     const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))                               \
  X(int, Ialltoall,                                                                                                   \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, \
     MPI_Comm comm, MPI_Request* request))                                                                            \
  X(int, Ialltoallv,                                                                                                  \
    (const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf,        \
     const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))      \
  X(int, Ialltoallw,                                                                                                  \
    (const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],              \
     void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,     \
     MPI_Request* request))                                                                                           \
  /* one-sided */                                                                                                      \
  X(int, Win_create, (void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win))       \
  X(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win))  \
  X(int, Win_free, (MPI_Win * win))                                                                                   \
  X(int, Win_fence, (int assert, MPI_Win win))                                                                        \
  X(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))                                               \
  X(int, Win_unlock, (int rank, MPI_Win win))                                                                         \
  X(int, Win_get_attr, (MPI_Win win, int win_keyval, void* attribute_val, int* flag))                                \
  X(int, Win_get_group, (MPI_Win win, MPI_Group * group))                                                            \
  X(int, Put,                                                                                                         \
    (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, \
     int target_count, MPI_Datatype target_datatype, MPI_Win win))                                                   \
  X(int, Get,                                                                                                         \
    (void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,       \
     int target_count, MPI_Datatype target_datatype, MPI_Win win))                                                   \
  X(int, Accumulate,                                                                                                  \
    (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, \
     int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))                                        \
  X(int, Get_accumulate,                                                                                              \
    (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr, int result_count,   \
     MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count,                         \
     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))                                                          \
  X(int, Fetch_and_op,                                                                                                \
    (const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,      \
     MPI_Op op, MPI_Win win))                                                                                         \
  X(int, Compare_and_swap,                                                                                            \
    (const void* origin_addr, const void* compare_addr, void* result_addr, MPI_Datatype datatype, int target_rank,  \
     MPI_Aint target_disp, MPI_Win win))                                                                              \
  X(int, Win_lock_all, (int assert, MPI_Win win))                                                                     \
  X(int, Win_unlock_all, (MPI_Win win))                                                                               \
  X(int, Win_flush, (int rank, MPI_Win win))                                                                          \
  X(int, Win_flush_all, (MPI_Win win))                                                                                \
  X(int, Rput,                                                                                                        \
    (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, \
     int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request))                             \
  X(int, Rget,                                                                                                        \
    (void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,       \
     int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request))                             \
  X(int, Raccumulate,                                                                                                 \
    (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, \
     int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request))                  \
  X(int, Rget_accumulate,                                                                                             \
    (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr, int result_count,   \
     MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count,                          \
     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request))                                    \
  X(int, Win_flush_local, (int rank, MPI_Win win))                                                                    \
  X(int, Win_flush_local_all, (MPI_Win win))                                                                          \
  X(int, Win_sync, (MPI_Win win))                                                                                     \
  X(int, Win_set_info, (MPI_Win win, MPI_Info info))                                                                  \
  X(int, Win_get_info, (MPI_Win win, MPI_Info * info_used))                                                           \
  X(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win * win))                                           \
  X(int, Win_attach, (MPI_Win win, void* base, MPI_Aint size))                                                        \
  X(int, Win_detach, (MPI_Win win, const void* base))                                                                 \
  X(int, Win_allocate_shared,                                                                                         \
    (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win))                        \
  X(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr))                   \
  X(int, Op_create, (MPI_User_function * user_fn, int commute, MPI_Op* op))                                          \
  X(int, Op_free, (MPI_Op * op))                                                                                      \
  X(int, Op_commutative, (MPI_Op op, int* commute))                                                                   \
  /* info */                                                                                                          \
  X(int, Info_create, (MPI_Info * info))                                                                              \
  X(int, Info_set, (MPI_Info info, const char* key, const char* value))                                              \
  X(int, Info_get, (MPI_Info info, const char* key, int valuelen, char* value, int* flag))                           \
  X(int, Info_get_valuelen, (MPI_Info info, const char* key, int* valuelen, int* flag))                              \
  X(int, Info_get_nkeys, (MPI_Info info, int* nkeys))                                                                 \
  X(int, Info_get_nthkey, (MPI_Info info, int n, char* key))                                                          \
  X(int, Info_delete, (MPI_Info info, const char* key))                                                               \
  X(int, Info_dup, (MPI_Info info, MPI_Info * newinfo))                                                              \
  X(int, Info_free, (MPI_Info * info))                                                                                \
  /* attributes */                                                                                                    \
  X(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag))                            \
  X(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void* attribute_val))                                       \
  X(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))                                                          \
  X(int, Comm_create_keyval,                                                                                          \
    (MPI_Comm_copy_attr_function * copy_fn, MPI_Comm_delete_attr_function* delete_fn, int* keyval,                  \
     void* extra_state))                                                                                              \
  X(int, Comm_free_keyval, (int* keyval))                                                                             \
  /* topologies */                                                                                                    \
  X(int, Dims_create, (int nnodes, int ndims, int dims[]))                                                           \
  X(int, Cart_create,                                                                                                 \
    (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* comm_cart))         \
  X(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))                           \
  X(int, Cartdim_get, (MPI_Comm comm, int* ndims))                                                                    \
  X(int, Cart_rank, (MPI_Comm comm, const int coords[], int* rank))                                                  \
  X(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))                                          \
  X(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest))                    \
  X(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm))                                     \
  X(int, Topo_test, (MPI_Comm comm, int* status))                                                                     \
  /* intercommunicators */                                                                                            \
  X(int, Intercomm_create,                                                                                            \
    (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm* newintercomm)) \
  X(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm* newintracomm))                                   \
  X(int, Comm_remote_size, (MPI_Comm comm, int* size))                                                                \
  X(int, Comm_remote_group, (MPI_Comm comm, MPI_Group * group))                                                      \
  X(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm))                            \
  X(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup))                          \
  X(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup))                          \
  /* memory, window attributes and names, status setters */                                                          \
  X(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void* baseptr))                                                   \
  X(int, Free_mem, (void* base))                                                                                      \
  X(int, Win_create_keyval,                                                                                           \
    (MPI_Win_copy_attr_function * copy_fn, MPI_Win_delete_attr_function * delete_fn, int* keyval, void* extra_state)) \
  X(int, Win_free_keyval, (int* keyval))                                                                              \
  X(int, Win_set_attr, (MPI_Win win, int keyval, void* attribute_val))                                               \
  X(int, Win_delete_attr, (MPI_Win win, int keyval))                                                                  \
  X(int, Win_set_name, (MPI_Win win, const char* name))                                                               \
  X(int, Win_get_name, (MPI_Win win, char* name, int* resultlen))                                                    \
  X(int, Type_set_name, (MPI_Datatype datatype, const char* name))                                                   \
  X(int, Type_get_name, (MPI_Datatype datatype, char* name, int* resultlen))                                         \
  X(int, Status_set_elements, (MPI_Status * status, MPI_Datatype datatype, int count))                               \
  X(int, Status_set_cancelled, (MPI_Status * status, int flag))                                                      \
  X(int, Bsend_init,                                                                                                  \
    (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request))     \
  /* MPI-1's names (deprecated; removed in MPI-3 but still in wide use) */                                            \
  X(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))                                                 \
  X(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler * errhandler))                                               \
  X(int, Address, (void* location, MPI_Aint* address))                                                               \
  X(int, Type_extent, (MPI_Datatype datatype, MPI_Aint * extent))                                                    \
  X(int, Type_lb, (MPI_Datatype datatype, MPI_Aint * displacement))                                                  \
  X(int, Type_ub, (MPI_Datatype datatype, MPI_Aint * displacement))                                                  \
  X(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype))  \
  X(int, Type_hindexed,                                                                                               \
    (int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype))         \
  X(int, Type_struct,                                                                                                 \
    (int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype types[], MPI_Datatype* newtype))         \
  X(int, Attr_put, (MPI_Comm comm, int keyval, void* attribute_val))                                                 \
  X(int, Attr_get, (MPI_Comm comm, int keyval, void* attribute_val, int* flag))                                      \
  X(int, Attr_delete, (MPI_Comm comm, int keyval))                                                                    \
  X(int, Keyval_create,                                                                                               \
    (MPI_Copy_function * copy_fn, MPI_Delete_function * delete_fn, int* keyval, void* extra_state))                  \
  X(int, Keyval_free, (int* keyval))                                                                                  \
  /* post/start/complete/wait, window error handlers */                                                               \
  X(int, Win_post, (MPI_Group group, int assert, MPI_Win win))                                                       \
  X(int, Win_start, (MPI_Group group, int assert, MPI_Win win))                                                      \
  X(int, Win_complete, (MPI_Win win))                                                                                 \
  X(int, Win_wait, (MPI_Win win))                                                                                     \
  X(int, Win_test, (MPI_Win win, int* flag))                                                                          \
  X(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))                                               \
  X(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler * errhandler))                                             \
  /* graph topologies, topology mapping */                                                                            \
  X(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank))                 \
  X(int, Graph_create,                                                                                                \
    (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm* comm_graph))        \
  X(int, Graphdims_get, (MPI_Comm comm, int* nnodes, int* nedges))                                                    \
  X(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))                          \
  X(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int* nneighbors))                                          \
  X(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))                             \
  X(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank))                 \
  /* distributed graph topologies, neighbourhood collectives */                                                      \
  X(int, Dist_graph_create_adjacent,                                                                                 \
    (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree,                 \
     const int destinations[], const int destweights[], MPI_Info info, int reorder, MPI_Comm* comm_dist_graph))      \
  X(int, Dist_graph_create,                                                                                          \
    (MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],                   \
     const int weights[], MPI_Info info, int reorder, MPI_Comm* comm_dist_graph))                                    \
  X(int, Dist_graph_neighbors_count, (MPI_Comm comm, int* indegree, int* outdegree, int* weighted))                  \
  X(int, Dist_graph_neighbors,                                                                                       \
    (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree, int destinations[],       \
     int destweights[]))                                                                                             \
  X(int, Neighbor_allgather,                                                                                         \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, \
     MPI_Comm comm))                                                                                                 \
  X(int, Neighbor_allgatherv,                                                                                        \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],               \
     const int displs[], MPI_Datatype recvtype, MPI_Comm comm))                                                      \
  X(int, Neighbor_alltoall,                                                                                          \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, \
     MPI_Comm comm))                                                                                                 \
  X(int, Neighbor_alltoallv,                                                                                         \
    (const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf,         \
     const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))                             \
  X(int, Neighbor_alltoallw,                                                                                         \
    (const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],          \
     void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],                \
     MPI_Comm comm))                                                                                                 \
  X(int, Ineighbor_allgather,                                                                                        \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, \
     MPI_Comm comm, MPI_Request* request))                                                                           \
  X(int, Ineighbor_allgatherv,                                                                                       \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],               \
     const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))                                \
  X(int, Ineighbor_alltoall,                                                                                         \
    (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, \
     MPI_Comm comm, MPI_Request* request))                                                                           \
  X(int, Ineighbor_alltoallv,                                                                                        \
    (const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf,         \
     const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))       \
  X(int, Ineighbor_alltoallw,                                                                                        \
    (const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],          \
     void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],                \
     MPI_Comm comm, MPI_Request* request))                                                                           \
  /* generalized requests, error handlers and codes, hints, type attributes, spawn (unsupported) */                   \
  X(int, Grequest_start,                                                                                              \
    (MPI_Grequest_query_function * query_fn, MPI_Grequest_free_function * free_fn,                                    \
     MPI_Grequest_cancel_function * cancel_fn, void* extra_state, MPI_Request* request))                              \
  X(int, Grequest_complete, (MPI_Request request))                                                                    \
  X(int, Comm_create_errhandler, (MPI_Comm_errhandler_function * function, MPI_Errhandler * errhandler))              \
  X(int, Win_create_errhandler, (MPI_Win_errhandler_function * function, MPI_Errhandler * errhandler))                \
  X(int, Win_call_errhandler, (MPI_Win win, int errorcode))                                                           \
  X(int, Errhandler_create, (MPI_Handler_function * function, MPI_Errhandler * errhandler))                           \
  X(int, Add_error_class, (int* errorclass))                                                                          \
  X(int, Add_error_code, (int errorclass, int* errorcode))                                                            \
  X(int, Add_error_string, (int errorcode, const char* string))                                                       \
  X(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))                                                               \
  X(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))                                                            \
  X(int, Pcontrol, (const int level, ...))                                                                            \
  X(int, Rsend_init,                                                                                                  \
    (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,                             \
     MPI_Request* request))                                                                                           \
  X(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm * newcomm))                                      \
  X(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))                                                               \
  X(int, Comm_get_info, (MPI_Comm comm, MPI_Info * info_used))                                                        \
  X(int, Comm_idup, (MPI_Comm comm, MPI_Comm * newcomm, MPI_Request * request))                                       \
  X(int, Type_create_keyval,                                                                                          \
    (MPI_Type_copy_attr_function * copy_fn, MPI_Type_delete_attr_function * delete_fn,                                \
     int* keyval, void* extra_state))                                                                                 \
  X(int, Type_free_keyval, (int* keyval))                                                                             \
  X(int, Type_set_attr, (MPI_Datatype datatype, int keyval, void* attribute_val))                                     \
  X(int, Type_get_attr, (MPI_Datatype datatype, int keyval, void* attribute_val, int* flag))                          \
  X(int, Type_delete_attr, (MPI_Datatype datatype, int keyval))                                                       \
  X(int, Type_match_size, (int typeclass, int size, MPI_Datatype* datatype))                                          \
  X(int, Type_create_f90_integer, (int r, MPI_Datatype* newtype))                                                     \
  X(int, Type_create_f90_real, (int p, int r, MPI_Datatype* newtype))                                                 \
  X(int, Type_create_f90_complex, (int p, int r, MPI_Datatype* newtype))                                              \
  X(int, Comm_get_parent, (MPI_Comm * parent))                                                                        \
  X(int, Comm_spawn,                                                                                                  \
    (const char* command, char* argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,                         \
     MPI_Comm* intercomm, int array_of_errcodes[]))                                                                   \
  X(int, Comm_spawn_multiple,                                                                                         \
    (int count, char* array_of_commands[], char** array_of_argv[], const int array_of_maxprocs[],                     \
     const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm* intercomm, int array_of_errcodes[]))          \
  X(int, Open_port, (MPI_Info info, char* port_name))                                                                 \
  X(int, Close_port, (const char* port_name))                                                                         \
  X(int, Comm_accept, (const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm))             \
  X(int, Comm_connect, (const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm))            \
  X(int, Publish_name, (const char* service_name, MPI_Info info, const char* port_name))                              \
  X(int, Unpublish_name, (const char* service_name, MPI_Info info, const char* port_name))                            \
  X(int, Lookup_name, (const char* service_name, MPI_Info info, char* port_name))                                     \
  X(int, Comm_join, (int fd, MPI_Comm * intercomm))                                                                   \
  X(int, Comm_disconnect, (MPI_Comm * comm))                                                                          \
  X(int, Type_create_darray,                                                                                          \
    (int size, int rank, int ndims, const int gsizes[], const int distribs[], const int dargs[], const int psizes[], \
     int order, MPI_Datatype oldtype, MPI_Datatype* newtype))

/* The functions' link names are AMPI_<name> and PAMPI_<name>, so that an
 * Adaptive MPI program can run on roam's MPI transport, whose MPI library
 * owns the MPI_ names. Programs (and profiling tools) use the MPI_ and
 * PMPI_ names as usual. */
#define MPI_Init AMPI_Init
#define PMPI_Init PAMPI_Init
#define MPI_Init_thread AMPI_Init_thread
#define PMPI_Init_thread PAMPI_Init_thread
#define MPI_Finalize AMPI_Finalize
#define PMPI_Finalize PAMPI_Finalize
#define MPI_Initialized AMPI_Initialized
#define PMPI_Initialized PAMPI_Initialized
#define MPI_Finalized AMPI_Finalized
#define PMPI_Finalized PAMPI_Finalized
#define MPI_Abort AMPI_Abort
#define PMPI_Abort PAMPI_Abort
#define MPI_Query_thread AMPI_Query_thread
#define PMPI_Query_thread PAMPI_Query_thread
#define MPI_Is_thread_main AMPI_Is_thread_main
#define PMPI_Is_thread_main PAMPI_Is_thread_main
#define MPI_Get_version AMPI_Get_version
#define PMPI_Get_version PAMPI_Get_version
#define MPI_Get_library_version AMPI_Get_library_version
#define PMPI_Get_library_version PAMPI_Get_library_version
#define MPI_Get_processor_name AMPI_Get_processor_name
#define PMPI_Get_processor_name PAMPI_Get_processor_name
#define MPI_Wtime AMPI_Wtime
#define PMPI_Wtime PAMPI_Wtime
#define MPI_Wtick AMPI_Wtick
#define PMPI_Wtick PAMPI_Wtick
#define MPI_Error_string AMPI_Error_string
#define PMPI_Error_string PAMPI_Error_string
#define MPI_Error_class AMPI_Error_class
#define PMPI_Error_class PAMPI_Error_class
#define MPI_Comm_set_errhandler AMPI_Comm_set_errhandler
#define PMPI_Comm_set_errhandler PAMPI_Comm_set_errhandler
#define MPI_Comm_get_errhandler AMPI_Comm_get_errhandler
#define PMPI_Comm_get_errhandler PAMPI_Comm_get_errhandler
#define MPI_Errhandler_free AMPI_Errhandler_free
#define PMPI_Errhandler_free PAMPI_Errhandler_free
#define MPI_Comm_call_errhandler AMPI_Comm_call_errhandler
#define PMPI_Comm_call_errhandler PAMPI_Comm_call_errhandler
#define MPI_Comm_rank AMPI_Comm_rank
#define PMPI_Comm_rank PAMPI_Comm_rank
#define MPI_Comm_size AMPI_Comm_size
#define PMPI_Comm_size PAMPI_Comm_size
#define MPI_Comm_dup AMPI_Comm_dup
#define PMPI_Comm_dup PAMPI_Comm_dup
#define MPI_Comm_split AMPI_Comm_split
#define PMPI_Comm_split PAMPI_Comm_split
#define MPI_Comm_split_type AMPI_Comm_split_type
#define PMPI_Comm_split_type PAMPI_Comm_split_type
#define MPI_Comm_create AMPI_Comm_create
#define PMPI_Comm_create PAMPI_Comm_create
#define MPI_Comm_free AMPI_Comm_free
#define PMPI_Comm_free PAMPI_Comm_free
#define MPI_Comm_compare AMPI_Comm_compare
#define PMPI_Comm_compare PAMPI_Comm_compare
#define MPI_Comm_group AMPI_Comm_group
#define PMPI_Comm_group PAMPI_Comm_group
#define MPI_Comm_test_inter AMPI_Comm_test_inter
#define PMPI_Comm_test_inter PAMPI_Comm_test_inter
#define MPI_Comm_set_name AMPI_Comm_set_name
#define PMPI_Comm_set_name PAMPI_Comm_set_name
#define MPI_Comm_get_name AMPI_Comm_get_name
#define PMPI_Comm_get_name PAMPI_Comm_get_name
#define MPI_Group_size AMPI_Group_size
#define PMPI_Group_size PAMPI_Group_size
#define MPI_Group_rank AMPI_Group_rank
#define PMPI_Group_rank PAMPI_Group_rank
#define MPI_Group_free AMPI_Group_free
#define PMPI_Group_free PAMPI_Group_free
#define MPI_Group_incl AMPI_Group_incl
#define PMPI_Group_incl PAMPI_Group_incl
#define MPI_Group_excl AMPI_Group_excl
#define PMPI_Group_excl PAMPI_Group_excl
#define MPI_Group_union AMPI_Group_union
#define PMPI_Group_union PAMPI_Group_union
#define MPI_Group_intersection AMPI_Group_intersection
#define PMPI_Group_intersection PAMPI_Group_intersection
#define MPI_Group_difference AMPI_Group_difference
#define PMPI_Group_difference PAMPI_Group_difference
#define MPI_Group_translate_ranks AMPI_Group_translate_ranks
#define PMPI_Group_translate_ranks PAMPI_Group_translate_ranks
#define MPI_Group_compare AMPI_Group_compare
#define PMPI_Group_compare PAMPI_Group_compare
#define MPI_Send AMPI_Send
#define PMPI_Send PAMPI_Send
#define MPI_Ssend AMPI_Ssend
#define PMPI_Ssend PAMPI_Ssend
#define MPI_Bsend AMPI_Bsend
#define PMPI_Bsend PAMPI_Bsend
#define MPI_Rsend AMPI_Rsend
#define PMPI_Rsend PAMPI_Rsend
#define MPI_Recv AMPI_Recv
#define PMPI_Recv PAMPI_Recv
#define MPI_Isend AMPI_Isend
#define PMPI_Isend PAMPI_Isend
#define MPI_Issend AMPI_Issend
#define PMPI_Issend PAMPI_Issend
#define MPI_Ibsend AMPI_Ibsend
#define PMPI_Ibsend PAMPI_Ibsend
#define MPI_Irsend AMPI_Irsend
#define PMPI_Irsend PAMPI_Irsend
#define MPI_Irecv AMPI_Irecv
#define PMPI_Irecv PAMPI_Irecv
#define MPI_Send_init AMPI_Send_init
#define PMPI_Send_init PAMPI_Send_init
#define MPI_Ssend_init AMPI_Ssend_init
#define PMPI_Ssend_init PAMPI_Ssend_init
#define MPI_Recv_init AMPI_Recv_init
#define PMPI_Recv_init PAMPI_Recv_init
#define MPI_Start AMPI_Start
#define PMPI_Start PAMPI_Start
#define MPI_Startall AMPI_Startall
#define PMPI_Startall PAMPI_Startall
#define MPI_Sendrecv AMPI_Sendrecv
#define PMPI_Sendrecv PAMPI_Sendrecv
#define MPI_Sendrecv_replace AMPI_Sendrecv_replace
#define PMPI_Sendrecv_replace PAMPI_Sendrecv_replace
#define MPI_Probe AMPI_Probe
#define PMPI_Probe PAMPI_Probe
#define MPI_Iprobe AMPI_Iprobe
#define PMPI_Iprobe PAMPI_Iprobe
#define MPI_Mprobe AMPI_Mprobe
#define PMPI_Mprobe PAMPI_Mprobe
#define MPI_Improbe AMPI_Improbe
#define PMPI_Improbe PAMPI_Improbe
#define MPI_Mrecv AMPI_Mrecv
#define PMPI_Mrecv PAMPI_Mrecv
#define MPI_Imrecv AMPI_Imrecv
#define PMPI_Imrecv PAMPI_Imrecv
#define MPI_Get_count AMPI_Get_count
#define PMPI_Get_count PAMPI_Get_count
#define MPI_Get_elements AMPI_Get_elements
#define PMPI_Get_elements PAMPI_Get_elements
#define MPI_Wait AMPI_Wait
#define PMPI_Wait PAMPI_Wait
#define MPI_Waitall AMPI_Waitall
#define PMPI_Waitall PAMPI_Waitall
#define MPI_Waitany AMPI_Waitany
#define PMPI_Waitany PAMPI_Waitany
#define MPI_Waitsome AMPI_Waitsome
#define PMPI_Waitsome PAMPI_Waitsome
#define MPI_Test AMPI_Test
#define PMPI_Test PAMPI_Test
#define MPI_Testall AMPI_Testall
#define PMPI_Testall PAMPI_Testall
#define MPI_Testany AMPI_Testany
#define PMPI_Testany PAMPI_Testany
#define MPI_Testsome AMPI_Testsome
#define PMPI_Testsome PAMPI_Testsome
#define MPI_Request_free AMPI_Request_free
#define PMPI_Request_free PAMPI_Request_free
#define MPI_Request_get_status AMPI_Request_get_status
#define PMPI_Request_get_status PAMPI_Request_get_status
#define MPI_Cancel AMPI_Cancel
#define PMPI_Cancel PAMPI_Cancel
#define MPI_Test_cancelled AMPI_Test_cancelled
#define PMPI_Test_cancelled PAMPI_Test_cancelled
#define MPI_Buffer_attach AMPI_Buffer_attach
#define PMPI_Buffer_attach PAMPI_Buffer_attach
#define MPI_Buffer_detach AMPI_Buffer_detach
#define PMPI_Buffer_detach PAMPI_Buffer_detach
#define MPI_Type_contiguous AMPI_Type_contiguous
#define PMPI_Type_contiguous PAMPI_Type_contiguous
#define MPI_Type_vector AMPI_Type_vector
#define PMPI_Type_vector PAMPI_Type_vector
#define MPI_Type_create_hvector AMPI_Type_create_hvector
#define PMPI_Type_create_hvector PAMPI_Type_create_hvector
#define MPI_Type_indexed AMPI_Type_indexed
#define PMPI_Type_indexed PAMPI_Type_indexed
#define MPI_Type_create_hindexed AMPI_Type_create_hindexed
#define PMPI_Type_create_hindexed PAMPI_Type_create_hindexed
#define MPI_Type_create_indexed_block AMPI_Type_create_indexed_block
#define PMPI_Type_create_indexed_block PAMPI_Type_create_indexed_block
#define MPI_Type_create_hindexed_block AMPI_Type_create_hindexed_block
#define PMPI_Type_create_hindexed_block PAMPI_Type_create_hindexed_block
#define MPI_Type_create_struct AMPI_Type_create_struct
#define PMPI_Type_create_struct PAMPI_Type_create_struct
#define MPI_Type_create_subarray AMPI_Type_create_subarray
#define PMPI_Type_create_subarray PAMPI_Type_create_subarray
#define MPI_Type_create_resized AMPI_Type_create_resized
#define PMPI_Type_create_resized PAMPI_Type_create_resized
#define MPI_Type_dup AMPI_Type_dup
#define PMPI_Type_dup PAMPI_Type_dup
#define MPI_Type_commit AMPI_Type_commit
#define PMPI_Type_commit PAMPI_Type_commit
#define MPI_Type_free AMPI_Type_free
#define PMPI_Type_free PAMPI_Type_free
#define MPI_Type_size AMPI_Type_size
#define PMPI_Type_size PAMPI_Type_size
#define MPI_Type_size_x AMPI_Type_size_x
#define PMPI_Type_size_x PAMPI_Type_size_x
#define MPI_Type_get_extent AMPI_Type_get_extent
#define PMPI_Type_get_extent PAMPI_Type_get_extent
#define MPI_Type_get_envelope AMPI_Type_get_envelope
#define PMPI_Type_get_envelope PAMPI_Type_get_envelope
#define MPI_Type_get_contents AMPI_Type_get_contents
#define PMPI_Type_get_contents PAMPI_Type_get_contents
#define MPI_Type_get_true_extent AMPI_Type_get_true_extent
#define PMPI_Type_get_true_extent PAMPI_Type_get_true_extent
#define MPI_Get_address AMPI_Get_address
#define PMPI_Get_address PAMPI_Get_address
#define MPI_Pack AMPI_Pack
#define PMPI_Pack PAMPI_Pack
#define MPI_Unpack AMPI_Unpack
#define PMPI_Unpack PAMPI_Unpack
#define MPI_Pack_size AMPI_Pack_size
#define PMPI_Pack_size PAMPI_Pack_size
#define MPI_Pack_external AMPI_Pack_external
#define PMPI_Pack_external PAMPI_Pack_external
#define MPI_Unpack_external AMPI_Unpack_external
#define PMPI_Unpack_external PAMPI_Unpack_external
#define MPI_Pack_external_size AMPI_Pack_external_size
#define PMPI_Pack_external_size PAMPI_Pack_external_size
#define MPI_Barrier AMPI_Barrier
#define PMPI_Barrier PAMPI_Barrier
#define MPI_Bcast AMPI_Bcast
#define PMPI_Bcast PAMPI_Bcast
#define MPI_Reduce AMPI_Reduce
#define PMPI_Reduce PAMPI_Reduce
#define MPI_Allreduce AMPI_Allreduce
#define PMPI_Allreduce PAMPI_Allreduce
#define MPI_Reduce_local AMPI_Reduce_local
#define PMPI_Reduce_local PAMPI_Reduce_local
#define MPI_Reduce_scatter_block AMPI_Reduce_scatter_block
#define PMPI_Reduce_scatter_block PAMPI_Reduce_scatter_block
#define MPI_Reduce_scatter AMPI_Reduce_scatter
#define PMPI_Reduce_scatter PAMPI_Reduce_scatter
#define MPI_Scan AMPI_Scan
#define PMPI_Scan PAMPI_Scan
#define MPI_Exscan AMPI_Exscan
#define PMPI_Exscan PAMPI_Exscan
#define MPI_Gather AMPI_Gather
#define PMPI_Gather PAMPI_Gather
#define MPI_Gatherv AMPI_Gatherv
#define PMPI_Gatherv PAMPI_Gatherv
#define MPI_Scatter AMPI_Scatter
#define PMPI_Scatter PAMPI_Scatter
#define MPI_Scatterv AMPI_Scatterv
#define PMPI_Scatterv PAMPI_Scatterv
#define MPI_Allgather AMPI_Allgather
#define PMPI_Allgather PAMPI_Allgather
#define MPI_Allgatherv AMPI_Allgatherv
#define PMPI_Allgatherv PAMPI_Allgatherv
#define MPI_Alltoall AMPI_Alltoall
#define PMPI_Alltoall PAMPI_Alltoall
#define MPI_Alltoallv AMPI_Alltoallv
#define PMPI_Alltoallv PAMPI_Alltoallv
#define MPI_Alltoallw AMPI_Alltoallw
#define PMPI_Alltoallw PAMPI_Alltoallw
#define MPI_Ibarrier AMPI_Ibarrier
#define PMPI_Ibarrier PAMPI_Ibarrier
#define MPI_Ibcast AMPI_Ibcast
#define PMPI_Ibcast PAMPI_Ibcast
#define MPI_Ireduce AMPI_Ireduce
#define PMPI_Ireduce PAMPI_Ireduce
#define MPI_Iallreduce AMPI_Iallreduce
#define PMPI_Iallreduce PAMPI_Iallreduce
#define MPI_Ireduce_scatter_block AMPI_Ireduce_scatter_block
#define PMPI_Ireduce_scatter_block PAMPI_Ireduce_scatter_block
#define MPI_Ireduce_scatter AMPI_Ireduce_scatter
#define PMPI_Ireduce_scatter PAMPI_Ireduce_scatter
#define MPI_Iscan AMPI_Iscan
#define PMPI_Iscan PAMPI_Iscan
#define MPI_Iexscan AMPI_Iexscan
#define PMPI_Iexscan PAMPI_Iexscan
#define MPI_Igather AMPI_Igather
#define PMPI_Igather PAMPI_Igather
#define MPI_Igatherv AMPI_Igatherv
#define PMPI_Igatherv PAMPI_Igatherv
#define MPI_Iscatter AMPI_Iscatter
#define PMPI_Iscatter PAMPI_Iscatter
#define MPI_Iscatterv AMPI_Iscatterv
#define PMPI_Iscatterv PAMPI_Iscatterv
#define MPI_Iallgather AMPI_Iallgather
#define PMPI_Iallgather PAMPI_Iallgather
#define MPI_Iallgatherv AMPI_Iallgatherv
#define PMPI_Iallgatherv PAMPI_Iallgatherv
#define MPI_Ialltoall AMPI_Ialltoall
#define PMPI_Ialltoall PAMPI_Ialltoall
#define MPI_Ialltoallv AMPI_Ialltoallv
#define PMPI_Ialltoallv PAMPI_Ialltoallv
#define MPI_Ialltoallw AMPI_Ialltoallw
#define PMPI_Ialltoallw PAMPI_Ialltoallw
#define MPI_Win_create AMPI_Win_create
#define PMPI_Win_create PAMPI_Win_create
#define MPI_Win_allocate AMPI_Win_allocate
#define PMPI_Win_allocate PAMPI_Win_allocate
#define MPI_Win_free AMPI_Win_free
#define PMPI_Win_free PAMPI_Win_free
#define MPI_Win_fence AMPI_Win_fence
#define PMPI_Win_fence PAMPI_Win_fence
#define MPI_Win_lock AMPI_Win_lock
#define PMPI_Win_lock PAMPI_Win_lock
#define MPI_Win_unlock AMPI_Win_unlock
#define PMPI_Win_unlock PAMPI_Win_unlock
#define MPI_Win_get_attr AMPI_Win_get_attr
#define PMPI_Win_get_attr PAMPI_Win_get_attr
#define MPI_Win_get_group AMPI_Win_get_group
#define PMPI_Win_get_group PAMPI_Win_get_group
#define MPI_Put AMPI_Put
#define PMPI_Put PAMPI_Put
#define MPI_Get AMPI_Get
#define PMPI_Get PAMPI_Get
#define MPI_Accumulate AMPI_Accumulate
#define PMPI_Accumulate PAMPI_Accumulate
#define MPI_Get_accumulate AMPI_Get_accumulate
#define PMPI_Get_accumulate PAMPI_Get_accumulate
#define MPI_Fetch_and_op AMPI_Fetch_and_op
#define PMPI_Fetch_and_op PAMPI_Fetch_and_op
#define MPI_Compare_and_swap AMPI_Compare_and_swap
#define PMPI_Compare_and_swap PAMPI_Compare_and_swap
#define MPI_Win_lock_all AMPI_Win_lock_all
#define PMPI_Win_lock_all PAMPI_Win_lock_all
#define MPI_Win_unlock_all AMPI_Win_unlock_all
#define PMPI_Win_unlock_all PAMPI_Win_unlock_all
#define MPI_Win_flush AMPI_Win_flush
#define PMPI_Win_flush PAMPI_Win_flush
#define MPI_Win_flush_all AMPI_Win_flush_all
#define PMPI_Win_flush_all PAMPI_Win_flush_all
#define MPI_Rput AMPI_Rput
#define PMPI_Rput PAMPI_Rput
#define MPI_Rget AMPI_Rget
#define PMPI_Rget PAMPI_Rget
#define MPI_Raccumulate AMPI_Raccumulate
#define PMPI_Raccumulate PAMPI_Raccumulate
#define MPI_Rget_accumulate AMPI_Rget_accumulate
#define PMPI_Rget_accumulate PAMPI_Rget_accumulate
#define MPI_Win_flush_local AMPI_Win_flush_local
#define PMPI_Win_flush_local PAMPI_Win_flush_local
#define MPI_Win_flush_local_all AMPI_Win_flush_local_all
#define PMPI_Win_flush_local_all PAMPI_Win_flush_local_all
#define MPI_Win_sync AMPI_Win_sync
#define PMPI_Win_sync PAMPI_Win_sync
#define MPI_Win_set_info AMPI_Win_set_info
#define PMPI_Win_set_info PAMPI_Win_set_info
#define MPI_Win_get_info AMPI_Win_get_info
#define PMPI_Win_get_info PAMPI_Win_get_info
#define MPI_Win_create_dynamic AMPI_Win_create_dynamic
#define PMPI_Win_create_dynamic PAMPI_Win_create_dynamic
#define MPI_Win_attach AMPI_Win_attach
#define PMPI_Win_attach PAMPI_Win_attach
#define MPI_Win_detach AMPI_Win_detach
#define PMPI_Win_detach PAMPI_Win_detach
#define MPI_Win_allocate_shared AMPI_Win_allocate_shared
#define PMPI_Win_allocate_shared PAMPI_Win_allocate_shared
#define MPI_Win_shared_query AMPI_Win_shared_query
#define PMPI_Win_shared_query PAMPI_Win_shared_query
#define MPI_Op_create AMPI_Op_create
#define PMPI_Op_create PAMPI_Op_create
#define MPI_Op_free AMPI_Op_free
#define PMPI_Op_free PAMPI_Op_free
#define MPI_Op_commutative AMPI_Op_commutative
#define PMPI_Op_commutative PAMPI_Op_commutative
#define MPI_Info_create AMPI_Info_create
#define PMPI_Info_create PAMPI_Info_create
#define MPI_Info_set AMPI_Info_set
#define PMPI_Info_set PAMPI_Info_set
#define MPI_Info_get AMPI_Info_get
#define PMPI_Info_get PAMPI_Info_get
#define MPI_Info_get_valuelen AMPI_Info_get_valuelen
#define PMPI_Info_get_valuelen PAMPI_Info_get_valuelen
#define MPI_Info_get_nkeys AMPI_Info_get_nkeys
#define PMPI_Info_get_nkeys PAMPI_Info_get_nkeys
#define MPI_Info_get_nthkey AMPI_Info_get_nthkey
#define PMPI_Info_get_nthkey PAMPI_Info_get_nthkey
#define MPI_Info_delete AMPI_Info_delete
#define PMPI_Info_delete PAMPI_Info_delete
#define MPI_Info_dup AMPI_Info_dup
#define PMPI_Info_dup PAMPI_Info_dup
#define MPI_Info_free AMPI_Info_free
#define PMPI_Info_free PAMPI_Info_free
#define MPI_Comm_get_attr AMPI_Comm_get_attr
#define PMPI_Comm_get_attr PAMPI_Comm_get_attr
#define MPI_Comm_set_attr AMPI_Comm_set_attr
#define PMPI_Comm_set_attr PAMPI_Comm_set_attr
#define MPI_Comm_delete_attr AMPI_Comm_delete_attr
#define PMPI_Comm_delete_attr PAMPI_Comm_delete_attr
#define MPI_Comm_create_keyval AMPI_Comm_create_keyval
#define PMPI_Comm_create_keyval PAMPI_Comm_create_keyval
#define MPI_Comm_free_keyval AMPI_Comm_free_keyval
#define PMPI_Comm_free_keyval PAMPI_Comm_free_keyval
#define MPI_Dims_create AMPI_Dims_create
#define PMPI_Dims_create PAMPI_Dims_create
#define MPI_Cart_create AMPI_Cart_create
#define PMPI_Cart_create PAMPI_Cart_create
#define MPI_Cart_get AMPI_Cart_get
#define PMPI_Cart_get PAMPI_Cart_get
#define MPI_Cartdim_get AMPI_Cartdim_get
#define PMPI_Cartdim_get PAMPI_Cartdim_get
#define MPI_Cart_rank AMPI_Cart_rank
#define PMPI_Cart_rank PAMPI_Cart_rank
#define MPI_Cart_coords AMPI_Cart_coords
#define PMPI_Cart_coords PAMPI_Cart_coords
#define MPI_Cart_shift AMPI_Cart_shift
#define PMPI_Cart_shift PAMPI_Cart_shift
#define MPI_Cart_sub AMPI_Cart_sub
#define PMPI_Cart_sub PAMPI_Cart_sub
#define MPI_Topo_test AMPI_Topo_test
#define PMPI_Topo_test PAMPI_Topo_test
#define MPI_Intercomm_create AMPI_Intercomm_create
#define PMPI_Intercomm_create PAMPI_Intercomm_create
#define MPI_Intercomm_merge AMPI_Intercomm_merge
#define PMPI_Intercomm_merge PAMPI_Intercomm_merge
#define MPI_Comm_remote_size AMPI_Comm_remote_size
#define PMPI_Comm_remote_size PAMPI_Comm_remote_size
#define MPI_Comm_remote_group AMPI_Comm_remote_group
#define PMPI_Comm_remote_group PAMPI_Comm_remote_group
#define MPI_Comm_create_group AMPI_Comm_create_group
#define PMPI_Comm_create_group PAMPI_Comm_create_group
#define MPI_Group_range_incl AMPI_Group_range_incl
#define PMPI_Group_range_incl PAMPI_Group_range_incl
#define MPI_Group_range_excl AMPI_Group_range_excl
#define PMPI_Group_range_excl PAMPI_Group_range_excl
#define MPI_Alloc_mem AMPI_Alloc_mem
#define PMPI_Alloc_mem PAMPI_Alloc_mem
#define MPI_Free_mem AMPI_Free_mem
#define PMPI_Free_mem PAMPI_Free_mem
#define MPI_Win_create_keyval AMPI_Win_create_keyval
#define PMPI_Win_create_keyval PAMPI_Win_create_keyval
#define MPI_Win_free_keyval AMPI_Win_free_keyval
#define PMPI_Win_free_keyval PAMPI_Win_free_keyval
#define MPI_Win_set_attr AMPI_Win_set_attr
#define PMPI_Win_set_attr PAMPI_Win_set_attr
#define MPI_Win_delete_attr AMPI_Win_delete_attr
#define PMPI_Win_delete_attr PAMPI_Win_delete_attr
#define MPI_Win_set_name AMPI_Win_set_name
#define PMPI_Win_set_name PAMPI_Win_set_name
#define MPI_Win_get_name AMPI_Win_get_name
#define PMPI_Win_get_name PAMPI_Win_get_name
#define MPI_Type_set_name AMPI_Type_set_name
#define PMPI_Type_set_name PAMPI_Type_set_name
#define MPI_Type_get_name AMPI_Type_get_name
#define PMPI_Type_get_name PAMPI_Type_get_name
#define MPI_Status_set_elements AMPI_Status_set_elements
#define PMPI_Status_set_elements PAMPI_Status_set_elements
#define MPI_Status_set_cancelled AMPI_Status_set_cancelled
#define PMPI_Status_set_cancelled PAMPI_Status_set_cancelled
#define MPI_Bsend_init AMPI_Bsend_init
#define PMPI_Bsend_init PAMPI_Bsend_init
#define MPI_Errhandler_set AMPI_Errhandler_set
#define PMPI_Errhandler_set PAMPI_Errhandler_set
#define MPI_Errhandler_get AMPI_Errhandler_get
#define PMPI_Errhandler_get PAMPI_Errhandler_get
#define MPI_Address AMPI_Address
#define PMPI_Address PAMPI_Address
#define MPI_Type_extent AMPI_Type_extent
#define PMPI_Type_extent PAMPI_Type_extent
#define MPI_Type_lb AMPI_Type_lb
#define PMPI_Type_lb PAMPI_Type_lb
#define MPI_Type_ub AMPI_Type_ub
#define PMPI_Type_ub PAMPI_Type_ub
#define MPI_Type_hvector AMPI_Type_hvector
#define PMPI_Type_hvector PAMPI_Type_hvector
#define MPI_Type_hindexed AMPI_Type_hindexed
#define PMPI_Type_hindexed PAMPI_Type_hindexed
#define MPI_Type_struct AMPI_Type_struct
#define PMPI_Type_struct PAMPI_Type_struct
#define MPI_Attr_put AMPI_Attr_put
#define PMPI_Attr_put PAMPI_Attr_put
#define MPI_Attr_get AMPI_Attr_get
#define PMPI_Attr_get PAMPI_Attr_get
#define MPI_Attr_delete AMPI_Attr_delete
#define PMPI_Attr_delete PAMPI_Attr_delete
#define MPI_Keyval_create AMPI_Keyval_create
#define PMPI_Keyval_create PAMPI_Keyval_create
#define MPI_Keyval_free AMPI_Keyval_free
#define PMPI_Keyval_free PAMPI_Keyval_free
#define MPI_Win_post AMPI_Win_post
#define PMPI_Win_post PAMPI_Win_post
#define MPI_Win_start AMPI_Win_start
#define PMPI_Win_start PAMPI_Win_start
#define MPI_Win_complete AMPI_Win_complete
#define PMPI_Win_complete PAMPI_Win_complete
#define MPI_Win_wait AMPI_Win_wait
#define PMPI_Win_wait PAMPI_Win_wait
#define MPI_Win_test AMPI_Win_test
#define PMPI_Win_test PAMPI_Win_test
#define MPI_Win_set_errhandler AMPI_Win_set_errhandler
#define PMPI_Win_set_errhandler PAMPI_Win_set_errhandler
#define MPI_Win_get_errhandler AMPI_Win_get_errhandler
#define PMPI_Win_get_errhandler PAMPI_Win_get_errhandler
#define MPI_Cart_map AMPI_Cart_map
#define PMPI_Cart_map PAMPI_Cart_map
#define MPI_Graph_create AMPI_Graph_create
#define PMPI_Graph_create PAMPI_Graph_create
#define MPI_Graphdims_get AMPI_Graphdims_get
#define PMPI_Graphdims_get PAMPI_Graphdims_get
#define MPI_Graph_get AMPI_Graph_get
#define PMPI_Graph_get PAMPI_Graph_get
#define MPI_Graph_neighbors_count AMPI_Graph_neighbors_count
#define PMPI_Graph_neighbors_count PAMPI_Graph_neighbors_count
#define MPI_Graph_neighbors AMPI_Graph_neighbors
#define PMPI_Graph_neighbors PAMPI_Graph_neighbors
#define MPI_Graph_map AMPI_Graph_map
#define PMPI_Graph_map PAMPI_Graph_map
#define MPI_Dist_graph_create_adjacent AMPI_Dist_graph_create_adjacent
#define PMPI_Dist_graph_create_adjacent PAMPI_Dist_graph_create_adjacent
#define MPI_Dist_graph_create AMPI_Dist_graph_create
#define PMPI_Dist_graph_create PAMPI_Dist_graph_create
#define MPI_Dist_graph_neighbors_count AMPI_Dist_graph_neighbors_count
#define PMPI_Dist_graph_neighbors_count PAMPI_Dist_graph_neighbors_count
#define MPI_Dist_graph_neighbors AMPI_Dist_graph_neighbors
#define PMPI_Dist_graph_neighbors PAMPI_Dist_graph_neighbors
#define MPI_Neighbor_allgather AMPI_Neighbor_allgather
#define PMPI_Neighbor_allgather PAMPI_Neighbor_allgather
#define MPI_Neighbor_allgatherv AMPI_Neighbor_allgatherv
#define PMPI_Neighbor_allgatherv PAMPI_Neighbor_allgatherv
#define MPI_Neighbor_alltoall AMPI_Neighbor_alltoall
#define PMPI_Neighbor_alltoall PAMPI_Neighbor_alltoall
#define MPI_Neighbor_alltoallv AMPI_Neighbor_alltoallv
#define PMPI_Neighbor_alltoallv PAMPI_Neighbor_alltoallv
#define MPI_Neighbor_alltoallw AMPI_Neighbor_alltoallw
#define PMPI_Neighbor_alltoallw PAMPI_Neighbor_alltoallw
#define MPI_Ineighbor_allgather AMPI_Ineighbor_allgather
#define PMPI_Ineighbor_allgather PAMPI_Ineighbor_allgather
#define MPI_Ineighbor_allgatherv AMPI_Ineighbor_allgatherv
#define PMPI_Ineighbor_allgatherv PAMPI_Ineighbor_allgatherv
#define MPI_Ineighbor_alltoall AMPI_Ineighbor_alltoall
#define PMPI_Ineighbor_alltoall PAMPI_Ineighbor_alltoall
#define MPI_Ineighbor_alltoallv AMPI_Ineighbor_alltoallv
#define PMPI_Ineighbor_alltoallv PAMPI_Ineighbor_alltoallv
#define MPI_Ineighbor_alltoallw AMPI_Ineighbor_alltoallw
#define PMPI_Ineighbor_alltoallw PAMPI_Ineighbor_alltoallw
#define MPI_Grequest_start AMPI_Grequest_start
#define PMPI_Grequest_start PAMPI_Grequest_start
#define MPI_Grequest_complete AMPI_Grequest_complete
#define PMPI_Grequest_complete PAMPI_Grequest_complete
#define MPI_Comm_create_errhandler AMPI_Comm_create_errhandler
#define PMPI_Comm_create_errhandler PAMPI_Comm_create_errhandler
#define MPI_Win_create_errhandler AMPI_Win_create_errhandler
#define PMPI_Win_create_errhandler PAMPI_Win_create_errhandler
#define MPI_Win_call_errhandler AMPI_Win_call_errhandler
#define PMPI_Win_call_errhandler PAMPI_Win_call_errhandler
#define MPI_Errhandler_create AMPI_Errhandler_create
#define PMPI_Errhandler_create PAMPI_Errhandler_create
#define MPI_Add_error_class AMPI_Add_error_class
#define PMPI_Add_error_class PAMPI_Add_error_class
#define MPI_Add_error_code AMPI_Add_error_code
#define PMPI_Add_error_code PAMPI_Add_error_code
#define MPI_Add_error_string AMPI_Add_error_string
#define PMPI_Add_error_string PAMPI_Add_error_string
#define MPI_Aint_add AMPI_Aint_add
#define PMPI_Aint_add PAMPI_Aint_add
#define MPI_Aint_diff AMPI_Aint_diff
#define PMPI_Aint_diff PAMPI_Aint_diff
#define MPI_Pcontrol AMPI_Pcontrol
#define PMPI_Pcontrol PAMPI_Pcontrol
#define MPI_Rsend_init AMPI_Rsend_init
#define PMPI_Rsend_init PAMPI_Rsend_init
#define MPI_Comm_dup_with_info AMPI_Comm_dup_with_info
#define PMPI_Comm_dup_with_info PAMPI_Comm_dup_with_info
#define MPI_Comm_set_info AMPI_Comm_set_info
#define PMPI_Comm_set_info PAMPI_Comm_set_info
#define MPI_Comm_get_info AMPI_Comm_get_info
#define PMPI_Comm_get_info PAMPI_Comm_get_info
#define MPI_Comm_idup AMPI_Comm_idup
#define PMPI_Comm_idup PAMPI_Comm_idup
#define MPI_Type_create_keyval AMPI_Type_create_keyval
#define PMPI_Type_create_keyval PAMPI_Type_create_keyval
#define MPI_Type_free_keyval AMPI_Type_free_keyval
#define PMPI_Type_free_keyval PAMPI_Type_free_keyval
#define MPI_Type_set_attr AMPI_Type_set_attr
#define PMPI_Type_set_attr PAMPI_Type_set_attr
#define MPI_Type_get_attr AMPI_Type_get_attr
#define PMPI_Type_get_attr PAMPI_Type_get_attr
#define MPI_Type_delete_attr AMPI_Type_delete_attr
#define PMPI_Type_delete_attr PAMPI_Type_delete_attr
#define MPI_Type_match_size AMPI_Type_match_size
#define PMPI_Type_match_size PAMPI_Type_match_size
#define MPI_Type_create_f90_integer AMPI_Type_create_f90_integer
#define PMPI_Type_create_f90_integer PAMPI_Type_create_f90_integer
#define MPI_Type_create_f90_real AMPI_Type_create_f90_real
#define PMPI_Type_create_f90_real PAMPI_Type_create_f90_real
#define MPI_Type_create_f90_complex AMPI_Type_create_f90_complex
#define PMPI_Type_create_f90_complex PAMPI_Type_create_f90_complex
#define MPI_Comm_get_parent AMPI_Comm_get_parent
#define PMPI_Comm_get_parent PAMPI_Comm_get_parent
#define MPI_Comm_spawn AMPI_Comm_spawn
#define PMPI_Comm_spawn PAMPI_Comm_spawn
#define MPI_Comm_spawn_multiple AMPI_Comm_spawn_multiple
#define PMPI_Comm_spawn_multiple PAMPI_Comm_spawn_multiple
#define MPI_Open_port AMPI_Open_port
#define PMPI_Open_port PAMPI_Open_port
#define MPI_Close_port AMPI_Close_port
#define PMPI_Close_port PAMPI_Close_port
#define MPI_Comm_accept AMPI_Comm_accept
#define PMPI_Comm_accept PAMPI_Comm_accept
#define MPI_Comm_connect AMPI_Comm_connect
#define PMPI_Comm_connect PAMPI_Comm_connect
#define MPI_Publish_name AMPI_Publish_name
#define PMPI_Publish_name PAMPI_Publish_name
#define MPI_Unpublish_name AMPI_Unpublish_name
#define PMPI_Unpublish_name PAMPI_Unpublish_name
#define MPI_Lookup_name AMPI_Lookup_name
#define PMPI_Lookup_name PAMPI_Lookup_name
#define MPI_Comm_join AMPI_Comm_join
#define PMPI_Comm_join PAMPI_Comm_join
#define MPI_Comm_disconnect AMPI_Comm_disconnect
#define PMPI_Comm_disconnect PAMPI_Comm_disconnect
#define MPI_Type_create_darray AMPI_Type_create_darray
#define PMPI_Type_create_darray PAMPI_Type_create_darray

#define ROAM_AMPI_DECLARE(ret, name, params) ret MPI_##name params; ret PMPI_##name params;
ROAM_AMPI_FUNCTIONS(ROAM_AMPI_DECLARE)
#undef ROAM_AMPI_DECLARE

/* ---- Adaptive MPI's extensions ----------------------------------------- */
/* AMPI_Migrate(info): a sync point for load balancing or a checkpoint
 * (info keys: "ampi_load_balance" = "sync"; "ampi_checkpoint" =
 * "to_file=DIR" or "in_memory"). Every rank of MPI_COMM_WORLD calls it. */
int AMPI_Migrate(MPI_Info hints);
/* Moves the calling rank to PE `pe` (returns once it runs there). */
int AMPI_Migrate_to_pe(int pe);
/* Lets the PE run other ranks' and the runtime's work. */
int AMPI_Yield(void);
/* The PE (worker thread) the calling rank runs on, and how many there are. */
int AMPI_My_pe(void);
int AMPI_Num_pes(void);
int AMPI_My_node(void);
int AMPI_Num_nodes(void);
/* Whether the calling rank migrated since the last call. */
int AMPI_Migrated(int* flag);
/* The load the next balancing step sees for the calling rank: `value`
 * seconds, whatever is measured until then. */
int AMPI_Load_set_value(double value);
/* A function run with `data` when the rank moves or is checkpointed, through
 * the C pup API below (on the way in after the rank's heap and stack have
 * arrived: it may write through `data` into them); AMPI_Get_pup_data gives
 * `data` back (*(void**)out = data). Heap and stack move anyway: it is for
 * state kept elsewhere, and for programs written with one. */
typedef void* pup_er;
typedef void (*MPI_PupFn)(pup_er p, void* data);
int AMPI_Register_pup(MPI_PupFn fn, void* data, int* idx);
int AMPI_Get_pup_data(int idx, void* data);
int pup_isPacking(const pup_er p);
int pup_isUnpacking(const pup_er p);
int pup_isSizing(const pup_er p);
int pup_isDeleting(const pup_er p);
int pup_isUserlevel(const pup_er p);
void pup_bytes(pup_er p, void* ptr, size_t nbytes);
#define ROAM_AMPI_PUP_TYPES(X)                                                                                \
  X(char, char) X(schar, signed char) X(uchar, unsigned char) X(short, short) X(ushort, unsigned short)      \
  X(int, int) X(uint, unsigned int) X(long, long) X(ulong, unsigned long) X(longlong, long long)            \
  X(ulonglong, unsigned long long) X(float, float) X(double, double) X(longdouble, long double)
#define ROAM_AMPI_PUP_DECLARE(name, T) void pup_##name(pup_er p, T* v); void pup_##name##s(pup_er p, T* a, size_t n);
ROAM_AMPI_PUP_TYPES(ROAM_AMPI_PUP_DECLARE)
#undef ROAM_AMPI_PUP_DECLARE
/* Functions the calling rank runs around each of its moves to another PE
 * (AMPI_Migrate's balancer, AMPI_Migrate_to_pe); not at checkpoints,
 * restarts, or when the rank stays where it is. `about_to_migrate` runs on
 * the PE it leaves, before its state is packed (before its pup functions),
 * off its thread: MPI calls that only read (MPI_Comm_rank, AMPI_My_pe...)
 * work, blocking ones do not, and what it allocates stays in the process.
 * `just_migrated` runs on the rank's thread once it has arrived (after its
 * pup functions), before the call that moved it returns. One function each:
 * a later registration replaces the earlier one, NULL removes it. */
typedef void (*MPI_MigrateFn)(void);
int AMPI_Register_about_to_migrate(MPI_MigrateFn fn);
int AMPI_Register_just_migrated(MPI_MigrateFn fn);
#define AMPI_INFO_LB_SYNC ((MPI_Info)2)
#define AMPI_INFO_LB_ASYNC ((MPI_Info)3)
#define AMPI_INFO_CHKPT_IN_MEMORY ((MPI_Info)4)

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---- the program's main becomes each rank's ---------------------------- */
/* Only for a program linked into an executable with roam-ampi, whose main the
 * runtime's main must call: ampicc / ampicxx define ROAM_AMPI_NO_MAIN_RENAME
 * and the loader calls the program's own main. A renamed C++ main is an
 * ordinary function: it must end with a return statement (main's implicit
 * `return 0` is lost; -Wreturn-type says so). */
#ifndef ROAM_AMPI_NO_MAIN_RENAME
#ifdef __cplusplus
int roam_ampi_main_cpp(int argc, char** argv);
int roam_ampi_main_cpp();
#define main roam_ampi_main_cpp
#else
#define main roam_ampi_main_c
#endif
#endif

#endif /* ROAM_AMPI_MPI_H */
