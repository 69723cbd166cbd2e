/* Streams and events: in-order execution, asynchrony, queries, waits,
 * elapsed time, destroy with pending work. */
#include "sim_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

TestSuite(sim_stream, .timeout = 60);

static void launch_spin(CUfunction spin, CUstream s, unsigned ms)
{
    void *args[] = { &ms };
    CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

static void launch_append(CUfunction f, CUstream s, CUdeviceptr buf, unsigned value)
{
    void *args[] = { &buf, &value };
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

Test(sim_stream, operations_run_in_order)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction append = sim_test_kernel(m, "append");
    CUfunction spin = sim_test_kernel(m, "spin");
    CUstream s;
    CU_OK(cuStreamCreate(&s, 1));
    CUdeviceptr buf;
    CU_OK(cuMemAlloc_v2(&buf, 64 * sizeof(unsigned)));
    CU_OK(cuMemsetD8Async(buf, 0, 64 * sizeof(unsigned), s));
    unsigned host[64];
    for (unsigned i = 1; i <= 20; i++) {
        if (i % 5 == 0)
            launch_spin(spin, s, 5); /* later work must still wait */
        launch_append(append, s, buf, i);
    }
    CU_OK(cuMemcpyDtoHAsync_v2(host, buf, sizeof host, s));
    CU_OK(cuStreamSynchronize(s));
    cr_assert_eq(host[0], 20);
    for (unsigned i = 1; i <= 20; i++)
        cr_assert_eq(host[i], i, "slot %u = %u", i, host[i]);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_stream, launch_is_asynchronous_and_query_reports_not_ready)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction spin = sim_test_kernel(m, "spin");
    CUstream s;
    CU_OK(cuStreamCreate(&s, 1));
    CUevent e;
    CU_OK(cuEventCreate(&e, 0));
    struct timespec t0 = sim_test_now();
    launch_spin(spin, s, 400);
    CU_OK(cuEventRecord(e, s));
    double launch_ms = sim_test_ms_since(t0);
    CU_IS(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    CU_IS(cuEventQuery(e), CUDA_ERROR_NOT_READY);
    cr_assert_lt(launch_ms, 400.0, "the launch call waited for the kernel");
    CU_OK(cuStreamSynchronize(s));
    cr_assert_geq(sim_test_ms_since(t0), 399.0);
    CU_OK(cuStreamQuery(s));
    CU_OK(cuEventQuery(e));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_stream, events_elapsed_time_and_errors)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction spin = sim_test_kernel(m, "spin");
    CUevent a, b, never, notiming;
    CU_OK(cuEventCreate(&a, 0));
    CU_OK(cuEventCreate(&b, 0));
    CU_OK(cuEventCreate(&never, 0));
    CU_OK(cuEventCreate(&notiming, 2));
    CU_OK(cuEventQuery(never)); /* never recorded: complete */
    float ms = -1;
    CU_IS(cuEventElapsedTime_v2(&ms, a, never), CUDA_ERROR_INVALID_HANDLE);
    CU_OK(cuEventRecord(a, NULL));
    launch_spin(spin, NULL, 50);
    CU_OK(cuEventRecord(b, NULL));
    CU_OK(cuEventRecord(notiming, NULL));
    CU_OK(cuEventSynchronize(b));
    CU_OK(cuEventElapsedTime_v2(&ms, a, b));
    cr_assert_geq(ms, 49.0f);
    cr_assert_lt(ms, 10000.0f);
    CU_OK(cuEventElapsedTime(&ms, a, b));
    cr_assert_geq(ms, 49.0f);
    CU_IS(cuEventElapsedTime_v2(&ms, a, notiming), CUDA_ERROR_INVALID_HANDLE);
    /* Not yet reached: NOT_READY. */
    launch_spin(spin, NULL, 300);
    CU_OK(cuEventRecord(b, NULL));
    CU_IS(cuEventElapsedTime_v2(&ms, a, b), CUDA_ERROR_NOT_READY);
    CU_IS(cuEventElapsedTime_v2(NULL, a, b), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuCtxSynchronize());
    CU_OK(cuEventElapsedTime_v2(&ms, a, b));
    cr_assert_geq(ms, 349.0f);
    CU_OK(cuEventDestroy_v2(a));
    CU_OK(cuEventDestroy_v2(b));
    CU_OK(cuEventDestroy_v2(never));
    CU_OK(cuEventDestroy_v2(notiming));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_stream, stream_wait_event_orders_across_streams)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction spin = sim_test_kernel(m, "spin");
    CUfunction append = sim_test_kernel(m, "append");
    CUstream s1, s2;
    CU_OK(cuStreamCreate(&s1, 1));
    CU_OK(cuStreamCreate(&s2, 1));
    CUevent e;
    CU_OK(cuEventCreate(&e, 0));
    CUdeviceptr buf;
    CU_OK(cuMemAlloc_v2(&buf, 16));
    CU_OK(cuMemsetD8_v2(buf, 0, 16));
    launch_spin(spin, s1, 200);
    launch_append(append, s1, buf, 1);
    CU_OK(cuEventRecord(e, s1));
    CU_OK(cuStreamWaitEvent(s2, e, 0));
    launch_append(append, s2, buf, 2); /* must run after s1's append */
    CU_OK(cuStreamSynchronize(s2));
    unsigned host[3];
    CU_OK(cuMemcpyDtoH_v2(host, buf, sizeof host));
    cr_assert_eq(host[0], 2);
    cr_assert_eq(host[1], 1);
    cr_assert_eq(host[2], 2);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_stream, null_stream_orders_with_blocking_streams_not_with_non_blocking)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction spin = sim_test_kernel(m, "spin");
    CUstream blocking, nonblocking;
    CU_OK(cuStreamCreate(&blocking, 0));
    CU_OK(cuStreamCreate(&nonblocking, 1));
    launch_spin(spin, blocking, 300);
    launch_spin(spin, NULL, 1); /* legacy: waits for the blocking stream */
    CU_IS(cuStreamQuery(NULL), CUDA_ERROR_NOT_READY);
    CU_OK(cuStreamSynchronize(NULL));
    CU_OK(cuStreamQuery(blocking));
    /* A non-blocking stream does not wait for the null stream. */
    launch_spin(spin, NULL, 2000);
    launch_spin(spin, nonblocking, 1);
    cr_assert_eq(sim_test_poll_stream(nonblocking, 1500), CUDA_SUCCESS);
    CU_IS(cuStreamQuery(NULL), CUDA_ERROR_NOT_READY);
    CU_OK(cuCtxDestroy_v2(c)); /* does not wait for the 2 s kernel */
    sim_test_assert_no_leaks();
}

