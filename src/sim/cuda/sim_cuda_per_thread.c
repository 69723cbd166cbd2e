/*
 * The CUDA face's per-thread default streams (CUDA 7.0's "per-thread
 * default stream" semantics). Each thread gets, in each context it uses
 * one in, a stream of its own, created on first use: CU_STREAM_PER_THREAD
 * (0x2) names it in every call, and the stream handle 0 names it in the
 * _ptsz / _ptds exports (sim_cuda_ptds_exports.c), which a program
 * compiled with --default-stream per-thread (or numba with
 * NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM=1) calls. CU_STREAM_LEGACY (0x1)
 * stays the legacy null stream everywhere.
 *
 * As CUDA documents it, the per-thread default stream is not a
 * non-blocking stream: it synchronizes with the legacy default stream like
 * a stream created with CU_STREAM_DEFAULT, and with nothing else (not with
 * other blocking streams, nor with other threads' per-thread streams). So
 * it is exactly that here: a blocking sim_stream of the context, marked
 * per_thread (the ground truth records its launches as stream 0x2, counted
 * on per thread). It is registered like a user stream, so the context's
 * destroy or a primary reset removes it with everything else (the next use
 * makes a new one); cuCtxSynchronize waits for it; gg_sim_live_objects
 * counts it while it lives. When its thread exits it is closed as
 * cuStreamDestroy closes a stream: work already queued still runs.
 *
 * Each thread keeps its own table (context handle -> stream handle), read
 * and written by that thread only: no lock. Handles are never reused, so a
 * stale entry (context destroyed, stream removed by a reset) is found out
 * by the registry lookup failing.
 */
#include "sim_cuda_per_thread.h"
#include "sim_alloc.h"
#include "sim_cuda.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct per_thread_entry {
    uint64_t ctx;    /* the context's handle */
    uint64_t stream; /* the thread's per-thread stream in it */
} per_thread_entry;

typedef struct per_thread_table {
    per_thread_entry *entries;
    size_t n, cap;
} per_thread_table;

static _Thread_local per_thread_table *t_table;
static _Thread_local unsigned t_ptds_depth; /* inside a _ptsz / _ptds export */

static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_key;
static bool g_key_made;

/* Closes one per-thread stream, as cuStreamDestroy does. */
static void close_stream(uint64_t h)
{
    sim_stream *s = (sim_stream *)sim_registry_get(h, SIM_KIND_STREAM);
    if (!s)
        return; /* its context was destroyed or reset: already gone */
    if (sim_registry_remove(&s->obj))
        sim_stream_close(s);
    sim_obj_release(&s->obj);
}

/* Thread exit: the thread's per-thread streams close. */
static void thread_exit(void *p)
{
    per_thread_table *t = p;
    for (size_t i = 0; i < t->n; i++)
        close_stream(t->entries[i].stream);
    free(t->entries);
    free(t);
    t_table = NULL;
}

static void make_key(void)
{
    g_key_made = pthread_key_create(&g_key, thread_exit) == 0;
}

/* Unloading the library: a thread that exits later must not call into it. */
__attribute__((destructor)) static void per_thread_unload(void)
{
    if (g_key_made)
        pthread_key_delete(g_key);
    g_key_made = false;
}

/* The calling thread's table, made on first use (NULL: out of memory). */
static per_thread_table *table(void)
{
    if (t_table)
        return t_table;
    pthread_once(&g_key_once, make_key);
    per_thread_table *t = sim_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (g_key_made)
        pthread_setspecific(g_key, t);
    t_table = t;
    return t;
}

/* Drops the entries whose stream is gone (context destroyed or reset). */
static void prune(per_thread_table *t)
{
    size_t kept = 0;
    for (size_t i = 0; i < t->n; i++) {
        sim_obj *o = sim_registry_get(t->entries[i].stream, SIM_KIND_STREAM);
        if (o) {
            sim_obj_release(o);
            t->entries[kept++] = t->entries[i];
        }
    }
    t->n = kept;
}

static sim_status remember(per_thread_table *t, uint64_t ctx, uint64_t stream)
{
    if (t->n == t->cap)
        prune(t);
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 4;
        per_thread_entry *e = sim_realloc(t->entries, cap * sizeof *e);
        if (!e)
            return SIM_ERR_OUT_OF_MEMORY;
        t->entries = e;
        t->cap = cap;
    }
    t->entries[t->n++] = (per_thread_entry){ctx, stream};
    return SIM_OK;
}

sim_status sim_cuda_per_thread_stream(sim_ctx *c, sim_stream **out)
{
    per_thread_table *t = table();
    if (!t)
        return SIM_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < t->n; i++) {
        if (t->entries[i].ctx != c->obj.handle)
            continue;
        sim_stream *s = (sim_stream *)sim_registry_get(t->entries[i].stream, SIM_KIND_STREAM);
        if (s && s->ctx == c) {
            *out = s;
            return SIM_OK;
        }
        if (s)
            sim_obj_release(&s->obj);
        /* Removed by a primary reset: the context makes a new one. */
        t->entries[i] = t->entries[--t->n];
        break;
    }
    sim_stream *s;
    sim_status st = sim_stream_create(c, 0, false, &s); /* blocking: CUDA's rule */
    if (st)
        return st;
    s->per_thread = true; /* before anyone submits: only this thread knows it */
    st = remember(t, c->obj.handle, s->obj.handle);
    if (st) {
        close_stream(s->obj.handle); /* the registry's reference kept it alive */
        sim_obj_release(&s->obj);
        return st;
    }
    *out = s;
    return SIM_OK;
}

bool sim_cuda_is_per_thread_stream(uint64_t h)
{
    return h == SIM_PER_THREAD_STREAM_VALUE || (h == 0 && t_ptds_depth > 0);
}

void sim_cuda_per_thread_enter(void)
{
    t_ptds_depth++;
}

void sim_cuda_per_thread_leave(void)
{
    t_ptds_depth--;
}
