/*
 * Work a gg context left running on a native context that outlives it.
 *
 * A native context can outlive its gg context: on HIP every context is the
 * device's primary context, a use_primary context on CUDA is too, and an
 * adopted context stays its owner's. Destroying such a gg context stops
 * none of its work: its launches still run there, may still fault (a fault
 * every later user of the native context then sees) and may still write
 * its completion timeline. So a departure with work not observed complete
 * leaves a record here:
 *  - its timeline page is not freed (a late write would land in whatever
 *    the memory is given to next, another context's timeline included): it
 *    stays with the record, freed by the native context's own teardown or
 *    reset (4 KiB a record, never more than one per departure);
 *  - attribution in any gg context on that native context names no culprit
 *    while a record stands (gg__departed_note): the launch to blame may be
 *    the departed context's, which no gg context can see any more.
 * A record goes once its work is seen done: its timeline slots (still in
 * the page it keeps) all count every launch complete, which holds after a
 * fault too, or, without them, an event recorded on the null stream as it
 * departed and its destroyed streams' events all complete (polled whenever
 * the records are read, and after every successful context-wide wait);
 * its page is freed then.
 * A record is void once the device's primary context was reset after it
 * (its work was discarded with everything else), counted by the resets
 * gpuguard made and the ones the backend made on its own (device_resets).
 */
#include "common/departed.h"
#include "common/launch_log.h"
#include "base/alloc.h"

#include <stdio.h>
#include <string.h>

typedef struct departed {
    struct departed *next;
    int device;
    gg__nctx native;
    uint64_t resets;   /* the device's resets when it departed */
    void *page;        /* its timeline page (or NULL): not freed, see above */
    gg__nevent done;   /* recorded on the null stream as it departed (NULL: none) */
    gg__retired_log *retired; /* its destroyed streams' logs, with their events */
    gg__launch_log default_log; /* its default stream's (the record array moved here) */
    bool timeline_wide;
    char label[GG_NAME_MAX + 40];
} departed;

/* A leaf lock: taken under a context's lock, never the other way round. */
static pthread_mutex_t departed_lock = PTHREAD_MUTEX_INITIALIZER;
static departed *records;
/* Resets of each device's primary context made by gpuguard's own calls. */
#define TRACKED_DEVICES 64
static _Atomic unsigned own_resets[TRACKED_DEVICES];

static uint64_t resets_of(gg__backend *b, int device)
{
    uint64_t n = device >= 0 && device < TRACKED_DEVICES ? atomic_load(&own_resets[device]) : 0;
    if (b != NULL && b->device_resets != NULL)
        n += b->device_resets(b->self, device);
    return n;
}

void gg__departed_reset_seen(int device)
{
    if (device >= 0 && device < TRACKED_DEVICES)
        atomic_fetch_add(&own_resets[device], 1);
}

static void retired_chain_free(gg__backend *b, gg__retired_log *r)
{
    while (r != NULL) {
        gg__retired_log *next = r->next;
        if (b != NULL && r->done != NULL)
            b->event_destroy(b->self, r->done);
        if (b != NULL && r->kept_stream != NULL)
            b->stream_destroy(b->self, r->kept_stream);
        gg__launch_log_close(&r->log);
        gg__free(r);
        r = next;
    }
}

/* The record's work is over by its timelines (no driver call: true after a
 * fault as well): every launch complete and its mark landed. */
static bool timelines_done(const departed *d)
{
    if (d->default_log.timeline_slot == NULL ||
        !gg__launch_log_all_done((gg__launch_log *)&d->default_log, d->timeline_wide))
        return false;
    for (gg__retired_log *r = d->retired; r != NULL; r = r->next)
        if (r->log.timeline_slot == NULL || !gg__launch_log_all_done(&r->log, d->timeline_wide))
            return false;
    return true;
}

/* The record's work is over: every event it holds reports done. */
static bool work_done(gg__backend *b, const departed *d)
{
    if (timelines_done(d))
        return true;
    if (d->done == NULL || b->event_query(b->self, d->done) != 0)
        return false;
    for (gg__retired_log *r = d->retired; r != NULL; r = r->next) {
        int n = r->done != NULL ? b->event_query(b->self, r->done)
                : r->kept_stream != NULL ? b->stream_query(b->self, r->kept_stream) : 1;
        if (n != 0)
            return false;
    }
    return true;
}

