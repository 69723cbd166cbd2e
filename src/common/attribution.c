/*
 * Culprit attribution when a context dies, from two sources:
 *  - what was observed complete (a successful query or synchronize of a
 *    stream, of an event recorded after a launch, or of the whole context):
 *    the launches not observed are the suspects;
 *  - where the device keeps one, the stream's completion timeline
 *    (timeline.c): the device wrote, after each launch, how many launches
 *    of the stream were then complete, in stream order, so on that stream
 *    the first launch past the value read is the only one that can have
 *    failed (the later ones never started).
 * A suspect is named (kernel, launch number) only from its own record; a
 * suspect whose record was overwritten (more launches queued behind it than
 * records are kept) is located by its position on the stream and said to
 * be unkept, never replaced by a newer launch. One named suspect in all:
 * EXACT. Otherwise WINDOW.
 *
 * Launch numbers grow along a stream (a launch is numbered after the
 * driver took it, and a stream's launches are taken one after another),
 * so the launch at position p (0-based) has a number of at least p + 1,
 * and less than the number of any later launch of the stream by at least
 * the positions between them: the bounds an unkept suspect's number gets.
 */
#include "common/attribution.h"
#include "base/alloc.h"
#include "common/call.h"
#include "common/departed.h"
#include "common/context_table.h"
#include "common/timeline.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gg__stream *stream_of(gg__object *o)
{
    return (gg__stream *)o;
}

/* The record at a position still kept (NULL when overwritten or never
 * written), with its number. */
static gg__launch_record *kept_record(gg__launch_log *log, uint64_t submitted, uint64_t position, uint64_t *seq)
{
    if (log->ring == NULL || position >= submitted || submitted - position > log->records_mask + 1)
        return NULL;
    gg__launch_record *r = &log->ring[position & log->records_mask];
    *seq = atomic_load_explicit(&r->sequence, memory_order_acquire);
    return *seq != 0 ? r : NULL;
}

/* How many launches of `log`, from its first, are numbered at most `mark`
 * (provably: a position whose record is gone is not claimed, nor anything
 * before it beyond what was observed already). */
static uint64_t launches_up_to(gg__launch_log *log, uint64_t mark)
{
    uint64_t submitted = atomic_load_explicit(&log->submitted, memory_order_acquire);
    uint64_t completed = atomic_load_explicit(&log->completed, memory_order_relaxed);
    for (uint64_t i = submitted; i > completed; i--) {
        uint64_t seq = 0;
        if (kept_record(log, submitted, i - 1, &seq) == NULL) {
            if (submitted - (i - 1) > log->records_mask)
                break; /* overwritten from here down */
            continue;  /* a launch being recorded right now: not under the mark */
        }
        if (seq <= mark)
            return i;
    }
    return completed;
}

/* ---- destroyed streams' logs ------------------------------------------- */

static bool log_unobserved(gg__launch_log *log)
{
    return atomic_load_explicit(&log->completed, memory_order_relaxed) <
           atomic_load_explicit(&log->submitted, memory_order_acquire);
}

static void retired_free(gg__context *ctx, gg__retired_log *r, gg__backend *b)
{
    if (b != NULL) {
        if (r->done != NULL)
            b->event_destroy(b->self, r->done);
        if (r->kept_stream != NULL)
            b->stream_destroy(b->self, r->kept_stream);
    }
    gg__timeline_release_slot(ctx, &r->log);
    gg__launch_log_close(&r->log);
    gg__free(r);
}

/* Frees the kept logs for which `done` holds (all when it is NULL). */
static void retired_free_if(gg__context *ctx, gg__backend *b, bool (*done)(gg__retired_log *, void *), void *arg)
{
    for (gg__retired_log **p = &ctx->retired; *p != NULL;) {
        gg__retired_log *r = *p;
        if (done == NULL || done(r, arg)) {
            *p = r->next;
            ctx->retired_count--;
            retired_free(ctx, r, b);
        } else {
            p = &r->next;
        }
    }
}

