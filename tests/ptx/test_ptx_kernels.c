/* nvcc-compiled kernels (the .ptx files of fixtures/) run by the PTX interpreter through
 * the simulator's CUDA face, each result compared bit for bit with a host C
 * reference that follows PTX semantics. */
#include "sim_test.h"
#include "sim_cuda_client.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(ptx_kernels, .timeout = 60);

static char *read_fixture(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GG_PTX_FIXTURE_DIR, name);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* Loads a fixture from memory, as cuModuleLoadData does with PTX text. */
static CUfunction load_kernel(const char *fixture, const char *kernel, CUmodule *mod)
{
    char *src = read_fixture(fixture);
    CU_OK(cuModuleLoadData(mod, src));
    free(src);
    return sim_test_kernel(*mod, kernel);
}

static CUdeviceptr upload(const void *host, size_t bytes)
{
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, bytes));
    if (host)
        CU_OK(cuMemcpyHtoD_v2(d, host, bytes));
    else
        CU_OK(cuMemsetD8_v2(d, 0, bytes));
    return d;
}

static void launch(CUfunction f, unsigned grid, unsigned block, unsigned shared, void **args)
{
    CU_OK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shared, NULL, args, NULL));
}

/* A deterministic pseudo-random sequence (xorshift32). */
static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

Test(ptx_kernels, vector_add_from_memory_and_from_a_file)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    enum { N = 1000 };
    static float a[N], b[N], out[N];
    uint32_t seed = 1;
    for (int i = 0; i < N; i++) {
        a[i] = (float)(int32_t)next_random(&seed) / 1024.0f;
        b[i] = (float)(int32_t)next_random(&seed) / 3.0f;
    }
    CUdeviceptr da = upload(a, sizeof a), db = upload(b, sizeof b), dc = upload(NULL, sizeof out);
    int n = N;
    void *args[] = { &da, &db, &dc, &n };
    CUmodule m1, m2;
    CUfunction f1 = load_kernel("vector_add.ptx", "vector_add", &m1);
    CU_OK(cuModuleLoad(&m2, GG_PTX_FIXTURE_DIR "/vector_add.ptx"));
    CUfunction f2 = sim_test_kernel(m2, "vector_add");
    for (int round = 0; round < 2; round++) {
        CU_OK(cuMemsetD8_v2(dc, 0, sizeof out));
        launch(round ? f2 : f1, (N + 127) / 128, 128, 0, args);
        CU_OK(cuCtxSynchronize());
        CU_OK(cuMemcpyDtoH_v2(out, dc, sizeof out));
        for (int i = 0; i < N; i++) {
            float want = a[i] + b[i];
            cr_assert(!memcmp(&out[i], &want, 4), "round %d: c[%d] = %a, want %a", round, i,
                      (double)out[i], (double)want);
        }
    }
    CUfunction none;
    CU_IS(cuModuleGetFunction(&none, m1, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
    CU_OK(cuModuleUnload(m1));
    CU_OK(cuModuleUnload(m2));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

static int32_t divergent_reference(int32_t v, int32_t i)
{
    int32_t acc = 0;
    int32_t steps = (int32_t)((uint32_t)v % 7u) + (i & 3);
    for (int32_t k = 0; k < steps; k++) {
        if ((v + k) & 1)
            acc += v / (k + 1) - (v % 5);
        else
            acc ^= (int32_t)((uint32_t)v << (k & 31)) >> 3;
        acc = acc > -1000000 ? acc : -1000000;
        acc = acc < 1000000 ? acc : 1000000;
    }
    return acc;
}

Test(ptx_kernels, divergent_branches_and_loops_reconverge)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    enum { N = 517 };
    static int32_t in[N], out[N];
    uint32_t seed = 7;
    for (int i = 0; i < N; i++)
        in[i] = (int32_t)next_random(&seed) >> (i % 20);
    CUdeviceptr din = upload(in, sizeof in), dout = upload(NULL, sizeof out);
    int n = N;
    void *args[] = { &din, &dout, &n };
    CUmodule m;
    CUfunction f = load_kernel("divergent.ptx", "divergent", &m);
    launch(f, (N + 63) / 64, 64, 0, args);
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(out, dout, sizeof out));
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], divergent_reference(in[i], i), "out[%d] = %d, want %d (in %d)", i, out[i],
                     divergent_reference(in[i], i), in[i]);
    CU_OK(cuCtxDestroy_v2(c));
}

