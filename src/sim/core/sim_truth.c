/*
 * The ground truth of launches (gg_sim_truth_launches): what the simulated
 * device really did with each launch, kept by the simulator's own launch
 * path and stream workers, so that gpuguard's culprit attribution can be
 * checked against something that never went through gpuguard.
 *
 * Each context that records ("record_launches": true, not in fast mode) has
 * a log: an append-only array of records, grown by doubling, behind the
 * log's own lock. Records are written at three places only:
 *   - acceptance, in the stream's enqueue under its queue lock (so numbers
 *     and stream positions follow queue order), QUEUED;
 *   - the stream worker: RUNNING when the launch starts, then its end
 *     (COMPLETED / FAULTED / TIMED_OUT / DISCARDED) before the worker lets
 *     any waiter see the op done;
 *   - sim_ctx_poison (under the context lock): the culprit's end and the
 *     queued launches' DISCARDED before the sticky error is visible; and a
 *     destroy or reset, which marks the launches it drops.
 * Readers copy under the same lock, so a record is never torn.
 *
 * Logs outlive their contexts: they sit in a process-wide list keyed by the
 * context's handle (generation-checked, never reused), under the table
 * lock, until gg_sim_truth_reset or the library's unload frees them. A log
 * is freed by whichever of its two owners lets go last: the table (reset,
 * unload) or the context (sim_truth_detach from its destructor). Writers
 * never need the table lock: a context outlives its launches (its streams
 * hold it), so its log is there whenever one of its launches writes.
 *
 * Lock order (see sim_core.h): core locks -> table lock -> log lock; no
 * other lock is taken while either is held.
 */
#include "sim_alloc.h"
#include "sim_core.h"

#include <stdlib.h>
#include <string.h>

/* One record as kept: the error as the core's status, numbered by the face
 * only when copied out (the core has no CUDA or HIP numbering). */
typedef struct sim_truth_record {
    gg_sim_launch_truth pub;    /* .error unused here */
    sim_status error;
} sim_truth_record;

typedef struct sim_truth_log {
    pthread_mutex_t lock;       /* the fields down to null_stream_launches */
    uint64_t generation;        /* bumped by each reset: older slots are stale */
    sim_truth_record *records;
    size_t count, capacity;
    uint64_t null_stream_launches; /* positions on the null stream, which a
                                    * primary reset replaces but whose handle
                                    * (0) stays */
    /* Under the table lock: */
    uint64_t context_handle;    /* the key, 0 until published */
    bool context_alive;         /* the context still refers to it */
    bool in_table;
    struct sim_truth_log *next;
} sim_truth_log;

/* The first capacity; 5000 launches take 7 doublings. */
#define INITIAL_RECORDS 64u

static pthread_mutex_t g_table_lock = PTHREAD_MUTEX_INITIALIZER;
static sim_truth_log *g_logs;   /* newest first */

static unsigned long long now_ns(void)
{
    struct timespec t = sim_now();
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static void log_free(sim_truth_log *log)
{
    pthread_mutex_destroy(&log->lock);
    free(log->records);
    free(log);
}

/* Drops every record; slots handed out before become stale. */
static void log_clear(sim_truth_log *log)
{
    pthread_mutex_lock(&log->lock);
    free(log->records);
    log->records = NULL;
    log->count = log->capacity = 0;
    log->null_stream_launches = 0;
    log->generation++;
    pthread_mutex_unlock(&log->lock);
}

sim_status sim_truth_attach(sim_ctx *c)
{
    const sim_config *cfg = sim_get_config();
    c->truth = NULL;
    if (!cfg || !cfg->record_launches || sim_fast())
        return SIM_OK; /* fast mode runs no kernel: there is nothing to record */
    sim_truth_log *log = sim_calloc(1, sizeof *log);
    if (!log)
        return SIM_ERR_OUT_OF_MEMORY;
    pthread_mutex_init(&log->lock, NULL);
    log->context_alive = true;
    c->truth = log;
    return SIM_OK;
}

void sim_truth_publish(sim_ctx *c)
{
    sim_truth_log *log = c->truth;
    if (!log)
        return;
    pthread_mutex_lock(&g_table_lock);
    log->context_handle = c->obj.handle;
    log->in_table = true;
    log->next = g_logs;
    g_logs = log;
    pthread_mutex_unlock(&g_table_lock);
}

void sim_truth_detach(sim_ctx *c)
{
    sim_truth_log *log = c->truth;
    if (!log)
        return;
    c->truth = NULL;
    pthread_mutex_lock(&g_table_lock);
    log->context_alive = false;
    bool orphan = !log->in_table;
    pthread_mutex_unlock(&g_table_lock);
    if (orphan)
        log_free(log);
}

sim_status sim_truth_accept(sim_stream *s, const char *kernel, sim_mb_action misbehaviour,
                            sim_truth_slot *slot)
{
    sim_truth_log *log = s->ctx->truth;
    slot->log = NULL;
    if (!log)
        return SIM_OK;
    pthread_mutex_lock(&log->lock);
    if (log->count == log->capacity) {
        size_t cap = log->capacity ? log->capacity * 2 : INITIAL_RECORDS;
        sim_truth_record *grown = sim_realloc(log->records, cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&log->lock);
            sim_detail("launch of %s: no memory for its ground-truth record", kernel);
            return SIM_ERR_OUT_OF_MEMORY;
        }
        log->records = grown;
        log->capacity = cap;
    }
    uint64_t position;
    if (s->is_null) {
        position = ++log->null_stream_launches;
    } else {
        /* The stream's count restarts with each generation of the log. */
        if (s->truth_generation != log->generation) {
            s->truth_generation = log->generation;
            s->truth_launches = 0;
        }
        position = ++s->truth_launches;
    }
    sim_truth_record *r = &log->records[log->count];
    memset(r, 0, sizeof *r);
    r->pub.number = (unsigned long long)log->count + 1;
    r->pub.stream = s->is_null      ? 0
                    : s->per_thread ? SIM_PER_THREAD_STREAM_VALUE
                                    : (unsigned long long)s->obj.handle;
    r->pub.stream_position = (unsigned long long)position;
    size_t n = strlen(kernel);
    r->pub.kernel_length = n;
    if (n >= sizeof r->pub.kernel)
        n = sizeof r->pub.kernel - 1;
    memcpy(r->pub.kernel, kernel, n);
    r->pub.state = GG_SIM_LAUNCH_QUEUED;
    r->pub.misbehaviour = (int)misbehaviour;
    r->error = SIM_OK;
    slot->log = log;
    slot->generation = log->generation;
    slot->index = log->count;
    log->count++;
    pthread_mutex_unlock(&log->lock);
    return SIM_OK;
}

