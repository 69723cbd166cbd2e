/*
 * The context's lock: recursive (a sticky error seen while it is held, e.g.
 * during a destroy, records the death under the same lock), held across
 * driver calls (cuMemAlloc, cuMemFree, module loads), taken once by every
 * create and every destroy. A recursive pthread mutex cost about 77
 * instructions a lock and unlock there (bench/README.md, "What a call
 * costs"); this one takes a free lock with one compare-exchange (the
 * holder's name) and a store (the depth), and releases it with an
 * exchange.
 *
 * A contended taker spins briefly, then sleeps in the kernel until the
 * holder releases it (a futex on Linux; elsewhere short sleeps), so a
 * waiter for a lock held across a long driver call does not burn a core.
 *
 * The holder is named by the address of a thread-local byte: unique among
 * live threads. fork: no atfork handler takes a context's lock (a forked
 * child never takes one: context.c, lifetime.c), as with the mutex.
 *
 * ThreadSanitizer: the word's acquire (taking) and release (releasing)
 * order the holders' accesses; `depth` is touched only by the holder.
 */
#ifndef GPUGUARD_RLOCK_H
#define GPUGUARD_RLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ThreadSanitizer's mutex annotations (its lock-order and double-lock
 * checks see the context's locks as they saw the mutexes): the outermost
 * taking and the last release only, as a plain mutex. Nothing otherwise. */
#if defined(__SANITIZE_THREAD__)
#define GG__RLOCK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GG__RLOCK_TSAN 1
#endif
#endif
#ifdef GG__RLOCK_TSAN
#include <sanitizer/tsan_interface.h>
#define GG__RLOCK_NOTE(call) call
#else
#define GG__RLOCK_NOTE(call) ((void)0)
#endif

typedef struct gg__rlock {
    /* 0 when free; else the holder's gg__rlock_self(), with GG__RLOCK_SLEEPER
     * set when a taker may sleep (the releaser then wakes one). */
    _Atomic uintptr_t word;
    unsigned depth; /* the holder's takings; only the holder reads or writes it */
} gg__rlock;

#define GG__RLOCK_INIT { 0, 0 }
#define GG__RLOCK_SLEEPER ((uintptr_t)1)

/* This thread's name as a holder: the address of a thread-local, aligned
 * so that its low bit is free for GG__RLOCK_SLEEPER. */
extern _Thread_local _Alignas(8) char gg__rlock_me __attribute__((tls_model("initial-exec")));
static inline uintptr_t gg__rlock_self(void)
{
    return (uintptr_t)&gg__rlock_me;
}

/* Makes a free lock (the record's memory, once). */
void gg__rlock_init(gg__rlock *l);

/* Undoes gg__rlock_init before the memory is freed (the lock is free). */
void gg__rlock_fini(gg__rlock *l);

/* The contended half of gg__rlock_take: waits until the lock is free and
 * takes it for `me` (acquire). */
void gg__rlock_take_contended(gg__rlock *l, uintptr_t me);

/* The releasing half when a taker may sleep: wakes one. */
void gg__rlock_wake(gg__rlock *l);

/* Takes the lock (acquire), again if this thread holds it already. */
static inline void gg__rlock_take(gg__rlock *l)
{
    uintptr_t me = gg__rlock_self();
    uintptr_t seen = 0;
#ifdef GG__RLOCK_TSAN
    /* A recursive taking is not shown to ThreadSanitizer (its deadlock
     * check would see a second taking of a plain mutex): tested first. */
    if ((atomic_load_explicit(&l->word, memory_order_relaxed) & ~GG__RLOCK_SLEEPER) == me) {
        l->depth++;
        return;
    }
    __tsan_mutex_pre_lock(l, 0);
#endif
    if (__builtin_expect(atomic_compare_exchange_strong_explicit(&l->word, &seen, me, memory_order_acquire,
                                                                 memory_order_relaxed),
                         1)) {
        l->depth = 1;
        GG__RLOCK_NOTE(__tsan_mutex_post_lock(l, 0, 0));
        return;
    }
    /* The holder's name is ours only if this thread stored it: a thread
     * clears it before its last release. */
    if ((seen & ~GG__RLOCK_SLEEPER) == me) { /* (not reached under ThreadSanitizer: tested above) */
        l->depth++;
        return;
    }
    gg__rlock_take_contended(l, me);
    l->depth = 1;
    GG__RLOCK_NOTE(__tsan_mutex_post_lock(l, 0, 0));
}

/* Takes the lock if it is free or this thread holds it; true when taken.
 * Never waits. */
static inline bool gg__rlock_try(gg__rlock *l)
{
    uintptr_t me = gg__rlock_self();
    if ((atomic_load_explicit(&l->word, memory_order_relaxed) & ~GG__RLOCK_SLEEPER) == me) {
        l->depth++;
        return true;
    }
    uintptr_t seen = 0;
    GG__RLOCK_NOTE(__tsan_mutex_pre_lock(l, __tsan_mutex_try_lock));
    if (atomic_compare_exchange_strong_explicit(&l->word, &seen, me, memory_order_acquire, memory_order_relaxed)) {
        l->depth = 1;
        GG__RLOCK_NOTE(__tsan_mutex_post_lock(l, __tsan_mutex_try_lock, 0));
        return true;
    }
    GG__RLOCK_NOTE(__tsan_mutex_post_lock(l, __tsan_mutex_try_lock | __tsan_mutex_try_lock_failed, 0));
    return false;
}

/* Releases one taking (release at the last); the caller holds the lock. */
static inline void gg__rlock_release(gg__rlock *l)
{
    if (--l->depth != 0)
        return;
    GG__RLOCK_NOTE(__tsan_mutex_pre_unlock(l, 0));
    if (__builtin_expect(atomic_exchange_explicit(&l->word, 0, memory_order_release) & GG__RLOCK_SLEEPER, 0))
        gg__rlock_wake(l);
    GG__RLOCK_NOTE(__tsan_mutex_post_unlock(l, 0));
}

/* Whether this thread holds the lock (for contracts and tests). */
static inline bool gg__rlock_held_by_me(gg__rlock *l)
{
    return (atomic_load_explicit(&l->word, memory_order_relaxed) & ~GG__RLOCK_SLEEPER) == gg__rlock_self();
}

#endif
