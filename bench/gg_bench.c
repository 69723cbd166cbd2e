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
 *   gg_bench [--json] [--quick] [--only OP]
 *
 * Instruction counts, which do not depend on the machine's noise:
 *   valgrind --tool=callgrind --toggle-collect='wrapped_*' --toggle-collect='direct_*' \
 *       build/bin/gg_bench --only launch --iterations 10000
 * then divide the inclusive count of wrapped_launch / direct_launch by the
 * iterations (callgrind_annotate --inclusive=yes). See the README.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/handle.h"
#include "gpuguard/gpuguard.h"

#define SIM_LIBRARY GG_BENCH_LIB_DIR "/libgpuguard_sim_cuda.so"
#define KERNELS GG_BENCH_KERNEL_DIR "/core_kernels.so"

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
} direct_api;

static direct_api api;
static int iterations = 200000;
static int repeats = 9;

static void die(const char *what)
{
    gg_error_info e;
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

/* Everything both sides use: a gpuguard context and a raw one, each with a
 * stream, an event, a buffer and the noop kernel. */
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
    CHECK_GG(gg_stream_create(r->ctx, "bench", &r->stream));
    CHECK_GG(gg_event_create(r->ctx, "bench", &r->event));
    CHECK_GG(gg_buffer_alloc(r->ctx, 4096, 0, &r->buffer));
    CHECK_GG(gg_module_load_file(r->ctx, KERNELS, &r->module));
    CHECK_GG(gg_kernel_get(r->module, "noop", &r->noop));
    /* The raw context stays current on this thread: the direct side pays
     * for no context switch, as a program with one context would not. */
    CHECK_CU(api.ctx_create(&r->raw_ctx, 0, device));
    CHECK_CU(api.stream_create(&r->raw_stream, 1));
    CHECK_CU(api.event_create(&r->raw_event, 0));
    CHECK_CU(api.mem_alloc(&r->raw_buffer, 4096));
    CHECK_CU(api.module_load(&r->raw_module, KERNELS));
    CHECK_CU(api.get_function(&r->raw_noop, r->raw_module, "noop"));
}

static void rig_close(rig *r)
{
    CHECK_CU(api.module_unload(r->raw_module));
    CHECK_CU(api.mem_free(r->raw_buffer));
    CHECK_CU(api.event_destroy(r->raw_event));
    CHECK_CU(api.stream_destroy(r->raw_stream));
    CHECK_CU(api.ctx_destroy(r->raw_ctx));
    CHECK_GG(gg_context_destroy(r->ctx));
}

/* Each loop is its own function, named for callgrind's --toggle-collect. */
__attribute__((noinline)) void direct_launch(rig *r, int n)
{
    for (int i = 0; i < n; i++)
        api.launch(r->raw_noop, 1, 1, 1, 1, 1, 1, 0, r->raw_stream, NULL, NULL);
}
__attribute__((noinline)) void wrapped_launch(rig *r, int n)
{
    gg_launch_desc d = { .kernel = r->noop, .stream = r->stream, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
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
        if (gg_buffer_alloc(r->ctx, 256, 0, &b) == GG_OK)
            gg_buffer_free(b);
    }
}
__attribute__((noinline)) void direct_copy_small(rig *r, int n)
{
    static const char bytes[16] = "0123456789abcde";
    for (int i = 0; i < n; i++)
        api.memcpy_htod_async(r->raw_buffer, bytes, sizeof bytes, r->raw_stream);
}
__attribute__((noinline)) void wrapped_copy_small(rig *r, int n)
{
    static const char bytes[16] = "0123456789abcde";
    for (int i = 0; i < n; i++)
        gg_memcpy_htod(r->buffer, 0, bytes, sizeof bytes, r->stream);
}

typedef void (*loop_fn)(rig *r, int n);

typedef struct op_bench {
    const char *name;
    loop_fn direct, wrapped;
    int divisor; /* iterations scale (alloc/free is slower) */
} op_bench;

