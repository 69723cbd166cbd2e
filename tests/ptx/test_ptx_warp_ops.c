/* Warp-level instructions (shfl.sync, vote.sync, activemask, match.sync,
 * redux.sync, bar.warp.sync) and atomics (atom and red of every
 * operation) run by the PTX interpreter through the simulator's CUDA
 * face: nvcc-compiled kernels (fixtures/warp_ops.ptx, fixtures/atomics.ptx)
 * and hand-written PTX for the forms CUDA does not reach (the c operand,
 * the predicate a shuffle gives, red), each compared with a host
 * reference written from the CUDA and PTX documentation. */
#include "ptx_test_support.h"
#include "sim_test.h"
#include "sim_cuda_client.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(ptx_warp_ops, .timeout = 60);

#define PTX_HEADER ".version 7.0\n.target sm_75\n.address_size 64\n"

static CUmodule load_fixture(const char *fixture)
{
    char *src = ptx_test_read_fixture(fixture);
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, src));
    free(src);
    return m;
}

static void run(CUfunction f, unsigned grid, unsigned block, void **args)
{
    CU_OK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
}

/* ---- shuffles through CUDA's intrinsics -------------------------------- */

enum { SHFL_DOWN, SHFL_UP, SHFL_XOR, SHFL_IDX };

/* What CUDA documents for __shfl_*_sync(mask, v, delta or src, width):
 * the warp splits into segments of `width` lanes; up and down read within
 * the segment, xor may read an earlier segment but not a later one, idx
 * reads lane src % width of the segment; a lane that cannot read (or whose
 * source lane takes no part) keeps its own value. */
static int shuffle_reference(const int *v, const int *skip, unsigned lane_base, unsigned lane,
                             int kind, int width, int delta, int src)
{
    int seg = (int)lane / width * width, j;
    switch (kind) {
    case SHFL_DOWN: j = (int)lane + delta < seg + width ? (int)lane + delta : -1; break;
    case SHFL_UP: j = (int)lane - delta >= seg ? (int)lane - delta : -1; break;
    case SHFL_XOR: j = ((int)lane ^ delta) < seg + width ? (int)lane ^ delta : -1; break;
    default: j = seg + src % width; break;
    }
    if (j < 0 || skip[lane_base + (unsigned)j])
        return v[lane_base + lane];
    return v[lane_base + (unsigned)j];
}

static void check_shuffles(CUfunction f, const int *skip, int width, int delta, int src)
{
    enum { N = 64 };
    int v[N], out[4 * N];
    uint32_t seed = (uint32_t)(width * 131 + delta * 7 + src + 1);
    for (int i = 0; i < N; i++)
        v[i] = (int)ptx_test_random(&seed);
    CUdeviceptr dv = ptx_test_upload(v, sizeof v), ds = ptx_test_upload(skip, N * sizeof(int)), dout;
    CU_OK(cuMemAlloc_v2(&dout, sizeof out));
    CU_OK(cuMemsetD32_v2(dout, 0xDEADBEEF, 4 * N));
    void *args[] = { &dv, &ds, &dout, &width, &delta, &src };
    run(f, 1, N, args);
    CU_OK(cuMemcpyDtoH_v2(out, dout, sizeof out));
    for (unsigned i = 0; i < N; i++) {
        if (skip[i]) {
            for (int k = 0; k < 4; k++)
                cr_assert_eq((uint32_t)out[4 * i + k], 0xDEADBEEFu, "skipped lane %u wrote", i);
            continue;
        }
        unsigned base = i / 32 * 32, lane = i % 32;
        for (int k = 0; k < 4; k++) {
            int want = shuffle_reference(v, skip, base, lane, k, width, delta, src);
            cr_assert_eq(out[4 * i + k], want,
                         "width %d delta %d src %d: thread %u kind %d got %d, want %d", width,
                         delta, src, i, k, out[4 * i + k], want);
        }
    }
    CU_OK(cuMemFree_v2(dv));
    CU_OK(cuMemFree_v2(ds));
    CU_OK(cuMemFree_v2(dout));
}

Test(ptx_warp_ops, shuffles_of_every_mode_and_width_with_inactive_lanes)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_fixture("warp_ops.ptx");
    CUfunction f = sim_test_kernel(m, "shuffles");
    int none[64] = { 0 }, some[64], most[64];
    for (int i = 0; i < 64; i++) {
        some[i] = i % 5 == 2 || i == 33;
        most[i] = i % 32 != 7 && i % 32 != 8; /* two lanes a warp left */
    }
    static const int widths[] = { 1, 2, 4, 8, 16, 32 };
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        int width = widths[w];
        static const int deltas[] = { 1, 2, 3, 5, 15, 16, 31 };
        for (size_t d = 0; d < sizeof deltas / sizeof deltas[0]; d++) {
            int src = (int)(deltas[d] * 3 + w) % 32;
            check_shuffles(f, none, width, deltas[d], src);
            check_shuffles(f, some, width, deltas[d], src);
            check_shuffles(f, most, width, deltas[d], src);
        }
    }
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(ptx_warp_ops, shuffle_reductions_and_a_shuffled_double)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_fixture("warp_ops.ptx");
    enum { N = 256 };
    int v[N], warp_sum[N / 32], all_sum[N];
    uint32_t seed = 99;
    for (int i = 0; i < N; i++)
        v[i] = (int)(ptx_test_random(&seed) % 2000001u) - 1000000;
    CUdeviceptr dv = ptx_test_upload(v, sizeof v), dw = ptx_test_upload(NULL, sizeof warp_sum), da = ptx_test_upload(NULL, sizeof all_sum);
    void *args[] = { &dv, &dw, &da };
    run(sim_test_kernel(m, "shuffle_sums"), 2, 128, args);
    CU_OK(cuMemcpyDtoH_v2(warp_sum, dw, sizeof warp_sum));
    CU_OK(cuMemcpyDtoH_v2(all_sum, da, sizeof all_sum));
    for (int w = 0; w < N / 32; w++) {
        int want = 0;
        for (int l = 0; l < 32; l++)
            want += v[w * 32 + l];
        cr_assert_eq(warp_sum[w], want, "warp %d: %d, want %d", w, warp_sum[w], want);
        for (int l = 0; l < 32; l++)
            cr_assert_eq(all_sum[w * 32 + l], want, "butterfly lane %d of warp %d", l, w);
    }
    double dvals[32], dout[32];
    for (int i = 0; i < 32; i++)
        dvals[i] = (double)(int32_t)ptx_test_random(&seed) / 3.0;
    CUdeviceptr din = ptx_test_upload(dvals, sizeof dvals), dd = ptx_test_upload(NULL, sizeof dout);
    void *dargs[] = { &din, &dd };
    run(sim_test_kernel(m, "shuffle_double"), 1, 32, dargs);
    CU_OK(cuMemcpyDtoH_v2(dout, dd, sizeof dout));
    for (int i = 0; i < 32; i++)
        cr_assert(!memcmp(&dout[i], &dvals[31 - i], 8), "lane %d: %a, want %a", i, dout[i], dvals[31 - i]);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* ---- votes and matches ------------------------------------------------- */

