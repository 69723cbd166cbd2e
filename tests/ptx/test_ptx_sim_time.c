/* Simulated time of PTX kernels: each warp-instruction costs the device's
 * ns_per_warp_instruction, which drives %clock, %clock64 and %globaltimer
 * and the watchdog of a display device, the same on any host. Nothing here
 * asserts a wall-clock duration; every test that waits is bounded by
 * alarm() (and the suite's timeout). */
#include "sim_test.h"
#include "sim_cuda_client.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(ptx_sim_time, .timeout = 60);

/* Device 0: watchdog 100 ms at 50 ns a warp-instruction (2,000,000 of
 * them); device 1: the same watchdog at 100 ns (1,000,000); device 2: no
 * watchdog, 0.5 ns; device 3: no watchdog, 1 ms (the largest cost). */
/* "sticky_scope": "context": its tests time out kernel after kernel, each
 * in a context of its own, in one process. */
#define TIME_CONFIG                                                                          \
    "{\"sticky_scope\":\"context\",\"devices\":[{\"name\":\"wd50\",\"watchdog\":true,\"watchdog_ms\":100,"                 \
    "\"ns_per_warp_instruction\":50},"                                                       \
    "{\"name\":\"wd100\",\"watchdog\":true,\"watchdog_ms\":100,\"ns_per_warp_instruction\":100}," \
    "{\"name\":\"nowd\",\"ns_per_warp_instruction\":0.5},"                              \
    "{\"name\":\"slow\",\"ns_per_warp_instruction\":1000000}]}"

#define PTX_HEADER ".version 7.0\n.target sm_75\n.address_size 64\n"

/* One thread counts to p_n in global memory. */
static const char k_count[] =
    PTX_HEADER
    ".visible .entry count_to(.param .u64 p_out, .param .u32 p_n)\n{\n"
    "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<2>;\n"
    "\tld.param.u64 %rd1, [p_out];\n\tld.param.u32 %r2, [p_n];\n\tmov.u32 %r1, 0;\n"
    "$L_loop:\n\tadd.u32 %r1, %r1, 1;\n\tst.volatile.global.u32 [%rd1], %r1;\n"
    "\tsetp.lt.u32 %p1, %r1, %r2;\n\t@%p1 bra.uni $L_loop;\n\tret;\n}\n"
    /* The same with one instruction more. */
    ".visible .entry count_to_and_one(.param .u64 p_out, .param .u32 p_n)\n{\n"
    "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<2>;\n"
    "\tld.param.u64 %rd1, [p_out];\n\tld.param.u32 %r2, [p_n];\n\tmov.u32 %r1, 0;\n\tmov.u32 %r3, 0;\n"
    "$L_loop:\n\tadd.u32 %r1, %r1, 1;\n\tst.volatile.global.u32 [%rd1], %r1;\n"
    "\tsetp.lt.u32 %p1, %r1, %r2;\n\t@%p1 bra.uni $L_loop;\n\tret;\n}\n";

/* Two warps read the clocks at known instructions (see timer_reference);
 * warp 0 runs 5 instructions more before the barrier. */