/* The slot's record, with its log locked; NULL (nothing locked) if the slot
 * is not recorded or went stale in a reset. */
static sim_truth_record *lock_record(const sim_truth_slot *slot)
{
    sim_truth_log *log = slot->log;
    if (!log)
        return NULL;
    pthread_mutex_lock(&log->lock);
    if (log->generation != slot->generation || slot->index >= log->count) {
        pthread_mutex_unlock(&log->lock);
        return NULL;
    }
    return &log->records[slot->index];
}

void sim_truth_started(const sim_truth_slot *slot)
{
    sim_truth_record *r = lock_record(slot);
    if (!r)
        return;
    if (r->pub.state == GG_SIM_LAUNCH_QUEUED) {
        r->pub.state = GG_SIM_LAUNCH_RUNNING;
        r->pub.started_ns = now_ns();
    }
    pthread_mutex_unlock(&slot->log->lock);
}

void sim_truth_ended(const sim_truth_slot *slot, int state, sim_status error, bool poisoned)
{
    sim_truth_record *r = lock_record(slot);
    if (!r)
        return;
    if (r->pub.state == GG_SIM_LAUNCH_QUEUED || r->pub.state == GG_SIM_LAUNCH_RUNNING) {
        r->pub.state = state;
        r->error = error;
        r->pub.poisoned_context = poisoned ? 1 : 0;
        r->pub.ended_ns = now_ns();
    }
    pthread_mutex_unlock(&slot->log->lock);
}

unsigned long long sim_truth_copy(uint64_t context_handle, gg_sim_launch_truth *out,
                                  unsigned long long max, int (*face_error)(sim_status))
{
    if (!context_handle)
        return 0;
    unsigned long long n = 0;
    pthread_mutex_lock(&g_table_lock);
    sim_truth_log *log = g_logs;
    while (log && log->context_handle != context_handle)
        log = log->next;
    if (log) {
        /* One hold of the log lock for all of them: the copy is one moment
         * of the context's history, not only untorn records. */
        pthread_mutex_lock(&log->lock);
        n = log->count;
        for (unsigned long long i = 0; out && i < n && i < max; i++) {
            out[i] = log->records[i].pub;
            sim_status e = log->records[i].error;
            out[i].error = e == SIM_OK ? 0 : face_error(e);
        }
        pthread_mutex_unlock(&log->lock);
    }
    pthread_mutex_unlock(&g_table_lock);
    return n;
}

void sim_truth_reset(void)
{
    sim_truth_log *orphans = NULL;
    pthread_mutex_lock(&g_table_lock);
    for (sim_truth_log **at = &g_logs; *at;) {
        sim_truth_log *log = *at;
        if (log->context_alive) {
            log_clear(log); /* its context records on, from number 1 */
            at = &log->next;
        } else {
            *at = log->next;
            log->in_table = false;
            log->next = orphans;
            orphans = log;
        }
    }
    pthread_mutex_unlock(&g_table_lock);
    while (orphans) {
        sim_truth_log *next = orphans->next;
        log_free(orphans);
        orphans = next;
    }
}

/* At unload (or exit) every record goes. The log of a context still alive
 * stays with its context, emptied, since its stream workers (detached
 * threads, maybe still running a kernel) may still write to it: they find
 * their slots stale and write nothing; the context frees it if it is ever
 * destroyed. */
__attribute__((destructor)) static void truth_unload(void)
{
    sim_truth_reset();
    pthread_mutex_lock(&g_table_lock);
    for (sim_truth_log *log = g_logs; log; log = log->next)
        log->in_table = false;
    g_logs = NULL;
    pthread_mutex_unlock(&g_table_lock);
}
