/*
 * Loading the HIP runtime at run time: dlopen of libamdhip64 (or of a path,
 * e.g. gpuguard's simulator), the choice of ABI table from the version the
 * runtime reports (hipRuntimeGetVersion), entry points by dlsym of the names
 * that table gives, hipInit.
 *
 * One gghip_runtime per opened backend: the pointers live in it, never in
 * globals, so two backends over two libraries can be open at once. After
 * gg__hip_runtime_open succeeds the struct is read-only, so any thread may
 * call through it.
 */
#ifndef GPUGUARD_HIP_LOADER_H
#define GPUGUARD_HIP_LOADER_H

#include <stdbool.h>

#include "common/backend.h"
#include "hip/hip_abi.h"

/* Enough for any path dlopen accepts on Linux (PATH_MAX). */
#define GGHIP_LIBRARY_MAX 4096

/* The sonames searched, in order, when the caller names no library: ROCm 6,
 * then ROCm 5 (Debian 12 ships libamdhip64.so.5, ROCm 5.2.3). */
#define GGHIP_DEFAULT_LIBRARIES { "libamdhip64.so.6", "libamdhip64.so.5" }

typedef struct gghip_runtime {
    void *handle;                     /* from dlopen; NULL once closed */
    char library[GGHIP_LIBRARY_MAX];  /* the file actually loaded (absolute when known) */
    bool simulated;                   /* the library exports gg_sim_identify */
    /* The simulator's gg_sim_last_error_detail; NULL for a real runtime. */
    const char *(*sim_error_detail)(void);
    int runtime_version;              /* hipRuntimeGetVersion's answer */
    const gghip_abi *abi;             /* the checked ABI that version has */

    /* One member per GGHIP_SYMBOL_LIST entry, named as the exported symbol.
     * NULL for an OPTIONAL entry the runtime lacks. */
#define GGHIP__RUNTIME_MEMBER(name, need) gghip_fn_##name name;
    GGHIP_SYMBOL_LIST(GGHIP__RUNTIME_MEMBER)
#undef GGHIP__RUNTIME_MEMBER
} gghip_runtime;

/* Loads `library` (NULL or "": libamdhip64.so.6, then libamdhip64.so.5,
 * through the dynamic linker's search), asks it its version, picks the ABI
 * table checked for that version, resolves the entry points by that table's
 * names and calls hipInit(0). The version decides, not the file name; a file
 * named libamdhip64.so.N whose version is not N.x is refused. On failure
 * nothing stays loaded and the result says why:
 *   GG_NO_DRIVER  no library loadable (every name tried and its dlerror),
 *                 not a HIP runtime ("<lib> lacks hipInit"), no usable
 *                 hipRuntimeGetVersion, a version whose ABI gpuguard has not
 *                 checked ("... HIP 7.0.1: its ABI is unchecked ..."), a
 *                 version that is not its soname's, a required entry
 *                 point missing ("<lib> lacks hipModuleLaunchKernel"), or
 *                 hipInit failing otherwise;
 *   GG_NO_DEVICE  hipInit found no AMD GPU (hipErrorNoDevice, or
 *                 hipErrorInvalidDevice as Debian's runtime returns); the
 *                 message names the library, its version and what
 *                 hipGetDeviceCount said.
 * Never prints, never aborts. */
gg__backend_open_result gg__hip_runtime_open(gghip_runtime *rt, const char *library);

/* Drops the library reference (dlclose; the runtime stays mapped, see the
 * RTLD_NODELETE note in hip_loader.c). Only when the runtime is not
 * unloading. */
void gg__hip_runtime_close(gghip_runtime *rt);

#endif /* GPUGUARD_HIP_LOADER_H */
