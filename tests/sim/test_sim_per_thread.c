/* Per-thread default streams and the _ptsz / _ptds exports
 * (src/sim/cuda/sim_cuda_per_thread.c): which names both CUDA libraries export,
 * and CUDA's ordering rules for the per-thread default stream: ordered
 * within its thread, not with other threads' per-thread streams nor with
 * other blocking streams, but with the legacy null stream both ways. */
#include "sim_cuda_per_thread.h"
#include "sim_test.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>

TestSuite(sim_per_thread, .timeout = 60);

#define LEGACY ((CUstream)(uintptr_t)0x1)     /* CU_STREAM_LEGACY */
#define PER_THREAD ((CUstream)(uintptr_t)0x2) /* CU_STREAM_PER_THREAD */

/* The per-thread forms Debian's libcuda 535.261.03 exports whose legacy
 * function the simulator exports (tests/sim/sim_per_thread_exports.sh
 * checks this list against that driver when it is present). */
static const char *const g_exported[] = {
    "cuEventRecord_ptsz",
    "cuGLMapBufferObject_v2_ptds",
    "cuGraphicsMapResources_ptsz",
    "cuGraphicsUnmapResources_ptsz",
    "cuLaunchCooperativeKernel_ptsz",
    "cuLaunchHostFunc_ptsz",
    "cuLaunchKernel_ptsz",
    "cuMemcpy2DAsync_v2_ptsz",
    "cuMemcpy2DUnaligned_v2_ptds",
    "cuMemcpy2D_v2_ptds",
    "cuMemcpy3DAsync_v2_ptsz",
    "cuMemcpy3DPeerAsync_ptsz",
    "cuMemcpy3DPeer_ptds",
    "cuMemcpy3D_v2_ptds",
    "cuMemcpyAtoA_v2_ptds",
    "cuMemcpyAtoD_v2_ptds",
    "cuMemcpyAtoH_v2_ptds",
    "cuMemcpyDtoA_v2_ptds",
    "cuMemcpyDtoDAsync_v2_ptsz",
    "cuMemcpyDtoD_v2_ptds",
    "cuMemcpyDtoHAsync_v2_ptsz",
    "cuMemcpyDtoH_v2_ptds",
    "cuMemcpyHtoA_v2_ptds",
    "cuMemcpyHtoDAsync_v2_ptsz",
    "cuMemcpyHtoD_v2_ptds",
    "cuMemcpyPeerAsync_ptsz",
    "cuMemcpyPeer_ptds",
    "cuMemsetD16Async_ptsz",
    "cuMemsetD16_v2_ptds",
    "cuMemsetD2D16Async_ptsz",
    "cuMemsetD2D16_v2_ptds",
    "cuMemsetD2D32Async_ptsz",
    "cuMemsetD2D32_v2_ptds",
    "cuMemsetD2D8Async_ptsz",
    "cuMemsetD2D8_v2_ptds",
    "cuMemsetD32Async_ptsz",
    "cuMemsetD32_v2_ptds",
    "cuMemsetD8Async_ptsz",
    "cuMemsetD8_v2_ptds",
    "cuStreamAddCallback_ptsz",
    "cuStreamAttachMemAsync_ptsz",
    "cuStreamGetCtx_ptsz",
    "cuStreamQuery_ptsz",
    "cuStreamSynchronize_ptsz",
    "cuStreamWaitEvent_ptsz",
    "cuStreamWriteValue32_ptsz",
    "cuStreamWriteValue32_v2_ptsz",
    "cuStreamWriteValue64_ptsz",
    "cuStreamWriteValue64_v2_ptsz",
};

/* Per-thread forms no real driver exports: the base name has no _v2 form
 * there, or the call takes no stream, or the form is of another name. */
