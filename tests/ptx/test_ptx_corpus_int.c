/* The integer kernels of the corpus (kernels/corpus_*.cu, see
 * test_ptx_corpus.c): shared-memory stencils, scans, sorts, atomics, hashing,
 * 64-bit division and 3-D grids, run by the PTX interpreter through the
 * simulator's CUDA face and compared with host C references. Integer
 * arithmetic wraps in PTX: the references compute in unsigned types. */
#include "ptx_test_support.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

TestSuite(ptx_corpus_int, .timeout = 30);

static void run_1d(CUfunction f, unsigned grid, unsigned block, unsigned shared, void **args)
{
    ptx_test_run(f, (unsigned[3]){ grid, 1, 1 }, (unsigned[3]){ block, 1, 1 }, shared, args);
}

Test(ptx_corpus_int, stencil_1d_with_halo_in_shared_memory)
{
    enum { BLOCK = 128, RADIUS = 3, N = 3 * BLOCK + 1 };
    static int32_t in[N], out[N + 1];
    uint32_t seed = 8;
    for (int i = 0; i < N; i++)
        in[i] = (int32_t)ptx_test_random(&seed) >> (i % 24);
    in[0] = INT32_MIN;
    in[BLOCK] = INT32_MAX; /* in the halo of blocks 0 and 1 */
    in[N - 1] = INT32_MIN;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_stencil1d.ptx", "corpus_stencil1d", &ctx, &mod);
    CUdeviceptr din = ptx_test_upload(in, sizeof in), dout = ptx_test_upload(NULL, sizeof out);
    int n = N;
    void *args[] = { &din, &dout, &n };
    run_1d(f, (N + BLOCK - 1) / BLOCK, BLOCK, 0, args);
    ptx_test_download(out, dout, sizeof out);
    for (int i = 0; i < N; i++) {
        uint32_t want = 0;
        for (int off = -RADIUS; off <= RADIUS; off++)
            if (i + off >= 0 && i + off < N)
                want += (uint32_t)in[i + off] * (uint32_t)(off + 4);
        cr_assert_eq(out[i], (int32_t)want, "out[%d] = %d, want %d", i, out[i], (int32_t)want);
    }
    cr_assert_eq(out[N], 0, "wrote past n");
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus_int, block_inclusive_scan_with_a_double_buffer)
{
    enum { BLOCK = 128, N = 2 * BLOCK + 1, BLOCKS = (N + BLOCK - 1) / BLOCK };
    static int32_t in[N], out[N], sums[BLOCKS];
    uint32_t seed = 31;
    for (int i = 0; i < N; i++)
        in[i] = (int32_t)(ptx_test_random(&seed) % 2001u) - 1000;
    in[BLOCK + 5] = INT32_MAX; /* the sums of block 1 wrap */
    in[BLOCK + 9] = INT32_MAX;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_scan.ptx", "corpus_scan", &ctx, &mod);
    CUdeviceptr din = ptx_test_upload(in, sizeof in), dout = ptx_test_upload(NULL, sizeof out);
    CUdeviceptr dsums = ptx_test_upload(NULL, sizeof sums);
    int n = N;
    void *args[] = { &din, &dout, &dsums, &n };
    run_1d(f, BLOCKS, BLOCK, 2 * BLOCK * sizeof(int32_t), args);
    ptx_test_download(out, dout, sizeof out);
    ptx_test_download(sums, dsums, sizeof sums);
    for (int b = 0; b < BLOCKS; b++) {
        uint32_t acc = 0;
        for (int t = 0; t < BLOCK && b * BLOCK + t < N; t++) {
            int i = b * BLOCK + t;
            acc += (uint32_t)in[i];
            cr_assert_eq(out[i], (int32_t)acc, "out[%d] = %d, want %d", i, out[i], (int32_t)acc);
        }
        cr_assert_eq(sums[b], (int32_t)acc, "block %d total %d, want %d", b, sums[b], (int32_t)acc);
    }
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus_int, histogram_with_shared_then_global_atomics)
{
    enum { N = 10007, BINS = 256 };
    static uint8_t data[N];
    static uint32_t hist[BINS], want[BINS];
    uint32_t seed = 4242;
    for (int i = 0; i < N; i++) {
        uint32_t r = ptx_test_random(&seed);
        /* skewed: a quarter are byte 7 (contended atomics), some are 0 and 255 */
        data[i] = (uint8_t)(r % 4u == 0 ? 7u : r % 11u == 0 ? 255u : r % 13u == 0 ? 0u : (r >> 8) & 0xFFu);
        want[data[i]]++;
    }
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_histogram.ptx", "corpus_histogram", &ctx, &mod);
    CUdeviceptr ddata = ptx_test_upload(data, sizeof data), dhist = ptx_test_upload(NULL, sizeof hist);
    int n = N;
    void *args[] = { &ddata, &n, &dhist };
    for (int round = 1; round <= 2; round++) { /* the second launch adds to the first */
        run_1d(f, 4, 192, 0, args); /* a grid-stride loop: 768 threads for 10007 bytes */
        ptx_test_download(hist, dhist, sizeof hist);
        for (int b = 0; b < BINS; b++)
            cr_assert_eq(hist[b], round * want[b], "round %d: bin %d = %u, want %u", round, b, hist[b],
                         round * want[b]);
    }
    ptx_test_end(ctx, mod);
}