static const char k_timer[] =
    PTX_HEADER
    ".visible .entry timer(.param .u64 p_out)\n{\n"
    "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<12>;\n\t.reg .pred %p<2>;\n"
    "\tld.param.u64 %rd1, [p_out];\n"           /* 1 */
    "\tmov.u32 %r1, %tid.x;\n"                   /* 2 */
    "\tmov.u64 %rd2, %globaltimer;\n"            /* 3 */
    "\tadd.u32 %r2, %r1, 1;\n"                   /* 4 */
    "\tadd.u32 %r2, %r2, 1;\n"                   /* 5 */
    "\tadd.u32 %r2, %r2, 1;\n"                   /* 6 */
    "\tmov.u64 %rd3, %globaltimer;\n"            /* 7 */
    "\tmov.u64 %rd4, %clock64;\n"                /* 8 */
    "\tmov.u32 %r3, %clock;\n"                   /* 9 */
    "\tsetp.ge.u32 %p1, %r1, 32;\n"              /* 10 */
    "\t@%p1 bra $L_sync;\n"                      /* 11 */
    "\tadd.u32 %r2, %r2, 1;\n\tadd.u32 %r2, %r2, 1;\n\tadd.u32 %r2, %r2, 1;\n"
    "\tadd.u32 %r2, %r2, 1;\n\tadd.u32 %r2, %r2, 1;\n" /* 12-16, warp 0 */
    "$L_sync:\n\tbar.sync 0;\n"                  /* warp 0: 17, warp 1: 12 */
    "\tmov.u64 %rd5, %globaltimer;\n"            /* both: 18 (the barrier waits for 17) */
    "\tmul.wide.u32 %rd6, %r1, 40;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
    "\tst.global.u64 [%rd7], %rd2;\n\tst.global.u64 [%rd7+8], %rd3;\n"
    "\tst.global.u64 [%rd7+16], %rd4;\n\tst.global.u32 [%rd7+24], %r3;\n"
    "\tst.global.u64 [%rd7+32], %rd5;\n\tret;\n}\n"; /* 19-26 */

enum { TIMER_INSNS = 26 };

/* %globaltimer's 32-bit halves, at instructions 2 and 3, and the whole at 4. */
static const char k_timer_halves[] =
    PTX_HEADER
    ".visible .entry timer_halves(.param .u64 p_out)\n{\n"
    "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [p_out];\n\tmov.u32 %r1, %globaltimer_lo;\n"
    "\tmov.u32 %r2, %globaltimer_hi;\n\tmov.u64 %rd2, %globaltimer;\n"
    "\tst.global.u32 [%rd1], %r1;\n\tst.global.u32 [%rd1+4], %r2;\n"
    "\tst.global.u64 [%rd1+8], %rd2;\n\tret;\n}\n";

/* The simulated time after n warp-instructions at cost ns each. */
static uint64_t at(uint64_t start, uint64_t n, double ns)
{
    return start + (uint64_t)((double)n * ns);
}

/* Runs timer on one block of 64 threads and checks every clock against
 * the launch's start (device time: whatever the wall clock had reached,
 * sim_timeline.c), which it returns. */
static uint64_t check_timer(CUfunction f, double ns)
{
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, 64 * 40));
    void *args[] = { &d };
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
    unsigned char out[64 * 40];
    CU_OK(cuMemcpyDtoH_v2(out, d, sizeof out));
    uint64_t first;
    memcpy(&first, out, 8);
    uint64_t start = first - (uint64_t)(3 * ns);
    for (int t = 0; t < 64; t++) {
        uint64_t t0, t1, c64, after;
        uint32_t c32;
        memcpy(&t0, out + 40 * t, 8);
        memcpy(&t1, out + 40 * t + 8, 8);
        memcpy(&c64, out + 40 * t + 16, 8);
        memcpy(&c32, out + 40 * t + 24, 4);
        memcpy(&after, out + 40 * t + 32, 8);
        cr_assert_eq(t0, at(start, 3, ns), "thread %d: t0 %llu, want %llu", t, (unsigned long long)t0,
                     (unsigned long long)at(start, 3, ns));
        cr_assert_eq(t1, at(start, 7, ns), "thread %d: t1", t);
        cr_assert_eq(c64, at(start, 8, ns), "thread %d: %%clock64 (1 GHz: one cycle a ns)", t);
        cr_assert_eq(c32, (uint32_t)at(start, 9, ns), "thread %d: %%clock", t);
        cr_assert_eq(after, at(start, 18, ns), "thread %d: after the barrier %llu, want %llu", t,
                     (unsigned long long)after, (unsigned long long)at(start, 18, ns));
    }
    CU_OK(cuMemFree_v2(d));
    return start;
}

