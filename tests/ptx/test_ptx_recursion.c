/* Recursive device functions (fixture recursion.ptx, from
 * kernels/recursion.cu) run with per-lane call stacks (ptx_inline.h,
 * ptx_call_stack.c), compared lane by lane with host C; and the call
 * stack's bound (ptx_call_stack_bytes of CU_LIMIT_STACK_SIZE) at the bound
 * and one past it, under the default limit and under raised ones. */
#include "ptx/ptx_inline.h"
#include "ptx_test_support.h"
#include "sim_test.h"
#include "sim_cuda_client.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

TestSuite(ptx_recursion, .timeout = 120);

/* ---- recursion.cu's functions, on the host ------------------------------ */

static double factorial(unsigned n) { return n <= 1 ? 1.0 : (double)n * factorial(n - 1); }
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static bool is_even(unsigned n) { return n % 2 == 0; }

static int frame_array(int n)
{
    int a[6];
    for (int i = 0; i < 6; i++)
        a[i] = n * 10 + i;
    int below = n > 0 ? frame_array(n - 1) : 0;
    int s = 0;
    for (int i = 0; i < 6; i++)
        s += a[(i + n) % 6] * (i + 1);
    return s + below;
}

Test(ptx_recursion, lanes_recurse_to_their_own_depths_and_match_the_host)
{
    CUcontext c;
    CUmodule m;
    CUfunction f = ptx_test_begin("recursion.ptx", "recursion", &c, &m);
    /* 3 warps (the last one partial): each lane's own depth, 0 to 15, so
     * lanes of one warp stand at different depths and return at
     * different times; parity recursion goes up to 3 * 15 + 7 deep (the
     * deepest frame_array, 16 activations of 800 bytes, and the deepest
     * parity, 53 of 176, fit the 16 KiB stack). */
    enum { N = 80 };
    static int in[N], fibs[N], parity[N], arrays[N], filled[N];
    static double fact[N];
    for (int i = 0; i < N; i++)
        in[i] = (i * 7 + i / 32) % 16;
    in[5] = 0;
    in[6] = 1;
    CUdeviceptr din = ptx_test_upload(in, sizeof in), dfact = ptx_test_upload(NULL, sizeof fact),
                dfib = ptx_test_upload(NULL, sizeof fibs), dpar = ptx_test_upload(NULL, sizeof parity),
                darr = ptx_test_upload(NULL, sizeof arrays), dfill = ptx_test_upload(NULL, sizeof filled);
    int n = N;
    void *args[] = { &din, &dfact, &dfib, &dpar, &darr, &dfill, &n };
    ptx_test_run(f, (unsigned[3]){ 2, 1, 1 }, (unsigned[3]){ 64, 1, 1 }, 0, args);
    ptx_test_download(fact, dfact, sizeof fact);
    ptx_test_download(fibs, dfib, sizeof fibs);
    ptx_test_download(parity, dpar, sizeof parity);
    ptx_test_download(arrays, darr, sizeof arrays);
    ptx_test_download(filled, dfill, sizeof filled);
    for (int i = 0; i < N; i++) {
        int v = in[i];
        cr_assert_eq(fact[i], factorial((unsigned)v), "factorial(%d) at %d: %a", v, i, fact[i]);
        cr_assert_eq(fibs[i], fib(v), "fib(%d) at %d: %d", v, i, fibs[i]);
        cr_assert_eq(parity[i], is_even((unsigned)(v * 3 + i % 8)) ? 1 : 0, "is_even at %d", i);
        cr_assert_eq(arrays[i], frame_array(v), "frame_array(%d) at %d: %d", v, i, arrays[i]);
        cr_assert_eq(filled[i], v * (v + 1) / 2, "fill_down(%d) at %d: %d", v, i, filled[i]);
    }
    ptx_test_end(c, m);
}

Test(ptx_recursion, a_warp_reduction_after_recursions_of_different_depths_sees_every_lane)
{
    CUcontext c;
    CUmodule m;
    CUfunction f = ptx_test_begin("recursion.ptx", "recursion_warp_sum", &c, &m);
    enum { N = 64 };
    static int in[N], out[N / 32];
    for (int i = 0; i < N; i++)
        in[i] = (i * 5 + 3) % 14; /* depths 0 to 13 within each warp */
    CUdeviceptr din = ptx_test_upload(in, sizeof in), dout = ptx_test_upload(NULL, sizeof out);
    void *args[] = { &din, &dout };
    ptx_test_run(f, (unsigned[3]){ 1, 1, 1 }, (unsigned[3]){ N, 1, 1 }, 0, args);
    ptx_test_download(out, dout, sizeof out);
    for (int wi = 0; wi < N / 32; wi++) {
        int want = 0;
        for (int l = 0; l < 32; l++)
            want += 2 * fib(in[wi * 32 + l]) + 1; /* twice_fib: inlined, calling fib */
        cr_assert_eq(out[wi], want, "warp %d: %d, want %d", wi, out[wi], want);
    }
    ptx_test_end(c, m);
}

/* One activation of depth() in recursion.ptx takes this many bytes of a
 * thread's call stack (test_ptx_parse_calls.c checks the layout gives it). */
