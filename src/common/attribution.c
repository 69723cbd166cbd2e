/*
 * Culprit attribution when a context dies, from two sources:
 *  - what was observed complete (a successful query or synchronize of a
 *    stream, of an event recorded after a launch, or of the whole context):
 *    the launches not observed are the suspects;
 *  - where the device keeps one, the stream's completion timeline
 *    (timeline.c): the device wrote each launch's number after the launch
 *    completed, in stream order, so on that stream every launch up to the
 *    value read is complete, and the first launch after it is the only one
 *    of that stream that can have failed (the later ones never started).
 * One stream with an unfinished launch: EXACT. Several: WINDOW, with each
 * stream's first unfinished launch as a candidate.
 */
#include "common/attribution.h"
#include "common/alloc.h"
#include "common/call.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gg__stream *stream_of(gg__object *o)
{
    return (gg__stream *)o;
}

void gg__context_observe_all(gg__context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    gg__launch_log_observe(&ctx->default_log, gg__launch_log_submitted(&ctx->default_log));
    for (gg__object *o = ctx->children.next; o != &ctx->children; o = o->next)
        if (o->type == GG__T_STREAM)
            gg__launch_log_observe(&stream_of(o)->log, gg__launch_log_submitted(&stream_of(o)->log));
    /* Everything destroyed streams left behind is complete too. */
    gg__retired_logs_release(ctx, gg__context_state(ctx) == GG_STATE_ALIVE ? gg__backend_get() : NULL);
    pthread_mutex_unlock(&ctx->lock);
}

uint64_t gg__launch_log_stream_id(gg__context *ctx, gg__launch_log *log)
{
    if (log == &ctx->default_log || log == NULL)
        return 0;
    gg__stream *s = (gg__stream *)((char *)log - offsetof(gg__stream, log));
    return s->h.birth_id; /* also while a destroy is releasing it */
}

/* ---- destroyed streams' logs ------------------------------------------- */

static bool log_unobserved(gg__launch_log *log)
{
    return atomic_load_explicit(&log->completed, memory_order_relaxed) <
           atomic_load_explicit(&log->submitted, memory_order_acquire);
}

static void retired_free(gg__context *ctx, gg__retired_log *r, gg__backend *b)
{
    if (r->done != NULL && b != NULL)
        b->event_destroy(b->self, r->done);
    gg__timeline_release_slot(ctx, &r->log);
    gg__free(r);
}

bool gg__launch_log_retire(gg__context *ctx, gg__stream *st, gg__backend *b)
{
    if (!log_unobserved(&st->log))
        return false;
    gg__retired_log *r = gg__malloc(sizeof *r);
    if (r == NULL)
        return false; /* attribution then simply lacks these launches */
    /* Bounded: the oldest goes first (its launches are the likeliest done). */
    if (ctx->retired_count >= GG__RETIRED_LOGS_MAX) {
        gg__retired_log **p = &ctx->retired;
        while ((*p)->next != NULL)
            p = &(*p)->next;
        gg__retired_log *oldest = *p;
        *p = NULL;
        retired_free(ctx, oldest, b);
        ctx->retired_count--;
    }
    r->done = NULL;
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
    }
    r->stream_id = st->h.birth_id;
    memcpy(r->tag, st->h.tag, sizeof r->tag);
    /* The log's fields are atomics written by launches that have all
     * returned (the stream's pins are gone): a plain copy is complete. */
    memcpy(&r->log, &st->log, sizeof r->log);
    r->next = ctx->retired;
    ctx->retired = r;
    ctx->retired_count++;
    return true;
}

void gg__retired_logs_release(gg__context *ctx, gg__backend *b)
{
    while (ctx->retired != NULL) {
        gg__retired_log *r = ctx->retired;
        ctx->retired = r->next;
        retired_free(ctx, r, b);
    }
    ctx->retired_count = 0;
}

int gg__retired_logs_query(gg__context *ctx, gg__backend *b)
{
    for (gg__retired_log *r = ctx->retired; r != NULL; r = r->next) {
        if (r->done == NULL)
            continue;
        int n = b->event_query(b->self, r->done);
        if (n != 0)
            return n;
    }
    return 0;
}

/* ---- suspects ------------------------------------------------------------ */

/* One log with its identity, as attribution sees it. */
typedef struct log_view {
    gg__launch_log *log;
    uint64_t stream_id;
    const char *tag; /* "" for the default stream */
} log_view;

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

