/* Contexts: creation, the state machine (ALIVE -> DEAD -> recovered), and
 * destruction with all children. */
#include <stdio.h>
#include <string.h>

#include "common/attribution.h"
#include "common/call.h"
#include "common/fork.h"
#include "common/lifetime.h"
#include "common/wait.h"

/* Every context, for gg_shutdown and the exit report (init lock or list lock). */
static pthread_mutex_t contexts_lock = PTHREAD_MUTEX_INITIALIZER;
static gg__context *contexts[4096];
static size_t context_count;

static void list_add(gg__context *ctx)
{
    pthread_mutex_lock(&contexts_lock);
    contexts[context_count++] = ctx;
    pthread_mutex_unlock(&contexts_lock);
}

static void list_remove(gg__context *ctx)
{
    pthread_mutex_lock(&contexts_lock);
    for (size_t i = 0; i < context_count; i++) {
        if (contexts[i] == ctx) {
            contexts[i] = contexts[--context_count];
            break;
        }
    }
    pthread_mutex_unlock(&contexts_lock);
}

static bool list_full(void)
{
    pthread_mutex_lock(&contexts_lock);
    bool full = context_count == sizeof contexts / sizeof contexts[0];
    pthread_mutex_unlock(&contexts_lock);
    return full;
}

/* Calls fn on every context (snapshot; contexts_lock not held during fn). */
size_t gg__contexts_snapshot(gg__context **out, size_t max)
{
    pthread_mutex_lock(&contexts_lock);
    size_t n = context_count < max ? context_count : max;
    memcpy(out, contexts, n * sizeof *out);
    pthread_mutex_unlock(&contexts_lock);
    return n;
}

static void init_lock(pthread_mutex_t *m)
{
    /* Recursive: a sticky error seen while the context's lock is held (e.g.
     * during a destroy) records the death under the same lock. */
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(m, &attr);
    pthread_mutexattr_destroy(&attr);
}

/* A primary context is shared with other users of the device: recovering it
 * (or destroying it dead) means resetting it, not destroying it. */
static bool is_primary(const gg__call *c, const gg__context *ctx)
{
    return ctx->use_primary || c->b->one_context_per_device;
}

static gg__context *lookup_context(gg__call *c, gg_context ctx)
{
    return gg__lookup(c, ctx.id, GG__T_CONTEXT, "context");
}

gg_status gg_context_create(int device, const gg_context_desc *desc, gg_context *out)
{
    gg__call c = GG__CALL("gg_context_create");
    if (out == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_create: out is NULL");
    out->id = 0;
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    if (device < 0 || device >= gg__lib.device_count)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_create: device %d does not exist (%d device(s))",
                        device, gg__lib.device_count);
    gg_context_desc d = desc ? *desc : (gg_context_desc){ 0 };
    if ((unsigned)d.watchdog > GG_WATCHDOG_ALLOW)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_create: desc->watchdog %d is not a gg_watchdog_policy",
                        (int)d.watchdog);
    if (list_full())
        return gg__fail(&c, GG_OUT_OF_MEMORY, "gg_context_create: too many contexts");
    gg__fork_check_pid();

    gg__nctx native = NULL;
    int n = gg__drv(&c, GG__OP_CTX_CREATE, c.b->ctx_create(c.b->self, device, d.use_primary, &native));
    if (n != 0)
        return gg__check(&c, GG__OP_CTX_CREATE, n);

    gg__context *ctx = gg__object_new(GG__T_CONTEXT);
    uint64_t id = ctx ? gg__handle_alloc(GG__T_CONTEXT, ctx) : 0;
    if (id == 0) {
        c.b->ctx_destroy(c.b->self, device, d.use_primary, native);
        gg__object_delete(ctx);
        return gg__fail(&c, GG_OUT_OF_MEMORY, "gg_context_create: out of host memory for the context record");
    }
    init_lock(&ctx->lock);
    ctx->children.next = ctx->children.prev = &ctx->children;
    ctx->device = device;
    ctx->device_watchdog = gg__lib.devices[device].watchdog;
    ctx->use_primary = d.use_primary;
    ctx->native = native;
    ctx->fork_generation = gg__fork_generation_now();
    ctx->watchdog_budget_ms = d.watchdog_budget_ms ? d.watchdog_budget_ms : gg__lib.config.watchdog_budget_ms;
    ctx->watchdog = d.watchdog ? d.watchdog : gg__lib.config.watchdog;
    ctx->h.created_by = "gg_context_create";
    gg__copy_tag(ctx->h.tag, sizeof ctx->h.tag, d.tag);
    atomic_store_explicit(&ctx->state, GG__CTX_ALIVE, memory_order_relaxed);
    atomic_store_explicit(&ctx->h.id, id, memory_order_release);
    list_add(ctx);
    out->id = id;
    gg__log(GG_LOG_DEBUG, id, "created context '%s' on device %d", ctx->h.tag, device);
    return GG_OK;
}

