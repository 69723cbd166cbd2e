/* Parking threads while the process exits (process_exit.h). */
#include "common/process_exit.h"

#include <time.h>
#include <unistd.h>

#include "common/pin.h"

_Atomic int gg__exit_phase_now;

static _Thread_local bool exiting_thread;
/* Threads parked so far: the exit handler gives up waiting for calls to
 * leave as soon as one parked. */
static _Atomic unsigned parked;

void gg__process_exit_begin(void)
{
    exiting_thread = true;
    atomic_store_explicit(&gg__exit_phase_now, GG__EXIT_RUNNING, memory_order_seq_cst);
}

void gg__process_exit_end(void)
{
    atomic_store_explicit(&gg__exit_phase_now, GG__EXIT_DONE, memory_order_seq_cst);
}

bool gg__process_exit_is_mine(void)
{
    return exiting_thread;
}

void gg__process_exit_park(void)
{
    if (gg__process_exit_phase() == GG__EXIT_NONE || exiting_thread)
        return;
    atomic_fetch_add_explicit(&parked, 1, memory_order_seq_cst);
    /* pause() returns after each signal this thread handles; the process's
     * end (exit's _exit) takes the thread with it. */
    for (;;)
        pause();
}

static long long elapsed_ms(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec) * 1000LL + (now.tv_nsec - start->tv_nsec) / 1000000;
}

bool gg__process_exit_drained(unsigned limit_ms)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    /* Short slices of gg__pins_wait_all, so that a parked thread (which
     * keeps its pins for ever) ends the wait at once. */
    while (!gg__pins_wait_all(1)) {
        if (atomic_load_explicit(&parked, memory_order_seq_cst) != 0 || elapsed_ms(&start) >= limit_ms)
            return false;
    }
    return atomic_load_explicit(&parked, memory_order_seq_cst) == 0;
}
