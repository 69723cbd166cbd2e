/*
 * Speed of the PTX interpreter (src/sim/ptx), linked directly: no driver,
 * no launch machinery, only ptx_run_block over committed PTX, against a
 * fake runtime that maps a few host buffers at device addresses.
 *
 *   bench_ptx_interp                 every kernel: thread-instructions,
 *                                    wall time, thread-instructions per second
 *   bench_ptx_interp --only NAME     one kernel
 *   bench_ptx_interp --callgrind     each kernel's small fixed workload run
 *                                    once inside its own noinline function
 *                                    (cg_NAME); prints "NAME cg_NAME
 *                                    thread_insns" for bench/callgrind_ptx.sh
 *   bench_ptx_interp --load FILE...  time to parse (load) each PTX file
 *                                    (the plain run ends with
 *                                    bench/kernels/big_module.ptx, 1.2 MB)
 *
 * A thread-instruction is one instruction executed by one lane whose guard
 * predicate held (ptx_run_block_counted counts them exactly). Each
 * kernel's output is checked against a host reference, so a faster
 * interpreter that is wrong does not pass for a faster one.
 */
#include "ptx_module.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef GG_BENCH_SOURCE_DIR
#define GG_BENCH_SOURCE_DIR "."
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the fake runtime: buffers at device addresses ------------------------ */

#define DEVICE_BASE 0x7d0000000000ull
#define DEVICE_STRIDE (1ull << 36) /* between two buffers' addresses */
#define MAX_BUFFERS 4

static struct { unsigned char *host; uint64_t size; } buffers[MAX_BUFFERS];
static unsigned nbuffers;
static int faults;

static uint64_t buffer_new(uint64_t bytes)
{
    if (nbuffers == MAX_BUFFERS) {
        fprintf(stderr, "bench_ptx_interp: too many buffers\n");
        exit(1);
    }
    buffers[nbuffers].host = calloc(1, bytes);
    buffers[nbuffers].size = bytes;
    if (!buffers[nbuffers].host) {
        fprintf(stderr, "bench_ptx_interp: out of memory\n");
        exit(1);
    }
    return DEVICE_BASE + DEVICE_STRIDE * nbuffers++;
}

static void *buffer_host(uint64_t dptr) { return buffers[(dptr - DEVICE_BASE) / DEVICE_STRIDE].host; }

static void buffers_free(void)
{
    for (unsigned i = 0; i < nbuffers; i++)
        free(buffers[i].host);
    nbuffers = 0;
}

static bool fake_window(const gg_sim_block *b, uint64_t addr, ptx_global_window *out)
{
    (void)b;
    uint64_t i = (addr - DEVICE_BASE) / DEVICE_STRIDE;
    if (addr < DEVICE_BASE || i >= nbuffers || addr - DEVICE_BASE - i * DEVICE_STRIDE >= buffers[i].size)
        return false;
    *out = (ptx_global_window){ DEVICE_BASE + i * DEVICE_STRIDE, buffers[i].size, buffers[i].host };
    return true;
}

static void *fake_map(const gg_sim_block *b, uint64_t dptr, size_t bytes)
{
    ptx_global_window w;
    if (!fake_window(b, dptr, &w) || w.size - (dptr - w.base) < bytes) {
        faults++;
        return NULL;
    }
    return w.host + (dptr - w.base);
}

static void fake_trap(const gg_sim_block *b, gg_sim_trap kind)
{
    (void)b;
    (void)kind;
    faults++;
}

static bool fake_cancelled(const gg_sim_block *b)
{
    (void)b;
    return false;
}

static const gg_sim_runtime fake_runtime = { fake_map, fake_trap, fake_cancelled };

/* ---- kernels ----------------------------------------------------------- */

/* One workload: a launch's shape and parameters, set up before timing. */
typedef struct launch {
    gg_sim_dim3 grid, block;
    /* Blocks run: x in [first_x, first_x + cols_x), y in [first_y, first_y + rows_y). */
    unsigned first_x, cols_x, first_y, rows_y;
    void *params[8];
    uint64_t param_store[8];
} launch;

typedef struct bench_kernel {
    const char *name, *what, *file, *entry;
    /* Sets up buffers and the launch; small: the callgrind workload. */
    void (*setup)(launch *l, bool small);
    /* Checks the output against a host reference; false if wrong. */
    bool (*check)(const launch *l);
} bench_kernel;

static void set_param(launch *l, unsigned i, uint64_t v)
{
    l->param_store[i] = v;
    l->params[i] = &l->param_store[i]; /* little-endian: a u32 reads the low half */
}

