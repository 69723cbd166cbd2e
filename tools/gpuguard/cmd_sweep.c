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
 * GPUGUARD_FAULT_REPORT, so COMMAND needs nothing but gpuguard itself. The
 * report names the plan in force, so a program that replaces the sweep's
 * plan (gg_fault_set_plan, gg_fault_clear) is caught rather than counted as
 * passing. --host-alloc fails gpuguard's host allocations instead, one per
 * run (GPUGUARD_FAIL_HOST_ALLOC), --sim-host-alloc the simulated driver's
 * (GPUGUARD_SIM_FAIL_HOST_ALLOC); --pairs fails two calls of different
 * operations in one run; --cleanup also fails every release the driver sees.
 * --intercept sweeps an unmodified program's driver calls instead, through
 * the interposing driver library (sweep_intercept.c).
 *
 * A sweep cannot pass empty: it fails when the counting run sees no calls,
 * when no injected run is made, or when no injected run reached its fault.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "child.h"
#include "cli.h"
#include "sweep.h"

/* How one injected run ended, with what its fault report says. */
typedef struct run_result {
    child_outcome what;
    int code;                /* exit status or signal number */
    bool fired;              /* the plan's first rule (or the host allocation) hit */
    bool fired_all;          /* every rule of the plan hit (pairs) */
    bool replaced;           /* the report names another plan than the sweep's */
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
            "  --ops LIST        operations to sweep, comma-separated (default: all used):\n"
            "                    the fault plans' \"op\" names (alloc, launch, copy_htod...)\n"
            "  --errors LIST     errors to inject (default: out_of_memory,illegal_address):\n"
            "                    the fault plans' \"error\" names\n"
            "  --mode MODE       immediate, async or both (default immediate); async\n"
            "                    applies to errors that kill a context (illegal_address,\n"
            "                    launch_failed, launch_timeout): async alone needs one\n"
            "  --host-alloc      fail gpuguard's host allocations instead, each in turn\n"
            "                    (GPUGUARD_FAIL_HOST_ALLOC=1, 2, ...)\n"
            "  --sim-host-alloc  the same for the simulated driver's host allocations\n"
            "                    (GPUGUARD_SIM_FAIL_HOST_ALLOC; needs GPUGUARD_BACKEND=sim)\n"
            "  --pairs           fail two calls per run: the n-th of one operation and\n"
            "                    the m-th of another (immediate; needs --max-runs: the\n"
            "                    pairs are sampled evenly down to that many runs)\n"
            "  --cleanup         in every injected run, also fail every release that\n"
            "                    reaches the driver (frees, destroys, module unloads)\n"
            "  --fail-on-leak    a run that ends with live objects fails the sweep\n"
            "  --max-runs N      stop after N injected runs\n"
            "  --timeout SEC     per run, more than 0 and at most 86400 (default 60)\n"
            "  --json FILE       also write every run as JSON\n"
            "  -v, --verbose     show each run's output\n"
            "  -h, --help        show this help\n"
            "\n"
            "Programs that do not use gpuguard (PyCUDA, CuPy, the CUDA runtime, HIP, C):\n"
            "  --intercept       run COMMAND over gpuguard's interposing driver library\n"
            "                    (see 'gpuguard run --help') and sweep every driver call\n"
            "                    it makes: once per driver function, call and error, with\n"
            "                    a plan failing exactly that call, reported by function\n"
            "                    and call number. Goes with --errors (--error), --mode,\n"
            "                    --max-runs, --timeout, --json, --verbose and:\n"
            "  --function NAME   sweep this driver function only (repeatable); a base\n"
            "                    name (cuMemAlloc) takes in all its variants (cuMemAlloc_v2)\n"
            "  --driver PATH     the driver to forward to (as 'gpuguard run --driver')\n"
            "  --hip-runtime PATH  the HIP runtime to forward to (as 'gpuguard run')\n"
            "  Without --errors each driver function gets one error (any variant of it:\n"
            "  _v2, _ptsz...): out_of_memory for the allocations cuMemAlloc,\n"
            "  cuMemAllocHost, cuMemHostAlloc, cuMemAllocManaged, cuMemAllocPitch,\n"
            "  cuMemAllocAsync, cuMemAllocFromPoolAsync, cuMemCreate, cuArrayCreate,\n"
            "  cuArray3DCreate, cuMipmappedArrayCreate and HIP's hipMalloc, hipHostMalloc,\n"
            "  hipMallocPitch, hipMallocManaged, hipMalloc3D, hipMallocArray,\n"
            "  hipExtMallocWithFlags, hipMallocAsync; launch_failed for launches\n"
            "  (cuLaunch..., cuGraphLaunch, hipModuleLaunchKernel, hipLaunch...,\n"
            "  hipExtLaunch...); driver (999) for every other function.\n"
            "\n"
            "Every option's value is checked before any run: an unknown operation or\n"
            "error is refused with the list of those there are.\n"
            "\n"
            "Exit status: 0 no run crashed, aborted, hung or tripped a sanitizer; 1 some\n"
            "did, or the counting run failed or saw no calls, or no injected run was made or\n"
            "reached its fault, or the program replaced the sweep's plan (or, with\n"
            "--fail-on-leak, a run ended with live objects); 2 no run was made: bad usage\n"
            "(the message names the option; also a GPUGUARD_BACKEND gpuguard does not know,\n"
            "and --mode async with no error that kills a context), COMMAND cannot be\n"
            "executed (missing, not executable, a directory: 'gpuguard sweep: cannot run\n"
            "COMMAND:' and the system's reason), and with --intercept: no interposer,\n"
            "neither a CUDA driver nor a HIP runtime, a --function the interposer does not\n"
            "know.\n");
}