static const op_bench ops[] = {
    { "launch", direct_launch, wrapped_launch, 1 },
    { "event_record", direct_event_record, wrapped_event_record, 1 },
    { "event_query", direct_event_query, wrapped_event_query, 1 },
    { "stream_query", direct_stream_query, wrapped_stream_query, 1 },
    { "alloc_free_256B", direct_alloc_free, wrapped_alloc_free, 10 },
    { "copy_htod_16B", direct_copy_small, wrapped_copy_small, 4 },
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median ns per call over `repeats` runs of n calls; the queue is drained
 * between runs so that no run pays for another's backlog. */
static double median_ns(rig *r, loop_fn fn, bool wrapped, int n)
{
    /* Each side runs with its own context current, as a one-context
     * program would: neither pays for a switch. */
    if (wrapped)
        CHECK_GG(gg_context_push(r->ctx));
    else
        CHECK_CU(api.ctx_set_current(r->raw_ctx));
    double samples[64];
    fn(r, n / 10 + 1); /* warm up */
    for (int k = 0; k < repeats; k++) {
        gg_stream_synchronize(r->stream, 60000);
        api.stream_synchronize(r->raw_stream);
        uint64_t start = now_ns();
        fn(r, n);
        samples[k] = (double)(now_ns() - start) / n;
    }
    if (wrapped) {
        gg_context popped;
        CHECK_GG(gg_context_pop(&popped));
    }
    qsort(samples, (size_t)repeats, sizeof samples[0], cmp_double);
    return samples[repeats / 2];
}

/* ---- handle lookup with many live handles ----------------------------- */

/* ns per lookup of `hot` handles picked at random among `live` live ones:
 * hot == live measures the memory system as much as the table (1 million
 * slots do not fit in cache); a fixed hot set shows the table's own cost. */
static double lookup_ns(size_t live, size_t hot)
{
    static int dummy;
    uint64_t *ids = malloc(live * sizeof *ids);
    for (size_t i = 0; i < live; i++)
        ids[i] = gg__handle_alloc(GG__T_EVENT, &dummy);
    uint64_t *hot_ids = malloc(hot * sizeof *hot_ids);
    for (size_t i = 0; i < hot; i++)
        hot_ids[i] = ids[(i * 2654435761u) % live];
    uint64_t x = 88172645463325252ull, sink = 0;
    int n = iterations * 5;
    double samples[64];
    for (int k = 0; k < repeats; k++) {
        uint64_t start = now_ns();
        for (int i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            sink += (uintptr_t)gg__handle_lookup(hot_ids[x % hot], GG__T_EVENT);
        }
        samples[k] = (double)(now_ns() - start) / n;
    }
    for (size_t i = 0; i < live; i++)
        gg__handle_free(ids[i], GG__FREED_DESTROYED);
    free(ids);
    free(hot_ids);
    if (sink == 0)
        fprintf(stderr, "gg_bench: lookups found nothing\n");
    qsort(samples, (size_t)repeats, sizeof samples[0], cmp_double);
    return samples[repeats / 2];
}

/* ---- throughput with 1 and 2 threads on separate contexts ------------- */

typedef struct worker {
    rig *r;
    int n;
    double seconds;
} worker;

static void *throughput_worker(void *arg)
{
    worker *w = arg;
    CHECK_GG(gg_context_push(w->r->ctx));
    gg_launch_desc d = { .kernel = w->r->noop, .stream = w->r->stream, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
    uint64_t start = now_ns();
    for (int i = 0; i < w->n; i++) {
        gg_launch(&d);
        gg_event_record(w->r->event, w->r->stream);
        gg_event_query(w->r->event);
        gg_stream_query(w->r->stream);
    }
    w->seconds = (double)(now_ns() - start) / 1e9;
    gg_context popped;
    CHECK_GG(gg_context_pop(&popped));
    return NULL;
}

/* Calls (4 per round) per second, summed over the threads. */
static double throughput(rig *rigs, int threads)
{
    pthread_t t[2];
    worker w[2];
    double best = 0;
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < threads; i++) {
            w[i] = (worker){ .r = &rigs[i], .n = iterations };
            pthread_create(&t[i], NULL, throughput_worker, &w[i]);
        }
        double rate = 0;
        for (int i = 0; i < threads; i++) {
            pthread_join(t[i], NULL);
            rate += 4.0 * w[i].n / w[i].seconds;
        }
        if (rate > best)
            best = rate;
    }
    return best;
}