Test(sim_stream, destroy_returns_at_once_and_pending_work_still_runs)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    CUmodule m = sim_test_module();
    CUfunction spin = sim_test_kernel(m, "spin");
    CUfunction append = sim_test_kernel(m, "append");
    CUdeviceptr buf;
    CU_OK(cuMemAlloc_v2(&buf, 16));
    CU_OK(cuMemsetD8_v2(buf, 0, 16));
    CUstream s;
    CUevent e;
    CU_OK(cuStreamCreate(&s, 1));
    CU_OK(cuEventCreate(&e, 0));
    launch_spin(spin, s, 300);
    launch_append(append, s, buf, 7);
    CU_OK(cuEventRecord(e, s));
    struct timespec t0 = sim_test_now();
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuEventDestroy_v2(e));
    cr_assert_lt(sim_test_ms_since(t0), 250.0, "destroy waited for the work");
    CU_OK(cuCtxSynchronize());
    unsigned host[2];
    CU_OK(cuMemcpyDtoH_v2(host, buf, sizeof host));
    cr_assert_eq(host[0], 1);
    cr_assert_eq(host[1], 7);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(sim_stream, streams_of_another_context_are_refused)
{
    sim_test_init(NULL);
    CUcontext a = sim_test_ctx(0);
    CUstream sa;
    CU_OK(cuStreamCreate(&sa, 1));
    CUcontext b = sim_test_ctx(1);
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, 16));
    char host[16] = { 0 };
    CU_IS(cuMemcpyHtoDAsync_v2(d, host, 16, sa), CUDA_ERROR_INVALID_HANDLE);
    CU_OK(cuStreamQuery(sa)); /* query works from anywhere */
    CU_IS(cuStreamCreate(&sa, 4), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuCtxDestroy_v2(b));
    CU_OK(cuCtxDestroy_v2(a));
    sim_test_assert_no_leaks();
}

