/*
 * A fake libamdhip64 for the HIP backend's tests: what the real runtime does
 * on the paths a machine without an AMD GPU cannot show, and on the ones the
 * simulator need not model exactly.
 *
 *  - hipRuntimeGetVersion and hipDriverGetVersion answer $FAKE_HIP_VERSION
 *    (default 50221153, Debian's 5.2.3), so that one build can stand for a
 *    ROCm 5, 6 or 7 runtime when the loader chooses its ABI table; a
 *    negative value makes hipRuntimeGetVersion fail (hipErrorInvalidValue).
 *  - hipInit returns $FAKE_HIP_INIT (default 0: success), and
 *    hipGetErrorName names 1100 "hipErrorFromTheFuture" (a code newer than
 *    the backend's table), so the loader's failure messages can be checked.
 *  - Contexts follow ROCm 5/6's hipamd (hip_context.cpp, read for the
 *    behaviour, nothing copied): two devices, each with one primary context;
 *    a per-thread current device (device 0 at first) and a per-thread stack.
 *    hipCtxGetCurrent returns the current device's context (never NULL);
 *    hipCtxSetCurrent sets the device and replaces the stack's top (NULL:
 *    pops the top, device unchanged); hipCtxPushCurrent sets the device and
 *    pushes; hipCtxPopCurrent pops without touching the current device
 *    (hipErrorInvalidContext when empty); hipDevicePrimaryCtxRelease and
 *    hipDevicePrimaryCtxReset do nothing; hipDeviceReset resets the current
 *    device (counted, for the tests).
 *  - hipMalloc returns $FAKE_HIP_MALLOC (default hipErrorNotSupported): a
 *    sticky code there stands for a device that died.
 *  - hipDeviceGetAttribute answers only the attributes the backend uses,
 *    under HIP's numbers, and hipErrorInvalidValue otherwise (as the real
 *    one does for attributes it does not know), so asking with CUDA's
 *    numbers fails.
 *
 * Built twice: FAKE_HIP_NO_LAUNCH leaves hipModuleLaunchKernel out, for the
 * "missing required entry point" test. Every other entry point is a
 * placeholder that only has to exist.
 */
#include <stddef.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

enum {
    OK = 0, INVALID_VALUE = 1, NOT_SUPPORTED = 801, INVALID_DEVICE = 101,
    INVALID_CONTEXT = 201, DEVICES = 2, STACK_MAX = 16
};

/* A hipCtx_t is a pointer to one of these (the device, as in ROCm). */
typedef struct fake_device { int ordinal; } fake_device;
static fake_device devices[DEVICES] = { { 0 }, { 1 } };
static int resets[DEVICES];
static int retains[DEVICES];
static int releases[DEVICES];

static _Thread_local int current_device;
static _Thread_local fake_device *stack[STACK_MAX];
static _Thread_local int depth;

EXPORT unsigned hipInit(unsigned flags)
{
    const char *v = getenv("FAKE_HIP_INIT");
    if (flags != 0)
        return INVALID_VALUE;
    return v != NULL && v[0] != '\0' ? (unsigned)atoi(v) : OK;
}

static int reported_version(void)
{
    const char *v = getenv("FAKE_HIP_VERSION");
    return v != NULL && v[0] != '\0' ? atoi(v) : 50221153;
}

EXPORT unsigned hipDriverGetVersion(int *v)
{
    *v = reported_version();
    return OK;
}

EXPORT unsigned hipRuntimeGetVersion(int *v)
{
    *v = reported_version();
    return *v < 0 ? INVALID_VALUE : OK;
}

EXPORT unsigned hipGetDeviceCount(int *count)
{
    const char *v = getenv("FAKE_HIP_INIT");
    *count = v != NULL && atoi(v) != 0 ? 0 : DEVICES;
    return *count ? OK : 100;
}

EXPORT const char *hipGetErrorName(unsigned e)
{
    return e == 1100 ? "hipErrorFromTheFuture" : "hipErrorUnknown";
}

static int valid(int d)
{
    return d >= 0 && d < DEVICES;
}

EXPORT unsigned hipDeviceGet(int *dev, int ordinal)
{
    if (!valid(ordinal))
        return INVALID_DEVICE;
    *dev = ordinal;
    return OK;
}

EXPORT unsigned hipDeviceGetName(char *name, int len, int dev)
{
    static const char *const names[DEVICES] = { "fake HIP GPU 0", "fake HIP GPU 1" };
    if (!valid(dev))
        return INVALID_DEVICE;
    if (name == NULL || len <= 0)
        return INVALID_VALUE;
    int i = 0;
    for (; i < len - 1 && names[dev][i] != '\0'; i++)
        name[i] = names[dev][i];
    name[i] = '\0';
    return OK;
}

EXPORT unsigned hipDeviceTotalMem(size_t *bytes, int dev)
{
    if (!valid(dev))
        return INVALID_DEVICE;
    *bytes = (size_t)(dev + 1) << 30;
    return OK;
}