Test(ptx_sim_time, clocks_advance_by_the_configured_cost_and_stay_monotonic_across_launches)
{
    alarm(50);
    sim_test_init(TIME_CONFIG);
    for (int dev = 0; dev < 3; dev += 2) {
        double ns = dev == 0 ? 50 : 0.5;
        CUcontext c = sim_test_ctx(dev);
        CUmodule m;
        CU_OK(cuModuleLoadData(&m, k_timer));
        CUfunction f = sim_test_kernel(m, "timer");
        /* Each launch starts no earlier than the one before it ended (its
         * latest warp: TIMER_INSNS), whatever the host did between. */
        uint64_t end = 0;
        for (int launch = 0; launch < 3; launch++) {
            uint64_t start = check_timer(f, ns);
            cr_assert_geq(start, end, "device %d launch %d started at %llu, before %llu", dev, launch,
                          (unsigned long long)start, (unsigned long long)end);
            end = at(start, TIMER_INSNS, ns);
        }
        CU_OK(cuModuleUnload(m));
        CU_OK(cuCtxDestroy_v2(c));
    }
    alarm(0);
}

/* The watchdog of a PTX kernel counts simulated time: 100 ms at 50 ns is
 * 2,000,000 warp-instructions, at 100 ns 1,000,000. A kernel of exactly
 * that many completes, one of a single instruction more is killed with
 * the watchdog's LAUNCH_TIMEOUT, on any host and every time;
 * without a watchdog, far more is no limit. count_to(n) runs 4n + 4
 * warp-instructions: ld, ld, mov, then add, st, setp, bra a round, the
 * last bra falling through to ret. */
Test(ptx_sim_time, watchdog_kills_exactly_past_the_budget_every_time)
{
    alarm(50);
    sim_test_init(TIME_CONFIG);
    struct { int dev; unsigned n; bool one_more; CUresult want; } cases[] = {
        { 2, 1000000, true, CUDA_SUCCESS },              /* 4,000,005 at 0.5 ns, no watchdog */
        { 1, 249999, false, CUDA_SUCCESS },              /* 1,000,000: the whole budget */
        { 1, 249999, true, CUDA_ERROR_LAUNCH_TIMEOUT },  /* 1,000,001 */
        { 1, 250000, false, CUDA_ERROR_LAUNCH_TIMEOUT }, /* 1,000,004 */
        { 0, 499999, false, CUDA_SUCCESS },              /* 2,000,000 */
        { 0, 499999, true, CUDA_ERROR_LAUNCH_TIMEOUT },  /* 2,000,001 */
    };
    for (int round = 0; round < 2; round++) {
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            CUcontext c = sim_test_ctx(cases[k].dev);
            CUmodule m;
            CU_OK(cuModuleLoadData(&m, k_count));
            CUfunction f = sim_test_kernel(m, cases[k].one_more ? "count_to_and_one" : "count_to");
            CUdeviceptr d;
            CU_OK(cuMemAlloc_v2(&d, 4));
            void *args[] = { &d, &cases[k].n };
            CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
            CU_IS(cuCtxSynchronize(), cases[k].want);
            if (cases[k].want == CUDA_SUCCESS) {
                uint32_t got;
                CU_OK(cuMemcpyDtoH_v2(&got, d, 4));
                cr_assert_eq(got, cases[k].n, "round %d case %zu", round, k);
            }
            CU_OK(cuCtxDestroy_v2(c));
        }
    }
    alarm(0);
}

/* A kernel spinning on a flag that never comes: killed by the simulated
 * watchdog on a watchdog device, and still ended by a context destroy on a
 * device without one (the interpreter polls rt->cancelled()). */