static const char *const g_not_exported[] = {
    "cuMemcpyHtoD_ptds",    /* only cuMemcpyHtoD_v2_ptds */
    "cuMemcpyHtoD_v2_ptsz", /* synchronous copies are _ptds */
    "cuLaunchKernel_ptds",  /* asynchronous calls are _ptsz */
    "cuMemAlloc_v2_ptds",   "cuCtxSynchronize_ptsz", "cuStreamCreate_ptsz",
    "cuStreamDestroy_v2_ptsz", "cuModuleLoad_ptsz",  "cuEventSynchronize_ptsz",
    "cuStreamGetFlags_ptsz", /* the 535 driver has it; the simulator has no cuStreamGetFlags */
};

static void check_exports(void *lib, const char *which)
{
    for (size_t i = 0; i < sizeof g_exported / sizeof g_exported[0]; i++)
        cr_assert_not_null(dlsym(lib, g_exported[i]), "%s does not export %s", which,
                           g_exported[i]);
    for (size_t i = 0; i < sizeof g_not_exported / sizeof g_not_exported[0]; i++)
        cr_assert_null(dlsym(lib, g_not_exported[i]), "%s exports %s", which, g_not_exported[i]);
}

Test(sim_per_thread, both_cuda_libraries_export_the_real_drivers_per_thread_forms)
{
    check_exports(RTLD_DEFAULT, "libgpuguard_sim_cuda.so");
    void *lib11 = dlopen(GG_SIM_CUDA11_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(lib11, "%s", dlerror());
    check_exports(lib11, "libgpuguard_sim_cuda11.so");
    dlclose(lib11);
}

static void launch_spin(CUfunction spin, CUstream s, unsigned ms, bool ptsz)
{
    void *args[] = { &ms };
    if (ptsz)
        CU_OK(cuLaunchKernel_ptsz(spin, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
    else
        CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

static void launch_append(CUfunction f, CUdeviceptr buf, unsigned value)
{
    void *args[] = { &buf, &value };
    CU_OK(cuLaunchKernel_ptsz(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
}

/* Stream 0 of a _ptsz call, and CU_STREAM_PER_THREAD in any call, is one
 * stream, which does not wait for another blocking stream; it orders with
 * the legacy stream (CU_STREAM_LEGACY, and NULL in a legacy call) both
 * ways. */
Test(sim_per_thread, per_thread_stream_orders_with_the_legacy_stream_only)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUfunction spin = sim_test_kernel(sim_test_module(), "spin");
    CUstream blocking;
    CU_OK(cuStreamCreate(&blocking, 0));
    launch_spin(spin, blocking, 3000, false);
    /* Not behind the blocking stream (the legacy stream would be). */
    launch_spin(spin, NULL, 1, true);
    cr_assert_eq(sim_test_poll_stream(PER_THREAD, 2000), CUDA_SUCCESS);
    CU_OK(cuStreamQuery_ptsz(NULL));
    CU_IS(cuStreamQuery(NULL), CUDA_SUCCESS); /* nothing on the legacy stream */
    CU_IS(cuStreamQuery(blocking), CUDA_ERROR_NOT_READY);
    CU_OK(cuCtxDestroy_v2(c)); /* does not wait for the 3 s kernel */

    c = sim_test_ctx(1);
    spin = sim_test_kernel(sim_test_module(), "spin");
    /* The legacy stream waits for the per-thread stream... */
    launch_spin(spin, PER_THREAD, 300, false);
    launch_spin(spin, LEGACY, 1, true);
    CU_IS(cuStreamQuery(LEGACY), CUDA_ERROR_NOT_READY);
    CU_OK(cuStreamSynchronize(NULL));
    CU_OK(cuStreamQuery_ptsz(NULL));
    /* ...and the per-thread stream for the legacy stream. */
    launch_spin(spin, NULL, 300, false);
    launch_spin(spin, NULL, 1, true);
    CU_IS(cuStreamQuery_ptsz(NULL), CUDA_ERROR_NOT_READY);
    CU_OK(cuStreamSynchronize_ptsz(NULL));
    CU_OK(cuStreamQuery(NULL));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

typedef struct other_thread {
    CUcontext ctx;
    CUfunction spin, append;
    CUdeviceptr buf;
    double sync_ms;
    CUresult query_before, sync;
} other_thread;

/* On another thread: its own per-thread stream, in order, and not behind
 * the first thread's. */
static void *other_thread_work(void *arg)
{
    other_thread *o = arg;
    if (cuCtxSetCurrent(o->ctx))
        return NULL;
    struct timespec t0 = sim_test_now();
    unsigned ms = 200;
    void *args[] = { &ms };
    cuLaunchKernel_ptsz(o->spin, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
    unsigned value = 7;
    void *append_args[] = { &o->buf, &value };
    cuLaunchKernel_ptsz(o->append, 1, 1, 1, 1, 1, 1, 0, NULL, append_args, NULL);
    o->query_before = cuStreamQuery_ptsz(NULL);
    o->sync = cuStreamSynchronize_ptsz(NULL);
    o->sync_ms = sim_test_ms_since(t0);
    return NULL;
}

/* Launches on stream 0 of cuLaunchKernel_ptsz run in order within their
 * thread (and a _ptds synchronous copy waits for them), and not behind
 * another thread's. */
Test(sim_per_thread, ptsz_launches_are_ordered_per_thread)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction spin = sim_test_kernel(m, "spin");
    CUfunction append = sim_test_kernel(m, "append");
    CUdeviceptr mine, theirs;
    CU_OK(cuMemAlloc_v2(&mine, 64 * sizeof(unsigned)));
    CU_OK(cuMemAlloc_v2(&theirs, 64 * sizeof(unsigned)));
    CU_OK(cuMemsetD8_v2_ptds(mine, 0, 64 * sizeof(unsigned)));
    CU_OK(cuMemsetD8_v2_ptds(theirs, 0, 64 * sizeof(unsigned)));
    launch_spin(spin, NULL, 3000, true); /* this thread's per-thread stream is busy */
    other_thread o = { .ctx = c, .spin = spin, .append = append, .buf = theirs };
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, other_thread_work, &o), 0);
    pthread_join(t, NULL);
    cr_assert_eq(o.query_before, CUDA_ERROR_NOT_READY, "its 200 ms kernel was done at once");
    cr_assert_eq(o.sync, CUDA_SUCCESS);
    cr_assert_lt(o.sync_ms, 2500.0, "the other thread waited for this thread's stream");
    for (unsigned i = 1; i <= 20; i++) {
        if (i % 5 == 0)
            launch_spin(spin, NULL, 5, true); /* later work must still wait */
        launch_append(append, mine, i);
    }
    unsigned host[64];
    CU_OK(cuMemcpyDtoH_v2_ptds(host, mine, sizeof host));
    cr_assert_eq(host[0], 20);
    for (unsigned i = 1; i <= 20; i++)
        cr_assert_eq(host[i], i, "slot %u = %u", i, host[i]);
    CU_OK(cuMemcpyDtoH_v2_ptds(host, theirs, 2 * sizeof(unsigned)));
    cr_assert_eq(host[0], 1);
    cr_assert_eq(host[1], 7);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* The per-thread stream cannot be destroyed; a thread's per-thread stream
 * is gone (counted as no leak) once its thread exits. */
static void *use_per_thread_stream(void *arg)
{
    CUcontext c = arg;
    if (cuCtxSetCurrent(c) == CUDA_SUCCESS)
        cuStreamSynchronize(PER_THREAD);
    return NULL;
}

Test(sim_per_thread, per_thread_stream_is_not_destroyed_by_the_user_and_ends_with_its_thread)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    unsigned long long before = gg_sim_live_objects();
    CU_IS(cuStreamDestroy_v2(PER_THREAD), CUDA_ERROR_INVALID_HANDLE);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, use_per_thread_stream, c), 0);
    pthread_join(t, NULL);
    /* Closed at the thread's exit; its worker lets go of it shortly after. */
    struct timespec t0 = sim_test_now();
    while (gg_sim_live_objects() != before && sim_test_ms_since(t0) < 10000)
        sim_test_sleep_ms(5);
    cr_assert_eq(gg_sim_live_objects(), before, "the exited thread's stream is still live");
    CU_OK(cuStreamSynchronize(PER_THREAD));
    cr_assert_eq(gg_sim_live_objects(), before + 1);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}
