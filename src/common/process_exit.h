/*
 * What a thread inside gpuguard sees while another thread runs exit().
 *
 * The promise (README, "When the process exits"): a call never returns a
 * result that the exit made. A thread that is inside gpuguard when exit()
 * starts, or that calls in afterwards, either finishes its call as it would
 * have without the exit, or blocks until the process ends ("parks"): it
 * never returns into the program's code with an error the exit caused, so
 * the program never runs its failure path (a print, a second exit()) while
 * the first exit runs. Nothing a parked or busy thread holds is freed: the
 * exit handler releases gpuguard's records only when no thread is inside a
 * call, and otherwise leaves everything to the operating system.
 *
 * Phases: RUNNING from the start of the exit handler until it has finished;
 * DONE after. In RUNNING only calls that the exit would fail park (they
 * find the backend cleared); in DONE every failure parks, since the
 * drivers' own exit code (which runs after gpuguard's handler) may fail any
 * call still in flight.
 */
#ifndef GPUGUARD_PROCESS_EXIT_H
#define GPUGUARD_PROCESS_EXIT_H

#include <stdatomic.h>
#include <stdbool.h>

typedef enum gg__exit_phase {
    GG__EXIT_NONE = 0,
    GG__EXIT_RUNNING, /* the exit handler runs */
    GG__EXIT_DONE,    /* it has finished; the rest of exit() runs */
} gg__exit_phase;

extern _Atomic int gg__exit_phase_now;

static inline gg__exit_phase gg__process_exit_phase(void)
{
    return (gg__exit_phase)atomic_load_explicit(&gg__exit_phase_now, memory_order_seq_cst);
}

/* Marks the calling thread as the one running exit() and enters RUNNING. */
void gg__process_exit_begin(void);

/* Enters DONE. */
void gg__process_exit_end(void);

/* True on the thread that runs exit(): it never parks (it would block the
 * exit itself); its later calls fail with GG_NOT_INITIALIZED naming the exit. */
bool gg__process_exit_is_mine(void);

/* Parks the calling thread for the rest of the process's life when the
 * process is exiting (any phase) and this is not the exiting thread;
 * returns at once otherwise. A parked thread keeps what it holds (pins,
 * locks): nothing it uses is released under it. */
void gg__process_exit_park(void);

/* Waits, at most `limit_ms`, until no thread is inside a gpuguard call;
 * gives up at once when a thread has parked (it will never leave).
 * True when no call is in progress: the caller may release everything. */
bool gg__process_exit_drained(unsigned limit_ms);

#endif /* GPUGUARD_PROCESS_EXIT_H */
