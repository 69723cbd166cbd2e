/*
 * The library's global state: the backend in use and the resolved settings.
 * Written by gg_init / gg_shutdown under the init lock; read by every call.
 */
#ifndef GPUGUARD_LIBRARY_H
#define GPUGUARD_LIBRARY_H

#include <stdatomic.h>
#include <stdbool.h>

#include "common/backend.h"
#include "common/poison.h"

typedef struct gg__config {
    char backend[16];            /* "auto", "cuda", "hip", "sim", "sim-hip" */
    /* Paths keep 511 bytes: a longer one is refused by gg_init naming the
     * bound (desc or environment), never truncated (crossed by
     * tests/core/test_bounds.c; the report path too). */
    char cuda_library[512];
    char hip_library[512];
    gg_log_fn log_fn;
    void *log_user;
    gg_log_level log_level;
    uint32_t wait_timeout_ms;
    gg_cleanup_policy cleanup;
    gg_timeout_policy timeout_policy;
    gg_watchdog_policy watchdog;
    uint32_t watchdog_budget_ms;
    bool sync_launches;
    gg_timeline_mode timeline;
    uint32_t launch_records;     /* records kept per stream (GPUGUARD_LAUNCH_RECORDS): a power of two */
    char *fault_plan_json;       /* malloc'd copy, or NULL */
    char fault_report_path[512]; /* GPUGUARD_FAULT_REPORT, or "" */
    gg__sticky_scope sticky_scope; /* GPUGUARD_STICKY_SCOPE (poison.h) */
} gg__config;

typedef struct gg__library {
    _Atomic(gg__backend *) backend; /* NULL when not initialised */
    gg__backend backend_storage;
    gg__config config;
    int device_count;
    gg__device_props *devices;      /* device_count entries */
    unsigned fork_generation;       /* fork.c's generation when gg_init succeeded */
} gg__library;

/* Hidden, as everything the library does not export (-fvisibility=hidden
 * covers definitions only): declared so, every hot path reads it
 * PC-relative, without a load of its address first. */
extern gg__library gg__lib __attribute__((visibility("hidden")));

/* The backend, or NULL when the library is not initialised. */
static inline gg__backend *gg__backend_get(void)
{
    return atomic_load_explicit(&gg__lib.backend, memory_order_acquire);
}

/* The backend a call uses once it knows the library initialised (its c->b
 * is this, or NULL; gg_shutdown waits for calls that pin, and gg_init
 * writes it only before publishing it): the hot paths call through it
 * directly, PC-relative, instead of loading c->b and then its members. */
#define GG__BACKEND (&gg__lib.backend_storage)

/* Takes (true) or releases (false) gg_init / gg_shutdown's lock (fork
 * handlers: gg__global_locks). */
void gg__library_lock(bool take);

/* Takes (true) or releases (false) every global lock of the library, in one
 * fixed order; none of them is ever held while taking another. The fork
 * handlers' (gg_init hands it to gg__fork_watch). */
void gg__global_locks(bool take);

#endif /* GPUGUARD_LIBRARY_H */
