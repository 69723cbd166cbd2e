/*
 * Streams: an in-order queue of operations run by one worker thread per
 * stream, asynchronously to the host.
 *
 * Ordering with the legacy null stream (CUDA's default for blocking
 * streams): work on the null stream waits for work already queued in the
 * context's blocking streams, and work on a blocking stream waits for work
 * already queued on the null stream. Non-blocking streams order only with
 * themselves and explicit event waits.
 *
 * A poisoned, destroyed or reset context's pending work is discarded by the
 * worker, op by op, so bookkeeping ops (frees) still run and every waiter
 * sees the queue drain instead of hanging.
 *
 * A write-value op (cuStreamWriteValue32/64, hipStreamWriteValue32/64) is
 * an op like the others: it runs when the worker reaches it, after every
 * earlier op of its stream, and is discarded like them once the context is
 * poisoned, so a value written behind a faulting kernel never lands.
 *
 * Ground truth (sim_truth.c), when the context records launches: a launch
 * is recorded as it is queued (under the queue lock, so acceptance order is
 * queue order), ends before the worker publishes its completion, and one
 * that will never run is marked DISCARDED by whoever dooms it: the worker
 * that drops it, the poison that dooms the queue, or the abandon of a
 * destroy or reset (before the destroy or reset returns).
 *
 * Fast mode ("fast": true) hands nothing to the worker (which stays idle):
 * each op runs on the submitting thread, under the stream's run lock so that
 * a stream's ops still run one at a time in submission order, and is
 * complete when the submission returns. Launches and event records do not
 * even make an op (sim_stream_submit_done): kernels are not run, and a
 * record completes at once. Legacy null-stream ordering is moot there: all
 * earlier work is already complete.
 */
#include "sim_alloc.h"
#include "sim_core.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

sim_op *sim_op_new(sim_op_kind kind)
{
    sim_op *op = sim_calloc(1, sizeof *op);
    if (op)
        op->kind = kind;
    return op;
}

void sim_op_free(sim_op *op)
{
    if (!op)
        return;
    switch (op->kind) {
    case SIM_OP_COPY_HTOD: free(op->u.copy.staged); break;
    case SIM_OP_LAUNCH: sim_launch_free(op->u.launch); break;
    case SIM_OP_RECORD: sim_obj_release(&op->u.record.ev->obj); break;
    case SIM_OP_WAIT: sim_obj_release(&op->u.wait.target->obj); break;
    case SIM_OP_FREE: sim_alloc_release(op->u.free); break;
    default: break;
    }
    free(op);
}

static void stream_free(sim_obj *o)
{
    sim_stream *s = (sim_stream *)o;
    for (sim_op *op = s->head, *next; op; op = next) {
        next = op->next;
        sim_op_free(op);
    }
    pthread_mutex_destroy(&s->run_lock);
    pthread_mutex_destroy(&s->qlock);
    pthread_cond_destroy(&s->qcv);
    sim_obj_release(&s->ctx->obj);
    free(s);
}

/* A memset: bytes of one value, or a 16- or 32-bit pattern repeated
 * (cuMemsetD16/D32; the whole range is a multiple of the element). */
static void fill(void *dst, const sim_op *op)
{
    size_t n = op->u.set.bytes;
    if (op->u.set.elem == 2) {
        uint16_t v = (uint16_t)op->u.set.pattern;
        for (size_t i = 0; i + 2 <= n; i += 2)
            memcpy((char *)dst + i, &v, 2);
    } else if (op->u.set.elem == 4) {
        uint32_t v = op->u.set.pattern;
        for (size_t i = 0; i + 4 <= n; i += 4)
            memcpy((char *)dst + i, &v, 4);
    } else {
        memset(dst, op->u.set.value, n);
    }
}

/* ---- running one op ---------------------------------------------------- */

