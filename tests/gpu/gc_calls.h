/*
 * Counting driver calls made by this thread, to check "no driver call" with
 * something gpuguard does not control: on the real CUDA driver, CUPTI's
 * callback API (every driver API entry, however it was resolved, including
 * through cuGetProcAddress); on the simulator, its own call counters. HIP has
 * no equivalent here: counting is then unavailable and the checks say so.
 */
#ifndef GG_GPU_CHECK_CALLS_H
#define GG_GPU_CHECK_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gc_check.h"

/* Prepares counting (after gg_init: the driver is loaded). false with the
 * reason in why when no counter is available for this backend. */
bool gc_calls_open(const gc_env *env, char *why, size_t why_cap);
/* Starts counting this thread's driver calls from zero. */
void gc_calls_arm(void);
/* Stops counting; returns the count and, in first (may be NULL), the name
 * of the first function called. */
uint64_t gc_calls_disarm(char *first, size_t first_cap);
/* Which counter is in use: "cupti", "simulator", or "" when none. */
const char *gc_calls_source(void);

#endif
