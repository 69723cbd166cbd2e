/* Device time of PTX launches (src/sim/core/sim_block_slots.h,
 * src/sim/core/sim_timeline.c): a launch's blocks share the device's places for
 * resident blocks (multiprocessors times what one holds of this launch's
 * blocks), so a grid one block larger than a wave runs a second wave; the
 * watchdog and events count that simulated time, the same on every host.
 * Every bound is tried at the bound and one past it. Nothing here asserts
 * a wall-clock duration; every test that waits is bounded by alarm(). */
#include "sim_test.h"
#include "sim_cuda_client.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

TestSuite(ptx_device_time, .timeout = 60);

/* Device 0: one multiprocessor, 1 ns a warp-instruction, no watchdog;
 * device 1: two of them; device 2: one, with a 1 ms watchdog (1,000,000
 * warp-instructions). */
/* "sticky_scope": "context": a test makes contexts after a watchdog kill. */
#define SLOTS_CONFIG                                                                         \
    "{\"sticky_scope\":\"context\",\"devices\":[{\"name\":\"one_sm\",\"multiprocessors\":1,\"ns_per_warp_instruction\":1}," \
    "{\"name\":\"two_sm\",\"multiprocessors\":2,\"ns_per_warp_instruction\":1},"              \
    "{\"name\":\"one_sm_wd\",\"multiprocessors\":1,\"ns_per_warp_instruction\":1,"            \
    "\"watchdog\":true,\"watchdog_ms\":1}]}"

/* Thread 0 of each block writes the block's start in device time to
 * p_out[%ctaid.x] (its warp's 4th instruction reads %globaltimer: the block
 * started 3 ns earlier) and counts to p_n; the other threads return. Warp 0
 * runs 3 + 8 + 3 p_n + 1 warp-instructions (the last the ret all its lanes
 * share), the other warps 4: a block lasts 3 p_n + 12 ns. */
