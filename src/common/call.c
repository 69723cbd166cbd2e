#include "common/call.h"
#include "common/context_state.h"
#include "common/process_exit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/fork.h"

static _Thread_local gg_error_info last_error;

gg_error_info *gg__last_error_slot(void)
{
    return &last_error;
}

const char *gg__driver_call_of(const gg__call *c, gg__op op)
{
    if ((unsigned)op >= GG__OP_COUNT)
        return "";
    if (c->driver_call != NULL)
        return c->driver_call;
    return c->b->op_names[op] != NULL ? c->b->op_names[op] : "";
}

/* What the simulated driver said about the failure of a module load or a
 * kernel lookup (its failure paths always record a reason, so the detail is
 * this call's), and for an image it cannot load, what it loads instead.
 * "" for other calls, injected faults and real drivers. */
static void driver_detail(const gg__call *c, gg__op op, int native, char *out, size_t size)
{
    out[0] = '\0';
    if (c->b == NULL || c->b->driver_error_detail == NULL || c->injected != 0 ||
        (op != GG__OP_MODULE_LOAD && op != GG__OP_MODULE_GET_FUNCTION))
        return;
    const char *detail = c->b->driver_error_detail(c->b->self);
    const char *name = c->b->code_name(native);
    bool bad_image = op == GG__OP_MODULE_LOAD &&
                     (strstr(name, "INVALID_IMAGE") != NULL || strstr(name, "InvalidImage") != NULL);
    snprintf(out, size, "%s%s%s%s", detail[0] ? " (simulator: " : "", detail, detail[0] ? ")" : "",
             bad_image ? "; the simulated driver loads PTX text, fatbins holding PTX and simulator "
                         "kernel modules (shared objects of host C kernels, gpuguard/sim_kernel.h, built "
                         "with gg_add_sim_module); a cubin holds machine code only"
                       : "");
}

static void record(gg__call *c, gg_status status, gg__op op, int native, const char *fmt, va_list ap)
{
    /* Once gpuguard's exit handler has run, the drivers' own exit code may
     * fail any call still in flight: no such failure reaches the program
     * (process_exit.h). Before, only the failures the exit makes park. */
    if (GG__UNLIKELY(gg__process_exit_phase() == GG__EXIT_DONE))
        gg__process_exit_park();
    gg_error_info *e = &last_error;
    memset(e, 0, sizeof *e);
    e->status = status;
    e->gg_call = c->api;
    e->native_code = native;
    e->native_name = "";
    e->driver_call = "";
    if (native != 0 && c->b != NULL) {
        e->native_name = c->b->code_name(native);
        e->driver_call = gg__driver_call_of(c, op);
    }
    /* Birth ids: the call's pins keep both records, but a destroy racing
     * the call (the one that made a wait give up) may have zeroed their
     * live ids; the record names the objects the call was on. */
    if (c->ctx != NULL)
        e->context.id = c->ctx->h.birth_id;
    if (c->stream != NULL)
        e->stream.id = c->stream->h.birth_id;
    vsnprintf(e->message, sizeof e->message, fmt, ap);
}

/* Messages start with the call's name; the debug line names it once. */
static void log_failure(const gg__call *c)
{
    size_t len = strlen(c->api);
    bool named = strncmp(last_error.message, c->api, len) == 0 && last_error.message[len] == ':';
    gg__log(GG_LOG_DEBUG, 0, "%s%s%s", named ? "" : c->api, named ? "" : ": ", last_error.message);
}

gg_status gg__fail(gg__call *c, gg_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(c, status, GG__OP_COUNT, 0, fmt, ap);
    va_end(ap);
    log_failure(c);
    return status;
}

gg_status gg__fail_native(gg__call *c, gg_status status, gg__op op, int native, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(c, status, op, native, fmt, ap);
    va_end(ap);
    log_failure(c);
    return status;
}

gg_status gg__require_library_failed(gg__call *c)
{
    gg_status status = gg__require_initialized(c);
    /* In a forked child nothing may reach the driver: not even calls that
     * create (the design's FORKED state covers the whole process). */
    if (GG__LIKELY(status == GG_OK) && GG__UNLIKELY(gg__fork_generation_now() != gg__lib.fork_generation))
        return gg__fail(c, GG_FORKED, "%s: this process was forked from one that initialised the GPU driver; "
                        "the driver cannot be used after fork() (start workers with spawn)", c->api);
    return status;
}

