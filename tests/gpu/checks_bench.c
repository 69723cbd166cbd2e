/* Checks: what gpuguard adds to launch, event record, event query and stream
 * query on this driver, against the same driver calls made directly (the
 * method of bench/gg_bench.c, which measures it over the simulator's fast
 * mode: alternating chunks of calls, the median of per-pair differences);
 * and what the completion timeline costs a launch (on against off), with
 * the mechanism the device offers for it. */
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
    /* For naming the timeline's mechanism (optional: NULL when absent). */
    int (*device_get_attribute)(int *value, int attribute, int device);
    void *write_value64_v2, *write_value64_v1;
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
    *(void **)&api->device_get_attribute = dlsym(h, "cuDeviceGetAttribute");
    api->write_value64_v2 = dlsym(h, "cuStreamWriteValue64_v2");
    api->write_value64_v1 = dlsym(h, "cuStreamWriteValue64");
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
            bad += gg_stream_synchronize(g->stream, NULL) != GG_OK;
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

typedef struct op_figures {
    double direct, wrapped, overhead, p25, p75; /* medians (ns per call); overhead's quartiles */
} op_figures;

/* Alternating chunks of `chunk` calls of `which`, direct and through
 * gpuguard, `repeats` pairs (at most 64). */
static op_figures measure(rig *g, op which, int repeats, int chunk)
{
    double direct[64], wrapped[64], diff[64];
    run_side(g, which, false, chunk); /* warm-up: lazy module loading, first-call costs */
    run_side(g, which, true, chunk);
    for (int p = 0; p < repeats; p++) {
        bool direct_first = p % 2 == 0;
        double a = run_side(g, which, !direct_first, chunk);
        double b = run_side(g, which, direct_first, chunk);
        direct[p] = direct_first ? a : b;
        wrapped[p] = direct_first ? b : a;
        diff[p] = wrapped[p] - direct[p];
    }
    qsort(direct, repeats, sizeof(double), compare_doubles);
    qsort(wrapped, repeats, sizeof(double), compare_doubles);
    qsort(diff, repeats, sizeof(double), compare_doubles);
    return (op_figures){ direct[repeats / 2], wrapped[repeats / 2], diff[repeats / 2], diff[repeats / 4],
                         diff[(3 * repeats) / 4] };
}

/* gg_init over `desc`, a session, the event and both sides' objects; the
 * context pushed (both sides work in it, current for the direct calls). */
static bool rig_open(rig *g, gc_result *r, const gc_env *env, const gg_init_desc *desc, gc_session *s)
{
    if (!gc_init(r, env, desc) || !gc_open(r, env, "bench", s) || !load_api(r, env, &g->api) ||
        !gc_kernel(r, s, "noop", &g->noop) ||
        !gc_ok(r, gg_event_create(s->ctx, &(gg_event_desc){ .struct_size = sizeof(gg_event_desc), .tag = "bench" }, &g->event), "gg_event_create") ||
        !gc_ok(r, gg_context_push(s->ctx), "gg_context_push"))
        return false;
    g->stream = s->stream;
    if (g->api.module_load(&g->raw_module, env->kernel_image) != CU_SUCCESS ||
        g->api.get_function(&g->raw_noop, g->raw_module, "noop") != CU_SUCCESS ||
        g->api.stream_create(&g->raw_stream, 1) != CU_SUCCESS || /* CU_STREAM_NON_BLOCKING, as gpuguard's */
        g->api.event_create(&g->raw_event, 0) != CU_SUCCESS)     /* CU_EVENT_DEFAULT, as gpuguard's */
        return gc_fail(r, "setting up the direct side failed");
    return true;
}

static void rig_close(rig *g)
{
    g->api.event_destroy(g->raw_event);
    g->api.stream_destroy(g->raw_stream);
    g->api.module_unload(g->raw_module);
    gg_context pop;
    gg_context_pop(&pop);
}