/* ---- cuStreamQuery racing a kernel that traps ---------------------------
 *
 * A real driver never answers cuStreamQuery with CUDA_SUCCESS for a stream
 * whose kernel trapped: the fault is the context's before the kernel counts
 * as finished. The simulator's query once read the context's health before
 * the stream's completion, so a fault that landed between the two reads
 * answered CUDA_SUCCESS (gpuguard then returned GG_OK from a synchronize
 * covering the trap: tests/core/test_recovery.c). The window is two loads
 * wide; it opens when the querying thread is preempted between them while
 * the worker poisons and completes. So one thread queries while this one
 * spins waiting for its answer: with the stream's worker that is three
 * runnable threads, more than a two-core machine runs at once, and the
 * scheduler preempts the querier at arbitrary points (the old simulator
 * failed here in 8 runs of 8 on two cores without TSan, rounds 21 to 2639;
 * with more cores the race is hit less often). Round after round, a fresh
 * context each time, until enough rounds or the time budget. */

#define TRAP_RACE_ROUNDS 4000
#define TRAP_RACE_BUDGET_MS 10000.0

typedef struct trap_race {
    _Atomic(CUcontext) ctx;     /* the round's context, its trap queued on the null stream */
    atomic_int round;           /* published after ctx */
    atomic_int answered;        /* the last round the querier finished */
    atomic_int answer;          /* its cuStreamQuery result other than NOT_READY */
    atomic_bool stop;
} trap_race;

static void *query_the_trap(void *p)
{
    trap_race *r = p;
    int seen = 0;
    while (!atomic_load(&r->stop)) {
        int round = atomic_load(&r->round);
        if (round == seen)
            continue; /* spinning: keeps both cores busy */
        seen = round;
        CUresult res = cuCtxSetCurrent(atomic_load(&r->ctx));
        struct timespec t0 = sim_test_now();
        if (res == CUDA_SUCCESS)
            while ((res = cuStreamQuery(NULL)) == CUDA_ERROR_NOT_READY && sim_test_ms_since(t0) < 5000)
                ;
        (void)cuCtxSetCurrent(NULL);
        atomic_store(&r->answer, (int)res);
        atomic_store(&r->answered, round);
    }
    return NULL;
}

/* Round after round in one process: each round's trap may poison only its
 * own context ("sticky_scope": "context"), else the next round could not
 * create one. */
Test(sim_stream, query_never_answers_success_for_a_stream_whose_kernel_trapped)
{
    sim_test_init("{\"record_launches\": true, \"sticky_scope\": \"context\"}");
    CUdevice dev;
    CU_OK(cuDeviceGet(&dev, 1));
    static trap_race r; /* static: a failed assert ends this frame while the querier runs */
    pthread_t querier;
    cr_assert_eq(pthread_create(&querier, NULL, query_the_trap, &r), 0);
    struct timespec t0 = sim_test_now();
    int round = 1;
    for (; round <= TRAP_RACE_ROUNDS && sim_test_ms_since(t0) < TRAP_RACE_BUDGET_MS; round++) {
        CUcontext c;
        CU_OK(cuCtxCreate_v4(&c, NULL, 0, dev));
        CUmodule m = sim_test_module();
        CU_OK(cuLaunchKernel(sim_test_kernel(m, "trap_assert"), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
        atomic_store(&r.ctx, c);
        atomic_store(&r.round, round);
        struct timespec wait0 = sim_test_now();
        while (atomic_load(&r.answered) != round && sim_test_ms_since(wait0) < 10000)
            ;
        cr_assert_eq(atomic_load(&r.answered), round, "round %d: the querier did not answer in 10 s", round);
        gg_sim_launch_truth t;
        memset(&t, 0, sizeof t);
        unsigned long long n = gg_sim_truth_launches((const void *)c, &t, 1);
        cr_assert_eq(atomic_load(&r.answer), CUDA_ERROR_ASSERT,
                     "round %d: cuStreamQuery answered %d after a trap, expected CUDA_ERROR_ASSERT (%d); the "
                     "simulator recorded %llu launch(es), the first in state %d (3: FAULTED), poisoning the "
                     "context %d",
                     round, atomic_load(&r.answer), (int)CUDA_ERROR_ASSERT, n, t.state, t.poisoned_context);
        cr_assert(n == 1 && t.state == GG_SIM_LAUNCH_FAULTED && t.poisoned_context == 1,
                  "round %d: the truth disagrees: %llu launch(es), state %d, poisoning %d", round, n, t.state,
                  t.poisoned_context);
        CU_OK(cuCtxDestroy_v2(c));
    }
    atomic_store(&r.stop, true);
    pthread_join(querier, NULL);
    cr_log_info("%d rounds of a trap raced by cuStreamQuery", round - 1);
    sim_test_assert_no_leaks();
}
