/*
 * gg_bench: what gpuguard costs per call, and how it scales.
 *
 * Each operation is timed twice in one run, on the same simulated device:
 * "direct" calls the simulator's exported driver symbols itself (what a
 * program without gpuguard would do), "wrapped" makes the gpuguard call.
 * The difference is gpuguard's own cost. The simulator runs in its fast mode
 * ({"fast": true}: no worker hand-off, kernels not executed) so that the
 * driver's side is as cheap as possible and the wrapper's cost is visible.
 *
 *   gg_bench [--json] [--quick] [--only OP|lookup|throughput] [--iterations N] [--repeats N]
 *            [--compare EARLIER.json]
 *   gg_bench --callgrind N [--only OP]
 *
 * The ops are measured twice, with completion timelines on (gg_init's
 * GG_TIMELINE_ON: a stream write after every launch where the driver has
 * it) and off (GG_TIMELINE_OFF), each over its own gg_init, and printed side
 * by side; GPUGUARD_TIMELINE is ignored there (--callgrind honours it, so
 * that bench/callgrind_per_op.sh can count each mode). --compare reads an
 * earlier --json report and prints, per op and mode, this run's overhead
 * over that one's (a regression shows as a ratio above 1).
 *
 * Timing: the two sides run alternately in chunks of N calls (direct,
 * wrapped, wrapped, direct, ...), so that a noisy neighbour or a frequency
 * change hits both; the overhead is the median of the per-pair differences,
 * and its 25th-75th percentiles show how stable it was. Each side has its
 * own context current (pushed, for gpuguard), as a one-context program
 * would: neither pays for a context switch. The objects are alike: a
 * non-blocking stream, a timing event, a 4 KiB buffer, the same kernel.
 *
 * Then handle lookups with 1 thousand and 1 million live handles (see
 * measure_lookups, above it), and the throughput of 1 and 2 threads, each on its own
 * context on its own device, making launch/record/query/query calls.
 * --only runs one op, or "lookup", or "throughput". GG_BENCH_SIM_CONFIG
 * replaces the simulator configuration (DEFAULT_SIM_CONFIG).
 *
 * Instruction counts, which do not depend on the machine's noise: with
 * --callgrind N every loop runs exactly once, N calls (N/10 for alloc/free,
 * N/4 for the copy), nothing timed, and prints "op direct_loop wrapped_loop
 * calls" for each, then "driver_get_current direct_get_current - N" (the
 * driver call every wrapped call adds, alone), so under
 *   valgrind --tool=callgrind --toggle-collect='direct_*' --toggle-collect='wrapped_*' \
 *       build/bin/gg_bench --callgrind 20000
 * the inclusive count of wrapped_X minus that of direct_X, divided by N, is
 * gpuguard's instructions per call. bench/callgrind_per_op.sh does this.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/handle.h"
#include "gpuguard/gpuguard.h"

#define SIM_LIBRARY GG_BENCH_LIB_DIR "/libgpuguard_sim_cuda.so"
#define KERNELS GG_BENCH_KERNEL_DIR "/core_kernels.so"

/* Two compute GPUs (no watchdog, so a plain launch is a plain launch), in
 * the simulator's fast mode. */
#define DEFAULT_SIM_CONFIG \
    "{\"fast\": true, \"devices\": [{\"name\": \"bench GPU 0\"}, {\"name\": \"bench GPU 1\"}]}"

/* The simulator's driver symbols, called directly for the baseline. */
typedef struct direct_api {
    int (*ctx_create)(void **ctx, unsigned flags, int dev);
    int (*ctx_destroy)(void *ctx);
    int (*ctx_set_current)(void *ctx);
    int (*stream_create)(void **s, unsigned flags);
    int (*stream_destroy)(void *s);
    int (*stream_query)(void *s);
    int (*stream_synchronize)(void *s);
    int (*event_create)(void **e, unsigned flags);
    int (*event_destroy)(void *e);
    int (*event_record)(void *e, void *s);
    int (*event_query)(void *e);
    int (*mem_alloc)(uint64_t *p, size_t bytes);
    int (*mem_free)(uint64_t p);
    int (*memcpy_htod_async)(uint64_t dst, const void *src, size_t bytes, void *s);
    int (*module_load)(void **m, const char *path);
    int (*module_unload)(void *m);
    int (*get_function)(void **f, void *m, const char *name);
    int (*launch)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                  unsigned shared, void *s, void **params, void **extra);
    int (*device_count)(int *count);
    int (*ctx_get_current)(void **ctx);
} direct_api;

static direct_api api;
static int iterations = 200000;
static int repeats = 31;

static void die(const char *what)
{
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    fprintf(stderr, "gg_bench: %s failed: %s\n", what, e.message);
    exit(1);
}

#define CHECK_GG(call) do { if ((call) != GG_OK) die(#call); } while (0)
#define CHECK_CU(call) do { if ((call) != 0) { fprintf(stderr, "gg_bench: %s failed\n", #call); exit(1); } } while (0)

