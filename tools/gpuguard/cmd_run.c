/*
 * gpuguard run [--faults PLAN|@FILE] [--report PATH] [--driver PATH] [-v] -- COMMAND [ARGS...]
 *
 * Runs an unmodified program over gpuguard's interposing driver library, so
 * that a fault plan reaches programs that call the CUDA driver themselves
 * (PyCUDA, CuPy, the CUDA runtime, your own C): the way to reproduce, on
 * demand, a failure a sweep found. The plan is checked before the program
 * starts; the program's exit status is the command's; which rules fired, at
 * which driver call, is said on stderr when any did (or with --verbose).
 */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "child.h"
#include "cli.h"
#include "intercept.h"

#define WHO "gpuguard run"

typedef struct run_options {
    const char *faults;      /* --faults: JSON text or @FILE (NULL: the environment's, if any) */
    const char *report_path; /* --report (NULL: the environment's, else a temporary file) */
    const char *driver;      /* --driver (NULL: resolved, see intercept_prepare) */
    const char *hip_runtime; /* --hip-runtime (NULL: resolved, see intercept_prepare) */
    bool verbose;
    char **command;
} run_options;

static void run_usage(FILE *out)
{
    fprintf(out,
            "usage: gpuguard run [options] -- COMMAND [ARGS...]\n"
            "\n"
            "Runs COMMAND over gpuguard's interposing driver library: its directory goes\n"
            "first in LD_LIBRARY_PATH, so every libcuda.so.1 and libamdhip64.so.5 the\n"
            "program links or dlopens by name is the interposer, which forwards each call\n"
            "to the real CUDA driver or HIP runtime (entry points from cuGetProcAddress\n"
            "included) and fails the calls the fault plan chooses. COMMAND needs no change\n"
            "and no gpuguard.\n"
            "\n"
            "  --faults PLAN     a fault plan: JSON text, or @FILE (default: the\n"
            "                    environment's GPUGUARD_INTERCEPT_FAULTS, else none). The\n"
            "                    format of gg_fault_set_plan, with \"function\": \"cuMemAlloc\"\n"
            "                    to choose a driver function (a base name matches all its\n"
            "                    variants, \"cuMemAlloc_v2\" that one only); e.g.\n"
            "                    '{\"rules\":[{\"function\":\"cuMemAlloc\",\"nth\":2,\"error\":\"out_of_memory\"}]}'\n"
            "  --report PATH     keep the interposer's report there (JSON: calls per driver\n"
            "                    function, what each rule matched and fired), the first\n"
            "                    process's to call the driver; any other's: PATH.<pid>\n"
            "  --driver PATH     the driver to forward to (default: GPUGUARD_INTERCEPT_DRIVER;\n"
            "                    with GPUGUARD_BACKEND=sim gpuguard's simulated driver; else\n"
            "                    GPUGUARD_CUDA_LIBRARY; else the loader's libcuda.so.1; none\n"
            "                    with GPUGUARD_BACKEND=hip)\n"
            "  --hip-runtime PATH  the HIP runtime (libamdhip64.so.5) to forward to (default:\n"
            "                    GPUGUARD_INTERCEPT_HIP_RUNTIME; with GPUGUARD_BACKEND=sim the\n"
            "                    simulator's HIP face; else GPUGUARD_HIP_LIBRARY; else the\n"
            "                    first libamdhip64.so.5 in the system's places: Debian's\n"
            "                    multiarch directory, /opt/rocm/lib). One of the two is\n"
            "                    enough: the other's calls then fail as without it, and\n"
            "                    the tool says so\n"
            "  -v, --verbose     say which driver and plan are used, and what each rule did\n"
            "  -h, --help        show this help\n"
            "\n"
            "After the run, each rule that fired is named on stderr with the driver call\n"
            "it failed (nothing is printed when none fired, unless --verbose), and so is\n"
            "a library the program called that there was none of.\n"
            "\n"
            "The interposer presents only the driver functions the driver exports: a build\n"
            "of it per CUDA line, chosen by asking the driver which of the newer functions\n"
            "it exports (--verbose names it); GPUGUARD_INTERCEPT_LINE=NAME chooses one\n"
            "(cuda11, cuda12.0, ..., full; auto: ask the driver).\n"
            "\n"
            "Exit status: COMMAND's (killed by a signal: gpuguard dies of the same signal);\n"
            "2 when COMMAND was not run: bad usage (an unknown option, a missing value, a\n"
            "fault plan that does not parse: the message names the option, and the rule and\n"
            "the field; a --report whose folder cannot be written; a GPUGUARD_BACKEND\n"
            "gpuguard does not know), no interposer, neither a CUDA driver nor a HIP\n"
            "runtime; 127 when COMMAND cannot be executed (missing, not executable, a\n"
            "directory: 'gpuguard run: cannot run COMMAND:' and the system's reason, as\n"
            "'gpuguard sweep' says it).\n");
}