Test(ptx_kernels, shared_memory_block_reduction_with_barriers)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    enum { BLOCKS = 5, T = 256 };
    static uint32_t in[BLOCKS * T], out[BLOCKS];
    uint32_t seed = 3;
    for (int i = 0; i < BLOCKS * T; i++)
        in[i] = next_random(&seed);
    CUdeviceptr din = upload(in, sizeof in), dout = upload(NULL, sizeof out);
    void *args[] = { &din, &dout };
    CUmodule m;
    CUfunction f = load_kernel("block_reduce.ptx", "block_reduce", &m);
    launch(f, BLOCKS, T, 0, args);
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(out, dout, sizeof out));
    for (int b = 0; b < BLOCKS; b++) {
        uint32_t want = 0;
        for (int t = 0; t < T; t++)
            want += in[b * T + t];
        cr_assert_eq(out[b], want, "block %d: %u, want %u", b, out[b], want);
    }
    CU_OK(cuCtxDestroy_v2(c));
}

/* Correct only if the 32 lanes of a warp run in lockstep: each lane reads
 * its neighbour's value before any lane of the warp writes. */
Test(ptx_kernels, warp_synchronous_volatile_reduction_in_dynamic_shared_memory)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    enum { BLOCKS = 3, T = 64 };
    static int32_t in[BLOCKS * T], out[BLOCKS];
    uint32_t seed = 11;
    for (int i = 0; i < BLOCKS * T; i++)
        in[i] = (int32_t)(next_random(&seed) % 2001u) - 1000;
    CUdeviceptr din = upload(in, sizeof in), dout = upload(NULL, sizeof out);
    void *args[] = { &din, &dout };
    CUmodule m;
    CUfunction f = load_kernel("warp_reduce.ptx", "warp_reduce", &m);
    launch(f, BLOCKS, T, T * sizeof(int32_t), args);
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(out, dout, sizeof out));
    for (int b = 0; b < BLOCKS; b++) {
        int32_t want = 0;
        for (int t = 0; t < T; t++)
            want += in[b * T + t];
        cr_assert_eq(out[b], want, "block %d: %d, want %d", b, out[b], want);
    }
    CU_OK(cuCtxDestroy_v2(c));
}

Test(ptx_kernels, out_of_bounds_store_is_a_sticky_illegal_address)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUdeviceptr d = upload(NULL, 64 * sizeof(int32_t));
    int n = 64;
    void *args[] = { &d, &n };
    CUmodule m;
    CUfunction f = load_kernel("oob_store.ptx", "oob_store", &m);
    launch(f, 1, 65, 0, args); /* thread 64 writes past the end */
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    CUdeviceptr d2;
    CU_IS(cuMemAlloc_v2(&d2, 8), CUDA_ERROR_ILLEGAL_ADDRESS);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(ptx_kernels, trap_fails_the_launch)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUdeviceptr d = upload(NULL, 64 * sizeof(int32_t));
    void *args[] = { &d };
    CUmodule m;
    CUfunction f = load_kernel("trap.ptx", "trap_kernel", &m);
    launch(f, 1, 32, 0, args);
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
    CU_OK(cuCtxDestroy_v2(c));
}

Test(ptx_kernels, failed_assert_is_cuda_error_assert)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    int32_t in[32];
    for (int i = 0; i < 32; i++)
        in[i] = i;
    CUdeviceptr d = upload(in, sizeof in);
    void *args[] = { &d };
    CUmodule m;
    CUfunction f = load_kernel("assert.ptx", "assert_kernel", &m);
    launch(f, 1, 32, 0, args); /* every value passes */
    CU_OK(cuCtxSynchronize());
    in[3] = -1;
    CU_OK(cuMemcpyHtoD_v2(d, in, sizeof in));
    launch(f, 1, 32, 0, args);
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ASSERT);
    CU_OK(cuCtxDestroy_v2(c));
}

