/* Device functions, calls and printf in nvcc-compiled kernels (fixtures
 * calls.ptx and printf.ptx, from kernels/calls.cu and kernels/printf.cu),
 * run through the simulator's CUDA face and compared with host C. */
#include "ptx_test_support.h"
#include "sim_test.h"
#include "sim_cuda_client.h"
#include "ptx/ptx_printf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(ptx_calls, .timeout = 120);

/* ---- calls.cu's functions, on the host ---------------------------------- */

static int collatz_steps(int v)
{
    int steps = 0;
    while (v > 1 && steps < 200) {
        v = (v & 1) ? 3 * v + 1 : v >> 1;
        steps++;
    }
    return steps;
}

static double scale(double x, int k)
{
    double r = x;
    for (int i = 0; i < (k & 7); i++)
        r = fma(r, 1.5, -0.25); /* nvcc contracts r * 1.5 - 0.25 */
    return r;
}

static int local_table(int v)
{
    int t[8];
    for (int i = 0; i < 8; i++)
        t[i] = v * (i + 1) + i;
    return t[(unsigned)v % 8u] - t[((unsigned)v >> 3) % 8u];
}

Test(ptx_calls, device_functions_give_the_host_results_with_divergent_callers)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    enum { N = 200 };
    static int in[N], out_int[3 * N], out_pair[3 * N];
    static double out_dbl[N];
    for (int i = 0; i < N; i++)
        in[i] = (i * 7919) % 1000 - 300 + (i % 3 == 0 ? 1 : 0);
    CUdeviceptr din, dint, ddbl, dpair;
    CU_OK(cuMemAlloc_v2(&din, sizeof in));
    CU_OK(cuMemAlloc_v2(&dint, sizeof out_int));
    CU_OK(cuMemAlloc_v2(&ddbl, sizeof out_dbl));
    CU_OK(cuMemAlloc_v2(&dpair, sizeof out_pair));
    CU_OK(cuMemcpyHtoD_v2(din, in, sizeof in));
    CUmodule m;
    CUfunction f = ptx_test_load_kernel("calls.ptx", "calls", &m);
    int n = N;
    void *args[] = { &din, &dint, &ddbl, &dpair, &n };
    /* 64 threads a block: a partial last block, warps whose lanes call
     * collatz_steps from two call sites and loop a different number of
     * times inside it. */
    CU_OK(cuLaunchKernel(f, (N + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(out_int, dint, sizeof out_int));
    CU_OK(cuMemcpyDtoH_v2(out_dbl, ddbl, sizeof out_dbl));
    CU_OK(cuMemcpyDtoH_v2(out_pair, dpair, sizeof out_pair));
    for (int i = 0; i < N; i++) {
        int v = in[i];
        int a = (i & 1) ? collatz_steps(v) : collatz_steps(v + 7) + 1;
        cr_assert_eq(out_int[i], a + local_table(v), "out_int[%d] = %d, want %d", i, out_int[i],
                     a + local_table(v));
        double d = scale((double)v * 0.5, v);
        cr_assert(memcmp(&out_dbl[i], &d, sizeof d) == 0, "out_dbl[%d] = %a, want %a", i, out_dbl[i], d);
        cr_assert_eq(out_pair[3 * i], i + collatz_steps(v), "count %d", i);
        cr_assert_eq(out_pair[3 * i + 1], 3 ^ v, "tag %d", i);
        cr_assert_eq(out_pair[3 * i + 2], (int)((0.25 + scale((double)v, v)) * 4.0), "sum %d", i);
        cr_assert_eq(out_int[N + 2 * i], v ^ 0x55, "store_twice %d", i);
        cr_assert_eq(out_int[N + 2 * i + 1], -(v ^ 0x55), "store_twice %d", i);
    }
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
}

/* ---- printf ------------------------------------------------------------- */

/* Runs one launch of print_values (grid blocks of `block` threads) with
 * stdout sent to a file; returns what it printed and fills ret[2 * block]. */
static char *printed_by(unsigned grid, unsigned block, int *ret, size_t *len)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m;
    CUfunction f = ptx_test_load_kernel("printf.ptx", "print_values", &m);
    CUdeviceptr dret;
    CU_OK(cuMemAlloc_v2(&dret, 2 * block * sizeof(int)));
    int n = (int)block;
    void *args[] = { &dret, &n };
    fflush(stdout);
    FILE *capture = tmpfile();
    cr_assert_not_null(capture);
    int saved = dup(1);
    cr_assert(saved >= 0 && dup2(fileno(capture), 1) == 1);
    alarm(60); /* a hang fails the test instead of blocking it */
    CUresult launched = cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, NULL, args, NULL);
    CUresult synced = cuCtxSynchronize();
    alarm(0);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    cr_assert_eq(launched, CUDA_SUCCESS);
    cr_assert_eq(synced, CUDA_SUCCESS);
    CU_OK(cuMemcpyDtoH_v2(ret, dret, 2 * block * sizeof(int)));
    long size = ftell(capture);
    fseek(capture, 0, SEEK_END);
    size = ftell(capture);
    fseek(capture, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    cr_assert_eq(fread(text, 1, (size_t)size, capture), (size_t)size);
    text[size] = '\0';
    fclose(capture);
    *len = (size_t)size;
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    return text;
}

