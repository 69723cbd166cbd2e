/*
 * The CUDA loader and gg_init over NVIDIA's real driver library: Debian's
 * libcuda1, fetched by scripts/fetch-referees.sh and unpacked under
 * build/referees (never installed). The driver, not our fake, decides:
 * what its cuGetProcAddress hands out is compared with what its own symbol
 * table (dlsym) says each variant is.
 *
 * GG_REAL_LIBCUDA names the library; ctest sets it through
 * tests/cuda/real_libcuda.sh, which reports the test skipped (with the
 * reason the fetch recorded) when the package could not be fetched. Run by
 * hand without it, every test here skips saying so.
 *
 * The machine needs no GPU: nothing here gets past cuInit.
 */
/* RTLD_NOLOAD needs _GNU_SOURCE, which the build defines. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda/cuda_loader.h"
#include "gpuguard/gpuguard.h"

/* The library under test, or a skip naming why there is none. */
static const char *real_libcuda(void)
{
    const char *path = getenv("GG_REAL_LIBCUDA");
    if (path == NULL || path[0] == '\0')
        cr_skip_test("GG_REAL_LIBCUDA is not set: run through ctest, or set it to Debian's "
                     "libcuda.so.1 (scripts/fetch-referees.sh libcuda1 unpacks it under "
                     "build/referees/libcuda1)");
    if (access(path, R_OK) != 0)
        cr_skip_test("GG_REAL_LIBCUDA=%s cannot be read", path);
    return path;
}

/* The driver's own version, asked directly (not through gpuguard). */
static int version_asked_directly(void *handle)
{
    ggcu_fn_cuDriverGetVersion get_version =
        (ggcu_fn_cuDriverGetVersion)dlsym(handle, "cuDriverGetVersion");
    cr_assert_not_null(get_version, "the library exports no cuDriverGetVersion");
    int version = 0;
    cr_assert_eq(get_version(&version), GGCU_SUCCESS);
    return version;
}

/* What the driver's cuGetProcAddress_v2 hands out for `base` at `version`.
 * Never called with a NULL symbol or pfn: the real driver crashes on those. */
static void *driver_answer(void *handle, const char *base, int version, int *status)
{
    ggcu_fn_cuGetProcAddress_v2 get_proc =
        (ggcu_fn_cuGetProcAddress_v2)dlsym(handle, "cuGetProcAddress_v2");
    cr_assert_not_null(get_proc, "the library exports no cuGetProcAddress_v2");
    void *fn = NULL;
    ggcu_proc_address_query query = GGCU_GET_PROC_ADDRESS_SUCCESS;
    /* Legacy default-stream semantics, as the loader asks: the functions of
     * the unsuffixed exported names. */
    cr_assert_eq(get_proc(base, &fn, version, GGCU_GET_PROC_ADDRESS_LEGACY_STREAM, &query),
                 GGCU_SUCCESS, "cuGetProcAddress_v2(%s, %d)", base, version);
    *status = (int)query;
    return fn;
}

/* Every entry point the loader resolves is exactly dlsym of the variant the
 * backend calls it through, asked at that variant's own version; the member
 * the backend calls (typed with that variant's signature) holds it and no
 * other variant's member is set. */
