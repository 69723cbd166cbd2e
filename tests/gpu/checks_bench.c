/* Check: what gpuguard adds to launch, event record, event query and stream
 * query on this driver, against the same driver calls made directly (the
 * method of bench/gg_bench.c, which measures it over the simulator's fast
 * mode: alternating chunks of calls, the median of per-pair differences). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_check.h"
#include "gc_checks.h"

#define CU_SUCCESS 0
#define CU_NOT_READY 600

/* The CUDA driver calls of the direct side. Every one of these symbols has
 * kept its signature since CUDA 4; the versioned names are the ones the
 * driver exports for that signature. */
typedef struct direct_api {
    int (*module_load)(void **m, const char *path);
    int (*module_unload)(void *m);
    int (*get_function)(void **f, void *m, const char *name);
    int (*stream_create)(void **s, unsigned flags);
    int (*stream_destroy)(void *s);
    int (*stream_query)(void *s);
    int (*stream_synchronize)(void *s);
    int (*event_create)(void **e, unsigned flags);
    int (*event_destroy)(void *e);
    int (*event_record)(void *e, void *s);
    int (*event_query)(void *e);
    int (*launch)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                  unsigned shared, void *s, void **params, void **extra);
} direct_api;

typedef struct rig {
    direct_api api;
    gg_stream stream;
    gg_event event;
    gg_kernel noop;
    void *raw_stream, *raw_event, *raw_module, *raw_noop;
    int failures;
} rig;