/* What one block of `block` threads (at most 32: one warp, which runs each
 * printf for all its lanes in lane order) prints, as host printf would. */
static void expected_block(unsigned block, char *out, size_t cap)
{
    size_t at = 0;
    for (unsigned u = 0; u < block; u++) {
        int i = (int)u;
        long long big = -1234567890123ll * (i + 1);
        unsigned long long ubig = 18446744073709551615ull - (unsigned)i;
        float f = 1.5f + (float)i;
        double d = -2.25e-3 * (i + 1);
        at += (size_t)snprintf(out + at, cap - at,
                               "t%d: %i %u %x %X %o %c|%5d|%-5d|%05d|%.3f %e %g %s %ld %lld %llu %% %8.2f\n",
                               i, -i - 1, 4000000000u + (unsigned)i, 255 + i, 0xabc + i, 8 + i, 'a' + i, i, i,
                               i, (double)f, d, d * 1e10, "word", (long)big, big, ubig, (double)f);
    }
    for (unsigned u = 0; u < block; u++)
        at += (size_t)snprintf(out + at, cap - at, "no args\n");
}

Test(ptx_calls, printf_formats_as_the_host_and_returns_the_argument_count)
{
    enum { BLOCK = 20 };
    int ret[2 * BLOCK];
    size_t len;
    char *text = printed_by(1, BLOCK, ret, &len);
    static char want[16384];
    expected_block(BLOCK, want, sizeof want);
    cr_assert_str_eq(text, want);
    for (int i = 0; i < BLOCK; i++) {
        cr_assert_eq(ret[i], 18, "printf %d returned %d", i, ret[i]);
        cr_assert_eq(ret[BLOCK + i], 0, "printf without arguments returned %d", ret[BLOCK + i]);
    }
    free(text);
}

Test(ptx_calls, printf_output_past_the_fifo_bound_is_dropped_whole)
{
    enum { BLOCK = 32 };
    static char block_text[16384];
    expected_block(BLOCK, block_text, sizeof block_text);
    size_t block_len = strlen(block_text);
    unsigned grid = (unsigned)(PTX_PRINTF_FIFO_BYTES / block_len + 2);
    int ret[2 * BLOCK];
    size_t len;
    char *text = printed_by(grid, BLOCK, ret, &len);
    /* Whole printfs in launch order until the first that does not fit:
     * the bound + 1 byte is never reached. */
    size_t want = 0, line_start = 0;
    for (unsigned b = 0; b < grid; b++) {
        for (size_t i = 0; i < block_len; i++)
            if (block_text[i] == '\n') {
                size_t line = i + 1 - line_start;
                if (want + line > PTX_PRINTF_FIFO_BYTES)
                    goto done;
                want += line;
                line_start = i + 1;
            }
        line_start = 0;
    }
done:
    cr_assert_gt(grid * block_len, (size_t)PTX_PRINTF_FIFO_BYTES);
    cr_assert_eq(len, want, "printed %zu bytes, want %zu", len, want);
    cr_assert_leq(len, (size_t)PTX_PRINTF_FIFO_BYTES);
    for (size_t at = 0; at < len; at += block_len) {
        size_t n = len - at < block_len ? len - at : block_len;
        cr_assert(memcmp(text + at, block_text, n) == 0, "block at %zu differs", at);
    }
    free(text);
}

