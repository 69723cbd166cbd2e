/*
 * The CUDA face of the simulated driver: the list of exported functions,
 * their call counters and the helpers the face's files share. The driver's
 * types and prototypes (cuda.h's ABI) are src/abi's (abi/cuda_driver.h).
 */
#ifndef GG_SIM_CUDA_H
#define GG_SIM_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "abi/cuda_driver.h"
#include "sim_core.h"
#include "sim_cuda_client.h"
#include "sim_face_copy.h"
#include "sim_face_objects.h"

#define SIM_CU_MEMORYTYPE_HOST 1u
#define SIM_CU_MEMORYTYPE_DEVICE 2u

/* The family of driver releases a CUDA-face library imitates. The faces'
 * objects are shared; each library links one definition of it
 * (sim_cuda_line_12.c or sim_cuda_line_11.c). */
typedef struct sim_cuda_line {
    const char *library;        /* the library's file name, for messages */
    int default_version;        /* driver_version when the configuration has none */
    int min_version, max_version; /* the driver versions it accepts */
    const char *other;          /* what to use outside them */
} sim_cuda_line;
extern const sim_cuda_line sim_cuda_line_in_use;

/* The CUDA version this driver reports (cuDriverGetVersion) and answers
 * cuGetProcAddress for: the successful cuInit's "driver_version"; before
 * it, the one in GPUGUARD_SIM_CONFIG now; the library's default when there
 * is none or the configuration is invalid. */
int sim_cuda_driver_version(void);
/* Refuses a "driver_version" the library does not imitate (cuInit). */
sim_status sim_cuda_config_check(sim_config *c, char *err, size_t errlen);
/* Narrows c's devices to those CUDA_VISIBLE_DEVICES names, in its order
 * (sim_cuda_visible.c); unset: all of them. SIM_ERR_NO_DEVICE when it
 * leaves none (err says why). */
sim_status sim_cuda_visible_devices(sim_config *c, const char *value, char *err, size_t errlen);
/* The UUID text of the device at index in the configuration: "GPU-" and
 * the bytes of cuDeviceGetUuid in 8-4-4-4-12 hex groups; out has 41 bytes. */
void sim_cuda_uuid_text(unsigned index, char out[41]);
/* cuDeviceGetUuid's bytes for the device at index in the configuration. */
void sim_cuda_uuid_bytes(unsigned index, unsigned char out[16]);

/* Every exported cu* function; each counts its calls. X receives the name
 * first: the stubs' rows (sim_cuda_stubs.h) add their parameters and reason
 * after it, so an X used here takes (name, ...) and reads only the name. */
#define SIM_CUDA_EXPORTS(X)                                              \
    X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet)   \
    X(cuDeviceGetName) X(cuDeviceTotalMem_v2) X(cuDeviceGetAttribute)    \
    X(cuCtxCreate_v2) X(cuCtxCreate_v3) X(cuCtxCreate_v4)                \
    X(cuCtxDestroy_v2) X(cuCtxPushCurrent_v2) X(cuCtxPopCurrent_v2)      \
    X(cuCtxGetCurrent) X(cuCtxSetCurrent) X(cuCtxGetDevice)              \
    X(cuCtxGetDevice_v2) X(cuCtxSynchronize) X(cuCtxSynchronize_v2)      \
    X(cuDevicePrimaryCtxRetain)                                          \
    X(cuDevicePrimaryCtxRelease_v2) X(cuDevicePrimaryCtxReset_v2)        \
    X(cuDevicePrimaryCtxGetState)                                        \
    X(cuStreamCreate) X(cuStreamDestroy_v2) X(cuStreamQuery)             \
    X(cuStreamSynchronize) X(cuStreamWaitEvent) X(cuEventCreate)         \
    X(cuEventDestroy_v2) X(cuEventRecord) X(cuEventQuery)                \
    X(cuEventSynchronize) X(cuEventElapsedTime) X(cuEventElapsedTime_v2) \
    X(cuMemAlloc_v2) X(cuMemFree_v2) X(cuMemAllocHost_v2) X(cuMemFreeHost) \
    X(cuMemcpyHtoD_v2) X(cuMemcpyDtoH_v2) X(cuMemcpyDtoD_v2)             \
    X(cuMemcpyHtoDAsync_v2) X(cuMemcpyDtoHAsync_v2) X(cuMemcpyDtoDAsync_v2) \
    X(cuMemsetD8_v2) X(cuMemsetD8Async) X(cuModuleLoad) X(cuModuleLoadData) \
    X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel)           \
    X(cuGetErrorName) X(cuGetErrorString) X(cuGetProcAddress)            \
    X(cuGetProcAddress_v2) X(cuFuncGetParamInfo) X(cuMemHostAlloc)       \
    X(cuMemHostGetDevicePointer_v2) X(cuStreamWriteValue32)              \
    X(cuStreamWriteValue32_v2) X(cuStreamWriteValue64)                   \
    X(cuStreamWriteValue64_v2) X(cuStreamGetCtx) X(cuPointerGetAttribute) \
    X(cuModuleGetGlobal_v2) X(cuModuleLoadFatBinary)                     \
    SIM_CUDA_CLIENT_EXPORTS(X)

