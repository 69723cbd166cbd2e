/*
 * CUDA face, for clients beyond gpuguard (numba binds these): occupancy
 * queries, host functions in stream order (cuStreamAddCallback,
 * cuLaunchHostFunc) and the cooperative launch, which the simulator
 * refuses.
 *
 * Occupancy answers come from the same residency rule that places a PTX
 * launch's blocks in simulated time (sim_block_slots.h): what one
 * multiprocessor holds of blocks of that size (threads, blocks, shared
 * memory; registers are not counted). So a client that sizes its grid to
 * "one full wave" gets exactly one wave on the simulator.
 */
#include "sim_cuda.h"
#include "sim_block_slots.h"

#define CU_OCCUPANCY_KNOWN_FLAGS 0x1u  /* CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE */
#define CU_STREAM_CALLBACK_FLAGS 0x0u  /* "reserved for future use and must be 0" */

/* The function behind a handle, live (retained: release it), whatever the
 * current context (occupancy asks of the function's own). */
static CUresult function_of(CUfunction f, const char *call, sim_function **out)
{
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    *out = (sim_function *)sim_registry_get(SIM_HANDLE(f), SIM_KIND_FUNCTION);
    if (!*out) {
        sim_detail("%s: function %p is not a live kernel", call, (void *)f);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    return CUDA_SUCCESS;
}

/* The largest block the function can be launched with on its device. */
static unsigned block_limit(const sim_function *fn, const sim_function_info *info)
{
    unsigned limit = fn->obj.owner->dev->cfg->max_threads_per_block;
    return info->max_threads && info->max_threads < limit ? info->max_threads : limit;
}

/* Blocks of block_size threads with dynamic_shared bytes each that one
 * multiprocessor holds; 0 when such a block cannot be launched at all. */
static unsigned resident_blocks(const sim_function *fn, const sim_function_info *info, unsigned block_size,
                                size_t dynamic_shared)
{
    uint64_t shared = (uint64_t)info->static_shared + dynamic_shared;
    if (block_size == 0 || block_size > block_limit(fn, info) || shared > SIM_MAX_SHARED_PER_BLOCK)
        return 0;
    return sim_blocks_per_sm(block_size, shared);
}

static CUresult max_active_blocks(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize,
                                  unsigned int flags, const char *call)
{
    if (!numBlocks || blockSize <= 0 || (flags & ~CU_OCCUPANCY_KNOWN_FLAGS)) {
        if (sim_is_initialized())
            sim_detail("%s: %s", call,
                       !numBlocks ? "numBlocks is NULL"
                       : blockSize <= 0 ? "blockSize must be positive"
                                        : "unknown flags (known: CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)");
        return sim_is_initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    }
    sim_function *fn;
    CUresult r = function_of(func, call, &fn);
    if (r)
        return r;
    sim_function_info info;
    sim_function_get_info(fn, &info);
    *numBlocks = (int)resident_blocks(fn, &info, (unsigned)blockSize, dynamicSMemSize);
    sim_obj_release(&fn->obj);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                                size_t dynamicSMemSize)
{
    SIM_COUNT(cuOccupancyMaxActiveBlocksPerMultiprocessor);
    return max_active_blocks(numBlocks, func, blockSize, dynamicSMemSize, 0,
                             "cuOccupancyMaxActiveBlocksPerMultiprocessor");
}

SIM_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func,
                                                                         int blockSize, size_t dynamicSMemSize,
                                                                         unsigned int flags)
{
    SIM_COUNT(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags);
    return max_active_blocks(numBlocks, func, blockSize, dynamicSMemSize, flags,
                             "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
}

/* The block size (a multiple of the warp size, or the limit itself) that
 * keeps the most threads resident on a multiprocessor, the largest such on
 * a tie, and the grid that fills the device with it. */
static CUresult max_potential_block_size(int *minGridSize, int *blockSize, CUfunction func,
                                         CUoccupancyB2DSize smem_of, size_t dynamicSMemSize, int blockSizeLimit,
                                         unsigned int flags, const char *call)
{
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!minGridSize || !blockSize || blockSizeLimit < 0 || (flags & ~CU_OCCUPANCY_KNOWN_FLAGS)) {
        sim_detail("%s: %s", call,
                   !minGridSize || !blockSize ? "minGridSize or blockSize is NULL"
                   : blockSizeLimit < 0       ? "blockSizeLimit is negative"
                                              : "unknown flags (known: CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)");
        return CUDA_ERROR_INVALID_VALUE;
    }
    sim_function *fn;
    CUresult r = function_of(func, call, &fn);
    if (r)
        return r;
    sim_function_info info;
    sim_function_get_info(fn, &info);
    unsigned limit = block_limit(fn, &info);
    if (blockSizeLimit > 0 && (unsigned)blockSizeLimit < limit)
        limit = (unsigned)blockSizeLimit;
    unsigned best_size = 0, best_blocks = 0;
    uint64_t best_threads = 0;
    for (unsigned size = limit; size > 0;) {
        size_t smem = smem_of ? smem_of((int)size) : dynamicSMemSize;
        unsigned blocks = resident_blocks(fn, &info, size, smem);
        if ((uint64_t)blocks * size > best_threads) {
            best_threads = (uint64_t)blocks * size;
            best_size = size;
            best_blocks = blocks;
        }
        /* The next multiple of 32 below. */
        size = size % 32 ? size - size % 32 : size - 32;
    }
    *blockSize = (int)best_size;
    *minGridSize = (int)(best_blocks * fn->obj.owner->dev->cfg->multiprocessors);
    sim_obj_release(&fn->obj);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                                     CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                     size_t dynamicSMemSize, int blockSizeLimit)
{
    SIM_COUNT(cuOccupancyMaxPotentialBlockSize);
    return max_potential_block_size(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize,
                                    blockSizeLimit, 0, "cuOccupancyMaxPotentialBlockSize");
}