int main(int argc, char **argv)
{
    bool json = false;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--quick") == 0)
            iterations = 20000, repeats = 5;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
            iterations = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: gg_bench [--json] [--quick] [--only OP] [--iterations N]\n");
            return 2;
        }
    }
    if (iterations < 10)
        iterations = 10;
    setenv("GPUGUARD_SIM_CONFIG", getenv("GG_BENCH_SIM_CONFIG") ? getenv("GG_BENCH_SIM_CONFIG") : "{\"fast\": true}", 1);
    gg_init_desc desc = { .backend = "sim", .cuda_library = SIM_LIBRARY };
    CHECK_GG(gg_init(&desc));
    load_direct_api();
    rig rigs[2];
    rig_open(&rigs[0], 1);

    if (!json)
        printf("%-18s %12s %12s %12s\n", "op", "direct_ns", "wrapped_ns", "overhead_ns");
    else
        printf("{\"ops\": [");
    bool first = true;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (only && strcmp(only, ops[i].name) != 0)
            continue;
        int n = iterations / ops[i].divisor;
        double direct = median_ns(&rigs[0], ops[i].direct, false, n);
        double wrapped = median_ns(&rigs[0], ops[i].wrapped, true, n);
        if (json)
            printf("%s\n  {\"op\": \"%s\", \"direct_ns\": %.1f, \"wrapped_ns\": %.1f, \"overhead_ns\": %.1f}",
                   first ? "" : ",", ops[i].name, direct, wrapped, wrapped - direct);
        else
            printf("%-18s %12.1f %12.1f %12.1f\n", ops[i].name, direct, wrapped, wrapped - direct);
        first = false;
    }
    if (only != NULL) {
        if (json)
            printf("]}\n");
        rig_close(&rigs[0]);
        gg_shutdown();
        return 0;
    }

    double lookup_1k = lookup_ns(1000, 1000), lookup_1m = lookup_ns(1000000, 1000);
    double lookup_1m_all = lookup_ns(1000000, 1000000);
    rig_open(&rigs[1], 1);
    double one = throughput(rigs, 1), two = throughput(rigs, 2);
    if (json) {
        printf("],\n \"lookup_ns\": {\"live_1000\": %.2f, \"live_1000000\": %.2f, \"live_1000000_all_touched\": %.2f},\n",
               lookup_1k, lookup_1m, lookup_1m_all);
        printf(" \"throughput_calls_per_s\": {\"threads_1\": %.0f, \"threads_2\": %.0f, \"speedup\": %.2f}}\n", one,
               two, two / one);
    } else {
        printf("\nhandle lookup (1000 handles in use): %.2f ns with 1 thousand live handles, %.2f ns with 1 million "
               "(%+.0f%%)\n", lookup_1k, lookup_1m, 100.0 * (lookup_1m - lookup_1k) / lookup_1k);
        printf("handle lookup, all of 1 million in use (cache misses): %.2f ns\n", lookup_1m_all);
        printf("throughput (launch, record, query, query): 1 thread %.2f M calls/s, 2 threads on 2 contexts "
               "%.2f M calls/s (%.2fx)\n", one / 1e6, two / 1e6, two / one);
    }
    rig_close(&rigs[1]);
    rig_close(&rigs[0]);
    gg_shutdown();
    return 0;
}
