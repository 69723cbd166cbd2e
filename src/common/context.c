/* Contexts: creation, the state machine (ALIVE -> DEAD -> recovered), and
 * what the kinds table needs of them (release, JSON). Destruction goes
 * through the one destroy path (lifetime.c). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "common/abi_struct.h"
#include "common/attribution.h"
#include "common/fault.h"
#include "common/timeline.h"
#include "common/call.h"
#include "common/departed.h"
#include "common/fork.h"
#include "common/lifetime.h"
#include "common/poison.h"
#include "common/process_exit.h"
#include "common/wait.h"
#include "common/context.h"
#include "common/stack.h"
#include "common/context_table.h"

/* Once per record's memory (kinds table): the lock survives recycling.
 * Recursive (rlock.h): a sticky error seen while the context's lock is held
 * (e.g. during a destroy) records the death under the same lock. */
void gg__context_init_once(gg__object *o)
{
    gg__rlock_init(&((gg__context *)o)->lock);
}

void gg__context_fini(gg__object *o)
{
    gg__rlock_fini(&((gg__context *)o)->lock);
}

/* The device's launch limits as the launch checks use them: a limit the
 * driver did not report (0) does not limit. Dynamic shared memory may go up
 * to the opt-in maximum (the kernel must opt in above the default; the
 * driver refuses it otherwise). */
static void launch_limits(const gg__device_props *p, gg__launch_limits *l)
{
#define LIMIT(v) ((v) > 0 ? (uint32_t)(v) : UINT32_MAX)
    for (int i = 0; i < 3; i++) {
        l->block[i] = LIMIT(p->max_block[i]);
        l->grid[i] = LIMIT(p->max_grid[i]);
    }
    l->threads_per_block = LIMIT(p->max_threads_per_block);
    int shared = p->max_shared_per_block_optin > p->max_shared_per_block ? p->max_shared_per_block_optin
                                                                        : p->max_shared_per_block;
    l->shared_bytes = LIMIT(shared);
#undef LIMIT
}

/* A primary context is shared with other users of the device: recovering it
 * (or destroying it dead) means resetting it, not destroying it. */
static bool is_primary(const gg__call *c, const gg__context *ctx)
{
    return ctx->use_primary || c->b->one_context_per_device;
}

/* Destroying the gg context leaves its native context (and the work on
 * it) running: HIP's and primary contexts (a CUDA one unless that was its
 * last reference: checked after the release). */
static bool native_outlives(const gg__call *c, const gg__context *ctx)
{
    /* An adopted context its owner keeps is left out: the owner may
     * destroy it as soon as the gg context is gone, and the events kept of
     * its work with it. */
    return is_primary(c, ctx) && !gg__object_borrowed(&ctx->h);
}

/* Some of the context's work may still run, or write its timeline: a
 * launch not observed complete, a destroyed stream's log kept, or a
 * default-stream launch whose timeline write may not have landed. */
static bool work_maybe_pending(gg__context *ctx)
{
    uint64_t submitted = atomic_load_explicit(&ctx->default_log.submitted, memory_order_acquire);
    return ctx->retired != NULL || atomic_load_explicit(&ctx->default_log.completed, memory_order_relaxed) < submitted ||
           (ctx->timeline_page != NULL && submitted > 0);
}

/* Makes the record of a native context and publishes its id. `adopt`
 * NULL: gpuguard made the native context, and destroys it if the record
 * cannot be made; otherwise it was adopted and stays its owner's on
 * failure. Called inside an open call; does not leave it. (context.h) */