/* Splits the value of `option` at commas into out[]; -1 (said) when the
 * list is empty or too long. Each item is checked by the caller. */
static int split_list(char *text, const char **out, int max, const char *option)
{
    int n = 0;
    for (char *item = strtok(text, ","); item != NULL; item = strtok(NULL, ",")) {
        if (n == max) {
            fprintf(stderr, "gpuguard sweep: %s: too many items (at most %d)\n", option, max);
            return -1;
        }
        out[n++] = item;
    }
    if (n == 0)
        fprintf(stderr, "gpuguard sweep: %s: an empty list\n", option);
    return n ? n : -1;
}

/* Every item of --ops is an operation the library counts, every item of
 * --errors an error its fault plans inject (their own tables: cli.h), so
 * that a typo is refused before any run instead of sweeping nothing. */
static bool items_valid(const char *option, const char *const *items, int count, bool (*valid)(const char *),
                        const char *(*list)(char *, size_t), const char *what)
{
    for (int k = 0; k < count; k++) {
        if (!valid(items[k])) {
            char names[1024];
            fprintf(stderr, "gpuguard sweep: %s: unknown %s '%s'; the %ss: %s\n", option, what, items[k], what,
                    list(names, sizeof names));
            return false;
        }
    }
    return true;
}

/* The options that take a value. */
static const char *const valued_options[] = { "--ops", "--errors", "--error", "--mode", "--max-runs", "--timeout",
                                              "--json", "--function", "--driver", "--hip-runtime" };

