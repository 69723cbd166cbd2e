/*
 * The library's global state: the backend in use and the resolved settings.
 * Written by gg_init / gg_shutdown (library.c, which defines gg__lib) under
 * the init lock; read by every call. A header of its own, below everything
 * that reads it (log, config, the call protocol...), so that reading the
 * state does not depend on the module that initialises it (library.c sits
 * on top of src/common's layers: docs/ARCHITECTURE.md).
 */
#ifndef GPUGUARD_STATE_H
#define GPUGUARD_STATE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "common/backend.h"

/* GPUGUARD_STICKY_SCOPE: auto (the backend's measured answer), process or
 * context. */
typedef enum gg__sticky_scope {
    GG__STICKY_AUTO = 0,
    GG__STICKY_PROCESS,
    GG__STICKY_CONTEXT
} gg__sticky_scope;

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
    uint32_t timeline_stride;    /* 0: measured (AUTO) or 1 (ON); else every Nth launch marked */
    uint32_t timeline_budget_percent; /* AUTO: a mark's most, in percent of a launch (default 50) */
    uint32_t launch_records;     /* records kept per stream (GPUGUARD_LAUNCH_RECORDS): a power of two */
    char *fault_plan_json;       /* malloc'd copy, or NULL */
    char fault_report_path[512]; /* GPUGUARD_FAULT_REPORT, or "" */
    gg__sticky_scope sticky_scope; /* GPUGUARD_STICKY_SCOPE (above) */
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

/* Whether a sticky error reaches every context of the process: the
 * configuration's override, else the backend's sticky_process_wide; false
 * with no backend. (Inline here: it reads only the settings and the
 * backend, and the live-context table asks it below poison.c.) */
static inline bool gg__sticky_process_wide(const gg__backend *b)
{
    switch (gg__lib.config.sticky_scope) {
    case GG__STICKY_PROCESS:
        return true;
    case GG__STICKY_CONTEXT:
        return false;
    default:
        return b != NULL && b->sticky_process_wide;
    }
}

#endif /* GPUGUARD_STATE_H */
