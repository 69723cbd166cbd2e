/*
 * Runner of the Criterion stand-in (criterion/criterion.h here), linked
 * into every test executable of a ThreadSanitizer build.
 *
 * Each test runs in its own forked process, as with Criterion: suite .init,
 * test .init, the test, test .fini, suite .fini, then exit(0) (1 if a
 * cr_expect* failed). A failed cr_assert* prints its message and _exit(1)s.
 * The parent kills a test that outlives its timeout (test's, else suite's,
 * else --timeout=S, else 300 s), prints failures, and ends with Criterion's
 * synthesis line; the exit status is 1 iff a test failed.
 *
 * Options: --filter=GLOB (or --filter GLOB, or $CRITERION_TEST_PATTERN)
 * matched against "suite/name" with fnmatch; --verbose[=N] also prints
 * [RUN ]/[PASS]/[SKIP] lines; --timeout=S; --list. Others (--jobs=1, ...)
 * are ignored: tests always run one at a time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* FNM_EXTMATCH, MAP_ANONYMOUS */
#endif
#include "criterion/criterion.h"
#include "criterion/redirect.h"

#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct crs_test *g_tests;   /* sorted by suite, then name, as Criterion does */
static struct crs_suite *g_suites;
static int g_verbose;
static int g_report_fd = 2;        /* the real stderr, even when fd 2 is redirected */
static atomic_int g_expect_failed; /* in the test process */
static FILE *g_captured[3];        /* redirected fd 1 / fd 2 */
static struct {                    /* shared with the test process */
    int skipped;
    char reason[512];
} *g_shared;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char buf[4096]; /* one write: lines from several threads stay whole */
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0 && write(g_report_fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1) < 0)
        return;
}

void crs_register_test(struct crs_test *t)
{
    struct crs_test **p = &g_tests;
    while (*p && (strcmp((*p)->suite, t->suite) < 0 ||
                  (strcmp((*p)->suite, t->suite) == 0 && strcmp((*p)->name, t->name) < 0)))
        p = &(*p)->next;
    t->next = *p;
    *p = t;
}

void crs_register_suite(struct crs_suite *s)
{
    s->next = g_suites;
    g_suites = s;
}

static void report(const char *file, int line, const char *expr, const char *fmt, va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const char *m = msg + (msg[0] == ' '); /* the space CRS_CHECK_ put first */
    say("[----] %s:%d: Assertion Failed\n%s%s%s%s%s%s", file, line,
        *expr ? "[----]   The expression " : "", expr, *expr ? " is false.\n" : "",
        *m ? "[----]   " : "", m, *m ? "\n" : "");
}

void crs_assert_failed(const char *file, int line, const char *expr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(file, line, expr, fmt, ap);
    va_end(ap);
    fflush(stdout);
    _exit(1);
}

void crs_expect_failed(const char *file, int line, const char *expr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(file, line, expr, fmt, ap);
    va_end(ap);
    atomic_store(&g_expect_failed, 1);
}

void crs_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_shared->reason, sizeof g_shared->reason, fmt + (fmt[0] == ' '), ap);
    va_end(ap);
    g_shared->skipped = 1;
    fflush(stdout);
    _exit(0);
}

void crs_log(const char *tag, const char *fmt, ...)
{
    char msg[2048];
    if (!g_verbose && strcmp(tag, "[----] ") == 0)
        return; /* cr_log_info: as Criterion, only when verbose */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    say("%s%s\n", tag, msg);
}

int crs_strcmp(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b ? 0 : a == NULL ? -1 : 1;
    return strcmp(a, b);
}

static void redirect(int fd)
{
    if (fd == 2 && g_report_fd == 2)
        g_report_fd = dup(2);
    fflush(fd == 1 ? stdout : stderr);
    FILE *f = tmpfile();
    if (f == NULL || dup2(fileno(f), fd) < 0)
        crs_assert_failed(__FILE__, __LINE__, "", "cannot redirect fd %d: %s", fd, strerror(errno));
    g_captured[fd] = f;
}

void cr_redirect_stdout(void) { redirect(1); }
void cr_redirect_stderr(void) { redirect(2); }

