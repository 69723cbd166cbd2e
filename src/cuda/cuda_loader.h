/*
 * Loading the CUDA driver library at run time: dlopen, entry points through
 * cuGetProcAddress (dlsym of the versioned names as a fallback), cuInit.
 *
 * One ggcu_driver per opened backend: the pointers live in it, never in
 * globals, so two backends over two libraries (a real driver and the
 * simulator, say) can be open at once. After ggcu_driver_open succeeds the
 * struct is read-only, so any thread may call through it.
 */
#ifndef GPUGUARD_CUDA_LOADER_H
#define GPUGUARD_CUDA_LOADER_H

#include <stdbool.h>

#include "common/backend.h"
#include "cuda/cuda_abi.h"

/* Enough for any path dlopen accepts on Linux (PATH_MAX). */
#define GGCU_LIBRARY_MAX 4096

/* The library searched for when the caller names none. */
#define GGCU_DEFAULT_LIBRARY "libcuda.so.1"

typedef struct ggcu_driver {
    void *handle;                    /* from dlopen; NULL once closed */
    char library[GGCU_LIBRARY_MAX];  /* the file actually loaded (absolute when known) */
    bool simulated;                  /* the library exports gg_sim_identify */
    bool proc_address;               /* entry points were asked of cuGetProcAddress */

    /* One member per GGCU_SYMBOL_LIST entry, named as the exported symbol.
     * NULL for an OPTIONAL / ONE_OF entry the driver lacks. */
#define GGCU__DRIVER_MEMBER(base, version, name, need) ggcu_fn_##name name;
    GGCU_SYMBOL_LIST(GGCU__DRIVER_MEMBER)
#undef GGCU__DRIVER_MEMBER
} ggcu_driver;

/* Loads `library` (NULL or "": libcuda.so.1 through the dynamic linker's
 * search), resolves the entry points and calls cuInit(0). On failure nothing
 * stays loaded and the result says why:
 *   GG_NO_DRIVER  library not loadable (every path tried and dlerror named),
 *                 a required entry point missing ("<lib> lacks cuLaunchKernel"),
 *                 the toolkit's stub library, or cuInit failing otherwise;
 *   GG_NO_DEVICE  cuInit found no device (CUDA_ERROR_NO_DEVICE / INVALID_DEVICE).
 * Never prints, never aborts. */
gg__backend_open_result gg__cuda_driver_open(ggcu_driver *drv, const char *library);

/* Drops the library reference (dlclose; the driver stays mapped, see the
 * RTLD_NODELETE note in cuda_loader.c). Only when the driver is not unloading. */
void gg__cuda_driver_close(ggcu_driver *drv);

#endif /* GPUGUARD_CUDA_LOADER_H */
