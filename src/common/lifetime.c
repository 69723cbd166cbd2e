#include "common/lifetime.h"

#include "common/attribution.h"
#include "common/chunk.h"

void gg__cleanup_skipped(gg__context *ctx, gg__type type)
{
    atomic_fetch_add_explicit(&ctx->skipped_cleanups, 1, memory_order_relaxed);
    if (gg__lib.config.cleanup == GG_CLEANUP_COUNTED)
        gg__log(GG_LOG_DEBUG, atomic_load(&ctx->h.id), "skipped the driver call releasing a %s in a %s context",
                gg__type_name(type), gg__context_state(ctx) == GG_STATE_FORKED ? "forked" : "dead");
}

void gg__cleanup_summarise(gg__context *ctx, const char *why)
{
    uint64_t skipped = atomic_load_explicit(&ctx->skipped_cleanups, memory_order_relaxed);
    if (skipped == 0 || ctx->skipped_warned || gg__lib.config.cleanup != GG_CLEANUP_WARN_ONCE)
        return;
    ctx->skipped_warned = true;
    gg__log(GG_LOG_WARN, atomic_load(&ctx->h.id),
            "context '%s': %llu object(s) released without driver calls because the context is %s",
            ctx->h.tag, (unsigned long long)skipped, why);
}

static int release_native(gg__call *c, gg__object *child, gg__op *op)
{
    gg__backend *b = c->b;
    switch (child->type) {
    case GG__T_STREAM:
        *op = GG__OP_STREAM_DESTROY;
        return gg__drv(c, *op, b->stream_destroy(b->self, ((gg__stream *)child)->native));
    case GG__T_EVENT:
        *op = GG__OP_EVENT_DESTROY;
        return gg__drv(c, *op, b->event_destroy(b->self, ((gg__event *)child)->native));
    case GG__T_BUFFER: {
        gg__buffer *buf = (gg__buffer *)child;
        if (buf->flags & GG_BUFFER_HOST_PINNED) {
            *op = GG__OP_HOST_FREE;
            return gg__drv(c, *op, b->host_free(b->self, buf->host_ptr));
        }
        *op = GG__OP_MEM_FREE;
        return gg__drv(c, *op, b->mem_free(b->self, buf->device_ptr));
    }
    case GG__T_MODULE:
        *op = GG__OP_MODULE_UNLOAD;
        return gg__drv(c, *op, b->module_unload(b->self, ((gg__module *)child)->native));
    default: /* kernels have no native lifetime of their own, only timing events */
        *op = GG__OP_COUNT;
        gg__timing_release(c, (gg__kernel *)child, true);
        return 0;
    }
}

gg_status gg__child_release(gg__call *c, gg__object *child, gg__free_reason reason, bool call_driver)
{
    gg__context *ctx = child->context;
    gg_status status = GG_OK;
    bool alive = gg__context_state(ctx) == GG_STATE_ALIVE;
    if (call_driver && alive) {
        gg__op op = GG__OP_COUNT;
        int n = release_native(c, child, &op);
        if (n != 0) {
            gg__code_class cls = c->b->classify(n);
            /* A driver shutting down has released everything already. */
            if (!cls.deinitialized)
                status = gg__check(c, op, n);
        }
    } else if (call_driver && child->type != GG__T_KERNEL) {
        gg__cleanup_skipped(ctx, child->type);
    } else if (child->type == GG__T_KERNEL) {
        gg__timing_release(c, (gg__kernel *)child, false);
    }
    gg__child_detach(ctx, child);
    gg__handle_free(atomic_load_explicit(&child->id, memory_order_relaxed), reason);
    gg__object_delete(child);
    return status;
}

void gg__children_release_all(gg__call *c, gg__context *ctx, gg__free_reason reason, bool call_driver)
{
    /* Kernels before their modules, modules and events and streams before
     * the memory their pending work may still reference. */
    static const gg__type order[] = { GG__T_KERNEL, GG__T_MODULE, GG__T_EVENT, GG__T_STREAM, GG__T_BUFFER };
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        gg__object *o = ctx->children.next;
        while (o != &ctx->children) {
            gg__object *next = o->next;
            if (o->type == order[i])
                gg__child_release(c, o, reason, call_driver);
            o = next;
        }
    }
}

gg_status gg__destroy_child(const char *api, uint64_t id, gg__type type)
{
    gg__call c = GG__CALL(api);
    gg_status status = gg__require_initialized(&c);
    if (status != GG_OK)
        return status;
    if (id == 0) {
        gg__log(GG_LOG_DEBUG, 0, "%s: id 0, nothing to destroy", api);
        return GG_OK;
    }
    gg__object *obj = gg__handle_lookup(id, type);
    if (obj == NULL) {
        if (gg__id_type(id) == type) {
            /* Destroying an id that is already gone is harmless (as free(NULL)). */
            char why[200];
            gg__handle_explain(id, type, why, sizeof why);
            gg__log(GG_LOG_DEBUG, id, "%s: %s; nothing to do", api, why);
            return GG_OK;
        }
        gg__lookup(&c, id, type, "object");
        return GG_INVALID_HANDLE;
    }
    gg__context *ctx = obj->context;
    pthread_mutex_lock(&ctx->lock);
    if (atomic_load_explicit(&obj->id, memory_order_relaxed) != id) { /* lost a race with another destroy */
        pthread_mutex_unlock(&ctx->lock);
        return GG_OK;
    }
    if (type == GG__T_STREAM)
        c.stream = (gg__stream *)obj;
    bool alive = gg__context_state(ctx) == GG_STATE_ALIVE;
    if (alive) {
        status = gg__enter(&c, ctx);
        if (status != GG_OK) {
            gg__leave(&c);
            pthread_mutex_unlock(&ctx->lock);
            return status;
        }
    }
    if (type == GG__T_MODULE) {
        /* The module's kernels go with it. */
        gg__object *o = ctx->children.next;
        while (o != &ctx->children) {
            gg__object *next = o->next;
            if (o->type == GG__T_KERNEL && ((gg__kernel *)o)->module == (gg__module *)obj)
                gg__child_release(&c, o, GG__FREED_MODULE_UNLOADED, true);
            o = next;
        }
    }
    status = gg__child_release(&c, obj, GG__FREED_DESTROYED, true);
    if (alive)
        gg__leave(&c);
    pthread_mutex_unlock(&ctx->lock);
    return status;
}
