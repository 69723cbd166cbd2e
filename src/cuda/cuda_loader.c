#include "cuda/cuda_loader.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/loader_common.h"
#include "cuda/cuda_errors.h"

enum { GGCU_NEED_REQUIRED, GGCU_NEED_OPTIONAL };

/* "12.2 (12020)": how a CUDA version number reads to people. */
static void version_text(int version, char *out, size_t size)
{
    snprintf(out, size, "%d.%d (%d)", version / 1000, version % 1000 / 10, version);
}

/* cuGetProcAddress as the library exports it: the 12.0 form, or the 11.3
 * form with one argument fewer. Real drivers 12.x export both; 11.3-11.8
 * only the older one. */
typedef struct proc_address {
    ggcu_fn_cuGetProcAddress_v2 v2;
    ggcu_fn_cuGetProcAddress v1;
} proc_address;

static const char *query_status_name(ggcu_proc_address_query status)
{
    switch (status) {
    case GGCU_GET_PROC_ADDRESS_SUCCESS: return "SUCCESS";
    case GGCU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND: return "SYMBOL_NOT_FOUND";
    case GGCU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT: return "VERSION_NOT_SUFFICIENT";
    default: return "an unknown status";
    }
}

/* One row of GGCU_SYMBOL_LIST, with where its pointer is stored. */
typedef struct variant_row {
    const char *base;
    int version;
    const char *exported;
    bool required;
    size_t member; /* offsetof(ggcu_driver, <exported>) */
} variant_row;

