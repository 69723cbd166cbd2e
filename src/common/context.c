/* Contexts: creation, the state machine (ALIVE -> DEAD -> recovered), and
 * what the kinds table needs of them (release, JSON). Destruction goes
 * through the one destroy path (lifetime.c). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "common/attribution.h"
#include "common/call.h"
#include "common/fork.h"
#include "common/lifetime.h"
#include "common/wait.h"

/* Every context, for gg_shutdown, the exit report and gg_dump_json. */
#define MAX_CONTEXTS 4096
static pthread_mutex_t contexts_lock = PTHREAD_MUTEX_INITIALIZER;
static gg__context *contexts[MAX_CONTEXTS];
static size_t context_count;

bool gg__context_list_add(gg__context *ctx)
{
    pthread_mutex_lock(&contexts_lock);
    bool added = context_count < MAX_CONTEXTS;
    if (added)
        contexts[context_count++] = ctx;
    pthread_mutex_unlock(&contexts_lock);
    return added;
}

void gg__context_list_remove(gg__context *ctx)
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

/* Ids, not records: a reader pins each by id (a record in the list may be
 * claimed and recycled as soon as the lock is dropped). A context being
 * created (id not yet published) or claimed reads as 0 and is skipped. */
size_t gg__contexts_snapshot(uint64_t *out, size_t max)
{
    pthread_mutex_lock(&contexts_lock);
    size_t n = 0;
    for (size_t i = 0; i < context_count && n < max; i++) {
        uint64_t id = atomic_load_explicit(&contexts[i]->h.id, memory_order_acquire);
        if (id != 0)
            out[n++] = id;
    }
    pthread_mutex_unlock(&contexts_lock);
    return n;
}

/* Once per record's memory (kinds table): the lock survives recycling. */
void gg__context_init_once(gg__object *o)
{
    pthread_mutex_t *m = &((gg__context *)o)->lock;
    /* Recursive: a sticky error seen while the context's lock is held (e.g.
     * during a destroy) records the death under the same lock. */
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(m, &attr);
    pthread_mutexattr_destroy(&attr);
}

void gg__context_fini(gg__object *o)
{
    pthread_mutex_destroy(&((gg__context *)o)->lock);
}

/* A primary context is shared with other users of the device: recovering it
 * (or destroying it dead) means resetting it, not destroying it. */
static bool is_primary(const gg__call *c, const gg__context *ctx)
{
    return ctx->use_primary || c->b->one_context_per_device;
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
    gg_context_desc d = desc ? *desc : (gg_context_desc){ 0 };
    if (device < 0 || device >= gg__lib.device_count)
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

    gg__nctx native = NULL;
    int n = gg__drv(&c, GG__OP_CTX_CREATE, c.b->ctx_create(c.b->self, device, d.use_primary, &native));
    if (n != 0) {
        status = gg__check(&c, GG__OP_CTX_CREATE, n);
        gg__leave(&c);
        return status;
    }
    gg__context *ctx = gg__object_new(GG__T_CONTEXT);
    bool listed = ctx != NULL && gg__context_list_add(ctx); /* before the id is published: see snapshot */
    uint64_t id = listed ? gg__handle_alloc(GG__T_CONTEXT, ctx) : 0;
    if (id == 0) {
        c.b->ctx_destroy(c.b->self, device, d.use_primary, native);
        if (listed)
            gg__context_list_remove(ctx);
        gg__object_delete(ctx);
        status = gg__fail(&c, GG_OUT_OF_MEMORY, ctx == NULL ? "gg_context_create: out of host memory for the context record"
                                : !listed ? "gg_context_create: too many contexts (%d live)"
                                          : "gg_context_create: out of host memory for the context's id (a page of the "
                                            "handle table)", MAX_CONTEXTS);
        gg__leave(&c);
        return status;
    }
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
    out->id = id;
    gg__log(GG_LOG_DEBUG, id, "created context '%s' on device %d", ctx->h.tag, device);
    gg__leave(&c);
    return GG_OK;
}

/* The native half of a context's teardown (kinds table). */
int gg__context_release(gg__call *c, gg__object *o, bool call_driver, gg__op *op)
{
    gg__context *ctx = (gg__context *)o;
    *op = GG__OP_CTX_DESTROY;
    if (!call_driver)
        return 0;
    if (gg__context_state(ctx) == GG_STATE_DEAD && is_primary(c, ctx)) {
        /* A dead primary context stays poisoned for every user until reset;
         * releasing our reference alone would leave it so. */
        int n = gg__drv(c, GG__OP_CTX_DESTROY, c->b->ctx_reset_primary(c->b->self, ctx->device));
        if (n != 0)
            gg__log(GG_LOG_WARN, 0, "%s: resetting the dead primary context returned %s", c->api,
                    c->b->code_name(n));
    }
    /* Even a DEAD native context is destroyed: that is how its memory comes back. */
    return gg__drv(c, GG__OP_CTX_DESTROY, c->b->ctx_destroy(c->b->self, ctx->device, ctx->use_primary, ctx->native));
}

