/* Completion timelines: the page of slots, its slots, failed writes. */
#include "common/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "common/abi_struct.h"

enum { SLOT_BYTES = sizeof(uint64_t) };

/* How often this context marks: set (GG_TIMELINE_ON, a stride given), or
 * measured by auto. A recovery reopens the timeline and keeps a decision
 * already made (the device and driver are the same). */
static void stride_setup(gg__context *ctx)
{
    int basis = atomic_load_explicit(&ctx->timeline_basis, memory_order_acquire);
    if (basis == GG_TIMELINE_BASIS_MEASURED || basis == GG_TIMELINE_BASIS_SET)
        return;
    uint32_t set = gg__lib.config.timeline_stride;
    if (set != 0 || gg__lib.config.timeline == GG_TIMELINE_ON) {
        atomic_store_explicit(&ctx->timeline_stride, set ? set : 1, memory_order_relaxed);
        atomic_store_explicit(&ctx->timeline_basis, GG_TIMELINE_BASIS_SET, memory_order_release);
        return;
    }
    atomic_store_explicit(&ctx->timeline_stride, 1, memory_order_relaxed);
    atomic_store_explicit(&ctx->timeline_basis, GG_TIMELINE_BASIS_MEASURING, memory_order_release);
    atomic_store_explicit(&ctx->timeline_sampling, true, memory_order_relaxed);
}

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
    stride_setup(ctx);
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

/* ---- auto's measurement --------------------------------------------------- */

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median(uint32_t *v, uint32_t n)
{
    qsort(v, n, sizeof *v, compare_u32);
    return n % 2 ? v[n / 2] : ((uint64_t)v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The stride for a mark of `mark_ns` against a launch of `launch_ns` under
 * `budget` percent: the smallest power of two N with mark / N <= budget %
 * of the launch, at most GG_TIMELINE_STRIDE_MAX. */
static uint32_t stride_for(uint64_t launch_ns, uint64_t mark_ns, uint32_t budget)
{
    uint64_t allowed = launch_ns * budget; /* mark * 100 / N <= allowed */
    uint32_t stride = 1;
    while (stride < GG_TIMELINE_STRIDE_MAX && mark_ns * 100 > allowed * stride)
        stride *= 2;
    return stride;
}

static void decide(gg__context *ctx)
{
    gg__timeline_measure *m = &ctx->timeline_measure;
    uint32_t launch[GG__TIMELINE_SAMPLES], mark[GG__TIMELINE_SAMPLES], n = 0, idle = 0;
    for (uint32_t i = 0; i < GG__TIMELINE_SAMPLES; i++) {
        if (!m->samples[i].valid)
            continue;
        launch[n] = m->samples[i].launch_ns;
        mark[n] = m->samples[i].mark_ns;
        idle += m->samples[i].device_idle;
        n++;
    }
    uint32_t budget = gg__lib.config.timeline_budget_percent;
    uint32_t stride = 1;
    m->valid = n;
    m->device_idle = idle;
    if (n < GG__TIMELINE_SAMPLES / 2) {
        m->why = "too few launches reached the driver and were marked to weigh: every launch stays marked";
    } else {
        m->launch_ns = median(launch, n);
        m->mark_ns = median(mark, n);
        if (m->mark_ns * 100 <= m->launch_ns * budget)
            m->why = "a mark costs no more than the budget: every launch stays marked (exact culprits)";
        else if (idle * 2 < n)
            m->why = "a mark costs more than the budget, but the device was behind the host in most samples "
                     "(its cost hidden behind the device's work): every launch stays marked (exact culprits)";
        else {
            stride = stride_for(m->launch_ns, m->mark_ns, budget);
            m->why = stride < GG_TIMELINE_STRIDE_MAX
                         ? "a mark costs more than the budget while the device keeps up with the host: every "
                           "Nth launch is marked (culprits: a WINDOW of at most N launches per stream)"
                         : "a mark costs more than the budget even at the largest stride: every "
                           "GG_TIMELINE_STRIDE_MAX-th launch is marked (culprits: a WINDOW)";
        }
    }
    atomic_store_explicit(&ctx->timeline_stride, stride, memory_order_relaxed);
    atomic_store_explicit(&ctx->timeline_basis, GG_TIMELINE_BASIS_MEASURED, memory_order_release);
    atomic_store_explicit(&ctx->timeline_sampling, false, memory_order_relaxed);
    gg__log(GG_LOG_DEBUG, ctx->h.birth_id,
            "completion timeline: %u of %u samples timed, device idle in %u: launch %llu ns, mark %llu ns "
            "(budget %u %%): stride %u: %s", n, GG__TIMELINE_SAMPLES, idle, (unsigned long long)m->launch_ns,
            (unsigned long long)m->mark_ns, budget, stride, m->why);
}

void gg__timeline_sample_add(gg__context *ctx, uint32_t index, uint64_t launch_ns, uint64_t mark_ns, bool valid,
                         bool device_idle)
{
    gg__timeline_measure *m = &ctx->timeline_measure;
    gg__timeline_sample *s = &m->samples[index];
    s->launch_ns = launch_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)launch_ns;
    s->mark_ns = mark_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)mark_ns;
    s->valid = valid;
    s->device_idle = device_idle;
    /* acq_rel: the last writer sees every other sample's stores. */
    if (atomic_fetch_add_explicit(&m->filled, 1, memory_order_acq_rel) + 1 == GG__TIMELINE_SAMPLES)
        decide(ctx);
}