Test(ptx_warp_ops, votes_and_active_mask_in_divergent_code)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_fixture("warp_ops.ptx");
    CUfunction f = sim_test_kernel(m, "votes");
    enum { N = 80 }; /* two full warps and one of 16 lanes */
    uint32_t seed = 7;
    for (int pattern = 0; pattern < 6; pattern++) {
        int sel[N], pred[N];
        uint32_t out[5 * N];
        for (int i = 0; i < N; i++) {
            uint32_t r = ptx_test_random(&seed);
            sel[i] = pattern == 0 ? 1 : pattern == 1 ? i % 3 != 0 : (int)(r & 1);
            pred[i] = pattern == 2 ? 1 : pattern == 3 ? 0 : pattern == 4 ? i % 2 : (int)((r >> 5) % 3);
        }
        CUdeviceptr ds = ptx_test_upload(sel, sizeof sel), dp = ptx_test_upload(pred, sizeof pred), dout = ptx_test_upload(NULL, sizeof out);
        void *args[] = { &ds, &dp, &dout };
        run(f, 1, N, args);
        CU_OK(cuMemcpyDtoH_v2(out, dout, sizeof out));
        for (int w = 0; w < (N + 31) / 32; w++) {
            uint32_t taken = 0, left = 0, yes = 0;
            for (int l = 0; l < 32 && w * 32 + l < N; l++) {
                int i = w * 32 + l;
                if (sel[i])
                    taken |= 1u << l;
                else
                    left |= 1u << l;
                if (sel[i] && pred[i])
                    yes |= 1u << l;
            }
            for (int l = 0; l < 32 && w * 32 + l < N; l++) {
                const uint32_t *o = &out[5 * (w * 32 + l)];
                if (!sel[w * 32 + l]) {
                    cr_assert_eq(o[3], left, "pattern %d warp %d lane %d: else-side mask %#x, want %#x",
                                 pattern, w, l, o[3], left);
                    continue;
                }
                cr_assert_eq(o[0], yes, "pattern %d warp %d lane %d: ballot %#x, want %#x", pattern, w, l,
                             o[0], yes);
                cr_assert_eq(o[1], (uint32_t)(yes == taken), "pattern %d: all", pattern);
                cr_assert_eq(o[2], (uint32_t)(yes != 0), "pattern %d: any", pattern);
                cr_assert_eq(o[3], taken, "pattern %d warp %d lane %d: activemask %#x, want %#x",
                             pattern, w, l, o[3], taken);
                cr_assert_eq(o[4], (uint32_t)(yes == taken || yes == 0), "pattern %d: uni", pattern);
            }
        }
        CU_OK(cuMemFree_v2(ds));
        CU_OK(cuMemFree_v2(dp));
        CU_OK(cuMemFree_v2(dout));
    }
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(ptx_warp_ops, match_any_and_match_all)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_fixture("warp_ops.ptx");
    CUfunction f = sim_test_kernel(m, "matches");
    for (int round = 0; round < 2; round++) {
        int v[32];
        uint32_t out[3 * 32];
        for (int i = 0; i < 32; i++)
            v[i] = round ? -5 : (i * 7) % 5 - (i == 31 ? 100 : 0);
        CUdeviceptr dv = ptx_test_upload(v, sizeof v), dout = ptx_test_upload(NULL, sizeof out);
        void *args[] = { &dv, &dout };
        run(f, 1, 32, args);
        CU_OK(cuMemcpyDtoH_v2(out, dout, sizeof out));
        for (int i = 0; i < 32; i++) {
            uint32_t same = 0;
            for (int j = 0; j < 32; j++)
                same |= (uint32_t)(v[j] == v[i]) << j;
            cr_assert_eq(out[3 * i], same, "round %d lane %d: match.any %#x, want %#x", round, i, out[3 * i], same);
            cr_assert_eq(out[3 * i + 1], round ? 0xFFFFFFFFu : 0u, "round %d lane %d: match.all", round, i);
            cr_assert_eq(out[3 * i + 2], (uint32_t)round, "round %d lane %d: match.all's predicate", round, i);
        }
        CU_OK(cuMemFree_v2(dv));
        CU_OK(cuMemFree_v2(dout));
    }
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* ---- shfl.sync's c operand and predicate (hand-written PTX) ------------ */

/* Lanes whose bit of `on` is clear are predicated off (and left out of the
 * membermask): their d stays 0x7777 and p reads as 9. */