Test(cuda_real_driver, every_entry_point_is_dlsym_of_the_variant_it_is_called_through)
{
    const char *path = real_libcuda();
    ggcu_driver *drv = calloc(1, sizeof *drv);
    cr_assert_not_null(drv);
    gg__backend_open_result r = gg__cuda_driver_load(drv, path);
    cr_assert_eq(r.status, GG_OK, "loading %s: %s", path, r.message);
    cr_expect(!drv->simulated);

    /* The loader's handle is the library's; RTLD_NOLOAD opens nothing new. */
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    cr_assert_not_null(handle, "%s is not loaded after the load: %s", path, dlerror());
    cr_expect_eq(drv->driver_version, version_asked_directly(handle));
    cr_assert_geq(drv->entry_count, 1);

    for (size_t i = 0; i < drv->entry_count; i++) {
        const ggcu_entry_point *ep = &drv->entries[i];
        if (ep->variant == NULL) {
            cr_expect(!ep->required, "required %s has no variant", ep->base);
            cr_expect_null(ep->fn, "%s has a pointer but no variant", ep->base);
            continue;
        }
        void *exported = dlsym(handle, ep->variant);
        cr_expect_not_null(exported, "the driver does not export %s", ep->variant);
        cr_expect_eq(ep->fn, exported, "%s: the loader's pointer is not dlsym(%s)", ep->base,
                     ep->variant);
        cr_expect(ep->exported, "%s: the loader says %s is not exported", ep->base, ep->variant);
        cr_expect_leq(ep->version, drv->driver_version, "%s asked at %d, above driver %d",
                      ep->base, ep->version, drv->driver_version);
        /* 12.0 added cuGetProcAddress_v2; the loader prefers it. */
        cr_expect_str_eq(ep->resolved_by,
                         drv->driver_version >= 12000 ? "cuGetProcAddress_v2" : "cuGetProcAddress",
                         "%s", ep->base);
        /* Asked again, by us: the same answer at the variant's version. */
        int status = -1;
        cr_expect_eq(driver_answer(handle, ep->base, ep->version, &status), exported,
                     "cuGetProcAddress_v2(%s, %d) is not %s", ep->base, ep->version,
                     ep->variant);
        cr_expect_eq(status, GGCU_GET_PROC_ADDRESS_SUCCESS, "%s", ep->base);
    }

    /* The member of each variant, typed with its signature: set exactly for
     * the variant in use, to that variant's pointer, and that variant's row
     * is the version the loader asked at. */
#define CHECK_MEMBER(base_name, row_version, name, need)                                      \
    do {                                                                                      \
        const ggcu_entry_point *ep = gg__cuda_entry_point(drv, #base_name);                   \
        cr_assert_not_null(ep, "no entry for %s", #base_name);                                \
        bool in_use = ep->variant != NULL && strcmp(ep->variant, #name) == 0;                 \
        if (in_use) {                                                                         \
            cr_expect_eq((void *)drv->name, dlsym(handle, #name), "member %s", #name);        \
            cr_expect_eq(ep->version, row_version, "%s asked at %d, its row says %d", #name,  \
                         ep->version, row_version);                                           \
        } else {                                                                              \
            cr_expect_null((void *)drv->name, "member %s is set but %s is in use", #name,     \
                           ep->variant ? ep->variant : "no variant");                         \
        }                                                                                     \
    } while (0);
    GGCU_SYMBOL_LIST(CHECK_MEMBER)
#undef CHECK_MEMBER

    dlclose(handle);
    gg__cuda_driver_close(drv);
    free(drv);
}

/* The measurement, through the loader: a 12.2 driver has
 * cuCtxCreate_v3 (whose device comes after numParams and flags), not v4,
 * and the v1 cuEventElapsedTime. Newer packages are held to the same rule:
 * the newest variant at or below the driver's version. */
Test(cuda_real_driver, the_variants_are_those_of_the_drivers_version)
{
    const char *path = real_libcuda();
    ggcu_driver *drv = calloc(1, sizeof *drv);
    cr_assert_not_null(drv);
    gg__backend_open_result r = gg__cuda_driver_load(drv, path);
    cr_assert_eq(r.status, GG_OK, "loading %s: %s", path, r.message);

    int version = drv->driver_version;
    /* Debian 12's libcuda1 (535.x) is CUDA 12.2: what the issue measured.
     * cuCtxCreate_v4 came with 12.5, cuEventElapsedTime_v2 with 12.8. */
    const char *ctx_create = version >= 12050 ? "cuCtxCreate_v4" : "cuCtxCreate_v3";
    const char *elapsed = version >= 12080 ? "cuEventElapsedTime_v2" : "cuEventElapsedTime";
    cr_expect_str_eq(gg__cuda_entry_point(drv, "cuCtxCreate")->variant, ctx_create,
                     "driver %d", version);
    cr_expect_str_eq(gg__cuda_entry_point(drv, "cuEventElapsedTime")->variant, elapsed,
                     "driver %d", version);
    gg__cuda_driver_close(drv);
    free(drv);
}

/* The versions in GGCU_SYMBOL_LIST are checked against the driver itself:
 * for every variant it exports, asking cuGetProcAddress_v2 at the row's
 * version gives exactly that variant, and asking one below does not (an
 * older variant, or nothing). A variant at or below the driver's version is
 * exported; one above it is what a newer driver would have. */
Test(cuda_real_driver, each_variants_version_is_where_the_driver_starts_handing_it_out)
{
    const char *path = real_libcuda();
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(handle, "%s: %s", path, dlerror());
    int driver_version = version_asked_directly(handle);

#define CHECK_ROW(base_name, row_version, name, need)                                         \
    do {                                                                                      \
        void *exported = dlsym(handle, #name);                                                \
        if (row_version <= driver_version)                                                    \
            cr_expect_not_null(exported, "driver %d lacks %s (CUDA %d)", driver_version,      \
                               #name, row_version);                                           \
        if (exported != NULL) {                                                               \
            int status = -1;                                                                  \
            cr_expect_eq(driver_answer(handle, #base_name, row_version, &status), exported,   \
                         "at %d the driver does not hand out %s", row_version, #name);        \
            cr_expect_neq(driver_answer(handle, #base_name, row_version - 1, &status),        \
                          exported, "the driver hands out %s below %d: its row's version "    \
                          "is not where it starts", #name, row_version);                      \
        }                                                                                     \
    } while (0);
    GGCU_SYMBOL_LIST(CHECK_ROW)
#undef CHECK_ROW
    dlclose(handle);
}

/* Runs gg_init with fds 1 and 2 going to a file; returns its status and
 * leaves in *printed what the library (or the driver under it) wrote. */
static gg_status init_capturing_output(const gg_init_desc *desc, char *printed, size_t size)
{
    char name[] = "/tmp/gg_real_driver_outputXXXXXX";
    int capture = mkstemp(name);
    cr_assert_geq(capture, 0);
    unlink(name);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    cr_assert(saved_out >= 0 && saved_err >= 0);
    cr_assert_geq(dup2(capture, 1), 0);
    cr_assert_geq(dup2(capture, 2), 0);

    gg_status status = gg_init(desc);

    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    ssize_t got = pread(capture, printed, size - 1, 0);
    close(capture);
    printed[got > 0 ? got : 0] = '\0';
    return status;
}

/* Debian's driver on a machine without the NVIDIA kernel module: cuInit
 * answers CUDA_ERROR_NO_DEVICE (100). gg_init says so with the library, the
 * driver's version and why, and nothing is printed. */
Test(cuda_real_driver, gg_init_without_a_gpu_is_no_device_naming_library_version_and_why)
{
    const char *path = real_libcuda();
    if (access("/proc/driver/nvidia", F_OK) == 0)
        cr_skip_test("an NVIDIA kernel module is loaded here (/proc/driver/nvidia): this test "
                     "is about a machine without one");
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(handle, "%s: %s", path, dlerror());
    int version = version_asked_directly(handle);
    char version_text[32];
    snprintf(version_text, sizeof version_text, "%d.%d (%d)", version / 1000,
             version % 1000 / 10, version);
    dlclose(handle);

    unsetenv("GPUGUARD_LOG"); /* "never prints unless asked": nobody asks here */
    unsetenv("GPUGUARD_BACKEND");
    setenv("GPUGUARD_CUDA_LIBRARY", path, 1);
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "cuda" };
    char printed[4096];
    gg_status status = init_capturing_output(&desc, printed, sizeof printed);

    gg_error_info err = GG_ERROR_INFO_INIT;
    cr_assert_eq(gg_last_error(&err), GG_OK);
    cr_expect_eq(status, GG_NO_DEVICE, "gg_init returned %s: %s", gg_status_name(status),
                 err.message);
    cr_expect_eq(err.status, GG_NO_DEVICE);
    cr_expect_eq(err.native_code, 100, "native code %d: %s", (int)err.native_code, err.message);
    cr_expect_not_null(strstr(err.message, "CUDA_ERROR_NO_DEVICE"), "message: %s", err.message);
    cr_expect_not_null(strstr(err.message, path), "message does not name %s: %s", path,
                       err.message);
    cr_expect_not_null(strstr(err.message, version_text), "message does not say %s: %s",
                       version_text, err.message);
    cr_expect_not_null(strstr(err.message, "the NVIDIA kernel module is not loaded"),
                       "message: %s", err.message);
    cr_expect_str_eq(printed, "", "gg_init printed: %s", printed);
    cr_expect_eq(gg_shutdown(), GG_OK);
}
