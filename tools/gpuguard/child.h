/*
 * Running a program under the gpuguard tool, and classifying how it ended.
 *
 * One runner and one classifier for every subcommand that runs a program:
 * `gpuguard sweep` (over gpuguard's own fault plans or over the interposer)
 * and `gpuguard run`. The runner sets the environment the caller asks for in
 * the child only, so the tool's own environment never changes.
 */
#ifndef GPUGUARD_TOOLS_CHILD_H
#define GPUGUARD_TOOLS_CHILD_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* How a run ended, from best to worst. */
typedef enum child_outcome {
    CHILD_TOLERATED, /* exit 0: the program carried on */
    CHILD_CLEAN,     /* a non-zero exit: the program reported and stopped */
    CHILD_CRASH,     /* killed by a signal other than SIGABRT */
    CHILD_ABORT,     /* SIGABRT */
    CHILD_HANG,      /* still running at the timeout (killed, with its process group) */
    CHILD_SANITIZER, /* a sanitizer reported an error on stderr (whatever the exit) */
    CHILD_OUTCOME_COUNT
} child_outcome;

/* "tolerated", "clean-exit", "CRASH", "ABORT", "HANG", "SANITIZER": the
 * upper-case ones are bugs in the program. */
extern const char *const child_outcome_names[CHILD_OUTCOME_COUNT];

/* True for the outcomes that are bugs: a crash, an abort, a hang, a
 * sanitizer report. */
bool child_outcome_is_bug(child_outcome what);

/* One environment variable to set in the child (value NULL: unset it). */
typedef struct child_env {
    const char *name;
    const char *value;
} child_env;

typedef struct child_spec {
    char *const *command;   /* argv, NULL-terminated; looked up in PATH */
    const child_env *env;   /* applied in order, in the child only */
    size_t env_count;
    double timeout_s;       /* > 0: kill the child's process group at the deadline (HANG);
                               0: wait for ever, the child stays in the terminal's process
                               group and the tool ignores SIGINT and SIGQUIT meanwhile */
    const char *stderr_path; /* the child's stderr goes there, scanned for sanitizer reports
                                and removed; NULL: the child inherits the tool's stderr */
    bool echo_stderr;       /* with stderr_path: copy what the child wrote to the tool's stderr */
    bool keep_stderr;       /* with stderr_path: leave the file for the caller (to read and remove) */
    bool quiet_stdout;      /* the child's stdout goes to /dev/null */
} child_spec;

typedef struct child_result {
    child_outcome what;
    int code;        /* the exit status, or the signal number (CRASH, ABORT) */
    int wait_status; /* waitpid's status (0 for a HANG) */
} child_result;

/* What child_run returns when there is no end to classify. */
#define CHILD_RUN_FAILED (-1)      /* fork or waitpid failed */
#define CHILD_RUN_CANNOT_EXEC (-2) /* the command could not be executed: missing,
                                      not executable, a directory (no run was made) */

/* Runs spec->command to its end (or its deadline) and classifies the end.
 * Returns 0; or, with the reason printed (prefixed by `who`),
 * CHILD_RUN_CANNOT_EXEC when the command could not be executed (as
 * child_say_cannot_run says it), CHILD_RUN_FAILED when the child could not
 * be forked or waited for. */
int child_run(const char *who, const child_spec *spec, child_result *result);

/* "WHO: cannot run PROGRAM: REASON" on stderr, REASON the OS's for `error`
 * (an errno of execve; "Is a directory" for a directory): every command
 * says a program that cannot be started this one way. */
void child_say_cannot_run(const char *who, const char *program, int error);

/* The outcome of a child that ended with waitpid status `wait_status` (or
 * was killed at its deadline: `hung`), `sanitizer` when its stderr held a
 * sanitizer report (ASan and UBSan exit with an ordinary status, which would
 * otherwise pass for a clean exit). */
child_outcome child_classify(int wait_status, bool hung, bool sanitizer, int *code);

/* The JSON document in the file at `path`, or NULL when it is missing, cannot
 * be read or does not parse. */
cJSON *child_read_json_file(const char *path);

#endif /* GPUGUARD_TOOLS_CHILD_H */