/* alu_int: an LCG and xorshift loop per thread (bench/kernels/alu_int.cu). */
static void setup_alu_int(launch *l, bool small)
{
    unsigned blocks = small ? 4 : 64, rounds = small ? 256 : 2048;
    *l = (launch){ .grid = { blocks, 1, 1 }, .block = { 256, 1, 1 }, .rows_y = 1 };
    l->cols_x = l->grid.x;
    set_param(l, 0, buffer_new((uint64_t)blocks * 256 * 4));
    set_param(l, 1, rounds);
}

static bool check_alu_int(const launch *l)
{
    const unsigned *out = buffer_host(l->param_store[0]);
    unsigned n = l->grid.x * l->block.x, rounds = (unsigned)l->param_store[1];
    for (unsigned i = 0; i < n; i += 97) {
        unsigned x = i * 2654435761u + 1u;
        for (unsigned r = 0; r < rounds; r++) {
            x = x * 1664525u + 1013904223u;
            x ^= x >> 13;
            x ^= x << 7;
        }
        if (out[i] != x)
            return false;
    }
    return true;
}

/* alu_f32: fma, mul, compare, select per round (bench/kernels/alu_f32.cu). */
static void setup_alu_f32(launch *l, bool small)
{
    unsigned blocks = small ? 4 : 64, rounds = small ? 256 : 2048;
    *l = (launch){ .grid = { blocks, 1, 1 }, .block = { 256, 1, 1 }, .rows_y = 1 };
    l->cols_x = l->grid.x;
    set_param(l, 0, buffer_new((uint64_t)blocks * 256 * 4));
    set_param(l, 1, rounds);
}

static bool check_alu_f32(const launch *l)
{
    const float *out = buffer_host(l->param_store[0]);
    unsigned n = l->grid.x * l->block.x, rounds = (unsigned)l->param_store[1];
    for (unsigned i = 0; i < n; i += 97) {
        float x = (float)i * 0.001f, acc = 0.0f;
        for (unsigned r = 0; r < rounds; r++) {
            x = fmaf(x, 0.999f, 0.001f);
            float y = fmaf(x, x, -0.25f); /* nvcc contracts x * x - 0.25f */
            acc += y > 0.0f ? y : -y;
        }
        if (memcmp(&out[i], &acc, 4) != 0)
            return false;
    }
    return true;
}

/* render: the examples' fp64 Mandelbrot, one row of 64 x 4 blocks across
 * the middle of a 1024 x 768 image (the real axis: most pixels inside the
 * set run every iteration). */
#define RENDER_W 1024u
#define RENDER_H 768u
static void setup_render(launch *l, bool small)
{
    *l = (launch){ .grid = { RENDER_W / 64, RENDER_H / 4, 1 }, .block = { 64, 4, 1 },
                   .cols_x = RENDER_W / 64, .first_y = RENDER_H / 8, .rows_y = 1 };
    if (small) { /* two blocks, x in [-1.6, -1.2]: inside the set */
        l->first_x = 4;
        l->cols_x = 2;
    }
    set_param(l, 0, buffer_new((uint64_t)RENDER_W * RENDER_H * 4));
    set_param(l, 1, RENDER_W);
    set_param(l, 2, RENDER_H);
    set_param(l, 3, small ? 200 : 2000); /* max_iter */
    set_param(l, 4, 0);                  /* block_offset_y */
    set_param(l, 5, 1);                  /* row_stride */
}

static bool check_render(const launch *l)
{
    /* The real axis, x in [-2, 0.25], is inside the set: -1. */
    const float *img = buffer_host(l->param_store[0]);
    unsigned y = l->first_y * 4 + 2, inside = 0;
    for (unsigned x = l->first_x * 64; x < (l->first_x + l->cols_x) * 64; x++)
        inside += img[(size_t)y * RENDER_W + x] == -1.0f;
    return inside > 0;
}

/* vector_add: c = a + b over floats (tests/ptx/fixtures/vector_add.ptx). */
static void setup_vector_add(launch *l, bool small)
{
    unsigned n = small ? 1u << 15 : 1u << 22;
    *l = (launch){ .grid = { n / 256, 1, 1 }, .block = { 256, 1, 1 }, .rows_y = 1 };
    l->cols_x = l->grid.x;
    uint64_t a = buffer_new((uint64_t)n * 4), b = buffer_new((uint64_t)n * 4), c = buffer_new((uint64_t)n * 4);
    float *ha = buffer_host(a), *hb = buffer_host(b);
    for (unsigned i = 0; i < n; i++) {
        ha[i] = (float)i;
        hb[i] = 0.5f * (float)i;
    }
    set_param(l, 0, a);
    set_param(l, 1, b);
    set_param(l, 2, c);
    set_param(l, 3, n);
}