/* The kept log's work is over, as its event (or kept stream) says now. */
static bool retired_polled_done(gg__retired_log *r, void *arg)
{
    gg__backend *b = arg;
    if (r->done != NULL)
        return b->event_query(b->self, r->done) == 0;
    if (r->kept_stream != NULL)
        return b->stream_query(b->self, r->kept_stream) == 0;
    return false;
}

bool gg__launch_log_retire(gg__context *ctx, gg__stream *st, gg__backend *b, bool *keep_native)
{
    *keep_native = false;
    if (b != NULL)
        retired_free_if(ctx, b, retired_polled_done, b);
    /* A stream with a timeline may have a write still to land even when all
     * its launches were observed (a query can pass between a launch and its
     * write): its slot is held until an event after the write completes. */
    bool write_pending = b != NULL && st->log.timeline_slot != NULL && gg__launch_log_submitted(&st->log) > 0;
    if (!log_unobserved(&st->log) && !write_pending)
        return false;
    gg__retired_log *r = gg__calloc(1, sizeof *r);
    if (r == NULL) {
        /* Out of host memory: attribution then lacks these launches, and
         * the slot is not handed to another stream (a write may still
         * land in it): the context has one timeline slot fewer. */
        st->log.timeline_slot = NULL;
        return false;
    }
    if (b != NULL) {
        /* Bookkeeping driver calls (not gated, as the context switches are):
         * without the event a context synchronize cannot wait for this work. */
        gg__nevent ev = NULL;
        if (b->event_create(b->self, &ev) == 0) {
            if (b->event_record(b->self, ev, st->native) == 0)
                r->done = ev;
            else
                b->event_destroy(b->self, ev);
        }
        /* No event: the native stream itself stays, polled and destroyed
         * once done (an adopted stream its owner keeps cannot be held). */
        if (r->done == NULL && st->native != NULL && !gg__object_borrowed(&st->h)) {
            r->kept_stream = st->native;
            *keep_native = true;
        }
    }
    r->stream_id = st->h.birth_id;
    memcpy(r->tag, st->h.tag, sizeof r->tag);
    /* The log's fields are atomics written by launches that have all
     * returned (the stream's pins are gone): a plain copy is complete. The
     * record array moves with it. */
    memcpy(&r->log, &st->log, sizeof r->log);
    st->log.ring = NULL;
    st->log.timeline_slot = NULL;
    r->next = ctx->retired;
    ctx->retired = r;
    ctx->retired_count++;
    return true;
}

void gg__retired_logs_release(gg__context *ctx, gg__backend *b)
{
    retired_free_if(ctx, b, NULL, NULL); /* counts retired_count down to 0 */
}

int gg__retired_logs_query(gg__context *ctx, gg__backend *b)
{
    for (gg__retired_log **p = &ctx->retired; *p != NULL;) {
        gg__retired_log *r = *p;
        int n = 0;
        if (r->done != NULL)
            n = b->event_query(b->self, r->done);
        else if (r->kept_stream != NULL)
            n = b->stream_query(b->self, r->kept_stream);
        else {
            p = &r->next; /* nothing to poll (the context was dead at the destroy) */
            continue;
        }
        if (n != 0)
            return n;
        *p = r->next;
        ctx->retired_count--;
        retired_free(ctx, r, b);
    }
    return 0;
}

/* ---- context-wide observation ------------------------------------------ */

static bool retired_under_mark(gg__retired_log *r, void *arg)
{
    uint64_t mark = *(const uint64_t *)arg;
    return launches_up_to(&r->log, mark) >= atomic_load_explicit(&r->log.submitted, memory_order_relaxed);
}

void gg__context_observe_all(gg__context *ctx, uint64_t sequence_mark)
{
    gg__rlock_take(&ctx->lock);
    gg__launch_log_observe(&ctx->default_log, launches_up_to(&ctx->default_log, sequence_mark));
    for (gg__object *o = ctx->children.next; o != &ctx->children; o = o->next)
        if (o->type == GG__T_STREAM)
            gg__launch_log_observe(&stream_of(o)->log, launches_up_to(&stream_of(o)->log, sequence_mark));
    /* Destroyed streams' logs whose launches are all under the mark were
     * waited for (their events polled done): free them. */
    gg__backend *b = gg__context_state(ctx) == GG_STATE_ALIVE ? gg__backend_get() : NULL;
    retired_free_if(ctx, b, retired_under_mark, &sequence_mark);
    gg__rlock_release(&ctx->lock);
}

