/* Extended-precision arithmetic (add.cc addc sub.cc subc mad.cc madc) run
 * from nvcc's PTX of fixtures/carry.ptx (tests/ptx/kernels/carry.cu),
 * compared with host 128-bit integer arithmetic. */
#include "ptx_test_support.h"
#include "sim_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

TestSuite(ptx_carry, .timeout = 30);

__extension__ typedef unsigned __int128 u128;

static u128 limbs_to_u128(const uint32_t *l)
{
    return (u128)l[0] | (u128)l[1] << 32 | (u128)l[2] << 64 | (u128)l[3] << 96;
}

/* Carries and borrows that ripple through every limb, none at all, and
 * random values: sums and differences wrap at 2^128. */
Test(ptx_carry, add_and_subtract_128_bits_through_four_limbs)
{
    enum { N = 70 };
    static uint32_t a[4 * N], b[4 * N], sum[4 * N], diff[4 * N];
    static const uint32_t edge[][8] = {
        { 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 1, 0, 0, 0 },   /* ripples out: 0 */
        { 0, 0, 0, 0, 1, 0, 0, 0 },                                           /* borrows through: -1 */
        { 0xffffffffu, 0, 0xffffffffu, 0, 1, 0, 1, 0 },                       /* carry into limbs 1 and 3 */
        { 0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u,
          0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u },
        { 5, 6, 7, 8, 5, 6, 7, 8 },                                           /* difference 0 */
        { 0, 1, 0, 0, 1, 0, 0, 0 },                                           /* borrow from limb 1 */
    };
    uint32_t seed = 77;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 4; j++) {
            a[4 * i + j] = i < 6 ? edge[i][j] : ptx_test_random(&seed);
            b[4 * i + j] = i < 6 ? edge[i][4 + j] : ptx_test_random(&seed);
        }
    sim_test_init(NULL);
    CUcontext ctx = sim_test_ctx(0);
    CUmodule mod;
    CUfunction f = ptx_test_load_kernel("carry.ptx", "wide_add_sub", &mod);
    CUdeviceptr da = ptx_test_upload(a, sizeof a), db = ptx_test_upload(b, sizeof b);
    CUdeviceptr ds = ptx_test_upload(NULL, sizeof sum), dd = ptx_test_upload(NULL, sizeof diff);
    int n = N;
    void *args[] = { &da, &db, &ds, &dd, &n };
    ptx_test_run(f, (unsigned[3]){ 3, 1, 1 }, (unsigned[3]){ 32, 1, 1 }, 0, args);
    ptx_test_download(sum, ds, sizeof sum);
    ptx_test_download(diff, dd, sizeof diff);
    for (int i = 0; i < N; i++) {
        u128 x = limbs_to_u128(a + 4 * i), y = limbs_to_u128(b + 4 * i);
        cr_assert(limbs_to_u128(sum + 4 * i) == x + y, "sum %d: limbs %08x %08x %08x %08x", i, sum[4 * i],
                  sum[4 * i + 1], sum[4 * i + 2], sum[4 * i + 3]);
        cr_assert(limbs_to_u128(diff + 4 * i) == x - y, "difference %d: limbs %08x %08x %08x %08x", i,
                  diff[4 * i], diff[4 * i + 1], diff[4 * i + 2], diff[4 * i + 3]);
    }
    CU_OK(cuModuleUnload(mod));
    CU_OK(cuCtxDestroy_v2(ctx));
    sim_test_assert_no_leaks();
}

/* 64 x 64 -> 128 bits from 32-bit mad.lo.cc / madc.hi(.cc), and a 64-bit
 * add.cc / addc of the two halves. */