static bool check_vector_add(const launch *l)
{
    const float *a = buffer_host(l->param_store[0]), *b = buffer_host(l->param_store[1]),
                *c = buffer_host(l->param_store[2]);
    for (unsigned i = 0; i < (unsigned)l->param_store[3]; i++)
        if (c[i] != a[i] + b[i])
            return false;
    return true;
}

/* block_reduce: 256 values per block summed in shared memory with
 * __syncthreads between the levels (tests/ptx/fixtures/block_reduce.ptx). */
static void setup_block_reduce(launch *l, bool small)
{
    unsigned blocks = small ? 64 : 8192;
    *l = (launch){ .grid = { blocks, 1, 1 }, .block = { 256, 1, 1 }, .rows_y = 1 };
    l->cols_x = l->grid.x;
    uint64_t in = buffer_new((uint64_t)blocks * 256 * 4), out = buffer_new((uint64_t)blocks * 4);
    unsigned *h = buffer_host(in);
    for (unsigned i = 0; i < blocks * 256; i++)
        h[i] = i * 7u;
    set_param(l, 0, in);
    set_param(l, 1, out);
}

static bool check_block_reduce(const launch *l)
{
    const unsigned *in = buffer_host(l->param_store[0]), *out = buffer_host(l->param_store[1]);
    for (unsigned blk = 0; blk < l->grid.x; blk++) {
        unsigned sum = 0;
        for (unsigned t = 0; t < 256; t++)
            sum += in[blk * 256 + t];
        if (out[blk] != sum)
            return false;
    }
    return true;
}

static const bench_kernel kernels[] = {
    { "alu_int", "ALU-bound, 32-bit integer", "bench/kernels/alu_int.ptx", "alu_int", setup_alu_int,
      check_alu_int },
    { "alu_f32", "ALU-bound, f32 fma/setp/selp", "bench/kernels/alu_f32.ptx", "alu_f32", setup_alu_f32,
      check_alu_f32 },
    { "render", "ALU-bound, f64 (examples/render)", "examples/render/kernels/render.ptx", "mandelbrot",
      setup_render, check_render },
    { "vector_add", "memory-bound copy", "tests/ptx/fixtures/vector_add.ptx", "vector_add",
      setup_vector_add, check_vector_add },
    { "block_reduce", "shared-memory reduction", "tests/ptx/fixtures/block_reduce.ptx", "block_reduce",
      setup_block_reduce, check_block_reduce },
};
#define NKERNELS (sizeof kernels / sizeof kernels[0])

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (text) {
        text[n] = '\0';
        *len = (size_t)n;
    }
    return text;
}

static ptx_module *load(const char *file)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s", GG_BENCH_SOURCE_DIR, file);
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        fprintf(stderr, "bench_ptx_interp: cannot read %s\n", path);
        exit(1);
    }
    ptx_module *m = ptx_module_parse(text, len, err, sizeof err);
    free(text);
    if (!m) {
        fprintf(stderr, "bench_ptx_interp: %s: %s\n", path, err);
        exit(1);
    }
    return m;
}

/* Runs every block of the launch's selection; the thread-instructions. */
static uint64_t run_launch(const ptx_module *m, const ptx_kernel *k, launch *l)
{
    uint64_t insns = 0;
    /* Simulated time runs (the clock is part of the work a launch does) but
     * never stops a kernel here; printf output is dropped. */
    ptx_sim_clock clock = { .ns_per_insn = 1.0, .insn_limit = UINT64_MAX };
    for (unsigned y = l->first_y; y < l->first_y + l->rows_y; y++)
        for (unsigned x = l->first_x; x < l->first_x + l->cols_x; x++) {
            gg_sim_block b = { .block_idx = { x, y, 0 }, .grid_dim = l->grid, .block_dim = l->block,
                               .params = l->params, .rt = &fake_runtime };
            ptx_run_block_counted(m, k, &b, fake_window, &clock, NULL, &insns);
        }
    return insns;
}

/* One noinline function per kernel, so that callgrind's inclusive count of
 * each is that kernel's work alone (set-up and parsing stay outside). */