static const char k_shfl_raw[] =
    PTX_HEADER
    ".visible .entry shfl_raw(.param .u64 p_in, .param .u64 p_b, .param .u64 p_c, .param .u64 p_out,\n"
    "\t.param .u32 p_on)\n{\n"
    "\t.reg .b32 %%r<12>;\n\t.reg .b64 %%rd<12>;\n\t.reg .pred %%p<4>;\n"
    "\tld.param.u64 %%rd1, [p_in];\n\tld.param.u64 %%rd2, [p_b];\n\tld.param.u64 %%rd3, [p_c];\n"
    "\tld.param.u64 %%rd4, [p_out];\n\tld.param.u32 %%r5, [p_on];\n"
    "\tmov.u32 %%r1, %%tid.x;\n\tmul.wide.u32 %%rd5, %%r1, 4;\n"
    "\tadd.s64 %%rd6, %%rd1, %%rd5;\n\tld.global.u32 %%r2, [%%rd6];\n"
    "\tadd.s64 %%rd7, %%rd2, %%rd5;\n\tld.global.u32 %%r3, [%%rd7];\n"
    "\tadd.s64 %%rd8, %%rd3, %%rd5;\n\tld.global.u32 %%r4, [%%rd8];\n"
    "\tshr.u32 %%r6, %%r5, %%r1;\n\tand.b32 %%r6, %%r6, 1;\n\tsetp.ne.u32 %%p1, %%r6, 0;\n"
    "\tmov.u32 %%r7, 0x7777;\n\tsetp.ne.u32 %%p2, %%r1, %%r1;\n"
    "\t@%%p1 shfl.sync.%s.b32 %%r7|%%p2, %%r2, %%r3, %%r4, %%r5;\n"
    "\tselp.u32 %%r8, 1, 0, %%p2;\n\t@!%%p1 mov.u32 %%r8, 9;\n"
    "\tmul.wide.u32 %%rd9, %%r1, 8;\n\tadd.s64 %%rd10, %%rd4, %%rd9;\n"
    "\tst.global.u32 [%%rd10], %%r7;\n\tst.global.u32 [%%rd10+4], %%r8;\n\tret;\n}\n";

/* The PTX ISA's definition of shfl.sync for one lane: j and p. */
static int shfl_reference(int mode, int lane, uint32_t b, uint32_t c, int *p)
{
    int bval = (int)(b & 31), clamp = (int)(c & 31), segmask = (int)((c >> 8) & 31);
    int max_lane = (lane & segmask) | (clamp & ~segmask), min_lane = lane & segmask, j;
    switch (mode) {
    case 0: j = lane - bval; *p = j >= max_lane; break;
    case 1: j = lane + bval; *p = j <= max_lane; break;
    case 2: j = lane ^ bval; *p = j <= max_lane; break;
    default: j = min_lane | (bval & ~segmask); *p = j <= max_lane; break;
    }
    return *p ? j : lane;
}

