/* ARMCI-MPI's extensions to ARMCI, on roam (libs/armci). */
#ifndef ROAM_ARMCIX_H
#define ROAM_ARMCIX_H

#include <armci.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over the parent group (as MPI_Comm_split / MPI_Comm_dup). */
int ARMCIX_Group_split(ARMCI_Group *parent, int color, int key, ARMCI_Group *new_group);
int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group);

/* Sets of mutexes over a group (collective); `proc` is a rank of the group. */
typedef struct armcix_mutex_hdl_s *armcix_mutex_hdl_t;
armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group *pgroup);
int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl);
void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc); /* 0: acquired */
void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
void ARMCIX_Progress(void);

#ifdef __cplusplus
}
#endif

#endif /* ROAM_ARMCIX_H */