/* Returns -1 to go on, else the exit status to return at once. */
static int parse_options(int argc, char **argv, run_options *opt)
{
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            run_usage(stdout);
            return CLI_EXIT_OK;
        }
        if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0) {
            opt->verbose = true;
            continue;
        }
        const char **slot = strcmp(arg, "--faults") == 0   ? &opt->faults
                            : strcmp(arg, "--report") == 0 ? &opt->report_path
                            : strcmp(arg, "--driver") == 0 ? &opt->driver
                            : strcmp(arg, "--hip-runtime") == 0 ? &opt->hip_runtime
                                                           : NULL;
        if (slot == NULL) {
            fprintf(stderr, WHO ": unknown option '%s'%s\n\n", arg,
                    arg[0] == '-' ? "" : " (put the command after --)");
            run_usage(stderr);
            return CLI_EXIT_USAGE;
        }
        if (i + 1 >= argc || strcmp(argv[i + 1], "--") == 0 || argv[i + 1][0] == '\0') {
            fprintf(stderr, WHO ": %s needs a value\n\n", arg);
            run_usage(stderr);
            return CLI_EXIT_USAGE;
        }
        *slot = argv[++i];
    }
    if (i + 1 >= argc) {
        fprintf(stderr, WHO ": no command given (put it after --)\n\n");
        run_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    opt->command = argv + i + 1;
    return -1;
}

/* The text of FILE (malloc'd), or NULL with the reason on stderr. */
static char *read_text_file(const char *path, const char *what)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t size = 0, used = 0;
    if (f != NULL) {
        for (;;) {
            if (used + 4096 + 1 > size) {
                char *grown = realloc(text, size = size * 2 + 8192);
                if (grown == NULL) {
                    free(text);
                    fclose(f);
                    fprintf(stderr, WHO ": out of memory reading %s\n", path);
                    return NULL;
                }
                text = grown;
            }
            size_t n = fread(text + used, 1, 4096, f);
            used += n;
            if (n == 0)
                break;
        }
        bool failed = ferror(f);
        fclose(f);
        if (!failed) {
            text[used] = '\0';
            if (strlen(text) == used)
                return text;
            fprintf(stderr, WHO ": %s %s holds a NUL byte: not a JSON text\n", what, path);
            free(text);
            return NULL;
        }
        errno = EIO;
    }
    fprintf(stderr, WHO ": cannot read %s %s: %s\n", what, path, strerror(errno));
    free(text);
    return NULL;
}

/* The plan to pass (malloc'd; NULL *plan for none), checked; -1 when it is
 * unreadable or wrong (said on stderr). */
static int load_plan(const run_options *opt, const intercept_setup *setup, char **plan)
{
    const char *source = opt->faults, *origin = "--faults";
    *plan = NULL;
    if (source == NULL) {
        source = getenv(INTERCEPT_ENV_FAULTS);
        origin = INTERCEPT_ENV_FAULTS;
        if (source == NULL || source[0] == '\0')
            return 0;
    }
    char *text = source[0] == '@' ? read_text_file(source + 1, "the fault plan") : strdup(source);
    if (text == NULL) {
        if (source[0] != '@')
            fprintf(stderr, WHO ": out of memory\n");
        return -1;
    }
    char message[512];
    if (!intercept_plan_check(setup, text, message, sizeof message)) {
        /* An unknown error name: the ones there are (the format's own
         * table), unless the parser's message lists them already. */
        char errors[256], hint[300] = "";
        cli_fault_error_list(errors, sizeof errors);
        if (strstr(message, "unknown error") != NULL && strstr(message, errors) == NULL)
            snprintf(hint, sizeof hint, " (the errors: %s)", errors);
        fprintf(stderr, WHO ": %s%s%s: %s%s\n", origin, source[0] == '@' ? " " : "", source[0] == '@' ? source : "",
                message, hint);
        free(text);
        return -1;
    }
    *plan = text;
    return 0;
}

