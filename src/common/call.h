/*
 * One gg call's passage to the driver.
 *
 *   gg__call c = GG__CALL("gg_stream_query");
 *   validate arguments (gg__fail on bad input)      -- no driver call yet
 *   obj = gg__lookup(&c, id, type, "stream")        -- pins the object until
 *                                                      gg__leave (pin.c)
 *   gg__enter(&c, ctx)                              -- fail fast if DEAD/FORKED,
 *                                                      make ctx current
 *   int n = gg__drv(&c, GG__OP_STREAM_QUERY, b->stream_query(...)); (fault.h)
 *   status = gg__check(&c, GG__OP_STREAM_QUERY, n)  -- classify; a sticky code
 *                                                      kills the context
 *   gg__leave(&c)                                   -- restore caller's context,
 *                                                      unpin
 *
 * Every call that pins or opens must end with gg__leave on every path.
 * Every failure goes through gg__fail/gg__check, which fill this thread's
 * gg_last_error record.
 */
#ifndef GPUGUARD_CALL_H
#define GPUGUARD_CALL_H

#include <stdbool.h>

#include "common/backend.h"
#include "common/fork.h"
#include "common/state.h"
#include "common/log.h"
#include "common/object.h"
#include "common/pin.h"

typedef struct gg__call {
    /* Pointers first, then the small fields packed: every call zeroes the
     * record, so its size is paid on every call (rep stos per 8 bytes). */
    const char *api;          /* gg function name */
    gg__backend *b;
    gg__context *ctx;         /* entered context, or NULL */
    gg__nctx saved;           /* caller's native current context */
    gg__stream *stream;       /* stream concerned, for error records */
    const char *kernel_name;  /* kernel concerned (launches), for faults and errors */
    const char *driver_call;  /* the driver function called when it is not the op's
                                 usual one (module_load_data), for error records */
    gg__pin_record *pins;     /* this thread's pins, once the call pinned something */
    int injected;             /* native code the fault gate returned, 0 if none */
    /* The small fields in one 8-byte word: the record is 72 bytes, and all
     * but `api` is zeroed by four 16-byte stores. */
    uint8_t timeout_policy;   /* this call's gg_timeout_policy for waits; DEFAULT: the library's */
    uint8_t npins;            /* slots 0..npins-1 of `pins` are this call's (at most GG__PIN_SLOTS) */
    bool switched;            /* we changed the current context */
    bool internal;            /* gg_shutdown / exit: pins succeed with the backend cleared */
} gg__call;
_Static_assert(GG_TIMEOUT_RETURNS <= UINT8_MAX && GG__PIN_SLOTS <= UINT8_MAX, "gg__call's small fields");

#define GG__CALL(name) ((gg__call){ .api = (name), .b = gg__backend_get() })

#define GG__LIKELY(x) __builtin_expect(!!(x), 1)
#define GG__UNLIKELY(x) __builtin_expect(!!(x), 0)
/* The front half of the hot paths, inlined into each of them even where the
 * compiler would rather share one out-of-line copy (a call, a prologue and
 * the status returned through memory cost more than the code). */
#define GG__HOT static inline __attribute__((always_inline))

/* The driver function a failure of `op` in this call names: the call's
 * driver_call when set, else the op's usual one. */
const char *gg__driver_call_of(const gg__call *c, gg__op op);

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

/* The failure of a call that found the library shut down mid-call or before
 * it (the backend cleared): NOT_INITIALIZED naming gg_shutdown, and the
 * object waited for when `waiting_for` is not NULL. While the process exits
 * the call parks instead (process_exit.h); on the exiting thread itself the
 * message names the exit. */
gg_status gg__fail_shut_down(gg__call *c, const char *waiting_for);

/* NOT_INITIALIZED unless gg_init succeeded, FORKED in a forked child. */
GG__HOT gg_status gg__require_library(gg__call *c)
{
    if (GG__LIKELY(c->b != NULL) && GG__LIKELY(gg__fork_generation_now() == gg__lib.fork_generation))
        return GG_OK;
    return gg__require_library_failed(c);
}

/* Records why `id` could not be pinned (INVALID_HANDLE explaining why it is
 * not live; NOT_INITIALIZED after gg_shutdown; OUT_OF_MEMORY); NULL. */
void *gg__lookup_failed(gg__call *c, uint64_t id, gg__type type, const char *what);

/* The status a failed gg__lookup recorded. */
gg_status gg__lookup_status(void);

/* The pin protocol (pin.c R1-R3) into slot `k` of the calling thread's
 * record, which the caller has checked is below GG__PIN_SLOTS and the
 * call's next: the object, or NULL recording nothing. `after_held_pin`: the
 * call still holds an earlier pin that saw the library initialised at its
 * R3, so gg_shutdown is waiting for this call (rule S, pin.c) and R3 need
 * not look at the backend again; only the id is re-checked. */
