/* The contended paths of the context's recursive lock (rlock.h): the state
 * word is 0 free, 1 held, 2 held with a taker that may sleep; a releaser
 * that finds 2 wakes one taker, which takes it as 2 again (it cannot know
 * whether others sleep), so no sleeper is forgotten. */
#include "common/rlock.h"

#include <sched.h>
#include <time.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

_Thread_local char gg__rlock_me __attribute__((tls_model("initial-exec")));

void gg__rlock_init(gg__rlock *l)
{
    atomic_init(&l->state, 0);
    atomic_init(&l->owner, NULL);
    l->depth = 0;
}

/* Sleeps while the state is still `seen` (a spurious return is harmless:
 * the caller tests again). */
static void sleep_while(gg__rlock *l, uint32_t seen)
{
#if defined(__linux__)
    syscall(SYS_futex, &l->state, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
#else
    (void)l;
    (void)seen;
    struct timespec ts = { 0, 50000 };
    nanosleep(&ts, NULL);
#endif
}

void gg__rlock_take_contended(gg__rlock *l)
{
    /* A short spin first: most sections are a few loads and stores. */
    for (int round = 0; round < 64; round++) {
        uint32_t free_state = 0;
        if (atomic_load_explicit(&l->state, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(&l->state, &free_state, 1, memory_order_acquire,
                                                    memory_order_relaxed))
            return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ volatile("yield");
#endif
    }
    /* Held across a driver call, perhaps: sleep, marking the state 2 so
     * the release wakes us. Taking it as 2 is safe: at worst one needless
     * wake-up. */
    while (atomic_exchange_explicit(&l->state, 2, memory_order_acquire) != 0)
        sleep_while(l, 2);
}

void gg__rlock_wake(gg__rlock *l)
{
#if defined(__linux__)
    syscall(SYS_futex, &l->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
#else
    (void)l; /* the sleepers poll */
#endif
}