uint64_t gg__launch_log_stream_id(gg__context *ctx, gg__launch_log *log)
{
    if (log == &ctx->default_log || log == NULL)
        return 0;
    gg__stream *s = (gg__stream *)((char *)log - offsetof(gg__stream, log));
    return s->h.birth_id; /* also while a destroy is releasing it */
}

/* ---- suspects ------------------------------------------------------------ */

/* One log with its identity, as attribution sees it. */
typedef struct log_view {
    gg__launch_log *log;
    uint64_t stream_id;
    const char *tag; /* "" for the default stream */
} log_view;

/* What attribution gathers over the logs. */
typedef struct gathering {
    gg__context *ctx;
    gg_culprit *out;
    gg__suspect_names *names;
    uint64_t oldest_low;  /* lower bound of the oldest suspect's number so far (0: none yet) */
    uint64_t unkept;      /* suspects without a record */
    uint64_t between_marks; /* suspects behind a stream's first, before its next mark */
} gathering;

static void count_name(gg__suspect_names *names, const char *name)
{
    if (names == NULL)
        return;
    for (uint32_t i = 0; i < names->count; i++)
        if (names->kernels[i].name == name) { /* interned: pointers compare */
            names->kernels[i].launches++;
            return;
        }
    if (names->count < GG__SUSPECT_NAMES_MAX) {
        names->kernels[names->count].name = name;
        names->kernels[names->count].launches = 1;
        names->count++;
    } else {
        names->other_launches++;
    }
}

static void note_window(gg_culprit *out, uint64_t low, uint64_t high)
{
    if (out->window_first == 0 || low < out->window_first)
        out->window_first = low;
    if (high > out->window_last)
        out->window_last = high;
}

/* One suspect: a launch not known complete at `position` of the log.
 * Named from its record when kept; otherwise its number is bounded (see
 * the top of this file) and it is counted as unkept. The first unfinished
 * launch of a timeline stream is also a candidate. */
static void add_suspect(gathering *g, const log_view *v, uint64_t submitted, uint64_t position, bool candidate)
{
    gg_culprit *out = g->out;
    uint64_t seq = 0, low, high;
    gg__launch_record *r = kept_record(v->log, submitted, position, &seq);
    const char *name = r ? atomic_load_explicit(&r->kernel_name, memory_order_relaxed) : NULL;
    if (r != NULL) {
        low = high = seq;
        count_name(g->names, name);
    } else {
        low = position + 1;
        high = atomic_load_explicit(&g->ctx->launch_sequence, memory_order_relaxed);
        for (uint64_t later = position + 1; later < submitted; later++) {
            uint64_t later_seq = 0;
            if (kept_record(v->log, submitted, later, &later_seq) != NULL) {
                if (later_seq > later - position)
                    high = later_seq - (later - position);
                break;
            }
        }
        if (high < low)
            high = low;
        g->unkept++;
    }
    note_window(out, low, high);
    out->window_count++;
    uint64_t known = low == high ? low : 0; /* the number, when proven */
    uint64_t behind = submitted - position - 1;
    if (g->oldest_low == 0 || low < g->oldest_low) {
        g->oldest_low = low;
        gg__record_name(name ? name : "", out->kernel_name);
        out->sequence = r ? seq : known;
        out->stream.id = v->stream_id;
        if (g->names != NULL) {
            snprintf(g->names->suspect_tag, sizeof g->names->suspect_tag, "%s", v->tag);
            g->names->suspect_behind = r ? 0 : behind;
            g->names->suspect_position = position + 1;
        }
    }
    if (!candidate)
        return;
    if (out->candidate_count < GG_CULPRIT_CANDIDATES_MAX) {
        uint32_t i = out->candidate_count;
        gg_culprit_candidate *cand = &out->candidates[i];
        gg__record_name(name ? name : "", cand->kernel_name);
        cand->stream.id = v->stream_id;
        cand->sequence = r ? seq : known;
        if (g->names != NULL) {
            snprintf(g->names->candidate_tags[i], sizeof g->names->candidate_tags[0], "%s", v->tag);
            g->names->candidate_behind[i] = r ? 0 : behind;
            g->names->candidate_position[i] = position + 1;
        }
    }
    out->candidate_count++;
}