/* Returns -1 to go on, else the exit status to return at once. */
static int parse_options(int argc, char **argv, sweep_options *opt)
{
    opt->immediate = true;
    opt->timeout_s = 60;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            sweep_usage(stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0) {
            opt->verbose = true;
            continue;
        } else if (strcmp(arg, "--host-alloc") == 0) {
            opt->host_alloc = true;
            continue;
        } else if (strcmp(arg, "--sim-host-alloc") == 0) {
            opt->host_alloc = opt->sim_host_alloc = true;
            continue;
        } else if (strcmp(arg, "--pairs") == 0) {
            opt->pairs = true;
            continue;
        } else if (strcmp(arg, "--cleanup") == 0) {
            opt->cleanup = true;
            continue;
        } else if (strcmp(arg, "--fail-on-leak") == 0) {
            opt->fail_on_leak = true;
            continue;
        } else if (strcmp(arg, "--intercept") == 0) {
            opt->intercept = true;
            continue;
        }
        bool valued = false;
        for (size_t k = 0; k < sizeof valued_options / sizeof valued_options[0]; k++)
            valued = valued || strcmp(arg, valued_options[k]) == 0;
        if (!valued) {
            fprintf(stderr, "gpuguard sweep: unknown option '%s'%s\n\n", arg,
                    arg[0] == '-' ? "" : " (put the command after --)");
            sweep_usage(stderr);
            return CLI_EXIT_USAGE;
        }
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (value == NULL || value[0] == '\0' || strcmp(value, "--") == 0) {
            fprintf(stderr, "gpuguard sweep: %s needs a value\n\n", arg);
            sweep_usage(stderr);
            return CLI_EXIT_USAGE;
        }
        char *end = NULL;
        if (strcmp(arg, "--ops") == 0) {
            if ((opt->op_count = split_list(argv[i + 1], opt->ops, SWEEP_MAX_OPS, arg)) < 0 ||
                !items_valid(arg, opt->ops, opt->op_count, cli_fault_op_valid, cli_fault_op_list, "operation"))
                return CLI_EXIT_USAGE;
        } else if (strcmp(arg, "--errors") == 0 || strcmp(arg, "--error") == 0) {
            if ((opt->error_count = split_list(argv[i + 1], opt->errors, SWEEP_MAX_ERRORS, arg)) < 0 ||
                !items_valid(arg, opt->errors, opt->error_count, cli_fault_error_valid, cli_fault_error_list,
                             "error"))
                return CLI_EXIT_USAGE;
        } else if (strcmp(arg, "--mode") == 0) {
            opt->immediate = strcmp(value, "immediate") == 0 || strcmp(value, "both") == 0;
            opt->async = strcmp(value, "async") == 0 || strcmp(value, "both") == 0;
            if (!opt->immediate && !opt->async) {
                fprintf(stderr, "gpuguard sweep: --mode must be immediate, async or both, not '%s'\n", value);
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--max-runs") == 0) {
            errno = 0;
            opt->max_runs = strtol(value, &end, 10);
            if (*end != '\0' || errno != 0 || opt->max_runs < 1) {
                fprintf(stderr, "gpuguard sweep: --max-runs must be a whole number >= 1, not '%s'\n", value);
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--timeout") == 0) {
            opt->timeout_s = strtod(value, &end);
            if (*end != '\0' || !(opt->timeout_s > 0) || opt->timeout_s > 86400) {
                fprintf(stderr, "gpuguard sweep: --timeout must be seconds, more than 0 and at most 86400, "
                        "not '%s'\n", value);
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(arg, "--json") == 0) {
            /* Written after the last run: a path that cannot be written is
             * refused now, not after the whole sweep. */
            if (!cli_output_path_usable("gpuguard sweep", arg, value))
                return CLI_EXIT_USAGE;
            opt->json_path = value;
        } else if (strcmp(arg, "--function") == 0) {
            if (opt->function_count == SWEEP_MAX_FUNCTIONS) {
                fprintf(stderr, "gpuguard sweep: too many --function (at most %d)\n", SWEEP_MAX_FUNCTIONS);
                return CLI_EXIT_USAGE;
            }
            opt->functions[opt->function_count++] = value;
        } else if (strcmp(arg, "--driver") == 0) {
            opt->driver = value;
        } else {
            opt->hip_runtime = value;
        }
        i++;
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "gpuguard sweep: no command given (put it after --)\n\n");
        sweep_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    opt->command = argv + i + 1;
    if (opt->pairs && opt->max_runs == 0) {
        fprintf(stderr, "gpuguard sweep: --pairs needs --max-runs (pairs grow as the square of the calls)\n");
        return CLI_EXIT_USAGE;
    }
    if (opt->host_alloc && (opt->pairs || opt->cleanup || opt->op_count || opt->error_count || opt->async)) {
        fprintf(stderr, "gpuguard sweep: --host-alloc fails host allocations only; it does not go with --pairs, "
                "--cleanup, --ops, --errors or --mode\n");
        return CLI_EXIT_USAGE;
    }
    if (opt->intercept && (opt->host_alloc || opt->pairs || opt->cleanup || opt->op_count || opt->fail_on_leak)) {
        fprintf(stderr, "gpuguard sweep: --intercept sweeps driver functions; it does not go with --host-alloc, "
                "--sim-host-alloc, --pairs, --cleanup, --ops (use --function) or --fail-on-leak\n");
        return CLI_EXIT_USAGE;
    }
    if (!opt->intercept && (opt->function_count || opt->driver || opt->hip_runtime)) {
        fprintf(stderr, "gpuguard sweep: --function, --driver and --hip-runtime go with --intercept only (a program "
                "that uses "
                "gpuguard is swept by operation: --ops)\n");
        return CLI_EXIT_USAGE;
    }
    if (opt->pairs && opt->async) {
        fprintf(stderr, "gpuguard sweep: --pairs injects immediate errors only (not --mode async or both)\n");
        return CLI_EXIT_USAGE;
    }
    if (opt->async && !opt->immediate && opt->error_count > 0) {
        /* Only an error that kills a context is latched: with none of
         * those, --mode async would make no run at all. */
        bool any = false;
        for (int e = 0; e < opt->error_count; e++)
            any = any || sweep_is_sticky_error(opt->errors[e]);
        if (!any) {
            fprintf(stderr, "gpuguard sweep: --mode async latches only errors that kill a context (illegal_address, "
                    "launch_failed, launch_timeout), and --errors gives none of them\n");
            return CLI_EXIT_USAGE;
        }
    }
    if (opt->error_count == 0 && !opt->intercept) {
        opt->errors[0] = "out_of_memory";
        opt->errors[1] = "illegal_address";
        opt->error_count = 2;
    }
    return -1;
}

/* Runs the command with `plan` in GPUGUARD_FAULTS and, when host_alloc is
 * not 0, GPUGUARD_FAIL_HOST_ALLOC=host_alloc; fills *result and, when
 * `report_out` is set, hands back the parsed fault report. */
static int run_once(const sweep_options *opt, const char *plan, long host_alloc, const char *report_path,
                    run_result *result, cJSON **report_out)
{
    char stderr_path[256], sim_report_path[256], count[32];
    snprintf(stderr_path, sizeof stderr_path, "%s.stderr", report_path);
    snprintf(sim_report_path, sizeof sim_report_path, "%s.sim", report_path);
    snprintf(count, sizeof count, "%ld", host_alloc);
    unlink(report_path);
    unlink(sim_report_path);
    child_env env[] = {
        { "GPUGUARD_FAULTS", plan },
        { "GPUGUARD_FAULT_REPORT", report_path },
        { "GPUGUARD_FAIL_HOST_ALLOC", NULL },
        { "GPUGUARD_SIM_FAIL_HOST_ALLOC", NULL },
        { opt->sim_host_alloc ? "GPUGUARD_SIM_FAIL_HOST_ALLOC" : "GPUGUARD_FAIL_HOST_ALLOC",
          host_alloc > 0 ? count : NULL },
        { "GPUGUARD_SIM_HOST_ALLOC_REPORT", opt->sim_host_alloc ? sim_report_path : NULL },
    };
    child_spec spec = { .command = opt->command, .env = env, .env_count = sizeof env / sizeof env[0],
                        .timeout_s = opt->timeout_s, .stderr_path = stderr_path, .echo_stderr = opt->verbose,
                        .quiet_stdout = !opt->verbose };
    child_result ended;
    int ran = child_run("gpuguard sweep", &spec, &ended);
    if (ran != 0)
        return ran;
    memset(result, 0, sizeof *result);
    result->what = ended.what;
    result->code = ended.code;
    cJSON *report = child_read_json_file(report_path);
    cJSON *live = cJSON_GetObjectItemCaseSensitive(report, "live_objects");
    result->leaked = cJSON_IsNumber(live) ? (long)live->valuedouble : -1;
    const cJSON *in_force = cJSON_GetObjectItemCaseSensitive(report, "plan");
    /* A report from a failed gg_init names no plan: none was loaded yet. */
    const cJSON *written_at = cJSON_GetObjectItemCaseSensitive(report, "written_at");
    bool init_failed = cJSON_IsString(written_at) && strcmp(written_at->valuestring, "gg_init failed") == 0;
    /* (--host-alloc injects through the environment: the plan is not its.) */
    result->replaced = !opt->host_alloc && report != NULL && !(cJSON_IsString(in_force) && strcmp(in_force->valuestring, plan) == 0) &&
                       !(init_failed && cJSON_IsNull(in_force));
    if (opt->sim_host_alloc) {
        /* The simulator's own counts; handed back as "host_allocations". */
        cJSON *sim = child_read_json_file(sim_report_path);
        unlink(sim_report_path);
        result->fired = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sim, "failed"));
        result->fired_all = result->fired;
        if (report != NULL && sim != NULL) {
            cJSON_DeleteItemFromObjectCaseSensitive(report, "host_allocations");
            cJSON_AddItemToObject(report, "host_allocations", sim);
        } else {
            cJSON_Delete(sim);
        }
    } else if (host_alloc > 0) {
        const cJSON *host = cJSON_GetObjectItemCaseSensitive(report, "host_allocations");
        result->fired = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(host, "failed"));
        result->fired_all = result->fired;
    } else {
        const cJSON *rules = cJSON_GetObjectItemCaseSensitive(report, "rules");
        int n = cJSON_GetArraySize(rules), hits = 0;
        for (int i = 0; i < n; i++) {
            const cJSON *fired = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rules, i), "fired");
            hits += cJSON_IsNumber(fired) && fired->valuedouble > 0;
        }
        const cJSON *first = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rules, 0), "fired");
        result->fired = cJSON_IsNumber(first) && first->valuedouble > 0;
        result->fired_all = n > 0 && hits == n;
    }
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