static int compare_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

Test(ptx_corpus_int, bitonic_sort_of_1024_ints_in_shared_memory)
{
    enum { SEG = 1024, BLOCKS = 2 };
    static int32_t data[SEG * BLOCKS], want[SEG * BLOCKS];
    uint32_t seed = 17;
    for (int i = 0; i < SEG * BLOCKS; i++)
        data[i] = (int32_t)ptx_test_random(&seed);
    for (int i = 0; i < 40; i++) /* duplicates and extremes */
        data[(i * 97) % (SEG * BLOCKS)] = i % 4 == 0 ? INT32_MIN : i % 4 == 1 ? INT32_MAX : i % 4 == 2 ? 0 : -1;
    for (int i = 0; i < SEG; i++) /* the second segment comes in descending order */
        data[SEG + i] = SEG - i - 500;
    memcpy(want, data, sizeof data);
    for (int b = 0; b < BLOCKS; b++)
        qsort(want + b * SEG, SEG, sizeof *want, compare_int32);
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_bitonic.ptx", "corpus_bitonic", &ctx, &mod);
    CUdeviceptr d = ptx_test_upload(data, sizeof data);
    void *args[] = { &d };
    run_1d(f, BLOCKS, 512, 0, args);
    ptx_test_download(data, d, sizeof data);
    for (int i = 0; i < SEG * BLOCKS; i++)
        cr_assert_eq(data[i], want[i], "data[%d] = %d, want %d", i, data[i], want[i]);
    ptx_test_end(ctx, mod);
}

static uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