/* ---- integer and float semantics ---------------------------------------- */

static uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return isnan(f) ? 0x7FFFFFFFu : u; }

/* cvt.rzi.s32.f32 / cvt.rzi.u32.f32: NaN to 0, out of range clamped. */
static int32_t f2i_rz(float g)
{
    if (isnan(g))
        return 0;
    if (g >= 2147483648.0f)
        return INT32_MAX;
    if (g <= -2147483649.0f)
        return INT32_MIN;
    return (int32_t)truncf(g);
}

static uint32_t f2u_rz(float g)
{
    if (isnan(g) || g <= 0.0f)
        return 0;
    if (g >= 4294967296.0f)
        return UINT32_MAX;
    return (uint32_t)truncf(g);
}

static float fmin_ptx(float a, float b) { return isnan(a) ? b : isnan(b) ? a : (a < b ? a : b); }
static float fmax_ptx(float a, float b) { return isnan(a) ? b : isnan(b) ? a : (a > b ? a : b); }

Test(ptx_kernels, integer_and_float_semantics_follow_ptx)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    enum { N = 70 };
    static int32_t a[N], b[N], iout[N * 8];
    static float f[N], fout[N * 4];
    static int64_t lout[N];
    uint32_t seed = 5;
    const float specials[] = { NAN, INFINITY, -INFINITY, 1e10f, -1e10f, 3e9f, -0.0f, 0.5f, -2.5f, 1e-40f };
    for (int i = 0; i < N; i++) {
        a[i] = (int32_t)next_random(&seed);
        b[i] = (int32_t)next_random(&seed) >> (i % 31);
        if (b[i] == 0)
            b[i] = 3;
        f[i] = i < 10 ? specials[i] : (float)(int32_t)next_random(&seed) / 65536.0f;
    }
    a[10] = INT32_MIN; /* INT_MIN / -1 wraps */
    b[10] = -1;
    b[11] = 32;        /* shifts by the width and more */
    b[12] = 63;
    b[13] = 31;
    CUdeviceptr da = upload(a, sizeof a), db = upload(b, sizeof b), df = upload(f, sizeof f);
    CUdeviceptr di = upload(NULL, sizeof iout), dfo = upload(NULL, sizeof fout), dl = upload(NULL, sizeof lout);
    CUdeviceptr dcount = upload(NULL, 4);
    int n = N;
    void *args[] = { &da, &db, &df, &di, &dfo, &dl, &dcount, &n };
    CUmodule m;
    CUfunction fn = load_kernel("mixed_ops.ptx", "mixed_ops", &m);
    launch(fn, 3, 32, 0, args);
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(iout, di, sizeof iout));
    CU_OK(cuMemcpyDtoH_v2(fout, dfo, sizeof fout));
    CU_OK(cuMemcpyDtoH_v2(lout, dl, sizeof lout));
    uint32_t count, want_count = 0;
    CU_OK(cuMemcpyDtoH_v2(&count, dcount, 4));
    for (int i = 0; i < N; i++) {
        int32_t x = a[i], y = b[i];
        float g = f[i];
        uint32_t s = (uint32_t)y & 63u;
        int32_t want_i[8] = {
            (x == INT32_MIN && y == -1) ? INT32_MIN : x / y,
            (x == INT32_MIN && y == -1) ? 0 : x % y,
            (int32_t)((uint32_t)x / (uint32_t)y),
            s >= 32 ? 0 : (int32_t)((uint32_t)x << s),
            s >= 32 ? 0 : (int32_t)((uint32_t)x >> s),
            x >> (s >= 32 ? 31 : s),
            f2i_rz(g),
            (x < y ? (x == INT32_MIN ? x : abs(x)) : (int32_t)(0u - (uint32_t)y)) ^ (int32_t)f2u_rz(g),
        };
        for (int k = 0; k < 8; k++)
            cr_assert_eq(iout[i * 8 + k], want_i[k], "i=%d k=%d: %d, want %d (x=%d y=%d g=%a)", i, k,
                         iout[i * 8 + k], want_i[k], x, y, (double)g);
        float want_f[4] = {
            fmaf(g, (float)x, 0.5f),
            g / (float)(y | 1),
            fmin_ptx(g, (float)y) - fmax_ptx(g, -2.5f),
            (float)fma((double)g, 3.0, (double)x),
        };
        for (int k = 0; k < 4; k++)
            cr_assert_eq(f32_bits(fout[i * 4 + k]), f32_bits(want_f[k]), "i=%d k=%d: %a, want %a", i, k,
                         (double)fout[i * 4 + k], (double)want_f[k]);
        int64_t want_l = (int64_t)((uint64_t)((int64_t)x * (int64_t)y) + ((uint64_t)i << 40));
        cr_assert_eq(lout[i], want_l, "i=%d", i);
        want_count += (uint32_t)(x & 15);
    }
    cr_assert_eq(count, want_count);
    CU_OK(cuCtxDestroy_v2(c));
}