#define CG_RUNNER(name)                                                                  \
    __attribute__((noinline)) static uint64_t cg_##name(const ptx_module *m, const ptx_kernel *k, \
                                                        launch *l)                       \
    {                                                                                    \
        return run_launch(m, k, l);                                                      \
    }
CG_RUNNER(alu_int)
CG_RUNNER(alu_f32)
CG_RUNNER(render)
CG_RUNNER(vector_add)
CG_RUNNER(block_reduce)
static uint64_t (*const cg_runners[NKERNELS])(const ptx_module *, const ptx_kernel *, launch *) = {
    cg_alu_int, cg_alu_f32, cg_render, cg_vector_add, cg_block_reduce
};

static bool bench_one(unsigned i, bool callgrind)
{
    const bench_kernel *bk = &kernels[i];
    ptx_module *m = load(bk->file);
    const ptx_kernel *k = ptx_module_kernel(m, bk->entry);
    if (!k) {
        fprintf(stderr, "bench_ptx_interp: no kernel %s in %s\n", bk->entry, bk->file);
        exit(1);
    }
    launch l;
    faults = 0;
    bk->setup(&l, callgrind);
    uint64_t insns;
    double t0 = now_s();
    insns = callgrind ? cg_runners[i](m, k, &l) : run_launch(m, k, &l);
    double secs = now_s() - t0;
    bool ok = faults == 0 && bk->check(&l);
    unsigned blocks = l.cols_x * l.rows_y;
    if (callgrind)
        printf("%s cg_%s %llu\n", bk->name, bk->name, (unsigned long long)insns);
    else
        printf("%-13s %-34s %12llu %9.3f %10.1f %10.3f%s\n", bk->name, bk->what, (unsigned long long)insns,
               secs, (double)insns / secs / 1e6, secs * 1e3 / blocks, ok ? "" : "  WRONG OUTPUT");
    buffers_free();
    ptx_module_free(m);
    return ok;
}

/* Parses each file `repeats` times: the fastest and the median load. */
static int bench_load(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        size_t len;
        char *text = read_file(argv[i], &len);
        if (!text) {
            fprintf(stderr, "bench_ptx_interp: cannot read %s\n", argv[i]);
            return 1;
        }
        enum { REPEATS = 7 };
        double t[REPEATS];
        size_t nkernels = 0, ninsns = 0;
        for (int r = 0; r < REPEATS; r++) {
            char err[512];
            double t0 = now_s();
            ptx_module *m = ptx_module_parse(text, len, err, sizeof err);
            t[r] = now_s() - t0;
            if (!m) {
                fprintf(stderr, "bench_ptx_interp: %s: %s\n", argv[i], err);
                free(text);
                return 1;
            }
            nkernels = m->nkernels;
            ninsns = 0;
            for (size_t k = 0; k < m->nkernels; k++)
                ninsns += m->kernels[k].ncode;
            ptx_module_free(m);
        }
        for (int a = 1; a < REPEATS; a++) /* insertion sort */
            for (int b = a; b > 0 && t[b] < t[b - 1]; b--) {
                double x = t[b];
                t[b] = t[b - 1];
                t[b - 1] = x;
            }
        printf("%s: %zu bytes, %zu kernels, %zu instructions: load %.1f ms (fastest of %d), %.1f ms median\n",
               argv[i], len, nkernels, ninsns, t[0] * 1e3, REPEATS, t[REPEATS / 2] * 1e3);
        free(text);
    }
    return 0;
}

int main(int argc, char **argv)
{
    bool callgrind = false;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--callgrind") == 0) {
            callgrind = true;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--load") == 0) {
            return bench_load(argc - i - 1, argv + i + 1);
        } else {
            fprintf(stderr, "usage: %s [--callgrind] [--only NAME] | --load FILE.ptx...\n", argv[0]);
            return 2;
        }
    }
    if (!callgrind)
        printf("%-13s %-34s %12s %9s %10s %10s\n", "kernel", "what", "thread-insns", "seconds", "M/s",
               "ms/block");
    bool ok = true;
    for (unsigned i = 0; i < NKERNELS; i++)
        if (!only || strcmp(only, kernels[i].name) == 0)
            ok = bench_one(i, callgrind) && ok;
    if (!only && !callgrind) { /* and the load of a large module */
        char big[1024];
        snprintf(big, sizeof big, "%s/bench/kernels/big_module.ptx", GG_BENCH_SOURCE_DIR);
        char *files[] = { big };
        ok = bench_load(1, files) == 0 && ok;
    }
    return ok ? 0 : 1;
}