Test(ptx_warp_ops, shfl_c_operand_clamp_segments_and_predicate)
{
    static const char *const modes[] = { "up", "down", "bfly", "idx" };
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    uint32_t seed = 12345;
    for (int mode = 0; mode < 4; mode++) {
        char src[sizeof k_shfl_raw + 16];
        snprintf(src, sizeof src, k_shfl_raw, modes[mode]);
        CUmodule m;
        CU_OK(cuModuleLoadData(&m, src));
        CUfunction f = sim_test_kernel(m, "shfl_raw");
        for (int round = 0; round < 24; round++) {
            int v[32];
            uint32_t b[32], cv[32], out[64];
            /* c: clamp 0..31 with segment masks of the widths CUDA uses,
             * then arbitrary bits (above bit 12 ignored); b above 31 too. */
            uint32_t seg = round < 12 ? (32u - (1u << (round % 6))) << 8 : (ptx_test_random(&seed) & 0x1F00u);
            uint32_t clamp = round % 3 == 0 ? 0 : round % 3 == 1 ? 31 : ptx_test_random(&seed) & 31;
            uint32_t on = round % 4 == 3 ? ptx_test_random(&seed) | 1u : 0xFFFFFFFFu;
            for (int i = 0; i < 32; i++) {
                v[i] = (int)ptx_test_random(&seed);
                b[i] = round >= 18 ? ptx_test_random(&seed) : ptx_test_random(&seed) % 9;
                cv[i] = seg | clamp | (round >= 20 ? ptx_test_random(&seed) & 0xFFFFE000u : 0);
            }
            CUdeviceptr dv = ptx_test_upload(v, sizeof v), db = ptx_test_upload(b, sizeof b), dc = ptx_test_upload(cv, sizeof cv),
                        dout = ptx_test_upload(NULL, sizeof out);
            void *args[] = { &dv, &db, &dc, &dout, &on };
            run(f, 1, 32, args);
            CU_OK(cuMemcpyDtoH_v2(out, dout, sizeof out));
            for (int i = 0; i < 32; i++) {
                if (!((on >> i) & 1)) {
                    cr_assert(out[2 * i] == 0x7777u && out[2 * i + 1] == 9u, "off lane %d changed", i);
                    continue;
                }
                int p;
                int j = shfl_reference(mode, i, b[i], cv[i], &p);
                if (!((on >> j) & 1)) { /* inactive source: own value, p false */
                    j = i;
                    p = 0;
                }
                cr_assert_eq(out[2 * i], (uint32_t)v[j], "%s round %d lane %d: b %u c %#x got %#x want %#x",
                             modes[mode], round, i, b[i], cv[i], out[2 * i], (uint32_t)v[j]);
                cr_assert_eq(out[2 * i + 1], (uint32_t)p, "%s round %d lane %d: p", modes[mode], round, i);
            }
            CU_OK(cuMemFree_v2(dv));
            CU_OK(cuMemFree_v2(db));
            CU_OK(cuMemFree_v2(dc));
            CU_OK(cuMemFree_v2(dout));
        }
        CU_OK(cuModuleUnload(m));
    }
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* ---- redux.sync (sm_80, hand-written) ---------------------------------- */

static const char k_redux[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry redux(.param .u64 p_in, .param .u64 p_out, .param .u32 p_on)\n{\n"
    "\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<12>;\n\t.reg .pred %p<4>;\n"
    "\tld.param.u64 %rd1, [p_in];\n\tld.param.u64 %rd2, [p_out];\n\tld.param.u32 %r5, [p_on];\n"
    "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd5, %r1, 4;\n"
    "\tadd.s64 %rd6, %rd1, %rd5;\n\tld.global.u32 %r2, [%rd6];\n"
    "\tshr.u32 %r6, %r5, %r1;\n\tand.b32 %r6, %r6, 1;\n\tsetp.eq.u32 %p1, %r6, 0;\n"
    "\t@%p1 bra $L_done;\n"
    "\tbar.warp.sync %r5;\n"
    "\tredux.sync.add.s32 %r7, %r2, %r5;\n\tredux.sync.min.s32 %r8, %r2, %r5;\n"
    "\tredux.sync.max.u32 %r9, %r2, %r5;\n\tredux.sync.min.u32 %r10, %r2, %r5;\n"
    "\tredux.sync.xor.b32 %r11, %r2, %r5;\n\tredux.sync.and.b32 %r3, %r2, %r5;\n"
    "\tredux.sync.or.b32 %r4, %r2, %r5;\n\tredux.sync.max.s32 %r6, %r2, %r5;\n"
    "\tmul.wide.u32 %rd9, %r1, 32;\n\tadd.s64 %rd10, %rd2, %rd9;\n"
    "\tst.global.v4.u32 [%rd10], {%r7, %r8, %r9, %r10};\n"
    "\tst.global.v4.u32 [%rd10+16], {%r11, %r3, %r4, %r6};\n"
    "$L_done:\n\tret;\n}\n";

Test(ptx_warp_ops, redux_sync_over_the_lanes_of_the_mask)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, k_redux));
    CUfunction f = sim_test_kernel(m, "redux");
    uint32_t seed = 4242;
    for (int round = 0; round < 4; round++) {
        int32_t v[32];
        uint32_t out[8 * 32];
        uint32_t on = round == 0 ? 0xFFFFFFFFu : round == 1 ? 1u : ptx_test_random(&seed);
        for (int i = 0; i < 32; i++)
            v[i] = round == 3 && i == 4 ? INT_MIN : (int32_t)ptx_test_random(&seed);
        CUdeviceptr dv = ptx_test_upload(v, sizeof v), dout = ptx_test_upload(NULL, sizeof out);
        void *args[] = { &dv, &dout, &on };
        run(f, 1, 32, args);
        CU_OK(cuMemcpyDtoH_v2(out, dout, sizeof out));
        uint32_t add = 0, umax = 0, umin = UINT32_MAX, x = 0, a = UINT32_MAX, o = 0;
        int32_t smin = INT32_MAX, smax = INT32_MIN;
        for (int i = 0; i < 32; i++) {
            if (!((on >> i) & 1))
                continue;
            uint32_t u = (uint32_t)v[i];
            add += u;
            umax = u > umax ? u : umax;
            umin = u < umin ? u : umin;
            smin = v[i] < smin ? v[i] : smin;
            smax = v[i] > smax ? v[i] : smax;
            x ^= u;
            a &= u;
            o |= u;
        }
        uint32_t want[8] = { add, (uint32_t)smin, umax, umin, x, a, o, (uint32_t)smax };
        for (int i = 0; i < 32; i++)
            for (int k = 0; k < 8; k++)
                cr_assert_eq(out[8 * i + k], (on >> i) & 1 ? want[k] : 0u, "round %d lane %d op %d: %#x, want %#x",
                             round, i, k, out[8 * i + k], (on >> i) & 1 ? want[k] : 0u);
        CU_OK(cuMemFree_v2(dv));
        CU_OK(cuMemFree_v2(dout));
    }
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* ---- atomics ----------------------------------------------------------- */

/* n increments (atomicInc) or decrements (atomicDec) of a word starting at
 * `start`, one after the other, with the values each one found. */
static uint32_t inc_dec_sequence(bool inc, uint32_t start, uint32_t bound, unsigned n, uint32_t *olds)
{
    uint32_t v = start;
    for (unsigned k = 0; k < n; k++) {
        if (olds)
            olds[k] = v;
        if (inc)
            v = v >= bound ? 0 : v + 1;
        else
            v = v == 0 || v > bound ? bound : v - 1;
    }
    return v;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

Test(ptx_warp_ops, integer_atomics_of_every_operation_on_global_memory)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_fixture("atomics.ptx");
    CUfunction f = sim_test_kernel(m, "atomic_ints");
    enum { N = 256 };
    /* bound, and where inc and dec start: below, at and above the bound. */
    static const uint32_t cases[][3] = {
        { 4, 0, 0 }, { 4, 4, 4 }, { 4, 5, 5 }, { 0, 0, 0 }, { 0, 1, 1 },
        { 255, 250, 3 }, { 256, 0, 256 }, { UINT32_MAX, UINT32_MAX - 3, 2 },
    };
    uint32_t seed = 3;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint32_t bound = cases[k][0];
        int32_t v[N];
        for (int i = 0; i < N; i++)
            v[i] = (int32_t)ptx_test_random(&seed);
        v[17] = INT_MIN;
        v[200] = INT_MAX;
        int32_t g[12] = { INT_MIN, INT_MAX, 0, -1, -1, 0, 0x5A5A5A5A, 0, (int32_t)cases[k][1],
                          (int32_t)cases[k][2], -1, 0 };
        CUdeviceptr dv = ptx_test_upload(v, sizeof v), dg = ptx_test_upload(g, sizeof g), dold = ptx_test_upload(NULL, N * 4);
        void *args[] = { &dv, &dg, &dold, &bound };
        run(f, 2, N / 2, args);
        int32_t got[12];
        uint32_t olds[N], want_olds[N];
        CU_OK(cuMemcpyDtoH_v2(got, dg, sizeof got));
        CU_OK(cuMemcpyDtoH_v2(olds, dold, sizeof olds));
        int32_t smax = INT_MIN, smin = INT_MAX, x = 0x5A5A5A5A, and = -1;
        uint32_t umax = 0, umin = UINT32_MAX, sum = 0;
        for (int i = 0; i < N; i++) {
            smax = v[i] > smax ? v[i] : smax;
            smin = v[i] < smin ? v[i] : smin;
            umax = (uint32_t)v[i] > umax ? (uint32_t)v[i] : umax;
            umin = (uint32_t)v[i] < umin ? (uint32_t)v[i] : umin;
            and &= v[i] | 0x0f0f0f0f;
            x ^= v[i];
            sum += (uint32_t)v[i];
        }
        cr_assert_eq(got[0], smax);
        cr_assert_eq(got[1], smin);
        cr_assert_eq((uint32_t)got[2], umax);
        cr_assert_eq((uint32_t)got[3], umin);
        cr_assert_eq(got[4], and);
        cr_assert_eq((uint32_t)got[5], 0xFFFFFFFFu);
        cr_assert_eq(got[6], x);
        cr_assert_eq((uint32_t)got[7], sum);
        uint32_t inc_final = inc_dec_sequence(true, cases[k][1], bound, N, want_olds);
        cr_assert_eq((uint32_t)got[8], inc_final, "case %zu: inc ends at %u, want %u", k, (uint32_t)got[8], inc_final);
        qsort(olds, N, 4, compare_u32);
        qsort(want_olds, N, 4, compare_u32);
        cr_assert(!memcmp(olds, want_olds, sizeof olds), "case %zu: the values atomicInc returned", k);
        uint32_t dec_final = inc_dec_sequence(false, cases[k][2], bound, N, NULL);
        cr_assert_eq((uint32_t)got[9], dec_final, "case %zu: dec ends at %u, want %u", k, (uint32_t)got[9], dec_final);
        cr_assert(got[10] >= 0 && got[10] < N, "exch left %d", got[10]);
        cr_assert_eq((uint32_t)got[11], 0u - sum);
        CU_OK(cuMemFree_v2(dv));
        CU_OK(cuMemFree_v2(dg));
        CU_OK(cuMemFree_v2(dold));
    }
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(ptx_warp_ops, wide_atomics_and_double_add)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_fixture("atomics.ptx");
    enum { N = 192 };
    int64_t v[N];
    double dv[N];
    uint32_t seed = 77;
    double dsum = 0.5;
    for (int i = 0; i < N; i++) {
        v[i] = (int64_t)(((uint64_t)ptx_test_random(&seed) << 32) | ptx_test_random(&seed));
        dv[i] = (double)(int)(ptx_test_random(&seed) % 4001u - 2000u) * 0.25; /* exact sums */
        dsum += dv[i];
    }
    v[5] = INT64_MIN;
    v[6] = INT64_MAX;
    uint64_t g[9] = { (uint64_t)INT64_MIN, (uint64_t)INT64_MAX, 0, UINT64_MAX, UINT64_MAX, 0, 0, 0, UINT64_MAX };
    double start = 0.5;
    CUdeviceptr dvv = ptx_test_upload(v, sizeof v), dg = ptx_test_upload(g, sizeof g), ds = ptx_test_upload(&start, 8), ddv = ptx_test_upload(dv, sizeof dv);
    void *args[] = { &dvv, &dg, &ds, &ddv };
    run(sim_test_kernel(m, "atomic_wide"), 3, N / 3, args);
    uint64_t got[9];
    double gsum;
    CU_OK(cuMemcpyDtoH_v2(got, dg, sizeof got));
    CU_OK(cuMemcpyDtoH_v2(&gsum, ds, 8));
    int64_t smax = INT64_MIN, smin = INT64_MAX;
    uint64_t umax = 0, umin = UINT64_MAX, and = UINT64_MAX, x = 0, sum = 0;
    for (int i = 0; i < N; i++) {
        smax = v[i] > smax ? v[i] : smax;
        smin = v[i] < smin ? v[i] : smin;
        umax = (uint64_t)v[i] > umax ? (uint64_t)v[i] : umax;
        umin = (uint64_t)v[i] < umin ? (uint64_t)v[i] : umin;
        and &= (uint64_t)v[i] | 0x0f0f0f0f0f0f0f0full;
        x ^= (uint64_t)v[i];
        sum += (uint64_t)v[i];
    }
    cr_assert_eq((int64_t)got[0], smax);
    cr_assert_eq((int64_t)got[1], smin);
    cr_assert_eq(got[2], umax);
    cr_assert_eq(got[3], umin);
    cr_assert_eq(got[4], and);
    cr_assert_eq(got[5], UINT64_MAX);
    cr_assert_eq(got[6], x);
    cr_assert_eq(got[7], sum);
    cr_assert(got[8] < N, "exch left %llu", (unsigned long long)got[8]);
    cr_assert(gsum == dsum, "double sum %.17g, want %.17g", gsum, dsum);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

static float as_float(int32_t i)
{
    float f;
    memcpy(&f, &i, 4);
    return f;
}

Test(ptx_warp_ops, cas_loops_float_add_and_exchange)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_fixture("atomics.ptx");
    enum { N = 320 };
    float v[N], fmax = -1e30f, fsum = 0;
    uint32_t seed = 5;
    for (int i = 0; i < N; i++) {
        v[i] = (float)(int)(ptx_test_random(&seed) % 20001u - 10000u) * 0.5f; /* exact sums */
        fmax = v[i] > fmax ? v[i] : fmax;
        fsum += v[i];
    }
    float start_max = -1e30f, zero = 0;
    unsigned long long counter = 1000;
    CUdeviceptr dv = ptx_test_upload(v, sizeof v), dmax = ptx_test_upload(&start_max, 4), dcount = ptx_test_upload(&counter, 8),
                dsum = ptx_test_upload(&zero, 4), dx = ptx_test_upload(&zero, 4);
    void *args[] = { &dv, &dmax, &dcount, &dsum, &dx };
    run(sim_test_kernel(m, "atomic_cas"), 5, N / 5, args);
    int32_t gmax;
    float gsum, gx;
    CU_OK(cuMemcpyDtoH_v2(&gmax, dmax, 4));
    CU_OK(cuMemcpyDtoH_v2(&counter, dcount, 8));
    CU_OK(cuMemcpyDtoH_v2(&gsum, dsum, 4));
    CU_OK(cuMemcpyDtoH_v2(&gx, dx, 4));
    cr_assert(as_float(gmax) == fmax, "CAS max %g, want %g", (double)as_float(gmax), (double)fmax);
    cr_assert_eq(counter, 1000ull + N);
    cr_assert(gsum == fsum, "float sum %g, want %g", (double)gsum, (double)fsum);
    bool found = false;
    for (int i = 0; i < N; i++)
        found |= memcmp(&gx, &v[i], 4) == 0;
    cr_assert(found, "exchange left %g, no thread's value", (double)gx);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(ptx_warp_ops, shared_memory_atomics)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_fixture("atomics.ptx");
    CUfunction f = sim_test_kernel(m, "atomic_shared");
    enum { N = 128 };
    uint32_t seed = 11;
    static const uint32_t bounds[] = { 0, 1, 5, 127, 128, 1000 };
    for (size_t k = 0; k < sizeof bounds / sizeof bounds[0]; k++) {
        int32_t v[N], out[12];
        for (int i = 0; i < N; i++)
            v[i] = (int32_t)ptx_test_random(&seed);
        uint32_t bound = bounds[k];
        CUdeviceptr dv = ptx_test_upload(v, sizeof v), dout = ptx_test_upload(NULL, sizeof out);
        void *args[] = { &dv, &dout, &bound };
        run(f, 1, N, args);
        CU_OK(cuMemcpyDtoH_v2(out, dout, sizeof out));
        int32_t smax = 0, smin = INT_MAX, and = -1, sum = 0;
        int64_t wsum = 0;
        for (int i = 0; i < N; i++) {
            smax = v[i] > smax ? v[i] : smax;
            smin = v[i] < smin ? v[i] : smin;
            sum = (int32_t)((uint32_t)sum + (uint32_t)v[i]);
            and &= v[i] | 0x00ff00ff;
            wsum += v[i];
        }
        cr_assert_eq(out[0], smax);
        cr_assert_eq(out[1], smin);
        cr_assert_eq(out[2], sum);
        cr_assert_eq(out[3], and);
        cr_assert_eq((uint32_t)out[4], inc_dec_sequence(true, 0, bound, N, NULL), "bound %u: inc", bound);
        cr_assert_eq((uint32_t)out[5], inc_dec_sequence(false, 0, bound, N, NULL), "bound %u: dec", bound);
        /* Thread t swaps t for t + 1 only when it finds t: lanes run lowest
         * first, so the chain 0 -> 1 -> ... runs to the end. */
        cr_assert_eq(out[6], N);
        bool found = false;
        for (int i = 0; i < N; i++)
            found |= out[7] == v[i];
        cr_assert(found);
        uint64_t w0 = (uint32_t)out[8] | (uint64_t)(uint32_t)out[9] << 32;
        uint64_t w1 = (uint32_t)out[10] | (uint64_t)(uint32_t)out[11] << 32;
        cr_assert_eq(w0, (uint64_t)wsum);
        cr_assert_eq(w1, (uint64_t)N);
        CU_OK(cuMemFree_v2(dv));
        CU_OK(cuMemFree_v2(dout));
    }
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(ptx_warp_ops, misaligned_or_out_of_range_atomics_fault)
{
    static const long long offsets[] = { 2, 1, 64, -4 };
    /* Each round faults in a context of its own, in one process:
     * "sticky_scope": "context", else the first fault poisons the process
     * (the CUDA face's default) and no later round can make a context. */
    for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++) {
        sim_test_init("{\"sticky_scope\":\"context\"}");
        CUcontext c = sim_test_ctx(0);
        CUmodule m = load_fixture("atomics.ptx");
        CUfunction f = sim_test_kernel(m, "atomic_at");
        CUdeviceptr d = ptx_test_upload(NULL, 64);
        long long off = 4;
        void *args[] = { &d, &off };
        run(f, 1, 3, args);
        uint32_t word;
        CU_OK(cuMemcpyDtoH_v2(&word, d + 4, 4));
        cr_assert_eq(word, 3u);
        off = offsets[k];
        CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
        /* Misaligned (offsets 2 and 1): 716; out of range: 700. */
        CU_IS(cuCtxSynchronize(), offsets[k] == 2 || offsets[k] == 1 ? CUDA_ERROR_MISALIGNED_ADDRESS
                                                                     : CUDA_ERROR_ILLEGAL_ADDRESS);
        CU_OK(cuCtxDestroy_v2(c));
    }
}

