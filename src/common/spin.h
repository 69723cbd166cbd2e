/*
 * Spin locks for the library's short global critical sections (the handle
 * table's free lists, the record pools): a few loads and stores under the
 * lock (and, once per 4096 ids, the handle table's new page; at gg_shutdown
 * the pools' release), never a driver call, never a wait for another
 * thread, never another lock. Taking and
 * releasing one is an exchange and a store (a pthread mutex costs about 57
 * instructions a pair: bench/README.md); a contended lock spins briefly,
 * then yields, then sleeps in short steps (spin.c), so a holder that was
 * descheduled is not starved of the CPU.
 *
 * fork: the atfork handlers take them before fork() and release them in
 * parent and child (fork.c), as they did the mutexes: a plain store.
 */
#ifndef GPUGUARD_SPIN_H
#define GPUGUARD_SPIN_H

#include <stdatomic.h>
#include <stdbool.h>

typedef struct gg__spin {
    _Atomic bool held;
} gg__spin;

#define GG__SPIN_INIT { false }

/* The contended half of gg__spin_lock: waits until the lock is free and
 * takes it. */
void gg__spin_lock_contended(gg__spin *s);

/* Takes the lock (acquire): one exchange when it is free. */
static inline void gg__spin_lock(gg__spin *s)
{
    if (__builtin_expect(!atomic_exchange_explicit(&s->held, true, memory_order_acquire), 1))
        return;
    gg__spin_lock_contended(s);
}

/* Releases the lock (release); the caller holds it. */
static inline void gg__spin_unlock(gg__spin *s)
{
    atomic_store_explicit(&s->held, false, memory_order_release);
}

#endif