Test(ptx_kernels, invalid_ptx_is_refused_at_load_with_its_line)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m;
    CU_IS(cuModuleLoadData(&m, ".version 9.0\n.target sm_75\n.address_size 64\n"
                                ".visible .entry k()\n{\n\tfrobnicate.pred %p1, %p2;\n\tret;\n}\n"),
          CUDA_ERROR_INVALID_IMAGE);
    cr_assert(strstr(gg_sim_last_error_detail(), "PTX line 6: unknown instruction frobnicate.pred") != NULL,
              "%s", gg_sim_last_error_detail());
    CU_OK(cuCtxDestroy_v2(c));
}

/* cuModuleLoadDataEx, as PyCUDA calls it: the PTX loads, and a refusal's
 * reason, with its line, lands in the JIT error log. */
Test(ptx_kernels, load_data_ex_fills_the_error_log)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    char log[256] = "";
    CUjit_option opts[] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *vals[] = { log, (void *)(uintptr_t)sizeof log };
    CUmodule m;
    CU_IS(cuModuleLoadDataEx(&m, ".version 9.0\n.target sm_75\n.address_size 64\n"
                                  ".visible .entry k()\n{\n\tret;\n\tshfl.bfly.b32 %r1, %r1, 1, 31;\n}\n",
                             2, opts, vals),
          CUDA_ERROR_INVALID_IMAGE);
    cr_assert(strstr(log, "PTX line 7: shfl.bfly.b32: only the .sync forms of warp instructions are implemented") != NULL, "log: %s", log);
    char *src = read_fixture("vector_add.ptx");
    vals[1] = (void *)(uintptr_t)sizeof log;
    CU_OK(cuModuleLoadDataEx(&m, src, 2, opts, vals));
    free(src);
    CUfunction f = sim_test_kernel(m, "vector_add");
    cr_assert_not_null(f);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* A kernel spinning on a flag that never comes is killed by the watchdog,
 * which for PTX kernels counts simulated time (test_ptx_sim_time.c): no
 * bound on the wall-clock time it takes here but the suite's timeout. */
Test(ptx_kernels, hung_kernel_is_killed_by_the_watchdog)
{
    sim_test_init(SIM_TEST_FAST_WATCHDOG);
    CUcontext c = sim_test_ctx(0); /* 100 ms watchdog */
    CUdeviceptr flag = upload(NULL, 4);
    void *args[] = { &flag };
    CUmodule m;
    CUfunction f = load_kernel("spin.ptx", "spin", &m);
    launch(f, 2, 64, 0, args);
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_TIMEOUT);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* Local (the depot, v4 stores), static shared, a module .global table and
 * generic loads that land in shared memory or in global memory. */
Test(ptx_kernels, local_shared_module_global_and_generic_addresses)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    static const int32_t table[4] = { 10, 20, 30, 40 };
    int32_t host[128], out[128];
    for (int i = 0; i < 128; i++)
        host[i] = 7 * i - 300;
    CUdeviceptr d = upload(host, sizeof host);
    int pick = 5;
    void *args[] = { &d, &pick };
    CUmodule m;
    CUfunction f = load_kernel("generic_spaces.ptx", "generic_spaces", &m);
    for (int round = 0; round < 2; round++) { /* the table is kept between launches */
        CU_OK(cuMemcpyHtoD_v2(d, host, sizeof host));
        launch(f, 1, 64, 0, args);
        CU_OK(cuCtxSynchronize());
        CU_OK(cuMemcpyDtoH_v2(out, d, sizeof out));
        for (int t = 0; t < 64; t++) {
            int32_t v = (t & 1) ? ((t + pick) & 63) + 1000 : host[t + 64];
            int32_t want = v + t * ((t + pick) & 15) + table[t & 3];
            cr_assert_eq(out[t], want, "round %d out[%d] = %d, want %d", round, t, out[t], want);
        }
    }
    CU_OK(cuCtxDestroy_v2(c));
}

