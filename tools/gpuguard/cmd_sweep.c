/*
 * gpuguard sweep [options] -- COMMAND [ARGS...]
 *
 * Tests a program's error paths the way SQLite and curl test theirs: run it
 * once to count the driver calls it makes per operation, then once per
 * (operation, call, error) with a fault plan that fails exactly that call,
 * and classify each run. A program that handles every failure exits cleanly
 * (or tolerates it); one that crashes, aborts or hangs is a bug to fix.
 *
 * The plan travels in GPUGUARD_FAULTS and the counts come back through
 * GPUGUARD_FAULT_REPORT, so COMMAND needs nothing but gpuguard itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"

#define MAX_OPS 64
#define MAX_ERRORS 8

typedef enum outcome {
    OUTCOME_TOLERATED, /* exit 0: the program carried on */
    OUTCOME_CLEAN,     /* a non-zero exit: the program reported and stopped */
    OUTCOME_CRASH,     /* killed by a signal other than SIGABRT */
    OUTCOME_ABORT,     /* SIGABRT */
    OUTCOME_HANG,      /* still running at the timeout */
    OUTCOME_SANITIZER, /* a sanitizer reported an error (whatever the exit) */
    OUTCOME_COUNT
} outcome;

static const char *const outcome_names[OUTCOME_COUNT] = { "tolerated", "clean-exit", "CRASH", "ABORT", "HANG",
                                                           "SANITIZER" };

typedef struct sweep_options {
    const char *ops[MAX_OPS];
    int op_count;            /* 0 = every operation the program uses */
    const char *errors[MAX_ERRORS];
    int error_count;
    bool immediate, async;
    long max_runs;           /* 0 = no cap */
    double timeout_s;
    const char *json_path;
    bool verbose;
    char **command;
} sweep_options;

typedef struct run_result {
    outcome what;
    int code;                /* exit status or signal number */
    bool fired;              /* the plan's rule hit a call */
    long leaked;             /* live objects in the report (-1 unknown) */
} run_result;

static void sweep_usage(FILE *out)
{
    fprintf(out,
            "usage: gpuguard sweep [options] -- COMMAND [ARGS...]\n"
            "\n"
            "Runs COMMAND once to count its driver calls, then once per operation, call\n"
            "and error with a fault plan that fails exactly that call, and classifies each\n"
            "run: tolerated (exit 0), clean-exit (non-zero exit), CRASH (signal), ABORT,\n"
            "HANG (past the timeout), SANITIZER (a sanitizer report on stderr); 'leak'\n"
            "marks runs that ended with live objects.\n"
            "\n"
            "  --ops LIST        operations to sweep, comma-separated (default: all used)\n"
            "  --errors LIST     errors to inject (default: out_of_memory,illegal_address)\n"
            "  --mode MODE       immediate, async or both (default immediate); async\n"
            "                    applies to errors that kill a context\n"
            "  --max-runs N      stop after N injected runs\n"
            "  --timeout SEC     per run (default 60)\n"
            "  --json FILE       also write every run as JSON\n"
            "  -v, --verbose     show each run's output\n"
            "  -h, --help        show this help\n"
            "\n"
            "Exit status: 0 no run crashed, aborted, hung or tripped a sanitizer; 1 some\n"
            "did, or the counting run failed; 2 bad usage.\n");
}

static int split_list(char *text, const char **out, int max, const char *what)
{
    int n = 0;
    for (char *item = strtok(text, ","); item != NULL; item = strtok(NULL, ",")) {
        if (n == max) {
            fprintf(stderr, "gpuguard sweep: too many %s (at most %d)\n", what, max);
            return -1;
        }
        out[n++] = item;
    }
    if (n == 0)
        fprintf(stderr, "gpuguard sweep: empty list of %s\n", what);
    return n ? n : -1;
}