/* The releases a driver sees (in a dead context only the context's own
 * destroy reaches it; the rest are skipped, which --cleanup checks too). */
static const char *const cleanup_ops[] = { "free", "host_free", "stream_destroy", "event_destroy", "module_unload",
                                           "context_destroy" };

/* One (operation, call) the counting run saw. */
typedef struct call_site {
    const char *op;
    long call;
} call_site;

typedef struct sweep_run {
    const char *what;  /* the operation (or "host_alloc"), as printed */
    long call;
    const char *what2; /* pairs: the second operation, else NULL */
    long call2;
    const char *error;
    bool async;
} sweep_run;

/* Appends a rule failing `error` at `op`'s call-th call (every call when
 * `call` is 0) to the rules array `plan` is building. */
static void add_rule(char *plan, size_t size, const char *op, long call, const char *error, bool async)
{
    size_t used = strlen(plan);
    char which[32] = "";
    if (call > 0)
        snprintf(which, sizeof which, ",\"nth\":%ld", call);
    snprintf(plan + used, size - used, "%s{\"op\":\"%s\"%s,\"error\":\"%s\"%s}", plan[used - 1] == '[' ? "" : ",",
             op, which, error, async ? ",\"mode\":\"async\"" : "");
}

/* Builds the plan of one run into `plan` (rule 0 first: its hits decide
 * "not reached"). */