static void load_direct_api(void)
{
    void *lib = dlopen(SIM_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
    if (lib == NULL) {
        fprintf(stderr, "gg_bench: the simulator is not loaded: %s\n", dlerror());
        exit(1);
    }
    struct { void **slot; const char *name; } syms[] = {
        { (void **)&api.ctx_create, "cuCtxCreate_v2" }, { (void **)&api.ctx_destroy, "cuCtxDestroy_v2" },
        { (void **)&api.ctx_set_current, "cuCtxSetCurrent" }, { (void **)&api.stream_create, "cuStreamCreate" },
        { (void **)&api.stream_destroy, "cuStreamDestroy_v2" }, { (void **)&api.stream_query, "cuStreamQuery" },
        { (void **)&api.stream_synchronize, "cuStreamSynchronize" }, { (void **)&api.event_create, "cuEventCreate" },
        { (void **)&api.event_destroy, "cuEventDestroy_v2" }, { (void **)&api.event_record, "cuEventRecord" },
        { (void **)&api.event_query, "cuEventQuery" }, { (void **)&api.mem_alloc, "cuMemAlloc_v2" },
        { (void **)&api.mem_free, "cuMemFree_v2" }, { (void **)&api.memcpy_htod_async, "cuMemcpyHtoDAsync_v2" },
        { (void **)&api.module_load, "cuModuleLoad" }, { (void **)&api.module_unload, "cuModuleUnload" },
        { (void **)&api.get_function, "cuModuleGetFunction" }, { (void **)&api.launch, "cuLaunchKernel" },
        { (void **)&api.device_count, "cuDeviceGetCount" }, { (void **)&api.ctx_get_current, "cuCtxGetCurrent" },
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].slot = dlsym(lib, syms[i].name);
        if (*syms[i].slot == NULL) {
            fprintf(stderr, "gg_bench: the simulator lacks %s\n", syms[i].name);
            exit(1);
        }
    }
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the two sides of each operation ---------------------------------- */

/* Everything both sides use: a gpuguard context and a raw one on the same
 * device, each with a non-blocking stream, a timing event, a 4 KiB buffer
 * and the noop kernel (what gpuguard creates too). */
typedef struct rig {
    gg_context ctx;
    gg_stream stream;
    gg_event event;
    gg_buffer buffer;
    gg_module module;
    gg_kernel noop;
    void *raw_ctx, *raw_stream, *raw_event, *raw_module, *raw_noop;
    uint64_t raw_buffer;
} rig;

static void rig_open(rig *r, int device)
{
    CHECK_GG(gg_context_create(device, NULL, &r->ctx));
    CHECK_GG(gg_stream_create(r->ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "bench" }, &r->stream));
    CHECK_GG(gg_event_create(r->ctx, &(gg_event_desc){ .struct_size = sizeof(gg_event_desc), .tag = "bench" }, &r->event));
    CHECK_GG(gg_buffer_create(r->ctx, 4096, NULL, &r->buffer));
    CHECK_GG(gg_module_create_from_file(r->ctx, KERNELS, NULL, &r->module));
    CHECK_GG(gg_kernel_create(r->module, "noop", &r->noop));
    CHECK_CU(api.ctx_create(&r->raw_ctx, 0, device)); /* pushed: current from here on */
    CHECK_CU(api.stream_create(&r->raw_stream, 1));    /* CU_STREAM_NON_BLOCKING, as gpuguard's */
    CHECK_CU(api.event_create(&r->raw_event, 0));      /* CU_EVENT_DEFAULT (timing), as gpuguard's */
    CHECK_CU(api.mem_alloc(&r->raw_buffer, 4096));
    CHECK_CU(api.module_load(&r->raw_module, KERNELS));
    CHECK_CU(api.get_function(&r->raw_noop, r->raw_module, "noop"));
}

static void rig_close(rig *r)
{
    CHECK_CU(api.ctx_set_current(r->raw_ctx));
    CHECK_CU(api.module_unload(r->raw_module));
    CHECK_CU(api.mem_free(r->raw_buffer));
    CHECK_CU(api.event_destroy(r->raw_event));
    CHECK_CU(api.stream_destroy(r->raw_stream));
    CHECK_CU(api.ctx_destroy(r->raw_ctx));
    CHECK_GG(gg_context_destroy(r->ctx));
}

/* Each loop is its own function, named for callgrind's --toggle-collect.
 * Both sides ignore the status in the loop (checked once by verify_ops). */
