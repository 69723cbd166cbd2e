#include "common/fork.h"
#include "common/pin.h"
#include "common/process_exit.h"

#include <pthread.h>
#include <unistd.h>

_Atomic unsigned gg__fork_generation;
_Atomic pid_t gg__fork_watched_pid;
static _Atomic bool initialized_in_this_process;
static _Atomic bool child_of_initialized;
static pthread_once_t watch_once = PTHREAD_ONCE_INIT;

static void on_fork_child(void)
{
    atomic_fetch_add(&gg__fork_generation, 1);
    atomic_store(&gg__fork_watched_pid, getpid());
    /* A child forked while its parent exits is not exiting itself: its
     * calls fail FORKED and return, they never park. */
    atomic_store(&gg__exit_phase_now, GG__EXIT_NONE);
    if (atomic_load(&initialized_in_this_process))
        atomic_store(&child_of_initialized, true);
}

/* The library's global locks are held across fork() so that the child never
 * inherits one locked by a thread that does not exist there. */
/* The library's global locks (gg__fork_watch's argument): set before the
 * handlers are installed (atomic: the handlers run on whichever thread
 * forks). */
typedef void global_locks_fn(bool take);
static _Atomic(global_locks_fn *) global_locks;

static void take_global_locks(bool take)
{
    atomic_load_explicit(&global_locks, memory_order_acquire)(take);
}

static void before_fork(void)
{
    take_global_locks(true);
}

static void after_fork_parent(void)
{
    take_global_locks(false);
}

static void after_fork_child(void)
{
    take_global_locks(false);
    gg__pins_after_fork_child();
    on_fork_child();
}

static void install(void)
{
    atomic_store(&gg__fork_watched_pid, getpid());
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

void gg__fork_watch(void (*locks)(bool take))
{
    /* Stored before install registers the handlers that read it; the first
     * call's is kept. */
    global_locks_fn *none = NULL;
    atomic_compare_exchange_strong_explicit(&global_locks, &none, locks, memory_order_release,
                                            memory_order_relaxed);
    pthread_once(&watch_once, install);
}

void gg__fork_pid_changed(void)
{
    on_fork_child();
}

bool gg__forked_from_initialized(void)
{
    gg__fork_check_pid();
    return atomic_load(&child_of_initialized);
}

void gg__fork_note_initialized(bool initialized)
{
    atomic_store(&initialized_in_this_process, initialized);
}