static bool copy_op(sim_stream *s, sim_op *op)
{
    sim_ctx *c = s->ctx;
    sim_alloc *pa = NULL, *pb = NULL;
    size_t n = op->u.copy.bytes;
    bool ok = true;
    switch (op->kind) {
    case SIM_OP_COPY_HTOD: {
        void *dst = sim_mem_map(c, op->u.copy.dst, n, op->clock, &pa);
        const void *src = op->u.copy.staged ? op->u.copy.staged : op->u.copy.host;
        if ((ok = dst != NULL))
            memcpy(dst, src, n);
        break;
    }
    case SIM_OP_COPY_DTOH: {
        const void *src = sim_mem_map(c, op->u.copy.src, n, op->clock, &pa);
        if ((ok = src != NULL))
            memcpy(op->u.copy.host, src, n);
        break;
    }
    case SIM_OP_COPY_DTOD: {
        void *dst = sim_mem_map(c, op->u.copy.dst, n, op->clock, &pa);
        const void *src = dst ? sim_mem_map(c, op->u.copy.src, n, op->clock, &pb) : NULL;
        if ((ok = dst && src))
            memmove(dst, src, n);
        break;
    }
    case SIM_OP_MEMSET: {
        void *dst = sim_mem_map(c, op->u.set.dst, op->u.set.bytes, op->clock, &pa);
        if ((ok = dst != NULL))
            fill(dst, op);
        break;
    }
    default:
        break;
    }
    sim_alloc_release(pa);
    sim_alloc_release(pb);
    return ok;
}

/* Stores the op's value in mapped host memory or device memory; false if
 * neither holds the target any more (freed since submission). */
static bool write_value_op(sim_stream *s, sim_op *op)
{
    uint64_t dst = op->u.write.dst, value = op->u.write.value;
    unsigned n = op->u.write.bytes;
    if (sim_host_mapped_store(dst, value, n))
        return true;
    sim_alloc *pa = NULL;
    void *p = sim_mem_map(s->ctx, dst, n, op->clock, &pa);
    if (p != NULL) {
        if (n == 8)
            __atomic_store_n((uint64_t *)p, value, __ATOMIC_RELEASE);
        else
            __atomic_store_n((uint32_t *)p, (uint32_t)value, __ATOMIC_RELEASE);
    }
    sim_alloc_release(pa);
    return p != NULL;
}

typedef struct wait_arg {
    sim_stream *self;
    sim_stream *target;
    uint64_t seq;
} wait_arg;

static bool wait_done(void *p)
{
    wait_arg *w = p;
    return atomic_load(&w->target->completed) >= w->seq || atomic_load(&w->self->discard) ||
           sim_ctx_health(w->self->ctx) != SIM_OK;
}

static void run_op(sim_stream *s, sim_op *op, unsigned epoch)
{
    bool discard = atomic_load(&s->discard) || sim_ctx_health(s->ctx) != SIM_OK;
    if (op->kind == SIM_OP_FREE) {
        sim_mem_free_passed(s->ctx, op->u.free); /* bookkeeping: runs even when discarding */
        return;
    }
    uint64_t start = sim_timeline_start(s, op), took = 0;
    if (discard) {
        if (op->kind == SIM_OP_LAUNCH)
            sim_launch_truth_discard(op->u.launch);
        /* A callback still learns of the error that poisoned its context
         * (not of a destroy's discard: its stream is gone). */
        sim_status health = sim_ctx_health(s->ctx);
        if (op->kind == SIM_OP_HOST_CALL && op->u.host.despite_errors && health != SIM_OK &&
            !atomic_load(&s->discard))
            op->u.host.run(&op->u.host, health);
        sim_timeline_reached(s, start);
        return;
    }
    switch (op->kind) {
    case SIM_OP_LAUNCH:
        took = sim_launch_run(s, op->u.launch, op->clock, start);
        break;
    case SIM_OP_RECORD:
        sim_event_complete(op->u.record.ev, op->u.record.rec, start);
        break;
    case SIM_OP_WAIT: {
        wait_arg w = { s, op->u.wait.target, op->u.wait.seq };
        sim_progress_wait(wait_done, &w, NULL);
        /* Not before the awaited work ended in device time (the target's
         * cursor now: at or after that work's end). */
        uint64_t target = atomic_load(&op->u.wait.target->cursor_ns);
        start = target > start ? target : start;
        break;
    }
    case SIM_OP_WRITE_VALUE:
        if (!write_value_op(s, op)) /* its memory was freed before it ran */
            sim_ctx_poison(s->ctx, SIM_ERR_ILLEGAL_ADDRESS, epoch, NULL);
        break;
    case SIM_OP_HOST_CALL: {
        /* Host code: it takes the wall-clock time it runs. */
        uint64_t wall = sim_wall_ns();
        op->u.host.run(&op->u.host, SIM_OK);
        took = sim_wall_ns() - wall;
        break;
    }
    default:
        if (!copy_op(s, op)) /* an async copy that overran its allocation */
            sim_ctx_poison(s->ctx, SIM_ERR_ILLEGAL_ADDRESS, epoch, NULL);
        break;
    }
    /* An op that took no device time ends where it started, which device
     * time had already reached: only the cursor moves, with no clock read
     * (copies, records, memsets: the fast mode's hot path). */
    if (took > 0)
        sim_timeline_ended(s, start + took);
    else
        sim_timeline_reached(s, start);
}