bool crs_output_eq(int fd, const char *expected)
{
    struct stat st;
    fflush(fd == 1 ? stdout : stderr);
    if (g_captured[fd] == NULL || fstat(fd, &st) != 0) {
        say("[----] fd %d was not redirected (cr_redirect_std%s)\n", fd, fd == 1 ? "out" : "err");
        return false;
    }
    char *got = calloc(1, (size_t)st.st_size + 1);
    bool same = got && pread(fd, got, (size_t)st.st_size, 0) == st.st_size &&
                (size_t)st.st_size == strlen(expected) && memcmp(got, expected, strlen(expected)) == 0;
    if (!same)
        say("[----]   std%s was: \"%s\"\n", fd == 1 ? "out" : "err", got ? got : "?");
    free(got);
    return same;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

enum outcome { PASSED, FAILED, CRASHED, SKIPPED };

static void run_in_child(const struct crs_test *t, const struct crs_options *s)
{
    if (s->init)
        s->init();
    if (t->opts.init)
        t->opts.init();
    t->fn();
    if (t->opts.fini)
        t->opts.fini();
    if (s->fini)
        s->fini();
    exit(atomic_load(&g_expect_failed) ? 1 : 0);
}

static enum outcome run_one(const struct crs_test *t, const struct crs_options *s, double timeout)
{
    const char *su = t->suite, *na = t->name;
    if (t->opts.disabled || s->disabled) {
        if (g_verbose)
            say("[SKIP] %s::%s: Test is disabled\n", su, na);
        return SKIPPED;
    }
    timeout = t->opts.timeout > 0 ? t->opts.timeout : s->timeout > 0 ? s->timeout : timeout;
    int want_signal = t->opts.signal ? t->opts.signal : s->signal;
    int want_code = t->opts.exit_code ? t->opts.exit_code : s->exit_code;
    if (g_verbose)
        say("[RUN ] %s::%s\n", su, na);
    g_shared->skipped = 0;
    fflush(NULL);
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        say("[FAIL] %s::%s: fork: %s\n", su, na, strerror(errno));
        return FAILED;
    }
    if (pid == 0)
        run_in_child(t, s);

    int status = 0;
    bool timed_out = false;
    for (long sleep_us = 1000;;) {
        pid_t r = waitpid(pid, &status, timed_out ? 0 : WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            say("[FAIL] %s::%s: waitpid: %s\n", su, na, strerror(errno));
            return FAILED;
        }
        if (!timed_out && now() - t0 > timeout) {
            kill(pid, SIGKILL);
            timed_out = true;
            continue;
        }
        nanosleep(&(struct timespec){ 0, sleep_us * 1000 }, NULL);
        sleep_us = sleep_us < 50000 ? sleep_us * 2 : sleep_us;
    }
    double secs = now() - t0;

    if (timed_out) {
        say("[FAIL] %s::%s: Timed out. (%.2fs)\n", su, na, secs);
        return FAILED;
    }
    if (g_shared->skipped) {
        if (g_verbose)
            say("[SKIP] %s::%s: %s\n", su, na, g_shared->reason);
        return SKIPPED;
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) != want_signal) {
        say("[----] %s:%d: Unexpected signal %d (%s) in this test\n", t->file, t->line,
            WTERMSIG(status), strsignal(WTERMSIG(status)));
        say("[FAIL] %s::%s: CRASH!\n", su, na);
        return CRASHED;
    }
    if (WIFEXITED(status) && want_signal) {
        say("[----] %s:%d: exited with status %d; expected signal %d (%s)\n", t->file, t->line,
            WEXITSTATUS(status), want_signal, strsignal(want_signal));
        say("[FAIL] %s::%s: (%.2fs)\n", su, na, secs);
        return FAILED;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) != want_code) {
        if (WEXITSTATUS(status) != 1) /* 1: an assertion, already reported */
            say("[----] %s:%d: exited with status %d%s\n", t->file, t->line, WEXITSTATUS(status),
                WEXITSTATUS(status) == 66 ? " (ThreadSanitizer's: see its report above)" : "");
        say("[FAIL] %s::%s: (%.2fs)\n", su, na, secs);
        return FAILED;
    }
    if (g_verbose)
        say("[PASS] %s::%s: (%.2fs)\n", su, na, secs);
    return PASSED;
}

int main(int argc, char **argv)
{
    const char *filter = getenv("CRITERION_TEST_PATTERN");
    double timeout = 300;
    bool list = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--filter=", 9) == 0)
            filter = a + 9;
        else if (strcmp(a, "--filter") == 0 && i + 1 < argc)
            filter = argv[++i];
        else if (strncmp(a, "--timeout=", 10) == 0)
            timeout = atof(a + 10);
        else if (strncmp(a, "--verbose", 9) == 0)
            g_verbose = 1;
        else if (strcmp(a, "--list") == 0 || strcmp(a, "-l") == 0)
            list = true;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("usage: %s [--filter=SUITE/NAME-GLOB] [--verbose] [--timeout=S] [--list]\n"
                   "(Criterion stand-in for ThreadSanitizer builds; other options are ignored)\n",
                   argv[0]);
            return 0;
        }
    }
    g_shared = mmap(NULL, sizeof *g_shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (g_shared == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    if (g_verbose)
        say("[----] Criterion stand-in for ThreadSanitizer builds (tests/support/tsan_criterion)\n");

    int tested = 0, passing = 0, failing = 0, crashing = 0;
    for (const struct crs_test *t = g_tests; t; t = t->next) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", t->suite, t->name);
        if (filter && fnmatch(filter, path, FNM_EXTMATCH) != 0)
            continue;
        if (list) {
            printf("%s::%s\n", t->suite, t->name);
            continue;
        }
        static const struct crs_options none;
        const struct crs_options *s = &none;
        for (const struct crs_suite *su = g_suites; su; su = su->next)
            if (strcmp(su->name, t->suite) == 0)
                s = &su->opts;
        enum outcome o = run_one(t, s, timeout);
        tested += o != SKIPPED;
        passing += o == PASSED;
        failing += o == FAILED || o == CRASHED;
        crashing += o == CRASHED;
    }
    if (list)
        return 0;
    say("[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | Crashing: %d \n", tested, passing,
        failing, crashing);
    return failing ? 1 : 0;
}
