/*
 * A fake libcuda for the loader tests. Its cuGetProcAddress answers the way
 * Debian's real driver (libcuda1 535.261.03) was measured to: the newest
 * variant the driver has at or below the version asked, CUDA_SUCCESS with
 * status SUCCESS; never an error for a version newer than the driver;
 * VERSION_NOT_SUFFICIENT below the oldest variant; SYMBOL_NOT_FOUND for an
 * unknown name. Like the real driver it exports every variant it has under
 * its versioned name, so the tests can compare pointers with dlsym.
 *
 * Built three times (tests/cuda/CMakeLists.txt):
 *   fake_libcuda.so        exports cuGetProcAddress_v2 and cuGetProcAddress (12.x)
 *   fake_libcuda_gpa11.so  exports only the 4-argument cuGetProcAddress (11.3-11.8)
 *   fake_libcuda_nogpa.so  exports neither (older than 11.3, or not a driver)
 *
 * Behaviour, read from the environment at each call:
 *   FAKE_CUDA_VERSION  the driver's CUDA version (default 13000): variants
 *                      newer than it do not exist
 *   FAKE_CUDA_NULL=B   cuGetProcAddress finds nothing for base name B
 *   FAKE_CUDA_LIE=B    cuGetProcAddress answers base name B with the variant
 *                      before the one it should (another signature)
 *   FAKE_CUDA_INIT=N   cuInit returns N
 *
 * The context calls record how they were called (fake_cuda_last_create), so
 * a test can see that the variant was called through its own signature.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? atoi(v) : fallback;
}

EXPORT unsigned cuInit(unsigned flags)
{
    (void)flags;
    return (unsigned)env_int("FAKE_CUDA_INIT", 0);
}

EXPORT unsigned cuDriverGetVersion(int *v)
{
    *v = env_int("FAKE_CUDA_VERSION", 13000);
    return 0;
}

/* ---- the calls a context creation makes, recording their arguments ---- */

typedef struct fake_create_record {
    const char *variant; /* which cuCtxCreate variant ran */
    int device;
    unsigned flags;
    int params_count;    /* v3's numParams; -1 for the others */
    int params_null;     /* the parameter pointer was NULL */
} fake_create_record;

static fake_create_record last_create;
static int fake_context_token;
static void *current_context;

EXPORT const fake_create_record *fake_cuda_last_create(void)
{
    return &last_create;
}

EXPORT unsigned cuDeviceGet(int *device, int ordinal)
{
    *device = ordinal;
    return 0;
}

static unsigned record_create(void **ctx, const char *variant, int device, unsigned flags,
                              int params_count, const void *params)
{
    last_create.variant = variant;
    last_create.device = device;
    last_create.flags = flags;
    last_create.params_count = params_count;
    last_create.params_null = params == NULL;
    *ctx = &fake_context_token;
    current_context = *ctx;
    return 0;
}

EXPORT unsigned cuCtxCreate(void **ctx, unsigned flags, int dev)
{
    return record_create(ctx, "cuCtxCreate", dev, flags, -1, NULL);
}
EXPORT unsigned cuCtxCreate_v2(void **ctx, unsigned flags, int dev)
{
    return record_create(ctx, "cuCtxCreate_v2", dev, flags, -1, NULL);
}
EXPORT unsigned cuCtxCreate_v3(void **ctx, void *params, int count, unsigned flags, int dev)
{
    return record_create(ctx, "cuCtxCreate_v3", dev, flags, count, params);
}
EXPORT unsigned cuCtxCreate_v4(void **ctx, void *params, unsigned flags, int dev)
{
    return record_create(ctx, "cuCtxCreate_v4", dev, flags, -1, params);
}

EXPORT unsigned cuCtxPopCurrent_v2(void **ctx)
{
    if (ctx != NULL)
        *ctx = current_context;
    current_context = NULL;
    return 0;
}

EXPORT unsigned cuCtxDestroy_v2(void *ctx)
{
    (void)ctx;
    return 0;
}