/* Hand-written PTX for what nvcc does not emit on purpose: a misaligned
 * global load, and a shared store past the block's shared memory. */
Test(ptx_kernels, misaligned_and_shared_out_of_range_accesses_fault)
{
    static const char *const kernels[] = {
        ".version 9.0\n.target sm_75\n.address_size 64\n"
        ".visible .entry k(.param .u64 k_p)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<3>;\n"
        "\tld.param.u64 %rd1, [k_p];\n\tld.global.u32 %r1, [%rd1+2];\n\tret;\n}\n",
        ".version 9.0\n.target sm_75\n.address_size 64\n"
        ".shared .align 4 .b8 sh[64];\n"
        ".visible .entry k(.param .u64 k_p)\n{\n\t.reg .b32 %r<3>;\n"
        "\tmov.u32 %r1, sh;\n\tst.shared.u32 [%r1+64], %r2;\n\tret;\n}\n",
    };
    /* Each round faults in a context of its own, in one process:
     * "sticky_scope": "context", else the first fault poisons the process
     * (the CUDA face's default) and no later round can make a context. */
    for (int i = 0; i < 2; i++) {
        sim_test_init("{\"sticky_scope\":\"context\"}");
        CUcontext c = sim_test_ctx(0);
        CUdeviceptr d = upload(NULL, 64);
        void *args[] = { &d };
        CUmodule m;
        CU_OK(cuModuleLoadData(&m, kernels[i]));
        CUfunction f = sim_test_kernel(m, "k");
        launch(f, 1, 1, 0, args);
        /* Misaligned: 716; out of range: 700. Both sticky. */
        CUresult want = i == 0 ? CUDA_ERROR_MISALIGNED_ADDRESS : CUDA_ERROR_ILLEGAL_ADDRESS;
        CU_IS(cuCtxSynchronize(), want);
        CU_IS(cuMemsetD8_v2(d, 0, 64), want);
        CU_OK(cuCtxDestroy_v2(c));
    }
}

static uint64_t f64_bits_canonical(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return isnan(d) ? 0x7FFFFFFFFFFFFFFFull : u;
}

/* mov.b64 unpacking and packing, rcp.rn.f64, fma/min/max.f64, setp.leu/geu
 * and or.pred. */
Test(ptx_kernels, double_halves_and_double_arithmetic)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    enum { N = 16 };
    const double in[N] = { 0.0, -0.0, 1.5, -1.9, 2.0, -2.0, -3.0, 1e300, -1e-310, NAN, INFINITY,
                           -INFINITY, 0.1, 1.0 / 3.0, 123456.789, -7.25 };
    int32_t hi[N], lo[N];
    double swapped[N], math[N];
    CUdeviceptr din = upload(in, sizeof in), dhi = upload(NULL, sizeof hi), dlo = upload(NULL, sizeof lo);
    CUdeviceptr dsw = upload(NULL, sizeof swapped), dmath = upload(NULL, sizeof math);
    void *args[] = { &din, &dhi, &dlo, &dsw, &dmath };
    CUmodule m;
    CUfunction f = load_kernel("bits.ptx", "bits", &m);
    launch(f, 1, N, 0, args);
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(hi, dhi, sizeof hi));
    CU_OK(cuMemcpyDtoH_v2(lo, dlo, sizeof lo));
    CU_OK(cuMemcpyDtoH_v2(swapped, dsw, sizeof swapped));
    CU_OK(cuMemcpyDtoH_v2(math, dmath, sizeof math));
    for (int i = 0; i < N; i++) {
        uint64_t u;
        memcpy(&u, &in[i], 8);
        cr_assert_eq((uint32_t)hi[i], (uint32_t)(u >> 32), "hi[%d]", i);
        cr_assert_eq((uint32_t)lo[i], (uint32_t)u, "lo[%d]", i);
        uint64_t sw;
        memcpy(&sw, &swapped[i], 8);
        cr_assert_eq(sw, (u << 32) | (u >> 32), "swapped[%d]", i);
        double d = in[i];
        double want = fma(d, 0.75, -(1.0 / (d + 3.0)));
        if (d > -2.0 && d < 2.0)
            want = fmin(want, d) + fmax(-d, 0.25);
        cr_assert_eq(f64_bits_canonical(math[i]), f64_bits_canonical(want), "math[%d] = %a, want %a (d %a)",
                     i, math[i], want, d);
    }
    CU_OK(cuCtxDestroy_v2(c));
}

