/*
 * The per-thread context stack, mirrored on the driver's: gg_context_push
 * pushes on both, gg_context_pop pops both and checks they agree. A thread
 * that exits with contexts still pushed has them popped, with a warning, so
 * the driver's stack is not left holding them (the "context stack was not
 * empty" class of failures).
 */
#include <pthread.h>
#include <string.h>

#include "common/call.h"
#include "common/fork.h"

#define STACK_MAX 64

typedef struct context_stack {
    uint64_t ids[STACK_MAX];
    unsigned depth;
} context_stack;

static _Thread_local context_stack stack;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void on_thread_exit(void *arg)
{
    (void)arg;
    gg__call c = GG__CALL("thread exit");
    if (c.b == NULL || stack.depth == 0)
        return;
    gg__log(GG_LOG_WARN, stack.ids[stack.depth - 1],
            "a thread exited with %u gpuguard context(s) pushed; popping them", stack.depth);
    while (stack.depth > 0) {
        uint64_t id = stack.ids[--stack.depth];
        gg__context *ctx = gg__handle_lookup(id, GG__T_CONTEXT);
        if (ctx != NULL && gg__context_state(ctx) == GG_STATE_FORKED)
            continue;
        gg__nctx popped = NULL;
        c.b->ctx_pop(c.b->self, &popped);
    }
}

static void make_exit_key(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
}

gg_status gg_context_push(gg_context handle)
{
    gg__call c = GG__CALL("gg_context_push");
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    gg__context *ctx = gg__lookup(&c, handle.id, GG__T_CONTEXT, "context");
    if (ctx == NULL)
        return GG_INVALID_HANDLE;
    gg_context_state_t state = gg__context_state(ctx);
    if (state == GG_STATE_FORKED)
        return gg__fail(&c, GG_FORKED, "gg_context_push: the context was inherited through fork()");
    if (state == GG_STATE_DEAD) {
        c.ctx = ctx;
        return gg__enter(&c, ctx); /* fails fast with the cause */
    }
    if (stack.depth == STACK_MAX)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_push: this thread's stack is full (%d contexts)",
                        STACK_MAX);
    int n = gg__drv(&c, GG__OP_CTX_PUSH, c.b->ctx_push(c.b->self, ctx->native));
    if (n != 0)
        return gg__check(&c, GG__OP_CTX_PUSH, n);
    pthread_once(&exit_key_once, make_exit_key);
    pthread_setspecific(exit_key, &stack); /* any non-NULL value arms the destructor */
    stack.ids[stack.depth++] = handle.id;
    return GG_OK;
}

gg_status gg_context_pop(gg_context *popped)
{
    gg__call c = GG__CALL("gg_context_pop");
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    if (popped != NULL)
        popped->id = 0;
    if (stack.depth == 0)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_pop: this thread's gpuguard context stack is empty");
    uint64_t id = stack.ids[stack.depth - 1];
    gg__context *ctx = gg__handle_lookup(id, GG__T_CONTEXT);
    /* A context inherited through fork is popped from our stack only. */
    if (ctx == NULL || gg__context_state(ctx) != GG_STATE_FORKED) {
        gg__nctx native = NULL;
        int n = gg__drv(&c, GG__OP_CTX_POP, c.b->ctx_pop(c.b->self, &native));
        if (n != 0)
            return gg__check(&c, GG__OP_CTX_POP, n);
        if (ctx != NULL && native != ctx->native)
            gg__log(GG_LOG_WARN, id, "gg_context_pop: the driver's current context was not the one "
                    "gpuguard pushed (code outside gpuguard changed it)");
    }
    stack.depth--;
    if (popped != NULL)
        popped->id = id;
    return GG_OK;
}

gg_status gg_context_current(gg_context *current)
{
    gg__call c = GG__CALL("gg_context_current");
    if (current == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_current: out is NULL");
    current->id = stack.depth ? stack.ids[stack.depth - 1] : 0;
    return GG_OK;
}

/* The driver pops a destroyed context that is current on the calling thread;
 * keep our mirror in step. */
void gg__context_unwind_stacks(gg__context *ctx)
{
    uint64_t id = atomic_load(&ctx->h.id);
    if (stack.depth > 0 && stack.ids[stack.depth - 1] == id)
        stack.depth--;
}