gg_status gg__context_register(gg__call *c, int device, const gg_context_desc *d, gg__nctx native,
                                const gg_adopt_desc *adopt, uint64_t *out_id)
{
    gg__context *ctx = gg__object_new(GG__T_CONTEXT);
    bool records = ctx != NULL && gg__launch_log_open(&ctx->default_log);
    bool listed = records && gg__context_list_add(ctx); /* before the id is published: see snapshot */
    uint64_t id = listed ? gg__handle_alloc(GG__T_CONTEXT, ctx) : 0;
    if (id == 0) {
        if (adopt == NULL)
            c->b->ctx_destroy(c->b->self, device, d->use_primary, native);
        if (listed)
            gg__context_list_remove(ctx);
        if (ctx != NULL)
            gg__launch_log_close(&ctx->default_log);
        gg__object_delete(ctx);
        if (listed)
            return gg__fail(c, GG_OUT_OF_MEMORY, "%s: no id for the context: %s", c->api, gg__handle_alloc_failure());
        return gg__fail(c, GG_OUT_OF_MEMORY, ctx == NULL ? "%s: out of host memory for the context record"
                            : !records ? "%s: out of host memory for the default stream's launch records"
                                       : "%s: too many contexts (%d live)",
                        c->api, GG__CONTEXTS_MAX);
    }
    ctx->children.next = ctx->children.prev = &ctx->children;
    ctx->device = device;
    ctx->device_watchdog = gg__lib.devices[device].watchdog;
    launch_limits(&gg__lib.devices[device], &ctx->limits);
    ctx->use_primary = d->use_primary;
    ctx->native = native;
    ctx->h.adopted = adopt != NULL;
    ctx->h.owned = adopt != NULL && adopt->take_ownership;
    ctx->allow_reset = adopt != NULL && adopt->allow_reset;
    ctx->fork_generation = gg__fork_generation_now();
    ctx->watchdog_budget_ms = d->watchdog_budget_ms ? d->watchdog_budget_ms : gg__lib.config.watchdog_budget_ms;
    ctx->watchdog = d->watchdog ? d->watchdog : gg__lib.config.watchdog;
    ctx->h.created_by = c->api;
    gg__copy_tag(ctx->h.tag, sizeof ctx->h.tag, d->tag);
    atomic_store_explicit(&ctx->state, GG__CTX_ALIVE, memory_order_relaxed);
    /* The timeline page is the new context's memory: made with it current.
     * No other thread can reach the context before its id is published. */
    if (gg__enter(c, ctx) == GG_OK)
        gg__timeline_open(c, ctx);
    ctx->h.birth_id = id;
    atomic_store_explicit(&ctx->h.id, id, memory_order_release);
    /* Poisoned since the caller's refusal: the poison's walk over the list
     * may have passed it while its id was unpublished (poison.h). */
    gg__poison_mark_new(ctx);
    *out_id = id;
    gg__log(GG_LOG_DEBUG, id, "%s context %s on device %d", adopt != NULL ? "adopted" : "created",
            gg__object_label(&ctx->h).text, device);
    return GG_OK;
}

