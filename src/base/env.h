/*
 * The environment variables libgpuguard reads: one table, read only
 * through gg__env, so that the list the tests check against README.md and
 * gpuguard.h (tests/core/test_env.c) is the list the code reads. The
 * simulated driver (GPUGUARD_SIM_*) and the interposer
 * (GPUGUARD_INTERCEPT_*) are libraries of their own and keep their own.
 * In the shared base (src/base) because its allocator reads
 * GPUGUARD_FAIL_HOST_ALLOC, and the interposer reads GPUGUARD_LOG's
 * keywords the way libgpuguard does (gg__keyword).
 */
#ifndef GPUGUARD_ENV_H
#define GPUGUARD_ENV_H

#include <stdbool.h>
#include <stddef.h>

/* X(SUFFIX): the variable GPUGUARD_SUFFIX. */
#define GG__ENV_LIST(X)                                                                                              \
    X(BACKEND) X(CUDA_LIBRARY) X(HIP_LIBRARY) X(LOG) X(WAIT_TIMEOUT_MS) X(WATCHDOG) X(TIMEOUT_POLICY)              \
    X(SYNC_LAUNCHES) X(TIMELINE) X(LAUNCH_RECORDS) X(FAULT_REPORT) X(FAIL_HOST_ALLOC) X(FAULTS)          \
    X(STICKY_SCOPE) X(TIMELINE_STRIDE) X(TIMELINE_BUDGET)

typedef enum gg__env_var {
#define GG__ENV_ENUM(suffix) GG__ENV_##suffix,
    GG__ENV_LIST(GG__ENV_ENUM)
#undef GG__ENV_ENUM
    GG__ENV_COUNT
} gg__env_var;

/* "GPUGUARD_BACKEND", ...: indexed by gg__env_var. */
extern const char *const gg__env_names[GG__ENV_COUNT];

/* The variable's value (getenv), or NULL when it is not set. */
const char *gg__env(gg__env_var var);

/* Whether `text` is one of the `count` keywords, compared ignoring ASCII
 * case ("ON", "On" and "on" are the same keyword); *index (when index
 * is not NULL): which one.
 * ASCII only, not strcasecmp: the process's locale must not change what a
 * setting means (in a Turkish locale "I" is not the capital of "i"). The
 * one comparison every keyword of every variable goes through. */
bool gg__keyword(const char *text, const char *const *keywords, size_t count, size_t *index);

#endif
