/* The contended path of the spin locks (spin.h). */
#include "common/spin.h"

#include <sched.h>
#include <time.h>

void gg__spin_lock_contended(gg__spin *s)
{
    for (unsigned round = 0;; round++) {
        /* Read before exchanging: the line stays shared while it is held. */
        if (!atomic_load_explicit(&s->held, memory_order_relaxed) &&
            !atomic_exchange_explicit(&s->held, true, memory_order_acquire))
            return;
        if (round < 64) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            __asm__ volatile("yield");
#endif
        } else if (round < 1024) {
            sched_yield();
        } else {
            struct timespec ts = { 0, 50000 };
            nanosleep(&ts, NULL);
        }
    }
}
