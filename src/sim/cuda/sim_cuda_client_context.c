/*
 * CUDA face, for clients beyond gpuguard: context usage counts
 * (cuCtxAttach/cuCtxDetach), limits, cache and shared memory
 * configuration, API version, free memory, and the profiler switches.
 *
 * The settings a context keeps (usage count, limits, configurations) live
 * in a table of this file keyed by context handle, so that the core's
 * context stays the same for every face. A handle is never reused
 * (generation-checked), so a row of a destroyed context only waits to be
 * pruned, which happens when a new row is added.
 */
#include "sim_alloc.h"
#include "sim_cuda.h"
#include "ptx/ptx_inline.h"

#include <stdlib.h>

/* What CUDA 12 drivers report on an sm_80 device for a fresh context. */
static const size_t g_default_limits[SIM_CU_LIMIT_COUNT] = {
    [CU_LIMIT_STACK_SIZE] = 1024,
    [CU_LIMIT_PRINTF_FIFO_SIZE] = 1048576,
    [CU_LIMIT_MALLOC_HEAP_SIZE] = 8388608,
    [CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH] = 2,
    [CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048,
    [CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 64,
    [CU_LIMIT_PERSISTING_L2_CACHE_SIZE] = 0,
};

typedef struct ctx_settings {
    uint64_t ctx;               /* context handle */
    unsigned attaches;          /* cuCtxAttach calls not yet detached */
    size_t limits[SIM_CU_LIMIT_COUNT];
    int cache_config;
    int shared_config;
} ctx_settings;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ctx_settings *g_rows;
static size_t g_nrows, g_caprows;

static bool context_gone(uint64_t h)
{
    sim_ctx *c = sim_ctx_from_handle(h);
    if (!c)
        return true;
    bool gone = atomic_load(&c->dying);
    sim_obj_release(&c->obj);
    return gone;
}

/* The row of context h, created with the defaults; NULL if out of memory.
 * Called with g_lock held. */
static ctx_settings *row_of(uint64_t h)
{
    for (size_t i = 0; i < g_nrows; i++)
        if (g_rows[i].ctx == h)
            return &g_rows[i];
    for (size_t i = 0; i < g_nrows;) /* prune destroyed contexts' rows */
        if (context_gone(g_rows[i].ctx))
            g_rows[i] = g_rows[--g_nrows];
        else
            i++;
    if (g_nrows == g_caprows) {
        size_t cap = g_caprows ? g_caprows * 2 : 8;
        ctx_settings *n = sim_realloc(g_rows, cap * sizeof *n);
        if (!n)
            return NULL;
        g_rows = n;
        g_caprows = cap;
    }
    ctx_settings *r = &g_rows[g_nrows++];
    *r = (ctx_settings){ .ctx = h, .shared_config = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE };
    for (int i = 0; i < SIM_CU_LIMIT_COUNT; i++)
        r->limits[i] = g_default_limits[i];
    return r;
}

/* The current context (any health: settings outlive a fault), retained,
 * and its settings row with g_lock held. */
static CUresult lock_current(sim_ctx **c, ctx_settings **row)
{
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    sim_status st = sim_ctx_current(c);
    if (st)
        return sim_cuda_result(st);
    pthread_mutex_lock(&g_lock);
    *row = row_of((*c)->obj.handle);
    if (!*row) {
        pthread_mutex_unlock(&g_lock);
        sim_obj_release(&(*c)->obj);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    return CUDA_SUCCESS;
}

static void unlock_current(sim_ctx *c)
{
    pthread_mutex_unlock(&g_lock);
    sim_obj_release(&c->obj);
}

/* ---- usage counts ------------------------------------------------------- */

/* Increments the current context's usage count and returns it. */
SIM_EXPORT CUresult cuCtxAttach(CUcontext *pctx, unsigned int flags)
{
    SIM_COUNT(cuCtxAttach);
    if (!pctx || flags != 0)
        return sim_is_initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    sim_ctx *c;
    ctx_settings *row;
    CUresult r = lock_current(&c, &row);
    if (r)
        return r;
    row->attaches++;
    *pctx = SIM_AS(CUcontext, &c->obj);
    unlock_current(c);
    return CUDA_SUCCESS;
}

/* Decrements the usage count of ctx, which must be current; the last
 * detach (the creation counts as one use) destroys it as cuCtxDestroy
 * does, popping it. */
SIM_EXPORT CUresult cuCtxDetach(CUcontext ctx)
{
    SIM_COUNT(cuCtxDetach);
    sim_ctx *c;
    ctx_settings *row;
    CUresult r = lock_current(&c, &row);
    if (r)
        return r;
    if (SIM_HANDLE(ctx) != c->obj.handle) {
        sim_detail("cuCtxDetach: context %p is not the calling thread's current context", (void *)ctx);
        unlock_current(c);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (c->primary) {
        sim_detail("cuCtxDetach: a primary context is released with cuDevicePrimaryCtxRelease");
        unlock_current(c);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (row->attaches > 0) {
        row->attaches--;
        unlock_current(c);
        return CUDA_SUCCESS;
    }
    pthread_mutex_unlock(&g_lock);
    sim_status st = sim_ctx_destroy(c, true);
    sim_obj_release(&c->obj);
    return sim_cuda_result(st);
}

/* 3020: the context API of every context a CUDA 4.0 or later driver makes
 * (cuCtxCreate_v2 and newer). */
SIM_EXPORT CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    SIM_COUNT(cuCtxGetApiVersion);
    if (!sim_is_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    sim_ctx *c = NULL;
    if (ctx) {
        c = sim_ctx_from_handle(SIM_HANDLE(ctx));
        if (!c)
            return CUDA_ERROR_INVALID_CONTEXT;
    } else {
        sim_status st = sim_ctx_current(&c);
        if (st)
            return sim_cuda_result(st);
    }
    sim_obj_release(&c->obj);
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    *version = 3020;
    return CUDA_SUCCESS;
}

/* ---- limits and configurations ----------------------------------------- */

/* A context with a sticky error answers it to cuCtxGetLimit: measured on
 * an H100 (driver 580.159.04, tools/driver-facts/limits_probe.c: after a
 * stack overflow cuCtxGetLimit(CU_LIMIT_STACK_SIZE) answers 700).
 * cuCtxSetLimit does the same by analogy (not measured). */
static CUresult sticky_of(const sim_ctx *c)
{
    sim_status st = sim_ctx_health(c);
    return st ? sim_cuda_result(st) : CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
    SIM_COUNT(cuCtxGetLimit);
    sim_ctx *c;
    ctx_settings *row;
    CUresult r = lock_current(&c, &row);
    if (r)
        return r;
    if ((r = sticky_of(c)) != CUDA_SUCCESS) {
        /* the sticky error first */
    } else if (!pvalue) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else if ((unsigned)limit >= SIM_CU_LIMIT_COUNT) {
        sim_detail("cuCtxGetLimit: limit %d is not supported on the simulated sm_80 device", (int)limit);
        r = CUDA_ERROR_UNSUPPORTED_LIMIT;
    } else if (limit == CU_LIMIT_STACK_SIZE) {
        *pvalue = (size_t)atomic_load(&c->stack_limit);
    } else {
        *pvalue = row->limits[limit];
    }
    unlock_current(c);
    return r;
}

SIM_EXPORT CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
    SIM_COUNT(cuCtxSetLimit);
    sim_ctx *c;
    ctx_settings *row;
    CUresult r = lock_current(&c, &row);
    if (r)
        return r;
    if ((r = sticky_of(c)) != CUDA_SUCCESS) {
        /* the sticky error first */
    } else if ((unsigned)limit >= SIM_CU_LIMIT_COUNT ||
        (limit == CU_LIMIT_PERSISTING_L2_CACHE_SIZE && value != 0)) {
        /* No persisting L2 (CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE is 0). */
        sim_detail("cuCtxSetLimit: limit %d is not supported on the simulated sm_80 device", (int)limit);
        r = CUDA_ERROR_UNSUPPORTED_LIMIT;
    } else if (limit == CU_LIMIT_MAX_L2_FETCH_GRANULARITY && value > 128) {
        sim_detail("cuCtxSetLimit: the L2 fetch granularity is 0 to 128 bytes, not %zu", value);
        r = CUDA_ERROR_INVALID_VALUE;
    } else if (limit == CU_LIMIT_STACK_SIZE && value > PTX_MAX_STACK_LIMIT) {
        /* cuda.h lists OUT_OF_MEMORY among cuCtxSetLimit's answers and
         * documents it for the limits whose device reservations fail; a
         * stack too large to reserve answers it here by analogy (a real
         * driver's bound is unmeasured). The bound is the architecture's
         * local memory per thread (ptx_inline.h). */
        sim_detail("cuCtxSetLimit: a stack of %zu bytes per thread is more than the %u the simulator holds",
                   value, PTX_MAX_STACK_LIMIT);
        r = CUDA_ERROR_OUT_OF_MEMORY;
    } else {
        row->limits[limit] = value;
        if (limit == CU_LIMIT_STACK_SIZE) /* launches submitted from now on take it */
            atomic_store(&c->stack_limit, (unsigned long long)value);
    }
    unlock_current(c);
    return r;
}

enum setting { SETTING_CACHE_CONFIG, SETTING_SHARED_CONFIG };

static int *setting_of(ctx_settings *row, enum setting which)
{
    return which == SETTING_CACHE_CONFIG ? &row->cache_config : &row->shared_config;
}

/* Reads the current context's setting into *out (INVALID_VALUE for NULL). */
static CUresult get_setting(enum setting which, int *out)
{
    sim_ctx *c;
    ctx_settings *row;
    CUresult r = lock_current(&c, &row);
    if (r)
        return r;
    if (out)
        *out = *setting_of(row, which);
    unlock_current(c);
    return out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Sets the current context's setting to `value` when it is 0..max; else
 * INVALID_VALUE with a detail naming `call` and `type`. */
static CUresult set_setting(enum setting which, int value, int max, const char *call, const char *type)
{
    sim_ctx *c;
    ctx_settings *row;
    CUresult r = lock_current(&c, &row);
    if (r)
        return r;
    if ((unsigned)value <= (unsigned)max) {
        *setting_of(row, which) = value;
    } else {
        sim_detail("%s: %d is not a %s", call, value, type);
        r = CUDA_ERROR_INVALID_VALUE;
    }
    unlock_current(c);
    return r;
}

SIM_EXPORT CUresult cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
    SIM_COUNT(cuCtxGetCacheConfig);
    int value = 0;
    CUresult r = get_setting(SETTING_CACHE_CONFIG, pconfig ? &value : NULL);
    if (r == CUDA_SUCCESS)
        *pconfig = (CUfunc_cache)value;
    return r;
}

SIM_EXPORT CUresult cuCtxSetCacheConfig(CUfunc_cache config)
{
    SIM_COUNT(cuCtxSetCacheConfig);
    return set_setting(SETTING_CACHE_CONFIG, (int)config, CU_FUNC_CACHE_PREFER_EQUAL, "cuCtxSetCacheConfig",
                       "CUfunc_cache");
}

SIM_EXPORT CUresult cuCtxGetSharedMemConfig(CUsharedconfig *pConfig)
{
    SIM_COUNT(cuCtxGetSharedMemConfig);
    int value = 0;
    CUresult r = get_setting(SETTING_SHARED_CONFIG, pConfig ? &value : NULL);
    if (r == CUDA_SUCCESS)
        *pConfig = (CUsharedconfig)value;
    return r;
}

/* Bank size is fixed on sm_80: the setting is kept but changes nothing. */
SIM_EXPORT CUresult cuCtxSetSharedMemConfig(CUsharedconfig config)
{
    SIM_COUNT(cuCtxSetSharedMemConfig);
    return set_setting(SETTING_SHARED_CONFIG, (int)config, CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE,
                       "cuCtxSetSharedMemConfig", "CUsharedconfig");
}

/* ---- memory and profiling ----------------------------------------------- */

/* The current context's device: its configured memory, less what every
 * context on it has allocated. A context with a sticky error answers it. */
SIM_EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    SIM_COUNT(cuMemGetInfo_v2);
    sim_ctx *c;
    CUresult r = sim_cuda_enter(&c);
    if (r)
        return r;
    if (free_bytes && total) {
        uint64_t all = c->dev->cfg->memory_bytes;
        uint64_t used = atomic_load(&c->dev->mem_used);
        *total = (size_t)all;
        *free_bytes = (size_t)(used < all ? all - used : 0);
    }
    sim_obj_release(&c->obj);
    return free_bytes && total ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* With no profiler attached a real driver accepts both and does nothing;
 * so does the simulator, which never has one. */
SIM_EXPORT CUresult cuProfilerStart(void)
{
    SIM_COUNT(cuProfilerStart);
    return sim_is_initialized() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

SIM_EXPORT CUresult cuProfilerStop(void)
{
    SIM_COUNT(cuProfilerStop);
    return sim_is_initialized() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}
