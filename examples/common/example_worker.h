/* The worker pattern for sticky GPU faults (see example_worker.c). */
#ifndef GG_EXAMPLE_WORKER_H
#define GG_EXAMPLE_WORKER_H

/* What a worker returns (its exit status) when gpuguard answered
 * GG_PROCESS_POISONED: its GPU work must go on in a new process. */
#define EXAMPLE_WORKER_POISONED 3

/* Runs work(arg) in a child process forked now and returns the child's exit
 * status (work's return value, 0..255). Call it before any gpuguard call in
 * this process: a child forked after gg_init cannot use the GPU (GG_FORKED),
 * while one forked before starts afresh, as a new process must after a
 * sticky fault (GG_PROCESS_POISONED). work runs its own gg_init and
 * gg_shutdown. When the child is killed by a signal, this process is killed
 * by the same signal (a crash stays a crash for whoever runs the program);
 * when it cannot fork, it says so on stderr, prefixed by `program`, and
 * returns -1. */
int example_in_worker(const char *program, int (*work)(void *arg), void *arg);

#endif