/* red (no result) and generic-address atom, hand-written: nvcc writes atom
 * even where the result is unused. */
static const char k_red[] =
    PTX_HEADER
    ".shared .align 8 .b8 sh[16];\n"
    ".visible .entry reds(.param .u64 p_g, .param .u64 p_out, .param .u32 p_bound)\n{\n"
    "\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<12>;\n\t.reg .f64 %fd<3>;\n\t.reg .f32 %f<3>;\n\t.reg .pred %p<2>;\n"
    "\tld.param.u64 %rd1, [p_g];\n\tld.param.u64 %rd2, [p_out];\n\tld.param.u32 %r9, [p_bound];\n"
    "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r3, sh;\n"
    "\tsetp.ne.u32 %p1, %r1, 0;\n"
    "\t@%p1 bra $L_go;\n\tst.shared.u32 [%r3], 0;\n\tst.shared.u32 [%r3+4], 0;\n"
    "\tst.shared.f32 [%r3+8], 0f00000000;\n$L_go:\n\tbar.sync 0;\n"
    "\tadd.s32 %r2, %r1, 1;\n"
    "\tred.global.add.u32 [%rd1], %r2;\n"
    "\tred.global.max.s32 [%rd1+4], %r2;\n"
    "\tred.relaxed.gpu.global.inc.u32 [%rd1+8], %r9;\n"
    "\tred.global.or.b64 [%rd1+16], 3;\n"
    "\tcvt.rn.f64.u32 %fd1, %r2;\n\tred.global.add.f64 [%rd1+24], %fd1;\n"
    "\tred.shared.add.u32 [%r3], %r2;\n\tred.shared.dec.u32 [%r3+4], %r9;\n"
    "\tmov.f32 %f1, 0f00000001;\n\tred.shared.add.f32 [%r3+8], %f1;\n"
    "\tred.global.add.f32 [%rd1+32], %f1;\n"
        "\tcvt.u64.u32 %rd4, %r3;\n\tcvta.shared.u64 %rd5, %rd4;\n"
    "\tatom.add.u32 %r4, [%rd5], 0;\n\tatom.exch.b32 %r5, [%rd1+36], %r2;\n"
    "\tbar.sync 0;\n"
    "\t@%p1 bra $L_end;\n"
    "\tld.shared.u32 %r6, [%r3];\n\tld.shared.u32 %r7, [%r3+4];\n\tld.shared.u32 %r8, [%r3+8];\n"
    "\tst.global.u32 [%rd2], %r6;\n\tst.global.u32 [%rd2+4], %r7;\n\tst.global.u32 [%rd2+8], %r8;\n"
    "\tst.global.u32 [%rd2+12], %r4;\n"
    "$L_end:\n\tret;\n}\n";