#define DEPTH_ACTIVATION_BYTES 224u
/* The deepest depth(n) a thread's call stack holds under CU_LIMIT_STACK_SIZE
 * `limit`: depth(n) from the kernel makes n + 1 activations. Under the
 * default limit (a stack of 16 KiB): 73 activations (n = 72) fit (16352
 * bytes), 74 do not (16576). */
static int deepest_n(size_t limit)
{
    return (int)(limit * PTX_STACK_SCALE / DEPTH_ACTIVATION_BYTES) - 1;
}

/* recursion_depth(depth_n) on 32 lanes, after setting CU_LIMIT_STACK_SIZE
 * to limit (0: left at its default). */
static CUresult run_depth(int depth_n, size_t limit, int *out)
{
    sim_test_init(NULL);
    (void)sim_test_ctx(0); /* current; the process ends with the test */
    if (limit)
        CU_OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, limit));
    CUmodule m;
    CUfunction f = ptx_test_load_kernel("recursion.ptx", "recursion_depth", &m);
    CUdeviceptr d = ptx_test_upload(NULL, 32 * sizeof(int));
    void *args[] = { &d, &depth_n };
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    CUresult r = cuCtxSynchronize();
    if (r == CUDA_SUCCESS)
        CU_OK(cuMemcpyDtoH_v2(out, d, 32 * sizeof(int)));
    return r;
}

Test(ptx_recursion, the_deepest_call_the_stack_holds_runs)
{
    int out[32];
    cr_assert_eq(deepest_n(1024), 72);
    cr_assert_eq(run_depth(deepest_n(1024), 0, out), CUDA_SUCCESS);
    for (int i = 0; i < 32; i++)
        cr_assert_eq(out[i], deepest_n(1024), "lane %d: %d", i, out[i]);
}

Test(ptx_recursion, one_call_past_the_stack_is_a_sticky_illegal_address)
{
    int out[32];
    cr_assert_eq(run_depth(deepest_n(1024) + 1, 0, out), CUDA_ERROR_ILLEGAL_ADDRESS);
    /* Sticky, and the process still answers. */
    cr_assert_eq(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
}

/* A raised limit: 4096 bytes, a stack of 64 KiB here, 291 activations. */
Test(ptx_recursion, a_raised_limit_holds_the_deepest_call_it_allows)
{
    int out[32];
    cr_assert_eq(deepest_n(4096), 291);
    cr_assert_eq(run_depth(deepest_n(4096), 4096, out), CUDA_SUCCESS);
    for (int i = 0; i < 32; i++)
        cr_assert_eq(out[i], deepest_n(4096), "lane %d: %d", i, out[i]);
}

Test(ptx_recursion, one_call_past_a_raised_limit_is_a_sticky_illegal_address)
{
    int out[32];
    cr_assert_eq(run_depth(deepest_n(4096) + 1, 4096, out), CUDA_ERROR_ILLEGAL_ADDRESS);
    cr_assert_eq(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
}

/* A lowered limit shrinks the stack too: 512 bytes hold 35 activations. */
Test(ptx_recursion, a_lowered_limit_shrinks_the_stack)
{
    int out[32];
    cr_assert_eq(run_depth(deepest_n(1024), 512, out), CUDA_ERROR_ILLEGAL_ADDRESS);
}

/* ---- tools/driver-facts/limits_kernels.ptx, as the H100 ran it ----------
 * (driver 580.159.04, tools/driver-facts/results/h100-driver-580.159.04-
 * limits.txt): recurse(out, n) writes each lane's depth(n), n + 1. */
#define LIMITS_PTX "../../../tools/driver-facts/limits_kernels.ptx"

static CUfunction load_recurse(CUmodule *m)
{
    sim_test_init(NULL);
    (void)sim_test_ctx(0);
    return ptx_test_load_kernel(LIMITS_PTX, "recurse", m);
}

/* recurse(n) on one block of `threads`; on success every lane's result is
 * checked. */
static CUresult run_recurse(CUfunction f, unsigned n, unsigned threads)
{
    CUdeviceptr d = ptx_test_upload(NULL, threads * sizeof(unsigned));
    void *args[] = { &d, &n };
    CUresult r = cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 0, NULL, args, NULL);
    if (r != CUDA_SUCCESS)
        return r;
    r = cuCtxSynchronize();
    if (r != CUDA_SUCCESS)
        return r;
    static unsigned out[1024];
    CU_OK(cuMemcpyDtoH_v2(out, d, threads * sizeof(unsigned)));
    for (unsigned i = 0; i < threads; i++)
        cr_assert_eq(out[i], n + 1, "lane %u: %u, want %u", i, out[i], n + 1);
    CU_OK(cuMemFree_v2(d));
    return CUDA_SUCCESS;
}

Test(ptx_recursion, the_h100_probe_depth_2_runs_under_the_default_limit)
{
    CUmodule m;
    CUfunction f = load_recurse(&m);
    size_t limit = 0;
    CU_OK(cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE));
    cr_assert_eq(limit, 1024);
    cr_assert_eq(run_recurse(f, 2, 32), CUDA_SUCCESS);
}

