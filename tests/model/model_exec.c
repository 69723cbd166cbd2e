/*
 * The executor and the referee of the model-based attribution tester
 * (tests/model/README.md). The executor runs a program against gpuguard
 * and keeps its own model of every launch gpuguard accepted (its context,
 * stream, kernel and sequence number, and its place in its native
 * context). The referee reads the simulator's ground truth
 * (gg_sim_truth_launches) and checks gpuguard's culprits and its GG_OK
 * synchronizes against it, never using gpuguard's attribution code.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "model/model.h"

#include "gpuguard/gg_sim_control.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the process: one simulator configuration -------------------------- */

static void *sim_lib;
/* HIP: the simulator's own device calls, to reset both devices between
 * programs (a destroyed gg context leaves its work running in the
 * device's primary context; gpuguard keeps its timeline page while it
 * does, and the next program must not inherit either). */
static int (*hip_set_device)(int);
static int (*hip_device_reset)(void);
static gg_sim_truth_launches_fn truth_launches;
static gg_sim_truth_reset_fn truth_reset;
static gg_sim_live_objects_fn sim_live_objects;

/* How long device 0's watchdog lets a kernel run, and how long an overrun
 * runs on device 1 (no watchdog). */
#define WATCHDOG_MS 150
#define OVERRUN_US 40000
/* A candidate whose launch completed this close before the fault may have
 * lost its completion mark to the fault (the mark runs after the kernel,
 * and a poisoned context discards what has not run yet). */
#define MARK_GRACE_NS (50ull * 1000000ull)

bool model_process_setup(const model_env *env)
{
    static const char *const overrides[] = { "GPUGUARD_BACKEND", "GPUGUARD_TIMELINE", "GPUGUARD_SYNC_LAUNCHES",
                                             "GPUGUARD_TIMELINE_STRIDE", "GPUGUARD_TIMELINE_BUDGET",
                                             "GPUGUARD_TIMEOUT_POLICY", "GPUGUARD_WATCHDOG", "GPUGUARD_FAULTS",
                                             "GPUGUARD_WAIT_TIMEOUT_MS", "GPUGUARD_FAIL_HOST_ALLOC",
                                             "GPUGUARD_CUDA_LIBRARY", "GPUGUARD_HIP_LIBRARY" };
    for (size_t i = 0; i < sizeof overrides / sizeof overrides[0]; i++)
        unsetenv(overrides[i]);
    /* Kept loaded for the whole process: gpuguard's dlopen of the same
     * path gets this instance, and its controls stay reachable after
     * gg_shutdown. */
    sim_lib = dlopen(env->library, RTLD_NOW | RTLD_LOCAL);
    if (sim_lib == NULL) {
        fprintf(stderr, "model: cannot load the simulator %s: %s\n", env->library, dlerror());
        return false;
    }
    /* The kernels too: the simulator dlopens and dlcloses them with each
     * module; kept mapped, code instrumented for coverage (the fuzz build)
     * never goes away under libFuzzer. */
    if (dlopen(env->kernels_path, RTLD_NOW | RTLD_LOCAL) == NULL) {
        fprintf(stderr, "model: cannot load the kernels %s: %s\n", env->kernels_path, dlerror());
        return false;
    }
    truth_launches = (gg_sim_truth_launches_fn)dlsym(sim_lib, "gg_sim_truth_launches");
    truth_reset = (gg_sim_truth_reset_fn)dlsym(sim_lib, "gg_sim_truth_reset");
    sim_live_objects = (gg_sim_live_objects_fn)dlsym(sim_lib, "gg_sim_live_objects");
    hip_set_device = (int (*)(int))dlsym(sim_lib, "hipSetDevice");
    hip_device_reset = (int (*)(void))dlsym(sim_lib, "hipDeviceReset");
    if (truth_launches == NULL || truth_reset == NULL) {
        truth_launches = NULL;
        fprintf(stderr, "model: the simulator has no ground truth (gg_sim_truth_launches): only the checks "
                        "that need none run\n");
    }
    char version[48] = "";
    if (env->driver_version != 0)
        snprintf(version, sizeof version, ",\"driver_version\":%d", env->driver_version);
    char config[1024];
    /* Errors kept per context: the model runs many seeds in one process and
     * models a context's death, not the process-wide poison of CUDA's
     * drivers (not modelled yet: tests/core/test_process_poison.c and
     * tests/sim cover it). */
    snprintf(config, sizeof config,
             "{\"sticky_scope\":\"context\",%s\"devices\":[{\"watchdog\":true,\"watchdog_ms\":%d},{\"watchdog\":false}],"
             "\"misbehave\":[{\"kernel\":\"model_fault_now\",\"action\":\"fault\"},"
             "{\"kernel\":\"model_hang\",\"action\":\"hang\"},"
             "{\"kernel\":\"model_overrun\",\"action\":\"overrun\",\"block_us\":%d}]%s}",
             truth_launches ? "\"record_launches\":true," : "", WATCHDOG_MS, OVERRUN_US, version);
    setenv("GPUGUARD_SIM_CONFIG", config, 1);
    return true;
}

bool model_truth_available(void)
{
    return truth_launches != NULL;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(uint32_t ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ---- the model ---------------------------------------------------------- */

static const char *const kernel_symbol[MK_COUNT] = { "model_ok", "model_fault_now", "model_fault_late",
                                                     "model_hang", "model_overrun", "model_slow" };

typedef struct xlaunch {
    uint64_t gg_ctx;        /* the gg context's id */
    uint64_t seq;           /* gpuguard's sequence number in it */
    uint64_t stream_id;     /* the gg stream's id; 0: the default stream */
    uint64_t native_stream; /* as the truth names it; 0: the null stream */
    size_t native;          /* index in run.natives */
    uint64_t number;        /* its number in the native context (the truth's) */
    uint8_t kernel;
    uint32_t ms;
    size_t step;
} xlaunch;

typedef struct ids {
    size_t *v;
    size_t n, cap;
} ids;

static void ids_push(ids *a, size_t x)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 64;
        a->v = realloc(a->v, a->cap * sizeof *a->v);
        if (a->v == NULL)
            abort();
    }
    a->v[a->n++] = x;
}

/* A native context: the launches accepted in it, in order. */
typedef struct xnative {
    void *handle;
    ids launches;
    /* Where its current life began in `launches`: a HIP primary context
     * keeps its handle (and the truth its records) through a reset. */
    size_t epoch;
    bool mismatch_reported;
} xnative;

typedef struct xctx {
    bool live;
    gg_context h;
    int device;
    size_t native; /* index in run.natives */
    gg_module module;
    gg_kernel kernels[MK_COUNT];
    bool kernels_ok;
    ids by_seq; /* launch index of sequence number i+1 */
    gg_state last_state;
} xctx;

typedef struct xstream {
    bool live;
    uint8_t ctx;
    gg_stream h;
    uint64_t native;
} xstream;

typedef struct xevent {
    bool live;
    uint8_t ctx;
    gg_event h;
    bool recorded;
    uint64_t stream_id; /* where it was last recorded */
    size_t native;
    size_t mark; /* launches before the record: index < mark */
} xevent;

typedef struct run {
    const model_env *env;
    const model_program *p;
    const char *label;
    size_t step;
    uint64_t step_start_ns;
    unsigned failures;
    bool script_printed;
    xlaunch *launches;
    size_t nlaunches, cap_launches;
    xnative *natives;
    size_t nnatives;
    xctx ctx[MODEL_CTX];
    xstream streams[MODEL_STREAMS];
    xevent events[MODEL_EVENTS];
} run;