__attribute__((noinline)) void direct_launch(rig *r, int n)
{
    for (int i = 0; i < n; i++)
        api.launch(r->raw_noop, 1, 1, 1, 1, 1, 1, 0, r->raw_stream, NULL, NULL);
}
__attribute__((noinline)) void wrapped_launch(rig *r, int n)
{
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = r->noop, .stream = r->stream, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
    for (int i = 0; i < n; i++)
        gg_launch(&d);
}
__attribute__((noinline)) void direct_event_record(rig *r, int n)
{
    for (int i = 0; i < n; i++)
        api.event_record(r->raw_event, r->raw_stream);
}
__attribute__((noinline)) void wrapped_event_record(rig *r, int n)
{
    for (int i = 0; i < n; i++)
        gg_event_record(r->event, r->stream);
}
__attribute__((noinline)) void direct_event_query(rig *r, int n)
{
    for (int i = 0; i < n; i++)
        api.event_query(r->raw_event);
}
__attribute__((noinline)) void wrapped_event_query(rig *r, int n)
{
    for (int i = 0; i < n; i++)
        gg_event_query(r->event);
}
__attribute__((noinline)) void direct_stream_query(rig *r, int n)
{
    for (int i = 0; i < n; i++)
        api.stream_query(r->raw_stream);
}
__attribute__((noinline)) void wrapped_stream_query(rig *r, int n)
{
    for (int i = 0; i < n; i++)
        gg_stream_query(r->stream);
}
__attribute__((noinline)) void direct_alloc_free(rig *r, int n)
{
    (void)r;
    for (int i = 0; i < n; i++) {
        uint64_t p;
        if (api.mem_alloc(&p, 256) == 0)
            api.mem_free(p);
    }
}
__attribute__((noinline)) void wrapped_alloc_free(rig *r, int n)
{
    for (int i = 0; i < n; i++) {
        gg_buffer b;
        if (gg_buffer_create(r->ctx, 256, NULL, &b) == GG_OK)
            gg_buffer_destroy(b);
    }
}
static const char copy_bytes[16] = "0123456789abcde";
__attribute__((noinline)) void direct_copy_small(rig *r, int n)
{
    for (int i = 0; i < n; i++)
        api.memcpy_htod_async(r->raw_buffer, copy_bytes, sizeof copy_bytes, r->raw_stream);
}
__attribute__((noinline)) void wrapped_copy_small(rig *r, int n)
{
    for (int i = 0; i < n; i++)
        gg_memcpy_htod(r->buffer, 0, copy_bytes, sizeof copy_bytes, r->stream);
}

/* Not an op: the one driver call every wrapped call adds (gpuguard asks for
 * the caller's current context), counted on its own under callgrind. */
__attribute__((noinline)) void direct_get_current(rig *r, int n)
{
    (void)r;
    for (int i = 0; i < n; i++) {
        void *ctx;
        api.ctx_get_current(&ctx);
    }
}

typedef void (*loop_fn)(rig *r, int n);

typedef struct op_bench {
    const char *name;
    const char *loop; /* the loops are direct_<loop> and wrapped_<loop> */
    loop_fn direct, wrapped;
    int divisor;      /* iterations scale (alloc/free is slower) */
} op_bench;

#define OP(name, loop, divisor) { name, #loop, direct_##loop, wrapped_##loop, divisor }
static const op_bench ops[] = {
    OP("launch", launch, 1),
    OP("event_record", event_record, 1),
    OP("event_query", event_query, 1),
    OP("stream_query", stream_query, 1),
    OP("alloc_free_256B", alloc_free, 10),
    OP("copy_htod_16B", copy_small, 4),
};
#undef OP
#define OP_COUNT (sizeof ops / sizeof ops[0])

/* Each side runs with its own context current, as a one-context program
 * would: neither pays for a context switch. */
static void side_begin(rig *r, bool wrapped)
{
    if (wrapped)
        CHECK_GG(gg_context_push(r->ctx));
    else
        CHECK_CU(api.ctx_set_current(r->raw_ctx));
}

static void side_end(bool wrapped)
{
    if (wrapped) {
        gg_context popped;
        CHECK_GG(gg_context_pop(&popped));
    }
}

/* Every timed call must succeed, or the figures would time an error path
 * (a query may say "not ready" when the simulator is not in fast mode). */
