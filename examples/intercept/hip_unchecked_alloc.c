/*
 * hip_unchecked_alloc: unchecked_alloc's bug in a HIP program. It calls the
 * HIP runtime directly, without gpuguard, is compiled against HIP's header
 * and linked against libamdhip64.so.5 as any HIP program is, and checks
 * every call but one, the allocation of its pinned staging buffer: when
 * hipHostMalloc fails, the pointer stays NULL and the program crashes
 * writing through it.
 *
 *   build/bin/hip_unchecked_alloc [--n N]
 *
 * It copies N floats (default 4096) to the device and back through the
 * staging buffer and checks them: "verified N elements", exit 0. Every other
 * failure is reported ("hipMalloc failed: hipErrorOutOfMemory (2)") and ends
 * the program with exit status 1 after releasing what it made.
 *
 * Run over gpuguard's interposer (`gpuguard run`, `gpuguard sweep
 * --intercept`, which put a libamdhip64.so.5 first in LD_LIBRARY_PATH),
 * forwarding to the simulator's HIP face (GPUGUARD_BACKEND=sim) or to a real
 * runtime; alone, on the real runtime (without a GPU: "no device", exit 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

static int failed(const char *call, hipError_t e)
{
    fprintf(stderr, "%s failed: %s (%d)\n", call, hipGetErrorName(e), (int)e);
    return 1;
}

int main(int argc, char **argv)
{
    size_t n = 4096;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
            n = strtoul(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "usage: %s [--n N]\n", argv[0]);
            return 2;
        }
    }
    if (n == 0) {
        fprintf(stderr, "--n must be a positive count\n");
        return 2;
    }
    size_t bytes = n * sizeof(float);
    int status = 1, count = 0;
    hipError_t e;
    void *device = NULL;
    float *staging = NULL;
    if ((e = hipGetDeviceCount(&count)) != hipSuccess)
        return failed("hipGetDeviceCount", e);
    if ((e = hipSetDevice(0)) != hipSuccess)
        return failed("hipSetDevice", e);
    if ((e = hipMalloc(&device, bytes)) != hipSuccess)
        return failed("hipMalloc", e);
    /* The bug: this result is not checked. */
    hipHostMalloc((void **)&staging, bytes, 0);
    for (size_t i = 0; i < n; i++)
        staging[i] = (float)i * 0.5f;
    if ((e = hipMemcpyHtoD(device, staging, bytes)) != hipSuccess) {
        failed("hipMemcpyHtoD", e);
        goto out;
    }
    memset(staging, 0, bytes);
    if ((e = hipMemcpyDtoH(staging, device, bytes)) != hipSuccess) {
        failed("hipMemcpyDtoH", e);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (staging[i] != (float)i * 0.5f) {
            fprintf(stderr, "element %zu came back as %g\n", i, (double)staging[i]);
            goto out;
        }
    }
    printf("verified %zu elements\n", n);
    status = 0;
out:
    if ((e = hipHostFree(staging)) != hipSuccess)
        status = failed("hipHostFree", e);
    if ((e = hipFree(device)) != hipSuccess)
        status = failed("hipFree", e);
    return status;
}