static const char k_stamp[] =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry stamp(.param .u64 p_out, .param .u32 p_n)\n{\n"
    "\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<6>;\n\t.reg .pred %p<3>;\n"
    "\tmov.u32 %r3, %tid.x;\n\tsetp.ne.u32 %p2, %r3, 0;\n\t@%p2 bra $L_done;\n"
    "\tmov.u64 %rd2, %globaltimer;\n\tld.param.u64 %rd1, [p_out];\n\tmov.u32 %r4, %ctaid.x;\n"
    "\tmul.wide.u32 %rd3, %r4, 8;\n\tadd.s64 %rd4, %rd1, %rd3;\n\tst.global.u64 [%rd4], %rd2;\n"
    "\tld.param.u32 %r2, [p_n];\n\tmov.u32 %r1, 0;\n"
    "$L_loop:\n\tadd.u32 %r1, %r1, 1;\n\tsetp.lt.u32 %p1, %r1, %r2;\n\t@%p1 bra.uni $L_loop;\n"
    "$L_done:\n\tret;\n}\n";

static uint64_t block_ns(unsigned n)
{
    return 3ull * n + 12;
}

/* The C-function kernel "spin" (wall-clock time) in front of what is timed:
 * the records and the launch queue behind it, so the host's pace between
 * the calls does not show in device time. */
static void gate(CUmodule c_kernels)
{
    unsigned ms = 200;
    void *args[] = { &ms };
    CU_OK(cuLaunchKernel(sim_test_kernel(c_kernels, "spin"), 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
}

typedef struct launch_case {
    const char *what;
    int dev;
    unsigned threads, shared, blocks;
    unsigned waiting; /* blocks that wait for a second wave (the last ones) */
} launch_case;

/* Launches stamp on c's grid and checks each block's start: the first
 * blocks.waiting-less ones at the launch's start, the rest one block's
 * time later; and that events around it measure the waves exactly. */
static void check_waves(const launch_case *lc, CUmodule ptx, CUmodule c_kernels)
{
    const unsigned n = 1000;
    CUdeviceptr out;
    CU_OK(cuMemAlloc_v2(&out, 8 * lc->blocks));
    unsigned p_n = n;
    void *args[] = { &out, &p_n };
    CUevent before, after;
    CU_OK(cuEventCreate(&before, 0));
    CU_OK(cuEventCreate(&after, 0));
    gate(c_kernels);
    CU_OK(cuEventRecord(before, NULL));
    CU_OK(cuLaunchKernel(sim_test_kernel(ptx, "stamp"), lc->blocks, 1, 1, lc->threads, 1, 1, lc->shared, NULL,
                         args, NULL));
    CU_OK(cuEventRecord(after, NULL));
    CU_OK(cuCtxSynchronize());
    uint64_t starts[64];
    cr_assert_leq(lc->blocks, 64u);
    CU_OK(cuMemcpyDtoH_v2(starts, out, 8 * lc->blocks));
    uint64_t start = starts[0] - 3;
    unsigned first_wave = lc->blocks - lc->waiting;
    for (unsigned b = 0; b < lc->blocks; b++) {
        uint64_t want = start + 3 + (b < first_wave ? 0 : block_ns(n));
        cr_assert_eq(starts[b], want, "%s: block %u started %lld ns after block 0, want %lld", lc->what, b,
                     (long long)(starts[b] - starts[0]), (long long)(want - starts[0]));
    }
    float ms = 0;
    CU_OK(cuEventElapsedTime_v2(&ms, before, after));
    double want_ms = (double)(lc->waiting ? 2 : 1) * (double)block_ns(n) / 1e6;
    cr_assert(fabs(ms - want_ms) <= want_ms * 1e-5, "%s: events measured %.6f ms, want %.6f", lc->what,
                       (double)ms, want_ms);
    CU_OK(cuEventDestroy_v2(before));
    CU_OK(cuEventDestroy_v2(after));
    CU_OK(cuMemFree_v2(out));
}

/* A multiprocessor holds 2048 threads, 32 blocks and 167,936 bytes of
 * shared memory: each limit at the bound (one wave) and one block past it
 * (the extra block waits for the first to end). */
Test(ptx_device_time, blocks_past_a_wave_wait_for_a_free_place)
{
    alarm(50);
    sim_test_init(SLOTS_CONFIG);
    const launch_case cases[] = {
        { "1024 threads: 2 per multiprocessor", 0, 1024, 0, 2, 0 },
        { "1024 threads: the 3rd waits", 0, 1024, 0, 3, 1 },
        { "two multiprocessors: 4 at once", 1, 1024, 0, 4, 0 },
        { "two multiprocessors: the 5th waits", 1, 1024, 0, 5, 1 },
        { "96 threads: 21 at once (2048 / 96)", 0, 96, 0, 21, 0 },
        { "96 threads: the 22nd waits", 0, 96, 0, 22, 1 },
        { "32 threads: 32 blocks at once (the block limit)", 0, 32, 0, 32, 0 },
        { "32 threads: the 33rd waits", 0, 32, 0, 33, 1 },
        { "48 KiB of shared memory: 3 at once", 0, 32, 49152, 3, 0 },
        { "48 KiB of shared memory: the 4th waits", 0, 32, 49152, 4, 1 },
    };
    for (int dev = 0; dev < 2; dev++) {
        CUcontext c = sim_test_ctx(dev);
        CUmodule ptx, c_kernels = sim_test_module();
        CU_OK(cuModuleLoadData(&ptx, k_stamp));
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            if (cases[i].dev == dev)
                check_waves(&cases[i], ptx, c_kernels);
        CU_OK(cuModuleUnload(ptx));
        CU_OK(cuModuleUnload(c_kernels));
        CU_OK(cuCtxDestroy_v2(c));
    }
    alarm(0);
}

/* The watchdog counts the launch's time, waves included: 20 blocks of
 * 99,999 ns on one multiprocessor (2 at once) take 10 waves, 999,990 ns,
 * within the 1 ms budget; 21 take an 11th wave and are killed, on every
 * host and every time, though no block alone comes near the budget. */
Test(ptx_device_time, watchdog_counts_the_waves_of_a_launch)
{
    alarm(50);
    sim_test_init(SLOTS_CONFIG);
    const unsigned n = 33329; /* 3n + 12 = 99,999 */
    for (int round = 0; round < 2; round++) {
        for (unsigned blocks = 20; blocks <= 21; blocks++) {
            CUcontext c = sim_test_ctx(2);
            CUmodule ptx;
            CU_OK(cuModuleLoadData(&ptx, k_stamp));
            CUdeviceptr out;
            CU_OK(cuMemAlloc_v2(&out, 8 * 21));
            unsigned p_n = n;
            void *args[] = { &out, &p_n };
            CU_OK(cuLaunchKernel(sim_test_kernel(ptx, "stamp"), blocks, 1, 1, 1024, 1, 1, 0, NULL, args,
                                 NULL));
            CU_IS(cuCtxSynchronize(), blocks == 20 ? CUDA_SUCCESS : CUDA_ERROR_LAUNCH_TIMEOUT);
            CU_OK(cuCtxDestroy_v2(c));
        }
    }
    alarm(0);
}

static size_t shared_64_per_thread(int block_size)
{
    return (size_t)block_size * 64;
}

/* The occupancy calls answer from the same residency rule: what they say
 * fits is one wave, one block more is a second (on one multiprocessor). */
Test(ptx_device_time, occupancy_answers_are_the_waves)
{
    alarm(50);
    sim_test_init(SLOTS_CONFIG);
    CUcontext c = sim_test_ctx(0);
    CUmodule ptx, c_kernels = sim_test_module();
    CU_OK(cuModuleLoadData(&ptx, k_stamp));
    CUfunction f = sim_test_kernel(ptx, "stamp");
    struct { int threads; size_t shared; int want; } cases[] = {
        { 1024, 0, 2 }, { 1025, 0, 0 }, { 96, 0, 21 }, { 64, 0, 32 }, { 32, 0, 32 },
        { 32, 49152, 3 }, { 32, 49153, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = -1;
        CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, cases[i].threads, cases[i].shared));
        cr_assert_eq(n, cases[i].want, "%d threads, %zu bytes: %d blocks, want %d", cases[i].threads,
                     cases[i].shared, n, cases[i].want);
        CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, cases[i].threads, cases[i].shared, 1));
        cr_assert_eq(n, cases[i].want);
    }
    int n = 0, grid = 0, block = 0;
    CU_IS(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 0, 0), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 32, 0, 2), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuOccupancyMaxActiveBlocksPerMultiprocessor(NULL, f, 32, 0), CUDA_ERROR_INVALID_VALUE);
    /* The largest block keeping 2048 threads resident: 1024 (2 blocks). */
    CU_OK(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, 0));
    cr_assert_eq(block, 1024);
    cr_assert_eq(grid, 2);
    /* Under a limit of 1000, 512 (4 blocks): 1000 keeps only 2000. */
    CU_OK(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, 1000));
    cr_assert_eq(block, 512);
    cr_assert_eq(grid, 4);
    /* 64 bytes of shared memory a thread: 1024 threads' 64 KiB cannot
     * launch, 768 keep 1536 threads, 512 keep 2048 (4 of 32 KiB). */
    CU_OK(cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, f, shared_64_per_thread, 0, 0, 0));
    cr_assert_eq(block, 512);
    cr_assert_eq(grid, 4);
    CU_IS(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, -1), CUDA_ERROR_INVALID_VALUE);
    /* What the answer says fits is one wave; one block more waits. */
    const launch_case fits = { "the occupancy answer: 4 blocks of 512", 0, 512, 0, 4, 0 };
    const launch_case one_more = { "one block past it", 0, 512, 0, 5, 1 };
    check_waves(&fits, ptx, c_kernels);
    check_waves(&one_more, ptx, c_kernels);
    CU_OK(cuModuleUnload(ptx));
    CU_OK(cuModuleUnload(c_kernels));
    CU_OK(cuCtxDestroy_v2(c));
    alarm(0);
}