#define CU_NOT_READY 600
static void verify_ops(rig *r)
{
    side_begin(r, false);
    CHECK_CU(api.launch(r->raw_noop, 1, 1, 1, 1, 1, 1, 0, r->raw_stream, NULL, NULL));
    CHECK_CU(api.event_record(r->raw_event, r->raw_stream));
    int q = api.event_query(r->raw_event);
    CHECK_CU(q == CU_NOT_READY ? 0 : q);
    q = api.stream_query(r->raw_stream);
    CHECK_CU(q == CU_NOT_READY ? 0 : q);
    CHECK_CU(api.memcpy_htod_async(r->raw_buffer, copy_bytes, sizeof copy_bytes, r->raw_stream));
    side_end(false);
    side_begin(r, true);
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = r->noop, .stream = r->stream, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
    CHECK_GG(gg_launch(&d));
    CHECK_GG(gg_event_record(r->event, r->stream));
    gg_status s = gg_event_query(r->event);
    CHECK_GG(s == GG_NOT_READY ? GG_OK : s);
    s = gg_stream_query(r->stream);
    CHECK_GG(s == GG_NOT_READY ? GG_OK : s);
    CHECK_GG(gg_memcpy_htod(r->buffer, 0, copy_bytes, sizeof copy_bytes, r->stream));
    side_end(true);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of n samples, sorted in place. */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double at = q * (n - 1);
    int lo = (int)at;
    return lo + 1 < n ? v[lo] + (at - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

static double time_chunk(rig *r, loop_fn fn, bool wrapped, int n)
{
    side_begin(r, wrapped);
    /* Not timed: in fast mode there is no backlog, otherwise drain it. */
    gg_stream_synchronize(r->stream, GG_WAIT_MS(60000));
    api.stream_synchronize(r->raw_stream);
    uint64_t start = now_ns();
    fn(r, n);
    double ns = (double)(now_ns() - start) / n;
    side_end(wrapped);
    return ns;
}

typedef struct op_result {
    double direct, wrapped;         /* medians, ns per call */
    double overhead, p25, p75;      /* paired differences, ns per call */
} op_result;

#define MAX_REPEATS 201

static op_result measure_op(rig *r, const op_bench *op, int n)
{
    double d[MAX_REPEATS], w[MAX_REPEATS], diff[MAX_REPEATS];
    for (int side = 0; side < 2; side++) { /* warm up both sides */
        side_begin(r, side);
        (side ? op->wrapped : op->direct)(r, n / 10 + 1);
        side_end(side);
    }
    for (int k = 0; k < repeats; k++) {
        /* Alternate which side goes first, so that neither always runs
         * right after the other's cache footprint. */
        if (k % 2 == 0) {
            d[k] = time_chunk(r, op->direct, false, n);
            w[k] = time_chunk(r, op->wrapped, true, n);
        } else {
            w[k] = time_chunk(r, op->wrapped, true, n);
            d[k] = time_chunk(r, op->direct, false, n);
        }
        diff[k] = w[k] - d[k];
    }
    op_result out;
    out.direct = quantile(d, repeats, 0.5);
    out.wrapped = quantile(w, repeats, 0.5);
    out.p25 = quantile(diff, repeats, 0.25);
    out.overhead = quantile(diff, repeats, 0.5);
    out.p75 = quantile(diff, repeats, 0.75);
    return out;
}

/* ---- handle lookup with many live handles ----------------------------- */

/* Lookups are timed in a loop of independent lookups of a set of 1024 ids,
 * visited in a random order (no stride for the prefetcher), ns per lookup:
 *   hot, 1 thousand live: the set is the 1000 live handles (32 KiB of slots).
 *   hot, first:  the same handles while 1 million are live: only the
 *                table's size changed. This is the table's own cost.
 *   hot, spread: 1024 handles spread evenly over 1 million live: the table's
 *                size and the set's footprint changed (1024 cache lines and
 *                1024 pages instead of 32 KiB), so the memory system is
 *                slower too (L2 instead of L1).
 *   all:         every one of 2^20 live handles: 32 MiB of slots, a cache
 *                and TLB miss per lookup; with a memory floor, the same loop
 *                reading one 32-byte record at random from a 32 MiB array.
 * This machine's speed drifts by tens of percent from one second to the
 * next, so the three hot figures are sampled in turn, the live count
 * switching between 1 thousand and 1 million for each sample (freeing and
 * reallocating the rest), and the changes reported are the medians of the
 * per-sample ratios. */
#define HOT_SET 1024
#define LOOKUP_SAMPLES 15
#define MANY 1000000u
#define FEW 1000u

static void shuffle(uint64_t *v, size_t n)
{
    uint64_t x = 88172645463325252ull;
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = x % (i + 1);
        uint64_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static void *xmalloc(size_t bytes)
{
    void *p = calloc(1, bytes);
    if (p == NULL) {
        fprintf(stderr, "gg_bench: out of memory\n");
        exit(1);
    }
    return p;
}

static int dummy_object;

/* ns per lookup of the `count` ids in set (a power of two, shuffled). */
static double time_lookups(const uint64_t *set, size_t count, size_t n)
{
    uint64_t sink = 0;
    uint64_t start = now_ns();
    for (size_t i = 0; i < n; i++)
        sink += (uintptr_t)gg__handle_lookup(set[i & (count - 1)], GG__T_EVENT);
    double ns = (double)(now_ns() - start) / (double)n;
    if (sink != (uintptr_t)&dummy_object * n)
        fprintf(stderr, "gg_bench: a lookup failed\n");
    return ns;
}

typedef struct rec32 {
    uint64_t a, b, c, d;
} rec32;

/* The memory floor: the same loop reading records table[set[i]]. */
static double time_records(const rec32 *table, const uint64_t *set, size_t count, size_t n)
{
    volatile uint64_t keep;
    uint64_t sum = 0;
    uint64_t start = now_ns();
    for (size_t i = 0; i < n; i++)
        sum += table[set[i & (count - 1)]].a;
    double ns = (double)(now_ns() - start) / (double)n;
    keep = sum;
    (void)keep;
    return ns;
}

typedef struct lookup_result {
    double hot_few;         /* 1024 lookups of the 1000 live */
    double hot_first_many;  /* the same 1000 among 1,000,000 live */
    double hot_spread_many; /* 1024 spread over 1,000,000 live */
    double first_change;    /* medians of the per-sample ratios - 1 */
    double spread_change;
    double all;             /* all of 2^20 live */
    double floor_all;       /* plain array: all of 2^20 records */
} lookup_result;

static void alloc_ids(uint64_t *ids, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        ids[i] = gg__handle_alloc(GG__T_EVENT, &dummy_object);
}

static void free_ids(const uint64_t *ids, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        gg__handle_free(ids[i], GG__FREED_DESTROYED);
}

static lookup_result measure_lookups(void)
{
    size_t n = (size_t)iterations * 5;
    uint64_t *ids = xmalloc(MANY * sizeof *ids);
    uint64_t few[HOT_SET], spread[HOT_SET];
    double t_few[LOOKUP_SAMPLES], t_first[LOOKUP_SAMPLES], t_spread[LOOKUP_SAMPLES];
    double r_first[LOOKUP_SAMPLES], r_spread[LOOKUP_SAMPLES];
    alloc_ids(ids, 0, FEW);
    for (size_t i = 0; i < HOT_SET; i++)
        few[i] = ids[i % FEW];
    shuffle(few, HOT_SET);
    for (int k = 0; k < LOOKUP_SAMPLES; k++) {
        t_few[k] = time_lookups(few, HOT_SET, n);
        alloc_ids(ids, FEW, MANY);
        /* 2654435761 is odd and not a multiple of 5: i * it mod 10^6 visits
         * distinct handles, evenly spread. */
        for (size_t i = 0; i < HOT_SET; i++)
            spread[i] = ids[(i * 2654435761u) % MANY];
        shuffle(spread, HOT_SET);
        t_first[k] = time_lookups(few, HOT_SET, n);
        t_spread[k] = time_lookups(spread, HOT_SET, n);
        free_ids(ids, FEW, MANY);
        r_first[k] = t_first[k] / t_few[k];
        r_spread[k] = t_spread[k] / t_few[k];
    }
    free_ids(ids, 0, FEW);
    free(ids);
    lookup_result r;
    r.hot_few = quantile(t_few, LOOKUP_SAMPLES, 0.5);
    r.hot_first_many = quantile(t_first, LOOKUP_SAMPLES, 0.5);
    r.hot_spread_many = quantile(t_spread, LOOKUP_SAMPLES, 0.5);
    r.first_change = quantile(r_first, LOOKUP_SAMPLES, 0.5) - 1;
    r.spread_change = quantile(r_spread, LOOKUP_SAMPLES, 0.5) - 1;

    const size_t all = 1u << 20;
    uint64_t *set = xmalloc(all * sizeof *set);
    alloc_ids(set, 0, all);
    shuffle(set, all);
    rec32 *table = xmalloc(all * sizeof *table);
    uint64_t *order = xmalloc(all * sizeof *order);
    for (size_t i = 0; i < all; i++) {
        order[i] = i;
        table[i].a = i; /* real pages, not the shared zero page */
    }
    shuffle(order, all);
    double t_all[LOOKUP_SAMPLES], t_floor[LOOKUP_SAMPLES];
    for (int k = 0; k < LOOKUP_SAMPLES; k++) {
        t_all[k] = time_lookups(set, all, n);
        t_floor[k] = time_records(table, order, all, n);
    }
    free_ids(set, 0, all);
    r.all = quantile(t_all, LOOKUP_SAMPLES, 0.5);
    r.floor_all = quantile(t_floor, LOOKUP_SAMPLES, 0.5);
    free(set);
    free(table);
    free(order);
    return r;
}

/* ---- throughput with 1 and 2 threads on separate contexts ------------- */

typedef struct worker {
    rig *r;
    int n;
    pthread_barrier_t *start;
} worker;

static void *throughput_worker(void *arg)
{
    worker *w = arg;
    CHECK_GG(gg_context_push(w->r->ctx));
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = w->r->noop, .stream = w->r->stream, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
    pthread_barrier_wait(w->start);
    for (int i = 0; i < w->n; i++) {
        gg_launch(&d);
        gg_event_record(w->r->event, w->r->stream);
        gg_event_query(w->r->event);
        gg_stream_query(w->r->stream);
    }
    gg_context popped;
    CHECK_GG(gg_context_pop(&popped));
    return NULL;
}

/* Calls (4 per round) per second of wall time, all threads together: the
 * threads start together and the clock stops when the last one is done. */
static double throughput_run(rig *rigs, int threads)
{
    pthread_t t[2];
    worker w[2];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++) {
        w[i] = (worker){ .r = &rigs[i], .n = iterations, .start = &start };
        pthread_create(&t[i], NULL, throughput_worker, &w[i]);
    }
    pthread_barrier_wait(&start);
    uint64_t t0 = now_ns();
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    double rate = 4.0 * iterations * threads / ((double)(now_ns() - t0) / 1e9);
    pthread_barrier_destroy(&start);
    return rate;
}

typedef struct throughput_result {
    double one, two;   /* median calls per second */
    double speedup;    /* median of the paired ratios */
} throughput_result;

#define THROUGHPUT_RUNS 9

/* 1-thread and 2-thread runs alternate, so that both see the same machine;
 * the speedup is the median of each pair's ratio. */
static throughput_result measure_throughput(rig *rigs)
{
    double one[THROUGHPUT_RUNS], two[THROUGHPUT_RUNS], ratio[THROUGHPUT_RUNS];
    throughput_run(rigs, 2); /* warm up */
    for (int k = 0; k < THROUGHPUT_RUNS; k++) {
        one[k] = throughput_run(rigs, 1);
        two[k] = throughput_run(rigs, 2);
        ratio[k] = two[k] / one[k];
    }
    throughput_result r;
    r.one = quantile(one, THROUGHPUT_RUNS, 0.5);
    r.two = quantile(two, THROUGHPUT_RUNS, 0.5);
    r.speedup = quantile(ratio, THROUGHPUT_RUNS, 0.5);
    return r;
}

/* ---- the machine, for the record ---------------------------------------- */

static void cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *colon = strchr(line, ':');
            if (colon != NULL) {
                colon += colon[1] == ' ' ? 2 : 1;
                snprintf(out, size, "%.*s", (int)strcspn(colon, "\n"), colon);
            }
            break;
        }
    }
    fclose(f);
}