void check_bench(const gc_env *env, gc_result *r)
{
    if (env->hip)
        return gc_skip(r, "the direct-call baseline is written for the CUDA driver API only");
    static rig g;
    gc_session s;
    if (!rig_open(&g, r, env, NULL, &s))
        return;
    int repeats = env->quick ? 7 : 31;
    int chunk[OP_COUNT] = { 200, 200, 2000, 2000 };
    if (env->simulated) /* not the fast mode: every launch runs on a worker */
        chunk[OP_LAUNCH] = chunk[OP_RECORD] = 50;
    cJSON *ops = cJSON_AddObjectToObject(r->figures, "ops");
    char summary[512] = "";
    size_t used = 0;
    for (op which = 0; which < OP_COUNT; which++) {
        op_figures m = measure(&g, which, repeats, chunk[which]);
        cJSON *o = cJSON_AddObjectToObject(ops, op_names[which]);
        cJSON_AddNumberToObject(o, "direct_ns", m.direct);
        cJSON_AddNumberToObject(o, "gpuguard_ns", m.wrapped);
        cJSON_AddNumberToObject(o, "overhead_ns", m.overhead);
        cJSON_AddNumberToObject(o, "overhead_p25_ns", m.p25);
        cJSON_AddNumberToObject(o, "overhead_p75_ns", m.p75);
        cJSON_AddNumberToObject(o, "calls_per_chunk", chunk[which]);
        used += (size_t)snprintf(summary + used, sizeof summary - used, "%s%s %.0f+%.0f ns", used ? ", " : "",
                                 op_names[which], m.direct, m.overhead);
    }
    gc_figure_num(r, "pairs", repeats);
    rig_close(&g);
    if (g.failures != 0)
        return (void)gc_fail(r, "%d calls failed during the benchmark", g.failures);
    gc_note(r, "direct + gpuguard's overhead (median of %d pairs): %s", repeats, summary);
}

/* The mechanism the timeline would use on env's device, as gpuguard's CUDA
 * backend decides it (cuda_backend.c, stream_mem_ops): a 64-bit stream
 * write after every launch where the device says it runs them (attribute
 * 122, CAN_USE_64_BIT_STREAM_MEM_OPS, for the 11.7 _v2 API; 92/93 before),
 * else none (GG_TIMELINE_ON then still asks for the write). */
static void name_mechanism(gc_result *r, const gc_env *env, const direct_api *api, char *out, size_t size)
{
    int v2 = -1, v1 = -1, v1_wide = -1;
    if (api->device_get_attribute != NULL) {
        if (api->device_get_attribute(&v2, 122, env->device) != CU_SUCCESS)
            v2 = -1;
        if (api->device_get_attribute(&v1, 92, env->device) != CU_SUCCESS)
            v1 = -1;
        if (api->device_get_attribute(&v1_wide, 93, env->device) != CU_SUCCESS)
            v1_wide = -1;
    }
    gc_figure_num(r, "attr_can_use_64_bit_stream_mem_ops", v2);
    gc_figure_num(r, "attr_can_use_stream_mem_ops_v1", v1);
    gc_figure_num(r, "attr_can_use_64_bit_stream_mem_ops_v1", v1_wide);
    if (api->write_value64_v2 != NULL)
        snprintf(out, size, v2 > 0 ? "cuStreamWriteValue64_v2 after every launch (attribute 122 = %d)"
                                   : "none by default: attribute 122 = %d (GG_TIMELINE_ON still writes)", v2);
    else if (api->write_value64_v1 != NULL)
        snprintf(out, size, v1 > 0 && v1_wide > 0 ? "cuStreamWriteValue64 (v1) after every launch (attributes "
                                                     "92 = %d, 93 = %d)"
                                                   : "none by default: attributes 92 = %d, 93 = %d "
                                                     "(GG_TIMELINE_ON still writes)", v1, v1_wide);
    else
        snprintf(out, size, "none: the driver has no cuStreamWriteValue64");
    gc_figure_str(r, "mechanism", out);
}

/* Check: what the completion timeline costs a launch on this device: launch
 * overhead (against direct cuLaunchKernel) with GG_TIMELINE_ON and with
 * GG_TIMELINE_OFF, each over its own gg_init, and the mechanism. */