static void build_plan(const sweep_options *opt, const sweep_run *run, char *plan, size_t size)
{
    snprintf(plan, size, "{\"rules\":[");
    if (run->call > 0)
        add_rule(plan, size, run->what, run->call, run->error, run->async);
    if (run->what2 != NULL)
        add_rule(plan, size, run->what2, run->call2, run->error, false);
    for (size_t i = 0; opt->cleanup && i < sizeof cleanup_ops / sizeof cleanup_ops[0]; i++)
        add_rule(plan, size, cleanup_ops[i], 0, "driver", false);
    size_t used = strlen(plan);
    snprintf(plan + used, size - used, "]}");
}

/* Runs, classifies and prints one injected run; -1 if it could not run. */
static int sweep_one(const sweep_options *opt, const sweep_run *run, const char *report_path, sweep_totals *t,
                     cJSON *json_runs)
{
    char plan[2048];
    long host_alloc = 0;
    if (opt->host_alloc) {
        snprintf(plan, sizeof plan, "{\"rules\":[]}");
        host_alloc = run->call;
    } else {
        build_plan(opt, run, plan, sizeof plan);
    }
    run_result r;
    if (run_once(opt, plan, host_alloc, report_path, &r, NULL) != 0)
        return -1;
    sweep_count_run(opt, t, r.what, r.fired, r.replaced);
    t->leaks += r.leaked > 0;
    t->both_fired += run->what2 != NULL && r.fired_all;
    char where[48], detail[128];
    if (run->what2 != NULL)
        snprintf(where, sizeof where, "%ld + %s %ld", run->call, run->what2, run->call2);
    else
        snprintf(where, sizeof where, "%ld", run->call);
    snprintf(detail, sizeof detail, "%s %d%s%s%s%s",
             r.what == CHILD_CRASH || r.what == CHILD_ABORT ? "signal" : r.what == CHILD_HANG ? "after" : "exit",
             r.what == CHILD_HANG ? (int)opt->timeout_s : r.code, r.leaked > 0 ? ", leak" : "",
             r.fired ? "" : ", not reached", run->what2 != NULL && r.fired && !r.fired_all ? ", second not reached" : "",
             r.replaced ? ", PLAN REPLACED by the program" : "");
    printf("%-20s %6s %-16s %-9s %-11s %s\n", run->what, where, run->error, run->async ? "async" : "immediate",
           child_outcome_names[r.what], detail);
    fflush(stdout);
    if (json_runs != NULL) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "op", run->what);
        cJSON_AddNumberToObject(j, "call", (double)run->call);
        if (run->what2 != NULL) {
            cJSON_AddStringToObject(j, "op2", run->what2);
            cJSON_AddNumberToObject(j, "call2", (double)run->call2);
        }
        cJSON_AddStringToObject(j, "error", run->error);
        cJSON_AddStringToObject(j, "mode", run->async ? "async" : "immediate");
        cJSON_AddStringToObject(j, "outcome", child_outcome_names[r.what]);
        cJSON_AddNumberToObject(j, "code", r.code);
        cJSON_AddBoolToObject(j, "fired", r.fired);
        cJSON_AddBoolToObject(j, "plan_replaced", r.replaced);
        cJSON_AddNumberToObject(j, "leaked_objects", (double)r.leaked);
        cJSON_AddItemToArray(json_runs, j);
    }
    return 0;
}