static double load_average(void)
{
    double load = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fscanf(f, "%lf", &load) != 1)
            load = -1;
        fclose(f);
    }
    return load;
}

/* Text as a JSON string body (quotes, backslashes and controls escaped). */
static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

/* ---- main ------------------------------------------------------------- */

/* ---- the two timeline modes, and comparing with an earlier report ------- */

#define MODES 2
static const char *const mode_names[MODES] = { "on", "off" };
static const gg_timeline_mode mode_values[MODES] = { GG_TIMELINE_ON, GG_TIMELINE_OFF };

static void init_library(gg_timeline_mode timeline)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = SIM_LIBRARY, .timeline = timeline };
    CHECK_GG(gg_init(&desc));
}

/* The overhead (ns) of `op` in `mode` in an earlier --json report, or a
 * negative number when it has none. Reports from before the two modes
 * ("ops" only) were made with the default, the timeline on where the
 * device has it: they count as "on". */
static double earlier_overhead(const cJSON *report, const char *mode, const char *op)
{
    char key[32];
    snprintf(key, sizeof key, "ops_timeline_%s", mode);
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(report, key);
    if (ops == NULL && strcmp(mode, "on") == 0)
        ops = cJSON_GetObjectItemCaseSensitive(report, "ops");
    const cJSON *entry;
    cJSON_ArrayForEach(entry, ops) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(entry, "op");
        const cJSON *overhead = cJSON_GetObjectItemCaseSensitive(entry, "overhead_ns");
        if (cJSON_IsString(name) && strcmp(name->valuestring, op) == 0 && cJSON_IsNumber(overhead))
            return overhead->valuedouble;
    }
    return -1;
}

