/*
 * A fake libcuda for the loader tests: just enough of a driver's export
 * surface to watch how the loader asks for entry points. Nothing but cuInit,
 * cuDriverGetVersion and cuGetProcAddress_v2 is ever called; every other
 * "entry point" is a distinct address to hand out.
 *
 * Behaviour, read from the environment at each call:
 *   FAKE_CUDA_VERSION  the driver's CUDA version (default 13000); asking
 *                      cuGetProcAddress for a newer version gets
 *                      CUDA_ERROR_INVALID_VALUE, as from a real driver
 *   FAKE_CUDA_GPA=off  cuGetProcAddress_v2 answers CUDA_ERROR_NOT_SUPPORTED
 *   FAKE_CUDA_INIT=N   cuInit returns N
 *
 * The entry points introduced in CUDA 12.5+ (cuCtxCreate_v4,
 * cuEventElapsedTime_v2) and cuLaunchKernel are not exported: they are only
 * reachable through cuGetProcAddress, so the tests can tell which path the
 * loader took, and that a missing required symbol is reported.
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

/* Placeholders: only their addresses matter. */
#define FAKE(name) EXPORT void name(void) {}
FAKE(cuDeviceGetCount) FAKE(cuDeviceGet) FAKE(cuDeviceGetName) FAKE(cuDeviceTotalMem_v2)
FAKE(cuDeviceGetAttribute) FAKE(cuCtxCreate_v2) FAKE(cuCtxDestroy_v2) FAKE(cuCtxGetCurrent)
FAKE(cuCtxSetCurrent) FAKE(cuCtxPushCurrent_v2) FAKE(cuCtxPopCurrent_v2) FAKE(cuCtxSynchronize)
FAKE(cuDevicePrimaryCtxRetain) FAKE(cuDevicePrimaryCtxRelease_v2) FAKE(cuDevicePrimaryCtxReset_v2)
FAKE(cuStreamCreate) FAKE(cuStreamDestroy_v2) FAKE(cuStreamQuery) FAKE(cuStreamSynchronize)
FAKE(cuStreamWaitEvent) FAKE(cuEventCreate) FAKE(cuEventDestroy_v2) FAKE(cuEventRecord)
FAKE(cuEventQuery) FAKE(cuEventSynchronize) FAKE(cuEventElapsedTime) FAKE(cuMemAlloc_v2)
FAKE(cuMemFree_v2) FAKE(cuMemAllocHost_v2) FAKE(cuMemFreeHost) FAKE(cuMemcpyHtoD_v2)
FAKE(cuMemcpyDtoH_v2) FAKE(cuMemcpyDtoD_v2) FAKE(cuMemcpyHtoDAsync_v2) FAKE(cuMemcpyDtoHAsync_v2)
FAKE(cuMemcpyDtoDAsync_v2) FAKE(cuMemsetD8_v2) FAKE(cuMemsetD8Async) FAKE(cuModuleLoad)
FAKE(cuModuleLoadData) FAKE(cuModuleUnload) FAKE(cuModuleGetFunction)
#undef FAKE

/* Reachable through cuGetProcAddress only. */
static void hidden_cuCtxCreate_v4(void) {}
static void hidden_cuEventElapsedTime_v2(void) {}
static void hidden_cuCtxSynchronize_v2(void) {}
static void hidden_cuLaunchKernel(void) {}

/* Base name, version that introduced the entry, the entry. */
static const struct entry {
    const char *base;
    int version;
    void (*fn)(void);
} table[] = {
    { "cuCtxCreate", 3020, cuCtxCreate_v2 },
    { "cuCtxCreate", 12050, hidden_cuCtxCreate_v4 },
    { "cuEventElapsedTime", 2000, cuEventElapsedTime },
    { "cuEventElapsedTime", 12080, hidden_cuEventElapsedTime_v2 },
    { "cuCtxSynchronize", 2000, cuCtxSynchronize },
    { "cuCtxSynchronize", 13000, hidden_cuCtxSynchronize_v2 },
    { "cuLaunchKernel", 4000, hidden_cuLaunchKernel },
    { "cuMemAlloc", 3020, cuMemAlloc_v2 },
};

/* The highest version the loader asked for each base name, for the tests. */
static char asked_base[64][40];
static int asked_version[64];
static int asked_count;

EXPORT int fake_cuda_asked_version(const char *base)
{
    int highest = -1;
    for (int i = 0; i < asked_count; i++)
        if (strcmp(asked_base[i], base) == 0 && asked_version[i] > highest)
            highest = asked_version[i];
    return highest;
}

EXPORT unsigned cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
                                    unsigned *status)
{
    (void)flags;
    const char *gpa = getenv("FAKE_CUDA_GPA");
    if (gpa != NULL && strcmp(gpa, "off") == 0)
        return 801;
    if (asked_count < 64) {
        strncpy(asked_base[asked_count], symbol, sizeof asked_base[0] - 1);
        asked_version[asked_count++] = version;
    }
    if (version > env_int("FAKE_CUDA_VERSION", 13000))
        return 1; /* CUDA_ERROR_INVALID_VALUE */
    *pfn = NULL;
    int best = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].base, symbol) == 0 && table[i].version <= version &&
            table[i].version > best && table[i].version <= env_int("FAKE_CUDA_VERSION", 13000)) {
            best = table[i].version;
            /* POSIX: function and object pointers convert (as dlsym relies on). */
            *pfn = (void *)table[i].fn;
        }
    if (status != NULL)
        *status = *pfn != NULL ? 0 : 1;
    return 0;
}