gg_status gg__require_initialized(gg__call *c)
{
    if (GG__UNLIKELY(c->b == NULL)) {
        if (gg__forked_from_initialized())
            return gg__fail(c, GG_FORKED,
                            "%s: this process was forked from one that initialised the GPU driver; "
                            "the driver cannot be used after fork() (start workers with spawn)",
                            c->api);
        if (gg__process_exit_phase() != GG__EXIT_NONE)
            return gg__fail_shut_down(c, NULL);
        return gg__fail(c, GG_NOT_INITIALIZED, "%s: gg_init has not been called (or gg_shutdown was)",
                        c->api);
    }
    return GG_OK;
}

gg_status gg__fail_shut_down(gg__call *c, const char *waiting_for)
{
    gg__process_exit_park(); /* returns only when not exiting, or on the exiting thread */
    const char *cause = gg__process_exit_phase() != GG__EXIT_NONE ? "the process is exiting (exit() was called)"
                                                                  : "gg_shutdown was called";
    if (waiting_for != NULL)
        return gg__fail(c, GG_NOT_INITIALIZED, "%s: %s while waiting for %s", c->api, cause, waiting_for);
    return gg__fail(c, GG_NOT_INITIALIZED, "%s: %s", c->api, cause);
}

void *gg__lookup_failed(gg__call *c, uint64_t id, gg__type type, const char *what)
{
    if (gg__backend_get() == NULL && !c->internal) {
        gg__fail_shut_down(c, NULL);
        return NULL;
    }
    if (c->npins >= GG__PIN_SLOTS) {
        gg__fail(c, GG_INTERNAL, "%s: internal error: more than %d objects pinned by one call", c->api,
                 GG__PIN_SLOTS);
        return NULL;
    }
    if (gg__handle_lookup(id, type) != NULL && c->pins == NULL) {
        gg__fail(c, GG_OUT_OF_MEMORY, "%s: out of host memory for this thread's pin record", c->api);
        return NULL;
    }
    char why[200];
    gg__handle_explain(id, type, why, sizeof why);
    gg__fail(c, GG_INVALID_HANDLE, "%s: %s: %s", c->api, what, why);
    return NULL;
}

gg_status gg__lookup_status(void)
{
    return last_error.status;
}

bool gg__pin_record_of(gg__call *c, gg__object *o)
{
    gg__pin_record *p = c->pins != NULL ? c->pins : (c->pins = gg__pins());
    if (p == NULL || c->npins >= GG__PIN_SLOTS)
        return false;
    unsigned k = c->npins;
    gg__pin_publish(p, k, o);
    if (atomic_load_explicit(&o->id, memory_order_seq_cst) == 0) {
        gg__pin_clear(p, k);
        return false;
    }
    c->npins = k + 1;
    return true;
}

/* What an open call pins: never an object, never recycled. */
static gg__object open_sentinel;

gg_status gg__call_open(gg__call *c)
{
    gg_status status = gg__require_library(c);
    if (status != GG_OK)
        return status;
    gg__pin_record *p = c->pins != NULL ? c->pins : (c->pins = gg__pins());
    if (p == NULL)
        return gg__fail(c, GG_OUT_OF_MEMORY, "%s: out of host memory for this thread's pin record", c->api);
    if (c->npins >= GG__PIN_SLOTS)
        return gg__fail(c, GG_INTERNAL, "%s: internal error: more than %d objects pinned by one call", c->api,
                        GG__PIN_SLOTS);
    unsigned k = c->npins;
    gg__pin_publish(p, k, &open_sentinel);
    if (gg__backend_get() == NULL && !c->internal) {
        gg__pin_clear(p, k);
        return gg__fail_shut_down(c, NULL);
    }
    c->npins = k + 1;
    return GG_OK;
}

bool gg__pins_revoked(gg__call *c)
{
    if (gg__backend_get() == NULL && !c->internal)
        return true;
    /* A pinned record is not recycled, so its h.id is its id or 0 (claimed). */
    for (unsigned k = 0; k < c->npins; k++) {
        gg__object *o = atomic_load_explicit(&c->pins->slot[k], memory_order_relaxed);
        if (o != NULL && o != &open_sentinel && atomic_load_explicit(&o->id, memory_order_acquire) == 0)
            return true;
    }
    return false;
}