/* Placeholders: only their addresses matter. */
#define FAKE(name) EXPORT void name(void) {}
FAKE(cuDeviceGetCount) FAKE(cuDeviceGetName) FAKE(cuDeviceTotalMem) FAKE(cuDeviceTotalMem_v2)
FAKE(cuDeviceGetAttribute) FAKE(cuCtxDestroy) FAKE(cuCtxGetCurrent)
FAKE(cuCtxSetCurrent) FAKE(cuCtxPushCurrent) FAKE(cuCtxPushCurrent_v2) FAKE(cuCtxPopCurrent)
FAKE(cuCtxSynchronize) FAKE(cuCtxSynchronize_v2)
FAKE(cuDevicePrimaryCtxRetain) FAKE(cuDevicePrimaryCtxRelease) FAKE(cuDevicePrimaryCtxRelease_v2)
FAKE(cuDevicePrimaryCtxReset) FAKE(cuDevicePrimaryCtxReset_v2)
FAKE(cuStreamCreate) FAKE(cuStreamDestroy) FAKE(cuStreamDestroy_v2) FAKE(cuStreamQuery)
FAKE(cuStreamSynchronize) FAKE(cuStreamWaitEvent) FAKE(cuEventCreate) FAKE(cuEventDestroy)
FAKE(cuEventDestroy_v2) FAKE(cuEventRecord) FAKE(cuEventQuery) FAKE(cuEventSynchronize)
FAKE(cuEventElapsedTime) FAKE(cuEventElapsedTime_v2) FAKE(cuMemAlloc) FAKE(cuMemAlloc_v2)
FAKE(cuMemFree) FAKE(cuMemFree_v2) FAKE(cuMemAllocHost) FAKE(cuMemAllocHost_v2) FAKE(cuMemFreeHost)
FAKE(cuMemcpyHtoD_v2) FAKE(cuMemcpyDtoH_v2) FAKE(cuMemcpyDtoD_v2) FAKE(cuMemcpyHtoDAsync_v2)
FAKE(cuMemcpyDtoHAsync_v2) FAKE(cuMemcpyDtoDAsync_v2) FAKE(cuMemsetD8_v2) FAKE(cuMemsetD8Async)
FAKE(cuModuleLoad) FAKE(cuModuleLoadData) FAKE(cuModuleUnload) FAKE(cuModuleGetFunction)
FAKE(cuLaunchKernel)
#undef FAKE

/* POSIX: function and object pointers convert (as dlsym relies on). */
#define V(base, version, fn) { base, version, (void *)(uintptr_t)(fn) }

/* Base name, version that introduced the variant (cudaTypedefs.h), the
 * variant; for each name in increasing version order. */
