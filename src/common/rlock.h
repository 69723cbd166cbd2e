/*
 * The context's lock: recursive (a sticky error seen while it is held, e.g.
 * during a destroy, records the death under the same lock), held across
 * driver calls (cuMemAlloc, cuMemFree, module loads), taken once by every
 * create and every destroy. A recursive pthread mutex cost about 77
 * instructions a lock and unlock there (bench/README.md, "What a call
 * costs"); this one takes a free lock with one compare-exchange and two
 * plain stores, and releases it with an exchange.
 *
 * A contended taker spins briefly, then sleeps in the kernel until the
 * holder releases it (a futex on Linux; elsewhere short sleeps), so a
 * waiter for a lock held across a long driver call does not burn a core.
 *
 * The holder is named by the address of a thread-local byte: unique among
 * live threads. fork: no atfork handler takes a context's lock (a forked
 * child never takes one: context.c, lifetime.c), as with the mutex.
 *
 * ThreadSanitizer: the state word's acquire (taking) and release
 * (releasing) order the holders' accesses; `owner` is an atomic, `depth`
 * is touched only by the holder.
 */
#ifndef GPUGUARD_RLOCK_H
#define GPUGUARD_RLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gg__rlock {
    _Atomic uint32_t state;      /* 0 free, 1 held, 2 held and a taker may sleep */
    _Atomic(const void *) owner; /* the holder's gg__rlock_self(), NULL when free */
    unsigned depth;              /* the holder's takings; only the holder reads or writes it */
} gg__rlock;

#define GG__RLOCK_INIT { 0, NULL, 0 }

/* This thread's name as a holder (the address of a thread-local byte). */
extern _Thread_local char gg__rlock_me __attribute__((tls_model("initial-exec")));
static inline const void *gg__rlock_self(void)
{
    return &gg__rlock_me;
}

/* Makes a free lock (the record's memory, once). */
void gg__rlock_init(gg__rlock *l);

/* The contended half of gg__rlock_take: waits until the lock is free and
 * takes it (state, acquire); the caller then names itself the holder. */
void gg__rlock_take_contended(gg__rlock *l);

/* The releasing half when a taker may sleep: wakes one. */
void gg__rlock_wake(gg__rlock *l);

/* Takes the lock (acquire), again if this thread holds it already. */
static inline void gg__rlock_take(gg__rlock *l)
{
    const void *me = gg__rlock_self();
    /* Equal only if this thread stored it: a thread clears it before it
     * releases the lock. */
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) == me) {
        l->depth++;
        return;
    }
    uint32_t free_state = 0;
    if (__builtin_expect(!atomic_compare_exchange_strong_explicit(&l->state, &free_state, 1, memory_order_acquire,
                                                                  memory_order_relaxed),
                         0))
        gg__rlock_take_contended(l);
    atomic_store_explicit(&l->owner, me, memory_order_relaxed);
    l->depth = 1;
}

/* Takes the lock if it is free or this thread holds it; true when taken.
 * Never waits. */
static inline bool gg__rlock_try(gg__rlock *l)
{
    const void *me = gg__rlock_self();
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) == me) {
        l->depth++;
        return true;
    }
    uint32_t free_state = 0;
    if (!atomic_compare_exchange_strong_explicit(&l->state, &free_state, 1, memory_order_acquire,
                                                 memory_order_relaxed))
        return false;
    atomic_store_explicit(&l->owner, me, memory_order_relaxed);
    l->depth = 1;
    return true;
}

/* Releases one taking (release at the last); the caller holds the lock. */
static inline void gg__rlock_release(gg__rlock *l)
{
    if (--l->depth != 0)
        return;
    atomic_store_explicit(&l->owner, NULL, memory_order_relaxed);
    if (__builtin_expect(atomic_exchange_explicit(&l->state, 0, memory_order_release) == 2, 0))
        gg__rlock_wake(l);
}

/* Whether this thread holds the lock (for contracts and tests). */
static inline bool gg__rlock_held_by_me(gg__rlock *l)
{
    return atomic_load_explicit(&l->owner, memory_order_relaxed) == gg__rlock_self();
}

#endif