static gg_status fail_dead(gg__call *c, gg__context *ctx)
{
    /* The original cause travels with every fail-fast error. */
    gg_error_info *e = &last_error;
    gg__rlock_take(&ctx->lock);
    gg_error_info cause = ctx->death;
    gg__rlock_release(&ctx->lock);
    *e = cause;
    e->status = GG_CONTEXT_DEAD;
    e->gg_call = c->api;
    if (c->stream != NULL)
        e->stream.id = c->stream->h.birth_id;
    char detail[GG_MESSAGE_MAX];
    snprintf(detail, sizeof detail, "%s", cause.message);
    if (cause.culprit.certainty != GG_ATTRIBUTION_NONE)
        snprintf(e->message, sizeof e->message,
                 "%s: context died earlier with %s in %s (culprit: kernel '%s', launch #%llu%s): %s",
                 c->api, gg_status_name(cause.status), cause.gg_call, cause.culprit.kernel_name,
                 (unsigned long long)cause.culprit.sequence,
                 cause.culprit.certainty == GG_ATTRIBUTION_EXACT ? "" : ", one of several", detail);
    else
        snprintf(e->message, sizeof e->message, "%s: context died earlier with %s in %s: %s", c->api,
                 gg_status_name(cause.status), cause.gg_call, detail);
    return GG_CONTEXT_DEAD;
}

gg_status gg__enter_refused(gg__call *c, gg__context *ctx)
{
    gg_state state = gg__context_state(ctx);
    if (state == GG_STATE_FORKED) {
        c->ctx = NULL;
        return gg__fail(c, GG_FORKED,
                        "%s: this context was inherited through fork(); GPU objects cannot be "
                        "used in a child process (start workers with spawn)", c->api);
    }
    if (state == GG_STATE_DEAD)
        return fail_dead(c, ctx);
    return gg__enter(c, ctx); /* it was recovered meanwhile */
}

gg_status gg__enter_failed(gg__call *c, int n)
{
    c->switched = false;
    return gg__check(c, GG__OP_CTX_GET_CURRENT, n);
}

gg_status gg__enter_switch(gg__call *c, gg__context *ctx, gg__nctx current)
{
    c->switched = false;
    c->saved = current;
    int n = c->b->ctx_set_current(c->b->self, ctx->native);
    if (GG__UNLIKELY(n != 0))
        return gg__check(c, GG__OP_CTX_SET_CURRENT, n);
    c->switched = true;
    return GG_OK;
}

void gg__leave_restore(gg__call *c)
{
    c->switched = false;
    /* Restoring the caller's context cannot be allowed to fail silently
     * into a wrong current context; it is logged, the call's own result
     * stands. */
    int n = c->b->ctx_set_current(c->b->self, c->saved);
    if (n != 0)
        gg__log(GG_LOG_WARN, 0, "%s: could not restore the caller's current context (%s)", c->api,
                c->b->code_name(n));
}

/* context.c's gg__context_kill (call.h says why it is a hook). */
static _Atomic(gg__context_kill_fn) context_kill;

void gg__call_set_context_kill(gg__context_kill_fn kill)
{
    atomic_store_explicit(&context_kill, kill, memory_order_release);
}

void gg__call_context_kill(gg__call *c, gg__context *ctx, gg_status status, gg__op op, int native,
                           const char *message)
{
    atomic_load_explicit(&context_kill, memory_order_acquire)(c, ctx, status, op, native, message);
}

gg_status gg__check_failed(gg__call *c, gg__op op, int native)
{
    gg__code_class cls = c->b->classify(native);
    if (cls.status == GG_NOT_READY)
        return GG_NOT_READY;
    const char *driver_call = gg__driver_call_of(c, op);
    const char *how = c->injected ? " (injected fault)" : "";
    char detail[GG_MESSAGE_MAX / 2 + 128];
    driver_detail(c, op, native, detail, sizeof detail);
    if (cls.sticky && c->ctx != NULL) {
        char message[GG_MESSAGE_MAX];
        snprintf(message, sizeof message, "%s returned %s%s", driver_call, c->b->code_name(native), how);
        gg__call_context_kill(c, c->ctx, cls.status, op, native, message);
        /* The caller gets the sticky status itself this once, with the cause. */
        last_error = c->ctx->death;
        last_error.gg_call = c->api;
        return cls.status;
    }
    return gg__fail_native(c, cls.status, op, native, "%s: %s returned %s%s%s%s%s", c->api, driver_call,
                           c->b->code_name(native), how, c->kernel_name ? " for kernel " : "",
                           c->kernel_name ? c->kernel_name : "", detail);
}

gg_status gg__wrong_context(gg__call *c, const gg__object *a, const char *a_what, const gg__object *b,
                            const char *b_what)
{
    return gg__fail(c, GG_WRONG_CONTEXT, "%s: %s %s belongs to context 0x%016llx but %s %s belongs to "
                    "context 0x%016llx", c->api, a_what, gg__object_label(a).text,
                    (unsigned long long)a->context->h.birth_id, b_what, gg__object_label(b).text,
                    (unsigned long long)b->context->h.birth_id);
}