enum sim_cuda_fn {
#define SIM_CUDA_FN_ENUM(name, ...) SIM_FN_##name,
    SIM_CUDA_EXPORTS(SIM_CUDA_FN_ENUM)
#undef SIM_CUDA_FN_ENUM
    SIM_FN_COUNT
};

extern const char *const sim_cuda_fn_names[SIM_FN_COUNT];

/* Call counters, in blocks of their own cache lines: each thread counts in
 * a block of its own (the first SIM_COUNT_BLOCKS - 1 threads to call; the
 * later ones share the last block), and the readers add the blocks up. One
 * shared counter per export bounced between the cores on every call and
 * halved what two threads could do; a block with one writer needs no
 * locked add either. */
#define SIM_COUNT_BLOCKS 64
typedef struct sim_count_block {
    atomic_ullong calls[SIM_FN_COUNT];
    bool shared;                /* written by several threads: atomic adds */
} __attribute__((aligned(64))) sim_count_block;
extern sim_count_block sim_cuda_counts[SIM_COUNT_BLOCKS];
sim_count_block *sim_cuda_counts_attach(void);

/* Counts one call in block b (this thread's, from sim_t.counts). */
static inline void sim_cuda_count(sim_count_block *b, int fn)
{
    if (!b)
        b = sim_cuda_counts_attach();
    if (!b->shared) /* only this thread writes it */
        atomic_store_explicit(&b->calls[fn], atomic_load_explicit(&b->calls[fn], memory_order_relaxed) + 1,
                              memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&b->calls[fn], 1, memory_order_relaxed);
}

/* Counts one call of an export. */
#define SIM_COUNT(name) sim_cuda_count(sim_t.counts, SIM_FN_##name)

CUresult sim_cuda_result(sim_status st);

/* Handles cross the ABI as opaque pointers holding registry handles. */
#define SIM_HANDLE(p) ((uint64_t)(uintptr_t)(p))
#define SIM_AS(type, obj) ((type)(uintptr_t)(obj)->handle)

/* Shared helpers of the face. */
CUresult sim_cuda_enter(sim_ctx **c);               /* init + current live context */
/* The stream h of cur, retained (sim_face_stream_of): NULL and CU_STREAM_LEGACY
 * are cur's null stream, CU_STREAM_PER_THREAD (and NULL in a _ptsz / _ptds
 * export) the calling thread's per-thread default stream of cur. */
sim_status sim_cuda_stream(CUstream h, sim_ctx *cur, sim_stream **out);
extern const sim_face sim_cuda_face;               /* the face's rules for the shared calls */
/* cuLaunchKernel without the count: launches on stream hStream of the
 * current context, with kernelParams or the `extra` list. */
CUresult sim_cuda_launch(CUfunction f, const unsigned int grid[3], const unsigned int block[3],
                         unsigned int sharedMemBytes, CUstream hStream, void **kernelParams,
                         void **extra);
/* The most parameters a simulator kernel declares (sim_kernel.h). */
#define SIM_CUDA_MAX_PARAMS 32

#endif /* GG_SIM_CUDA_H */