GG__HOT void *gg__try_pin_in(gg__call *c, uint64_t id, gg__type type, unsigned k, bool after_held_pin)
{
    gg__slot *slot = gg__handle_slot(id, type);
    if (GG__UNLIKELY(slot == NULL) || GG__UNLIKELY(atomic_load_explicit(&slot->id, memory_order_acquire) != id))
        return NULL;
    void *obj = atomic_load_explicit(&slot->object, memory_order_acquire); /* R1 */
    /* After the call's first pin its record is known (pins are taken in
     * slot order): only the first may have to attach one. The first takes
     * the thread's record without testing c->pins: if set, it is that same
     * record (a call runs on one thread), and a fresh call's is NULL. */
    gg__pin_record *p = k > 0 ? c->pins : (c->pins = gg__pins());
    if (GG__UNLIKELY(p == NULL) || GG__UNLIKELY(obj == NULL))
        return NULL;
    gg__pin_publish(p, k, obj);                                           /* R2 */
    if (GG__LIKELY(atomic_load_explicit(&slot->id, memory_order_seq_cst) == id) &&  /* R3 */
        (after_held_pin || GG__LIKELY(gg__backend_get() != NULL || c->internal))) {
        c->npins = k + 1;
        return obj;
    }
    gg__pin_clear(p, k);
    return NULL;
}

/* gg__try_pin_in for a pin that has no earlier one to lean on. */
GG__HOT void *gg__try_pin_at(gg__call *c, uint64_t id, gg__type type, unsigned k)
{
    return gg__try_pin_in(c, id, type, k, false);
}

/* Pins the object named by `id` of `type` until gg__leave, or returns NULL
 * recording nothing (pin.c R1-R3). A call pins at most GG__PIN_SLOTS
 * objects: the most any call takes is three (a copy between two buffers on
 * a stream); a fifth is refused, never written past the record
 * (gg__lookup_failed: GG_INTERNAL). */
GG__HOT void *gg__try_pin(gg__call *c, uint64_t id, gg__type type)
{
    unsigned k = c->npins;
    if (GG__UNLIKELY(k >= GG__PIN_SLOTS))
        return NULL; /* past the thread's record: gg__lookup_failed says so */
    return gg__try_pin_at(c, id, type, k);
}

/* Looks up `id` of `type` and pins the object until gg__leave: a destroy
 * racing this call waits for it, or this lookup fails. INVALID_HANDLE naming
 * the expected type if not live (the status: gg__lookup_status()). */
GG__HOT void *gg__lookup(gg__call *c, uint64_t id, gg__type type, const char *what)
{
    void *obj = gg__try_pin(c, id, type);
    if (GG__LIKELY(obj != NULL))
        return obj;
    return gg__lookup_failed(c, id, type, what);
}

/* gg__lookup for a call's first pin (it has pinned nothing yet: the hot
 * paths' front half), which goes to slot 0 without reading the count. */
GG__HOT void *gg__lookup_first(gg__call *c, uint64_t id, gg__type type, const char *what)
{
    void *obj = gg__try_pin_at(c, id, type, 0);
    if (GG__LIKELY(obj != NULL))
        return obj;
    return gg__lookup_failed(c, id, type, what);
}

/* gg__lookup for a call's second pin (exactly one taken before, by
 * gg__lookup_first or gg__use_begin, and still held): slot 1, leaning on
 * the first for the shutdown test (gg__try_pin_in). */
GG__HOT void *gg__lookup_second(gg__call *c, uint64_t id, gg__type type, const char *what)
{
    void *obj = gg__try_pin_in(c, id, type, 1, true);
    if (GG__LIKELY(obj != NULL))
        return obj;
    return gg__lookup_failed(c, id, type, what);
}

/* Pins a record the caller already keeps alive by another pin (a pinned
 * child's context). False (nothing pinned) when the record was claimed
 * for destruction (its h.id is 0). */
bool gg__pin_record_of(gg__call *c, gg__object *o);

/* Pins the record `o` while its live id is still `id`, without the handle
 * table: `o` is a record of id's kind that the caller saw holding `id`
 * (records are type-stable, pin.c), and the caller already keeps the
 * library from freeing the pools (it holds a pin). True when pinned (until
 * gg__leave; `id` was live throughout, so `o` is its object); false, with
 * nothing pinned, when `id` is gone (destroyed, or the record recycled:
 * ids are never reused) or the call has no slot left. R2/R3 of pin.c
 * with the record's own id for the slot's. */
GG__HOT bool gg__pin_record_while(gg__call *c, gg__object *o, uint64_t id)
{
    unsigned k = c->npins;
    gg__pin_record *p = c->pins != NULL ? c->pins : (c->pins = gg__pins());
    if (GG__UNLIKELY(k >= GG__PIN_SLOTS) || GG__UNLIKELY(p == NULL))
        return false;
    gg__pin_publish(p, k, o);                                              /* R2 */
    if (GG__LIKELY(atomic_load_explicit(&o->id, memory_order_seq_cst) == id)) { /* R3 */
        c->npins = k + 1;
        return true;
    }
    gg__pin_clear(p, k);
    return false;
}