static void note_window(gg_culprit *out, uint64_t seq)
{
    if (out->window_first == 0 || seq < out->window_first)
        out->window_first = seq;
    if (seq > out->window_last)
        out->window_last = seq;
}

static void set_suspect(gg_culprit *out, gg__suspect_names *names, const log_view *v, uint64_t seq,
                        const char *name)
{
    snprintf(out->kernel_name, sizeof out->kernel_name, "%s", name ? name : "?");
    out->sequence = seq;
    out->stream.id = v->stream_id;
    if (names != NULL)
        snprintf(names->suspect_tag, sizeof names->suspect_tag, "%s", v->tag);
}

/* The value the device last wrote on the log's timeline; false when the
 * log has none (or it cannot be trusted). */
static bool timeline_value(const gg__context *ctx, gg__launch_log *log, uint64_t *value)
{
    _Atomic uint64_t *slot = log->timeline_slot;
    if (slot == NULL || atomic_load_explicit(&log->timeline_broken, memory_order_relaxed))
        return false;
    uint64_t v = atomic_load_explicit(slot, memory_order_acquire);
    *value = ctx->timeline_wide ? v : (v & 0xffffffffu);
    return true;
}

static bool launch_done(const gg__context *ctx, uint64_t seq, uint64_t written)
{
    /* 32-bit timelines compare the low halves (valid for the 2^32 launches
     * before a wrap). */
    return ctx->timeline_wide ? seq <= written : (seq & 0xffffffffu) <= written;
}

/* Adds one log's suspects. Returns true when the log has a timeline and an
 * unfinished launch on it (a stream with a candidate). */
static bool collect(gg__context *ctx, const log_view *v, gg_culprit *out, gg__suspect_names *names,
                    uint64_t *oldest, uint32_t *candidate_streams, uint32_t *unattributed)
{
    gg__launch_log *log = v->log;
    uint64_t submitted = atomic_load_explicit(&log->submitted, memory_order_acquire);
    uint64_t completed = atomic_load_explicit(&log->completed, memory_order_relaxed);
    if (completed >= submitted)
        return false;
    uint64_t written = 0;
    bool timeline = timeline_value(ctx, log, &written);
    /* Only the newest GG__LAUNCH_RING launches are remembered by name. */
    uint64_t first = submitted - completed > GG__LAUNCH_RING ? submitted - GG__LAUNCH_RING : completed;
    uint64_t first_unfinished = 0;
    const char *first_name = NULL;
    uint32_t unfinished = 0;
    for (uint64_t i = first; i < submitted; i++) {
        gg__launch_record *r = &log->ring[i % GG__LAUNCH_RING];
        uint64_t seq = atomic_load_explicit(&r->sequence, memory_order_acquire);
        if (seq == 0 || (timeline && launch_done(ctx, seq, written)))
            continue;
        const char *name = atomic_load_explicit(&r->kernel_name, memory_order_relaxed);
        unfinished++;
        note_window(out, seq);
        count_name(names, name);
        if (first_unfinished == 0 || seq < first_unfinished) {
            first_unfinished = seq;
            first_name = name;
        }
    }
    if (!timeline) {
        /* Beyond the ring the count is still exact. */
        uint64_t beyond = submitted - completed - (submitted - first);
        out->window_count += unfinished + (uint32_t)beyond;
        *unattributed += unfinished + (uint32_t)beyond;
    } else {
        out->window_count += unfinished;
    }
    if (first_unfinished == 0)
        return false;
    if (*oldest == 0 || first_unfinished < *oldest) {
        *oldest = first_unfinished;
        set_suspect(out, names, v, first_unfinished, first_name);
    }
    if (!timeline)
        return false;
    if (out->candidate_count < GG_CULPRIT_CANDIDATES_MAX) {
        gg_culprit_candidate *cand = &out->candidates[out->candidate_count];
        snprintf(cand->kernel_name, sizeof cand->kernel_name, "%s", first_name ? first_name : "?");
        cand->stream.id = v->stream_id;
        cand->sequence = first_unfinished;
        if (names != NULL)
            snprintf(names->candidate_tags[out->candidate_count], sizeof names->candidate_tags[0], "%s", v->tag);
    }
    out->candidate_count++;
    (*candidate_streams)++;
    return true;
}