/* Returns -1 to go on, else the exit status to return at once. */
static int parse_options(int argc, char **argv, sweep_options *opt)
{
    opt->immediate = true;
    opt->timeout_s = 60;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            sweep_usage(stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0) {
            opt->verbose = true;
            continue;
        }
        if (value == NULL) {
            fprintf(stderr, "gpuguard sweep: %s needs a value (or unknown option)\n\n", arg);
            sweep_usage(stderr);
            return CLI_EXIT_USAGE;
        }
        char *end = NULL;
        if (strcmp(arg, "--ops") == 0) {
            if ((opt->op_count = split_list(argv[i + 1], opt->ops, MAX_OPS, "operations")) < 0)
                return CLI_EXIT_USAGE;
        } else if (strcmp(arg, "--errors") == 0) {
            if ((opt->error_count = split_list(argv[i + 1], opt->errors, MAX_ERRORS, "errors")) < 0)
                return CLI_EXIT_USAGE;
        } else if (strcmp(arg, "--mode") == 0) {
            opt->immediate = strcmp(value, "immediate") == 0 || strcmp(value, "both") == 0;
            opt->async = strcmp(value, "async") == 0 || strcmp(value, "both") == 0;
            if (!opt->immediate && !opt->async) {
                fprintf(stderr, "gpuguard sweep: --mode must be immediate, async or both, not '%s'\n", value);
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--max-runs") == 0) {
            opt->max_runs = strtol(value, &end, 10);
            if (*value == '\0' || *end != '\0' || opt->max_runs < 1) {
                fprintf(stderr, "gpuguard sweep: --max-runs must be a whole number >= 1, not '%s'\n", value);
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--timeout") == 0) {
            opt->timeout_s = strtod(value, &end);
            if (*value == '\0' || *end != '\0' || !(opt->timeout_s > 0) || opt->timeout_s > 86400) {
                fprintf(stderr, "gpuguard sweep: --timeout must be seconds > 0, not '%s'\n", value);
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--json") == 0) {
            opt->json_path = value;
        } else {
            fprintf(stderr, "gpuguard sweep: unknown option '%s'\n\n", arg);
            sweep_usage(stderr);
            return CLI_EXIT_USAGE;
        }
        i++;
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "gpuguard sweep: no command given (put it after --)\n\n");
        sweep_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    opt->command = argv + i + 1;
    if (opt->error_count == 0) {
        opt->errors[0] = "out_of_memory";
        opt->errors[1] = "illegal_address";
        opt->error_count = 2;
    }
    return -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static cJSON *read_json_file(const char *path)
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

/* Runs the command with `plan` in GPUGUARD_FAULTS; fills *result and, when
 * `report_out` is set, hands back the parsed fault report. */
/* True when the run's stderr holds a sanitizer report: ASan and UBSan exit
 * with an ordinary status, which would otherwise pass for a clean exit. */
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

static int run_once(const sweep_options *opt, const char *plan, const char *report_path, run_result *result,
                    cJSON **report_out)
{
    char stderr_path[256];
    snprintf(stderr_path, sizeof stderr_path, "%s.stderr", report_path);
    unlink(report_path);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("gpuguard sweep: fork");
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0); /* its own process group: a timeout kills its children too */
        setenv("GPUGUARD_FAULTS", plan, 1);
        setenv("GPUGUARD_FAULT_REPORT", report_path, 1);
        int err = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (err >= 0) {
            dup2(err, STDERR_FILENO);
            close(err);
        }
        if (!opt->verbose) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0) {
                dup2(null, STDOUT_FILENO);
                close(null);
            }
        }
        execvp(opt->command[0], opt->command);
        fprintf(stderr, "gpuguard sweep: cannot run %s: %s\n", opt->command[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    double deadline = now_s() + opt->timeout_s;
    int status = 0;
    bool hung = false;
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid)
            break;
        if (done < 0 && errno != EINTR) {
            perror("gpuguard sweep: waitpid");
            return -1;
        }
        if (!hung && now_s() > deadline) {
            hung = true;
            kill(-pid, SIGKILL);
        }
        struct timespec pause = { 0, 5 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    memset(result, 0, sizeof *result);
    if (hung) {
        result->what = OUTCOME_HANG;
    } else if (WIFSIGNALED(status)) {
        result->code = WTERMSIG(status);
        result->what = result->code == SIGABRT ? OUTCOME_ABORT : OUTCOME_CRASH;
    } else {
        result->code = WEXITSTATUS(status);
        result->what = result->code == 0 ? OUTCOME_TOLERATED : OUTCOME_CLEAN;
    }
    if (sanitizer_reported(stderr_path, opt->verbose) && result->what != OUTCOME_HANG)
        result->what = OUTCOME_SANITIZER;
    unlink(stderr_path);
    cJSON *report = read_json_file(report_path);
    cJSON *live = cJSON_GetObjectItemCaseSensitive(report, "live_objects");
    result->leaked = cJSON_IsNumber(live) ? (long)live->valuedouble : -1;
    cJSON *rules = cJSON_GetObjectItemCaseSensitive(report, "rules");
    cJSON *fired = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rules, 0), "fired");
    result->fired = cJSON_IsNumber(fired) && fired->valuedouble > 0;
    if (report_out != NULL)
        *report_out = report;
    else
        cJSON_Delete(report);
    return 0;
}

