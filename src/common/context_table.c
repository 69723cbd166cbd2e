/* The table of live contexts (context_table.h), and what is asked of all
 * of them at once: the sharers of a native context, the poison walk. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "common/context_table.h"
#include "common/launch_log.h"

/* Every context, for gg_shutdown, the exit report and gg_objects_json. */
#define MAX_CONTEXTS GG__CONTEXTS_MAX
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

/* The live gg context whose native context is `native`, if any (its id;
 * 0 when none). A listed record stays valid while the list's lock is held;
 * its native pointer is read under its own lock (a recover replaces it).
 * Lock order: the list's, then a context's (nothing takes them the other
 * way round). Contexts being created or torn down (id 0) are skipped. */
uint64_t gg__context_of_native(gg__nctx native)
{
    uint64_t found = 0;
    pthread_mutex_lock(&contexts_lock);
    for (size_t i = 0; i < context_count && found == 0; i++) {
        gg__context *ctx = contexts[i];
        if (atomic_load_explicit(&ctx->h.id, memory_order_acquire) == 0)
            continue;
        gg__rlock_take(&ctx->lock);
        uint64_t id = atomic_load_explicit(&ctx->h.id, memory_order_relaxed);
        if (id != 0 && ctx->native == native)
            found = id;
        gg__rlock_release(&ctx->lock);
    }
    pthread_mutex_unlock(&contexts_lock);
    return found;
}

/* Whether `other` has a launch not known complete. Caller holds its lock. */
static bool context_busy(gg__context *other)
{
    if (!gg__launch_log_all_done(&other->default_log, other->timeline_wide) || other->retired != NULL)
        return true;
    for (gg__object *o = other->children.next; o != &other->children; o = o->next)
        if (o->type == GG__T_STREAM && !gg__launch_log_all_done(&((gg__stream *)o)->log, other->timeline_wide))
            return true;
    return false;
}

uint32_t gg__context_sharers_busy(gg__context *ctx, char *label, size_t size)
{
    gg__backend *b = gg__backend_get();
    bool one_per_device = b != NULL && b->one_context_per_device;
    /* Called under ctx->lock, against the usual order (the list's lock,
     * then a context's): only tried, never waited for. A lock not had
     * counts as busy, which costs a culprit, never names a wrong one. */
    bool process_wide = gg__sticky_process_wide(b);
    uint32_t busy = 0;
    if (pthread_mutex_trylock(&contexts_lock) != 0) {
        snprintf(label, size, "another gg context (the list of contexts was busy)");
        return 1;
    }
    for (size_t i = 0; i < context_count; i++) {
        gg__context *other = contexts[i];
        /* Device and use_primary are fixed before a context is listed: a
         * context that cannot share ctx's native one is passed unlocked. */
        if (other == ctx || atomic_load_explicit(&other->h.id, memory_order_acquire) == 0)
            continue;
        /* Process-wide sticky errors: every context of the process shares
         * ctx's fate, whatever its device and native context. */
        if (!process_wide && (other->device != ctx->device || !(other->use_primary || one_per_device)))
            continue;
        if (!gg__rlock_try(&other->lock)) {
            if (busy++ == 0)
                snprintf(label, size, "a gg context that was busy");
            continue;
        }
        /* A DEAD sharer counts too: its unfinished launch may be the one
         * that killed both. */
        if (atomic_load_explicit(&other->h.id, memory_order_relaxed) != 0 &&
            (process_wide || other->native == ctx->native) &&
            gg__context_state(other) != GG_STATE_FORKED && context_busy(other) && busy++ == 0)
            snprintf(label, size, "gg context %s", gg__object_label(&other->h).text);
        gg__rlock_release(&other->lock);
    }
    pthread_mutex_unlock(&contexts_lock);
    return busy;
}

/* A lock taken by trylock only, retried a while: the caller may hold a lock
 * that the holder of this one waits for, so waiting could deadlock; giving
 * up cannot. */
static bool lock_without_waiting(pthread_mutex_t *m)
{
    for (int tries = 0; tries < 1000; tries++) {
        if (pthread_mutex_trylock(m) == 0)
            return true;
        sched_yield();
    }
    return false;
}

/* The same for a context's lock. */
static bool context_lock_without_waiting(gg__rlock *l)
{
    for (int tries = 0; tries < 1000; tries++) {
        if (gg__rlock_try(l))
            return true;
        sched_yield();
    }
    return false;
}

bool gg__context_mark_poisoned(gg__context *ctx, const gg_error_info *cause)
{
    if (gg__context_state(ctx) != GG_STATE_ALIVE) /* DEAD already, or FORKED */
        return false;
    gg_error_info *d = &ctx->death;
    memset(d, 0, sizeof *d);
    d->status = GG_PROCESS_POISONED;
    d->native_code = cause->native_code;
    d->native_name = cause->native_name;
    d->gg_call = cause->gg_call;
    d->driver_call = cause->driver_call;
    d->context.id = ctx->h.birth_id;
    /* No culprit of its own: the launch that killed it is the other
     * context's, named in the message. */
    snprintf(d->message, sizeof d->message,
             "context 0x%016llx died of %s in %s, and a sticky error reaches every context of the process "
             "(CUDA: docs/DRIVER-FACTS.md): this one is dead too, and only a new process can use the GPU; it "
             "died of: %s",
             (unsigned long long)cause->context.id,
             cause->native_name[0] ? cause->native_name : gg_status_name(cause->status), cause->gg_call,
             cause->message);
    atomic_store_explicit(&ctx->state, GG__CTX_DEAD, memory_order_release);
    return true;
}

size_t gg__contexts_poison_others(gg__context *dead, const gg_error_info *cause)
{
    size_t marked = 0;
    if (!lock_without_waiting(&contexts_lock))
        return 0;
    for (size_t i = 0; i < context_count; i++) {
        gg__context *other = contexts[i];
        if (other == dead || atomic_load_explicit(&other->h.id, memory_order_acquire) == 0)
            continue;
        if (!context_lock_without_waiting(&other->lock))
            continue; /* it finds the error at its next driver call */
        if (atomic_load_explicit(&other->h.id, memory_order_relaxed) != 0 && gg__context_mark_poisoned(other, cause))
            marked++;
        gg__rlock_release(&other->lock);
    }
    pthread_mutex_unlock(&contexts_lock);
    return marked;
}

void gg__context_list_lock(bool take)
{
    if (take)
        pthread_mutex_lock(&contexts_lock);
    else
        pthread_mutex_unlock(&contexts_lock);
}
