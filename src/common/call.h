/*
 * One gg call's passage to the driver.
 *
 *   gg__call c = GG__CALL("gg_stream_query");
 *   validate arguments (gg__fail on bad input)      -- no driver call yet
 *   gg__enter(&c, ctx)                              -- fail fast if DEAD/FORKED,
 *                                                      make ctx current
 *   int n = gg__drv(&c, GG__OP_STREAM_QUERY, b->stream_query(...));
 *   status = gg__check(&c, GG__OP_STREAM_QUERY, n)  -- classify; a sticky code
 *                                                      kills the context
 *   gg__leave(&c)                                   -- restore caller's context
 *
 * Every failure goes through gg__fail/gg__check, which fill this thread's
 * gg_last_error record.
 */
#ifndef GPUGUARD_CALL_H
#define GPUGUARD_CALL_H

#include <stdbool.h>

#include "common/backend.h"
#include "common/fault.h"
#include "common/fork.h"
#include "common/library.h"
#include "common/log.h"
#include "common/object.h"

typedef struct gg__call {
    const char *api;          /* gg function name */
    gg__backend *b;
    gg__context *ctx;         /* entered context, or NULL */
    gg__nctx saved;           /* caller's native current context */
    bool switched;            /* we changed the current context */
    gg__stream *stream;       /* stream concerned, for error records */
    const char *kernel_name;  /* kernel concerned (launches), for faults and errors */
    int injected;             /* native code the fault gate returned, 0 if none */
} gg__call;

#define GG__CALL(name) ((gg__call){ .api = (name), .b = gg__backend_get() })

#define GG__LIKELY(x) __builtin_expect(!!(x), 1)
#define GG__UNLIKELY(x) __builtin_expect(!!(x), 0)
/* The front half of the hot paths, inlined into each of them even where the
 * compiler would rather share one out-of-line copy (a call, a prologue and
 * the status returned through memory cost more than the code). */
#define GG__HOT static inline __attribute__((always_inline))

/* Records a failure of this call in gg_last_error and returns `status`. */
gg_status gg__fail(gg__call *c, gg_status status, const char *fmt, ...) GG__PRINTF(3, 4);
/* Same, keeping a native driver code and the driver call that returned it. */
gg_status gg__fail_native(gg__call *c, gg_status status, gg__op op, int native, const char *fmt, ...)
    GG__PRINTF(5, 6);

/* The hot paths (launch, record, query) inline the common case of each step
 * below and call out of line only when something is wrong (the *_failed
 * functions record the error) or work is needed (a context switch). */

/* NOT_INITIALIZED unless gg_init succeeded; allowed in a forked child (the
 * release paths, which make no driver call there). */
gg_status gg__require_initialized(gg__call *c);
gg_status gg__require_library_failed(gg__call *c);

/* NOT_INITIALIZED unless gg_init succeeded, FORKED in a forked child. */
GG__HOT gg_status gg__require_library(gg__call *c)
{
    if (GG__LIKELY(c->b != NULL) && GG__LIKELY(gg__fork_generation_now() == gg__lib.fork_generation))
        return GG_OK;
    return gg__require_library_failed(c);
}

/* Records INVALID_HANDLE for `id` (explaining why it is not live); NULL. */
void *gg__lookup_failed(gg__call *c, uint64_t id, gg__type type, const char *what);

/* Looks up `id` of `type`; INVALID_HANDLE naming the expected type if not live. */
GG__HOT void *gg__lookup(gg__call *c, uint64_t id, gg__type type, const char *what)
{
    void *obj = gg__handle_lookup(id, type);
    if (GG__LIKELY(obj != NULL))
        return obj;
    return gg__lookup_failed(c, id, type, what);
}

/* Out-of-line halves of gg__enter: the refusal of a DEAD or FORKED context,
 * and the switch when the context is not already current. */
gg_status gg__enter_refused(gg__call *c, gg__context *ctx);
gg_status gg__enter_switch(gg__call *c, gg__context *ctx, int get_current_result);