Test(ptx_corpus_int, integer_hashing_in_32_and_64_bits)
{
    enum { BLOCK = 64, N = 4 * BLOCK + 1 };
    static uint32_t keys[N], h32[N], fnv[N];
    static uint64_t h64[N];
    uint32_t seed = 555;
    for (int i = 0; i < N; i++)
        keys[i] = ptx_test_random(&seed);
    keys[0] = 0;
    keys[1] = 0xFFFFFFFFu;
    keys[2] = 0x80000000u;
    keys[N - 1] = 0x9e3779b9u; /* the 64-bit key's low half is 0 */
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_hash.ptx", "corpus_hash", &ctx, &mod);
    CUdeviceptr dkeys = ptx_test_upload(keys, sizeof keys), dh32 = ptx_test_upload(NULL, sizeof h32);
    CUdeviceptr dh64 = ptx_test_upload(NULL, sizeof h64), dfnv = ptx_test_upload(NULL, sizeof fnv);
    int n = N;
    void *args[] = { &dkeys, &dh32, &dh64, &dfnv, &n };
    run_1d(f, (N + BLOCK - 1) / BLOCK, BLOCK, 0, args);
    ptx_test_download(h32, dh32, sizeof h32);
    ptx_test_download(h64, dh64, sizeof h64);
    ptx_test_download(fnv, dfnv, sizeof fnv);
    for (int i = 0; i < N; i++) {
        uint32_t k = keys[i];
        cr_assert_eq(h32[i], fmix32(k), "h32[%d] = 0x%08x, want 0x%08x", i, h32[i], fmix32(k));
        uint64_t g = (uint64_t)k << 32 | (k ^ 0x9e3779b9u);
        g ^= g >> 33;
        g *= 0xff51afd7ed558ccdull;
        g ^= g >> 33;
        g *= 0xc4ceb9fe1a85ec53ull;
        g ^= g >> 33;
        cr_assert_eq(h64[i], g, "h64[%d] = 0x%016llx, want 0x%016llx", i, (unsigned long long)h64[i],
                     (unsigned long long)g);
        uint32_t want_fnv = 2166136261u;
        for (int b = 0; b < 4; b++)
            want_fnv = (want_fnv ^ ((k >> (8 * b)) & 0xFFu)) * 16777619u;
        cr_assert_eq(fnv[i], want_fnv, "fnv[%d] = 0x%08x, want 0x%08x", i, fnv[i], want_fnv);
    }
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus_int, stream_compaction_with_a_block_scan_and_an_atomic_base)
{
    enum { BLOCK = 128, N = 5 * BLOCK + 3, BLOCKS = (N + BLOCK - 1) / BLOCK };
    static int32_t in[N], out[N], want[N];
    uint32_t seed = 91;
    int kept = 0;
    const int32_t threshold = 100;
    for (int i = 0; i < N; i++) {
        in[i] = (int32_t)(ptx_test_random(&seed) % 1000u) - 400;
        if (i / BLOCK == 2)
            in[i] = threshold; /* block 2 keeps nothing: not above */
        if (i / BLOCK == 3)
            in[i] = threshold + 1; /* block 3 keeps everything */
        if (in[i] > threshold)
            want[kept++] = i;
    }
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_compact.ptx", "corpus_compact", &ctx, &mod);
    CUdeviceptr din = ptx_test_upload(in, sizeof in), dout = ptx_test_upload(NULL, sizeof out);
    CUdeviceptr dcount = ptx_test_upload(NULL, sizeof(uint32_t));
    int n = N, thr = threshold;
    void *args[] = { &din, &n, &thr, &dout, &dcount };
    run_1d(f, BLOCKS, BLOCK, 0, args);
    uint32_t count;
    ptx_test_download(&count, dcount, sizeof count);
    ptx_test_download(out, dout, sizeof out);
    cr_assert_eq(count, (uint32_t)kept, "count %u, want %d", count, kept);
    /* Within a block's range the indices ascend and are contiguous in the
     * output; the ranges' order depends on the atomics' order. */
    for (int p = 0; p + 1 < kept; p++)
        if (out[p] / BLOCK == out[p + 1] / BLOCK)
            cr_assert_lt(out[p], out[p + 1], "out[%d] = %d before %d", p, out[p], out[p + 1]);
    qsort(out, (size_t)kept, sizeof *out, compare_int32);
    for (int p = 0; p < kept; p++)
        cr_assert_eq(out[p], want[p], "sorted out[%d] = %d, want %d", p, out[p], want[p]);
    ptx_test_end(ctx, mod);
}

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

/* x >> s for a signed 64-bit x as PTX's shr.s64 does it (sign fill),
 * without C's implementation-defined signed shift. */
static uint64_t shift_right_arithmetic(uint64_t x, unsigned s)
{
    return x >> 63 ? ~(~x >> s) : x >> s;
}