/* An absolute path for the report whose folder exists and is writable (the
 * program may change directory), or -1 with the reason on stderr. */
static int report_location(const char *path, char *out, size_t size)
{
    char cwd[PATH_MAX] = "";
    if (path[0] != '/' && getcwd(cwd, sizeof cwd) == NULL) {
        fprintf(stderr, WHO ": cannot tell the current directory: %s\n", strerror(errno));
        return -1;
    }
    if (snprintf(out, size, "%s%s%s", cwd, cwd[0] ? "/" : "", path) >= (int)size) {
        fprintf(stderr, WHO ": the report path is too long: %s\n", path);
        return -1;
    }
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%s", out);
    const char *dir = dirname(folder);
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, WHO ": cannot write the report %s: its folder %s: %s\n", path, dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Rule `index` of the plan as compact JSON (malloc'd), or NULL. */
static char *rule_text(const cJSON *plan_json, int index)
{
    const cJSON *rules = cJSON_IsArray(plan_json) ? plan_json : cJSON_GetObjectItemCaseSensitive(plan_json, "rules");
    const cJSON *rule = cJSON_GetArrayItem(rules, index);
    return rule ? cJSON_PrintUnformatted(rule) : NULL;
}

static const char *ordinal_suffix(long n)
{
    if (n % 100 >= 11 && n % 100 <= 13)
        return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* Says how COMMAND ended, on stderr. */
static void describe_end(const run_options *opt, const child_result *end)
{
    if (WIFSIGNALED(end->wait_status))
        fprintf(stderr, WHO ": %s was killed by signal %d (%s)\n", opt->command[0], end->code, strsignal(end->code));
    else
        fprintf(stderr, WHO ": %s exited with status %d\n", opt->command[0], end->code);
}

/* What the interposer reported: every rule that fired (all rules, and the
 * calls, with --verbose), then how COMMAND ended. Nothing when no rule fired
 * and --verbose is off. */
static void describe_report(const run_options *opt, const char *plan, const char *report_path,
                            const child_result *end)
{
    cJSON *report = child_read_json_file(report_path);
    cJSON *plan_json = plan ? cJSON_Parse(plan) : NULL;
    bool any_fired = false;
    const char *plan_error = intercept_plan_error(report);
    if (plan_error != NULL)
        fprintf(stderr, WHO ": the interposer refused the fault plan and injected nothing: %s\n", plan_error);
    if (report == NULL) {
        if (opt->verbose || plan != NULL)
            fprintf(stderr, WHO ": the interposer left no report, so it cannot say what it injected (%s did not "
                    "load libcuda.so.1 by name, or ended before the interposer wrote it)\n", opt->command[0]);
    } else {
        char missing[1024];
        if (intercept_missing_library(report, missing, sizeof missing))
            fprintf(stderr, WHO ": %s\n", missing);
        const cJSON *rules = cJSON_GetObjectItemCaseSensitive(report, "rules");
        int count = cJSON_GetArraySize(rules);
        for (int i = 0; i < count; i++) {
            intercept_rule_report r = intercept_rule(report, i);
            if (r.fired == 0 && !opt->verbose)
                continue;
            char *text = rule_text(plan_json, i);
            if (r.fired == 0) {
                fprintf(stderr, WHO ": rule %d %s never fired (it matched %ld call(s))\n", i, text ? text : "",
                        r.matched);
            } else {
                any_fired = true;
                char which[64] = "";
                if (r.first_fired_match > 0)
                    snprintf(which, sizeof which, " (its %ld%s matching call)", r.first_fired_match,
                             ordinal_suffix(r.first_fired_match));
                fprintf(stderr, WHO ": rule %d %s fired %ld time(s), first at %s%s\n", i, text ? text : "", r.fired,
                        r.first_fired_call ? r.first_fired_call : "(a call the report does not name)", which);
            }
            free(text);
        }
        if (opt->verbose) {
            long total = 0;
            int functions = 0;
            const cJSON *calls = cJSON_GetObjectItemCaseSensitive(report, "calls");
            for (const cJSON *c = calls ? calls->child : NULL; c != NULL; c = c->next)
                if (cJSON_IsNumber(c)) {
                    total += (long)c->valuedouble;
                    functions++;
                }
            fprintf(stderr, WHO ": %s made %ld driver call(s) to %d function(s)\n", opt->command[0], total,
                    functions);
        }
    }
    /* The interposer's report is the first process's: any other process of
     * COMMAND that called the driver counted its calls and applied the plan
     * on its own, in a report of its own. */
    size_t others = intercept_process_reports(report_path, false);
    if (others > 0 && (opt->verbose || plan != NULL))
        fprintf(stderr, WHO ": %zu other process(es) of %s called the driver too, each with the plan applied to "
                "its own calls from its first (their reports: %s.<pid>); the above is the first process's\n",
                others, opt->command[0], report_path);
    if (any_fired || opt->verbose)
        describe_end(opt, end);
    cJSON_Delete(plan_json);
    cJSON_Delete(report);
}

/* Ends the tool as COMMAND ended: the same exit status, or the same signal
 * (without a core file of the tool's own). */
static int exit_like(const child_result *end)
{
    if (!WIFSIGNALED(end->wait_status))
        return WEXITSTATUS(end->wait_status);
    int sig = WTERMSIG(end->wait_status);
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
    fflush(NULL);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    return 128 + sig; /* a signal whose default is to carry on (SIGCHLD...): say it the shell's way */
}

int cmd_run(int argc, char **argv)
{
    run_options opt;
    memset(&opt, 0, sizeof opt);
    int early = parse_options(argc, argv, &opt);
    if (early >= 0)
        return early;
    if (!cli_backend_env_usable(WHO))
        return CLI_EXIT_USAGE;

    char *plan = NULL;
    const char *user_report = opt.report_path ? opt.report_path : getenv(INTERCEPT_ENV_REPORT);
    char report_path[PATH_MAX + 64];
    bool temporary = false; /* report_path is a temporary file of ours, to remove */
    bool cannot_exec = false; /* COMMAND could not be executed (said): 127, as a shell says it */
    intercept_setup setup;
    memset(&setup, 0, sizeof setup);
    if (user_report == NULL || user_report[0] == '\0') {
        if (!intercept_temp_path(WHO, "run", report_path, sizeof report_path))
            goto out;
        temporary = true;
    } else if (!cli_output_path_usable(WHO, opt.report_path ? "--report" : INTERCEPT_ENV_REPORT, user_report) ||
               report_location(user_report, report_path, sizeof report_path) != 0) {
        goto out;
    }
    if (intercept_prepare(WHO, opt.driver, opt.hip_runtime, &setup) != 0 || load_plan(&opt, &setup, &plan) != 0)
        goto out;
    if (opt.verbose) {
        intercept_describe_setup(WHO, &setup);
        fprintf(stderr, WHO ": fault plan: %s; report: %s\n", plan ? plan : "none", report_path);
    }
    if (!temporary) {
        unlink(report_path); /* an old report must not pass for this run's */
        intercept_process_reports(report_path, true);
    }
    child_env env[INTERCEPT_ENV_COUNT];
    size_t env_count = intercept_environment(&setup, plan, report_path, env);
    child_spec spec = { .command = opt.command, .env = env, .env_count = env_count };
    child_result end;
    int ran = child_run(WHO, &spec, &end);
    if (ran == CHILD_RUN_CANNOT_EXEC)
        cannot_exec = true;
    if (ran != 0)
        goto out;
    describe_report(&opt, plan, report_path, &end);
    if (temporary) {
        unlink(report_path);
        intercept_process_reports(report_path, true);
    }
    intercept_release(&setup);
    free(plan);
    return exit_like(&end);
out:
    /* COMMAND was not run. */
    if (temporary)
        unlink(report_path);
    intercept_release(&setup);
    free(plan);
    return cannot_exec ? CLI_EXIT_CANNOT_EXEC : CLI_EXIT_USAGE;
}