gg_status gg_context_timeline(gg_context handle, gg_timeline_info *info)
{
    gg__call c = GG__CALL("gg_context_timeline");
    if (info == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_timeline: info is NULL");
    gg_status status = GG__ABI_OUT_CHECK(&c, info, gg_timeline_info, GG_TIMELINE_INFO_INIT);
    if (status != GG_OK)
        return status;
    gg__context *ctx = gg__lookup(&c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return gg__lookup_status();
    gg_timeline_info out = { .budget_percent = gg__lib.config.timeline_budget_percent };
    gg__rlock_take(&ctx->lock); /* the page comes and goes under it (recovery, teardown) */
    bool has_page = ctx->timeline_page != NULL;
    gg__rlock_release(&ctx->lock);
    int basis = atomic_load_explicit(&ctx->timeline_basis, memory_order_acquire);
    if (!has_page) {
        out.basis = GG_TIMELINE_BASIS_NONE;
        out.why = gg__lib.config.timeline == GG_TIMELINE_OFF
                      ? "the timeline is off (GPUGUARD_TIMELINE)"
                      : "no timeline: the device reports no stream memory operations, or the driver has none";
    } else {
        out.basis = (gg_timeline_basis)basis;
        out.stride = atomic_load_explicit(&ctx->timeline_stride, memory_order_relaxed);
        const gg__timeline_measure *m = &ctx->timeline_measure;
        if (basis == GG_TIMELINE_BASIS_MEASURED) {
            out.samples = m->valid;
            out.samples_device_idle = m->device_idle;
            out.launch_ns = m->launch_ns;
            out.mark_ns = m->mark_ns;
            out.why = m->why;
        } else if (basis == GG_TIMELINE_BASIS_MEASURING) {
            uint32_t filled = atomic_load_explicit(&m->filled, memory_order_relaxed);
            out.samples = filled < GG__TIMELINE_SAMPLES ? filled : GG__TIMELINE_SAMPLES;
            /* Launches under the watchdog take chunk.c's path, which is
             * not timed (its launches are slices, not the program's). */
            out.why = ctx->device_watchdog && ctx->watchdog != GG_WATCHDOG_ALLOW
                          ? "launches on this watchdog (display) device go through the watchdog's path, which auto "
                            "does not time: every launch stays marked"
                          : "auto is timing this context's launches (17 to 48); every launch is marked meanwhile";
        } else {
            out.why = gg__lib.config.timeline_stride != 0 ? "the stride was set (GPUGUARD_TIMELINE_STRIDE)"
                                                          : "every launch is marked (GPUGUARD_TIMELINE=on)";
        }
    }
    out.struct_size = sizeof out;
    gg__abi_out(info, &out, sizeof out);
    gg__leave(&c);
    return GG_OK;
}