/* Tears down a context's children and native context; frees the record.
 * `driver_alive` false: make no driver call at all (exit, fork). */
static gg_status context_teardown(gg__call *c, gg__context *ctx, gg__free_reason reason, bool driver_alive)
{
    gg_status status = GG_OK;
    pthread_mutex_lock(&ctx->lock);
    gg_context_state_t state = gg__context_state(ctx);
    bool call_driver = driver_alive && state != GG_STATE_FORKED;
    if (call_driver && state == GG_STATE_ALIVE) {
        status = gg__enter(c, ctx);
        if (status == GG_OK)
            gg__children_release_all(c, ctx, reason, true);
        gg__leave(c);
    }
    /* Dead (or died just now): children go without driver calls. */
    gg__children_release_all(c, ctx, reason, driver_alive);
    gg__cleanup_summarise(ctx, state == GG_STATE_FORKED ? "forked" : "dead");
    if (call_driver && state == GG_STATE_DEAD && is_primary(c, ctx)) {
        /* A dead primary context stays poisoned for every user until reset;
         * releasing our reference alone would leave it so. */
        int n = gg__drv(c, GG__OP_CTX_DESTROY, c->b->ctx_reset_primary(c->b->self, ctx->device));
        if (n != 0)
            gg__log(GG_LOG_WARN, atomic_load(&ctx->h.id), "%s: resetting the dead primary context returned %s",
                    c->api, c->b->code_name(n));
    }
    if (call_driver) {
        /* Even a DEAD native context is destroyed: that is how its memory comes back. */
        int n = gg__drv(c, GG__OP_CTX_DESTROY, c->b->ctx_destroy(c->b->self, ctx->device, ctx->use_primary, ctx->native));
        if (n != 0 && !c->b->classify(n).deinitialized) {
            gg__log(GG_LOG_WARN, atomic_load(&ctx->h.id), "%s: destroying the native context returned %s",
                    c->api, c->b->code_name(n));
            if (state == GG_STATE_ALIVE && status == GG_OK)
                status = gg__fail_native(c, c->b->classify(n).status, GG__OP_CTX_DESTROY, n,
                                         "%s: %s returned %s", c->api, c->b->op_names[GG__OP_CTX_DESTROY],
                                         c->b->code_name(n));
        }
    }
    gg__fault_context_released(ctx);
    list_remove(ctx);
    gg__handle_free(atomic_load(&ctx->h.id), reason);
    pthread_mutex_unlock(&ctx->lock);
    pthread_mutex_destroy(&ctx->lock);
    gg__object_delete(ctx);
    return status;
}