/* stdout of fn(arg) (which launches and synchronises), captured in a file. */
static char *capture_stdout(void (*fn)(void *), void *arg)
{
    fflush(stdout);
    FILE *capture = tmpfile();
    cr_assert_not_null(capture);
    int saved = dup(1);
    cr_assert(saved >= 0 && dup2(fileno(capture), 1) == 1);
    alarm(60);
    fn(arg);
    alarm(0);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    fseek(capture, 0, SEEK_END);
    long size = ftell(capture);
    fseek(capture, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    cr_assert_eq(fread(text, 1, (size_t)size, capture), (size_t)size);
    text[size] = '\0';
    fclose(capture);
    return text;
}

typedef struct edge_run {
    CUfunction f;
    void **args;
    CUresult launched, synced;
} edge_run;

static void run_edge(void *p)
{
    edge_run *r = p;
    r->launched = cuLaunchKernel(r->f, 1, 1, 1, 1, 1, 1, 0, NULL, r->args, NULL);
    r->synced = cuCtxSynchronize();
}

Test(ptx_calls, printf_star_widths_narrowing_null_strings_and_unsupported_conversions)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m;
    CUfunction f = ptx_test_load_kernel("printf.ptx", "print_edges", &m);
    CUdeviceptr dret;
    CU_OK(cuMemAlloc_v2(&dret, 2 * sizeof(int)));
    CU_OK(cuMemsetD8_v2(dret, 0, 2 * sizeof(int)));
    CUdeviceptr null_str = 0;
    void *args[] = { &null_str, &dret };
    edge_run r = { f, args, CUDA_ERROR_UNKNOWN, CUDA_ERROR_UNKNOWN };
    char *text = capture_stdout(run_edge, &r);
    cr_assert_eq(r.launched, CUDA_SUCCESS);
    cr_assert_eq(r.synced, CUDA_SUCCESS);
    char want[512];
    int n = snprintf(want, sizeof want, "[%*d|%-*d|%.*f|%.*d|%c|%hd|%hhu|%lx|%p|", 6, 42, 4, -7, 2, 3.14159, -1, 5,
                     'Z', (short)4464, (unsigned char)44, 0xdeadbeefcafeul, (void *)0x1234);
    snprintf(want + n, sizeof want - (size_t)n, "(null)|%.2s|%5s|%%n|after 99|%%y]\n", "abcdef", "ab");
    cr_assert_str_eq(text, want);
    int ret[2];
    CU_OK(cuMemcpyDtoH_v2(ret, dret, sizeof ret));
    cr_assert_eq(ret[0], 18, "printf returned %d", ret[0]);
    cr_assert_eq(ret[1], 0, "%%n wrote %d", ret[1]);
    free(text);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
}

Test(ptx_calls, printf_of_an_unreadable_string_faults_the_launch)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m;
    CUfunction f = ptx_test_load_kernel("printf.ptx", "print_bad_string", &m);
    CUdeviceptr bad = 0x10;
    void *args[] = { &bad };
    edge_run r = { f, args, CUDA_ERROR_UNKNOWN, CUDA_ERROR_UNKNOWN };
    char *text = capture_stdout(run_edge, &r);
    cr_assert_eq(r.launched, CUDA_SUCCESS);
    cr_assert_eq(r.synced, CUDA_ERROR_ILLEGAL_ADDRESS);
    cr_assert_str_eq(text, "");
    free(text);
    cuCtxDestroy_v2(c);
}