/* Frees a record whose work is done, through the driver: its events, its
 * kept streams and its page (on its native context, made current for the
 * free and the caller's restored). */
static void release_done(gg__backend *b, departed *d)
{
    if (d->done != NULL)
        b->event_destroy(b->self, d->done);
    gg__launch_log_close(&d->default_log);
    retired_chain_free(b, d->retired);
    if (d->page != NULL && b->host_free_mapped != NULL) {
        gg__nctx current = NULL;
        bool pushed = b->ctx_get_current(b->self, &current) == 0 && current != d->native &&
                      b->ctx_push(b->self, d->native) == 0;
        b->host_free_mapped(b->self, d->page);
        if (pushed)
            b->ctx_pop(b->self, NULL);
    }
    gg__free(d);
}

/* Drops the records a reset made void (their events, streams and pages
 * went with the reset: no driver call) and frees those whose work is
 * done (b NULL: no polling). Caller holds departed_lock. */
static void refresh(gg__backend *b)
{
    for (departed **p = &records; *p != NULL;) {
        departed *d = *p;
        if (resets_of(b, d->device) != d->resets) {
            *p = d->next;
            retired_chain_free(NULL, d->retired);
            gg__launch_log_close(&d->default_log);
            gg__free(d);
        } else if (b != NULL && work_done(b, d)) {
            *p = d->next;
            release_done(b, d);
        } else {
            p = &d->next;
        }
    }
}

bool gg__departed_leave(gg__backend *b, gg__context *ctx, void *page)
{
    departed *d = gg__calloc(1, sizeof *d);
    if (d == NULL)
        return false;
    /* The null stream's work so far, with the context current. */
    gg__nctx current = NULL;
    bool pushed = b->ctx_get_current(b->self, &current) == 0 && current != ctx->native &&
                  b->ctx_push(b->self, ctx->native) == 0;
    if (b->event_create(b->self, &d->done) == 0 && b->event_record(b->self, d->done, NULL) != 0) {
        b->event_destroy(b->self, d->done);
        d->done = NULL;
    }
    if (pushed)
        b->ctx_pop(b->self, NULL);
    d->device = ctx->device;
    d->native = ctx->native;
    d->page = page;
    d->resets = resets_of(b, ctx->device);
    d->retired = ctx->retired;
    ctx->retired = NULL;
    ctx->retired_count = 0;
    /* The default stream's log, record array and all: its slot is in the page. */
    memcpy(&d->default_log, &ctx->default_log, sizeof d->default_log);
    ctx->default_log.ring = NULL;
    d->timeline_wide = ctx->timeline_wide;
    snprintf(d->label, sizeof d->label, "gg context %s", gg__object_label(&ctx->h).text);
    pthread_mutex_lock(&departed_lock);
    refresh(NULL);
    d->next = records;
    records = d;
    pthread_mutex_unlock(&departed_lock);
    return true;
}

uint32_t gg__departed_note(gg__backend *b, gg__nctx native, char *label, size_t size)
{
    uint32_t n = 0;
    pthread_mutex_lock(&departed_lock);
    refresh(b);
    for (departed *d = records; d != NULL; d = d->next)
        if (d->native == native) {
            if (n++ == 0 && label != NULL)
                snprintf(label, size, "%s", d->label);
        }
    pthread_mutex_unlock(&departed_lock);
    return n;
}

void gg__departed_forget_all(gg__backend *b)
{
    pthread_mutex_lock(&departed_lock);
    refresh(b);
    while (records != NULL) {
        departed *d = records;
        records = d->next;
        /* Work still running: its events and kept streams can go (the
         * driver releases them once the work is done), its page cannot (a
         * late write would land in whatever the memory becomes): it stays
         * until the native context's teardown or reset. */
        if (b != NULL && d->done != NULL)
            b->event_destroy(b->self, d->done);
        retired_chain_free(b, d->retired);
        gg__launch_log_close(&d->default_log);
        gg__free(d);
    }
    pthread_mutex_unlock(&departed_lock);
}