gg_status gg_context_destroy(gg_context handle)
{
    gg__call c = GG__CALL("gg_context_destroy");
    gg_status status = gg__require_initialized(&c);
    if (status != GG_OK)
        return status;
    if (handle.id == 0)
        return GG_OK;
    gg__context *ctx = gg__handle_lookup(handle.id, GG__T_CONTEXT);
    if (ctx == NULL) {
        if (gg__id_type(handle.id) == GG__T_CONTEXT) {
            gg__log(GG_LOG_DEBUG, handle.id, "gg_context_destroy: context already gone; nothing to do");
            return GG_OK;
        }
        lookup_context(&c, handle);
        return GG_INVALID_HANDLE;
    }
    gg__context_unwind_stacks(ctx);
    return context_teardown(&c, ctx, GG__FREED_WITH_CONTEXT, true);
}

gg_context_state_t gg_context_state(gg_context handle)
{
    gg__context *ctx = gg__handle_lookup(handle.id, GG__T_CONTEXT);
    return ctx ? gg__context_state(ctx) : GG_STATE_INVALID;
}

gg_status gg_context_death(gg_context handle, gg_error_info *info)
{
    gg__call c = GG__CALL("gg_context_death");
    if (info == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_death: info is NULL");
    memset(info, 0, sizeof *info);
    info->native_name = info->gg_call = info->driver_call = "";
    gg__context *ctx = lookup_context(&c, handle);
    if (ctx == NULL)
        return GG_INVALID_HANDLE;
    pthread_mutex_lock(&ctx->lock);
    if (atomic_load(&ctx->state) == GG__CTX_DEAD)
        *info = ctx->death;
    pthread_mutex_unlock(&ctx->lock);
    if (info->status == GG_OK && gg__context_state(ctx) == GG_STATE_FORKED) {
        info->status = GG_FORKED;
        info->gg_call = "fork";
        snprintf(info->message, sizeof info->message, "the context was inherited through fork()");
    }
    return GG_OK;
}

gg_status gg_context_recover(gg_context handle)
{
    gg__call c = GG__CALL("gg_context_recover");
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    gg__context *ctx = lookup_context(&c, handle);
    if (ctx == NULL)
        return GG_INVALID_HANDLE;
    pthread_mutex_lock(&ctx->lock);
    gg_context_state_t state = gg__context_state(ctx);
    if (state == GG_STATE_FORKED) {
        pthread_mutex_unlock(&ctx->lock);
        return gg__fail(&c, GG_FORKED, "gg_context_recover: the context was inherited through fork(); "
                        "create a new one in this process instead");
    }
    if (state == GG_STATE_ALIVE) {
        pthread_mutex_unlock(&ctx->lock);
        gg__log(GG_LOG_DEBUG, handle.id, "gg_context_recover: context is alive; nothing to do");
        return GG_OK;
    }
    /* Old children become stale ids; no driver call for them: the native
     * context's teardown frees their memory. */
    gg__children_release_all(&c, ctx, GG__FREED_CONTEXT_RECOVERED, true);
    gg__cleanup_summarise(ctx, "dead");
    gg__context_unwind_stacks(ctx);
    int n;
    if (is_primary(&c, ctx)) {
        n = gg__drv(&c, GG__OP_CTX_DESTROY, c.b->ctx_reset_primary(c.b->self, ctx->device));
        if (n == 0)
            n = c.b->ctx_destroy(c.b->self, ctx->device, true, ctx->native); /* drop our retain */
    } else {
        n = gg__drv(&c, GG__OP_CTX_DESTROY, c.b->ctx_destroy(c.b->self, ctx->device, false, ctx->native));
    }
    if (n != 0)
        gg__log(GG_LOG_WARN, handle.id, "gg_context_recover: tearing down the dead native context returned %s",
                c.b->code_name(n));
    gg__nctx fresh = NULL;
    n = gg__drv(&c, GG__OP_CTX_CREATE, c.b->ctx_create(c.b->self, ctx->device, ctx->use_primary, &fresh));
    if (n != 0) {
        ctx->native = NULL;
        gg__code_class cls = c.b->classify(n);
        pthread_mutex_unlock(&ctx->lock);
        return gg__fail_native(&c, cls.status, GG__OP_CTX_CREATE, n,
                               "gg_context_recover: creating a fresh context on device %d returned %s; "
                               "the context stays DEAD", ctx->device, c.b->code_name(n));
    }
    ctx->native = fresh;
    gg__fault_context_released(ctx);
    memset(&ctx->death, 0, sizeof ctx->death);
    memset(&ctx->default_log, 0, sizeof ctx->default_log);
    atomic_store(&ctx->skipped_cleanups, 0);
    ctx->skipped_warned = false;
    atomic_store_explicit(&ctx->state, GG__CTX_ALIVE, memory_order_release);
    pthread_mutex_unlock(&ctx->lock);
    gg__log(GG_LOG_INFO, handle.id, "context '%s' recovered on device %d", ctx->h.tag, ctx->device);
    return GG_OK;
}

/* Polls the default stream and every stream of the context. */
static int poll_context(gg__call *c, void *arg)
{
    gg__context *ctx = arg;
    int n = c->b->stream_query(c->b->self, NULL);
    if (n != 0)
        return n;
    pthread_mutex_lock(&ctx->lock);
    for (gg__object *o = ctx->children.next; o != &ctx->children && n == 0; o = o->next)
        if (o->type == GG__T_STREAM)
            n = c->b->stream_query(c->b->self, ((gg__stream *)o)->native);
    pthread_mutex_unlock(&ctx->lock);
    return n;
}

gg_status gg__context_wait(gg__call *c, gg__context *ctx, uint32_t timeout_ms)
{
    int n = gg__drv(c, GG__OP_CTX_SYNCHRONIZE, 0);
    if (n != 0)
        return gg__check(c, GG__OP_CTX_SYNCHRONIZE, n);
    gg_status status = gg__wait(c, GG__OP_STREAM_QUERY, poll_context, ctx, timeout_ms, "all work in the context", NULL);
    if (status == GG_OK)
        gg__context_observe_all(ctx);
    return status;
}

gg_status gg_context_synchronize(gg_context handle, uint32_t timeout_ms)
{
    gg__call c = GG__CALL("gg_context_synchronize");
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    gg__context *ctx = lookup_context(&c, handle);
    if (ctx == NULL)
        return GG_INVALID_HANDLE;
    status = gg__enter(&c, ctx);
    if (status == GG_OK)
        status = gg__context_wait(&c, ctx, timeout_ms);
    gg__leave(&c);
    return status;
}

gg_status gg_context_device(gg_context handle, int *device)
{
    gg__call c = GG__CALL("gg_context_device");
    if (device == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_device: device is NULL");
    gg__context *ctx = lookup_context(&c, handle);
    if (ctx == NULL)
        return GG_INVALID_HANDLE;
    *device = ctx->device;
    return GG_OK;
}

gg_status gg_context_skipped_cleanups(gg_context handle, uint64_t *count)
{
    gg__call c = GG__CALL("gg_context_skipped_cleanups");
    if (count == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_skipped_cleanups: count is NULL");
    gg__context *ctx = lookup_context(&c, handle);
    if (ctx == NULL)
        return GG_INVALID_HANDLE;
    *count = atomic_load(&ctx->skipped_cleanups);
    return GG_OK;
}

void gg__contexts_release_all(bool driver_alive)
{
    gg__context *all[4096];
    size_t n = gg__contexts_snapshot(all, sizeof all / sizeof all[0]);
    for (size_t i = 0; i < n; i++) {
        gg__call c = GG__CALL("gg_shutdown");
        if (c.b == NULL)
            c.b = &gg__lib.backend_storage;
        context_teardown(&c, all[i], GG__FREED_SHUTDOWN, driver_alive);
    }
}

void gg__context_list_lock(bool take)
{
    if (take)
        pthread_mutex_lock(&contexts_lock);
    else
        pthread_mutex_unlock(&contexts_lock);
}