Test(ptx_sim_time, spinning_kernel_is_killed_or_cancelled)
{
    alarm(50);
    sim_test_init(TIME_CONFIG);
    char path[512];
    snprintf(path, sizeof path, "%s/spin.ptx", GG_PTX_FIXTURE_DIR);
    for (int dev = 0; dev < 3; dev += 2) {
        CUcontext c = sim_test_ctx(dev);
        CUmodule m;
        CU_OK(cuModuleLoad(&m, path));
        CUfunction f = sim_test_kernel(m, "spin");
        CUdeviceptr flag;
        CU_OK(cuMemAlloc_v2(&flag, 4));
        CU_OK(cuMemsetD8_v2(flag, 0, 4));
        void *args[] = { &flag };
        CU_OK(cuLaunchKernel(f, 2, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
        if (dev == 0) {
            CU_IS(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_TIMEOUT);
        } else {
            CU_IS(cuStreamQuery(NULL), CUDA_ERROR_NOT_READY);
        }
        CU_OK(cuCtxDestroy_v2(c)); /* device 2: ends the running launch */
    }
    sim_test_assert_no_leaks();
    alarm(0);
}

/* Past 2^32 ns (4.3 s) of device time: count_to(1100) runs 4404
 * warp-instructions at 1 ms, and timer_halves, queued behind it, starts
 * where it ended (later than 4.4 s however the device's clock began);
 * %globaltimer_lo and _hi are then the halves of the clock at their own
 * instructions (2 and 3), the whole at 4. */
Test(ptx_sim_time, globaltimer_halves_past_32_bits)
{
    alarm(50);
    sim_test_init(TIME_CONFIG);
    CUcontext c = sim_test_ctx(3);
    CUmodule m, mh;
    CU_OK(cuModuleLoadData(&m, k_count));
    CU_OK(cuModuleLoadData(&mh, k_timer_halves));
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, 16));
    unsigned n = 1100;
    void *args[] = { &d, &n };
    CUevent before, after;
    CU_OK(cuEventCreate(&before, 0));
    CU_OK(cuEventCreate(&after, 0));
    /* A C-function kernel of 200 ms (wall clock) in front: what follows
     * queues behind it, so the host's pace between the calls does not
     * show in device time. */
    CUmodule c_kernels = sim_test_module();
    unsigned spin_ms = 200;
    void *spin_args[] = { &spin_ms };
    CU_OK(cuLaunchKernel(sim_test_kernel(c_kernels, "spin"), 1, 1, 1, 1, 1, 1, 0, NULL, spin_args, NULL));
    CU_OK(cuEventRecord(before, NULL));
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "count_to"), 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuEventRecord(after, NULL));
    void *hargs[] = { &d };
    CU_OK(cuLaunchKernel(sim_test_kernel(mh, "timer_halves"), 1, 1, 1, 1, 1, 1, 0, NULL, hargs, NULL));
    CU_OK(cuCtxSynchronize());
    /* The events around count_to: its simulated time exactly, 4.404 s. */
    float ms = 0;
    CU_OK(cuEventElapsedTime_v2(&ms, before, after));
    cr_assert(fabsf(ms - 4404.0f) <= 0.01f, "count_to took %f ms of device time", (double)ms);
    uint32_t halves[2];
    uint64_t whole;
    CU_OK(cuMemcpyDtoH_v2(halves, d, 8));
    CU_OK(cuMemcpyDtoH_v2(&whole, d + 8, 8));
    uint64_t start = whole - 4000000u;
    cr_assert_geq(start, 4404ull * 1000000u);
    cr_assert_eq(halves[0], (uint32_t)(start + 2000000u));
    cr_assert_eq(halves[1], (uint32_t)((start + 3000000u) >> 32));
    cr_assert_geq(halves[1], 1u);
    CU_OK(cuEventDestroy_v2(before));
    CU_OK(cuEventDestroy_v2(after));
    CU_OK(cuModuleUnload(c_kernels));
    CU_OK(cuCtxDestroy_v2(c));
    alarm(0);
}