void check_timeline_cost(const gc_env *env, gc_result *r)
{
    if (env->hip)
        return gc_skip(r, "the direct-call baseline is written for the CUDA driver API only");
    static const gg_timeline_mode modes[2] = { GG_TIMELINE_ON, GG_TIMELINE_OFF };
    static const char *const names[2] = { "on", "off" };
    int repeats = env->quick ? 7 : 31;
    int chunk = env->simulated ? 50 : 200;
    op_figures m[2];
    char mechanism[200] = "";
    for (int i = 0; i < 2; i++) {
        static rig g;
        memset(&g, 0, sizeof g);
        gc_session s;
        gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .timeline = modes[i] };
        if (!rig_open(&g, r, env, &desc, &s))
            return;
        if (i == 0)
            name_mechanism(r, env, &g.api, mechanism, sizeof mechanism);
        m[i] = measure(&g, OP_LAUNCH, repeats, chunk);
        rig_close(&g);
        gg_shutdown();
        if (g.failures != 0)
            return (void)gc_fail(r, "%d calls failed with the timeline %s", g.failures, names[i]);
        char key[32];
        snprintf(key, sizeof key, "launch_timeline_%s", names[i]);
        cJSON *o = cJSON_AddObjectToObject(r->figures, key);
        cJSON_AddNumberToObject(o, "direct_ns", m[i].direct);
        cJSON_AddNumberToObject(o, "gpuguard_ns", m[i].wrapped);
        cJSON_AddNumberToObject(o, "overhead_ns", m[i].overhead);
        cJSON_AddNumberToObject(o, "overhead_p25_ns", m[i].p25);
        cJSON_AddNumberToObject(o, "overhead_p75_ns", m[i].p75);
    }
    gc_figure_num(r, "pairs", repeats);
    gc_figure_num(r, "calls_per_chunk", chunk);
    gc_figure_num(r, "timeline_cost_ns", m[0].overhead - m[1].overhead);
    /* What GG_TIMELINE_AUTO decides here from its own measurement (its
     * context's launches 17 to 48; gg_context_timeline): the stride it
     * chose, and the figures it weighed. */
    gg_timeline_info autoinfo = GG_TIMELINE_INFO_INIT;
    {
        static rig g;
        memset(&g, 0, sizeof g);
        gc_session s;
        gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .timeline = GG_TIMELINE_AUTO };
        if (!rig_open(&g, r, env, &desc, &s))
            return;
        measure(&g, OP_LAUNCH, env->quick ? 3 : 7, chunk); /* hundreds of launches: past the 48 */
        gg_status st = gg_context_timeline(s.ctx, &autoinfo);
        rig_close(&g);
        gg_shutdown();
        if (!gc_ok(r, st, "gg_context_timeline"))
            return;
    }
    static const char *const bases[] = { "none", "set", "measuring", "measured" };
    cJSON *a = cJSON_AddObjectToObject(r->figures, "auto");
    cJSON_AddStringToObject(a, "basis", (unsigned)autoinfo.basis < 4 ? bases[autoinfo.basis] : "?");
    cJSON_AddNumberToObject(a, "stride", autoinfo.stride);
    cJSON_AddNumberToObject(a, "budget_percent", autoinfo.budget_percent);
    cJSON_AddNumberToObject(a, "samples", autoinfo.samples);
    cJSON_AddNumberToObject(a, "samples_device_idle", autoinfo.samples_device_idle);
    cJSON_AddNumberToObject(a, "launch_ns", (double)autoinfo.launch_ns);
    cJSON_AddNumberToObject(a, "mark_ns", (double)autoinfo.mark_ns);
    cJSON_AddStringToObject(a, "why", autoinfo.why ? autoinfo.why : "");
    gc_note(r, "launch %.0f ns direct; gpuguard adds %.0f ns with the timeline on, %.0f ns off: the timeline "
            "costs %.0f ns a launch (%.0f%% of the direct launch); mechanism: %s; auto (budget %u%%): %s, stride "
            "%u (launch %llu ns, mark %llu ns, device idle in %u of %u samples): %s",
            m[0].direct, m[0].overhead, m[1].overhead, m[0].overhead - m[1].overhead,
            m[0].direct > 0 ? 100.0 * (m[0].overhead - m[1].overhead) / m[0].direct : 0.0, mechanism,
            autoinfo.budget_percent, (unsigned)autoinfo.basis < 4 ? bases[autoinfo.basis] : "?", autoinfo.stride,
            (unsigned long long)autoinfo.launch_ns, (unsigned long long)autoinfo.mark_ns,
            autoinfo.samples_device_idle, autoinfo.samples, autoinfo.why ? autoinfo.why : "");
}