Test(ptx_warp_ops, red_without_result_and_float_adds_at_subnormals)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, k_red));
    CUfunction f = sim_test_kernel(m, "reds");
    enum { N = 40 };
    struct { uint32_t sum, max, inc, pad; uint64_t bits; double d; float f; int32_t x; } g = { 0, 0, 0, 0, 8, 0.25, 0, -1 };
    uint32_t out[4] = { 0 }, bound = 6;
    CUdeviceptr dg = ptx_test_upload(&g, sizeof g), dout = ptx_test_upload(NULL, sizeof out);
    void *args[] = { &dg, &dout, &bound };
    run(f, 1, N, args);
    CU_OK(cuMemcpyDtoH_v2(&g, dg, sizeof g));
    CU_OK(cuMemcpyDtoH_v2(out, dout, sizeof out));
    cr_assert_eq(g.sum, N * (N + 1) / 2);
    cr_assert_eq(g.max, (uint32_t)N);
    cr_assert_eq(g.inc, inc_dec_sequence(true, 0, bound, N, NULL));
    cr_assert_eq(g.bits, 11u);
    cr_assert(g.d == 0.25 + N * (N + 1) / 2, "f64 red %g", g.d);
    /* f32 add on global memory flushes subnormals; on shared it does not. */
    uint32_t gf;
    memcpy(&gf, &g.f, 4);
    cr_assert_eq(gf, 0u, "global f32 add of the smallest subnormal: %#x", gf);
    cr_assert(g.x >= 1 && g.x <= N);
    cr_assert_eq(out[0], N * (N + 1) / 2);
    cr_assert_eq(out[1], inc_dec_sequence(false, 0, bound, N, NULL));
    cr_assert_eq(out[2], (uint32_t)N, "shared f32 add: %#x, want %d smallest subnormals", out[2], N);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* ---- forms refused at load --------------------------------------------- */

