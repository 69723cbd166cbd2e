/*
 * Every host allocation of libgpuguard goes through here, so that a test can
 * fail any one of them (a countdown fault point, as SQLite's): with
 * GPUGUARD_FAIL_HOST_ALLOC=N in the environment, the N-th allocation of the
 * process (counted from 1, gpuguard's own only) returns NULL, once. The
 * variable is read once, at the process's first allocation by gpuguard
 * (a test that sets it must do so before its first gpuguard call). Code
 * that allocates through a library we did not write (cJSON) passes
 * gg__alloc_fault_point() first, which counts as one allocation.
 *
 * `gpuguard sweep --host-alloc` sets the variable to 1, 2, ... in turn and
 * reads the counts back from the fault report ("host_allocations").
 *
 * Part of the shared base (src/base): the interposer and the gpuguard tool
 * link the same allocator, since the plan parser they share with
 * libgpuguard allocates through it. They serve programs that are not
 * gpuguard's own, so they say so once at load (gg__alloc_serve_others) and
 * their allocations are plain ones from then on.
 */
#ifndef GPUGUARD_ALLOC_H
#define GPUGUARD_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* malloc, calloc, realloc, aligned_alloc, strdup and free, each counted
 * (free is not) and failing when the countdown reaches it. gg__realloc
 * leaves `p` as it was when it fails, as realloc does. */
void *gg__malloc(size_t size);
void *gg__calloc(size_t count, size_t size);
void *gg__realloc(void *p, size_t size);
void *gg__aligned_alloc(size_t alignment, size_t size);
char *gg__strdup(const char *s);
void gg__free(void *p);

/* Counts one allocation made by another library's code; true when it is the
 * one to fail (the caller then fails as if that library ran out of memory). */
bool gg__alloc_fault_point(void);

/* Checks GPUGUARD_FAIL_HOST_ALLOC: true when unset or a plain decimal
 * number >= 1; false (the countdown stays off) otherwise. */
bool gg__alloc_env_valid(void);

/* How many allocations were made, and the one set to fail (0: none). */
typedef struct gg__alloc_counts {
    uint64_t made;
    uint64_t fail_at;
    bool failed; /* the fail_at-th allocation happened and returned NULL */
} gg__alloc_counts;
gg__alloc_counts gg__alloc_counts_now(void);

/* Makes every later allocation of this binary (this copy of the base) a
 * plain one: never counted, never failed, whatever GPUGUARD_FAIL_HOST_ALLOC
 * says. For the binaries that serve programs which are not gpuguard's (the
 * interposer, the gpuguard tool): that variable is libgpuguard's
 * countdown, and a sweep reads its counts from libgpuguard's report, so an
 * allocation of theirs failed by it would be a fault nobody counted or
 * reported (the interposer would lose the plan it was given). Called once,
 * at load, before the binary's first allocation; libgpuguard never calls
 * it (its allocations are counted: the default). Thread-safe. */
void gg__alloc_serve_others(void);

/* While suspended (nesting), allocations are made without counting: for
 * the fault report itself, which describes the run rather than being part
 * of it. Per thread. */
void gg__alloc_suspend(bool suspend);

#endif
