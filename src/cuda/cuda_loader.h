/*
 * Loading the CUDA driver library at run time: dlopen, the driver's version,
 * each entry point through cuGetProcAddress at a variant chosen from that
 * version, cuInit.
 *
 * One ggcu_driver per opened backend: the pointers live in it, never in
 * globals, so two backends over two libraries (a real driver and the
 * simulator, say) can be open at once. After gg__cuda_driver_open succeeds
 * the struct is read-only, so any thread may call through it.
 */
#ifndef GPUGUARD_CUDA_LOADER_H
#define GPUGUARD_CUDA_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/backend.h"
#include "cuda/cuda_abi.h"

/* Enough for any path dlopen accepts on Linux (PATH_MAX). */
#define GGCU_LIBRARY_MAX 4096

/* The library searched for when the caller names none. */
#define GGCU_DEFAULT_LIBRARY "libcuda.so.1"

/* Rows of GGCU_SYMBOL_LIST (variants), an upper bound on base names. */
enum {
#define GGCU__COUNT_ROW(base, version, name, need) GGCU__ROW_##name,
    GGCU_SYMBOL_LIST(GGCU__COUNT_ROW)
#undef GGCU__COUNT_ROW
    GGCU_VARIANT_ROWS
};

/* How one base name was resolved: which variant the backend calls it
 * through, and how the loader got it. */
typedef struct ggcu_entry_point {
    const char *base;        /* "cuCtxCreate" */
    const char *variant;     /* exported name of the variant in use ("cuCtxCreate_v3");
                                NULL when the driver has none (OPTIONAL entries) */
    int version;             /* that variant's ABI version, the version asked of
                                cuGetProcAddress (11040); 0 when none */
    const char *resolved_by; /* "cuGetProcAddress_v2" or "cuGetProcAddress" */
    bool exported;           /* dlsym of `variant` found the same address */
    bool required;
    void *fn;                /* the pointer called; NULL when none */
} ggcu_entry_point;

typedef struct ggcu_driver {
    void *handle;                    /* from dlopen; NULL once closed */
    char library[GGCU_LIBRARY_MAX];  /* the file actually loaded (absolute when known) */
    bool simulated;                  /* the library exports gg_sim_identify */
    /* A real driver: true (measured, docs/DRIVER-FACTS.md). The simulator:
     * what its gg_sim_sticky_scope answers (its "sticky_scope" setting);
     * false for a simulator without that query (it kept errors per context). */
    bool sticky_process_wide;
    /* The simulator's gg_sim_last_error_detail; NULL for a real driver. */
    const char *(*sim_error_detail)(void);
    int driver_version;              /* cuDriverGetVersion, read before anything else */

    /* One per base name of GGCU_SYMBOL_LIST, in list order. */
    ggcu_entry_point entries[GGCU_VARIANT_ROWS];
    size_t entry_count;

    /* One member per GGCU_SYMBOL_LIST row, named as the exported symbol. For
     * a base name with several variants exactly one is set (the one its
     * entry names); all are NULL for an OPTIONAL entry the driver lacks. */
#define GGCU__DRIVER_MEMBER(base, version, name, need) ggcu_fn_##name name;
    GGCU_SYMBOL_LIST(GGCU__DRIVER_MEMBER)
#undef GGCU__DRIVER_MEMBER
} ggcu_driver;

/* Loads `library` (NULL or "": libcuda.so.1 through the dynamic linker's
 * search) and resolves every entry point, without calling cuInit. On
 * failure nothing stays loaded and the result says why, always as
 * GG_NO_DRIVER:
 *   - the library cannot be loaded (the path tried and dlerror named);
 *   - it exports no cuDriverGetVersion, or no cuGetProcAddress (neither the
 *     12.0 cuGetProcAddress_v2 nor the 11.3 form);
 *   - the driver's version is older than GGCU_OLDEST_DRIVER;
 *   - a REQUIRED entry point has no variant at or below the driver's
 *     version, or cuGetProcAddress does not return it (its name, the
 *     variants tried, the driver version and the query status are named).
 * Never prints, never aborts. */
gg__backend_open_result gg__cuda_driver_load(ggcu_driver *drv, const char *library);

/* gg__cuda_driver_load, then cuInit(0). On top of the load's failures:
 *   GG_NO_DRIVER  the toolkit's stub library, or cuInit failing otherwise;
 *   GG_NO_DEVICE  cuInit found no device (NO_DEVICE / INVALID_DEVICE): the
 *                 message names the library, the driver version and, for a
 *                 real driver, whether the NVIDIA kernel module is loaded.
 * On failure nothing stays loaded. */
gg__backend_open_result gg__cuda_driver_open(ggcu_driver *drv, const char *library);

/* The resolved entry point of `base`, or NULL if the list has no such name. */
const ggcu_entry_point *gg__cuda_entry_point(const ggcu_driver *drv, const char *base);

/* Drops the library reference (dlclose; the driver stays mapped, see the
 * RTLD_NODELETE note in cuda_loader.c). Only when the driver is not unloading. */
void gg__cuda_driver_close(ggcu_driver *drv);

#endif /* GPUGUARD_CUDA_LOADER_H */
