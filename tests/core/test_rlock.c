/* The context's recursive lock (rlock.h): recursion by the holder, no
 * taking by another thread while held at any depth, mutual exclusion under
 * contention (the contended path: spin, then sleep until woken), and the
 * non-waiting try. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <time.h>

#include "common/rlock.h"

static void pause_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000 * 1000 };
    nanosleep(&ts, NULL);
}

/* Without the lock about a quarter of the increments are lost on a 2-core
 * machine; each round also re-takes the lock it holds, so a recursion
 * that released the lock early would lose updates as well. */
enum { THREADS = 4, ROUNDS = 100000 };

static gg__rlock counter_lock = GG__RLOCK_INIT;
static unsigned long counter; /* plain: only ever written under counter_lock */
static pthread_barrier_t start;

static void *add_rounds(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < ROUNDS; i++) {
        gg__rlock_take(&counter_lock);
        volatile unsigned long seen = counter;
        gg__rlock_take(&counter_lock); /* again, as a sticky error under the lock does */
        for (int k = 0; k < 4; k++)
            __asm__ volatile("" ::: "memory");
        gg__rlock_release(&counter_lock); /* depth 1: still held */
        counter = seen + 1;
        gg__rlock_release(&counter_lock);
    }
    return NULL;
}

Test(rlock, excludes_under_contention_with_recursion)
{
    pthread_t t[THREADS];
    cr_assert_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (int i = 0; i < THREADS; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, add_rounds, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    cr_assert_eq(counter, (unsigned long)THREADS * ROUNDS, "no increment lost under the lock");
}

static gg__rlock held_lock = GG__RLOCK_INIT;
static _Atomic int taken_by_other;
static _Atomic int tried_by_other = -1;

static void *take_held(void *arg)
{
    (void)arg;
    atomic_store(&tried_by_other, gg__rlock_try(&held_lock));
    gg__rlock_take(&held_lock); /* waits (sleeps): the test holds it */
    atomic_store(&taken_by_other, gg__rlock_held_by_me(&held_lock) ? 1 : 2);
    gg__rlock_release(&held_lock);
    return NULL;
}

Test(rlock, held_at_depth_three_waits_for_the_last_release)
{
    gg__rlock_init(&held_lock);
    gg__rlock_take(&held_lock);
    cr_assert(gg__rlock_try(&held_lock), "the holder takes it again without waiting");
    gg__rlock_take(&held_lock);
    cr_assert(gg__rlock_held_by_me(&held_lock));
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, take_held, NULL), 0);
    /* Long enough for the other thread to pass its spin and sleep. */
    pause_ms(50);
    cr_assert_eq(atomic_load(&tried_by_other), 0, "another thread's try fails while held");
    gg__rlock_release(&held_lock);
    gg__rlock_release(&held_lock);
    pause_ms(50);
    cr_assert_eq(atomic_load(&taken_by_other), 0, "taken while still held once");
    cr_assert(gg__rlock_held_by_me(&held_lock));
    gg__rlock_release(&held_lock); /* the third release frees it and wakes the sleeper */
    cr_assert_not(gg__rlock_held_by_me(&held_lock));
    pthread_join(t, NULL);
    cr_assert_eq(atomic_load(&taken_by_other), 1, "taken once released, and held by the taker");
    cr_assert(gg__rlock_try(&held_lock), "free again after the other thread's release");
    gg__rlock_release(&held_lock);
}
