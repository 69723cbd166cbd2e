/*
 * Time and waiting. Every host-side wait in the simulator (stream and event
 * synchronization, hung or slow kernels, watchdog deadlines) waits on one
 * condition variable, woken by sim_progress_notify() whenever anything
 * completes or is cancelled. One cv keeps waits on mixed conditions (work
 * done OR context poisoned OR stream discarded) free of lost wake-ups; the
 * simulator's scale makes the extra wake-ups irrelevant.
 */
#include "sim_core.h"

#include <errno.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
/* Threads inside sim_progress_wait: a notify with none skips the global
 * lock, so that completing work (every op, every fast-mode call) does not
 * serialise threads that work on unrelated streams. */
static atomic_int g_waiters;

static void init_cv(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&g_cv, &a);
    pthread_condattr_destroy(&a);
}

struct timespec sim_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t;
}

struct timespec sim_ts_add_us(struct timespec t, uint64_t us)
{
    t.tv_sec += (time_t)(us / 1000000u);
    t.tv_nsec += (long)(us % 1000000u) * 1000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

bool sim_ts_passed(struct timespec deadline)
{
    struct timespec n = sim_now();
    return n.tv_sec > deadline.tv_sec ||
           (n.tv_sec == deadline.tv_sec && n.tv_nsec >= deadline.tv_nsec);
}

double sim_ts_diff_ms(struct timespec a, struct timespec b)
{
    return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

/* The notifier changes state, then reads g_waiters; a waiter counts itself,
 * then reads the state (pred). The two fences order each pair, so either
 * the notifier sees the waiter (and broadcasts under the lock, which the
 * waiter holds until it sleeps) or the waiter's pred sees the new state. */
void sim_progress_notify(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&g_waiters, memory_order_relaxed) == 0)
        return;
    pthread_once(&g_once, init_cv);
    pthread_mutex_lock(&g_lock);
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_lock);
}

bool sim_progress_wait(bool (*pred)(void *), void *arg, const struct timespec *deadline)
{
    if (pred(arg))
        return true;
    pthread_once(&g_once, init_cv);
    pthread_mutex_lock(&g_lock);
    atomic_fetch_add_explicit(&g_waiters, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    bool ok;
    while (!(ok = pred(arg))) {
        if (deadline) {
            int rc = pthread_cond_timedwait(&g_cv, &g_lock, deadline);
            if (rc == ETIMEDOUT) {
                ok = pred(arg);
                break;
            }
        } else {
            pthread_cond_wait(&g_cv, &g_lock);
        }
    }
    atomic_fetch_sub_explicit(&g_waiters, 1, memory_order_relaxed);
    pthread_mutex_unlock(&g_lock);
    return ok;
}
