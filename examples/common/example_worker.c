/*
 * The worker pattern. After a kernel's sticky error (illegal address, trap,
 * failed assert, a watchdog's launch timeout) the CUDA driver keeps the error
 * for every context of the process, and no new context can be made in it
 * (measured for the first three, the timeout documented so:
 * docs/DRIVER-FACTS.md); gpuguard says so with
 * GG_PROCESS_POISONED. The work then goes on in a new process: here a child
 * forked before the parent made any GPU call, so that it starts with nothing
 * inherited. (Re-executing the program, or posix_spawn of it, does as well.)
 */
#include "example_worker.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int example_in_worker(const char *program, int (*work)(void *arg), void *arg)
{
    /* What this process printed so far goes out once, not again from the
     * child's copy of the buffers. */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: cannot start a worker process: %s\n", program, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* exit, not _exit: stdio is flushed and gpuguard's exit handler runs. */
        exit(work(arg) & 0xff);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "%s: lost the worker process: %s\n", program, strerror(errno));
            return -1;
        }
    }
    if (WIFSIGNALED(status)) {
        /* Die the same way, so that a crash in the worker is a crash of the
         * program (for a shell, a CI job, gpuguard sweep). */
        int sig = WTERMSIG(status);
        fflush(NULL);
        signal(sig, SIG_DFL);
        raise(sig);
        fprintf(stderr, "%s: the worker process was killed by signal %d\n", program, sig);
        return -1;
    }
    return WEXITSTATUS(status);
}
