/*
 * The process's poison: the first sticky death when sticky errors are
 * process-wide (poison.h). One record, written once under its own lock (a
 * leaf: nothing else is taken while it is held) and read by the slow paths
 * only (context create and recover, the marking of other contexts): no
 * call's fast path looks at it, since the other contexts are marked DEAD
 * and their own state answers.
 */
#include "common/poison.h"
#include "common/call.h"
#include "common/state.h"
#include "common/context_table.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t poison_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool poisoned;
static gg_error_info poison_cause; /* under poison_lock; its strings are static or the library's */

void gg__poison_after_death(gg__context *dead)
{
    if (!gg__sticky_process_wide(gg__backend_get()))
        return;
    /* Recursive: the caller may hold it already. */
    gg__rlock_take(&dead->lock);
    gg_error_info cause = dead->death;
    gg__rlock_release(&dead->lock);
    pthread_mutex_lock(&poison_lock);
    bool first = !atomic_load_explicit(&poisoned, memory_order_relaxed);
    if (first) {
        poison_cause = cause;
        atomic_store_explicit(&poisoned, true, memory_order_release);
    }
    pthread_mutex_unlock(&poison_lock);
    /* Pairs with gg__poison_mark_new's: a context published meanwhile is
     * seen by the walk, or sees the flag. */
    atomic_thread_fence(memory_order_seq_cst);
    if (first)
        gg__contexts_poison_others(dead, &cause);
}

void gg__poison_mark_new(gg__context *ctx)
{
    atomic_thread_fence(memory_order_seq_cst);
    gg_error_info cause;
    if (!gg__poisoned(&cause))
        return;
    gg__rlock_take(&ctx->lock);
    gg__context_mark_poisoned(ctx, &cause);
    gg__rlock_release(&ctx->lock);
}

bool gg__poisoned(gg_error_info *cause)
{
    if (!atomic_load_explicit(&poisoned, memory_order_acquire))
        return false;
    if (cause != NULL) {
        pthread_mutex_lock(&poison_lock);
        *cause = poison_cause;
        pthread_mutex_unlock(&poison_lock);
    }
    return true;
}

gg_status gg__poison_refuse(gg__call *c, const char *what)
{
    gg_error_info cause;
    if (!gg__poisoned(&cause))
        return GG_OK;
    /* What to do comes before the first death's own message, which may be
     * cut at GG_MESSAGE_MAX. */
    return gg__fail(c, GG_PROCESS_POISONED,
                    "%s: %s: context 0x%016llx died of %s in %s, and the driver keeps such an error for every "
                    "context of the process (docs/DRIVER-FACTS.md): only a new process can use the GPU. It died "
                    "of: %s",
                    c->api, what, (unsigned long long)cause.context.id,
                    cause.native_name[0] ? cause.native_name : gg_status_name(cause.status), cause.gg_call,
                    cause.message);
}

void gg__poison_forget(void)
{
    pthread_mutex_lock(&poison_lock);
    memset(&poison_cause, 0, sizeof poison_cause);
    atomic_store_explicit(&poisoned, false, memory_order_release);
    pthread_mutex_unlock(&poison_lock);
}