void gg__attribute(gg__context *ctx, gg__launch_log *only, gg_culprit *out, gg__suspect_names *names)
{
    memset(out, 0, sizeof *out);
    if (names != NULL)
        memset(names, 0, sizeof *names);
    uint64_t oldest = 0;
    uint32_t candidate_streams = 0, unattributed = 0;
    if (only != NULL) {
        gg__stream *s = only == &ctx->default_log ? NULL
                                                  : (gg__stream *)((char *)only - offsetof(gg__stream, log));
        log_view v = { only, gg__launch_log_stream_id(ctx, only), s ? s->h.tag : "" };
        collect(ctx, &v, out, names, &oldest, &candidate_streams, &unattributed);
    } else {
        log_view v = { &ctx->default_log, 0, "" };
        collect(ctx, &v, out, names, &oldest, &candidate_streams, &unattributed);
        for (gg__object *o = ctx->children.next; o != &ctx->children; o = o->next) {
            if (o->type != GG__T_STREAM)
                continue;
            log_view sv = { &stream_of(o)->log, o->birth_id, o->tag };
            collect(ctx, &sv, out, names, &oldest, &candidate_streams, &unattributed);
        }
        for (gg__retired_log *r = ctx->retired; r != NULL; r = r->next) {
            log_view rv = { &r->log, r->stream_id, r->tag };
            collect(ctx, &rv, out, names, &oldest, &candidate_streams, &unattributed);
        }
    }
    if (out->window_count == 0) {
        out->certainty = GG_ATTRIBUTION_NONE;
    } else if (candidate_streams == 1 && unattributed == 0) {
        /* The one stream's first unfinished launch: the culprit. */
        out->certainty = GG_ATTRIBUTION_EXACT;
        snprintf(out->kernel_name, sizeof out->kernel_name, "%s", out->candidates[0].kernel_name);
        out->sequence = out->candidates[0].sequence;
        out->stream = out->candidates[0].stream;
        out->window_count = 1;
        out->window_first = out->window_last = out->sequence;
    } else if (out->window_count == 1) {
        out->certainty = GG_ATTRIBUTION_EXACT;
    } else {
        out->certainty = GG_ATTRIBUTION_WINDOW;
    }
    /* Candidates are listed for a WINDOW only (EXACT has at most one: the culprit). */
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
    if (cul->certainty != GG_ATTRIBUTION_WINDOW)
        return;
    size_t used = 0;
#define APPEND(...)                                                              \
    do {                                                                         \
        if (used < size) {                                                       \
            int w_ = snprintf(buf + used, size - used, __VA_ARGS__);             \
            used = w_ < 0 ? size : used + (size_t)w_;                            \
        }                                                                        \
    } while (0)
    if (cul->candidate_count > 1) {
        APPEND("culprit: one of %u streams' first unfinished launches:", cul->candidate_count);
        uint32_t listed = cul->candidate_count < GG_CULPRIT_CANDIDATES_MAX ? cul->candidate_count
                                                                          : GG_CULPRIT_CANDIDATES_MAX;
        for (uint32_t i = 0; i < listed; i++) {
            char where[GG_NAME_MAX + 32];
            stream_text(where, sizeof where, cul->candidates[i].stream.id,
                        names != NULL ? names->candidate_tags[i] : NULL);
            APPEND("%s kernel '%s' #%llu on %s", i ? "," : "", cul->candidates[i].kernel_name,
                   (unsigned long long)cul->candidates[i].sequence, where);
        }
        if (cul->candidate_count > listed)
            APPEND(", and %u more", cul->candidate_count - listed);
    } else {
        APPEND("culprit: one of %u unfinished launches #%llu..#%llu", cul->window_count,
               (unsigned long long)cul->window_first, (unsigned long long)cul->window_last);
    }
    if (names != NULL && names->count > 0) {
        APPEND(" (");
        for (uint32_t i = 0; i < names->count; i++)
            APPEND("%s'%s' x%u", i ? ", " : "", names->kernels[i].name ? names->kernels[i].name : "?",
                   names->kernels[i].launches);
        if (names->other_launches > 0)
            APPEND(", %u more", names->other_launches);
        APPEND(")");
    }
    APPEND("; set GPUGUARD_SYNC_LAUNCHES=1 to name the kernel exactly");
#undef APPEND
}
