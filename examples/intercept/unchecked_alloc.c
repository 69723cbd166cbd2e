/*
 * unchecked_alloc: a program that calls the CUDA driver directly, without
 * gpuguard, and has the bug fault injection exists to find: it checks every
 * driver call but one, the allocation of its pinned staging buffer. When
 * cuMemAllocHost fails, the pointer stays NULL and the program crashes
 * writing through it.
 *
 *   build/bin/unchecked_alloc [--n N] [--proc-address]
 *
 * It copies N floats (default 4096) to the device and back through the
 * staging buffer and checks them: "verified N elements", exit 0. Every other
 * failure is reported ("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2)") and
 * ends the program with exit status 1 after releasing what it made.
 *
 * It loads libcuda.so.1 by name, as any program does, so it runs on a real
 * GPU, on the simulated driver (put a directory holding libcuda.so.1 ->
 * libgpuguard_sim_cuda.so first in LD_LIBRARY_PATH), or over gpuguard's
 * interposer (`gpuguard run`, `gpuguard sweep --intercept`). The entry points
 * come from dlsym, or with --proc-address from cuGetProcAddress, as the CUDA
 * runtime (11.3 and later) gets them: each at the CUDA version that
 * introduced the variant called (cudaTypedefs.h's PFN_cuMemAlloc_v3020...).
 *
 * The declarations below are the few this program needs from cuda.h (there
 * is no CUDA toolkit on the machines that build it); the values are the
 * driver ABI's.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult; /* CUDA_SUCCESS is 0 */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef unsigned long long CUdeviceptr;

/* The driver functions the program calls, with the variant each name is. */
typedef struct driver_api {
    CUresult (*cuInit)(unsigned int flags);
    CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
    CUresult (*cuCtxCreate_v2)(CUcontext *ctx, unsigned int flags, CUdevice device);
    CUresult (*cuCtxDestroy_v2)(CUcontext ctx);
    CUresult (*cuMemAlloc_v2)(CUdeviceptr *dptr, size_t bytes);
    CUresult (*cuMemFree_v2)(CUdeviceptr dptr);
    CUresult (*cuMemAllocHost_v2)(void **pp, size_t bytes);
    CUresult (*cuMemFreeHost)(void *p);
    CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr dst, const void *src, size_t bytes);
    CUresult (*cuMemcpyDtoH_v2)(void *dst, CUdeviceptr src, size_t bytes);
    CUresult (*cuGetErrorName)(CUresult error, const char **name);
} driver_api;

/* One entry point: where it is in driver_api, its exported name, and the
 * base name and version to ask cuGetProcAddress for. */
typedef struct entry_point {
    size_t offset;
    const char *symbol;
    const char *base;
    int version;
} entry_point;

#define ENTRY(field, base, version) { offsetof(driver_api, field), #field, base, version }
static const entry_point entry_points[] = {
    ENTRY(cuInit, "cuInit", 2000),
    ENTRY(cuDeviceGet, "cuDeviceGet", 2000),
    ENTRY(cuCtxCreate_v2, "cuCtxCreate", 3020),
    ENTRY(cuCtxDestroy_v2, "cuCtxDestroy", 4000),
    ENTRY(cuMemAlloc_v2, "cuMemAlloc", 3020),
    ENTRY(cuMemFree_v2, "cuMemFree", 3020),
    ENTRY(cuMemAllocHost_v2, "cuMemAllocHost", 3020),
    ENTRY(cuMemFreeHost, "cuMemFreeHost", 2000),
    ENTRY(cuMemcpyHtoD_v2, "cuMemcpyHtoD", 3020),
    ENTRY(cuMemcpyDtoH_v2, "cuMemcpyDtoH", 3020),
    ENTRY(cuGetErrorName, "cuGetErrorName", 6000),
};

/* cuGetProcAddress as CUDA 12.0 declares it (the _v2 export). */
typedef CUresult (*get_proc_address_fn)(const char *symbol, void **pfn, int cuda_version, uint64_t flags,
                                        int *symbol_status);