static const variant_row g_rows[] = {
#define GGCU__ROW(base, version, name, need) \
    { #base, version, #name, GGCU_NEED_##need == GGCU_NEED_REQUIRED, offsetof(ggcu_driver, name) },
    GGCU_SYMBOL_LIST(GGCU__ROW)
#undef GGCU__ROW
};
enum { ROW_COUNT = sizeof g_rows / sizeof g_rows[0] };

/* Asks cuGetProcAddress for `base` at exactly `version`. The pointer it
 * returns is the newest variant at or below `version`; since `version` is
 * the variant's own and at most the driver's, that is the variant asked
 * for. Writes the failure into `why` and returns NULL when there is none. */
static void *query(const proc_address *gpa, const char *base, int version, char *why,
                   size_t why_size)
{
    void *p = NULL;
    ggcu_result rc;
    ggcu_proc_address_query found = GGCU_GET_PROC_ADDRESS_SUCCESS;
    /* Never NULL for the symbol or the pointer: the 535 driver crashes. */
    if (gpa->v2 != NULL)
        rc = gpa->v2(base, &p, version, GGCU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);
    else
        rc = gpa->v1(base, &p, version, GGCU_GET_PROC_ADDRESS_LEGACY_STREAM);
    const char *gpa_name = gpa->v2 != NULL ? "cuGetProcAddress_v2" : "cuGetProcAddress";
    if (rc != GGCU_SUCCESS) {
        snprintf(why, why_size, "%s(\"%s\", %d) returned %s", gpa_name, base, version,
                 gg__cuda_code_name((int)rc));
        return NULL;
    }
    if (found != GGCU_GET_PROC_ADDRESS_SUCCESS || p == NULL) {
        snprintf(why, why_size, "%s(\"%s\", %d) answered %s", gpa_name, base, version,
                 p == NULL ? query_status_name(found) : "a pointer with a failed status");
        return NULL;
    }
    return p;
}

/* Resolves the base name whose variants are g_rows[first .. first+count):
 * the newest variant at or below the driver's version. A variant the driver
 * answers for with another address than it exports under that variant's
 * name is not trusted (it could be another signature); an older one is tried.
 * Returns false, with `why` filled, when a REQUIRED base name gets none. */
static bool resolve_base(ggcu_driver *drv, const proc_address *gpa, size_t first, size_t count,
                         char *why, size_t why_size)
{
    ggcu_entry_point *e = &drv->entries[drv->entry_count++];
    const variant_row *rows = &g_rows[first];
    memset(e, 0, sizeof *e);
    e->base = rows[0].base;
    e->required = rows[0].required;
    e->resolved_by = gpa->v2 != NULL ? "cuGetProcAddress_v2" : "cuGetProcAddress";
    why[0] = '\0';

    for (size_t i = 0; i < count; i++) {
        if (rows[i].version > drv->driver_version)
            continue; /* the driver has no such variant: never ask for it */
        void *p = query(gpa, rows[i].base, rows[i].version, why, why_size);
        if (p == NULL)
            continue;
        void *exported = dlsym(drv->handle, rows[i].exported);
        if (exported != NULL && exported != p) {
            snprintf(why, why_size,
                     "cuGetProcAddress(\"%s\", %d) returned %p, but the library exports %s "
                     "at %p: not trusted to be that variant",
                     rows[i].base, rows[i].version, p, rows[i].exported, exported);
            continue;
        }
        e->variant = rows[i].exported;
        e->version = rows[i].version;
        e->exported = exported != NULL;
        e->fn = p;
        /* POSIX: a pointer from dlsym or the driver converts to a function pointer. */
        memcpy((char *)drv + rows[i].member, &p, sizeof p);
        return true;
    }

    if (!e->required)
        return true;
    char have[24];
    version_text(drv->driver_version, have, sizeof have);
    if (why[0] == '\0') {
        /* Every variant is newer than the driver. */
        char oldest[24];
        version_text(rows[count - 1].version, oldest, sizeof oldest);
        snprintf(why, why_size, "%s needs a driver of CUDA %s or later (%s); this one is %s",
                 rows[0].base, oldest, rows[count - 1].exported, have);
    } else {
        char detail[GG_MESSAGE_MAX];
        snprintf(detail, sizeof detail, "%s", why);
        snprintf(why, why_size, "no usable variant of %s on a driver of CUDA %s: %s",
                 rows[0].base, have, detail);
    }
    return false;
}

static bool resolve_all(ggcu_driver *drv, const proc_address *gpa, char *why, size_t why_size)
{
    for (size_t first = 0; first < ROW_COUNT;) {
        size_t count = 1;
        while (first + count < ROW_COUNT && strcmp(g_rows[first + count].base, g_rows[first].base) == 0)
            count++;
        if (!resolve_base(drv, gpa, first, count, why, why_size))
            return false;
        first += count;
    }
    return true;
}

const ggcu_entry_point *gg__cuda_entry_point(const ggcu_driver *drv, const char *base)
{
    for (size_t i = 0; i < drv->entry_count; i++)
        if (strcmp(drv->entries[i].base, base) == 0)
            return &drv->entries[i];
    return NULL;
}

static gg__backend_open_result stub_library(const ggcu_driver *drv, const char *call)
{
    return gg__loader_result(GG_NO_DRIVER, GGCU_ERROR_STUB_LIBRARY,
                       "%s is the CUDA toolkit's stub library, not a driver "
                       "(%s: CUDA_ERROR_STUB_LIBRARY); install the NVIDIA driver "
                       "and keep lib64/stubs out of the run-time library path",
                       drv->library, call);
}

/* Why a real driver sees no device, when the machine says: without the
 * kernel module there is no /proc/driver/nvidia (measured: cuInit then
 * returns CUDA_ERROR_NO_DEVICE and prints nothing). */
static const char *no_device_reason(const ggcu_driver *drv)
{
    if (drv->simulated)
        return "";
    if (access("/proc/driver/nvidia", F_OK) != 0)
        return "; the NVIDIA kernel module is not loaded (/proc/driver/nvidia is missing)";
    if (access("/dev/nvidiactl", F_OK) != 0)
        return "; the NVIDIA kernel module is loaded but /dev/nvidiactl is missing";
    return "";
}

/* Maps cuInit's failure to an open error. The stub library and "no device"
 * are what users hit most; they get their own advice. */
static gg__backend_open_result init_failure(const ggcu_driver *drv, ggcu_result rc)
{
    int code = (int)rc;
    char version[24];
    version_text(drv->driver_version, version, sizeof version);
    switch (rc) {
    case GGCU_ERROR_STUB_LIBRARY:
        return stub_library(drv, "cuInit");
    case GGCU_ERROR_NO_DEVICE:
    case GGCU_ERROR_INVALID_DEVICE:
        return gg__loader_result(GG_NO_DEVICE, code,
                           "cuInit: %s (%d): the driver %s, CUDA %s, sees no CUDA device%s",
                           gg__cuda_code_name(code), code, drv->library, version,
                           no_device_reason(drv));
    default:
        return gg__loader_result(GG_NO_DRIVER, code, "cuInit failed with %s (%d) in %s, CUDA %s",
                           gg__cuda_code_name(code), code, drv->library, version);
    }
}

/* Reads the driver's version, which decides every variant; works before
 * cuInit (measured). */
static gg__backend_open_result read_driver_version(ggcu_driver *drv)
{
    ggcu_fn_cuDriverGetVersion get_version =
        (ggcu_fn_cuDriverGetVersion)dlsym(drv->handle, "cuDriverGetVersion");
    if (get_version == NULL)
        return gg__loader_result(GG_NO_DRIVER, 0, "%s lacks cuDriverGetVersion: not a CUDA driver",
                           drv->library);
    int version = 0;
    ggcu_result rc = get_version(&version);
    if (rc == GGCU_ERROR_STUB_LIBRARY)
        return stub_library(drv, "cuDriverGetVersion");
    if (rc != GGCU_SUCCESS)
        return gg__loader_result(GG_NO_DRIVER, (int)rc, "cuDriverGetVersion failed with %s (%d) in %s",
                           gg__cuda_code_name((int)rc), (int)rc, drv->library);
    drv->driver_version = version;
    if (version < GGCU_OLDEST_DRIVER) {
        char have[24], oldest[24];
        version_text(version, have, sizeof have);
        version_text(GGCU_OLDEST_DRIVER, oldest, sizeof oldest);
        return gg__loader_result(GG_NO_DRIVER, 0,
                           "%s is a driver of CUDA %s; gpuguard needs CUDA %s (driver R470) "
                           "or later",
                           drv->library, have, oldest);
    }
    return gg__loader_result(GG_OK, 0, NULL);
}

gg__backend_open_result gg__cuda_driver_load(ggcu_driver *drv, const char *library)
{
    memset(drv, 0, sizeof *drv);
    const char *requested =
        (library != NULL && library[0] != '\0') ? library : GGCU_DEFAULT_LIBRARY;

    /* RTLD_LOCAL, RTLD_NODELETE: why, in loader_common.c. */
    drv->handle = gg__loader_open(requested);
    if (drv->handle == NULL)
        return gg__loader_result(GG_NO_DRIVER, 0, "cannot load the CUDA driver: tried %s (%s)",
                           requested, gg__loader_dl_error());
    gg__loader_library_path(drv->handle, requested, drv->library, sizeof drv->library);
    drv->simulated = dlsym(drv->handle, "gg_sim_identify") != NULL;
    /* POSIX: a pointer from dlsym converts to a function pointer. */
    drv->sim_error_detail = drv->simulated
        ? (const char *(*)(void))dlsym(drv->handle, "gg_sim_last_error_detail") : NULL;
    drv->sticky_process_wide = true;
    if (drv->simulated) {
        int (*sticky_scope)(void) = (int (*)(void))dlsym(drv->handle, "gg_sim_sticky_scope");
        drv->sticky_process_wide = sticky_scope != NULL && sticky_scope() == 1;
    }

    gg__backend_open_result r = read_driver_version(drv);
    if (r.status != GG_OK) {
        gg__cuda_driver_close(drv);
        return r;
    }

    proc_address gpa;
    gpa.v2 = (ggcu_fn_cuGetProcAddress_v2)dlsym(drv->handle, "cuGetProcAddress_v2");
    gpa.v1 = gpa.v2 != NULL ? NULL
                            : (ggcu_fn_cuGetProcAddress)dlsym(drv->handle, "cuGetProcAddress");
    if (gpa.v2 == NULL && gpa.v1 == NULL) {
        char have[24];
        version_text(drv->driver_version, have, sizeof have);
        r = gg__loader_result(GG_NO_DRIVER, 0,
                        "%s (CUDA %s) exports neither cuGetProcAddress_v2 nor cuGetProcAddress: "
                        "not a CUDA driver gpuguard can load (every driver since 11.3 has one)",
                        drv->library, have);
        gg__cuda_driver_close(drv);
        return r;
    }

    char why[GG_MESSAGE_MAX];
    if (!resolve_all(drv, &gpa, why, sizeof why)) {
        r = gg__loader_result(GG_NO_DRIVER, 0, "%s: %s", drv->library, why);
        gg__cuda_driver_close(drv);
        return r;
    }
    return gg__loader_result(GG_OK, 0, NULL);
}

gg__backend_open_result gg__cuda_driver_open(ggcu_driver *drv, const char *library)
{
    gg__backend_open_result r = gg__cuda_driver_load(drv, library);
    if (r.status != GG_OK)
        return r;
    ggcu_result rc = drv->cuInit(0);
    if (rc != GGCU_SUCCESS) {
        r = init_failure(drv, rc);
        gg__cuda_driver_close(drv);
        return r;
    }
    return r;
}

void gg__cuda_driver_close(ggcu_driver *drv)
{
    if (drv->handle != NULL)
        dlclose(drv->handle);
    drv->handle = NULL;
}
