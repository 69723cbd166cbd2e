/* Recursive device functions (fixture recursion.ptx, from
 * kernels/recursion.cu) run with per-lane call stacks (ptx_inline.h,
 * ptx_call_stack.c), compared lane by lane with host C; and the call
 * stack's bound (PTX_CALL_STACK_BYTES) at the bound and one past it. */
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
#define CALL_STACK_BYTES 16384u /* PTX_CALL_STACK_BYTES */
/* depth(n) from the kernel makes n + 1 activations: 73 fit (16352
 * bytes), 74 do not (16576). */
#define DEEPEST_N (CALL_STACK_BYTES / DEPTH_ACTIVATION_BYTES - 1u)

static CUresult run_depth(int depth_n, int *out)
{
    sim_test_init(NULL);
    (void)sim_test_ctx(0); /* current; the process ends with the test */
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
    cr_assert_eq(run_depth((int)DEEPEST_N, out), CUDA_SUCCESS);
    for (int i = 0; i < 32; i++)
        cr_assert_eq(out[i], (int)DEEPEST_N, "lane %d: %d", i, out[i]);
}

Test(ptx_recursion, one_call_past_the_stack_is_a_sticky_illegal_address)
{
    int out[32];
    cr_assert_eq(run_depth((int)DEEPEST_N + 1, out), CUDA_ERROR_ILLEGAL_ADDRESS);
    /* Sticky, and the process still answers. */
    cr_assert_eq(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
}