static cJSON *read_report(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "gg_bench: cannot open %s\n", path);
        exit(2);
    }
    char *text = NULL;
    size_t size = 0, used = 0;
    for (;;) {
        if (used + 4096 + 1 > size) {
            size = size ? size * 2 : 65536;
            text = realloc(text, size);
            if (text == NULL) {
                fprintf(stderr, "gg_bench: out of memory reading %s\n", path);
                exit(1);
            }
        }
        size_t n = fread(text + used, 1, 4096, f);
        used += n;
        if (n == 0)
            break;
    }
    fclose(f);
    text[used] = '\0';
    cJSON *report = cJSON_Parse(text);
    free(text);
    if (report == NULL) {
        fprintf(stderr, "gg_bench: %s is not a JSON report (gg_bench --json)\n", path);
        exit(2);
    }
    return report;
}

static void usage(void)
{
    fprintf(stderr, "usage: gg_bench [--json] [--quick] [--only OP|lookup|throughput] [--iterations N] [--repeats N]\n"
                    "                [--compare EARLIER.json]\n"
                    "       gg_bench --callgrind N [--only OP]\n"
                    "OP: launch event_record event_query stream_query alloc_free_256B copy_htod_16B\n");
    exit(2);
}

int main(int argc, char **argv)
{
    bool json = false;
    int callgrind_calls = 0;
    const char *only = NULL;
    const char *compare_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--quick") == 0)
            iterations = 20000, repeats = 11;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
            iterations = atoi(argv[++i]);
        else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (strcmp(argv[i], "--callgrind") == 0 && i + 1 < argc)
            callgrind_calls = atoi(argv[++i]);
        else if (strcmp(argv[i], "--compare") == 0 && i + 1 < argc)
            compare_path = argv[++i];
        else
            usage();
    }
    if (only != NULL) {
        bool known = strcmp(only, "lookup") == 0 || strcmp(only, "throughput") == 0;
        for (size_t i = 0; i < OP_COUNT; i++)
            known |= strcmp(only, ops[i].name) == 0;
        if (!known) {
            fprintf(stderr, "gg_bench: unknown op '%s'\n", only);
            usage();
        }
    }
    if (iterations < 100)
        iterations = 100;
    if (repeats < 3)
        repeats = 3;
    if (repeats > MAX_REPEATS)
        repeats = MAX_REPEATS;
    const char *config = getenv("GG_BENCH_SIM_CONFIG") ? getenv("GG_BENCH_SIM_CONFIG") : DEFAULT_SIM_CONFIG;
    setenv("GPUGUARD_SIM_CONFIG", config, 1);
    cJSON *earlier = compare_path != NULL ? read_report(compare_path) : NULL;
    if (callgrind_calls == 0)
        unsetenv("GPUGUARD_TIMELINE"); /* both modes, whatever the environment */
    /* The default (the timeline where the device has it) for --callgrind,
     * which honours GPUGUARD_TIMELINE; the timed modes re-initialise. */
    init_library(GG_TIMELINE_AUTO);
    load_direct_api();
    int devices = 0;
    CHECK_CU(api.device_count(&devices));
    /* Device 0 by default; with a custom config, the last device (the
     * default config's device 0 has a watchdog, which changes the launch path). */
    int device = getenv("GG_BENCH_SIM_CONFIG") ? devices - 1 : 0;
    rig rigs[2];
    rig_open(&rigs[0], device);
    verify_ops(&rigs[0]);

    if (callgrind_calls > 0) {
        /* Each loop once, exactly N calls: inclusive instructions / N. */
        for (size_t i = 0; i < OP_COUNT; i++) {
            if (only && strcmp(only, ops[i].name) != 0)
                continue;
            int n = callgrind_calls / ops[i].divisor;
            side_begin(&rigs[0], false);
            ops[i].direct(&rigs[0], n);
            side_end(false);
            side_begin(&rigs[0], true);
            ops[i].wrapped(&rigs[0], n);
            side_end(true);
            printf("%s direct_%s wrapped_%s %d\n", ops[i].name, ops[i].loop, ops[i].loop, n);
        }
        side_begin(&rigs[0], false);
        direct_get_current(&rigs[0], callgrind_calls);
        side_end(false);
        printf("driver_get_current direct_get_current - %d\n", callgrind_calls);
        rig_close(&rigs[0]);
        gg_shutdown();
        return 0;
    }

    bool all_sections = only == NULL;
    bool do_lookup = all_sections || strcmp(only, "lookup") == 0;
    bool do_throughput = all_sections || strcmp(only, "throughput") == 0;
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double load_before = load_average();
    if (json) {
        printf("{\"machine\": {\"cpu\": ");
        json_string(cpu);
        printf(", \"cores\": %ld, \"load_before\": %.2f},\n \"sim_config\": ", cores, load_before);
        json_string(config);
        printf(",\n \"iterations\": %d, \"repeats\": %d", iterations, repeats);
    } else {
        printf("machine: %s, %ld cores, load average %.2f; %d chunks of %d calls per side\n", cpu, cores,
               load_before, repeats, iterations);
    }

    /* The ops in each timeline mode, each over its own gg_init (the
     * library's settings are fixed at initialisation); "on" last, so that
     * the lookups and the throughput below run with the timeline on, as by
     * default on the simulator. */
    op_result results[MODES][OP_COUNT];
    bool measured[OP_COUNT] = { false };
    bool any = false;
    for (size_t i = 0; i < OP_COUNT; i++)
        any |= all_sections || strcmp(only, ops[i].name) == 0;
    for (int mode = MODES - 1; any && mode >= 0; mode--) {
        rig_close(&rigs[0]);
        gg_shutdown();
        init_library(mode_values[mode]);
        rig_open(&rigs[0], device);
        verify_ops(&rigs[0]);
        for (size_t i = 0; i < OP_COUNT; i++) {
            if (!all_sections && strcmp(only, ops[i].name) != 0)
                continue;
            results[mode][i] = measure_op(&rigs[0], &ops[i], iterations / ops[i].divisor);
            measured[i] = true;
        }
    }
    if (any && json) {
        for (int mode = 0; mode < MODES; mode++) {
            printf(",\n \"ops_timeline_%s\": [", mode_names[mode]);
            bool first = true;
            for (size_t i = 0; i < OP_COUNT; i++) {
                if (!measured[i])
                    continue;
                const op_result *m = &results[mode][i];
                printf("%s\n  {\"op\": \"%s\", \"direct_ns\": %.1f, \"wrapped_ns\": %.1f, \"overhead_ns\": %.1f, "
                       "\"overhead_p25_ns\": %.1f, \"overhead_p75_ns\": %.1f}",
                       first ? "" : ",", ops[i].name, m->direct, m->wrapped, m->overhead, m->p25, m->p75);
                first = false;
            }
            printf("]");
        }
    } else if (any) {
        printf("\nns per call; overhead: median of paired differences (p25..p75); timeline on: "
               "a stream write after each launch\n");
        printf("%-16s %10s | %11s %12s %17s | %11s %12s %17s\n", "op", "direct_ns", "wrapped_on", "overhead_on",
               "(p25..p75)", "wrapped_off", "overhead_off", "(p25..p75)");
        for (size_t i = 0; i < OP_COUNT; i++) {
            if (!measured[i])
                continue;
            const op_result *on = &results[0][i], *off = &results[1][i];
            printf("%-16s %10.1f | %11.1f %12.1f %8.1f..%-8.1f | %11.1f %12.1f %8.1f..%-8.1f\n", ops[i].name,
                   (on->direct + off->direct) / 2, on->wrapped, on->overhead, on->p25, on->p75, off->wrapped,
                   off->overhead, off->p25, off->p75);
        }
    }
    if (any && earlier != NULL) {
        /* To stderr with --json, so that the report stays one JSON object. */
        FILE *out = json ? stderr : stdout;
        fprintf(out, "\ncompared with %s: this run's overhead / that run's (above 1: slower now)\n", compare_path);
        fprintf(out, "%-16s %5s %12s %12s %8s\n", "op", "mode", "earlier_ns", "now_ns", "ratio");
        for (size_t i = 0; i < OP_COUNT; i++) {
            if (!measured[i])
                continue;
            for (int mode = 0; mode < MODES; mode++) {
                double before = earlier_overhead(earlier, mode_names[mode], ops[i].name);
                double now = results[mode][i].overhead;
                if (before < 0)
                    fprintf(out, "%-16s %5s %12s %12.1f %8s\n", ops[i].name, mode_names[mode], "-", now, "-");
                else
                    fprintf(out, "%-16s %5s %12.1f %12.1f %8.2f\n", ops[i].name, mode_names[mode], before, now,
                            before > 0 ? now / before : 0.0);
            }
        }
    }
    cJSON_Delete(earlier);

    if (do_lookup) {
        lookup_result l = measure_lookups();
        if (json) {
            printf(",\n \"lookup_ns\": {\"hot_1024_of_1000_live\": %.2f,\n"
                   "   \"hot_same_of_1000000_live\": %.2f, \"change_same_percent\": %.1f,\n"
                   "   \"hot_1024_spread_over_1000000_live\": %.2f, \"change_spread_percent\": %.1f,\n"
                   "   \"all_of_1048576_live\": %.2f, \"memory_floor_all_of_1048576_records\": %.2f}",
                   l.hot_few, l.hot_first_many, 100 * l.first_change, l.hot_spread_many, 100 * l.spread_change,
                   l.all, l.floor_all);
        } else {
            printf("\nhandle lookup, ns (medians of %d samples; changes: medians of the per-sample ratios)\n",
                   LOOKUP_SAMPLES);
            printf("  1024 lookups of the 1 thousand live handles:        %6.2f\n", l.hot_few);
            printf("  the same handles, 1 million live:                   %6.2f  (%+.0f%%)\n", l.hot_first_many,
                   100 * l.first_change);
            printf("  1024 handles spread over 1 million live:            %6.2f  (%+.0f%%)\n", l.hot_spread_many,
                   100 * l.spread_change);
            printf("  all of 2^20 live handles:                           %6.2f  (memory floor %.2f: one random "
                   "32-byte record of 32 MiB)\n", l.all, l.floor_all);
        }
    }

    if (do_throughput) {
        rig_open(&rigs[1], devices > 1 ? (device + 1) % devices : device);
        throughput_result t = measure_throughput(rigs);
        if (json)
            printf(",\n \"throughput_calls_per_s\": {\"devices\": %d, \"threads_1\": %.0f, \"threads_2\": %.0f, "
                   "\"speedup\": %.2f}", devices > 1 ? 2 : 1, t.one, t.two, t.speedup);
        else
            printf("\nthroughput (launch, record, query, query; 2 contexts on %s; medians of %d runs): 1 thread "
                   "%.2f M calls/s, 2 threads %.2f M calls/s, speedup %.2fx\n", devices > 1 ? "2 devices" : "1 device",
                   THROUGHPUT_RUNS, t.one / 1e6, t.two / 1e6, t.speedup);
        rig_close(&rigs[1]);
    }
    double load_after = load_average();
    if (json)
        printf(",\n \"load_after\": %.2f}\n", load_after);
    else
        printf("\nload average after: %.2f\n", load_after);
    rig_close(&rigs[0]);
    gg_shutdown();
    return 0;
}