Test(ptx_carry, multiply_64_by_64_bits_with_mad_cc_and_madc)
{
    enum { N = 40 };
    static uint64_t a[N], b[N], out[4 * N];
    static const uint64_t edge[][2] = { { UINT64_MAX, UINT64_MAX }, { UINT64_MAX, 1 }, { 0, UINT64_MAX },
                                        { 0xffffffffull, 0xffffffffull }, { 1ull << 63, 2 },
                                        { 0x00000001ffffffffull, 0xffffffff00000001ull } };
    uint32_t seed = 5;
    for (int i = 0; i < N; i++) {
        a[i] = i < 6 ? edge[i][0] : (uint64_t)ptx_test_random(&seed) << 32 | ptx_test_random(&seed);
        b[i] = i < 6 ? edge[i][1] : (uint64_t)ptx_test_random(&seed) << 32 | ptx_test_random(&seed);
    }
    sim_test_init(NULL);
    CUcontext ctx = sim_test_ctx(0);
    CUmodule mod;
    CUfunction f = ptx_test_load_kernel("carry.ptx", "wide_mul", &mod);
    CUdeviceptr da = ptx_test_upload(a, sizeof a), db = ptx_test_upload(b, sizeof b);
    CUdeviceptr dout = ptx_test_upload(NULL, sizeof out);
    int n = N;
    void *args[] = { &da, &db, &dout, &n };
    ptx_test_run(f, (unsigned[3]){ 2, 1, 1 }, (unsigned[3]){ 32, 1, 1 }, 0, args);
    ptx_test_download(out, dout, sizeof out);
    for (int i = 0; i < N; i++) {
        u128 p = (u128)a[i] * b[i];
        uint64_t lo = (uint64_t)p, hi = (uint64_t)(p >> 64);
        u128 halves = (u128)lo + hi;
        cr_assert(out[4 * i] == lo && out[4 * i + 1] == hi, "%d: %016llx * %016llx = %016llx:%016llx, got %016llx:%016llx",
                  i, (unsigned long long)a[i], (unsigned long long)b[i], (unsigned long long)hi,
                  (unsigned long long)lo, (unsigned long long)out[4 * i + 1], (unsigned long long)out[4 * i]);
        cr_assert(out[4 * i + 2] == (uint64_t)halves && out[4 * i + 3] == (uint64_t)(halves >> 64),
                  "%d: add.cc/addc.u64 of the halves", i);
    }
    CU_OK(cuModuleUnload(mod));
    CU_OK(cuCtxDestroy_v2(ctx));
    sim_test_assert_no_leaks();
}

/* A lane whose guard is false leaves its carry as it was: odd lanes see the
 * carry of the first add.cc (a == 0xffffffff), even lanes the second's
 * (a >= 0x80000000). */
Test(ptx_carry, a_guarded_off_lane_keeps_its_carry)
{
    enum { N = 64 };
    static uint32_t a[N], out[N];
    static const uint32_t values[] = { 0xffffffffu, 0x80000000u, 0x7fffffffu, 0, 0xfffffffeu };
    for (int i = 0; i < N; i++)
        a[i] = values[(i / 2) % 5];
    sim_test_init(NULL);
    CUcontext ctx = sim_test_ctx(0);
    CUmodule mod;
    CUfunction f = ptx_test_load_kernel("carry.ptx", "guarded_carry", &mod);
    CUdeviceptr da = ptx_test_upload(a, sizeof a), dout = ptx_test_upload(NULL, sizeof out);
    int n = N;
    void *args[] = { &da, &dout, &n };
    ptx_test_run(f, (unsigned[3]){ 1, 1, 1 }, (unsigned[3]){ N, 1, 1 }, 0, args);
    ptx_test_download(out, dout, sizeof out);
    for (int i = 0; i < N; i++) {
        uint32_t want = (i & 1) ? a[i] == 0xffffffffu : a[i] >= 0x80000000u;
        cr_assert_eq(out[i], want, "lane %d, a = 0x%08x: carry %u, want %u", i, a[i], out[i], want);
    }
    CU_OK(cuModuleUnload(mod));
    CU_OK(cuCtxDestroy_v2(ctx));
    sim_test_assert_no_leaks();
}