static size_t native_index(run *r, void *handle)
{
    for (size_t i = 0; i < r->nnatives; i++)
        if (r->natives[i].handle == handle)
            return i;
    xnative *n = realloc(r->natives, (r->nnatives + 1) * sizeof *n);
    if (n == NULL)
        abort();
    r->natives = n;
    memset(&r->natives[r->nnatives], 0, sizeof r->natives[0]);
    r->natives[r->nnatives].handle = handle;
    return r->nnatives++;
}

static void new_epoch(run *r, size_t native)
{
    r->natives[native].epoch = r->natives[native].launches.n;
}

static bool is_hip(const run *r)
{
    return strcmp(r->env->backend, "sim-hip") == 0;
}

/* Says something worth knowing that is not a check failure. */
static void note(run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(run *r, const char *fmt, ...)
{
    char line[128] = "";
    if (r->step < r->p->count)
        model_print_step(&r->p->steps[r->step], line, sizeof line);
    fprintf(stderr, "model note [%s] step %zu (%s): ", r->label, r->step, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static xlaunch *launch_by_seq(run *r, int c, uint64_t seq)
{
    xctx *x = &r->ctx[c];
    if (seq == 0 || seq > x->by_seq.n)
        return NULL;
    return &r->launches[x->by_seq.v[seq - 1]];
}

/* ---- the truth ----------------------------------------------------------- */

typedef struct truthv {
    gg_sim_launch_truth *rec;
    uint64_t n;
} truthv;

static uint64_t truth_count(void *native)
{
    return truth_launches ? truth_launches(native, NULL, 0) : 0;
}

static bool truth_read(void *native, truthv *t)
{
    t->rec = NULL;
    t->n = 0;
    if (truth_launches == NULL)
        return false;
    for (int attempt = 0; attempt < 4; attempt++) {
        uint64_t n = truth_launches(native, NULL, 0);
        free(t->rec);
        t->rec = calloc(n ? n : 1, sizeof *t->rec);
        if (t->rec == NULL)
            abort();
        uint64_t got = truth_launches(native, t->rec, n);
        if (got <= n) {
            t->n = got;
            return true;
        }
    }
    t->n = 0;
    return true;
}

static const char *state_name(int s)
{
    static const char *const names[] = { "QUEUED", "RUNNING", "COMPLETED", "FAULTED", "TIMED_OUT", "DISCARDED" };
    return s >= 0 && s <= 5 ? names[s] : "?";
}

static const char *certainty_name(gg_attribution a)
{
    return a == GG_ATTRIBUTION_EXACT ? "EXACT" : a == GG_ATTRIBUTION_WINDOW ? "WINDOW" : a == GG_ATTRIBUTION_NONE ? "NONE" : "?";
}

/* ---- reports ------------------------------------------------------------- */

static void print_script(run *r)
{
    fprintf(stderr, "  program (%zu steps; '>' marks the failing one):\n", r->p->count);
    for (size_t i = 0; i < r->p->count; i++) {
        char line[128];
        model_print_step(&r->p->steps[i], line, sizeof line);
        fprintf(stderr, "  %s %4zu  %s\n", i == r->step ? ">" : " ", i, line);
    }
}

static void print_said(const gg_error_info *e)
{
    if (e == NULL)
        return;
    const gg_culprit *c = &e->culprit;
    fprintf(stderr, "  gpuguard says: status %s, culprit %s kernel '%s' launch #%llu on stream 0x%llx, window "
                    "#%llu..#%llu (%u), %u candidate(s)",
            gg_status_name(e->status), certainty_name(c->certainty), c->kernel_name,
            (unsigned long long)c->sequence, (unsigned long long)c->stream.id,
            (unsigned long long)c->window_first, (unsigned long long)c->window_last, c->window_count,
            c->candidate_count);
    for (uint32_t i = 0; i < c->candidate_count && i < GG_CULPRIT_CANDIDATES_MAX; i++)
        fprintf(stderr, "%s '%s' #%llu on 0x%llx", i ? "," : ":", c->candidates[i].kernel_name,
                (unsigned long long)c->candidates[i].sequence, (unsigned long long)c->candidates[i].stream.id);
    fprintf(stderr, "\n  message: %s\n", e->message);
}

/* The truth's launches of a native context, with the model's names for
 * them: the ones not COMPLETED and those that poisoned it (at most 16). */
static void print_truth(run *r, size_t native)
{
    if (truth_launches == NULL) {
        fprintf(stderr, "  truth: not available (the simulator does not record launches)\n");
        return;
    }
    xnative *nat = &r->natives[native];
    truthv t;
    truth_read(nat->handle, &t);
    unsigned by_state[6] = { 0 };
    for (uint64_t i = 0; i < t.n; i++)
        if (t.rec[i].state >= 0 && t.rec[i].state <= 5)
            by_state[t.rec[i].state]++;
    fprintf(stderr, "  truth (native context %p): %llu launches: %u queued, %u running, %u completed, %u faulted, "
                    "%u timed out, %u discarded\n",
            nat->handle, (unsigned long long)t.n, by_state[0], by_state[1], by_state[2], by_state[3], by_state[4],
            by_state[5]);
    unsigned shown = 0;
    for (uint64_t i = 0; i < t.n && shown < 16; i++) {
        const gg_sim_launch_truth *rec = &t.rec[i];
        if (rec->state == GG_SIM_LAUNCH_COMPLETED && !rec->poisoned_context)
            continue;
        const xlaunch *l = i < nat->launches.n ? &r->launches[nat->launches.v[i]] : NULL;
        fprintf(stderr, "    truth #%llu %s on stream 0x%llx: %s%s, started %+.1f ms, ended %+.1f ms (vs this "
                        "step's start)",
                (unsigned long long)rec->number, rec->kernel, rec->stream, state_name(rec->state),
                rec->poisoned_context ? " POISONED THE CONTEXT" : "",
                rec->started_ns ? ((double)rec->started_ns - (double)r->step_start_ns) / 1e6 : -0.0,
                rec->ended_ns ? ((double)rec->ended_ns - (double)r->step_start_ns) / 1e6 : 0.0);
        if (l != NULL)
            fprintf(stderr, " = gpuguard launch #%llu on stream 0x%llx (step %zu)\n", (unsigned long long)l->seq,
                    (unsigned long long)l->stream_id, l->step);
        else
            fprintf(stderr, " (not in the model)\n");
        shown++;
    }
    free(t.rec);
}

static void failure(run *r, const gg_error_info *said, long native, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void failure(run *r, const gg_error_info *said, long native, const char *fmt, ...)
{
    r->failures++;
    char line[128] = "";
    if (r->step < r->p->count)
        model_print_step(&r->p->steps[r->step], line, sizeof line);
    fprintf(stderr, "==== MODEL CHECK FAILED [%s] step %zu: %s\n  ", r->label, r->step, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    print_said(said);
    if (native >= 0)
        print_truth(r, (size_t)native);
    if (!r->script_printed) {
        print_script(r);
        r->script_printed = true;
    }
    fprintf(stderr, "====\n");
}

/* ---- the referee --------------------------------------------------------- */

/* The truth of a native context, checked against the model (each record
 * the model's launch of that number: kernel and stream). False (and one
 * report per native context) when they disagree. */
static bool truth_matched(run *r, size_t native, truthv *t)
{
    xnative *nat = &r->natives[native];
    if (!truth_read(nat->handle, t))
        return false;
    const char *why = NULL;
    char detail[256] = "";
    if (t->n != nat->launches.n) {
        why = "counts";
        snprintf(detail, sizeof detail, "the truth has %llu launches, the model %zu", (unsigned long long)t->n,
                 nat->launches.n);
    }
    for (uint64_t i = 0; why == NULL && i < t->n; i++) {
        const xlaunch *l = &r->launches[nat->launches.v[i]];
        if (t->rec[i].number != i + 1 || strcmp(t->rec[i].kernel, kernel_symbol[l->kernel]) != 0 ||
            t->rec[i].stream != l->native_stream) {
            why = "record";
            snprintf(detail, sizeof detail,
                     "truth record %llu is #%llu '%s' on stream 0x%llx; the model's launch %llu there is '%s' on "
                     "0x%llx",
                     (unsigned long long)i + 1, (unsigned long long)t->rec[i].number, t->rec[i].kernel,
                     t->rec[i].stream, (unsigned long long)i + 1, kernel_symbol[l->kernel],
                     (unsigned long long)l->native_stream);
        }
    }
    if (why == NULL)
        return true;
    if (!nat->mismatch_reported) {
        nat->mismatch_reported = true;
        failure(r, NULL, -1, "REFEREE: the truth of native context %p does not match the model: %s", nat->handle,
                detail);
    }
    free(t->rec);
    t->rec = NULL;
    t->n = 0;
    return false;
}

static const gg_sim_launch_truth *truth_of(const truthv *t, const xlaunch *l)
{
    return l->number >= 1 && l->number <= t->n ? &t->rec[l->number - 1] : NULL;
}

/* Not ended when the step began. */
static bool unfinished_at_start(const run *r, const gg_sim_launch_truth *rec)
{
    return rec->ended_ns == 0 || rec->ended_ns > r->step_start_ns;
}

/* The numbers a message names must be those launches': "kernel 'K' (launch
 * #N", "kernel 'K' #N", "kernel 'K', launch #N"; "one of C unfinished
 * launches #A..#B" must fit C launches in the range. */
static void check_message(run *r, int c, const gg_error_info *e, size_t native)
{
    const char *m = e->message;
    for (const char *k = strstr(m, "kernel '"); k != NULL; k = strstr(k + 1, "kernel '")) {
        const char *name = k + 8;
        const char *q = strchr(name, '\'');
        if (q == NULL)
            break;
        unsigned long long n;
        int used = 0;
        if (sscanf(q + 1, " (launch #%llu%n", &n, &used) != 1 && sscanf(q + 1, " #%llu%n", &n, &used) != 1 &&
            sscanf(q + 1, ", launch #%llu%n", &n, &used) != 1)
            continue;
        const xlaunch *l = launch_by_seq(r, c, n);
        size_t len = (size_t)(q - name);
        if (l == NULL)
            failure(r, e, (long)native, "the message names launch #%llu ('%.*s'), which gpuguard never accepted in "
                                         "this context (%zu launches)", n, (int)len, name, r->ctx[c].by_seq.n);
        else if (strlen(kernel_symbol[l->kernel]) != len || strncmp(kernel_symbol[l->kernel], name, len) != 0)
            failure(r, e, (long)native, "the message names launch #%llu as '%.*s'; that launch is '%s' (step %zu)",
                    n, (int)len, name, kernel_symbol[l->kernel], l->step);
    }
    const char *w = strstr(m, "unfinished launches #");
    if (w != NULL) {
        const char *of = w;
        while (of > m && strncmp(of, "one of ", 7) != 0)
            of--;
        unsigned long long count, a, b;
        if (sscanf(of, "one of %llu unfinished launches #%llu..#%llu", &count, &a, &b) == 3 &&
            (a > b || count > b - a + 1))
            failure(r, e, (long)native, "the message's window '%llu launches #%llu..#%llu' cannot hold them", count,
                    a, b);
    }
}

/* A WINDOW's suspect or candidate that gpuguard could not name: its record
 * was overwritten (more launches queued behind it than the records kept
 * per stream), so it has neither kernel name nor sequence number. */
static bool unknown_entry(const char *kernel, uint64_t seq)
{
    return seq == 0 && kernel[0] == '\0';
}

/* A candidate of a culprit (suspect or listed): one of the model's
 * launches, by sequence number, kernel and stream. */
static const xlaunch *check_named(run *r, int c, const gg_error_info *e, size_t native, const char *what,
                                  const char *kernel, uint64_t seq, uint64_t stream)
{
    const xlaunch *l = launch_by_seq(r, c, seq);
    if (l == NULL) {
        failure(r, e, (long)native, "%s names launch #%llu, which gpuguard never accepted in this context (%zu "
                                    "launches)", what, (unsigned long long)seq, r->ctx[c].by_seq.n);
        return NULL;
    }
    /* '' is a launch whose name was not kept (past the records kept per
     * stream): unknown, not wrong. */
    if ((kernel[0] != '\0' && strcmp(kernel, kernel_symbol[l->kernel]) != 0) || stream != l->stream_id) {
        failure(r, e, (long)native, "%s names '%s' #%llu on stream 0x%llx; launch #%llu is '%s' on stream 0x%llx "
                                    "(step %zu)", what, kernel, (unsigned long long)seq,
                (unsigned long long)stream, (unsigned long long)seq, kernel_symbol[l->kernel],
                (unsigned long long)l->stream_id, l->step);
        return NULL;
    }
    return l;
}

/* Checks what a culprit says of itself, and of the model: the numbers
 * name launches gpuguard accepted, the window can hold its count. */
static void check_culprit_shape(run *r, int c, const gg_error_info *e, size_t native)
{
    const gg_culprit *cul = &e->culprit;
    if (cul->certainty == GG_ATTRIBUTION_NONE)
        return;
    if (cul->certainty != GG_ATTRIBUTION_EXACT && cul->certainty != GG_ATTRIBUTION_WINDOW) {
        failure(r, e, (long)native, "certainty %d is not a gg_attribution", (int)cul->certainty);
        return;
    }
    bool window = cul->certainty == GG_ATTRIBUTION_WINDOW;
    if (!(window && unknown_entry(cul->kernel_name, cul->sequence)))
        check_named(r, c, e, native, window ? "the WINDOW's suspect" : "the EXACT culprit", cul->kernel_name,
                    cul->sequence, cul->stream.id);
    if (cul->certainty == GG_ATTRIBUTION_EXACT) {
        if (cul->window_count != 1 || cul->window_first != cul->sequence || cul->window_last != cul->sequence)
            failure(r, e, (long)native, "an EXACT culprit #%llu with the window #%llu..#%llu (%u)",
                    (unsigned long long)cul->sequence, (unsigned long long)cul->window_first,
                    (unsigned long long)cul->window_last, cul->window_count);
    } else {
        if (cul->window_count < 1 || cul->window_first > cul->window_last ||
            cul->window_count > cul->window_last - cul->window_first + 1)
            failure(r, e, (long)native, "a WINDOW of %u launches #%llu..#%llu cannot hold them", cul->window_count,
                    (unsigned long long)cul->window_first, (unsigned long long)cul->window_last);
        if (!unknown_entry(cul->kernel_name, cul->sequence) &&
            (cul->sequence < cul->window_first || cul->sequence > cul->window_last))
            failure(r, e, (long)native, "the WINDOW's suspect #%llu is outside its window #%llu..#%llu",
                    (unsigned long long)cul->sequence, (unsigned long long)cul->window_first,
                    (unsigned long long)cul->window_last);
        for (uint32_t i = 0; i < cul->candidate_count && i < GG_CULPRIT_CANDIDATES_MAX; i++) {
            if (unknown_entry(cul->candidates[i].kernel_name, cul->candidates[i].sequence))
                continue;
            char what[48];
            snprintf(what, sizeof what, "candidate %u", i);
            check_named(r, c, e, native, what, cul->candidates[i].kernel_name, cul->candidates[i].sequence,
                        cul->candidates[i].stream.id);
            if (cul->candidates[i].sequence < cul->window_first || cul->candidates[i].sequence > cul->window_last)
                failure(r, e, (long)native, "candidate %u (#%llu) is outside the window #%llu..#%llu", i,
                        (unsigned long long)cul->candidates[i].sequence, (unsigned long long)cul->window_first,
                        (unsigned long long)cul->window_last);
        }
    }
}

/* A culprit blamed for a passed deadline: an EXACT one (and every listed
 * candidate) had not finished when the wait began, and is on the waited
 * stream when a stream was waited on. */
static void check_deadline_culprit(run *r, int c, const gg_error_info *e, size_t native, const truthv *t,
                                   const model_step *s)
{
    const gg_culprit *cul = &e->culprit;
    bool stream_wait = s->kind == MS_SYNC_STREAM && s->stream < MODEL_STREAMS;
    uint64_t waited = stream_wait ? r->streams[s->stream].h.id : 0;
    if (cul->certainty == GG_ATTRIBUTION_EXACT) {
        const xlaunch *l = launch_by_seq(r, c, cul->sequence);
        const gg_sim_launch_truth *rec = l ? truth_of(t, l) : NULL;
        /* A launch whose kernel ended while the next one on its stream had
         * not started: the stream was still at its completion mark (the
         * timeline write after it), which is work of the stream too. */
        bool at_its_mark = rec != NULL && rec->state == GG_SIM_LAUNCH_COMPLETED;
        for (uint64_t i = 0; at_its_mark && i < t->n; i++)
            if (t->rec[i].stream == rec->stream && t->rec[i].stream_position == rec->stream_position + 1)
                at_its_mark = t->rec[i].started_ns == 0 || t->rec[i].started_ns >= r->step_start_ns;
        if (rec != NULL && !unfinished_at_start(r, rec) && !at_its_mark)
            failure(r, e, (long)native, "a passed deadline blames launch #%llu EXACT, but it had %s %.1f ms before "
                                        "the wait began", (unsigned long long)cul->sequence,
                    state_name(rec->state), ((double)r->step_start_ns - (double)rec->ended_ns) / 1e6);
        if (l != NULL && stream_wait && l->stream_id != waited)
            failure(r, e, (long)native, "waiting on stream 0x%llx passed its deadline, and the EXACT culprit #%llu "
                                        "is on stream 0x%llx", (unsigned long long)waited,
                    (unsigned long long)cul->sequence, (unsigned long long)l->stream_id);
    }
    if (cul->certainty == GG_ATTRIBUTION_WINDOW) {
        for (uint32_t i = 0; i < cul->candidate_count && i < GG_CULPRIT_CANDIDATES_MAX; i++) {
            const xlaunch *l = launch_by_seq(r, c, cul->candidates[i].sequence);
            const gg_sim_launch_truth *rec = l ? truth_of(t, l) : NULL;
            if (rec != NULL && !unfinished_at_start(r, rec))
                failure(r, e, (long)native, "deadline candidate %u (#%llu) had %s before the wait began", i,
                        (unsigned long long)cul->candidates[i].sequence, state_name(rec->state));
            if (l != NULL && stream_wait && l->stream_id != waited)
                failure(r, e, (long)native, "deadline candidate %u (#%llu) is not on the waited stream 0x%llx", i,
                        (unsigned long long)cul->candidates[i].sequence, (unsigned long long)waited);
        }
    }
}

/* A launch on this native context that is not this gg context's own (of
 * another gg context sharing it, or of one destroyed with its work still
 * running: HIP, primary contexts) had not ended when the step began: from
 * what gpuguard can know, it may be what faulted, so naming no culprit is
 * honest. */
static bool foreign_unfinished(const run *r, const truthv *t, size_t native, uint64_t own_ctx)
{
    const ids *launches = &r->natives[native].launches;
    for (size_t i = 0; i < t->n && i < launches->n; i++) {
        const xlaunch *l = &r->launches[launches->v[i]];
        if (l->gg_ctx == own_ctx && i >= r->natives[native].epoch)
            continue;
        if (unfinished_at_start(r, &t->rec[i]))
            return true;
    }
    return false;
}

/* Context c was found dead by this step: its death against the truth. */
static void check_death(run *r, int c)
{
    xctx *x = &r->ctx[c];
    const model_step *s = &r->p->steps[r->step];
    gg_error_info e = GG_ERROR_INFO_INIT;
    if (gg_context_death(x->h, &e) != GG_OK) {
        failure(r, NULL, (long)x->native, "gg_context_death on a DEAD context failed");
        return;
    }
    if (e.status == GG_OK) {
        failure(r, &e, (long)x->native, "the context is DEAD but gg_context_death says GG_OK");
        return;
    }
    check_message(r, c, &e, x->native);
    check_culprit_shape(r, c, &e, x->native);
    truthv t;
    if (!truth_matched(r, x->native, &t))
        return;
    /* The launch that poisoned the native context in its current life (a
     * HIP primary context keeps the records of its earlier lives). */
    const gg_sim_launch_truth *poison = NULL;
    bool earlier_poison = false;
    for (uint64_t i = t.n; i-- > 0;)
        if (t.rec[i].poisoned_context) {
            if (i >= r->natives[x->native].epoch)
                poison = &t.rec[i];
            else
                earlier_poison = true;
            break;
        }
    const gg_culprit *cul = &e.culprit;
    if (e.status == GG_TIMEOUT) {
        check_deadline_culprit(r, c, &e, x->native, &t, s);
    } else if (poison != NULL) {
        const xlaunch *p = &r->launches[r->natives[x->native].launches.v[poison->number - 1]];
        bool watchdog = poison->state == GG_SIM_LAUNCH_TIMED_OUT;
        if (watchdog ? e.status != GG_LAUNCH_TIMEOUT
                     : e.status != GG_ILLEGAL_ADDRESS && e.status != GG_LAUNCH_FAILED)
            failure(r, &e, (long)x->native, "the context died of %s, but launch #%llu %s", gg_status_name(e.status),
                    (unsigned long long)p->seq, state_name(poison->state));
        if (p->gg_ctx != x->h.id) {
            /* Another gg context on the same native context (HIP: the
             * device's; a primary context) faulted: none of this context's
             * launches may be named. */
            if (cul->certainty != GG_ATTRIBUTION_NONE)
                failure(r, &e, (long)x->native, "the launch that faulted is gg context 0x%llx's '%s' #%llu (step %zu), "
                                                "which shares this native context, but the culprit is %s",
                        (unsigned long long)p->gg_ctx, kernel_symbol[p->kernel], (unsigned long long)p->seq, p->step,
                        certainty_name(cul->certainty));
        } else if (cul->certainty == GG_ATTRIBUTION_NONE && !foreign_unfinished(r, &t, x->native, x->h.id)) {
            failure(r, &e, (long)x->native, "certainty NONE, but launch #%llu ('%s' on stream 0x%llx, step %zu) "
                                            "faulted and poisoned the context, and no other gg context's launch on "
                                            "this native context was unfinished",
                    (unsigned long long)p->seq, kernel_symbol[p->kernel], (unsigned long long)p->stream_id, p->step);
        } else if (cul->certainty == GG_ATTRIBUTION_EXACT) {
            if (cul->sequence != p->seq || cul->stream.id != p->stream_id ||
                strcmp(cul->kernel_name, kernel_symbol[p->kernel]) != 0)
                failure(r, &e, (long)x->native, "the EXACT culprit is '%s' #%llu on stream 0x%llx; the launch that "
                                                "faulted is '%s' #%llu on stream 0x%llx (step %zu)",
                        cul->kernel_name, (unsigned long long)cul->sequence, (unsigned long long)cul->stream.id,
                        kernel_symbol[p->kernel], (unsigned long long)p->seq, (unsigned long long)p->stream_id,
                        p->step);
        } else if (cul->certainty == GG_ATTRIBUTION_WINDOW) {
            if (p->seq < cul->window_first || p->seq > cul->window_last)
                failure(r, &e, (long)x->native, "the WINDOW #%llu..#%llu misses the launch that faulted, '%s' #%llu "
                                                "on stream 0x%llx (step %zu)",
                        (unsigned long long)cul->window_first, (unsigned long long)cul->window_last,
                        kernel_symbol[p->kernel], (unsigned long long)p->seq, (unsigned long long)p->stream_id,
                        p->step);
            for (uint32_t i = 0; i < cul->candidate_count && i < GG_CULPRIT_CANDIDATES_MAX; i++) {
                const xlaunch *l = launch_by_seq(r, c, cul->candidates[i].sequence);
                const gg_sim_launch_truth *rec = l ? truth_of(&t, l) : NULL;
                if (rec == NULL || rec->state != GG_SIM_LAUNCH_COMPLETED || unfinished_at_start(r, rec))
                    continue;
                if (rec->ended_ns + MARK_GRACE_NS >= poison->ended_ns)
                    continue; /* its completion mark may have been discarded with the fault */
                failure(r, &e, (long)x->native, "candidate %u ('%s' #%llu) had completed %.1f ms before this call "
                                                "began and %.1f ms before the fault",
                        i, cul->candidates[i].kernel_name, (unsigned long long)cul->candidates[i].sequence,
                        ((double)r->step_start_ns - (double)rec->ended_ns) / 1e6,
                        ((double)poison->ended_ns - (double)rec->ended_ns) / 1e6);
            }
        }
    } else if (earlier_poison) {
        /* HIP: a launch made before this context's life on the device's
         * primary context (by a gg context destroyed with its work still
         * running, or by another one) poisoned it: gpuguard must not name
         * one of this context's launches. */
        if (cul->certainty != GG_ATTRIBUTION_NONE &&
            (e.status == GG_ILLEGAL_ADDRESS || e.status == GG_LAUNCH_FAILED || e.status == GG_LAUNCH_TIMEOUT))
            failure(r, &e, (long)x->native, "a launch from before this context's life on the native context "
                                            "poisoned it, but the culprit is %s", certainty_name(cul->certainty));
    } else if (e.status == GG_ILLEGAL_ADDRESS || e.status == GG_LAUNCH_FAILED || e.status == GG_LAUNCH_TIMEOUT) {
        failure(r, &e, (long)x->native, "the context died of %s, but no launch of it poisoned it in the truth",
                gg_status_name(e.status));
    }
    free(t.rec);
}

/* A wait or query returned GG_OK: every launch it covers completed. */
static void check_covered(run *r, const char *what, size_t native, uint64_t gg_ctx, uint64_t stream_id,
                          bool any_stream, size_t mark)
{
    truthv t;
    if (!truth_matched(r, native, &t))
        return;
    const ids *launches = &r->natives[native].launches;
    for (size_t i = r->natives[native].epoch; i < launches->n; i++) {
        const xlaunch *l = &r->launches[launches->v[i]];
        if (launches->v[i] >= mark || l->gg_ctx != gg_ctx || (!any_stream && l->stream_id != stream_id))
            continue;
        const gg_sim_launch_truth *rec = truth_of(&t, l);
        if (rec != NULL && rec->state != GG_SIM_LAUNCH_COMPLETED) {
            failure(r, NULL, (long)native, "%s returned GG_OK, but launch #%llu ('%s' on stream 0x%llx, step %zu) "
                                           "is %s in the truth",
                    what, (unsigned long long)l->seq, kernel_symbol[l->kernel], (unsigned long long)l->stream_id,
                    l->step, state_name(rec->state));
            break;
        }
    }
    free(t.rec);
}

/* A wait that returned GG_TIMEOUT and left the context alive: the pending
 * launch it names (gg_last_error's culprit) as a deadline's culprit. */
static void check_returned_timeout(run *r, int c)
{
    gg_error_info e = GG_ERROR_INFO_INIT;
    if (gg_last_error(&e) != GG_OK || e.status != GG_TIMEOUT)
        return;
    xctx *x = &r->ctx[c];
    check_message(r, c, &e, x->native);
    check_culprit_shape(r, c, &e, x->native);
    truthv t;
    if (!truth_matched(r, x->native, &t))
        return;
    check_deadline_culprit(r, c, &e, x->native, &t, &r->p->steps[r->step]);
    free(t.rec);
}

/* ---- the executor -------------------------------------------------------- */

static void add_launch(run *r, int c, uint64_t stream_id, uint64_t native_stream, uint8_t kernel, uint32_t ms)
{
    xctx *x = &r->ctx[c];
    if (r->nlaunches == r->cap_launches) {
        r->cap_launches = r->cap_launches ? r->cap_launches * 2 : 256;
        r->launches = realloc(r->launches, r->cap_launches * sizeof *r->launches);
        if (r->launches == NULL)
            abort();
    }
    xlaunch *l = &r->launches[r->nlaunches];
    l->gg_ctx = x->h.id;
    l->seq = x->by_seq.n + 1;
    l->stream_id = stream_id;
    l->native_stream = native_stream;
    l->native = x->native;
    l->number = r->natives[x->native].launches.n + 1;
    l->kernel = kernel;
    l->ms = ms;
    l->step = r->step;
    ids_push(&x->by_seq, r->nlaunches);
    ids_push(&r->natives[x->native].launches, r->nlaunches);
    r->nlaunches++;
}

static void unexpected(run *r, const char *call, gg_status got)
{
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    failure(r, &e, -1, "%s returned %s on objects the model holds live", call, gg_status_name(got));
}

/* Statuses any call on a live object may return in these programs. */
static bool plausible(gg_status s)
{
    return s == GG_OK || s == GG_NOT_READY || s == GG_TIMEOUT || s == GG_LAUNCH_TIMEOUT || s == GG_LAUNCH_FAILED ||
           s == GG_ILLEGAL_ADDRESS || s == GG_CONTEXT_DEAD;
}

static void load_kernels(run *r, int c)
{
    xctx *x = &r->ctx[c];
    x->kernels_ok = false;
    if (gg_module_create_from_file(x->h, r->env->kernels_path, NULL, &x->module) != GG_OK)
        return;
    for (int k = 0; k < MK_COUNT; k++)
        if (gg_kernel_create(x->module, kernel_symbol[k], &x->kernels[k]) != GG_OK)
            return;
    x->kernels_ok = true;
}

static void note_native(run *r, int c)
{
    void *native = NULL;
    gg_context_native(r->ctx[c].h, &native);
    r->ctx[c].native = native_index(r, native);
}

/* The model's children of ctx c are gone (destroy, recover). */
static void drop_children(run *r, int c)
{
    for (int i = 0; i < MODEL_STREAMS; i++)
        if (r->streams[i].live && r->streams[i].ctx == c)
            r->streams[i].live = false;
    for (int i = 0; i < MODEL_EVENTS; i++)
        if (r->events[i].live && r->events[i].ctx == c)
            r->events[i].live = false;
}

static void destroy_ctx(run *r, int c)
{
    gg_status s = gg_context_destroy(r->ctx[c].h);
    if (!plausible(s)) /* it destroys; a device error found on the way may be returned */
        unexpected(r, "gg_context_destroy", s);
    r->ctx[c].live = false;
    drop_children(r, c);
}

/* The stream a step names, if live: its gg handle, id and native handle. */
static bool step_stream(run *r, const model_step *s, int *ctx, gg_stream *h, uint64_t *native)
{
    if (s->stream == MODEL_DEFAULT_STREAM) {
        if (!r->ctx[s->ctx].live)
            return false;
        *ctx = s->ctx;
        *h = GG_NO_STREAM;
        *native = 0;
        return true;
    }
    if (s->stream >= MODEL_STREAMS || !r->streams[s->stream].live)
        return false;
    *ctx = r->streams[s->stream].ctx;
    *h = r->streams[s->stream].h;
    *native = r->streams[s->stream].native;
    return true;
}

static void do_launch(run *r, const model_step *s)
{
    int c;
    gg_stream st;
    uint64_t native_stream;
    if (!step_stream(r, s, &c, &st, &native_stream) || !r->ctx[c].kernels_ok)
        return;
    xctx *x = &r->ctx[c];
    uint32_t ms = s->ms;
    void *params[] = { &ms };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = x->kernels[s->kernel % MK_COUNT], .stream = st, .grid = { 1, 1, 1 },
                         .block = { 1, 1, 1 }, .params = params, .param_count = 1 };
    for (uint32_t i = 0; i < (s->repeat ? s->repeat : 1); i++) {
        gg_status got = gg_launch(&d);
        if (got == GG_OK) {
            add_launch(r, c, st.id, native_stream, s->kernel % MK_COUNT, ms);
            continue;
        }
        if (!plausible(got))
            unexpected(r, "gg_launch", got);
        /* Refused, or accepted by the driver and then failed (a timeline
         * write): the truth says which. */
        if (truth_launches != NULL && truth_count(r->natives[x->native].handle) > r->natives[x->native].launches.n)
            add_launch(r, c, st.id, native_stream, s->kernel % MK_COUNT, ms);
        break;
    }
}

static gg_wait_desc wait_of(const model_step *s)
{
    gg_wait_desc w = { .struct_size = sizeof(gg_wait_desc), .timeout_ms = s->ms ? s->ms : 1, .on_timeout = s->returns ? GG_TIMEOUT_RETURNS : GG_TIMEOUT_DEFAULT };
    return w;
}

/* The child of a fork step: every call on what it inherited is GG_FORKED. */
static int forked_child_checks(run *r, const model_step *s)
{
    xctx *x = &r->ctx[s->ctx];
    int bad = 0;
    if (gg_context_state(x->h) != GG_STATE_FORKED)
        bad |= 1;
    if (gg_context_synchronize(x->h, GG_WAIT_MS(50)) != GG_FORKED)
        bad |= 2;
    gg_stream fresh;
    if (gg_stream_create(x->h, NULL, &fresh) != GG_FORKED)
        bad |= 4;
    if (s->stream < MODEL_STREAMS && r->streams[s->stream].live && r->streams[s->stream].ctx == s->ctx) {
        if (gg_stream_query(r->streams[s->stream].h) != GG_FORKED)
            bad |= 8;
        if (x->kernels_ok) {
            uint32_t ms = 0;
            void *params[] = { &ms };
            gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = x->kernels[MK_OK], .stream = r->streams[s->stream].h,
                                 .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .params = params, .param_count = 1 };
            if (gg_launch(&d) != GG_FORKED)
                bad |= 16;
        }
    }
    return bad;
}

static void do_fork(run *r, const model_step *s)
{
    if (!r->ctx[s->ctx].live)
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        failure(r, NULL, -1, "fork failed: %s", strerror(errno));
        return;
    }
    if (pid == 0)
        _exit(forked_child_checks(r, s));
    uint64_t deadline = now_ns() + 5000ull * 1000000ull;
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            failure(r, NULL, -1, "waitpid: %s", strerror(errno));
            return;
        }
        if (now_ns() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            failure(r, NULL, -1, "the forked child did not exit within 5 s (a call blocked in the child)");
            return;
        }
        sleep_ms(1);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        failure(r, NULL, -1, "in the forked child: %s%s%s%s%s%s", WIFSIGNALED(status) ? "killed by a signal; " : "",
                WIFEXITED(status) && (WEXITSTATUS(status) & 1) ? "gg_context_state is not FORKED; " : "",
                WIFEXITED(status) && (WEXITSTATUS(status) & 2) ? "gg_context_synchronize is not GG_FORKED; " : "",
                WIFEXITED(status) && (WEXITSTATUS(status) & 4) ? "gg_stream_create is not GG_FORKED; " : "",
                WIFEXITED(status) && (WEXITSTATUS(status) & 8) ? "gg_stream_query is not GG_FORKED; " : "",
                WIFEXITED(status) && (WEXITSTATUS(status) & 16) ? "gg_launch is not GG_FORKED; " : "");
}

/* ---- race destroy (issue 25 (d)) ---------------------------------------- */

typedef struct race {
    gg_context ctx;
    atomic_int phase; /* 0: waiting, 1: go, 2: destroyed */
    gg_status status;
} race;

static void *race_destroyer(void *arg)
{
    race *rc = arg;
    while (atomic_load(&rc->phase) == 0) {
    }
    rc->status = gg_context_destroy(rc->ctx);
    atomic_store(&rc->phase, 2);
    return NULL;
}

static void do_race_destroy(run *r, const model_step *s)
{
    xctx *x = &r->ctx[s->ctx];
    if (!x->live || s->stream >= MODEL_STREAMS || !r->streams[s->stream].live || r->streams[s->stream].ctx != s->ctx)
        return;
    race rc = { .ctx = x->h, .phase = 0, .status = GG_OK };
    pthread_t th;
    if (pthread_create(&th, NULL, race_destroyer, &rc) != 0) {
        failure(r, NULL, -1, "pthread_create failed");
        return;
    }
    gg_stream stream = r->streams[s->stream].h;
    gg_stream made[64];
    unsigned nmade = 0;
    atomic_store(&rc.phase, 1);
    bool after = false;
    unsigned reported = 0;
    for (unsigned i = 0; i < 100000 && !after; i++) {
        after = atomic_load(&rc.phase) == 2; /* one more round after the destroy returned */
        gg_context owner = { 0 };
        gg_status got = gg_stream_context(stream, &owner);
        if (got == GG_OK && owner.id != x->h.id && !reported++)
            failure(r, NULL, -1, "gg_stream_context returned GG_OK with context 0x%llx while context 0x%llx was "
                                 "being destroyed (round %u; reported once per step)", (unsigned long long)owner.id,
                    (unsigned long long)x->h.id, i);
        else if (got != GG_OK && got != GG_INVALID_HANDLE)
            failure(r, NULL, -1, "gg_stream_context returned %s while its context was being destroyed",
                    gg_status_name(got));
        if (after && got == GG_OK)
            failure(r, NULL, -1, "gg_stream_context still returns GG_OK after its context's destroy returned");
        if (nmade < 64 && (i % 8) == 0) {
            gg_stream fresh = { 0 };
            got = gg_stream_create(x->h, NULL, &fresh);
            if (got == GG_OK)
                made[nmade++] = fresh;
            else if (got != GG_INVALID_HANDLE && !plausible(got))
                failure(r, NULL, -1, "gg_stream_create returned %s while its context was being destroyed",
                        gg_status_name(got));
            else if (fresh.id != 0)
                failure(r, NULL, -1, "gg_stream_create failed with %s and still set a stream id",
                        gg_status_name(got));
        }
    }
    pthread_join(th, NULL);
    if (!plausible(rc.status))
        failure(r, NULL, -1, "gg_context_destroy from the other thread returned %s", gg_status_name(rc.status));
    for (unsigned i = 0; i < nmade; i++) {
        gg_status q = gg_stream_query(made[i]);
        if (q != GG_INVALID_HANDLE) {
            failure(r, NULL, -1, "a stream created while its context was destroyed outlived it (query: %s)",
                    gg_status_name(q));
            gg_stream_destroy(made[i]);
        }
    }
    x->live = false;
    drop_children(r, s->ctx);
}

/* ---- steps --------------------------------------------------------------- */

static void do_step(run *r, const model_step *s)
{
    int c;
    gg_stream st;
    uint64_t native_stream;
    gg_status got;
    switch (s->kind) {
    case MS_CTX_CREATE: {
        if (r->ctx[s->ctx].live)
            destroy_ctx(r, s->ctx);
        if (strcmp(r->env->backend, "sim-hip") == 0) {
            /* HIP has one context per device: gg contexts on one device
             * would share its fate and its recover; one per device. */
            for (int i = 0; i < MODEL_CTX; i++)
                if (r->ctx[i].live && r->ctx[i].device == s->device)
                    return;
        }
        xctx *x = &r->ctx[s->ctx];
        gg_context_desc d = { .struct_size = sizeof(gg_context_desc), .tag = "model", .watchdog = GG_WATCHDOG_ALLOW };
        got = gg_context_create(s->device, &d, &x->h);
        if (got != GG_OK) {
            unexpected(r, "gg_context_create", got);
            return;
        }
        x->live = true;
        x->device = s->device;
        x->by_seq.n = 0;
        x->last_state = GG_STATE_ALIVE;
        note_native(r, s->ctx);
        if (is_hip(r))
            new_epoch(r, x->native);
        load_kernels(r, s->ctx);
        if (!x->kernels_ok && is_hip(r) && gg_context_state(x->h) == GG_STATE_DEAD) {
            /* HIP: the device's primary context is still poisoned by an
             * earlier gg context (destroying a DEAD one resets nothing),
             * so this fresh one died at its first call. Recover it. */
            gg_error_info e = GG_ERROR_INFO_INIT;
            gg_context_death(x->h, &e);
            note(r, "a fresh HIP context died at its first call (%s: %s): the device's primary context was still "
                    "poisoned; recovering it", gg_status_name(e.status), e.message);
            if (gg_context_recover(x->h) == GG_OK) {
                new_epoch(r, x->native);
                load_kernels(r, s->ctx);
            }
        }
        if (!x->kernels_ok) {
            gg_error_info e = GG_ERROR_INFO_INIT;
            gg_last_error(&e);
            failure(r, &e, -1, "loading the model's kernels (%s) in a fresh context failed", r->env->kernels_path);
        }
        break;
    }
    case MS_CTX_DESTROY:
        if (r->ctx[s->ctx].live)
            destroy_ctx(r, s->ctx);
        break;
    case MS_STREAM_CREATE: {
        if (s->stream >= MODEL_STREAMS || !r->ctx[s->ctx].live)
            return;
        xstream *xs = &r->streams[s->stream];
        if (xs->live) {
            gg_stream_destroy(xs->h);
            xs->live = false;
        }
        got = gg_stream_create(r->ctx[s->ctx].h, NULL, &xs->h);
        if (got == GG_OK) {
            void *native = NULL;
            gg_stream_native(xs->h, &native);
            xs->native = (uint64_t)(uintptr_t)native;
            xs->ctx = s->ctx;
            xs->live = true;
        } else if (!plausible(got)) {
            unexpected(r, "gg_stream_create", got);
        }
        break;
    }
    case MS_STREAM_DESTROY:
        if (s->stream < MODEL_STREAMS && r->streams[s->stream].live) {
            got = gg_stream_destroy(r->streams[s->stream].h);
            if (!plausible(got))
                unexpected(r, "gg_stream_destroy", got);
            r->streams[s->stream].live = false;
        }
        break;
    case MS_EVENT_CREATE: {
        if (!r->ctx[s->ctx].live)
            return;
        xevent *xe = &r->events[s->event % MODEL_EVENTS];
        if (xe->live) {
            gg_event_destroy(xe->h);
            xe->live = false;
        }
        got = gg_event_create(r->ctx[s->ctx].h, NULL, &xe->h);
        if (got == GG_OK) {
            xe->live = true;
            xe->ctx = s->ctx;
            xe->recorded = false;
        } else if (!plausible(got)) {
            unexpected(r, "gg_event_create", got);
        }
        break;
    }
    case MS_EVENT_DESTROY: {
        xevent *xe = &r->events[s->event % MODEL_EVENTS];
        if (xe->live) {
            got = gg_event_destroy(xe->h);
            if (!plausible(got))
                unexpected(r, "gg_event_destroy", got);
            xe->live = false;
        }
        break;
    }
    case MS_LAUNCH:
        do_launch(r, s);
        break;
    case MS_RECORD: {
        xevent *xe = &r->events[s->event % MODEL_EVENTS];
        if (!xe->live || !step_stream(r, s, &c, &st, &native_stream) || c != xe->ctx)
            return;
        got = gg_event_record(xe->h, st);
        if (got == GG_OK) {
            xe->recorded = true;
            xe->stream_id = st.id;
            xe->native = r->ctx[c].native;
            xe->mark = r->nlaunches;
        } else if (!plausible(got)) {
            unexpected(r, "gg_event_record", got);
        }
        break;
    }
    case MS_WAIT: {
        xevent *xe = &r->events[s->event % MODEL_EVENTS];
        /* gg_stream_wait_event takes no GG_NO_STREAM (the default stream
         * cannot be named): such a step does nothing. */
        if (!xe->live || s->stream == MODEL_DEFAULT_STREAM || !step_stream(r, s, &c, &st, &native_stream) ||
            c != xe->ctx)
            return;
        got = gg_stream_wait_event(st, xe->h);
        if (!plausible(got))
            unexpected(r, "gg_stream_wait_event", got);
        break;
    }
    case MS_QUERY_STREAM:
    case MS_SYNC_STREAM: {
        if (s->stream >= MODEL_STREAMS || !r->streams[s->stream].live)
            return;
        xstream *xs = &r->streams[s->stream];
        size_t mark = r->nlaunches;
        gg_wait_desc w = wait_of(s);
        got = s->kind == MS_QUERY_STREAM ? gg_stream_query(xs->h) : gg_stream_synchronize(xs->h, &w);
        if (got == GG_OK)
            check_covered(r, s->kind == MS_QUERY_STREAM ? "gg_stream_query" : "gg_stream_synchronize",
                          r->ctx[xs->ctx].native, r->ctx[xs->ctx].h.id, xs->h.id, false, mark);
        else if (!plausible(got))
            unexpected(r, "gg_stream_synchronize/query", got);
        if (got == GG_TIMEOUT && s->returns) {
            if (gg_context_state(r->ctx[xs->ctx].h) != GG_STATE_ALIVE &&
                r->ctx[xs->ctx].last_state == GG_STATE_ALIVE) {
                gg_error_info e = GG_ERROR_INFO_INIT;
                gg_context_death(r->ctx[xs->ctx].h, &e);
                if (e.status == GG_TIMEOUT)
                    failure(r, &e, -1, "a wait with GG_TIMEOUT_RETURNS killed its context");
            }
            check_returned_timeout(r, xs->ctx);
        }
        break;
    }
    case MS_QUERY_EVENT:
    case MS_SYNC_EVENT: {
        xevent *xe = &r->events[s->event % MODEL_EVENTS];
        if (!xe->live)
            return;
        gg_wait_desc w = wait_of(s);
        got = s->kind == MS_QUERY_EVENT ? gg_event_query(xe->h) : gg_event_synchronize(xe->h, &w);
        if (got == GG_OK && xe->recorded)
            check_covered(r, s->kind == MS_QUERY_EVENT ? "gg_event_query" : "gg_event_synchronize", xe->native,
                          r->ctx[xe->ctx].h.id, xe->stream_id, false, xe->mark);
        else if (!plausible(got))
            unexpected(r, "gg_event_synchronize/query", got);
        if (got == GG_TIMEOUT && s->returns)
            check_returned_timeout(r, xe->ctx);
        break;
    }
    case MS_SYNC_CTX: {
        xctx *x = &r->ctx[s->ctx];
        if (!x->live)
            return;
        size_t mark = r->nlaunches;
        gg_wait_desc w = wait_of(s);
        got = gg_context_synchronize(x->h, &w);
        if (got == GG_OK)
            check_covered(r, "gg_context_synchronize", x->native, x->h.id, 0, true, mark);
        else if (!plausible(got))
            unexpected(r, "gg_context_synchronize", got);
        if (got == GG_TIMEOUT && s->returns)
            check_returned_timeout(r, s->ctx);
        break;
    }
    case MS_RECOVER: {
        xctx *x = &r->ctx[s->ctx];
        if (!x->live)
            return;
        bool was_dead = gg_context_state(x->h) == GG_STATE_DEAD;
        got = gg_context_recover(x->h);
        if (got != GG_OK) {
            unexpected(r, "gg_context_recover", got);
            return;
        }
        if (was_dead) {
            drop_children(r, s->ctx);
            note_native(r, s->ctx);
            new_epoch(r, x->native);
            load_kernels(r, s->ctx);
            x->last_state = GG_STATE_ALIVE;
        }
        break;
    }
    case MS_FORK:
        if (!r->env->in_fuzzer)
            do_fork(r, s);
        break;
    case MS_RACE_DESTROY:
        do_race_destroy(r, s);
        break;
    case MS_SLEEP:
        sleep_ms(s->ms);
        break;
    default:
        break;
    }
}

/* After each step: every context this step found dead is judged. */
static void after_step(run *r)
{
    for (int c = 0; c < MODEL_CTX; c++) {
        xctx *x = &r->ctx[c];
        if (!x->live)
            continue;
        gg_state now = gg_context_state(x->h);
        if (now == GG_STATE_DEAD && x->last_state == GG_STATE_ALIVE)
            check_death(r, c);
        x->last_state = now;
    }
}

static void teardown(run *r)
{
    r->step = r->p->count;
    for (int c = 0; c < MODEL_CTX; c++) {
        if (!r->ctx[c].live)
            continue;
        if (is_hip(r)) {
            /* HIP: destroying the gg context leaves the device's primary
             * context, and the work still queued in it, running into the
             * next program (after gg_sim_truth_reset, where the referee
             * cannot see it). A context with work left is killed by a
             * short deadline and recovered (the device reset drops it). */
            gg_status q = gg_context_synchronize(r->ctx[c].h, GG_WAIT_MS(100));
            if (q != GG_OK && gg_context_state(r->ctx[c].h) == GG_STATE_DEAD)
                gg_context_recover(r->ctx[c].h);
        }
        destroy_ctx(r, c);
    }
    uint64_t live = 0;
    if (gg_live_objects(&live) == GG_OK && live != 0) {
        char *json = NULL;
        gg_objects_json(&json);
        failure(r, NULL, -1, "%llu gpuguard object(s) alive after every context was destroyed: %s",
                (unsigned long long)live, json ? json : "?");
        gg_free(json);
    }
    gg_shutdown();
    if (is_hip(r) && hip_set_device != NULL && hip_device_reset != NULL)
        for (int d = 0; d < 2; d++)
            if (hip_set_device(d) == 0)
                hip_device_reset();
    if (sim_live_objects != NULL) {
        uint64_t deadline = now_ns() + 2000ull * 1000000ull;
        unsigned long long left;
        while ((left = sim_live_objects()) != 0 && now_ns() < deadline)
            sleep_ms(2);
        if (left != 0 && is_hip(r))
            note(r, "%llu simulator object(s) still alive 2 s after gg_shutdown (HIP: the children of a DEAD "
                    "context are released without driver calls, and nothing resets the primary context)", left);
        else if (left != 0)
            failure(r, NULL, -1, "%llu simulator object(s) still alive 2 s after gg_shutdown", left);
    }
    if (truth_reset != NULL)
        truth_reset();
}

unsigned model_run(const model_env *env, const model_program *p, const char *label)
{
    run *r = calloc(1, sizeof *r);
    if (r == NULL)
        abort();
    r->env = env;
    r->p = p;
    r->label = label;
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = env->backend, .timeline = env->timeline,
                          .timeline_stride = env->timeline_stride, .wait_timeout_ms = 3000,
                          .watchdog = GG_WATCHDOG_ALLOW };
    if (strcmp(env->backend, "sim-hip") == 0)
        desc.hip_library = env->library;
    else
        desc.cuda_library = env->library;
    gg_status s = gg_init(&desc);
    if (s != GG_OK) {
        gg_error_info e = GG_ERROR_INFO_INIT;
        gg_last_error(&e);
        fprintf(stderr, "model [%s]: gg_init failed: %s: %s\n", label, gg_status_name(s), e.message);
        free(r);
        return 1;
    }
    if (truth_reset != NULL)
        truth_reset();
    for (r->step = 0; r->step < p->count; r->step++) {
        const model_step *st = &p->steps[r->step];
        if (env->verbose) {
            char line[128];
            model_print_step(st, line, sizeof line);
            fprintf(stderr, "  [%s] %4zu %s\n", label, r->step, line);
        }
        r->step_start_ns = now_ns();
        do_step(r, st);
        after_step(r);
    }
    teardown(r);
    unsigned failures = r->failures;
    for (int c = 0; c < MODEL_CTX; c++)
        free(r->ctx[c].by_seq.v);
    for (size_t i = 0; i < r->nnatives; i++)
        free(r->natives[i].launches.v);
    free(r->natives);
    free(r->launches);
    free(r);
    return failures;
}