static const char *state_name(gg_context_state_t s)
{
    switch (s) {
    case GG_STATE_ALIVE: return "alive";
    case GG_STATE_DEAD: return "dead";
    case GG_STATE_FORKED: return "forked";
    default: return "invalid";
    }
}

/* Caller holds ctx->lock (gg_dump_json). */
void gg__context_describe(const gg__object *o, cJSON *cj)
{
    const gg__context *ctx = (const gg__context *)o;
    gg_context_state_t state = gg__context_state(ctx);
    cJSON_AddStringToObject(cj, "state", state_name(state));
    cJSON_AddNumberToObject(cj, "device", ctx->device);
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

gg_context_state_t gg_context_state(gg_context handle)
{
    gg__call c = GG__CALL("gg_context_state");
    if (c.b == NULL)
        return GG_STATE_INVALID;
    gg__context *ctx = gg__handle_lookup(handle.id, GG__T_CONTEXT) ? gg__lookup(&c, handle.id, GG__T_CONTEXT, "context")
                                                                    : NULL;
    gg_context_state_t state = ctx ? gg__context_state(ctx) : GG_STATE_INVALID;
    gg__leave(&c);
    return state;
}

gg_status gg_context_death(gg_context handle, gg_error_info *info)
{
    gg__call c = GG__CALL("gg_context_death");
    if (info == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_death: info is NULL");
    memset(info, 0, sizeof *info);
    info->native_name = info->gg_call = info->driver_call = "";
    gg__context *ctx = gg__lookup(&c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return gg__lookup_status();
    pthread_mutex_lock(&ctx->lock);
    if (atomic_load(&ctx->state) == GG__CTX_DEAD)
        *info = ctx->death;
    pthread_mutex_unlock(&ctx->lock);
    if (info->status == GG_OK && gg__context_state(ctx) == GG_STATE_FORKED) {
        info->status = GG_FORKED;
        info->gg_call = "fork";
        snprintf(info->message, sizeof info->message, "the context was inherited through fork()");
    }
    gg__leave(&c);
    return GG_OK;
}

/* Tears down the dead native context and makes a fresh one. Caller holds
 * ctx->lock; the children are gone already. */
static gg_status recreate_native(gg__call *c, gg__context *ctx, uint64_t id)
{
    int n;
    if (is_primary(c, ctx)) {
        n = gg__drv(c, GG__OP_CTX_DESTROY, c->b->ctx_reset_primary(c->b->self, ctx->device));
        if (n == 0)
            n = c->b->ctx_destroy(c->b->self, ctx->device, true, ctx->native); /* drop our retain */
    } else {
        n = gg__drv(c, GG__OP_CTX_DESTROY, c->b->ctx_destroy(c->b->self, ctx->device, false, ctx->native));
    }
    if (n != 0)
        gg__log(GG_LOG_WARN, id, "gg_context_recover: tearing down the dead native context returned %s",
                c->b->code_name(n));
    gg__nctx fresh = NULL;
    n = gg__drv(c, GG__OP_CTX_CREATE, c->b->ctx_create(c->b->self, ctx->device, ctx->use_primary, &fresh));
    if (n != 0) {
        ctx->native = NULL;
        gg__code_class cls = c->b->classify(n);
        return gg__fail_native(c, cls.status, GG__OP_CTX_CREATE, n,
                               "gg_context_recover: creating a fresh context on device %d returned %s; "
                               "the context stays DEAD", ctx->device, c->b->code_name(n));
    }
    ctx->native = fresh;
    gg__fault_context_released(ctx);
    memset(&ctx->death, 0, sizeof ctx->death);
    memset(&ctx->default_log, 0, sizeof ctx->default_log);
    atomic_store(&ctx->skipped_cleanups, 0);
    ctx->skipped_warned = false;
    atomic_store_explicit(&ctx->state, GG__CTX_ALIVE, memory_order_release);
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
    gg_context_state_t state = gg__context_state(ctx);
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
    /* Old children become stale ids; no driver call for them: the native
     * context's teardown frees their memory. Their calls are waited for
     * with no lock held. */
    gg__children_forget(&c, ctx, GG__FREED_CONTEXT_RECOVERED);
    gg__context_unwind_stacks(&c, ctx);
    pthread_mutex_lock(&ctx->lock);
    gg__cleanup_summarise(ctx, "dead");
    /* Another recover may have run meanwhile (it holds the lock throughout
     * the native part), and the context may have been claimed by a destroy
     * (which waits for our pin): both leave nothing to do here. */
    if (atomic_load_explicit(&ctx->h.id, memory_order_relaxed) == handle.id &&
        gg__context_state(ctx) == GG_STATE_DEAD)
        status = recreate_native(&c, ctx, handle.id);
    if (status == GG_OK)
        gg__log(GG_LOG_INFO, handle.id, "context '%s' recovered on device %d", ctx->h.tag, ctx->device);
    pthread_mutex_unlock(&ctx->lock);
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
    gg__context *ctx = gg__lookup(&c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return gg__lookup_status();
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

void gg__context_list_lock(bool take)
{
    if (take)
        pthread_mutex_lock(&contexts_lock);
    else
        pthread_mutex_unlock(&contexts_lock);
}