/* Adds one log's suspects: with a timeline, its first unfinished launch
 * (the later ones never started); without, every launch not observed. */
static void collect(gathering *g, const log_view *v)
{
    gg__launch_log *log = v->log;
    uint64_t submitted = atomic_load_explicit(&log->submitted, memory_order_acquire);
    uint64_t completed = atomic_load_explicit(&log->completed, memory_order_relaxed);
    if (completed >= submitted)
        return;
    uint64_t done = 0;
    if (gg__launch_log_timeline(log, g->ctx->timeline_wide, submitted, &done)) {
        /* Observation may run ahead of a write that has not landed yet. */
        if (done < completed)
            done = completed;
        if (done >= submitted)
            return;
        /* With a stride N the slot moves only at every Nth launch: the
         * suspects are the launches up to the next mark (its value the next
         * multiple of N; every launch was marked before auto chose N, a
         * superset), or to the last launch when none was marked since.
         * Only a launch followed by its own mark that has not landed is
         * known unfinished (or its mark is): it alone is the stream's
         * candidate. The others are suspects as unobserved launches are. */
        uint32_t stride = atomic_load_explicit(&g->ctx->timeline_stride, memory_order_relaxed);
        uint64_t next_mark = stride <= 1 ? done + 1 : (done / stride + 1) * stride;
        bool own_mark = next_mark == done + 1;
        uint64_t end = next_mark < submitted ? next_mark : submitted;
        for (uint64_t p = done; p < end; p++)
            add_suspect(g, v, submitted, p, own_mark);
        if (!own_mark)
            g->between_marks += end - done;
        return;
    }
    for (uint64_t p = completed; p < submitted; p++)
        add_suspect(g, v, submitted, p, false);
}

void gg__attribute(gg__context *ctx, gg__launch_log *only, gg_culprit *out, gg__suspect_names *names)
{
    memset(out, 0, sizeof *out);
    if (names != NULL) {
        memset(names, 0, sizeof *names);
        names->records = gg__lib.config.launch_records;
    }
    gathering g = { .ctx = ctx, .out = out, .names = names };
    if (only != NULL) {
        gg__stream *s = only == &ctx->default_log ? NULL
                                                  : (gg__stream *)((char *)only - offsetof(gg__stream, log));
        log_view v = { only, gg__launch_log_stream_id(ctx, only), s ? s->h.tag : "" };
        collect(&g, &v);
    } else {
        log_view v = { &ctx->default_log, 0, "" };
        collect(&g, &v);
        for (gg__object *o = ctx->children.next; o != &ctx->children; o = o->next) {
            if (o->type != GG__T_STREAM)
                continue;
            log_view sv = { &stream_of(o)->log, o->birth_id, o->tag };
            collect(&g, &sv);
        }
        for (gg__retired_log *r = ctx->retired; r != NULL; r = r->next) {
            log_view rv = { &r->log, r->stream_id, r->tag };
            collect(&g, &rv);
        }
    }
    if (names != NULL) {
        names->unkept = g.unkept;
        names->between_marks = g.between_marks;
        names->stride = atomic_load_explicit(&ctx->timeline_stride, memory_order_relaxed);
    }
    /* A native context other gg contexts use too (HIP: every context is
     * its device's; CUDA: a primary context): their launches, or those of
     * one destroyed with its work still running, fault there as well, and
     * may be what killed it. No culprit is named then. (A deadline on one
     * stream is that stream's own.) */
    gg__backend *b = gg__backend_get();
    if (only == NULL && b != NULL &&
        (ctx->use_primary || b->one_context_per_device || gg__sticky_process_wide(b))) {
        char who[GG_NAME_MAX + 64] = "";
        bool departed = gg__departed_note(b, ctx->native, who, sizeof who) > 0;
        if (departed || gg__context_sharers_busy(ctx, who, sizeof who) > 0) {
            memset(out, 0, sizeof *out);
            if (names != NULL) {
                memset(names, 0, sizeof *names);
                snprintf(names->shared_with, sizeof names->shared_with, "%s", who);
                names->shared_departed = departed;
                names->shared_process_wide = !departed && !ctx->use_primary && !b->one_context_per_device;
            }
            out->certainty = GG_ATTRIBUTION_NONE;
            return;
        }
    }
    if (out->window_count == 0)
        out->certainty = GG_ATTRIBUTION_NONE;
    else if (out->window_count == 1 && g.unkept == 0)
        out->certainty = GG_ATTRIBUTION_EXACT; /* the one suspect, by its own record */
    else
        out->certainty = GG_ATTRIBUTION_WINDOW;
    /* Candidates are listed for a WINDOW only (EXACT has one: the culprit). */
    if (out->certainty != GG_ATTRIBUTION_WINDOW)
        out->candidate_count = 0;
}

