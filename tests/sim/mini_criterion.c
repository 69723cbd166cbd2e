/* Runner for mini_criterion.h: forks one process per test. Usage:
 * test_sim [substring-filter]. Exit status 0 iff every test passed. */
#include "mini_criterion.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static struct mc_test *g_head, **g_tail = &g_head;

void mc_register(struct mc_test *t)
{
    *g_tail = t;
    g_tail = &t->next;
}

void mc_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "[----] %s:%d: Assertion failed: %s\n[----]   ", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    exit(1);
}

static int run_one(const struct mc_test *t)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 0;
    if (pid == 0) {
        alarm(t->opts.timeout ? (unsigned)t->opts.timeout : 120u);
        t->fn();
        exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (t->opts.signal)
        return WIFSIGNALED(status) && WTERMSIG(status) == t->opts.signal;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
    int ran = 0, failed = 0;
    for (const struct mc_test *t = g_head; t; t = t->next) {
        char full[256];
        snprintf(full, sizeof full, "%s::%s", t->suite, t->name);
        if (argc > 1 && !strstr(full, argv[1]))
            continue;
        int ok = run_one(t);
        ran++;
        failed += !ok;
        printf("[%s] %s\n", ok ? "PASS" : "FAIL", full);
        fflush(stdout);
    }
    printf("[====] Synthesis: Tested: %d | Passing: %d | Failing: %d\n", ran, ran - failed, failed);
    return failed ? 1 : 0;
}