Test(ptx_recursion, the_h100_probe_depth_300_overflows_the_default_limit)
{
    CUmodule m;
    CUfunction f = load_recurse(&m);
    /* Not under the default limit: 300 activations need more. */
    cr_assert_eq(run_recurse(f, 300, 32), CUDA_ERROR_ILLEGAL_ADDRESS);
}

Test(ptx_recursion, the_h100_probe_depth_300_runs_with_the_limit_raised_first)
{
    CUmodule m;
    CUfunction f = load_recurse(&m);
    CU_OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 65536));
    size_t limit = 0;
    CU_OK(cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE));
    cr_assert_eq(limit, 65536);
    cr_assert_eq(run_recurse(f, 300, 32), CUDA_SUCCESS);
}

Test(ptx_recursion, the_h100_probe_runaway_recursion_is_sticky_and_limits_answer_it)
{
    CUmodule m;
    CUfunction f = load_recurse(&m);
    cr_assert_eq(run_recurse(f, 100000, 32), CUDA_ERROR_ILLEGAL_ADDRESS);
    CUdeviceptr d;
    cr_assert_eq(cuMemAlloc_v2(&d, 256), CUDA_ERROR_ILLEGAL_ADDRESS);
    size_t limit = 12345;
    cr_assert_eq(cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE), CUDA_ERROR_ILLEGAL_ADDRESS, "as the H100");
    cr_assert_eq(limit, 12345, "nothing written");
    cr_assert_eq(cuCtxGetLimit(&limit, CU_LIMIT_PRINTF_FIFO_SIZE), CUDA_ERROR_ILLEGAL_ADDRESS);
    cr_assert_eq(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 65536), CUDA_ERROR_ILLEGAL_ADDRESS, "by analogy");
}

/* ---- the limit's bounds ---------------------------------------------- */

Test(ptx_recursion, the_largest_stack_limit_is_512_kib)
{
    sim_test_init(NULL);
    (void)sim_test_ctx(0);
    cr_assert_eq(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, PTX_MAX_STACK_LIMIT + 1), CUDA_ERROR_OUT_OF_MEMORY);
    size_t limit = 0;
    CU_OK(cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE));
    cr_assert_eq(limit, 1024, "a refused limit leaves the old one");
    CU_OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, PTX_MAX_STACK_LIMIT));
    CU_OK(cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE));
    cr_assert_eq(limit, PTX_MAX_STACK_LIMIT);
}

/* The limit is the context's: another context keeps its default. */
Test(ptx_recursion, the_stack_limit_is_per_context)
{
    sim_test_init(NULL);
    CUcontext a = sim_test_ctx(0);
    CU_OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 8192));
    CUcontext b = sim_test_ctx(0); /* now current */
    size_t limit = 0;
    CU_OK(cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE));
    cr_assert_eq(limit, 1024);
    CU_OK(cuCtxDestroy_v2(b));
    CU_OK(cuCtxSetCurrent(a));
    CU_OK(cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE));
    cr_assert_eq(limit, 8192);
    CU_OK(cuCtxDestroy_v2(a));
}

/* A block's call stacks are bounded (sim_launch.c: 2 GiB of .local): under
 * a 128 KiB limit (2 MiB of stack a thread here) 1023 threads fit, 1024
 * do not and the launch is refused. */
Test(ptx_recursion, a_block_whose_call_stacks_do_not_fit_is_refused)
{
    CUmodule m;
    CUfunction f = load_recurse(&m);
    CU_OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 131072));
    cr_assert_eq(run_recurse(f, 2, 1024), CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    cr_assert_eq(cuCtxSynchronize(), CUDA_SUCCESS, "refused, not sticky");
    cr_assert_eq(run_recurse(f, 2, 1023), CUDA_SUCCESS);
    /* Under the 64 KiB limit a full block of 1024 fits. */
    CU_OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 65536));
    cr_assert_eq(run_recurse(f, 300, 1024), CUDA_SUCCESS);
}

/* A kernel that makes no recursive call has no call stack: a full block
 * under the largest limit, which a recursive kernel's could not have,
 * launches and runs. */
Test(ptx_recursion, a_kernel_without_recursion_pays_no_stack_whatever_the_limit)
{
    CUmodule m;
    (void)load_recurse(&m);
    CUfunction fill = sim_test_kernel(m, "fill_u32");
    CUfunction rec = sim_test_kernel(m, "recurse");
    CU_OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, PTX_MAX_STACK_LIMIT));
    cr_assert_eq(run_recurse(rec, 2, 1024), CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    CUdeviceptr d = ptx_test_upload(NULL, 1024 * sizeof(unsigned));
    unsigned value = 7, n = 1024;
    void *args[] = { &d, &value, &n };
    CU_OK(cuLaunchKernel(fill, 1, 1, 1, 1024, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
    static unsigned out[1024];
    CU_OK(cuMemcpyDtoH_v2(out, d, sizeof out));
    for (int i = 0; i < 1024; i++)
        cr_assert_eq(out[i], 7u + (unsigned)i, "thread %d: %u", i, out[i]);
}