static bool load_driver(driver_api *api, bool proc_address)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "cannot load libcuda.so.1: %s\n", dlerror());
        return false;
    }
    get_proc_address_fn get_proc = NULL;
    if (proc_address) {
        *(void **)&get_proc = dlsym(lib, "cuGetProcAddress_v2");
        if (get_proc == NULL) {
            fprintf(stderr, "the driver has no cuGetProcAddress_v2 (CUDA 12.0 or later needed for --proc-address)\n");
            return false;
        }
    }
    for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++) {
        const entry_point *e = &entry_points[i];
        void *fn = NULL;
        if (get_proc != NULL) {
            int status = 0;
            if (get_proc(e->base, &fn, e->version, 0, &status) != 0)
                fn = NULL;
        } else {
            fn = dlsym(lib, e->symbol);
        }
        if (fn == NULL) {
            fprintf(stderr, "the driver has no %s\n", e->symbol);
            return false;
        }
        memcpy((char *)api + e->offset, &fn, sizeof fn);
    }
    return true; /* the library stays loaded until exit */
}

/* Reports a failed call; returns its result. */
static CUresult check(const driver_api *api, CUresult result, const char *call)
{
    if (result != 0) {
        const char *name = NULL;
        if (api->cuGetErrorName(result, &name) != 0 || name == NULL)
            name = "an unknown error";
        fprintf(stderr, "%s failed: %s (%d)\n", call, name, result);
    }
    return result;
}

/* Copies n floats to the device and back through a pinned staging buffer. */
static int round_trip(const driver_api *api, size_t n)
{
    int status = 1;
    CUdevice device;
    CUcontext ctx = NULL;
    CUdeviceptr buffer = 0;
    float *staging = NULL;
    size_t bytes = n * sizeof(float);
    float *back = malloc(bytes);
    if (back == NULL) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    if (check(api, api->cuInit(0), "cuInit") != 0 || check(api, api->cuDeviceGet(&device, 0), "cuDeviceGet") != 0 ||
        check(api, api->cuCtxCreate_v2(&ctx, 0, device), "cuCtxCreate") != 0)
        goto out;
    if (check(api, api->cuMemAlloc_v2(&buffer, bytes), "cuMemAlloc") != 0)
        goto out;
    /* THE BUG: the result is not checked, and a failed allocation leaves
     * `staging` NULL. */
    api->cuMemAllocHost_v2((void **)&staging, bytes);
    for (size_t i = 0; i < n; i++)
        staging[i] = (float)i;
    if (check(api, api->cuMemcpyHtoD_v2(buffer, staging, bytes), "cuMemcpyHtoD") != 0 ||
        check(api, api->cuMemcpyDtoH_v2(back, buffer, bytes), "cuMemcpyDtoH") != 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (back[i] != (float)i) {
            fprintf(stderr, "element %zu came back as %g\n", i, (double)back[i]);
            goto out;
        }
    }
    printf("verified %zu elements\n", n);
    status = 0;
out:
    /* A failed release is an error too: the program says so and fails. */
    if (staging != NULL && check(api, api->cuMemFreeHost(staging), "cuMemFreeHost") != 0)
        status = 1;
    if (buffer != 0 && check(api, api->cuMemFree_v2(buffer), "cuMemFree") != 0)
        status = 1;
    if (ctx != NULL && check(api, api->cuCtxDestroy_v2(ctx), "cuCtxDestroy") != 0)
        status = 1;
    free(back);
    return status;
}

int main(int argc, char **argv)
{
    size_t n = 4096;
    bool proc_address = false;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--proc-address") == 0) {
            proc_address = true;
        } else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
            unsigned long long value = strtoull(argv[++i], &end, 10);
            if (*argv[i] < '0' || *argv[i] > '9' || *end != '\0' || value == 0 || value > (1ull << 28)) {
                fprintf(stderr, "--n must be a whole number from 1 to %llu, not '%s'\n", 1ull << 28, argv[i]);
                return 2;
            }
            n = (size_t)value;
        } else {
            fprintf(stderr, "usage: %s [--n N] [--proc-address]\n", argv[0]);
            return 2;
        }
    }
    driver_api api;
    if (!load_driver(&api, proc_address))
        return 1;
    return round_trip(&api, n);
}