/* The (operation, call) sites of the counting run that the options select. */
static call_site *collect_sites(const sweep_options *opt, const cJSON *calls, long *count, int *ops_visited)
{
    long n = 0;
    *ops_visited = 0;
    for (const cJSON *op = calls ? calls->child : NULL; op != NULL; op = op->next)
        if (cJSON_IsNumber(op) && op->valuedouble > 0 && wanted(opt, op->string)) {
            n += (long)op->valuedouble;
            ++*ops_visited;
        }
    call_site *sites = calloc((size_t)n + 1, sizeof *sites);
    if (sites == NULL)
        return NULL;
    long k = 0;
    for (const cJSON *op = calls ? calls->child : NULL; op != NULL; op = op->next)
        if (cJSON_IsNumber(op) && op->valuedouble > 0 && wanted(opt, op->string))
            for (long c = 1; c <= (long)op->valuedouble; c++)
                sites[k++] = (call_site){ op->string, c };
    *count = n;
    return sites;
}

static int sweep_driver_calls(const sweep_options *opt, const call_site *sites, long site_count,
                              const char *report_path, sweep_totals *t, cJSON *json_runs)
{
    for (long s = 0; s < site_count && !t->capped; s++)
        for (int e = 0; e < opt->error_count && !t->capped; e++)
            for (int mode = 0; mode < 2 && !t->capped; mode++) {
                bool async = mode == 1;
                if ((async && (!opt->async || !sweep_is_sticky_error(opt->errors[e]))) || (!async && !opt->immediate))
                    continue;
                sweep_run run = { sites[s].op, sites[s].call, NULL, 0, opt->errors[e], async };
                if (sweep_one(opt, &run, report_path, t, json_runs) != 0)
                    return -1;
            }
    return 0;
}