static bool wanted(const sweep_options *opt, const char *op)
{
    if (opt->op_count == 0)
        return true;
    for (int i = 0; i < opt->op_count; i++)
        if (strcmp(opt->ops[i], op) == 0)
            return true;
    return false;
}

/* Errors that kill a context: only they make sense latched asynchronously. */
static bool is_sticky_error(const char *error)
{
    return strcmp(error, "illegal_address") == 0 || strcmp(error, "launch_failed") == 0 ||
           strcmp(error, "launch_timeout") == 0;
}

int cmd_sweep(int argc, char **argv)
{
    sweep_options opt;
    memset(&opt, 0, sizeof opt);
    int early = parse_options(argc, argv, &opt);
    if (early >= 0)
        return early;

    char report_path[] = "/tmp/gpuguard-sweep-XXXXXX";
    int fd = mkstemp(report_path);
    if (fd < 0) {
        perror("gpuguard sweep: mkstemp");
        return CLI_EXIT_FAILED;
    }
    close(fd);

    /* 1. The counting run: an empty plan counts every call. */
    run_result base;
    cJSON *counts = NULL;
    if (run_once(&opt, "{\"rules\":[]}", report_path, &base, &counts) != 0 || base.what != OUTCOME_TOLERATED ||
        counts == NULL) {
        fprintf(stderr, "gpuguard sweep: the counting run of %s %s%s (%s %d); the program must succeed without "
                "faults and use gpuguard\n", opt.command[0], counts ? "failed" : "wrote no fault report",
                counts ? "" : " (does it call gg_init?)", outcome_names[base.what], base.code);
        cJSON_Delete(counts);
        unlink(report_path);
        return CLI_EXIT_FAILED;
    }
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(counts, "calls");

    cJSON *json_runs = opt.json_path ? cJSON_CreateArray() : NULL;
    long totals[OUTCOME_COUNT] = { 0 }, leaks = 0, not_reached = 0, runs = 0;
    int ops_visited = 0;
    long calls_visited = 0;
    printf("%-20s %6s %-16s %-9s %-11s %s\n", "operation", "call", "error", "mode", "outcome", "detail");
    bool capped = false;
    for (const cJSON *op = calls ? calls->child : NULL; op != NULL && !capped; op = op->next) {
        long count = cJSON_IsNumber(op) ? (long)op->valuedouble : 0;
        if (count <= 0 || !wanted(&opt, op->string))
            continue;
        ops_visited++;
        calls_visited += count;
        for (long call = 1; call <= count && !capped; call++) {
            for (int e = 0; e < opt.error_count && !capped; e++) {
                for (int mode = 0; mode < 2 && !capped; mode++) {
                    bool async = mode == 1;
                    if ((async && (!opt.async || !is_sticky_error(opt.errors[e]))) || (!async && !opt.immediate))
                        continue;
                    char plan[256];
                    snprintf(plan, sizeof plan, "{\"rules\":[{\"op\":\"%s\",\"nth\":%ld,\"error\":\"%s\"%s}]}",
                             op->string, call, opt.errors[e], async ? ",\"mode\":\"async\"" : "");
                    run_result r;
                    if (run_once(&opt, plan, report_path, &r, NULL) != 0) {
                        cJSON_Delete(counts);
                        cJSON_Delete(json_runs);
                        unlink(report_path);
                        return CLI_EXIT_FAILED;
                    }
                    runs++;
                    totals[r.what]++;
                    leaks += r.leaked > 0;
                    not_reached += !r.fired;
                    char detail[96];
                    snprintf(detail, sizeof detail, "%s %d%s%s", r.what == OUTCOME_CRASH || r.what == OUTCOME_ABORT
                                                                      ? "signal" : r.what == OUTCOME_HANG ? "after"
                                                                                                          : "exit",
                             r.what == OUTCOME_HANG ? (int)opt.timeout_s : r.code, r.leaked > 0 ? ", leak" : "",
                             r.fired ? "" : ", not reached");
                    printf("%-20s %6ld %-16s %-9s %-11s %s\n", op->string, call, opt.errors[e],
                           async ? "async" : "immediate", outcome_names[r.what], detail);
                    if (json_runs != NULL) {
                        cJSON *j = cJSON_CreateObject();
                        cJSON_AddStringToObject(j, "op", op->string);
                        cJSON_AddNumberToObject(j, "call", (double)call);
                        cJSON_AddStringToObject(j, "error", opt.errors[e]);
                        cJSON_AddStringToObject(j, "mode", async ? "async" : "immediate");
                        cJSON_AddStringToObject(j, "outcome", outcome_names[r.what]);
                        cJSON_AddNumberToObject(j, "code", r.code);
                        cJSON_AddBoolToObject(j, "fired", r.fired);
                        cJSON_AddNumberToObject(j, "leaked_objects", (double)r.leaked);
                        cJSON_AddItemToArray(json_runs, j);
                    }
                    capped = opt.max_runs > 0 && runs >= opt.max_runs;
                }
            }
        }
    }
    cJSON_Delete(counts);
    unlink(report_path);

    long bad = totals[OUTCOME_CRASH] + totals[OUTCOME_ABORT] + totals[OUTCOME_HANG] + totals[OUTCOME_SANITIZER];
    printf("\nsweep of %s: %d operation(s), %ld call(s), %ld run(s)%s: %ld tolerated, %ld clean exits, "
           "%ld with leaks, %ld not reached; %ld crashes, %ld aborts, %ld hangs, %ld sanitizer reports\n",
           opt.command[0], ops_visited, calls_visited, runs, capped ? " (capped by --max-runs)" : "",
           totals[OUTCOME_TOLERATED], totals[OUTCOME_CLEAN], leaks, not_reached, totals[OUTCOME_CRASH],
           totals[OUTCOME_ABORT], totals[OUTCOME_HANG], totals[OUTCOME_SANITIZER]);
    if (json_runs != NULL) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "command", opt.command[0]);
        cJSON_AddItemToObject(root, "runs", json_runs);
        cJSON *summary = cJSON_AddObjectToObject(root, "summary");
        for (int o = 0; o < OUTCOME_COUNT; o++)
            cJSON_AddNumberToObject(summary, outcome_names[o], (double)totals[o]);
        cJSON_AddNumberToObject(summary, "leaks", (double)leaks);
        cJSON_AddNumberToObject(summary, "not_reached", (double)not_reached);
        char *text = cJSON_Print(root);
        FILE *f = fopen(opt.json_path, "w");
        if (f == NULL || text == NULL || fputs(text, f) < 0) {
            fprintf(stderr, "gpuguard sweep: cannot write %s: %s\n", opt.json_path, strerror(errno));
            bad++;
        }
        if (f != NULL)
            fclose(f);
        free(text);
        cJSON_Delete(root);
    }
    return bad ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}
