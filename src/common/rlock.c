/* The contended paths of the context's recursive lock (rlock.h): a taker
 * that sleeps first sets the word's sleeper bit; a releaser that finds it
 * wakes one taker, which takes the lock with the bit set again (it cannot
 * know whether others sleep), so no sleeper is forgotten. */
#include "common/rlock.h"

#include <sched.h>
#include <time.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

_Thread_local _Alignas(8) char gg__rlock_me __attribute__((tls_model("initial-exec")));

_Static_assert(sizeof(uintptr_t) == 8 || sizeof(uintptr_t) == 4, "the futex word is a 32-bit half of the lock word");

void gg__rlock_init(gg__rlock *l)
{
    atomic_init(&l->word, 0);
    l->depth = 0;
    GG__RLOCK_NOTE(__tsan_mutex_create(l, __tsan_mutex_not_static));
}

void gg__rlock_fini(gg__rlock *l)
{
    (void)l;
    GG__RLOCK_NOTE(__tsan_mutex_destroy(l, 0));
}

#if defined(__linux__)
/* The futex: the 32 bits of the word that hold its low bits (the sleeper
 * bit and the low half of the holder's name). Any change to the word that
 * matters to a sleeper (the release, to 0) changes them. */
static uint32_t *futex_word(gg__rlock *l)
{
    uint32_t *halves = (uint32_t *)(void *)&l->word;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return sizeof(uintptr_t) == 8 ? halves + 1 : halves;
#else
    return halves;
#endif
}
#endif

/* Sleeps while the word's futex half is still `seen`'s (a spurious return
 * is harmless: the caller tests again). */
static void sleep_while(gg__rlock *l, uintptr_t seen)
{
#if defined(__linux__)
    syscall(SYS_futex, futex_word(l), FUTEX_WAIT_PRIVATE, (uint32_t)seen, NULL, NULL, 0);
#else
    (void)l;
    (void)seen;
    struct timespec ts = { 0, 50000 };
    nanosleep(&ts, NULL);
#endif
}

void gg__rlock_take_contended(gg__rlock *l, uintptr_t me)
{
    /* A short spin first: most sections are a few loads and stores. */
    for (int round = 0; round < 64; round++) {
        uintptr_t seen = 0;
        if (atomic_load_explicit(&l->word, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(&l->word, &seen, me, memory_order_acquire, memory_order_relaxed))
            return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ volatile("yield");
#endif
    }
    /* Held across a driver call, perhaps: mark a sleeper, so that the
     * release wakes one, and sleep. Once woken, take it with the mark
     * (other sleepers may remain: at worst one needless wake-up). */
    uintptr_t seen = atomic_load_explicit(&l->word, memory_order_relaxed);
    for (;;) {
        if (seen == 0) {
            if (atomic_compare_exchange_weak_explicit(&l->word, &seen, me | GG__RLOCK_SLEEPER, memory_order_acquire,
                                                      memory_order_relaxed))
                return;
            continue;
        }
        if (!(seen & GG__RLOCK_SLEEPER) &&
            !atomic_compare_exchange_weak_explicit(&l->word, &seen, seen | GG__RLOCK_SLEEPER, memory_order_relaxed,
                                                   memory_order_relaxed))
            continue; /* changed meanwhile: `seen` is the new value */
        sleep_while(l, seen | GG__RLOCK_SLEEPER);
        seen = atomic_load_explicit(&l->word, memory_order_relaxed);
    }
}

void gg__rlock_wake(gg__rlock *l)
{
#if defined(__linux__)
    syscall(SYS_futex, futex_word(l), FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
#else
    (void)l; /* the sleepers poll */
#endif
}