/* Every pair of sites of different operations, times the errors, sampled
 * evenly (a fixed stride) down to --max-runs. */
static int sweep_pairs(const sweep_options *opt, const call_site *sites, long site_count, const char *report_path,
                       sweep_totals *t, cJSON *json_runs)
{
    long total = 0;
    for (long a = 0; a < site_count; a++)
        for (long b = a + 1; b < site_count; b++)
            total += strcmp(sites[a].op, sites[b].op) != 0;
    total *= opt->error_count;
    long stride = total > opt->max_runs ? (total + opt->max_runs - 1) / opt->max_runs : 1;
    printf("(%ld pairs of calls of different operations x errors; every %ld%s run)\n", total, stride,
           stride == 1 ? "st" : "th");
    long index = 0;
    for (long a = 0; a < site_count && !t->capped; a++)
        for (long b = a + 1; b < site_count && !t->capped; b++) {
            if (strcmp(sites[a].op, sites[b].op) == 0)
                continue;
            for (int e = 0; e < opt->error_count && !t->capped; e++, index++) {
                if (index % stride != 0)
                    continue;
                sweep_run run = { sites[a].op, sites[a].call, sites[b].op, sites[b].call, opt->errors[e], false };
                if (sweep_one(opt, &run, report_path, t, json_runs) != 0)
                    return -1;
            }
        }
    return 0;
}

static int sweep_host_allocs(const sweep_options *opt, long made, const char *report_path, sweep_totals *t,
                             cJSON *json_runs)
{
    for (long k = 1; k <= made && !t->capped; k++) {
        sweep_run run = { opt->sim_host_alloc ? "sim_host_alloc" : "host_alloc", k, NULL, 0, "out_of_memory", false };
        if (sweep_one(opt, &run, report_path, t, json_runs) != 0)
            return -1;
    }
    return 0;
}