/* Lanes that fall off the end of the code (past a predicated last
 * instruction, or to a label after it) leave the kernel. */
Test(ptx_kernels, falling_off_the_end_leaves_the_kernel)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUdeviceptr d = upload(NULL, 64);
    void *args[] = { &d };
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, ".version 9.0\n.target sm_75\n.address_size 64\n"
                               ".visible .entry k(.param .u64 k_p)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n"
                               "\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 3;\n"
                               "\t@%p1 bra $L_end;\n\t@%p1 trap;\n$L_end:\n}\n"));
    CUfunction f = sim_test_kernel(m, "k");
    launch(f, 1, 8, 0, args);
    CU_OK(cuCtxSynchronize());
    CU_OK(cuCtxDestroy_v2(c));
}

/* The warp-wide ld/st path (ptx_exec.c, ptx_memory_span) against the
 * lane-by-lane one it stands for: a warp ending exactly at the end of its
 * allocation runs, one element further faults; lanes storing to one address
 * leave the highest lane's value; one misaligned lane among aligned ones
 * faults the launch. */
Test(ptx_kernels, warp_wide_accesses_behave_as_lane_by_lane_ones)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m;
    /* Bound: 64 threads, 64 ints: the second warp ends at the last byte. */
    CUdeviceptr d = upload(NULL, 64 * sizeof(int32_t));
    int n = 64;
    void *args[] = { &d, &n };
    CUfunction f = load_kernel("oob_store.ptx", "oob_store", &m);
    launch(f, 1, 64, 0, args);
    CU_OK(cuCtxSynchronize());
    int32_t out[64];
    CU_OK(cuMemcpyDtoH_v2(out, d, sizeof out));
    for (int i = 0; i < 64; i++)
        cr_assert_eq(out[i], i);
    /* Bound + 1 (a warp of one lane past the end) is
     * out_of_bounds_store_is_a_sticky_illegal_address. */

    static const char *const same_address =
        ".version 9.0\n.target sm_75\n.address_size 64\n"
        ".visible .entry k(.param .u64 k_p)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n"
        "\tld.param.u64 %rd1, [k_p];\n\tmov.u32 %r1, %tid.x;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";
    CUmodule m2;
    CU_OK(cuModuleLoadData(&m2, same_address));
    void *args2[] = { &d };
    launch(sim_test_kernel(m2, "k"), 1, 32, 0, args2);
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(out, d, sizeof(int32_t)));
    cr_assert_eq(out[0], 31, "of lanes storing to one address, the highest wins");

    static const char *const one_misaligned =
        ".version 9.0\n.target sm_75\n.address_size 64\n"
        ".visible .entry k(.param .u64 k_p)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<4>;\n"
        "\tld.param.u64 %rd1, [k_p];\n\tmov.u32 %r1, %tid.x;\n"
        "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
        "\tsetp.eq.u32 %p1, %r1, 7;\n\t@%p1 add.s64 %rd3, %rd3, 2;\n"
        "\tld.global.u32 %r2, [%rd3];\n\tret;\n}\n";
    CUmodule m3;
    CU_OK(cuModuleLoadData(&m3, one_misaligned));
    launch(sim_test_kernel(m3, "k"), 1, 32, 0, args2);
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_MISALIGNED_ADDRESS); /* lane 7 reads at +2 */
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}