static bool load_api(gc_result *r, const gc_env *env, direct_api *api)
{
    const char *lib = env->simulated ? "libgpuguard_sim_cuda.so" : "libcuda.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL)
        return gc_fail(r, "%s is not loaded after gg_init: %s", lib, dlerror());
    struct { void **slot; const char *name; } syms[] = {
        { (void **)&api->module_load, "cuModuleLoad" }, { (void **)&api->module_unload, "cuModuleUnload" },
        { (void **)&api->get_function, "cuModuleGetFunction" }, { (void **)&api->stream_create, "cuStreamCreate" },
        { (void **)&api->stream_destroy, "cuStreamDestroy_v2" }, { (void **)&api->stream_query, "cuStreamQuery" },
        { (void **)&api->stream_synchronize, "cuStreamSynchronize" },
        { (void **)&api->event_create, "cuEventCreate" }, { (void **)&api->event_destroy, "cuEventDestroy_v2" },
        { (void **)&api->event_record, "cuEventRecord" }, { (void **)&api->event_query, "cuEventQuery" },
        { (void **)&api->launch, "cuLaunchKernel" },
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        if ((*syms[i].slot = dlsym(h, syms[i].name)) == NULL)
            return gc_fail(r, "%s has no %s", lib, syms[i].name);
    return true;
}

typedef enum op { OP_LAUNCH, OP_RECORD, OP_EVENT_QUERY, OP_STREAM_QUERY, OP_COUNT } op;
static const char *const op_names[OP_COUNT] = { "launch", "event_record", "event_query", "stream_query" };

static bool direct_ok(int rc) { return rc == CU_SUCCESS || rc == CU_NOT_READY; }
static bool wrapped_ok(gg_status st) { return st == GG_OK || st == GG_NOT_READY; }

/* n calls of `which` on one side; returns the time in ns per call. The
 * launches and records are followed by a synchronize outside the timing, so
 * that the queue never fills. */
static double run_side(rig *g, op which, bool wrapped, int n)
{
    uint32_t arg = 0;
    void *params[] = { &arg };
    int bad = 0;
    double t0 = gc_now_ms();
    for (int i = 0; i < n; i++) {
        if (wrapped) {
            gg_status st = GG_OK;
            switch (which) {
            case OP_LAUNCH: st = gc_launch(g->noop, g->stream, 1, 1, params, 1); break;
            case OP_RECORD: st = gg_event_record(g->event, g->stream); break;
            case OP_EVENT_QUERY: st = gg_event_query(g->event); break;
            default: st = gg_stream_query(g->stream); break;
            }
            bad += !wrapped_ok(st);
        } else {
            int rc = 0;
            switch (which) {
            case OP_LAUNCH: rc = g->api.launch(g->raw_noop, 1, 1, 1, 1, 1, 1, 0, g->raw_stream, params, NULL); break;
            case OP_RECORD: rc = g->api.event_record(g->raw_event, g->raw_stream); break;
            case OP_EVENT_QUERY: rc = g->api.event_query(g->raw_event); break;
            default: rc = g->api.stream_query(g->raw_stream); break;
            }
            bad += !direct_ok(rc);
        }
    }
    double ns = (gc_now_ms() - t0) * 1e6 / n;
    if (which == OP_LAUNCH || which == OP_RECORD) {
        if (wrapped)
            bad += gg_stream_synchronize(g->stream, 0) != GG_OK;
        else
            bad += g->api.stream_synchronize(g->raw_stream) != CU_SUCCESS;
    }
    g->failures += bad;
    return ns;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void check_bench(const gc_env *env, gc_result *r)
{
    if (env->hip)
        return gc_skip(r, "the direct-call baseline is written for the CUDA driver API only");
    static rig g;
    gc_session s;
    if (!gc_init(r, env, NULL) || !gc_open(r, env, "bench", &s) || !load_api(r, env, &g.api) ||
        !gc_kernel(r, &s, "noop", &g.noop) || !gc_ok(r, gg_event_create(s.ctx, &(gg_event_desc){ .tag = "bench" }, &g.event), "gg_event_create") ||
        /* Both sides work in this one context, current for the direct calls. */
        !gc_ok(r, gg_context_push(s.ctx), "gg_context_push"))
        return;
    g.stream = s.stream;
    if (g.api.module_load(&g.raw_module, env->kernel_image) != CU_SUCCESS ||
        g.api.get_function(&g.raw_noop, g.raw_module, "noop") != CU_SUCCESS ||
        g.api.stream_create(&g.raw_stream, 1) != CU_SUCCESS || /* CU_STREAM_NON_BLOCKING, as gpuguard's */
        g.api.event_create(&g.raw_event, 0) != CU_SUCCESS)     /* CU_EVENT_DEFAULT, as gpuguard's */
        return (void)gc_fail(r, "setting up the direct side failed");
    int repeats = env->quick ? 7 : 31;
    int chunk[OP_COUNT] = { 200, 200, 2000, 2000 };
    if (env->simulated) /* not the fast mode: every launch runs on a worker */
        chunk[OP_LAUNCH] = chunk[OP_RECORD] = 50;
    cJSON *ops = cJSON_AddObjectToObject(r->figures, "ops");
    char summary[512] = "";
    size_t used = 0;
    for (op which = 0; which < OP_COUNT; which++) {
        double direct[64], wrapped[64], diff[64];
        run_side(&g, which, false, chunk[which]); /* warm-up: lazy module loading, first-call costs */
        run_side(&g, which, true, chunk[which]);
        for (int p = 0; p < repeats; p++) {
            bool direct_first = p % 2 == 0;
            double a = run_side(&g, which, !direct_first, chunk[which]);
            double b = run_side(&g, which, direct_first, chunk[which]);
            direct[p] = direct_first ? a : b;
            wrapped[p] = direct_first ? b : a;
            diff[p] = wrapped[p] - direct[p];
        }
        qsort(direct, repeats, sizeof(double), compare_doubles);
        qsort(wrapped, repeats, sizeof(double), compare_doubles);
        qsort(diff, repeats, sizeof(double), compare_doubles);
        cJSON *o = cJSON_AddObjectToObject(ops, op_names[which]);
        cJSON_AddNumberToObject(o, "direct_ns", direct[repeats / 2]);
        cJSON_AddNumberToObject(o, "gpuguard_ns", wrapped[repeats / 2]);
        cJSON_AddNumberToObject(o, "overhead_ns", diff[repeats / 2]);
        cJSON_AddNumberToObject(o, "overhead_p25_ns", diff[repeats / 4]);
        cJSON_AddNumberToObject(o, "overhead_p75_ns", diff[(3 * repeats) / 4]);
        cJSON_AddNumberToObject(o, "calls_per_chunk", chunk[which]);
        used += (size_t)snprintf(summary + used, sizeof summary - used, "%s%s %.0f+%.0f ns", used ? ", " : "",
                                 op_names[which], direct[repeats / 2], diff[repeats / 2]);
    }
    gc_figure_num(r, "pairs", repeats);
    g.api.event_destroy(g.raw_event);
    g.api.stream_destroy(g.raw_stream);
    g.api.module_unload(g.raw_module);
    gg_context pop;
    gg_context_pop(&pop);
    if (g.failures != 0)
        return (void)gc_fail(r, "%d calls failed during the benchmark", g.failures);
    gc_note(r, "direct + gpuguard's overhead (median of %d pairs): %s", repeats, summary);
}