/* allocation_granularity: a kernel may touch an allocation up to its size
 * rounded up to it (a GPU's allocations are 256-byte aligned, and numba's
 * own test_localmem writes 40 bytes into a 4-byte array, which passes on
 * a GPU); 1, the default, faults at the first byte past the size. A store
 * of 4 bytes at each offset: the last one inside, the first one outside. */
/* "sticky_scope": "context": each fault is followed by a context of its own. */
#define GRANULARITY_CONFIG                                                                   \
    "{\"sticky_scope\":\"context\",\"devices\":[{\"name\":\"exact\"},{\"name\":\"gpu-like\",\"allocation_granularity\":256}]}"

static const char k_poke[] =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry poke(.param .u64 p, .param .u64 off)\n{\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [p];\n\tld.param.u64 %rd2, [off];\n\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tst.global.u32 [%rd3], 7;\n\tret;\n}\n";

static CUresult poke(int dev, size_t bytes, uint64_t off)
{
    CUcontext c = sim_test_ctx(dev);
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, k_poke));
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, bytes));
    void *args[] = { &d, &off };
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "poke"), 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CUresult r = cuCtxSynchronize();
    CU_OK(cuCtxDestroy_v2(c));
    return r;
}

Test(ptx_device_time, allocation_granularity_bounds_kernel_accesses)
{
    alarm(30);
    sim_test_init(GRANULARITY_CONFIG);
    CU_IS(poke(0, 4, 0), CUDA_SUCCESS);
    CU_IS(poke(0, 4, 4), CUDA_ERROR_ILLEGAL_ADDRESS); /* exact: the first byte past */
    CU_IS(poke(1, 4, 36), CUDA_SUCCESS);              /* numba's overrun: inside 256 */
    CU_IS(poke(1, 4, 252), CUDA_SUCCESS);             /* the last 4 bytes of the 256 */
    CU_IS(poke(1, 4, 256), CUDA_ERROR_ILLEGAL_ADDRESS);
    CU_IS(poke(1, 300, 508), CUDA_SUCCESS);           /* 300 rounds up to 512 */
    CU_IS(poke(1, 300, 512), CUDA_ERROR_ILLEGAL_ADDRESS);
    alarm(0);
}