EXPORT unsigned hipDeviceGetAttribute(int *pi, unsigned attr, int dev)
{
    if (!valid(dev))
        return INVALID_DEVICE;
    switch (attr) {
    case 18: *pi = 0; return OK;           /* KernelExecTimeout: ROCm says 0 */
    case 26: *pi = 1024; return OK;        /* MaxBlockDimX */
    case 27: *pi = 1024; return OK;        /* MaxBlockDimY */
    case 28: *pi = 1024; return OK;        /* MaxBlockDimZ */
    case 29: *pi = 2147483647; return OK;  /* MaxGridDimX */
    case 30: *pi = 65536; return OK;       /* MaxGridDimY */
    case 31: *pi = 65536; return OK;       /* MaxGridDimZ */
    case 56: *pi = 1024; return OK;        /* MaxThreadsPerBlock */
    case 63: *pi = 60 + dev; return OK;    /* MultiprocessorCount */
    case 74: *pi = 65536; return OK;       /* MaxSharedMemoryPerBlock */
    default: return INVALID_VALUE;
    }
}

EXPORT unsigned hipSetDevice(int dev)
{
    if (!valid(dev))
        return INVALID_DEVICE;
    current_device = dev;
    return OK;
}

EXPORT unsigned hipGetDevice(int *dev)
{
    *dev = current_device;
    return OK;
}

EXPORT unsigned hipDevicePrimaryCtxRetain(fake_device **ctx, int dev)
{
    if (!valid(dev))
        return INVALID_DEVICE;
    retains[dev]++;
    *ctx = &devices[dev];
    return OK;
}

EXPORT unsigned hipDevicePrimaryCtxRelease(int dev)
{
    if (!valid(dev))
        return INVALID_DEVICE;
    releases[dev]++;
    return OK;
}

EXPORT unsigned hipDevicePrimaryCtxReset(int dev)
{
    (void)dev;
    return OK;
}

EXPORT unsigned hipCtxGetCurrent(fake_device **ctx)
{
    *ctx = &devices[current_device];
    return OK;
}

EXPORT unsigned hipCtxSetCurrent(fake_device *ctx)
{
    if (ctx != NULL)
        current_device = ctx->ordinal;
    if (depth > 0)
        depth--;
    if (ctx != NULL)
        stack[depth++] = ctx;
    return OK;
}

EXPORT unsigned hipCtxPushCurrent(fake_device *ctx)
{
    if (ctx == NULL || depth == STACK_MAX)
        return INVALID_CONTEXT;
    current_device = ctx->ordinal;
    stack[depth++] = ctx;
    return OK;
}

EXPORT unsigned hipCtxPopCurrent(fake_device **ctx)
{
    if (depth == 0)
        return INVALID_CONTEXT;
    if (ctx != NULL)
        *ctx = stack[depth - 1];
    depth--;
    return OK;
}

EXPORT unsigned hipDeviceReset(void)
{
    resets[current_device]++;
    return OK;
}

/* For the tests: what happened behind the backend's back. */
EXPORT int fake_hip_resets(int dev) { return resets[dev]; }
EXPORT int fake_hip_retains(int dev) { return retains[dev]; }
EXPORT int fake_hip_releases(int dev) { return releases[dev]; }
EXPORT int fake_hip_stack_depth(int unused) { (void)unused; return depth; }

/* Two refusals with their real signatures, for the "codes pass up" tests:
 * hipMalloc returns $FAKE_HIP_MALLOC (default hipErrorNotSupported). */
EXPORT unsigned hipMalloc(void **ptr, size_t size)
{
    const char *v = getenv("FAKE_HIP_MALLOC");
    (void)ptr;
    (void)size;
    return v != NULL && v[0] != '\0' ? (unsigned)atoi(v) : NOT_SUPPORTED;
}

EXPORT unsigned hipStreamCreateWithFlags(void **stream, unsigned flags)
{
    (void)stream;
    (void)flags;
    return NOT_SUPPORTED;
}

/* Placeholders: only their existence matters; never called. */
#define FAKE(name) EXPORT unsigned name(void) { return NOT_SUPPORTED; }
FAKE(hipDeviceSynchronize) FAKE(hipStreamDestroy)
FAKE(hipStreamQuery) FAKE(hipStreamSynchronize) FAKE(hipStreamWaitEvent) FAKE(hipEventCreate)
FAKE(hipEventDestroy) FAKE(hipEventRecord) FAKE(hipEventQuery) FAKE(hipEventSynchronize)
FAKE(hipEventElapsedTime) FAKE(hipFree) FAKE(hipHostMalloc) FAKE(hipHostFree)
FAKE(hipMemcpyHtoD) FAKE(hipMemcpyDtoH) FAKE(hipMemcpyDtoD) FAKE(hipMemcpyHtoDAsync)
FAKE(hipMemcpyDtoHAsync) FAKE(hipMemcpyDtoDAsync) FAKE(hipMemsetD8) FAKE(hipMemsetD8Async)
FAKE(hipModuleLoad) FAKE(hipModuleLoadData) FAKE(hipModuleUnload) FAKE(hipModuleGetFunction)
#ifndef FAKE_HIP_NO_LAUNCH
FAKE(hipModuleLaunchKernel)
#endif
#undef FAKE