/* Opens a call that touches the driver or the library's state without a
 * pinned object: gg_shutdown waits for it. NOT_INITIALIZED (or FORKED) if
 * the library is not initialised. End with gg__leave. */
gg_status gg__call_open(gg__call *c);

/* Unpins everything this call pinned. Every slot of the thread's record
 * is cleared once the call took its record to pin anything (straight-line: fewer
 * instructions than a loop over the call's pins): slots past the call's
 * own are clear already, since a thread makes one call at a time and each
 * clears what it pinned. */
GG__HOT void gg__unpin_all(gg__call *c)
{
    gg__pin_record *p = c->pins; /* set by the call's first pin */
    if (p == NULL)
        return;
    _Static_assert(GG__PIN_SLOTS == 4, "gg__unpin_all clears four slots");
    gg__pin_clear(p, 0);
    gg__pin_clear(p, 1);
    gg__pin_clear(p, 2);
    gg__pin_clear(p, 3);
    c->npins = 0;
}

/* True once an id this call pinned was revoked (a destroy is waiting for
 * the call) or gg_shutdown began: long waits poll this and give up. */
bool gg__pins_revoked(gg__call *c);

/* Out-of-line halves of gg__enter: the refusal of a DEAD or FORKED context,
 * the failure of the driver's get-current call (its native code `n`), and
 * the switch when the context is not already current (`current`: the
 * caller's current context, which gg__leave restores). */
gg_status gg__enter_refused(gg__call *c, gg__context *ctx);
gg_status gg__enter_failed(gg__call *c, int n);
gg_status gg__enter_switch(gg__call *c, gg__context *ctx, gg__nctx current);

/* gg__enter for a call that passed gg__require_library itself (or tested
 * the fork generation against the library's as it does: gg__destroy), on a
 * context it pinned (the hot paths): the context's fork generation is then the
 * library's, which gg__require_library found current, so it is not tested
 * again. (A context is made only inside a call that passed the same test,
 * with the generation of that moment; a fork bumps the generation in the
 * child, where every call then fails gg__require_library first, and
 * gg_init refuses to start again there.) DEAD is tested as by gg__enter. */
GG__HOT gg_status gg__enter_required(gg__call *c, gg__context *ctx)
{
    if (GG__UNLIKELY(atomic_load_explicit(&ctx->state, memory_order_acquire) == GG__CTX_DEAD))
        return gg__enter_refused(c, ctx);
    c->ctx = ctx;
    gg__nctx current; /* read only when the driver answered (wrote it) */
    int n = GG__BACKEND->ctx_get_current(GG__BACKEND->self, &current);
    if (GG__UNLIKELY(n != 0))
        return gg__enter_failed(c, n);
    if (GG__LIKELY(current == ctx->native))
        return GG_OK;
    return gg__enter_switch(c, ctx, current);
}

/* Fails fast if the context is DEAD (CONTEXT_DEAD, original cause attached)
 * or FORKED; otherwise makes it current. One driver call (get current) when
 * it is current already: the caller's context is asked, never cached, since
 * code outside gpuguard may change it at any time. */
GG__HOT gg_status gg__enter(gg__call *c, gg__context *ctx)
{
    if (GG__UNLIKELY(ctx->fork_generation != gg__fork_generation_now()))
        return gg__enter_refused(c, ctx);
    return gg__enter_required(c, ctx);
}

void gg__leave_restore(gg__call *c);

/* Restores the caller's current context and unpins what the call pinned.
 * Safe to call after a failed enter or lookup, and more than once. */
GG__HOT void gg__leave(gg__call *c)
{
    if (c->switched)
        gg__leave_restore(c);
    gg__unpin_all(c);
}

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

/* A context's death (first cause wins), as the call protocol asks for it
 * on a sticky code (gg__check) and a wait on a deadline (wait.c):
 * context.c's gg__context_kill, reached through a hook rather than by name
 * because context.c sits above the call protocol (it makes calls, and the
 * death record names the culprit through attribution.c), so naming it here
 * would close an include circle. gg_init sets the hook before it publishes
 * the backend, so before any context exists that a call could enter; it is
 * never cleared (it is the same function every time), and it is atomic
 * because any thread may read it while a later gg_init writes it again. */
typedef void (*gg__context_kill_fn)(gg__call *c, gg__context *ctx, gg_status status, gg__op op, int native,
                                    const char *message);
void gg__call_set_context_kill(gg__context_kill_fn kill);
/* Marks ctx DEAD with this cause through the hook above. */
void gg__call_context_kill(gg__call *c, gg__context *ctx, gg_status status, gg__op op, int native,
                           const char *message);

/* This thread's last error record (gg_last_error copies it). */
gg_error_info *gg__last_error_slot(void);

#endif /* GPUGUARD_CALL_H */