static const struct variant {
    const char *base;
    int version;
    void *fn;
} table[] = {
    V("cuInit", 2000, cuInit),
    V("cuDriverGetVersion", 2020, cuDriverGetVersion),
    V("cuDeviceGetCount", 2000, cuDeviceGetCount),
    V("cuDeviceGet", 2000, cuDeviceGet),
    V("cuDeviceGetName", 2000, cuDeviceGetName),
    V("cuDeviceTotalMem", 2000, cuDeviceTotalMem),
    V("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2),
    V("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute),
    V("cuCtxCreate", 2000, cuCtxCreate),
    V("cuCtxCreate", 3020, cuCtxCreate_v2),
    V("cuCtxCreate", 11040, cuCtxCreate_v3),
    V("cuCtxCreate", 12050, cuCtxCreate_v4),
    V("cuCtxDestroy", 2000, cuCtxDestroy),
    V("cuCtxDestroy", 4000, cuCtxDestroy_v2),
    V("cuCtxGetCurrent", 4000, cuCtxGetCurrent),
    V("cuCtxSetCurrent", 4000, cuCtxSetCurrent),
    V("cuCtxPushCurrent", 2000, cuCtxPushCurrent),
    V("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2),
    V("cuCtxPopCurrent", 2000, cuCtxPopCurrent),
    V("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2),
    V("cuCtxSynchronize", 2000, cuCtxSynchronize),
    V("cuCtxSynchronize", 13000, cuCtxSynchronize_v2),
    V("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain),
    V("cuDevicePrimaryCtxRelease", 7000, cuDevicePrimaryCtxRelease),
    V("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease_v2),
    V("cuDevicePrimaryCtxReset", 7000, cuDevicePrimaryCtxReset),
    V("cuDevicePrimaryCtxReset", 11000, cuDevicePrimaryCtxReset_v2),
    V("cuStreamCreate", 2000, cuStreamCreate),
    V("cuStreamDestroy", 2000, cuStreamDestroy),
    V("cuStreamDestroy", 4000, cuStreamDestroy_v2),
    V("cuStreamQuery", 2000, cuStreamQuery),
    V("cuStreamSynchronize", 2000, cuStreamSynchronize),
    V("cuStreamWaitEvent", 3020, cuStreamWaitEvent),
    V("cuEventCreate", 2000, cuEventCreate),
    V("cuEventDestroy", 2000, cuEventDestroy),
    V("cuEventDestroy", 4000, cuEventDestroy_v2),
    V("cuEventRecord", 2000, cuEventRecord),
    V("cuEventQuery", 2000, cuEventQuery),
    V("cuEventSynchronize", 2000, cuEventSynchronize),
    V("cuEventElapsedTime", 2000, cuEventElapsedTime),
    V("cuEventElapsedTime", 12080, cuEventElapsedTime_v2),
    V("cuMemAlloc", 2000, cuMemAlloc),
    V("cuMemAlloc", 3020, cuMemAlloc_v2),
    V("cuMemFree", 2000, cuMemFree),
    V("cuMemFree", 3020, cuMemFree_v2),
    V("cuMemAllocHost", 2000, cuMemAllocHost),
    V("cuMemAllocHost", 3020, cuMemAllocHost_v2),
    V("cuMemFreeHost", 2000, cuMemFreeHost),
    V("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2),
    V("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2),
    V("cuMemcpyDtoD", 3020, cuMemcpyDtoD_v2),
    V("cuMemcpyHtoDAsync", 3020, cuMemcpyHtoDAsync_v2),
    V("cuMemcpyDtoHAsync", 3020, cuMemcpyDtoHAsync_v2),
    V("cuMemcpyDtoDAsync", 3020, cuMemcpyDtoDAsync_v2),
    V("cuMemsetD8", 3020, cuMemsetD8_v2),
    V("cuMemsetD8Async", 3020, cuMemsetD8Async),
    V("cuModuleLoad", 2000, cuModuleLoad),
    V("cuModuleLoadData", 2000, cuModuleLoadData),
    V("cuModuleUnload", 2000, cuModuleUnload),
    V("cuModuleGetFunction", 2000, cuModuleGetFunction),
    V("cuLaunchKernel", 4000, cuLaunchKernel),
};

/* The highest version the loader asked for each base name, for the tests. */
static char asked_base[128][40];
static int asked_version[128];
static int asked_count;

EXPORT int fake_cuda_asked_version(const char *base)
{
    int highest = -1;
    for (int i = 0; i < asked_count; i++)
        if (strcmp(asked_base[i], base) == 0 && asked_version[i] > highest)
            highest = asked_version[i];
    return highest;
}

EXPORT void fake_cuda_forget_questions(void)
{
    asked_count = 0;
}

/* The answer of the measured driver (status: 0 SUCCESS, 1 SYMBOL_NOT_FOUND,
 * 2 VERSION_NOT_SUFFICIENT). */
__attribute__((unused)) static void *answer(const char *symbol, int version, unsigned *status)
{
    if (asked_count < 128) {
        strncpy(asked_base[asked_count], symbol, sizeof asked_base[0] - 1);
        asked_version[asked_count++] = version;
    }
    const int driver = env_int("FAKE_CUDA_VERSION", 13000);
    const char *null_base = getenv("FAKE_CUDA_NULL");
    const char *lie_base = getenv("FAKE_CUDA_LIE");
    void *best = NULL, *older = NULL;
    int known = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].base, symbol) != 0 || table[i].version > driver)
            continue;
        known = 1;
        if (table[i].version <= version) {
            older = best;
            best = table[i].fn;
        }
    }
    if (null_base != NULL && strcmp(null_base, symbol) == 0)
        known = 0, best = NULL;
    /* The lie: every question answered with the variant before the right one. */
    if (lie_base != NULL && strcmp(lie_base, symbol) == 0 && older != NULL)
        best = older;
    *status = best != NULL ? 0 : known ? 2 : 1;
    return best;
}

#ifndef FAKE_CUDA_NO_GPA
EXPORT unsigned cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags)
{
    if (flags > 3)
        return 1; /* CUDA_ERROR_INVALID_VALUE, as measured */
    unsigned status;
    *pfn = answer(symbol, version, &status);
    return 0;
}

#ifndef FAKE_CUDA_GPA11
EXPORT unsigned cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
                                    unsigned *status)
{
    if (flags > 3)
        return 1;
    unsigned found;
    *pfn = answer(symbol, version, &found);
    if (status != NULL)
        *status = found;
    return 0;
}
#endif
#endif
