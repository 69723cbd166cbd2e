/*
 * Running a program and classifying its end (see child.h).
 */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *const child_outcome_names[CHILD_OUTCOME_COUNT] = { "tolerated", "clean-exit", "CRASH", "ABORT", "HANG",
                                                               "SANITIZER" };

bool child_outcome_is_bug(child_outcome what)
{
    return what == CHILD_CRASH || what == CHILD_ABORT || what == CHILD_HANG || what == CHILD_SANITIZER;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

cJSON *child_read_json_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *text = NULL;
    size_t size = 0, used = 0;
    for (;;) {
        if (used + 4096 + 1 > size) {
            char *grown = realloc(text, size = size * 2 + 8192);
            if (grown == NULL)
                break;
            text = grown;
        }
        size_t n = fread(text + used, 1, 4096, f);
        used += n;
        if (n == 0)
            break;
    }
    fclose(f);
    if (text == NULL)
        return NULL;
    text[used] = '\0';
    cJSON *json = cJSON_Parse(text);
    free(text);
    return json;
}

/* True when the file holds a sanitizer report; copies it to stderr on `echo`. */
static bool sanitizer_reported(const char *stderr_path, bool echo)
{
    FILE *f = fopen(stderr_path, "r");
    if (f == NULL)
        return false;
    bool found = false;
    char line[1024];
    while (fgets(line, sizeof line, f) != NULL) {
        if (echo)
            fputs(line, stderr);
        found = found || strstr(line, "Sanitizer") != NULL || strstr(line, "runtime error:") != NULL;
    }
    fclose(f);
    return found;
}

child_outcome child_classify(int wait_status, bool hung, bool sanitizer, int *code)
{
    *code = 0;
    if (hung)
        return CHILD_HANG;
    child_outcome what;
    if (WIFSIGNALED(wait_status)) {
        *code = WTERMSIG(wait_status);
        what = *code == SIGABRT ? CHILD_ABORT : CHILD_CRASH;
    } else {
        *code = WEXITSTATUS(wait_status);
        what = *code == 0 ? CHILD_TOLERATED : CHILD_CLEAN;
    }
    return sanitizer ? CHILD_SANITIZER : what;
}

/* In the child, after fork: never returns. An exec that fails sends its
 * errno down `report_fd` (closed on a successful exec), for the parent to
 * say why in the tool's own words. */
static void exec_child(const child_spec *spec, const struct sigaction *old_int, const struct sigaction *old_quit,
                       int report_fd)
{
    if (spec->timeout_s > 0) {
        setpgid(0, 0); /* its own process group: a timeout kills its children too */
    } else {
        sigaction(SIGINT, old_int, NULL);
        sigaction(SIGQUIT, old_quit, NULL);
    }
    for (size_t i = 0; i < spec->env_count; i++) {
        if (spec->env[i].value != NULL)
            setenv(spec->env[i].name, spec->env[i].value, 1);
        else
            unsetenv(spec->env[i].name);
    }
    if (spec->stderr_path != NULL) {
        int err = open(spec->stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (err >= 0) {
            dup2(err, STDERR_FILENO);
            close(err);
        }
    }
    if (spec->quiet_stdout) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            close(null);
        }
    }
    execvp(spec->command[0], spec->command);
    int failure = errno;
    if (report_fd < 0 || write(report_fd, &failure, sizeof failure) != (ssize_t)sizeof failure)
        fprintf(stderr, "gpuguard: cannot run %s: %s\n", spec->command[0], strerror(failure));
    _exit(127);
}

/* Polls until the child ends or its deadline passes (then kills its group). */
static int wait_with_deadline(const char *who, pid_t pid, double timeout_s, int *status, bool *hung)
{
    double deadline = now_s() + timeout_s;
    for (;;) {
        pid_t done = waitpid(pid, status, WNOHANG);
        if (done == pid)
            return 0;
        if (done < 0 && errno != EINTR) {
            fprintf(stderr, "%s: waitpid: %s\n", who, strerror(errno));
            return -1;
        }
        if (!*hung && now_s() > deadline) {
            *hung = true;
            kill(-pid, SIGKILL);
        }
        struct timespec pause = { 0, 5 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
}

void child_say_cannot_run(const char *who, const char *program, int error)
{
    /* execve says EACCES for a directory: the shells' "Is a directory" is
     * the clearer reason. */
    struct stat st;
    if (error == EACCES && strchr(program, '/') != NULL && stat(program, &st) == 0 && S_ISDIR(st.st_mode))
        error = EISDIR;
    fprintf(stderr, "%s: cannot run %s: %s\n", who, program, strerror(error));
}

int child_run(const char *who, const child_spec *spec, child_result *result)
{
    memset(result, 0, sizeof *result);
    /* In the foreground (no deadline) the terminal's ^C and ^\ are the
     * program's to handle: the tool ignores them until it ends, as system()
     * does, and the child gets the tool's own dispositions back. */
    struct sigaction ignore, old_int, old_quit;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    bool foreground = !(spec->timeout_s > 0);
    if (foreground) {
        sigaction(SIGINT, &ignore, &old_int);
        sigaction(SIGQUIT, &ignore, &old_quit);
    }
    if (spec->stderr_path != NULL)
        unlink(spec->stderr_path);
    /* The exec's failure comes back through a close-on-exec pipe: nothing
     * when the program started, its errno when it could not. */
    int report[2] = { -1, -1 };
    if (pipe2(report, O_CLOEXEC) != 0)
        report[0] = report[1] = -1;
    fflush(NULL);
    pid_t pid = fork();
    int fork_errno = errno;
    if (pid == 0) {
        if (report[0] >= 0)
            close(report[0]);
        exec_child(spec, &old_int, &old_quit, report[1]);
    }
    if (report[1] >= 0)
        close(report[1]);
    int rc = 0, status = 0, exec_errno = 0;
    bool hung = false;
    if (pid > 0 && report[0] >= 0) {
        ssize_t n;
        while ((n = read(report[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
            ;
        if (n != (ssize_t)sizeof exec_errno)
            exec_errno = 0;
    }
    if (report[0] >= 0)
        close(report[0]);
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", who, strerror(fork_errno));
        rc = CHILD_RUN_FAILED;
    } else if (exec_errno != 0) {
        /* It never ran: reap it (it exits at once), drop the stderr file it
         * opened, and say why, as the OS said. */
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (spec->stderr_path != NULL)
            unlink(spec->stderr_path);
        child_say_cannot_run(who, spec->command[0], exec_errno);
        rc = CHILD_RUN_CANNOT_EXEC;
    } else if (foreground) {
        while (waitpid(pid, &status, 0) < 0) {
            if (errno != EINTR) {
                fprintf(stderr, "%s: waitpid: %s\n", who, strerror(errno));
                rc = CHILD_RUN_FAILED;
                break;
            }
        }
    } else {
        setpgid(pid, pid); /* (also in the child: whichever runs first) */
        rc = wait_with_deadline(who, pid, spec->timeout_s, &status, &hung);
    }
    if (foreground) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
    }
    if (rc != 0)
        return rc;
    bool sanitizer = false;
    if (spec->stderr_path != NULL) {
        sanitizer = sanitizer_reported(spec->stderr_path, spec->echo_stderr) && !hung;
        if (!spec->keep_stderr)
            unlink(spec->stderr_path);
    }
    result->wait_status = hung ? 0 : status;
    result->what = child_classify(status, hung, sanitizer, &result->code);
    return 0;
}