/* "stream 'tag'", "the default stream", or a destroyed stream's id. */
static void stream_text(char *buf, size_t size, uint64_t id, const char *tag)
{
    if (id == 0)
        snprintf(buf, size, "the default stream");
    else if (tag != NULL && tag[0] != '\0')
        snprintf(buf, size, "stream '%s'", tag);
    else
        snprintf(buf, size, "stream 0x%016llx", (unsigned long long)id);
}

/* "kernel 'k' #7", or for a launch whose record was overwritten what is
 * known of it: "launch #7" when its number is proven, else its position on
 * its stream; with why its name is not kept. */
static void launch_text(char *buf, size_t size, const char *kernel, uint64_t sequence, uint64_t position,
                        uint64_t behind, uint32_t records)
{
    if (kernel[0] != '\0') {
        snprintf(buf, size, "kernel '%s' #%llu", kernel, (unsigned long long)sequence);
        return;
    }
    char number[48];
    if (sequence != 0)
        snprintf(number, sizeof number, "launch #%llu", (unsigned long long)sequence);
    else
        snprintf(number, sizeof number, "launch %llu of its stream", (unsigned long long)position);
    snprintf(buf, size, "%s (name not kept: %llu launches were queued behind it, more than the %u records kept "
             "per stream; GPUGUARD_LAUNCH_RECORDS keeps more)", number, (unsigned long long)behind, records);
}