gg_status gg_context_native(gg_context handle, void **native)
{
    gg__call c = GG__CALL("gg_context_native");
    if (native == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_native: native is NULL");
    *native = NULL;
    gg__context *ctx = gg__lookup(&c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return gg__lookup_status();
    /* Under the lock: a recover replaces it. Not in a forked child, where a
     * parent thread may have held the lock at the fork (and no recover can
     * run: it refuses FORKED contexts). */
    if (gg__context_state(ctx) == GG_STATE_FORKED) {
        *native = ctx->native;
    } else {
        gg__rlock_take(&ctx->lock);
        *native = ctx->native;
        gg__rlock_release(&ctx->lock);
    }
    gg__leave(&c);
    return GG_OK;
}

/* A driver that answers a context's creation with a sticky error keeps an
 * earlier one for the whole process (an earlier gg context's, or a kernel
 * of code outside gpuguard): GG_PROCESS_POISONED, saying so. GG_OK when
 * the code is not that. */
static gg_status poisoned_driver_refusal(gg__call *c, int n, int device)
{
    if (!c->b->classify(n).sticky || !gg__sticky_process_wide(c->b))
        return GG_OK;
    return gg__fail_native(c, GG_PROCESS_POISONED, GG__OP_CTX_CREATE, n,
                           "%s: creating a context on device %d returned %s%s: the driver keeps a sticky error for "
                           "the whole process (a kernel of an earlier context, gpuguard's or not, failed), and no "
                           "teardown brings the device back (CUDA: docs/DRIVER-FACTS.md); only a new process can "
                           "use the GPU", c->api, device, c->b->code_name(n), c->injected ? " (injected fault)" : "");
}

gg_status gg_context_create(int device, const gg_context_desc *desc, gg_context *out)
{
    gg__call c = GG__CALL("gg_context_create");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_create: out is NULL");
    out->id = 0;
    gg_status status = gg__call_open(&c);
    if (status != GG_OK)
        return status;
    gg_context_desc d;
    status = GG__ABI_COPY_IN(&c, desc, &d, gg_context_desc, GG_CONTEXT_DESC_INIT);
    if (status != GG_OK)
        ; /* refused: the message says why */
    else if (device < 0 || device >= gg__lib.device_count)
        status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_create: device %d does not exist (%d device(s))",
                          device, gg__lib.device_count);
    else if ((unsigned)d.watchdog > GG_WATCHDOG_ALLOW)
        status = gg__fail(&c, GG_INVALID_ARGUMENT,
                          "gg_context_create: desc->watchdog %d is not a gg_watchdog_policy", (int)d.watchdog);
    if (status != GG_OK) {
        gg__leave(&c);
        return status;
    }
    gg__fork_check_pid();
    status = gg__poison_refuse(&c, "no context can be created in this process");
    if (status != GG_OK) {
        gg__leave(&c);
        return status;
    }

    gg__nctx native = NULL;
    int n = gg__drv(&c, GG__OP_CTX_CREATE, c.b->ctx_create(c.b->self, device, d.use_primary, &native));
    if (n != 0) {
        status = poisoned_driver_refusal(&c, n, device);
        if (status == GG_OK)
            status = gg__check(&c, GG__OP_CTX_CREATE, n);
        gg__leave(&c);
        return status;
    }
    status = gg__context_register(&c, device, &d, native, NULL, &out->id);
    gg__leave(&c);
    return status;
}

/* The native half of a context's teardown (kinds table). */
int gg__context_release(gg__call *c, gg__object *o, bool call_driver, gg__op *op)
{
    gg__context *ctx = (gg__context *)o;
    *op = GG__OP_CTX_DESTROY;
    bool alive = call_driver && gg__context_state(ctx) == GG_STATE_ALIVE;
    /* A native context that stays (HIP's, a primary) keeps running what
     * this context left unobserved: that work, its destroyed streams'
     * events and its timeline page are handed to departed.c. */
    if (alive && native_outlives(c, ctx) && work_maybe_pending(ctx)) {
        void *page = (void *)ctx->timeline_page;
        if (gg__departed_leave(c->b, ctx, page))
            gg__timeline_close(c, ctx, false);
    }
    /* Work still queued may write the timeline page. When the native
     * context is destroyed right after, its teardown drops that work and
     * then frees the page; freeing the page first let a queued write land
     * in freed memory: an illegal address, which on CUDA poisons the whole
     * process (seen under TSan once the simulator kept sticky errors for
     * the process: tests/core/test_races.c, a context destroyed under its
     * children's calls). A dead context's page and events go with its
     * native teardown too. */
    /* An adopted context its owner keeps: the page stays with it (the
     * owner's teardown frees it), rather than be freed under the write. */
    bool native_goes = call_driver && !gg__object_borrowed(&ctx->h) && !native_outlives(c, ctx);
    bool free_page = alive && !((native_goes || gg__object_borrowed(&ctx->h)) && work_maybe_pending(ctx));
    gg__retired_logs_release(ctx, alive ? c->b : NULL);
    gg__timeline_close(c, ctx, free_page);
    gg__launch_log_close(&ctx->default_log);
    if (!call_driver || gg__object_borrowed(&ctx->h)) /* an adopted context its owner keeps */
        return 0;
    if (gg__context_state(ctx) == GG_STATE_DEAD && is_primary(c, ctx) && (!ctx->h.adopted || ctx->allow_reset)) {
        /* A dead primary context stays poisoned for every user until reset;
         * releasing our reference alone would leave it so. */
        gg__departed_reset_seen(ctx->device);
        int n = gg__drv(c, GG__OP_CTX_DESTROY, c->b->ctx_reset_primary(c->b->self, ctx->device));
        if (n != 0)
            gg__log(GG_LOG_WARN, 0, "%s: resetting the dead primary context returned %s", c->api,
                    c->b->code_name(n));
    }
    /* Even a DEAD native context is destroyed: that is how its memory comes back. */
    int n = gg__drv(c, GG__OP_CTX_DESTROY, c->b->ctx_destroy(c->b->self, ctx->device, ctx->use_primary,
                                                             ctx->native));
    /* A CUDA primary context whose last reference that was is torn down
     * with its work (HIP's never are): what departed.c holds of it is void,
     * and its events must not be queried. Unknown counts as torn down. */
    if (is_primary(c, ctx) && !c->b->one_context_per_device) {
        bool active = false;
        if (c->b->ctx_is_primary == NULL || c->b->ctx_is_primary(c->b->self, ctx->device, ctx->native, &active) != 0 ||
            !active)
            gg__departed_reset_seen(ctx->device);
    }
    return n;
}

static const char *state_name(gg_state s)
{
    switch (s) {
    case GG_STATE_ALIVE: return "alive";
    case GG_STATE_DEAD: return "dead";
    case GG_STATE_FORKED: return "forked";
    default: return "invalid";
    }
}

/* Caller holds ctx->lock (gg_objects_json). */
void gg__context_describe(const gg__object *o, cJSON *cj)
{
    const gg__context *ctx = (const gg__context *)o;
    gg_state state = gg__context_state(ctx);
    cJSON_AddStringToObject(cj, "state", state_name(state));
    cJSON_AddNumberToObject(cj, "device", ctx->device);
    /* Destroyed streams whose work was still unobserved: kept for attribution. */
    cJSON_AddNumberToObject(cj, "destroyed_streams_kept", ctx->retired_count);
    /* A mark every `timeline_stride` launches of a stream (0: no timeline;
     * gg_context_timeline has the rest). */
    cJSON_AddNumberToObject(cj, "timeline_stride",
                            ctx->timeline_page != NULL
                                ? atomic_load_explicit(&ctx->timeline_stride, memory_order_relaxed) : 0);
    if (state == GG_STATE_DEAD) {
        cJSON *d = cJSON_AddObjectToObject(cj, "death");
        cJSON_AddStringToObject(d, "status", gg_status_name(ctx->death.status));
        cJSON_AddStringToObject(d, "native", ctx->death.native_name ? ctx->death.native_name : "");
        cJSON_AddStringToObject(d, "message", ctx->death.message);
        if (ctx->death.culprit.certainty != GG_ATTRIBUTION_NONE) {
            cJSON_AddStringToObject(d, "culprit_kernel", ctx->death.culprit.kernel_name);
            cJSON_AddNumberToObject(d, "culprit_launch", (double)ctx->death.culprit.sequence);
            cJSON_AddStringToObject(d, "certainty",
                                    ctx->death.culprit.certainty == GG_ATTRIBUTION_EXACT ? "exact" : "window");
        }
    }
}

gg_status gg_context_destroy(gg_context handle)
{
    return gg__destroy("gg_context_destroy", handle.id, GG__T_CONTEXT);
}

gg_state gg_context_state(gg_context handle)
{
    gg__call c = GG__CALL("gg_context_state");
    if (c.b == NULL) {
        /* In a forked child every inherited context is FORKED, also when
         * the parent's gg_shutdown or exit had begun at the fork. */
        if (gg__forked_from_initialized())
            return gg__handle_lookup(handle.id, GG__T_CONTEXT) != NULL ? GG_STATE_FORKED : GG_STATE_INVALID;
        gg__process_exit_park(); /* INVALID would be the exit's answer, not the context's */
        return GG_STATE_INVALID;
    }
    gg__context *ctx = gg__handle_lookup(handle.id, GG__T_CONTEXT) ? gg__lookup(&c, handle.id, GG__T_CONTEXT, "context")
                                                                    : NULL;
    gg_state state = ctx ? gg__context_state(ctx) : GG_STATE_INVALID;
    gg__leave(&c);
    return state;
}

gg_status gg_context_death(gg_context handle, gg_error_info *info)
{
    gg__call c = GG__CALL("gg_context_death");
    if (info == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_death: info is NULL");
    gg_status status = GG__ABI_OUT_CHECK(&c, info, gg_error_info, GG_ERROR_INFO_INIT);
    if (status != GG_OK)
        return status;
    gg_error_info death = GG_ERROR_INFO_INIT;
    death.native_name = death.gg_call = death.driver_call = "";
    gg__abi_out(info, &death, sizeof death);
    gg__context *ctx = gg__lookup(&c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return gg__lookup_status();
    gg__rlock_take(&ctx->lock);
    if (atomic_load(&ctx->state) == GG__CTX_DEAD)
        death = ctx->death;
    gg__rlock_release(&ctx->lock);
    if (death.status == GG_OK && gg__context_state(ctx) == GG_STATE_FORKED) {
        death.status = GG_FORKED;
        death.gg_call = "fork";
        snprintf(death.message, sizeof death.message, "the context was inherited through fork()");
    }
    gg__abi_out(info, &death, sizeof death);
    gg__leave(&c);
    return GG_OK;
}

/* Tears down the dead native context and makes a fresh one. Caller holds
 * ctx->lock; the children are gone already. */
static gg_status recreate_native(gg__call *c, gg__context *ctx, uint64_t id)
{
    int n;
    if (is_primary(c, ctx)) {
        gg__departed_reset_seen(ctx->device);
        n = gg__drv(c, GG__OP_CTX_DESTROY, c->b->ctx_reset_primary(c->b->self, ctx->device));
        /* Drop our retain; an adopted primary context gpuguard does not own
         * is retained by its owner only, who keeps that reference. */
        if (n == 0 && (!ctx->h.adopted || ctx->h.owned))
            n = c->b->ctx_destroy(c->b->self, ctx->device, true, ctx->native);
    } else {
        n = gg__drv(c, GG__OP_CTX_DESTROY, c->b->ctx_destroy(c->b->self, ctx->device, false, ctx->native));
    }
    if (n != 0)
        gg__log(GG_LOG_WARN, id, "gg_context_recover: tearing down the dead native context returned %s",
                c->b->code_name(n));
    /* The old page and events went with the old native context. */
    gg__retired_logs_release(ctx, NULL);
    gg__timeline_close(c, ctx, false);
    gg__nctx fresh = NULL;
    n = gg__drv(c, GG__OP_CTX_CREATE, c->b->ctx_create(c->b->self, ctx->device, ctx->use_primary, &fresh));
    if (n != 0) {
        ctx->native = NULL;
        gg_status refused = poisoned_driver_refusal(c, n, ctx->device);
        if (refused != GG_OK)
            return refused;
        gg__code_class cls = c->b->classify(n);
        return gg__fail_native(c, cls.status, GG__OP_CTX_CREATE, n,
                               "gg_context_recover: creating a fresh context on device %d returned %s; "
                               "the context stays DEAD", ctx->device, c->b->code_name(n));
    }
    ctx->native = fresh;
    /* The fresh native context is gpuguard's own, whoever had the old one. */
    ctx->h.adopted = ctx->h.owned = ctx->allow_reset = false;
    gg__fault_context_released(ctx);
    memset(&ctx->death, 0, sizeof ctx->death);
    /* The default stream starts afresh; its record array stays. */
    gg__launch_record *records = ctx->default_log.ring;
    uint64_t records_mask = ctx->default_log.records_mask;
    memset(records, 0, (records_mask + 1) * sizeof *records);
    memset(&ctx->default_log, 0, sizeof ctx->default_log);
    ctx->default_log.ring = records;
    ctx->default_log.records_mask = records_mask;
    atomic_store(&ctx->skipped_cleanups, 0);
    ctx->skipped_warned = false;
    atomic_store_explicit(&ctx->state, GG__CTX_ALIVE, memory_order_release);
    /* A fresh page for the fresh context, made with it current (the
     * recover call's leave restores the caller's). */
    if (gg__enter(c, ctx) == GG_OK)
        gg__timeline_open(c, ctx);
    return GG_OK;
}

gg_status gg_context_recover(gg_context handle)
{
    gg__call c = GG__CALL("gg_context_recover");
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    gg__context *ctx = gg__lookup(&c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return gg__lookup_status();
    gg_state state = gg__context_state(ctx);
    if (state == GG_STATE_FORKED) {
        gg__leave(&c);
        return gg__fail(&c, GG_FORKED, "gg_context_recover: the context was inherited through fork(); "
                        "create a new one in this process instead");
    }
    if (state == GG_STATE_ALIVE) {
        gg__leave(&c);
        gg__log(GG_LOG_DEBUG, handle.id, "gg_context_recover: context is alive; nothing to do");
        return GG_OK;
    }
    /* A poisoned process: no context can be made (measured: not even after
     * every one is destroyed), so the dead native context is left for
     * gg_context_destroy and nothing is torn down. */
    status = gg__poison_refuse(&c, "the context cannot be recovered in this process");
    if (status != GG_OK) {
        gg__leave(&c);
        return status;
    }
    if (ctx->h.adopted && !ctx->allow_reset) {
        status = gg__fail(&c, GG_UNSUPPORTED, "gg_context_recover: context %s was adopted (gg_context_adopt) "
                          "without allow_reset: recovering it would destroy or reset the native context, and "
                          "with it every allocation and stream its owner holds; destroy the gg context, have "
                          "the owner replace its context, and adopt the new one",
                          gg__object_label(&ctx->h).text);
        gg__leave(&c);
        return status;
    }
    /* Old children become stale ids; no driver call for them: the native
     * context's teardown frees their memory. Their calls are waited for
     * with no lock held. */
    gg__children_forget(&c, ctx, GG__FREED_CONTEXT_RECOVERED);
    gg__context_unwind_stacks(&c, ctx);
    gg__rlock_take(&ctx->lock);
    gg__cleanup_summarise(ctx, "dead");
    /* Another recover may have run meanwhile (it holds the lock throughout
     * the native part), and the context may have been claimed by a destroy
     * (which waits for our pin): both leave nothing to do here. */
    if (atomic_load_explicit(&ctx->h.id, memory_order_relaxed) == handle.id &&
        gg__context_state(ctx) == GG_STATE_DEAD)
        status = recreate_native(&c, ctx, handle.id);
    if (status == GG_OK)
        gg__log(GG_LOG_INFO, handle.id, "context %s recovered on device %d", gg__object_label(&ctx->h).text, ctx->device);
    gg__rlock_release(&ctx->lock);
    gg__leave(&c);
    return status;
}

/* Polls the default stream and every stream of the context. */
static int poll_context(gg__call *c, void *arg)
{
    gg__context *ctx = arg;
    int n = c->b->stream_query(c->b->self, NULL);
    if (n != 0)
        return n;
    gg__rlock_take(&ctx->lock);
    for (gg__object *o = ctx->children.next; o != &ctx->children && n == 0; o = o->next)
        if (o->type == GG__T_STREAM)
            n = c->b->stream_query(c->b->self, ((gg__stream *)o)->native);
    /* Destroyed streams' work still runs: wait for it too. */
    if (n == 0)
        n = gg__retired_logs_query(ctx, c->b);
    gg__rlock_release(&ctx->lock);
    return n;
}

gg_status gg__context_wait(gg__call *c, gg__context *ctx, uint32_t timeout_ms)
{
    int n = gg__drv(c, GG__OP_CTX_SYNCHRONIZE, 0);
    if (n != 0)
        return gg__check(c, GG__OP_CTX_SYNCHRONIZE, n);
    /* Launches numbered up to here were made before the wait began: the
     * wait covers them, and only them. */
    uint64_t mark = atomic_load_explicit(&ctx->launch_sequence, memory_order_acquire);
    gg_status status = gg__wait(c, GG__OP_STREAM_QUERY, poll_context, ctx, timeout_ms, "all work in the context", NULL);
    if (status == GG_OK) {
        gg__context_observe_all(ctx, mark);
        /* While all is well, free what departed contexts left here and is
         * done (after a fault, their events report the fault instead). */
        if (is_primary(c, ctx))
            gg__departed_note(c->b, ctx->native, NULL, 0);
    }
    return status;
}

gg_status gg_context_device(gg_context handle, int *device)
{
    gg__call c = GG__CALL("gg_context_device");
    if (device == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_device: device is NULL");
    gg__context *ctx = gg__lookup(&c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return gg__lookup_status();
    *device = ctx->device;
    gg__leave(&c);
    return GG_OK;
}

gg_status gg_context_skipped_cleanups(gg_context handle, uint64_t *count)
{
    gg__call c = GG__CALL("gg_context_skipped_cleanups");
    if (count == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_skipped_cleanups: count is NULL");
    gg__context *ctx = gg__lookup(&c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return gg__lookup_status();
    *count = atomic_load(&ctx->skipped_cleanups);
    gg__leave(&c);
    return GG_OK;
}

void gg__context_kill(gg__call *c, gg__context *ctx, gg_status status, gg__op op, int native,
                      const char *message)
{
    gg__rlock_take(&ctx->lock);
    if (atomic_load_explicit(&ctx->state, memory_order_relaxed) == GG__CTX_DEAD) {
        gg__rlock_release(&ctx->lock);
        return; /* the first cause wins */
    }
    gg_error_info *d = &ctx->death;
    memset(d, 0, sizeof *d);
    d->status = status;
    d->native_code = native;
    d->native_name = native != 0 ? c->b->code_name(native) : "";
    d->gg_call = c->api;
    d->driver_call = gg__driver_call_of(c, op);
    d->context.id = ctx->h.birth_id; /* also while a destroy is claiming it */
    if (c->stream != NULL)
        d->stream.id = c->stream->h.birth_id;
    /* A host-side deadline blames the launches of the stream waited on; a
     * device error may come from any stream of the context. */
    gg__suspect_names names;
    gg__attribute(ctx, status == GG_TIMEOUT && c->stream ? &c->stream->log : NULL, &d->culprit, &names);
    /* The culprit's text gets only the room the message leaves it, so that
     * it is never cut inside a name or a number (gg__culprit_text drops a
     * piece that does not fit whole). */
    int prefix = snprintf(d->message, sizeof d->message, "%s: %s", c->api, message);
    size_t used = prefix < 0 ? 0 : (size_t)prefix >= sizeof d->message ? sizeof d->message - 1 : (size_t)prefix;
    if (sizeof d->message - used > 3) {
        char culprit[GG_MESSAGE_MAX];
        gg__culprit_text(&d->culprit, &names, culprit, sizeof d->message - used - 2);
        if (culprit[0] != '\0')
            snprintf(d->message + used, sizeof d->message - used, "; %s", culprit);
    }
    atomic_store_explicit(&ctx->state, GG__CTX_DEAD, memory_order_release);
    gg__rlock_release(&ctx->lock);
    gg__log(GG_LOG_ERROR, d->context.id, "context died: %s", d->message);
    /* A driver's sticky error (not a deadline of gpuguard's) may reach the
     * whole process. */
    if (native != 0)
        gg__poison_after_death(ctx);
}
