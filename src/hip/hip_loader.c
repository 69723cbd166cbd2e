#include "hip/hip_loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "common/loader_common.h"
#include "hip/hip_errors.h"

enum { GGHIP_NEED_REQUIRED, GGHIP_NEED_OPTIONAL };

/* Appends "name (why)" to the list of names tried, for the NO_DRIVER message. */
static void note_tried(char *tried, size_t size, const char *name, const char *why)
{
    size_t used = strlen(tried);
    if (used + 1 >= size)
        return;
    snprintf(tried + used, size - used, "%s%s (%s)", used ? "; " : "", name, why);
}

/* Every entry point, by the exported name the chosen ABI gives it. */
static void resolve_all(gghip_runtime *rt)
{
    /* POSIX guarantees that a dlsym'd object pointer converts to a function pointer. */
#define GGHIP__RESOLVE(name, need) \
    rt->name = (gghip_fn_##name)dlsym(rt->handle, rt->abi->symbols[GGHIP_SYM_##name]);
    GGHIP_SYMBOL_LIST(GGHIP__RESOLVE)
#undef GGHIP__RESOLVE
}

/* "6.2.41134" from a HIP_VERSION (major * 10^7 + minor * 10^5 + build). */
static void version_digits(int v, char *out, size_t size)
{
    snprintf(out, size, "%d.%d.%d", v / 10000000, v / 100000 % 100, v % 100000);
}

/* The N of a file named libamdhip64.so.N[.x...], or -1 for any other name
 * (the simulator, a test's fake, a renamed copy): such a file's version
 * alone decides. */
static int soname_major(const char *path)
{
    static const char prefix[] = "libamdhip64.so.";
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    if (strncmp(base, prefix, sizeof prefix - 1) != 0)
        return -1;
    const char *digits = base + sizeof prefix - 1;
    if (*digits < '0' || *digits > '9')
        return -1;
    int major = 0;
    for (; *digits >= '0' && *digits <= '9' && major < 1000; digits++)
        major = major * 10 + (*digits - '0');
    return major;
}

/* Asks the runtime its version and picks the ABI table checked for it
 * (rt->abi). A runtime that will not say, one of a version whose ABI was
 * never checked, and one whose version contradicts its file's soname are
 * refused: calling it through a guessed ABI could pass wrong numbers or
 * read wrong layouts without any error to show for it. */
static gg__backend_open_result choose_abi(gghip_runtime *rt)
{
    gghip_fn_hipRuntimeGetVersion get_version =
        (gghip_fn_hipRuntimeGetVersion)dlsym(rt->handle, "hipRuntimeGetVersion");
    if (get_version == NULL)
        return gg__loader_result(GG_NO_DRIVER, 0,
                           "%s lacks hipRuntimeGetVersion: cannot tell which HIP ABI it has",
                           rt->library);
    int v = 0;
    gghip_error rc = get_version(&v);
    if (rc != GGHIP_Success || v <= 0)
        return gg__loader_result(GG_NO_DRIVER, (int)rc,
                           "hipRuntimeGetVersion of %s failed (%s, %d; version %d): cannot "
                           "tell which HIP ABI it has",
                           rt->library, gg__hip_code_name((int)rc), (int)rc, v);
    rt->runtime_version = v;
    char digits[48];
    version_digits(v, digits, sizeof digits);
    rt->abi = gg__hip_abi_for_version(v);
    if (rt->abi == NULL)
        return gg__loader_result(GG_NO_DRIVER, 0,
                           "%s is HIP %s: its ABI is unchecked (gpuguard checked %s), so it is "
                           "not used",
                           rt->library, digits, gg__hip_abi_checked_ranges());
    int named = soname_major(rt->library);
    if (named >= 0 && named != rt->abi->major)
        return gg__loader_result(GG_NO_DRIVER, 0,
                           "%s reports HIP %s, but a file named libamdhip64.so.%d must be HIP "
                           "%d.x: refusing a runtime whose version and soname disagree",
                           rt->library, digits, named, named);
    return gg__loader_result(GG_OK, 0, NULL);
}

/* The exported name of the first missing entry point the backend cannot
 * work without, or NULL. */
static const char *first_missing(const gghip_runtime *rt)
{
#define GGHIP__CHECK(name, need)                                            \
    if (GGHIP_NEED_##need == GGHIP_NEED_REQUIRED && rt->name == NULL)       \
        return rt->abi->symbols[GGHIP_SYM_##name];
    GGHIP_SYMBOL_LIST(GGHIP__CHECK)
#undef GGHIP__CHECK
    return NULL;
}

/* Our name for a code, or the runtime's own for one our table lacks (a
 * newer runtime's), so the message never says only "unrecognized". */
static const char *error_name(const gghip_runtime *rt, gghip_error rc)
{
    const char *name = gg__hip_code_name((int)rc);
    if (strcmp(name, "hipErrorUnrecognized") == 0 && rt->hipGetErrorName != NULL) {
        const char *theirs = rt->hipGetErrorName(rc);
        if (theirs != NULL && theirs[0] != '\0')
            return theirs;
    }
    return name;
}

/* " (HIP 5.2.21153)" from hipDriverGetVersion (major * 10^7 + minor * 10^5 +
 * patch), or "" when the runtime will not say. It answers even when hipInit
 * failed, which is when the message needs it. */
static void version_text(const gghip_runtime *rt, char *out, size_t size)
{
    int v = 0;
    out[0] = '\0';
    if (rt->hipDriverGetVersion != NULL && rt->hipDriverGetVersion(&v) == GGHIP_Success && v > 0)
        snprintf(out, size, " (HIP %d.%d.%d)", v / 10000000, v / 100000 % 100, v % 100000);
}

/* Maps hipInit's failure to an open error. "No AMD GPU" is what users hit
 * most (Debian's runtime on any machine without one: hipInit returns
 * hipErrorInvalidDevice, hipGetDeviceCount hipErrorNoDevice with 0). */
static gg__backend_open_result init_failure(const gghip_runtime *rt, gghip_error rc)
{
    int code = (int)rc;
    char version[64];
    version_text(rt, version, sizeof version);
    if (rc == GGHIP_ErrorNoDevice || rc == GGHIP_ErrorInvalidDevice) {
        char counted[128] = "";
        if (rt->hipGetDeviceCount != NULL) {
            int devices = 0;
            gghip_error n = rt->hipGetDeviceCount(&devices);
            snprintf(counted, sizeof counted, "; hipGetDeviceCount: %s, %d device(s)",
                     error_name(rt, n), devices);
        }
        return gg__loader_result(GG_NO_DEVICE, code,
                           "hipInit: %s (%d): the HIP runtime %s%s sees no AMD GPU%s",
                           error_name(rt, rc), code, rt->library, version, counted);
    }
    if (rc == GGHIP_ErrorInsufficientDriver)
        return gg__loader_result(GG_NO_DRIVER, code,
                           "hipInit: %s (%d): the amdgpu kernel driver is too old for the HIP "
                           "runtime %s%s",
                           error_name(rt, rc), code, rt->library, version);
    return gg__loader_result(GG_NO_DRIVER, code, "hipInit failed with %s (%d) in %s%s",
                       error_name(rt, rc), code, rt->library, version);
}

gg__backend_open_result gg__hip_runtime_open(gghip_runtime *rt, const char *library)
{
    memset(rt, 0, sizeof *rt);
    static const char *const defaults[] = GGHIP_DEFAULT_LIBRARIES;
    const char *const *names = defaults;
    size_t count = sizeof defaults / sizeof defaults[0];
    if (library != NULL && library[0] != '\0') {
        names = &library;
        count = 1;
    }

    char tried[GG_MESSAGE_MAX] = "";
    const char *requested = NULL;
    for (size_t i = 0; i < count && rt->handle == NULL; i++) {
        rt->handle = gg__loader_open(names[i]); /* why its flags: loader_common.c */
        if (rt->handle != NULL)
            requested = names[i];
        else
            note_tried(tried, sizeof tried, names[i], gg__loader_dl_error());
    }
    if (rt->handle == NULL)
        return gg__loader_result(GG_NO_DRIVER, 0, "cannot load the HIP runtime: tried %s", tried);
    gg__loader_library_path(rt->handle, requested, rt->library, sizeof rt->library);
    rt->simulated = dlsym(rt->handle, "gg_sim_identify") != NULL;
    /* POSIX: a pointer from dlsym converts to a function pointer. */
    rt->sim_error_detail = rt->simulated
        ? (const char *(*)(void))dlsym(rt->handle, "gg_sim_last_error_detail") : NULL;

    /* hipInit's presence first: a library that is no HIP runtime at all is
     * better named as such than as one without hipRuntimeGetVersion. */
    if (dlsym(rt->handle, "hipInit") == NULL) {
        gg__backend_open_result r =
            gg__loader_result(GG_NO_DRIVER, 0, "%s lacks hipInit: not a HIP runtime", rt->library);
        gg__hip_runtime_close(rt);
        return r;
    }
    gg__backend_open_result chosen = choose_abi(rt);
    if (chosen.status != GG_OK) {
        gg__hip_runtime_close(rt);
        return chosen;
    }
    resolve_all(rt);

    /* hipInit before the completeness check: a machine without a GPU is
     * better reported as such than as a missing symbol. */
    if (rt->hipInit == NULL) {
        gg__backend_open_result r = gg__loader_result(GG_NO_DRIVER, 0, "%s lacks %s", rt->library,
                                                rt->abi->symbols[GGHIP_SYM_hipInit]);
        gg__hip_runtime_close(rt);
        return r;
    }
    gghip_error rc = rt->hipInit(0);
    if (rc != GGHIP_Success) {
        gg__backend_open_result r = init_failure(rt, rc);
        gg__hip_runtime_close(rt);
        return r;
    }

    const char *missing = first_missing(rt);
    if (missing != NULL) {
        gg__backend_open_result r =
            gg__loader_result(GG_NO_DRIVER, 0, "%s lacks %s", rt->library, missing);
        gg__hip_runtime_close(rt);
        return r;
    }
    return gg__loader_result(GG_OK, 0, NULL);
}

void gg__hip_runtime_close(gghip_runtime *rt)
{
    if (rt->handle != NULL)
        dlclose(rt->handle);
    rt->handle = NULL;
}