Test(ptx_warp_ops, unimplemented_forms_are_refused_at_load)
{
    static const struct { const char *insn, *why; } cases[] = {
        { "atom.global.inc.u64 %rd1, [%rd2], %rd3;", "this operation does not take this type" },
        { "atom.global.cas.b32 %r1, [%rd2], %r2;", "wrong number of operands" },
        { "atom.global.add.u32 %r1, [%rd2], %r2, %r3;", "wrong number of operands" },
        { "atom.global.add.f16 %r1, [%rd2], %r2;", "not supported" },
        { "atom.global.u32 %r1, [%rd2], %r2;", "no operation" },
        { "red.global.cas.b32 [%rd2], %r2;", "red has no .cas" },
        { "shfl.sync.down.b64 %rd1, %rd2, 1, 31, -1;", "shfl takes .b32" },
        { "shfl.down.b32 %r1, %r2, 1, 31;", "only the .sync forms" },
        { "shfl.sync.b32 %r1, %r2, 1, 31, -1;", "no mode" },
        { "shfl.sync.idx.b32 %r1, %r2, [%rd1], 31, -1;", "operand 3 must be a register or a constant" },
        { "vote.all.pred %p1, %p2;", "only the .sync forms" },
        { "vote.sync.ballot.pred %p1, %p2, -1;", "vote.ballot takes .b32" },
        { "add.s32 %r1|%p1, %r2, %r3;", "operand form not supported" },
        { "match.any.sync.b32 %r1|%p1, %r2, -1;", "d|p) is not allowed here" },
        { "redux.sync.add.u64 %rd1, %rd2, -1;", "this operation does not take this type" },
        { "activemask.b64 %rd1;", "activemask takes .b32" },
    };
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char src[512];
        snprintf(src, sizeof src,
                 PTX_HEADER ".visible .entry k()\n{\n\t.reg .b32 %%r<4>;\n\t.reg .b64 %%rd<4>;\n"
                 "\t.reg .pred %%p<3>;\n\t%s\n\tret;\n}\n",
                 cases[k].insn);
        CUmodule m;
        CU_IS(cuModuleLoadData(&m, src), CUDA_ERROR_INVALID_IMAGE);
        const char *detail = gg_sim_last_error_detail();
        cr_assert(strstr(detail, "PTX line 9") && strstr(detail, cases[k].why), "%s: %s", cases[k].insn, detail);
    }
    CU_OK(cuCtxDestroy_v2(c));
}

/* Global atomics are host atomics: launches on two streams (two worker
 * threads) adding to the same words at the same time lose no update. */
static const char k_hammer[] =
    PTX_HEADER
    ".visible .entry hammer(.param .u64 p_g, .param .u32 p_n)\n{\n"
    "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<2>;\n"
    "\tld.param.u64 %rd1, [p_g];\n\tld.param.u32 %r2, [p_n];\n\tmov.u32 %r1, 0;\n"
    "$L_loop:\n\tatom.global.add.u32 %r3, [%rd1], 1;\n\tred.global.add.u64 [%rd1+8], 3;\n"
    "\tatom.global.inc.u32 %r3, [%rd1+16], -1;\n"
    "\tadd.u32 %r1, %r1, 1;\n\tsetp.lt.u32 %p1, %r1, %r2;\n\t@%p1 bra.uni $L_loop;\n\tret;\n}\n";

Test(ptx_warp_ops, global_atomics_from_concurrent_streams_lose_no_update)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1); /* no watchdog */
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, k_hammer));
    CUfunction f = sim_test_kernel(m, "hammer");
    CUdeviceptr g = ptx_test_upload(NULL, 24);
    unsigned n = 4000;
    void *args[] = { &g, &n };
    CUstream s[2];
    enum { LAUNCHES = 3, BLOCKS = 4, THREADS = 64 };
    for (int i = 0; i < 2; i++)
        CU_OK(cuStreamCreate(&s[i], 0));
    for (int l = 0; l < LAUNCHES; l++)
        for (int i = 0; i < 2; i++)
            CU_OK(cuLaunchKernel(f, BLOCKS, 1, 1, THREADS, 1, 1, 0, s[i], args, NULL));
    CU_OK(cuCtxSynchronize());
    struct { uint32_t add, pad; uint64_t red; uint32_t inc, pad2; } got;
    CU_OK(cuMemcpyDtoH_v2(&got, g, sizeof got));
    uint64_t total = 2ull * LAUNCHES * BLOCKS * THREADS * n;
    cr_assert_eq(got.add, (uint32_t)total);
    cr_assert_eq(got.red, 3 * total);
    cr_assert_eq(got.inc, (uint32_t)total); /* bound UINT32_MAX: never wraps here */
    for (int i = 0; i < 2; i++)
        CU_OK(cuStreamDestroy_v2(s[i]));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* %lanemask_{eq,le,lt,ge,gt} per lane, and the block's shared memory sizes:
 * %dynamic_smem_size the launch's dynamic bytes, %total_smem_size those
 * and the static ones (64 here, the dynamic part starting at that offset).
 * numba reads %dynamic_smem_size for its dynamic shared arrays. */