int cmd_sweep(int argc, char **argv)
{
    sweep_options opt;
    memset(&opt, 0, sizeof opt);
    int early = parse_options(argc, argv, &opt);
    if (early >= 0)
        return early;
    if (!cli_backend_env_usable("gpuguard sweep"))
        return CLI_EXIT_USAGE;
    if (opt.intercept)
        return sweep_intercept(&opt);

    char report_path[] = "/tmp/gpuguard-sweep-XXXXXX";
    int fd = mkstemp(report_path);
    if (fd < 0) {
        perror("gpuguard sweep: mkstemp");
        return CLI_EXIT_FAILED;
    }
    close(fd);

    /* 1. The counting run: an empty plan counts every call (and the host
     *    allocations), injecting nothing. */
    const char *counting_plan = "{\"rules\":[]}";
    run_result base;
    cJSON *counts = NULL;
    int ran = run_once(&opt, counting_plan, 0, report_path, &base, &counts);
    if (ran != 0) {
        /* Said by child_run: the program could not be executed (exit 2, as
         * for bad usage: no run was made), or not forked or waited for. */
        unlink(report_path);
        return ran == CHILD_RUN_CANNOT_EXEC ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
    }
    if (base.what != CHILD_TOLERATED || counts == NULL) {
        fprintf(stderr, "gpuguard sweep: the counting run of %s %s%s (%s %d); the program must succeed without "
                "faults and use gpuguard\n", opt.command[0], counts ? "failed" : "wrote no fault report",
                counts ? "" : " (does it call gg_init?)", child_outcome_names[base.what], base.code);
        cJSON_Delete(counts);
        unlink(report_path);
        return CLI_EXIT_FAILED;
    }
    if (base.replaced) {
        fprintf(stderr, "gpuguard sweep: %s replaces the sweep's fault plan (gg_fault_set_plan or gg_fault_clear; "
                "its fault report names another plan), so the sweep cannot inject anything: sweep a program that "
                "leaves GPUGUARD_FAULTS in force\n", opt.command[0]);
        cJSON_Delete(counts);
        unlink(report_path);
        return CLI_EXIT_FAILED;
    }
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(counts, "calls");
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(counts, "host_allocations");
    const cJSON *made_json = cJSON_GetObjectItemCaseSensitive(host, "made");
    long host_made = cJSON_IsNumber(made_json) ? (long)made_json->valuedouble : 0;
    long site_count = 0;
    int ops_visited = 0;
    call_site *sites = collect_sites(&opt, calls, &site_count, &ops_visited);
    if (sites == NULL) {
        fprintf(stderr, "gpuguard sweep: out of memory\n");
        cJSON_Delete(counts);
        unlink(report_path);
        return CLI_EXIT_FAILED;
    }
    if (opt.host_alloc ? host_made == 0 : site_count == 0) {
        fprintf(stderr, "gpuguard sweep: the counting run of %s saw no %s, so there is nothing to sweep\n",
                opt.command[0], opt.sim_host_alloc ? "host allocations by the simulated driver (GPUGUARD_BACKEND=sim?)"
                                : opt.host_alloc ? "host allocations by gpuguard"
                                : opt.op_count ? "driver calls of the operations asked for (--ops)" : "driver calls");
        free(sites);
        cJSON_Delete(counts);
        unlink(report_path);
        return CLI_EXIT_FAILED;
    }

    /* 2. The injected runs. */
    cJSON *json_runs = opt.json_path ? cJSON_CreateArray() : NULL;
    sweep_totals t;
    memset(&t, 0, sizeof t);
    printf("%-20s %6s %-16s %-9s %-11s %s\n", "operation", "call", "error", "mode", "outcome", "detail");
    int rc = opt.host_alloc ? sweep_host_allocs(&opt, host_made, report_path, &t, json_runs)
             : opt.pairs    ? sweep_pairs(&opt, sites, site_count, report_path, &t, json_runs)
                            : sweep_driver_calls(&opt, sites, site_count, report_path, &t, json_runs);
    free(sites);
    cJSON_Delete(counts);
    unlink(report_path);
    if (rc != 0) {
        cJSON_Delete(json_runs);
        return CLI_EXIT_FAILED;
    }

    if (opt.host_alloc)
        printf("\n%shost-allocation sweep of %s: %ld allocation(s), %ld run(s)%s",
               opt.sim_host_alloc ? "simulator " : "", opt.command[0], host_made, t.runs,
               t.capped ? " (capped by --max-runs)" : "");
    else
        printf("\n%ssweep of %s: %d operation(s), %ld call(s), %ld run(s)%s", opt.pairs ? "pairwise " : "",
               opt.command[0], ops_visited, site_count, t.runs, t.capped ? " (capped by --max-runs)" : "");
    printf(": %ld tolerated, %ld clean exits, %ld with leaks, %ld not reached", t.outcomes[CHILD_TOLERATED],
           t.outcomes[CHILD_CLEAN], t.leaks, t.not_reached);
    if (opt.pairs)
        printf(", %ld with both faults reached", t.both_fired);
    sweep_print_bug_counts(&t);
    long bad = 0;
    if (json_runs != NULL &&
        !sweep_write_json(&opt, opt.host_alloc ? "host_alloc" : opt.pairs ? "pairs" : "driver", json_runs, &t))
        bad++;

    /* 3. The bugs found, and the ways a sweep could pass having tested nothing. */
    bad += sweep_verdict(&opt, &t);
    if (opt.fail_on_leak && t.leaks > 0) {
        fprintf(stderr, "gpuguard sweep: FAILED: %ld run(s) ended with live objects (--fail-on-leak)\n", t.leaks);
        bad++;
    }
    return bad ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}
