#include "common/fork.h"
#include "common/pin.h"
#include "common/process_exit.h"

#include <pthread.h>
#include <unistd.h>

_Atomic unsigned gg__fork_generation;
static _Atomic pid_t watched_pid;
static _Atomic bool initialized_in_this_process;
static _Atomic bool child_of_initialized;
static pthread_once_t watch_once = PTHREAD_ONCE_INIT;

static void on_fork_child(void)
{
    atomic_fetch_add(&gg__fork_generation, 1);
    atomic_store(&watched_pid, getpid());
    /* A child forked while its parent exits is not exiting itself: its
     * calls fail FORKED and return, they never park. */
    atomic_store(&gg__exit_phase_now, GG__EXIT_NONE);
    if (atomic_load(&initialized_in_this_process))
        atomic_store(&child_of_initialized, true);
}

/* The library's global locks are held across fork() so that the child never
 * inherits one locked by a thread that does not exist there. */
static void before_fork(void)
{
    gg__global_locks(true);
}

static void after_fork_parent(void)
{
    gg__global_locks(false);
}

static void after_fork_child(void)
{
    gg__global_locks(false);
    gg__pins_after_fork_child();
    on_fork_child();
}

static void install(void)
{
    atomic_store(&watched_pid, getpid());
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

void gg__fork_watch(void)
{
    pthread_once(&watch_once, install);
}

void gg__fork_check_pid(void)
{
    pid_t now = getpid();
    pid_t seen = atomic_load(&watched_pid);
    if (seen != 0 && seen != now)
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

void gg__global_locks(bool take)
{
    if (take) {
        gg__library_lock(true);
        gg__fault_lock(true);
        gg__context_list_lock(true);
        gg__object_locks(true);
        gg__handle_table_locks(true);
    } else {
        gg__handle_table_locks(false);
        gg__object_locks(false);
        gg__context_list_lock(false);
        gg__fault_lock(false);
        gg__library_lock(false);
    }
}