SIM_EXPORT CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, CUfunction func,
                                                              CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                              size_t dynamicSMemSize, int blockSizeLimit,
                                                              unsigned int flags)
{
    SIM_COUNT(cuOccupancyMaxPotentialBlockSizeWithFlags);
    return max_potential_block_size(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize,
                                    blockSizeLimit, flags, "cuOccupancyMaxPotentialBlockSizeWithFlags");
}

/* The interpreter runs a launch's blocks one after another, so blocks that
 * wait for each other (a grid-wide barrier) would never return; the
 * device's COOPERATIVE_LAUNCH attribute says 0, as on a device without it. */
SIM_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                              unsigned int gridDimZ, unsigned int blockDimX,
                                              unsigned int blockDimY, unsigned int blockDimZ,
                                              unsigned int sharedMemBytes, CUstream hStream, void **kernelParams)
{
    SIM_COUNT(cuLaunchCooperativeKernel);
    (void)f, (void)gridDimX, (void)gridDimY, (void)gridDimZ, (void)blockDimX, (void)blockDimY, (void)blockDimZ;
    (void)sharedMemBytes, (void)hStream, (void)kernelParams;
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    sim_detail("cuLaunchCooperativeKernel: cooperative launches are not simulated (the interpreter runs a "
               "launch's blocks one after another, so a grid-wide barrier would never end; "
               "CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0); the simulated driver answers "
               "CUDA_ERROR_NOT_SUPPORTED");
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* ---- host functions in stream order ------------------------------------ */

static void run_callback(const sim_host_call *hc, sim_status health)
{
    CUstreamCallback fn = (CUstreamCallback)(void (*)(void))hc->fn;
    fn((CUstream)(uintptr_t)hc->stream, sim_cuda_result(health), hc->user);
}

static void run_host_fn(const sim_host_call *hc, sim_status health)
{
    (void)health; /* queued only for healthy contexts: see despite_errors */
    CUhostFn fn = (CUhostFn)(void (*)(void))hc->fn;
    fn(hc->user);
}

/* Queues hc on the stream hStream names in the current context. */
static CUresult queue_host_call(CUstream hStream, sim_host_call *hc)
{
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    sim_stream *s = NULL;
    sim_status st = sim_cuda_stream(hStream, c, &s);
    if (!st) {
        hc->stream = SIM_HANDLE(hStream);
        st = sim_stream_host_call(s, hc);
        sim_obj_release(&s->obj);
    }
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

/* callback runs on the stream's worker once the stream's earlier work is
 * done, with CUDA_SUCCESS, or with the error that poisoned the context
 * (then the work after it never runs); it must not call the driver, as in
 * CUDA. A context destroyed or reset first drops it uncalled. */
SIM_EXPORT CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
                                        unsigned int flags)
{
    SIM_COUNT(cuStreamAddCallback);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!callback || flags != CU_STREAM_CALLBACK_FLAGS) {
        sim_detail("cuStreamAddCallback: %s", !callback ? "callback is NULL" : "flags must be 0");
        return CUDA_ERROR_INVALID_VALUE;
    }
    sim_host_call hc = { .run = run_callback, .fn = (void (*)(void))callback, .user = userData,
                         .despite_errors = true };
    return queue_host_call(hStream, &hc);
}

/* fn runs on the stream's worker once the stream's earlier work is done;
 * not at all once the context is poisoned. */
SIM_EXPORT CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    SIM_COUNT(cuLaunchHostFunc);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!fn) {
        sim_detail("cuLaunchHostFunc: fn is NULL");
        return CUDA_ERROR_INVALID_VALUE;
    }
    sim_host_call hc = { .run = run_host_fn, .fn = (void (*)(void))fn, .user = userData };
    return queue_host_call(hStream, &hc);
}
