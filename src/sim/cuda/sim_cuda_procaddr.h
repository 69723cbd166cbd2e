/*
 * Rows of cuGetProcAddress's table (sim_cuda_procaddr.c explains the rule
 * and the table): one per variant of a name, by the CUDA version that
 * introduced it, in increasing version order for each name.
 */
#ifndef GG_SIM_CUDA_PROCADDR_H
#define GG_SIM_CUDA_PROCADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sim_proc {
    const char *name;
    int version;        /* the CUDA version that introduced this variant */
    bool per_thread;    /* the per-thread default stream form (_ptsz, _ptds) */
    void *fn;           /* NULL: not implemented by the simulator */
} sim_proc;

#define P(name, version, fn) { name, version, false, (void *)(uintptr_t)(fn) }
#define PT(name, version, fn) { name, version, true, (void *)(uintptr_t)(fn) }
#define NONE NULL

/* The rows of the functions in sim_cuda_client.h's list
 * (sim_cuda_procaddr_client.c). */
extern const sim_proc sim_cuda_client_procs[];
extern const size_t sim_cuda_client_nprocs;

#endif /* GG_SIM_CUDA_PROCADDR_H */