/* Fails fast if the context is DEAD (CONTEXT_DEAD, original cause attached)
 * or FORKED; otherwise makes it current. One driver call (get current) when
 * it is current already: the caller's context is asked, never cached, since
 * code outside gpuguard may change it at any time. */
GG__HOT gg_status gg__enter(gg__call *c, gg__context *ctx)
{
    if (GG__UNLIKELY(ctx->fork_generation != gg__fork_generation_now()) ||
        GG__UNLIKELY(atomic_load_explicit(&ctx->state, memory_order_acquire) == GG__CTX_DEAD))
        return gg__enter_refused(c, ctx);
    c->ctx = ctx;
    gg__nctx current = NULL;
    int n = c->b->ctx_get_current(c->b->self, &current);
    c->saved = current;
    if (GG__LIKELY(n == 0) && current == ctx->native)
        return GG_OK; /* c->switched stays false */
    return gg__enter_switch(c, ctx, n);
}

void gg__leave_restore(gg__call *c);

/* Restores the caller's current context. Safe to call after a failed enter. */
GG__HOT void gg__leave(gg__call *c)
{
    if (c->switched)
        gg__leave_restore(c);
}

/* The fault gate: every backend call goes through it. With no plan it is one
 * predictable branch; with one, it may return an injected native code.
 * GG_BENCH_NO_FAULT_GATE (bench/: the gg_bench_nogate build only) compiles
 * the gate out, to measure what it costs when no plan is loaded. */
#ifndef GG_BENCH_NO_FAULT_GATE
#define gg__drv(c, op, expr)                                                        \
    ((GG__UNLIKELY(gg__fault_armed()) && ((c)->injected = gg__fault_gate((c), (op))) != 0) \
         ? (c)->injected                                                           \
         : (expr))
#else
#define gg__drv(c, op, expr) ((void)(c), (void)(op), (expr))
#endif

gg_status gg__check_failed(gg__call *c, gg__op op, int native);

/* Classifies a native code: GG_OK for success, GG_NOT_READY for pending
 * (not recorded as a failure), otherwise the failure is recorded and, for a
 * sticky code, the context is marked DEAD with this call as its cause. */
GG__HOT gg_status gg__check(gg__call *c, gg__op op, int native)
{
    if (GG__LIKELY(native == 0))
        return GG_OK;
    return gg__check_failed(c, op, native);
}

/* Context state, FORKED derived from the fork generation. */
gg_context_state_t gg__context_state(const gg__context *ctx);

/* Marks the context DEAD with this cause (first cause wins). */
void gg__context_kill(gg__call *c, gg__context *ctx, gg_status status, gg__op op, int native,
                      const char *message);

/* Waits for all work of an entered context under a deadline (context.c). */
gg_status gg__context_wait(gg__call *c, gg__context *ctx, uint32_t timeout_ms);
/* Pops the context from the calling thread's stack mirror if on top (stack.c). */
void gg__context_unwind_stacks(gg__context *ctx);
/* Copies up to `max` live contexts into out (context.c). */
size_t gg__contexts_snapshot(gg__context **out, size_t max);

gg_status gg__wrong_context(gg__call *c, const gg__object *a, const char *a_what, const gg__object *b,
                            const char *b_what);

/* WRONG_CONTEXT naming both objects and their contexts, unless they share one. */
static inline gg_status gg__check_same_context(gg__call *c, const gg__object *a, const char *a_what,
                                               const gg__object *b, const char *b_what)
{
    if (GG__LIKELY(a->context == b->context))
        return GG_OK;
    return gg__wrong_context(c, a, a_what, b, b_what);
}
/* Waits for a stream's work under a deadline (stream.c). */
struct gg__stream;
gg_status gg__stream_wait(gg__call *c, gg__stream *st, uint32_t timeout_ms);

/* Copies the thread's last error. */
gg_error_info *gg__last_error_slot(void);

#endif /* GPUGUARD_CALL_H */