void gg__culprit_text(const gg_culprit *cul, const gg__suspect_names *names, char *buf, size_t size)
{
    buf[0] = '\0';
    if (cul->certainty == GG_ATTRIBUTION_EXACT) {
        char where[GG_NAME_MAX + 32];
        stream_text(where, sizeof where, cul->stream.id, names != NULL ? names->suspect_tag : NULL);
        snprintf(buf, size, "culprit: kernel '%s' (launch #%llu, on %s)", cul->kernel_name,
                 (unsigned long long)cul->sequence, where);
        return;
    }
    if (cul->certainty == GG_ATTRIBUTION_NONE && names != NULL && names->shared_with[0] != '\0') {
        if (names->shared_process_wide)
            snprintf(buf, size, "culprit unknown: %s had launches unfinished, and a sticky error reaches every "
                     "context of the process (CUDA: docs/DRIVER-FACTS.md): one of them may be to blame",
                     names->shared_with);
        else if (names->shared_departed)
            snprintf(buf, size, "culprit unknown: %s, destroyed with its work still running on this native "
                     "context (shared: on HIP a device has one, and a primary context is everyone's), may be to "
                     "blame", names->shared_with);
        else
            snprintf(buf, size, "culprit unknown: %s shares this native context (on HIP a device has one, and a "
                     "primary context is everyone's) and had launches unfinished: one of them may be to blame",
                     names->shared_with);
        return;
    }
    if (cul->certainty != GG_ATTRIBUTION_WINDOW)
        return;
    size_t used = 0;
#define APPEND(...)                                                              \
    do {                                                                         \
        if (used < size) {                                                       \
            int w_ = snprintf(buf + used, size - used, __VA_ARGS__);             \
            /* A piece that does not fit whole is dropped, never cut: a cut  \
             * could leave "#1" of "#1099". Nothing is appended after it. */ \
            if (w_ < 0 || (size_t)w_ >= size - used) {                       \
                buf[used] = '\0';                                            \
                used = size;                                                 \
            } else {                                                         \
                used += (size_t)w_;                                          \
            }                                                                \
        }                                                                        \
    } while (0)
    uint32_t records = names != NULL ? names->records : 0;
    if (cul->window_count == 1) {
        /* One suspect whose record is gone: where it is, never another's name. */
        char where[GG_NAME_MAX + 32], what[256];
        stream_text(where, sizeof where, cul->stream.id, names != NULL ? names->suspect_tag : NULL);
        launch_text(what, sizeof what, cul->kernel_name, cul->sequence, names ? names->suspect_position : 0,
                    names ? names->suspect_behind : 0, records);
        APPEND("culprit: %s on %s", what, where);
    } else if (cul->candidate_count > 1) {
        APPEND("culprit: one of %u streams' first unfinished launches:", cul->candidate_count);
        uint32_t listed = cul->candidate_count < GG_CULPRIT_CANDIDATES_MAX ? cul->candidate_count
                                                                          : GG_CULPRIT_CANDIDATES_MAX;
        for (uint32_t i = 0; i < listed; i++) {
            char where[GG_NAME_MAX + 32], what[256];
            stream_text(where, sizeof where, cul->candidates[i].stream.id,
                        names != NULL ? names->candidate_tags[i] : NULL);
            launch_text(what, sizeof what, cul->candidates[i].kernel_name, cul->candidates[i].sequence,
                        names ? names->candidate_position[i] : 0, names ? names->candidate_behind[i] : 0, records);
            APPEND("%s %s on %s", i ? "," : "", what, where);
        }
        if (cul->candidate_count > listed)
            APPEND(", and %u more", cul->candidate_count - listed);
        uint64_t between = names != NULL ? names->between_marks : 0;
        if (between > 0)
            APPEND("; and %llu launch(es) not known complete on streams whose completion is marked every %u "
                   "launches", (unsigned long long)between, names->stride);
        if (cul->window_count > cul->candidate_count + between)
            APPEND("; and %llu launch(es) on streams without a timeline",
                   (unsigned long long)(cul->window_count - cul->candidate_count - between));
    } else {
        APPEND("culprit: one of %u unfinished launches #%llu..#%llu", cul->window_count,
               (unsigned long long)cul->window_first, (unsigned long long)cul->window_last);
    }
    if (names != NULL && (names->count > 0 || names->unkept > 0) && cul->window_count > 1) {
        APPEND(" (");
        for (uint32_t i = 0; i < names->count; i++)
            APPEND("%s'%s' x%u", i ? ", " : "", names->kernels[i].name ? names->kernels[i].name : "?",
                   names->kernels[i].launches);
        if (names->other_launches > 0)
            APPEND(", %u more", names->other_launches);
        if (names->unkept > 0)
            APPEND("%s%llu not kept by name: more launches were queued than the %u records kept per stream",
                   names->count ? "; " : "", (unsigned long long)names->unkept, records);
        APPEND(")");
    }
    if (names != NULL && names->between_marks > 0)
        APPEND("; completion is marked every %u launches of a stream (gg_context_timeline; GPUGUARD_TIMELINE=on "
               "marks every one)", names->stride);
    APPEND("; set GPUGUARD_SYNC_LAUNCHES=1 to name the kernel exactly");
#undef APPEND
}
