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

/* Records a failure of this call in gg_last_error and returns `status`. */
gg_status gg__fail(gg__call *c, gg_status status, const char *fmt, ...) GG__PRINTF(3, 4);
/* Same, keeping a native driver code and the driver call that returned it. */
gg_status gg__fail_native(gg__call *c, gg_status status, gg__op op, int native, const char *fmt, ...)
    GG__PRINTF(5, 6);

/* NOT_INITIALIZED unless gg_init succeeded, FORKED in a forked child. */
gg_status gg__require_library(gg__call *c);
/* NOT_INITIALIZED unless gg_init succeeded; allowed in a forked child (the
 * release paths, which make no driver call there). */
gg_status gg__require_initialized(gg__call *c);

/* Looks up `id` of `type`; INVALID_HANDLE naming the expected type if not live. */
void *gg__lookup(gg__call *c, uint64_t id, gg__type type, const char *what);

/* Fails fast if the context is DEAD (CONTEXT_DEAD, original cause attached)
 * or FORKED; otherwise makes it current. */
gg_status gg__enter(gg__call *c, gg__context *ctx);
/* Restores the caller's current context. Safe to call after a failed enter. */
void gg__leave(gg__call *c);

/* The fault gate: every backend call goes through it. With no plan it is one
 * predictable branch; with one, it may return an injected native code. */
#define gg__drv(c, op, expr)                                                        \
    ((GG__UNLIKELY(gg__fault_armed()) && ((c)->injected = gg__fault_gate((c), (op))) != 0) \
         ? (c)->injected                                                           \
         : (expr))

/* Classifies a native code: GG_OK for success, GG_NOT_READY for pending
 * (not recorded as a failure), otherwise the failure is recorded and, for a
 * sticky code, the context is marked DEAD with this call as its cause. */
gg_status gg__check(gg__call *c, gg__op op, int native);

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

/* WRONG_CONTEXT naming both objects and their contexts, unless they share one. */
gg_status gg__check_same_context(gg__call *c, const gg__object *a, const char *a_what, const gg__object *b,
                                 const char *b_what);
/* Waits for a stream's work under a deadline (stream.c). */
struct gg__stream;
gg_status gg__stream_wait(gg__call *c, gg__stream *st, uint32_t timeout_ms);

/* Copies the thread's last error. */
gg_error_info *gg__last_error_slot(void);

#endif /* GPUGUARD_CALL_H */