static void remove_from_ctx(sim_stream *s)
{
    sim_ctx *c = s->ctx;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->nstreams; i++)
        if (c->streams[i] == s) {
            c->streams[i] = c->streams[--c->nstreams];
            break;
        }
    pthread_mutex_unlock(&c->lock);
}

static void *worker(void *arg)
{
    sim_stream *s = arg;
    /* Signals belong to the application's threads, not the driver's. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    unsigned epoch = atomic_load(&s->ctx->epoch);
    for (;;) {
        pthread_mutex_lock(&s->qlock);
        while (!s->head && !atomic_load_explicit(&s->closing, memory_order_relaxed))
            pthread_cond_wait(&s->qcv, &s->qlock);
        sim_op *op = s->head;
        if (op) {
            s->head = op->next;
            if (!s->head)
                s->tail = NULL;
        }
        pthread_mutex_unlock(&s->qlock);
        if (!op)
            break;
        run_op(s, op, epoch);
        uint64_t seq = op->seq;
        sim_op_free(op);
        atomic_store(&s->completed, seq);
        sim_progress_notify();
    }
    remove_from_ctx(s);
    sim_progress_notify();
    sim_obj_release(&s->obj);
    return NULL;
}

/* ---- creation and shutdown --------------------------------------------- */

static sim_status start_worker(sim_stream *s)
{
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    /* Detached: nothing ever joins a worker, so a hung one cannot hang the
     * process at exit or a caller that destroys its context. */
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sim_obj_retain(&s->obj); /* the worker's reference */
    int rc = pthread_create(&t, &attr, worker, s);
    pthread_attr_destroy(&attr);
    if (rc) {
        sim_obj_release(&s->obj);
        sim_detail("cannot start a stream worker thread");
        return SIM_ERR_OUT_OF_MEMORY;
    }
    return SIM_OK;
}

static bool add_to_ctx(sim_ctx *c, sim_stream *s)
{
    pthread_mutex_lock(&c->lock);
    bool ok = !atomic_load(&c->dying);
    if (ok && c->nstreams == c->capstreams) {
        size_t cap = c->capstreams ? c->capstreams * 2 : 8;
        sim_stream **n = sim_realloc(c->streams, cap * sizeof *n);
        if ((ok = n != NULL)) {
            c->streams = n;
            c->capstreams = cap;
        }
    }
    if (ok)
        c->streams[c->nstreams++] = s;
    pthread_mutex_unlock(&c->lock);
    return ok;
}

sim_status sim_stream_create(sim_ctx *c, unsigned flags, bool is_null, sim_stream **out)
{
    sim_stream *s = sim_calloc(1, sizeof *s);
    if (!s)
        return SIM_ERR_OUT_OF_MEMORY;
    sim_obj_init(&s->obj, SIM_KIND_STREAM, c, stream_free);
    sim_obj_retain(&c->obj);
    s->ctx = c;
    s->is_null = is_null;
    s->blocking = !is_null && !(flags & SIM_STREAM_NON_BLOCKING);
    pthread_mutex_init(&s->run_lock, NULL);
    pthread_mutex_init(&s->qlock, NULL);
    pthread_cond_init(&s->qcv, NULL);
    atomic_init(&s->closing, false);
    atomic_init(&s->submitted, 0);
    atomic_init(&s->completed, 0);
    atomic_init(&s->discard, false);
    atomic_init(&s->cursor_ns, 0); /* its first op starts at the device's frontier */
    if (!add_to_ctx(c, s)) {
        sim_obj_release(&s->obj);
        return SIM_ERR_CONTEXT_DESTROYED;
    }
    sim_status st = start_worker(s);
    if (st) {
        remove_from_ctx(s);
        sim_obj_release(&s->obj);
        return st;
    }
    if (!is_null) {
        sim_obj_retain(&s->obj); /* the registry's reference */
        if (!sim_registry_add(&s->obj)) {
            sim_obj_release(&s->obj);
            sim_stream_close(s);
            sim_obj_release(&s->obj);
            return SIM_ERR_OUT_OF_MEMORY;
        }
    }
    *out = s;
    return SIM_OK;
}

void sim_stream_close(sim_stream *s)
{
    pthread_mutex_lock(&s->qlock);
    atomic_store_explicit(&s->closing, true, memory_order_release);
    pthread_cond_signal(&s->qcv);
    pthread_mutex_unlock(&s->qlock);
}

void sim_stream_truth_discard_queued(sim_stream *s)
{
    if (!s->ctx->truth)
        return;
    pthread_mutex_lock(&s->qlock);
    for (sim_op *op = s->head; op; op = op->next)
        if (op->kind == SIM_OP_LAUNCH)
            sim_launch_truth_discard(op->u.launch);
    pthread_mutex_unlock(&s->qlock);
}

void sim_stream_abandon(sim_stream *s)
{
    atomic_store(&s->discard, true);
    sim_stream_close(s);
    /* After discard is set no queued op runs, so marking them now is the
     * truth, and the caller (destroy, reset) returns with it written. */
    sim_stream_truth_discard_queued(s);
    sim_progress_notify();
}

/* ---- submission -------------------------------------------------------- */

/* Queues op: its sequence number, or 0 with *why (NULL: not wanted) saying
 * why not. */
static uint64_t enqueue(sim_stream *s, sim_op *op, sim_status *why)
{
    op->clock = atomic_fetch_add(&s->ctx->clock, 1);
    sim_timeline_submitted(s, op);
    pthread_mutex_lock(&s->qlock);
    sim_status st = SIM_OK;
    if (atomic_load_explicit(&s->closing, memory_order_relaxed))
        st = SIM_ERR_INVALID_HANDLE;
    else if (op->kind == SIM_OP_LAUNCH)
        st = sim_launch_truth_accept(op->u.launch); /* before the worker can see it */
    if (st) {
        pthread_mutex_unlock(&s->qlock);
        sim_op_free(op);
        if (why)
            *why = st;
        return 0;
    }
    uint64_t seq = atomic_load(&s->submitted) + 1;
    atomic_store(&s->submitted, seq);
    op->seq = seq;
    if (s->tail)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    pthread_cond_signal(&s->qcv);
    pthread_mutex_unlock(&s->qlock);
    return seq;
}

/* Queues on s a wait for everything queued so far on target. */
static void wait_behind(sim_stream *s, sim_stream *target)
{
    uint64_t seq = atomic_load(&target->submitted);
    if (atomic_load(&target->completed) >= seq)
        return;
    sim_op *w = sim_op_new(SIM_OP_WAIT);
    if (!w)
        return; /* ordering is best effort under memory exhaustion */
    sim_obj_retain(&target->obj);
    w->u.wait.target = target;
    w->u.wait.seq = seq;
    enqueue(s, w, NULL);
}

static void legacy_ordering(sim_stream *s)
{
    sim_ctx *c = s->ctx;
    if (s->blocking) {
        sim_stream *ns = sim_ctx_null_stream(c);
        if (ns) {
            wait_behind(s, ns);
            sim_obj_release(&ns->obj);
        }
        return;
    }
    if (!s->is_null)
        return;
    pthread_mutex_lock(&c->lock);
    size_t n = 0;
    sim_stream **list = sim_malloc((c->nstreams ? c->nstreams : 1) * sizeof *list);
    for (size_t i = 0; list && i < c->nstreams; i++)
        if (c->streams[i]->blocking) {
            sim_obj_retain(&c->streams[i]->obj);
            list[n++] = c->streams[i];
        }
    pthread_mutex_unlock(&c->lock);
    for (size_t i = 0; i < n; i++) {
        wait_behind(s, list[i]);
        sim_obj_release(&list[i]->obj);
    }
    free(list);
}

/* Fast mode: numbers op (NULL: work already done) and runs it here; the
 * caller keeps op. */
static uint64_t run_now_borrowed(sim_stream *s, sim_op *op)
{
    sim_ctx *c = s->ctx;
    uint64_t seq = 0;
    pthread_mutex_lock(&s->run_lock);
    if (!atomic_load_explicit(&s->closing, memory_order_acquire)) {
        seq = atomic_load_explicit(&s->submitted, memory_order_relaxed) + 1;
        atomic_store_explicit(&s->submitted, seq, memory_order_release);
        if (op) {
            op->clock = atomic_fetch_add(&c->clock, 1);
            sim_timeline_submitted(s, op);
            op->seq = seq;
            run_op(s, op, atomic_load(&c->epoch));
        }
        atomic_store_explicit(&s->completed, seq, memory_order_release);
    }
    pthread_mutex_unlock(&s->run_lock);
    if (seq)
        sim_progress_notify();
    return seq;
}

static uint64_t run_now(sim_stream *s, sim_op *op)
{
    uint64_t seq = run_now_borrowed(s, op);
    sim_op_free(op);
    return seq;
}

uint64_t sim_stream_run_inline(sim_stream *s, sim_op *op)
{
    return run_now_borrowed(s, op);
}

sim_status sim_stream_host_call(sim_stream *s, const sim_host_call *hc)
{
    sim_op *op = sim_op_new(SIM_OP_HOST_CALL);
    if (!op)
        return SIM_ERR_OUT_OF_MEMORY;
    op->u.host = *hc;
    return sim_stream_submit(s, op) ? SIM_OK : SIM_ERR_INVALID_HANDLE;
}

uint64_t sim_stream_submit_done(sim_stream *s)
{
    return run_now(s, NULL);
}

uint64_t sim_stream_submit(sim_stream *s, sim_op *op)
{
    if (sim_fast())
        return run_now(s, op);
    switch (op->kind) {
    case SIM_OP_WAIT:
    case SIM_OP_FREE:
        break;
    default:
        legacy_ordering(s);
        break;
    }
    return enqueue(s, op, NULL);
}

sim_status sim_stream_submit_launch(sim_stream *s, sim_op *op)
{
    sim_status why = SIM_OK;
    legacy_ordering(s);
    return enqueue(s, op, &why) ? SIM_OK : why;
}

/* ---- waiting ------------------------------------------------------------ */

sim_status sim_stream_query(sim_stream *s)
{
    /* Completion first, health second. A worker poisons the context
     * (sim_ctx_poison) before it publishes the completion of the op that
     * faulted, so a query that finds the queue drained and only then reads
     * the health sees the fault, as a real driver's cuStreamQuery does: it
     * never answers success for a kernel that trapped. Read the other way
     * round, a fault landing between the two reads looked like a clean
     * finish (health read before the poison, completion after it). */
    uint64_t submitted = atomic_load(&s->submitted);
    bool drained = atomic_load(&s->completed) >= submitted;
    sim_status st = sim_ctx_health(s->ctx);
    if (st)
        return st;
    return drained ? SIM_OK : SIM_ERR_NOT_READY;
}

static bool stream_idle(void *p)
{
    wait_arg *w = p;
    return atomic_load(&w->target->completed) >= w->seq || atomic_load(&w->target->discard) ||
           sim_ctx_health(w->target->ctx) != SIM_OK;
}

sim_status sim_stream_sync(sim_stream *s)
{
    wait_arg w = { s, s, atomic_load(&s->submitted) };
    sim_progress_wait(stream_idle, &w, NULL);
    sim_status st = sim_ctx_health(s->ctx);
    if (st == SIM_OK && atomic_load(&s->discard))
        st = SIM_ERR_CONTEXT_DESTROYED;
    return st;
}

static bool seq_reached(void *p)
{
    wait_arg *w = p;
    return atomic_load(&w->target->completed) >= w->seq;
}

sim_status sim_stream_finish(sim_stream *s, uint64_t seq)
{
    wait_arg w = { s, s, seq };
    sim_progress_wait(seq_reached, &w, NULL);
    return sim_ctx_health(s->ctx);
}

sim_status sim_ctx_sync(sim_ctx *c)
{
    pthread_mutex_lock(&c->lock);
    size_t n = c->nstreams;
    sim_stream **list = sim_malloc((n ? n : 1) * sizeof *list);
    if (!list) {
        pthread_mutex_unlock(&c->lock);
        return SIM_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < n; i++) {
        list[i] = c->streams[i];
        sim_obj_retain(&list[i]->obj);
    }
    pthread_mutex_unlock(&c->lock);
    for (size_t i = 0; i < n; i++) {
        wait_arg w = { list[i], list[i], atomic_load(&list[i]->submitted) };
        sim_progress_wait(stream_idle, &w, NULL);
        sim_obj_release(&list[i]->obj);
    }
    free(list);
    return sim_ctx_health(c);
}
