/*
 * example_worker_test: example_in_worker hands back the worker's exit
 * status, and a worker killed by a signal kills its parent by the same one
 * (so that gpuguard sweep, a shell or CI sees a crash in a worker as a
 * crash of the program). Prints "example_worker: ok" when every check holds.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "example_worker.h"

static int returns_its_argument(void *arg)
{
    return *(int *)arg;
}

static int aborts(void *unused)
{
    (void)unused;
    signal(SIGABRT, SIG_DFL);
    abort();
}

/* Runs example_in_worker(aborts) in a child of this test: how that child ends. */
static int parent_of_an_aborting_worker(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int rc = example_in_worker("example_worker_test", aborts, NULL);
        _exit(rc == -1 ? 101 : 100); /* not reached when the signal is passed on */
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return status;
}

int main(void)
{
    int failures = 0;
    for (int want = 0; want <= 255; want += 85) {
        int got = example_in_worker("example_worker_test", returns_its_argument, &want);
        if (got != want) {
            printf("FAIL: a worker returning %d: example_in_worker gave %d\n", want, got);
            failures++;
        }
    }
    int status = parent_of_an_aborting_worker();
    if (status == -1 || !WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT) {
        printf("FAIL: the parent of an aborting worker ended with status %#x, not killed by SIGABRT\n",
               (unsigned)status);
        failures++;
    }
    if (failures == 0)
        printf("example_worker: ok\n");
    return failures ? 1 : 0;
}