Test(ptx_corpus_int, int64_division_remainder_mulhi_and_shifts_at_the_edges)
{
    static const int64_t edges[] = { INT64_MIN, INT64_MAX, -1, 0, 1, 2, -2, 3, -7, 7, INT64_MIN + 1,
                                     (int64_t)1 << 32, -((int64_t)1 << 32), 0xFFFFFFFFll, 1000000007 };
    enum { E = sizeof edges / sizeof edges[0], N = E * E + 40, BLOCK = 64 };
    static int64_t a[N], b[N], sq[N], sr[N], mulhi[N];
    static uint64_t uq[N], ur[N], umulhi[N], shifts[N];
    uint32_t seed = 64;
    for (int i = 0; i < N; i++) {
        if (i < E * E) {
            a[i] = edges[i / E];
            b[i] = edges[i % E];
        } else {
            a[i] = (int64_t)((uint64_t)ptx_test_random(&seed) << 32 | ptx_test_random(&seed));
            b[i] = (int64_t)((uint64_t)ptx_test_random(&seed) << 32 | ptx_test_random(&seed)) >> (i % 60);
        }
    }
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_int64.ptx", "corpus_int64", &ctx, &mod);
    CUdeviceptr da = ptx_test_upload(a, sizeof a), db = ptx_test_upload(b, sizeof b);
    CUdeviceptr dsq = ptx_test_upload(NULL, sizeof sq), dsr = ptx_test_upload(NULL, sizeof sr);
    CUdeviceptr duq = ptx_test_upload(NULL, sizeof uq), dur = ptx_test_upload(NULL, sizeof ur);
    CUdeviceptr dmh = ptx_test_upload(NULL, sizeof mulhi), dumh = ptx_test_upload(NULL, sizeof umulhi);
    CUdeviceptr dsh = ptx_test_upload(NULL, sizeof shifts);
    int n = N;
    void *args[] = { &da, &db, &dsq, &dsr, &duq, &dur, &dmh, &dumh, &dsh, &n };
    run_1d(f, (N + BLOCK - 1) / BLOCK, BLOCK, 0, args);
    ptx_test_download(sq, dsq, sizeof sq);
    ptx_test_download(sr, dsr, sizeof sr);
    ptx_test_download(uq, duq, sizeof uq);
    ptx_test_download(ur, dur, sizeof ur);
    ptx_test_download(mulhi, dmh, sizeof mulhi);
    ptx_test_download(umulhi, dumh, sizeof umulhi);
    ptx_test_download(shifts, dsh, sizeof shifts);
    for (int i = 0; i < N; i++) {
        int64_t x = a[i], y = b[i];
        uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
        int64_t want_q = y == 0 ? 0 : y == -1 ? (int64_t)(0 - ux) : x / y;
        int64_t want_r = y == 0 ? x : y == -1 ? 0 : x % y;
        cr_assert_eq(sq[i], want_q, "%lld / %lld = %lld, want %lld", (long long)x, (long long)y,
                     (long long)sq[i], (long long)want_q);
        cr_assert_eq(sr[i], want_r, "%lld %% %lld = %lld, want %lld", (long long)x, (long long)y,
                     (long long)sr[i], (long long)want_r);
        uint64_t want_uq = uy ? ux / uy : ~0ull, want_ur = uy ? ux % uy : ux;
        cr_assert_eq(uq[i], want_uq, "%llu / %llu = %llu", (unsigned long long)ux, (unsigned long long)uy,
                     (unsigned long long)uq[i]);
        cr_assert_eq(ur[i], want_ur, "%llu %% %llu = %llu", (unsigned long long)ux, (unsigned long long)uy,
                     (unsigned long long)ur[i]);
        int64_t want_mh = (int64_t)(((int128)x * (int128)y) >> 64);
        uint64_t want_umh = (uint64_t)(((uint128)ux * (uint128)uy) >> 64);
        cr_assert_eq(mulhi[i], want_mh, "mul64hi(%lld, %lld) = %lld, want %lld", (long long)x, (long long)y,
                     (long long)mulhi[i], (long long)want_mh);
        cr_assert_eq(umulhi[i], want_umh, "umul64hi(%llu, %llu) = %llu", (unsigned long long)ux,
                     (unsigned long long)uy, (unsigned long long)umulhi[i]);
        unsigned s = (unsigned)(uy & 63u);
        uint64_t want_sh = (ux << s) ^ shift_right_arithmetic(ux, s) ^ (ux >> (63u - s));
        cr_assert_eq(shifts[i], want_sh, "shifts(%llx, %u) = %llx, want %llx", (unsigned long long)ux, s,
                     (unsigned long long)shifts[i], (unsigned long long)want_sh);
    }
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus_int, grid_stride_loop_over_a_3d_grid_of_3d_blocks)
{
    enum { NX = 37, NY = 11, NZ = 7, BX = 8, BY = 4, BZ = 2, GX = 2, GY = 1, GZ = 2 };
    static int32_t in[NX * NY * NZ], out[NX * NY * NZ];
    uint32_t seed = 3;
    for (int i = 0; i < NX * NY * NZ; i++)
        in[i] = (int32_t)ptx_test_random(&seed);
    in[0] = INT32_MIN;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_grid3d.ptx", "corpus_grid3d", &ctx, &mod);
    CUdeviceptr din = ptx_test_upload(in, sizeof in), dout = ptx_test_upload(NULL, sizeof out);
    int nx = NX, ny = NY, nz = NZ;
    void *args[] = { &din, &dout, &nx, &ny, &nz };
    ptx_test_run(f, (unsigned[3]){ GX, GY, GZ }, (unsigned[3]){ BX, BY, BZ }, 0, args);
    ptx_test_download(out, dout, sizeof out);
    for (int z = 0; z < NZ; z++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++) {
                int idx = (z * NY + y) * NX + x;
                /* the thread that writes (x, y, z) has threadIdx = (x % BX, y % BY, z % BZ) */
                uint32_t lane_bits = (uint32_t)(x % BX) ^ (uint32_t)(y % BY) ^ (uint32_t)(z % BZ);
                uint32_t want = (uint32_t)in[idx] * 3u + (uint32_t)x - 2u * (uint32_t)y + 5u * (uint32_t)z + lane_bits;
                cr_assert_eq(out[idx], (int32_t)want, "out(%d,%d,%d) = %d, want %d", x, y, z, out[idx],
                             (int32_t)want);
            }
    ptx_test_end(ctx, mod);
}

