#include "common/child.h"

#include <stdio.h>

gg__context *gg__create_begin(gg__call *c, gg_context handle, gg_status *status)
{
    *status = gg__require_library(c);
    if (*status != GG_OK)
        return NULL;
    gg__context *ctx = gg__lookup(c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL) {
        *status = GG_INVALID_HANDLE;
        return NULL;
    }
    pthread_mutex_lock(&ctx->lock);
    *status = gg__enter(c, ctx);
    if (*status != GG_OK) {
        gg__leave(c);
        pthread_mutex_unlock(&ctx->lock);
        return NULL;
    }
    return ctx;
}

void gg__create_end(gg__call *c, gg__context *ctx)
{
    gg__leave(c);
    pthread_mutex_unlock(&ctx->lock);
}

uint64_t gg__create_record(gg__call *c, gg__context *ctx, gg__object *obj, const char *tag)
{
    uint64_t id = obj ? gg__handle_alloc(obj->type, obj) : 0;
    if (id == 0) {
        gg__object_delete(obj);
        gg__fail(c, GG_OUT_OF_MEMORY, "%s: out of host memory for the object record", c->api);
        return 0;
    }
    obj->created_by = c->api;
    gg__copy_tag(obj->tag, sizeof obj->tag, tag);
    gg__child_attach(ctx, obj);
    atomic_store_explicit(&obj->id, id, memory_order_release);
    return id;
}
