/*
 * Fork detection. NVIDIA: any use of CUDA in a child after fork() and before
 * exec() is undefined, so every object inherited by a child is FORKED and no
 * driver call is made for it. Noticed by pthread_atfork; a pid comparison on
 * the slow paths catches forks that bypass atfork handlers.
 */
#ifndef GPUGUARD_FORK_H
#define GPUGUARD_FORK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>
#include <unistd.h>

/* Hidden (see gg__lib): read on every call. */
extern _Atomic unsigned gg__fork_generation __attribute__((visibility("hidden")));

/* Installs the atfork handler once and remembers the pid. `locks` takes
 * (true) or releases (false) every global lock of the library; the
 * handlers take them all around a fork (library.c's gg__global_locks: the
 * fork module knows no other). The first call's `locks` is kept. */
void gg__fork_watch(void (*locks)(bool take));
/* The pid the handlers last saw (0 before gg__fork_watch); hidden, read
 * by gg__fork_check_pid on every destroy. */
extern _Atomic pid_t gg__fork_watched_pid __attribute__((visibility("hidden")));
/* gg__fork_check_pid's slow half: the pid changed without atfork; bumps
 * the generation and remembers the new pid. */
void gg__fork_pid_changed(void);
/* Slow-path check: bumps the generation if the pid changed without atfork.
 * Inline: every destroy asks (one getpid). */
static inline void gg__fork_check_pid(void)
{
    pid_t now = getpid();
    pid_t seen = atomic_load(&gg__fork_watched_pid);
    if (__builtin_expect(seen != 0 && seen != now, 0))
        gg__fork_pid_changed();
}
/* True in a process forked from one where gg_init had succeeded. */
bool gg__forked_from_initialized(void);
void gg__fork_note_initialized(bool initialized);

static inline unsigned gg__fork_generation_now(void)
{
    return atomic_load_explicit(&gg__fork_generation, memory_order_relaxed);
}

#endif