Test(ptx_corpus_int, median_3x3_through_a_per_thread_local_array)
{
    enum { W = 29, H = 19, B = 8 };
    static int32_t img[W * H], out[W * H];
    uint32_t seed = 2718;
    for (int i = 0; i < W * H; i++)
        img[i] = (int32_t)(ptx_test_random(&seed) % 64u) - 32; /* many ties */
    img[0] = INT32_MIN;
    img[1] = INT32_MAX;
    img[W] = INT32_MIN;
    img[W * H - 1] = INT32_MAX;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f = ptx_test_begin("corpus_median.ptx", "corpus_median", &ctx, &mod);
    CUdeviceptr dimg = ptx_test_upload(img, sizeof img), dout = ptx_test_upload(NULL, sizeof out);
    int width = W, height = H;
    void *args[] = { &dimg, &dout, &width, &height };
    ptx_test_run(f, (unsigned[3]){ (W + B - 1) / B, (H + B - 1) / B, 1 }, (unsigned[3]){ B, B, 1 }, 0, args);
    ptx_test_download(out, dout, sizeof out);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int32_t v[9];
            int n = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int yy = y + dy < 0 ? 0 : y + dy >= H ? H - 1 : y + dy;
                    int xx = x + dx < 0 ? 0 : x + dx >= W ? W - 1 : x + dx;
                    v[n++] = img[yy * W + xx];
                }
            qsort(v, 9, sizeof *v, compare_int32);
            cr_assert_eq(out[y * W + x], v[4], "median(%d,%d) = %d, want %d", x, y, out[y * W + x], v[4]);
        }
    cr_assert_eq(out[0], INT32_MIN, "the corner's clamped neighbourhood holds INT32_MIN six times");
    ptx_test_end(ctx, mod);
}

static uint32_t rotate_left(uint32_t x, unsigned r)
{
    return x << r | x >> (32u - r);
}

static uint32_t murmur3_of_record(const uint32_t *words, uint32_t seed)
{
    uint32_t h = seed;
    for (int w = 0; w < 4; w++) {
        uint32_t k = rotate_left(words[w] * 0xcc9e2d51u, 15) * 0x1b873593u;
        h = rotate_left(h ^ k, 13) * 5u + 0xe6546b64u;
    }
    return fmix32(h ^ 16u);
}

/* nvcc compiles the shift-pair rotates into shf.l.wrap.b32 (funnel shift):
 * the hashes must match the host's. */
Test(ptx_corpus_int, murmur3_with_rotates_as_funnel_shifts)
{
    enum { BLOCK = 32, N = 2 * BLOCK + 1 };
    static uint32_t records[N * 4], out[N];
    uint32_t rnd = 1234;
    for (int i = 0; i < N * 4; i++)
        records[i] = ptx_test_random(&rnd);
    records[0] = records[1] = records[2] = records[3] = 0;
    sim_test_init(NULL);
    CUcontext ctx = sim_test_ctx(0);
    CUmodule mod;
    char *src = ptx_test_read_fixture("corpus_murmur3.ptx");
    CUresult r = cuModuleLoadData(&mod, src);
    free(src);
    cr_assert_eq(r, CUDA_SUCCESS, "load -> %d (%s)", (int)r, gg_sim_last_error_detail());
    CUfunction f = sim_test_kernel(mod, "corpus_murmur3");
    CUdeviceptr drec = ptx_test_upload(records, sizeof records), dout = ptx_test_upload(NULL, sizeof out);
    uint32_t seed = 0x9747b28cu;
    int n = N;
    void *args[] = { &drec, &seed, &dout, &n };
    run_1d(f, (N + BLOCK - 1) / BLOCK, BLOCK, 0, args);
    ptx_test_download(out, dout, sizeof out);
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], murmur3_of_record(records + 4 * i, seed), "out[%d] = 0x%08x, want 0x%08x", i, out[i],
                     murmur3_of_record(records + 4 * i, seed));
    ptx_test_end(ctx, mod);
}
