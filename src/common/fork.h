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

/* Hidden (see gg__lib): read on every call. */
extern _Atomic unsigned gg__fork_generation __attribute__((visibility("hidden")));

/* Installs the atfork handler once and remembers the pid. */
void gg__fork_watch(void);
/* Slow-path check: bumps the generation if the pid changed without atfork. */
void gg__fork_check_pid(void);
/* True in a process forked from one where gg_init had succeeded. */
bool gg__forked_from_initialized(void);
void gg__fork_note_initialized(bool initialized);

/* Takes (true) or releases (false) every global lock of the library, in one
 * fixed order; none of them is ever held while taking another. */
void gg__global_locks(bool take);
void gg__handle_table_locks(bool take);
void gg__object_locks(bool take);
void gg__context_list_lock(bool take);
void gg__fault_lock(bool take);
void gg__library_lock(bool take); /* gg_init / gg_shutdown's lock */

static inline unsigned gg__fork_generation_now(void)
{
    return atomic_load_explicit(&gg__fork_generation, memory_order_relaxed);
}

#endif
