/*
 * A program that unloads and reloads the CUDA driver and forks a child that
 * does the same, for `gpuguard run`'s test of several processes
 * (tests/cli/intercept_test.sh, case run_other_processes): the parent
 * loads libcuda.so.1 by name and allocates once, forks, the child loads it
 * twice with one allocation each, and after the child ends the parent
 * loads it again and allocates once more. Each prints "<who>: R1 R2", the
 * two cuMemAlloc_v2 results (no context: the driver's own error, unless
 * the plan injected one). Exits 0 when every load and the fork went, 1 if
 * not, 2 when it outlived its alarm.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* One load: dlopen by name, one cuMemAlloc_v2, dlclose. Its result, or -1
 * when the driver could not be loaded. */
static int load_and_allocate(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen(libcuda.so.1): %s\n", dlerror());
        return -1;
    }
    int (*alloc)(uint64_t *, size_t) = NULL;
    void *p = dlsym(lib, "cuMemAlloc_v2");
    memcpy(&alloc, &p, sizeof p);
    uint64_t out = 0;
    int result = alloc != NULL ? alloc(&out, 64) : -1;
    dlclose(lib);
    return result;
}

int main(void)
{
    alarm(60); /* a hang fails the test instead of stalling it */
    int first = load_and_allocate();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        int a = load_and_allocate();
        int b = load_and_allocate();
        printf("child: %d %d\n", a, b);
        exit(a < 0 || b < 0); /* exit, not _exit: the interposer writes the child's report */
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    int second = load_and_allocate();
    printf("parent: %d %d\n", first, second);
    return first < 0 || second < 0;
}
