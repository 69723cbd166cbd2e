/* dlinfo and struct link_map (the path the dynamic linker chose) are GNU. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cuda/cuda_loader.h"

#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cuda/cuda_errors.h"

enum { GGCU_NEED_REQUIRED, GGCU_NEED_OPTIONAL, GGCU_NEED_ONE_OF };

static gg__backend_open_result open_result(gg_status status, int native, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static gg__backend_open_result open_result(gg_status status, int native, const char *fmt, ...)
{
    gg__backend_open_result r;
    memset(&r, 0, sizeof r);
    r.status = status;
    r.native_code = native;
    if (fmt != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r.message, sizeof r.message, fmt, ap);
        va_end(ap);
    }
    return r;
}

/* dlerror() may return NULL when the failure left no text; never print NULL. */
static const char *dl_error_text(void)
{
    const char *e = dlerror();
    return e != NULL ? e : "unknown dlopen error";
}

/* The file the dynamic linker chose for `requested` (a bare soname is
 * searched for; users need to know which libcuda.so.1 was found). */
static void record_library_path(ggcu_driver *drv, const char *requested)
{
    struct link_map *map = NULL;
    const char *path = requested;
    if (dlinfo(drv->handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL &&
        map->l_name != NULL && map->l_name[0] != '\0')
        path = map->l_name;
    snprintf(drv->library, sizeof drv->library, "%s", path);
}

/* cuGetProcAddress as found in the library: the 12.0+ export, or the
 * 11.3-11.8 one with one argument fewer; neither on older drivers and on
 * libraries (such as a simulator) that only export the versioned names. */
typedef struct proc_address {
    ggcu_fn_cuGetProcAddress_v2 v2;
    ggcu_fn_cuGetProcAddress v1;
} proc_address;

/* Asks cuGetProcAddress for `base` at ABI `version`; when it is absent,
 * fails, or answers NULL (symbol unknown, or no ABI-compatible version),
 * falls back to dlsym of the exported versioned name. A driver older than
 * `version` answers CUDA_ERROR_INVALID_VALUE, and its library does not
 * export the newer versioned name either, so the fallback finds nothing. */
static void *resolve(const ggcu_driver *drv, const proc_address *gpa, const char *base,
                     int version, const char *exported)
{
    void *p = NULL;
    if (gpa->v2 != NULL) {
        ggcu_proc_address_query found = GGCU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        if (gpa->v2(base, &p, version, GGCU_GET_PROC_ADDRESS_LEGACY_STREAM, &found) !=
            GGCU_SUCCESS)
            p = NULL;
    } else if (gpa->v1 != NULL) {
        if (gpa->v1(base, &p, version, GGCU_GET_PROC_ADDRESS_LEGACY_STREAM) != GGCU_SUCCESS)
            p = NULL;
    }
    if (p == NULL)
        p = dlsym(drv->handle, exported);
    return p;
}

static void resolve_all(ggcu_driver *drv)
{
    proc_address gpa;
    gpa.v2 = (ggcu_fn_cuGetProcAddress_v2)dlsym(drv->handle, "cuGetProcAddress_v2");
    gpa.v1 = gpa.v2 != NULL ? NULL
                            : (ggcu_fn_cuGetProcAddress)dlsym(drv->handle, "cuGetProcAddress");
    drv->proc_address = gpa.v2 != NULL || gpa.v1 != NULL;

    /* POSIX guarantees that a dlsym'd object pointer converts to a function pointer. */
#define GGCU__RESOLVE(base, version, name, need) \
    drv->name = (ggcu_fn_##name)resolve(drv, &gpa, #base, version, #name);
    GGCU_SYMBOL_LIST(GGCU__RESOLVE)
#undef GGCU__RESOLVE
}

/* The first missing entry point the backend cannot work without, or NULL. */
static const char *first_missing(const ggcu_driver *drv)
{
#define GGCU__CHECK(base, version, name, need) \
    if (GGCU_NEED_##need == GGCU_NEED_REQUIRED && drv->name == NULL) return #name;
    GGCU_SYMBOL_LIST(GGCU__CHECK)
#undef GGCU__CHECK
    /* ONE_OF groups: either signature will do. */
    if (drv->cuCtxCreate_v4 == NULL && drv->cuCtxCreate_v2 == NULL)
        return "cuCtxCreate (neither cuCtxCreate_v4 nor cuCtxCreate_v2)";
    if (drv->cuEventElapsedTime_v2 == NULL && drv->cuEventElapsedTime == NULL)
        return "cuEventElapsedTime";
    return NULL;
}

/* Maps cuInit's failure to an open error. The stub library and "no device"
 * are what users hit most; they get their own advice. */
static gg__backend_open_result init_failure(const ggcu_driver *drv, ggcu_result rc)
{
    int code = (int)rc;
    switch (rc) {
    case GGCU_ERROR_STUB_LIBRARY:
        return open_result(GG_NO_DRIVER, code,
                           "%s is the CUDA toolkit's stub library, not a driver "
                           "(cuInit: CUDA_ERROR_STUB_LIBRARY); install the NVIDIA driver "
                           "and keep lib64/stubs out of the run-time library path",
                           drv->library);
    case GGCU_ERROR_NO_DEVICE:
    case GGCU_ERROR_INVALID_DEVICE:
        return open_result(GG_NO_DEVICE, code, "cuInit: %s: the driver %s sees no CUDA device",
                           gg__cuda_code_name(code), drv->library);
    default:
        return open_result(GG_NO_DRIVER, code, "cuInit failed with %s (%d) in %s",
                           gg__cuda_code_name(code), code, drv->library);
    }
}

gg__backend_open_result gg__cuda_driver_open(ggcu_driver *drv, const char *library)
{
    memset(drv, 0, sizeof *drv);
    const char *requested =
        (library != NULL && library[0] != '\0') ? library : GGCU_DEFAULT_LIBRARY;

    (void)dlerror();
    /* RTLD_LOCAL: the driver's cu* symbols must not satisfy other libraries'
     * references (the CUDA runtime loads its own copy by soname).
     * RTLD_NODELETE: after cuInit a driver has threads, TLS destructors and
     * exit handlers of its own, so unmapping it at dlclose crashes the process
     * later (seen with the simulator; CUDA.jl hit it with libcuda). dlclose
     * then only drops our reference; a later open finds it still loaded. */
    drv->handle = dlopen(requested, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (drv->handle == NULL)
        return open_result(GG_NO_DRIVER, 0, "cannot load the CUDA driver: tried %s (%s)",
                           requested, dl_error_text());
    record_library_path(drv, requested);
    drv->simulated = dlsym(drv->handle, "gg_sim_identify") != NULL;

    resolve_all(drv);

    /* cuInit before the completeness check: the stub library and a machine
     * without a device are better reported as such than as a missing symbol. */
    if (drv->cuInit == NULL) {
        gg__backend_open_result r =
            open_result(GG_NO_DRIVER, 0, "%s lacks cuInit: not a CUDA driver", drv->library);
        gg__cuda_driver_close(drv);
        return r;
    }
    ggcu_result rc = drv->cuInit(0);
    if (rc != GGCU_SUCCESS) {
        gg__backend_open_result r = init_failure(drv, rc);
        gg__cuda_driver_close(drv);
        return r;
    }

    const char *missing = first_missing(drv);
    if (missing != NULL) {
        gg__backend_open_result r =
            open_result(GG_NO_DRIVER, 0, "%s lacks %s", drv->library, missing);
        gg__cuda_driver_close(drv);
        return r;
    }
    return open_result(GG_OK, 0, NULL);
}

void gg__cuda_driver_close(ggcu_driver *drv)
{
    if (drv->handle != NULL)
        dlclose(drv->handle);
    drv->handle = NULL;
}
