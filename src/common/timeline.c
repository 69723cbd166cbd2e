/* Completion timelines: the page of slots, its slots, failed writes. */
#include "common/timeline.h"

#include <string.h>

enum { SLOT_BYTES = sizeof(uint64_t) };

void gg__timeline_open(gg__call *c, gg__context *ctx)
{
    const gg__device_props *props = &gg__lib.devices[ctx->device];
    gg_timeline_mode mode = gg__lib.config.timeline;
    uint64_t id = atomic_load_explicit(&ctx->h.id, memory_order_relaxed);
    if (mode == GG_TIMELINE_OFF || c->b->host_alloc_mapped == NULL || c->b->stream_write_value == NULL)
        return;
    /* Decided from what the device reports, never from its name or the
     * driver's version; GG_TIMELINE_ON overrides a device that says no. */
    bool wide = props->stream_write_value_64;
    if (!wide && !props->stream_write_value_32) {
        if (mode != GG_TIMELINE_ON) {
            gg__log(GG_LOG_DEBUG, id, "no completion timeline: device %d reports no stream memory operations",
                    ctx->device);
            return;
        }
        wide = true;
    }
    void *host = NULL;
    gg__dptr dev = 0;
    int n = gg__drv(c, GG__OP_HOST_ALLOC_MAPPED,
                    c->b->host_alloc_mapped(c->b->self, &host, &dev, GG__TIMELINE_SLOTS * SLOT_BYTES));
    if (n != 0 || host == NULL) {
        gg__log(GG_LOG_DEBUG, id, "no completion timeline: %s returned %s",
                c->b->op_names[GG__OP_HOST_ALLOC_MAPPED], c->b->code_name(n));
        return;
    }
    memset(host, 0, GG__TIMELINE_SLOTS * SLOT_BYTES);
    ctx->timeline_page = host;
    ctx->timeline_page_dev = dev;
    ctx->timeline_wide = wide;
    /* Slot 0 is the default stream's; the rest a stack, lowest on top. */
    ctx->timeline_free_count = 0;
    for (uint32_t i = GG__TIMELINE_SLOTS - 1; i >= 1; i--)
        ctx->timeline_free[ctx->timeline_free_count++] = (uint16_t)i;
    gg__launch_log *log = &ctx->default_log;
    log->timeline_index = 0;
    log->timeline_dev = dev;
    atomic_store_explicit(&log->timeline_broken, false, memory_order_relaxed);
    log->timeline_slot = (_Atomic uint64_t *)host;
}

void gg__timeline_close(gg__call *c, gg__context *ctx, bool free_memory)
{
    void *page = (void *)ctx->timeline_page;
    ctx->timeline_page = NULL;
    ctx->timeline_page_dev = 0;
    ctx->timeline_free_count = 0;
    ctx->default_log.timeline_slot = NULL;
    if (page == NULL || !free_memory || c->b->host_free_mapped == NULL)
        return;
    /* The memory belongs to the native context: free it there. */
    gg__nctx current = NULL;
    bool pushed = c->b->ctx_get_current(c->b->self, &current) == 0 && current != ctx->native &&
                  c->b->ctx_push(c->b->self, ctx->native) == 0;
    int n = gg__drv(c, GG__OP_HOST_FREE_MAPPED, c->b->host_free_mapped(c->b->self, page));
    if (n != 0)
        gg__log(GG_LOG_DEBUG, atomic_load(&ctx->h.id), "freeing the completion timeline returned %s",
                c->b->code_name(n));
    if (pushed)
        c->b->ctx_pop(c->b->self, NULL);
}

void gg__timeline_attach(gg__context *ctx, gg__launch_log *log)
{
    log->timeline_slot = NULL;
    if (ctx->timeline_page == NULL || ctx->timeline_free_count == 0)
        return;
    uint16_t i = ctx->timeline_free[--ctx->timeline_free_count];
    /* A slot comes back only once every write of its previous stream has
     * landed (attribution.c holds a destroyed stream's slot until an event
     * after its last write completes): clearing it here cannot be undone by
     * a late write. */
    atomic_store_explicit(ctx->timeline_page + i, 0, memory_order_relaxed);
    log->timeline_index = i;
    log->timeline_dev = ctx->timeline_page_dev + (gg__dptr)i * SLOT_BYTES;
    atomic_store_explicit(&log->timeline_broken, false, memory_order_relaxed);
    log->timeline_slot = ctx->timeline_page + i;
}

void gg__timeline_release_slot(gg__context *ctx, gg__launch_log *log)
{
    _Atomic uint64_t *slot = log->timeline_slot;
    log->timeline_slot = NULL;
    /* Only slots of the page in use go back (a recovery replaced the page). */
    if (slot == NULL || ctx->timeline_page == NULL || slot != ctx->timeline_page + log->timeline_index ||
        log->timeline_index == 0 || ctx->timeline_free_count >= GG__TIMELINE_SLOTS)
        return;
    ctx->timeline_free[ctx->timeline_free_count++] = (uint16_t)log->timeline_index;
}

gg_status gg__timeline_mark_failed(gg__call *c, gg__launch_log *log, int native)
{
    gg__code_class cls = c->b->classify(native);
    if (cls.sticky) {
        /* The launch was accepted; an earlier launch has already faulted and
         * the driver refuses everything now. The write did not happen, so
         * the slot still holds the last completed launch. The error is the
         * driver's and sticky: the caller's next call gets it, as without a
         * timeline. An injected fault does not come back by itself: it is
         * reported here. */
        if (c->injected)
            return gg__check(c, GG__OP_STREAM_WRITE_VALUE, native);
        return GG_OK;
    }
    atomic_store_explicit(&log->timeline_broken, true, memory_order_relaxed);
    gg__log(GG_LOG_DEBUG, 0, "%s: the completion timeline write returned %s%s; this stream's culprits come "
            "from what was observed complete from now on", c->api, c->b->code_name(native),
            c->injected ? " (injected fault)" : "");
    return GG_OK;
}
