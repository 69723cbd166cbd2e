/* The spin locks of the handle table and the record pools (spin.h): mutual
 * exclusion under contention (the contended path: spin, yield, sleep), and
 * a held lock is taken by nobody else until released. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <time.h>

#include "common/spin.h"

/* Without the lock about a quarter of the increments are lost on a 2-core
 * machine (checked by hand with the lock calls removed). */
enum { THREADS = 4, ROUNDS = 200000 };

static gg__spin counter_lock = GG__SPIN_INIT;
static unsigned long counter; /* plain: only ever written under counter_lock */
static pthread_barrier_t start;

static void *add_rounds(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start); /* all at once: contention from the first round */
    for (int i = 0; i < ROUNDS; i++) {
        gg__spin_lock(&counter_lock);
        /* A read, a short pause, then the write: an update lost without
         * the lock shows in the total. */
        volatile unsigned long seen = counter;
        for (int k = 0; k < 4; k++)
            __asm__ volatile("" ::: "memory");
        counter = seen + 1;
        gg__spin_unlock(&counter_lock);
    }
    return NULL;
}

Test(spin, excludes_under_contention)
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

static gg__spin held_lock = GG__SPIN_INIT;
static _Atomic int taken_by_other;

static void *take_held(void *arg)
{
    (void)arg;
    gg__spin_lock(&held_lock); /* waits: the test holds it */
    atomic_store(&taken_by_other, 1);
    gg__spin_unlock(&held_lock);
    return NULL;
}

Test(spin, a_held_lock_waits_for_its_release)
{
    gg__spin_lock(&held_lock);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, take_held, NULL), 0);
    /* Long enough for the other thread to reach the sleeping stage. */
    struct timespec ts = { 0, 50 * 1000 * 1000 };
    nanosleep(&ts, NULL);
    cr_assert_eq(atomic_load(&taken_by_other), 0, "taken while held");
    gg__spin_unlock(&held_lock);
    pthread_join(t, NULL);
    cr_assert_eq(atomic_load(&taken_by_other), 1, "taken once released");
}
