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
#include "common/fault.h"
#include "common/fork.h"
#include "common/context_state.h"
#include "common/stack.h"

/* Contexts per thread's stack: 512 bytes of TLS per thread. The 65th push
 * fails with GG_INVALID_ARGUMENT naming the bound, both stacks untouched
 * (crossed by tests/core/test_bounds.c). */
#define STACK_MAX 64

typedef struct context_stack {
    uint64_t ids[STACK_MAX];
    unsigned depth;
} context_stack;

static _Thread_local context_stack stack;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* Unpins the call's last pin (stack walks pin one context at a time). */
static void unpin_last(gg__call *c)
{
    if (c->npins > 0)
        gg__pin_clear(c->pins, --c->npins);
}

static void on_thread_exit(void *arg)
{
    (void)arg;
    gg__call c = GG__CALL("thread exit");
    if (c.b == NULL || stack.depth == 0)
        return;
    if (gg__call_open(&c) != GG_OK)
        return;
    gg__log(GG_LOG_WARN, stack.ids[stack.depth - 1],
            "a thread exited with %u gpuguard context(s) pushed; popping them", stack.depth);
    while (stack.depth > 0) {
        uint64_t id = stack.ids[--stack.depth];
        gg__context *ctx = gg__try_pin(&c, id, GG__T_CONTEXT);
        bool forked = ctx != NULL && gg__context_state(ctx) == GG_STATE_FORKED;
        if (ctx != NULL)
            unpin_last(&c);
        if (forked)
            continue;
        gg__nctx popped = NULL;
        c.b->ctx_pop(c.b->self, &popped);
    }
    gg__leave(&c);
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
        return gg__lookup_status();
    gg_state state = gg__context_state(ctx);
    if (state == GG_STATE_FORKED)
        status = gg__fail(&c, GG_FORKED, "gg_context_push: the context was inherited through fork()");
    else if (state == GG_STATE_DEAD)
        status = gg__enter(&c, ctx); /* fails fast with the cause */
    else if (stack.depth == STACK_MAX)
        status = gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_push: this thread's stack is full (%d contexts)",
                          STACK_MAX);
    if (status == GG_OK) {
        int n = gg__drv(&c, GG__OP_CTX_PUSH, c.b->ctx_push(c.b->self, ctx->native));
        status = gg__check(&c, GG__OP_CTX_PUSH, n);
    }
    if (status == GG_OK) {
        pthread_once(&exit_key_once, make_exit_key);
        pthread_setspecific(exit_key, &stack); /* any non-NULL value arms the destructor */
        stack.ids[stack.depth++] = handle.id;
    }
    gg__leave(&c);
    return status;
}

gg_status gg_context_pop(gg_context *popped)
{
    gg__call c = GG__CALL("gg_context_pop");
    if (popped != NULL)
        popped->id = 0;
    gg_status status = gg__call_open(&c);
    if (status != GG_OK)
        return status;
    if (stack.depth == 0) {
        gg__leave(&c);
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_context_pop: this thread's gpuguard context stack is empty");
    }
    uint64_t id = stack.ids[stack.depth - 1];
    gg__context *ctx = gg__try_pin(&c, id, GG__T_CONTEXT);
    /* A context inherited through fork is popped from our stack only. */
    if (ctx == NULL || gg__context_state(ctx) != GG_STATE_FORKED) {
        gg__nctx native = NULL;
        int n = gg__drv(&c, GG__OP_CTX_POP, c.b->ctx_pop(c.b->self, &native));
        if (n != 0) {
            status = gg__check(&c, GG__OP_CTX_POP, n);
            gg__leave(&c);
            return status;
        }
        if (ctx != NULL && native != ctx->native)
            gg__log(GG_LOG_WARN, id, "gg_context_pop: the driver's current context was not the one "
                    "gpuguard pushed (code outside gpuguard changed it)");
    }
    stack.depth--;
    if (popped != NULL)
        popped->id = id;
    gg__leave(&c);
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

/* A context about to be destroyed (or recovered: its native context is
 * replaced) leaves the calling thread's stack wherever it is in it, ours and
 * the driver's: the entries above it are popped, it is popped, and the
 * others are pushed back in order. The driver itself pops a destroyed
 * context only when it is on top; one left deeper would become current
 * again, destroyed, when the entries above it are popped. Other threads'
 * stacks are theirs: a pop there finds the id gone and pops the driver's
 * entry. Caller has ctx pinned. By its birth id: a destroy racing this one
 * may have claimed the context (its h.id 0) but waits for our pin before it
 * destroys the native context, which must leave this thread's stacks too. */
void gg__context_unwind_stacks(gg__call *c, gg__context *ctx)
{
    uint64_t id = ctx->h.birth_id;
    unsigned lowest = 0;
    while (lowest < stack.depth && stack.ids[lowest] != id)
        lowest++;
    if (lowest == stack.depth)
        return;
    uint64_t kept[STACK_MAX];
    unsigned kept_count = 0;
    for (unsigned i = lowest + 1; i < stack.depth; i++)
        if (stack.ids[i] != id)
            kept[kept_count++] = stack.ids[i];
    for (unsigned i = stack.depth; i > lowest; i--) {
        gg__nctx popped = NULL;
        gg__context *entry = gg__try_pin(c, stack.ids[i - 1], GG__T_CONTEXT);
        bool forked = entry != NULL && gg__context_state(entry) == GG_STATE_FORKED;
        if (entry != NULL)
            unpin_last(c);
        if (!forked)
            c->b->ctx_pop(c->b->self, &popped);
    }
    stack.depth = lowest;
    for (unsigned i = 0; i < kept_count; i++) {
        /* A context destroyed meanwhile by another thread is dropped: its
         * native context is gone. */
        gg__context *entry = gg__try_pin(c, kept[i], GG__T_CONTEXT);
        if (entry == NULL)
            continue;
        if (gg__context_state(entry) == GG_STATE_FORKED || c->b->ctx_push(c->b->self, entry->native) == 0)
            stack.ids[stack.depth++] = kept[i];
        unpin_last(c);
    }
}
