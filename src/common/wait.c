#include "common/wait.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/attribution.h"

uint64_t gg__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_us(uint64_t us)
{
    struct timespec ts = { .tv_sec = (time_t)(us / 1000000u), .tv_nsec = (long)(us % 1000000u) * 1000 };
    nanosleep(&ts, NULL);
}

static gg_status timed_out(gg__call *c, gg__op op, uint32_t timeout_ms, const char *what_kind, const char *name)
{
    char what[GG_NAME_MAX + 64];
    if (name != NULL && name[0] != '\0')
        snprintf(what, sizeof what, "%s '%s'", what_kind, name);
    else if (name != NULL && c->stream != NULL && strcmp(what_kind, "stream") == 0)
        snprintf(what, sizeof what, "stream %s", gg__object_label(&c->stream->h).text);
    else if (name != NULL)
        snprintf(what, sizeof what, "%s (untagged)", what_kind);
    else
        snprintf(what, sizeof what, "%s", what_kind);
    gg__context *ctx = c->ctx;
    gg_culprit pending;
    gg__suspect_names names;
    gg__rlock_take(&ctx->lock);
    gg__attribute(ctx, c->stream ? &c->stream->log : NULL, &pending, &names);
    gg__rlock_release(&ctx->lock);
    char detail[GG_MESSAGE_MAX];
    if (pending.certainty == GG_ATTRIBUTION_EXACT && pending.window_count == 1)
        snprintf(detail, sizeof detail,
                 "deadline of %u ms passed waiting for %s; its work has not got past kernel '%s' (launch "
                 "#%llu)",
                 timeout_ms, what, pending.kernel_name, (unsigned long long)pending.sequence);
    else if (pending.window_count > 0 && pending.kernel_name[0] != '\0')
        snprintf(detail, sizeof detail,
                 "deadline of %u ms passed waiting for %s; %u launch(es) unfinished, oldest kernel "
                 "'%s' (launch #%llu)", timeout_ms, what, pending.window_count, pending.kernel_name,
                 (unsigned long long)pending.sequence);
    else if (pending.window_count > 0)
        snprintf(detail, sizeof detail,
                 "deadline of %u ms passed waiting for %s; %u launch(es) unfinished, the oldest of them not "
                 "kept by name (more launches were queued than the %u records kept per stream)", timeout_ms,
                 what, pending.window_count, gg__lib.config.launch_records);
    else if (names.shared_with[0] != '\0')
        snprintf(detail, sizeof detail, "deadline of %u ms passed waiting for %s; work of %s on the same native "
                 "context (shared) may be what is stuck", timeout_ms, what, names.shared_with);
    else
        snprintf(detail, sizeof detail, "deadline of %u ms passed waiting for %s (no launch pending: "
                 "a copy or an event wait is stuck)", timeout_ms, what);
    gg_timeout_policy policy = c->timeout_policy != GG_TIMEOUT_DEFAULT ? c->timeout_policy
                                                                       : gg__lib.config.timeout_policy;
    if (policy != GG_TIMEOUT_RETURNS) {
        gg__call_context_kill(c, ctx, GG_TIMEOUT, op, 0, detail);
        gg_error_info *e = gg__last_error_slot();
        gg__rlock_take(&ctx->lock);
        *e = ctx->death;
        gg__rlock_release(&ctx->lock);
        e->gg_call = c->api;
        if (e->status != GG_TIMEOUT) /* another thread's error killed it first */
            return e->status;
        return GG_TIMEOUT;
    }
    gg__fail(c, GG_TIMEOUT, "%s: %s", c->api, detail);
    gg__last_error_slot()->culprit = pending;
    return GG_TIMEOUT;
}

gg_status gg__wait(gg__call *c, gg__op op, gg__poll_fn poll, void *arg, uint32_t timeout_ms,
                   const char *what, const char *name)
{
    int first = poll(c, arg);
    if (first == 0)
        return GG_OK;
    gg_status first_status = gg__check(c, op, first);
    if (first_status != GG_NOT_READY)
        return first_status;
    if (timeout_ms == 0)
        timeout_ms = gg__lib.config.wait_timeout_ms;
    uint64_t start = gg__now_ns();
    uint64_t deadline = start + (uint64_t)timeout_ms * 1000000u;
    uint64_t sleep_step_us = 20;
    for (uint32_t polls = 0;; polls++) {
        /* A destroy waiting for this call, or gg_shutdown: give up rather
         * than hold them until the deadline (pin.c). */
        if (GG__UNLIKELY(gg__pins_revoked(c))) {
            if (gg__backend_get() == NULL && !c->internal)
                return gg__fail_shut_down(c, what);
            return gg__fail(c, GG_INVALID_HANDLE, "%s: the object was destroyed by another thread while waiting for %s",
                            c->api, what);
        }
        int n = poll(c, arg);
        if (n == 0)
            return GG_OK;
        gg_status status = gg__check(c, op, n);
        if (status != GG_NOT_READY)
            return status;
        uint64_t now = gg__now_ns();
        if (now >= deadline)
            return timed_out(c, op, timeout_ms, what, name);
        if (polls < GG__WAIT_SPIN_POLLS)
            continue;
        if (now - start < (uint64_t)GG__WAIT_YIELD_US * 1000u) {
            sched_yield();
            continue;
        }
        uint64_t left_us = (deadline - now + 999) / 1000;
        sleep_us(sleep_step_us < left_us ? sleep_step_us : left_us);
        if (sleep_step_us < GG__WAIT_MAX_SLEEP_US)
            sleep_step_us *= 2;
        if (sleep_step_us > GG__WAIT_MAX_SLEEP_US)
            sleep_step_us = GG__WAIT_MAX_SLEEP_US;
    }
}
