/*
 * The simulated driver's host allocations, with a countdown fault point of
 * its own (it links nothing of libgpuguard, so it cannot share gpuguard's):
 * with GPUGUARD_SIM_FAIL_HOST_ALLOC=N the N-th allocation the simulator
 * makes in the process (from 1) returns NULL, once, and the driver call
 * that needed it fails with its out-of-memory error. With
 * GPUGUARD_SIM_HOST_ALLOC_REPORT=PATH the counts are written there as JSON
 * ({"made": N, "fail_at": N, "failed": BOOL}) when the library is unloaded
 * or the process exits; `gpuguard sweep --sim-host-alloc` uses both.
 * Each simulator library (CUDA, CUDA 11, HIP) has its own count.
 */
#ifndef GG_SIM_ALLOC_H
#define GG_SIM_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

void *sim_malloc(size_t size);
void *sim_calloc(size_t count, size_t size);
/* Leaves p as it was when it fails, as realloc does. */
void *sim_realloc(void *p, size_t size);
void *sim_aligned_alloc(size_t alignment, size_t size);
/* posix_memalign's contract: 0, or ENOMEM with *out untouched. */
int sim_posix_memalign(void **out, size_t alignment, size_t size);
char *sim_strdup(const char *s);
/* Counts one allocation made inside another library (cJSON); true when it
 * is the one to fail. */
bool sim_alloc_fault_point(void);

#endif