Test(ptx_warp_ops, lane_masks_and_shared_memory_sizes)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    static const char src[] =
        ".version 7.0\n.target sm_75\n.address_size 64\n"
        ".visible .entry sizes(.param .u64 out)\n{\n"
        "\t.shared .align 4 .b8 fixed[64];\n"
        "\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<4>;\n"
        "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tmul.lo.u32 %r2, %r1, 28;\n"
        "\tcvt.u64.u32 %rd2, %r2;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
        "\tmov.u32 %r3, %lanemask_eq;\n\tst.global.u32 [%rd3], %r3;\n"
        "\tmov.u32 %r4, %lanemask_le;\n\tst.global.u32 [%rd3+4], %r4;\n"
        "\tmov.u32 %r5, %lanemask_lt;\n\tst.global.u32 [%rd3+8], %r5;\n"
        "\tmov.u32 %r6, %lanemask_ge;\n\tst.global.u32 [%rd3+12], %r6;\n"
        "\tmov.u32 %r7, %lanemask_gt;\n\tst.global.u32 [%rd3+16], %r7;\n"
        "\tmov.u32 %r8, %dynamic_smem_size;\n\tst.global.u32 [%rd3+20], %r8;\n"
        "\tmov.u32 %r9, %total_smem_size;\n\tst.global.u32 [%rd3+24], %r9;\n"
        "\tst.shared.u32 [fixed], %r9;\n\tret;\n}\n";
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, src));
    enum { THREADS = 40 };
    CUdeviceptr out;
    CU_OK(cuMemAlloc_v2(&out, THREADS * 28));
    void *args[] = { &out };
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "sizes"), 1, 1, 1, THREADS, 1, 1, 100, NULL, args, NULL));
    uint32_t got[THREADS * 7];
    CU_OK(cuMemcpyDtoH_v2(got, out, sizeof got));
    for (unsigned t = 0; t < THREADS; t++) {
        unsigned lane = t % 32;
        uint32_t eq = 1u << lane, lt = eq - 1, le = lt | eq;
        const uint32_t *g = got + 7 * t;
        cr_assert_eq(g[0], eq, "thread %u: lanemask_eq 0x%x", t, g[0]);
        cr_assert_eq(g[1], le, "thread %u: lanemask_le 0x%x", t, g[1]);
        cr_assert_eq(g[2], lt, "thread %u: lanemask_lt 0x%x", t, g[2]);
        cr_assert_eq(g[3], ~lt, "thread %u: lanemask_ge 0x%x", t, g[3]);
        cr_assert_eq(g[4], ~le, "thread %u: lanemask_gt 0x%x", t, g[4]);
        cr_assert_eq(g[5], 100u, "thread %u: dynamic_smem_size %u", t, g[5]);
        cr_assert_eq(g[6], 164u, "thread %u: total_smem_size %u", t, g[6]);
    }
    CU_OK(cuMemFree_v2(out));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
}

/* bar.red over a block of 80 threads (three warps, the last partial):
 * popc counts the threads whose predicate holds, and/or say whether all or
 * any do (numba's syncthreads_count, _and, _or), with a negated predicate
 * too; every thread gets the block's answer. Thread t's predicate is
 * t % 3 == 0 (27 of 80), then t < 80 (all), then t == 1000 (none). */
Test(ptx_warp_ops, bar_red_reduces_a_predicate_over_the_block)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    static const char src[] =
        ".version 7.0\n.target sm_75\n.address_size 64\n"
        ".visible .entry reds(.param .u64 out)\n{\n"
        "\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<10>;\n"
        "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tmul.lo.u32 %r2, %r1, 24;\n"
        "\tcvt.u64.u32 %rd2, %r2;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
        "\trem.u32 %r3, %r1, 3;\n\tsetp.eq.u32 %p1, %r3, 0;\n"
        "\tsetp.lt.u32 %p2, %r1, 80;\n\tsetp.eq.u32 %p3, %r1, 1000;\n"
        "\tbar.red.popc.u32 %r4, 0, %p1;\n\tst.global.u32 [%rd3], %r4;\n"
        "\tbar.red.popc.u32 %r5, 0, !%p1;\n\tst.global.u32 [%rd3+4], %r5;\n"
        "\tbar.red.and.pred %p4, 0, %p2;\n\tselp.u32 %r6, 1, 0, %p4;\n\tst.global.u32 [%rd3+8], %r6;\n"
        "\tbar.red.and.pred %p5, 0, %p1;\n\tselp.u32 %r7, 1, 0, %p5;\n\tst.global.u32 [%rd3+12], %r7;\n"
        "\tbar.red.or.pred %p6, 0, %p3;\n\tselp.u32 %r8, 1, 0, %p6;\n\tst.global.u32 [%rd3+16], %r8;\n"
        "\tbarrier.red.or.pred %p7, 0, 80, %p1;\n\tselp.u32 %r9, 1, 0, %p7;\n\tst.global.u32 [%rd3+20], %r9;\n"
        "\tret;\n}\n";
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, src));
    enum { THREADS = 80 };
    CUdeviceptr out;
    CU_OK(cuMemAlloc_v2(&out, THREADS * 24));
    void *args[] = { &out };
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "reds"), 1, 1, 1, THREADS, 1, 1, 0, NULL, args, NULL));
    uint32_t got[THREADS * 6];
    CU_OK(cuMemcpyDtoH_v2(got, out, sizeof got));
    const uint32_t want[6] = { 27, 53, 1, 0, 0, 1 };
    for (unsigned t = 0; t < THREADS; t++)
        for (int k = 0; k < 6; k++)
            cr_assert_eq(got[6 * t + k], want[k], "thread %u, reduction %d: %u, want %u", t, k, got[6 * t + k],
                         want[k]);
    CU_OK(cuMemFree_v2(out));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
}
