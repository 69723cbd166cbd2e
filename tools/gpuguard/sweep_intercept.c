/*
 * gpuguard sweep --intercept [options] -- COMMAND [ARGS...]
 *
 * The sweep of a program that does not use gpuguard: COMMAND runs over the
 * interposing driver library (intercept.h), once with a plan that only
 * counts (the report lists every driver function it called, by exact
 * exported or variant name, with its count), then once per (function, n-th
 * call, error[, mode]) with a plan whose one rule fails exactly that call.
 * Each run is classified by child.h and reported by driver function and
 * call number; the verdict is the one every sweep gives (sweep_report.c),
 * so this one cannot pass having tested nothing either.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "child.h"
#include "cli.h"
#include "intercept.h"
#include "sweep.h"

#define WHO "gpuguard sweep"

/* How much of a buggy run's stderr the JSON keeps (its end). */
#define STDERR_TAIL_BYTES 4096

/* One (driver function, call) the counting run saw. */
typedef struct call_site {
    const char *function; /* the exact name, as the report counts it */
    long call;
} call_site;

/* One injected run. */
typedef struct intercept_run {
    const char *function;
    long call;
    const char *error;
    bool async;
} intercept_run;

/* What sweeping needs besides the options. */
typedef struct intercept_sweep {
    const sweep_options *opt;
    intercept_setup setup;
    char report_path[PATH_MAX + 64];
    char stderr_path[PATH_MAX + 96];
    sweep_totals totals;
    long plan_errors; /* runs whose plan the interposer refused (a bug of the sweep's, said loudly) */
    cJSON *json_runs;
    cJSON *bugs;      /* the runs that crashed, aborted, hung or tripped a sanitizer, for the summary */
} intercept_sweep;

/* `name` without the suffixes of its variants (_v2, _ptsz, _ptds, _v2_ptds),
 * into `base`. */
static void base_name(const char *name, char *base, size_t size)
{
    snprintf(base, size, "%s", name);
    size_t n = strlen(base);
    if (n > 5 && (strcmp(base + n - 5, "_ptsz") == 0 || strcmp(base + n - 5, "_ptds") == 0))
        base[n -= 5] = '\0';
    size_t digits = 0;
    while (digits < n && base[n - 1 - digits] >= '0' && base[n - 1 - digits] <= '9')
        digits++;
    if (digits > 0 && n > digits + 2 && base[n - digits - 1] == 'v' && base[n - digits - 2] == '_')
        base[n - digits - 2] = '\0';
}

const char *sweep_intercept_default_error(const char *function)
{
    static const char *const allocations[] = { "cuMemAlloc", "cuMemAllocHost", "cuMemHostAlloc",
                                               "cuMemAllocManaged", "cuMemAllocPitch", "cuMemAllocAsync",
                                               "cuMemAllocFromPoolAsync", "cuMemCreate", "cuArrayCreate",
                                               "cuArray3DCreate", "cuMipmappedArrayCreate", "hipMalloc",
                                               "hipHostMalloc", "hipMallocPitch", "hipMallocManaged",
                                               "hipMalloc3D", "hipMallocArray", "hipExtMallocWithFlags",
                                               "hipMallocAsync" };
    char base[128];
    base_name(function, base, sizeof base);
    for (size_t i = 0; i < sizeof allocations / sizeof allocations[0]; i++)
        if (strcmp(base, allocations[i]) == 0)
            return "out_of_memory";
    if (strncmp(base, "cuLaunch", 8) == 0 || strncmp(base, "cuGraphLaunch", 13) == 0 ||
        strcmp(base, "hipModuleLaunchKernel") == 0 || strncmp(base, "hipLaunch", 9) == 0 ||
        strncmp(base, "hipExtLaunch", 12) == 0)
        return "launch_failed";
    return "driver";
}

/* True when --function asked for `function` (or asked for nothing): a base
 * name takes in every variant, a variant's name only that one. */
static bool function_wanted(const sweep_options *opt, const char *function)
{
    if (opt->function_count == 0)
        return true;
    char base[128];
    base_name(function, base, sizeof base);
    for (int i = 0; i < opt->function_count; i++)
        if (strcmp(opt->functions[i], function) == 0 || strcmp(opt->functions[i], base) == 0)
            return true;
    return false;
}

/* The plan of one run: one rule failing exactly that call. */
static void build_plan(const intercept_run *run, char *plan, size_t size)
{
    snprintf(plan, size, "{\"rules\":[{\"function\":\"%s\",\"nth\":%ld,\"error\":\"%s\"%s}]}", run->function,
             run->call, run->error, run->async ? ",\"mode\":\"async\"" : "");
}

/* The last STDERR_TAIL_BYTES of the run's stderr (malloc'd), or NULL. */
static char *stderr_tail(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *tail = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        long start = size > STDERR_TAIL_BYTES ? size - STDERR_TAIL_BYTES : 0;
        tail = size >= 0 && fseek(f, start, SEEK_SET) == 0 ? malloc((size_t)(size - start) + 1) : NULL;
        if (tail != NULL)
            tail[fread(tail, 1, (size_t)(size - start), f)] = '\0';
    }
    fclose(f);
    return tail;
}

/* Runs COMMAND over the interposer with `plan`. Fills *end and hands back
 * the report (NULL when there is none) and, when `tail` is set, the end of
 * the run's stderr. child_run's CHILD_RUN_* (said) when the run could not
 * be made. */
static int run_over_interposer(intercept_sweep *s, const char *plan, child_result *end, cJSON **report,
                               char **tail)
{
    child_env env[INTERCEPT_ENV_COUNT];
    size_t env_count = intercept_environment(&s->setup, plan, s->report_path, env);
    child_spec spec = { .command = s->opt->command, .env = env, .env_count = env_count,
                        .timeout_s = s->opt->timeout_s, .stderr_path = s->stderr_path,
                        .echo_stderr = s->opt->verbose, .keep_stderr = tail != NULL,
                        .quiet_stdout = !s->opt->verbose };
    unlink(s->report_path);
    int ran = child_run(WHO, &spec, end);
    if (ran != 0)
        return ran;
    *report = child_read_json_file(s->report_path);
    unlink(s->report_path);
    /* The sweep follows the first process that calls the driver (the
     * report's owner); other processes' reports (REPORT.<pid>) go. */
    intercept_process_reports(s->report_path, true);
    if (tail != NULL) {
        *tail = stderr_tail(s->stderr_path);
        unlink(s->stderr_path);
    }
    return 0;
}

/* Runs, classifies and prints one injected run; -1 if it could not run. */
static int sweep_one(intercept_sweep *s, const intercept_run *run)
{
    char plan[512];
    build_plan(run, plan, sizeof plan);
    child_result end;
    cJSON *report = NULL;
    char *tail = NULL;
    if (run_over_interposer(s, plan, &end, &report, &tail) != 0)
        return -1;
    intercept_rule_report rule = intercept_rule(report, 0);
    bool fired = rule.fired > 0;
    /* The interposer names the plan it read: another one means the program
     * set GPUGUARD_INTERCEPT_FAULTS itself. No report at all is not proof
     * of that (a run that dies before the report is written leaves none). */
    bool replaced = report != NULL && !intercept_plan_in_force(report, plan);
    const char *plan_error = intercept_plan_error(report);
    if (plan_error != NULL) {
        fprintf(stderr, WHO ": the interposer refused the sweep's plan %s: %s\n", plan, plan_error);
        s->plan_errors++;
    }
    sweep_count_run(s->opt, &s->totals, end.what, fired, replaced);

    bool failed_elsewhere = fired && rule.first_fired_call && strcmp(rule.first_fired_call, run->function) != 0;
    char detail[160];
    snprintf(detail, sizeof detail, "%s %d%s%s%s",
             end.what == CHILD_CRASH || end.what == CHILD_ABORT ? "signal" : end.what == CHILD_HANG ? "after" : "exit",
             end.what == CHILD_HANG ? (int)s->opt->timeout_s : end.code,
             fired ? "" : report ? ", not reached" : ", not reached (no report)",
             failed_elsewhere ? ", failed another call" : "",
             replaced ? ", PLAN REPLACED by the program" : "");
    printf("%-32s %6ld %-16s %-9s %-11s %s\n", run->function, run->call, run->error,
           run->async ? "async" : "immediate", child_outcome_names[end.what], detail);
    fflush(stdout);

    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "function", run->function);
    cJSON_AddNumberToObject(j, "call", (double)run->call);
    cJSON_AddStringToObject(j, "error", run->error);
    cJSON_AddStringToObject(j, "mode", run->async ? "async" : "immediate");
    cJSON_AddStringToObject(j, "outcome", child_outcome_names[end.what]);
    cJSON_AddNumberToObject(j, "code", end.code);
    cJSON_AddBoolToObject(j, "fired", fired);
    if (rule.first_fired_call != NULL)
        cJSON_AddStringToObject(j, "failed_call", rule.first_fired_call);
    else
        cJSON_AddNullToObject(j, "failed_call");
    cJSON_AddBoolToObject(j, "plan_replaced", replaced);
    if (child_outcome_is_bug(end.what)) {
        cJSON_AddStringToObject(j, "stderr_tail", tail ? tail : "");
        cJSON_AddItemReferenceToArray(s->bugs, j);
    }
    cJSON_AddItemToArray(s->json_runs, j);
    free(tail);
    cJSON_Delete(report);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The (function, call) sites of the counting run that the options select,
 * in the order of the functions' names; NULL (said) when out of memory. */
static call_site *collect_sites(const sweep_options *opt, const cJSON *calls, long *site_count, int *functions)
{
    int named = 0;
    for (const cJSON *c = calls ? calls->child : NULL; c != NULL; c = c->next)
        named++;
    const char **names = calloc((size_t)named + 1, sizeof *names);
    if (names == NULL) {
        fprintf(stderr, WHO ": out of memory\n");
        return NULL;
    }
    long n = 0;
    int kept = 0;
    for (const cJSON *c = calls ? calls->child : NULL; c != NULL; c = c->next)
        if (cJSON_IsNumber(c) && c->valuedouble >= 1 && function_wanted(opt, c->string)) {
            names[kept++] = c->string;
            n += (long)c->valuedouble;
        }
    qsort(names, (size_t)kept, sizeof *names, compare_names);
    call_site *sites = calloc((size_t)n + 1, sizeof *sites);
    if (sites == NULL) {
        fprintf(stderr, WHO ": out of memory\n");
        free(names);
        return NULL;
    }
    long k = 0;
    for (int f = 0; f < kept; f++) {
        long count = (long)cJSON_GetObjectItemCaseSensitive(calls, names[f])->valuedouble;
        for (long c = 1; c <= count; c++)
            sites[k++] = (call_site){ names[f], c };
    }
    free(names);
    *site_count = n;
    *functions = kept;
    return sites;
}

/* A --function that names nothing the program called: said, so that a typo
 * cannot make a sweep test less than asked. Returns how many. */
static int unknown_functions(const sweep_options *opt, const cJSON *calls)
{
    int unknown = 0;
    for (int i = 0; i < opt->function_count; i++) {
        bool found = false;
        for (const cJSON *c = calls ? calls->child : NULL; c != NULL && !found; c = c->next) {
            char base[128];
            base_name(c->string, base, sizeof base);
            found = strcmp(opt->functions[i], c->string) == 0 || strcmp(opt->functions[i], base) == 0;
        }
        if (!found) {
            fprintf(stderr, WHO ": --function %s: %s never called it; it called:", opt->functions[i],
                    opt->command[0]);
            for (const cJSON *c = calls ? calls->child : NULL; c != NULL; c = c->next)
                fprintf(stderr, " %s", c->string);
            fprintf(stderr, "\n");
            unknown++;
        }
    }
    return unknown;
}

/* Every error asked for (--errors) must be one the interposer's plans
 * accept: checked once, before any run, by the plan parser itself. */
static bool errors_accepted(const intercept_sweep *s)
{
    const sweep_options *opt = s->opt;
    for (int e = 0; e < opt->error_count; e++) {
        char plan[256], message[512] = "";
        const char *error = opt->errors[e];
        bool writable = strlen(error) <= 64 && strpbrk(error, "\"\\") == NULL;
        if (writable)
            snprintf(plan, sizeof plan, "{\"rules\":[{\"function\":\"cuInit\",\"nth\":1,\"error\":\"%s\"}]}", error);
        if (!writable || !intercept_plan_check(&s->setup, plan, message, sizeof message)) {
            fprintf(stderr, WHO ": --errors: '%s' is not an error the interposer injects%s%s%s\n", error,
                    message[0] ? " (" : "", message, message[0] ? ")" : "");
            return false;
        }
    }
    return true;
}

/* Every --function must name a driver function the interposer knows (a
 * base name or one of its variants): checked before any run, by the plan
 * parser itself, so that a typo is refused at once. (Whether the program
 * calls it is known after the counting run: unknown_functions.) */
static bool functions_known(const intercept_sweep *s)
{
    const sweep_options *opt = s->opt;
    for (int f = 0; f < opt->function_count; f++) {
        cJSON *plan_json = cJSON_CreateObject();
        cJSON *rule = cJSON_CreateObject();
        cJSON_AddItemToArray(cJSON_AddArrayToObject(plan_json, "rules"), rule);
        cJSON_AddStringToObject(rule, "function", opt->functions[f]);
        cJSON_AddNumberToObject(rule, "nth", 1);
        cJSON_AddStringToObject(rule, "error", "driver");
        char *plan = cJSON_PrintUnformatted(plan_json);
        cJSON_Delete(plan_json);
        char message[512] = "";
        bool known = plan != NULL && intercept_plan_check(&s->setup, plan, message, sizeof message);
        cJSON_free(plan);
        if (!known) {
            if (strstr(message, "unknown driver function") != NULL)
                fprintf(stderr, WHO ": --function %s: not a driver function the interposer knows (a CUDA driver or "
                        "HIP runtime function's name, such as cuMemAlloc or hipMalloc)\n", opt->functions[f]);
            else
                fprintf(stderr, WHO ": --function %s: %s\n", opt->functions[f],
                        message[0] ? message : "out of memory");
            return false;
        }
    }
    return true;
}

static int sweep_sites(intercept_sweep *s, const call_site *sites, long site_count)
{
    const sweep_options *opt = s->opt;
    for (long i = 0; i < site_count && !s->totals.capped; i++) {
        int errors = opt->error_count ? opt->error_count : 1;
        for (int e = 0; e < errors && !s->totals.capped; e++) {
            const char *error = opt->error_count ? opt->errors[e] : sweep_intercept_default_error(sites[i].function);
            for (int mode = 0; mode < 2 && !s->totals.capped; mode++) {
                bool async = mode == 1;
                if ((async && (!opt->async || !sweep_is_sticky_error(error))) || (!async && !opt->immediate))
                    continue;
                intercept_run run = { sites[i].function, sites[i].call, error, async };
                if (sweep_one(s, &run) != 0)
                    return -1;
            }
        }
    }
    return 0;
}

/* The counting run: a plan with no rules injects nothing and counts every
 * call. Returns the report's "calls" holder (the report itself), or NULL
 * with the reason said. */
static cJSON *counting_run(intercept_sweep *s, bool *cannot_exec)
{
    const char *plan = "{\"rules\":[]}";
    child_result end;
    cJSON *report = NULL;
    int ran = run_over_interposer(s, plan, &end, &report, NULL);
    *cannot_exec = ran == CHILD_RUN_CANNOT_EXEC;
    if (ran != 0)
        return NULL;
    const char *command = s->opt->command[0];
    char missing[1024];
    if (report != NULL && intercept_missing_library(report, missing, sizeof missing)) {
        /* Every run would fail the same way, whatever the sweep injects. */
        fprintf(stderr, WHO ": the counting run of %s cannot be swept: %s\n", command, missing);
    } else if (end.what != CHILD_TOLERATED) {
        fprintf(stderr, WHO ": the counting run of %s failed (%s %d); the program must succeed over the interposer "
                "without faults (-v shows its output)\n", command, child_outcome_names[end.what], end.code);
    } else if (report == NULL) {
        fprintf(stderr, WHO ": the counting run of %s left no interposer report: it did not load libcuda.so.1 by "
                "name (through the dynamic loader, which LD_LIBRARY_PATH steers), so nothing of it can be "
                "intercepted\n", command);
    } else if (intercept_plan_error(report) != NULL) {
        fprintf(stderr, WHO ": the interposer refused the counting plan: %s\n", intercept_plan_error(report));
    } else if (!intercept_plan_in_force(report, plan)) {
        fprintf(stderr, WHO ": %s replaces the sweep's plan (its interposer report names another; does it set "
                "GPUGUARD_INTERCEPT_FAULTS?), so the sweep cannot inject anything\n", command);
    } else {
        return report;
    }
    cJSON_Delete(report);
    return NULL;
}

int sweep_intercept(const sweep_options *opt)
{
    intercept_sweep s;
    memset(&s, 0, sizeof s);
    s.opt = opt;
    if (intercept_prepare(WHO, opt->driver, opt->hip_runtime, &s.setup) != 0 || !errors_accepted(&s) ||
        !functions_known(&s)) {
        intercept_release(&s.setup);
        return CLI_EXIT_USAGE;
    }
    if (!intercept_temp_path(WHO, "sweep", s.report_path, sizeof s.report_path)) {
        intercept_release(&s.setup);
        return CLI_EXIT_FAILED;
    }
    snprintf(s.stderr_path, sizeof s.stderr_path, "%s.stderr", s.report_path);
    if (opt->verbose)
        intercept_describe_setup(WHO, &s.setup);

    int status = CLI_EXIT_FAILED;
    call_site *sites = NULL;
    bool cannot_exec = false;
    cJSON *counts = counting_run(&s, &cannot_exec);
    if (counts == NULL) {
        if (cannot_exec)
            status = CLI_EXIT_USAGE; /* no run was made, as for bad usage (said by child_run) */
        goto out;
    }
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(counts, "calls");
    long site_count = 0;
    int functions = 0;
    if (unknown_functions(opt, calls) > 0 || (sites = collect_sites(opt, calls, &site_count, &functions)) == NULL)
        goto out;
    if (site_count == 0) {
        fprintf(stderr, WHO ": the counting run of %s saw no driver calls%s, so there is nothing to sweep\n",
                opt->command[0], opt->function_count ? " of the functions asked for (--function)" : "");
        goto out;
    }

    s.json_runs = cJSON_CreateArray();
    s.bugs = cJSON_CreateArray();
    printf("%-32s %6s %-16s %-9s %-11s %s\n", "driver function", "call", "error", "mode", "outcome", "detail");
    if (sweep_sites(&s, sites, site_count) != 0)
        goto out;

    const sweep_totals *t = &s.totals;
    printf("\nintercept sweep of %s: %d driver function(s), %ld call(s), %ld run(s)%s: %ld tolerated, %ld clean "
           "exits, %ld not reached", opt->command[0], functions, site_count, t->runs,
           t->capped ? " (capped by --max-runs)" : "", t->outcomes[CHILD_TOLERATED], t->outcomes[CHILD_CLEAN],
           t->not_reached);
    sweep_print_bug_counts(t);
    for (const cJSON *b = s.bugs->child; b != NULL; b = b->next)
        printf("  %s: %s call %d failed with %s (%s)\n",
               cJSON_GetObjectItemCaseSensitive(b, "outcome")->valuestring,
               cJSON_GetObjectItemCaseSensitive(b, "function")->valuestring,
               (int)cJSON_GetObjectItemCaseSensitive(b, "call")->valuedouble,
               cJSON_GetObjectItemCaseSensitive(b, "error")->valuestring,
               cJSON_GetObjectItemCaseSensitive(b, "mode")->valuestring);
    long bad = sweep_verdict(opt, t);
    if (s.plan_errors > 0) {
        fprintf(stderr, WHO ": FAILED: the interposer refused the plans of %ld run(s) (said above)\n",
                s.plan_errors);
        bad++;
    }
    if (opt->json_path != NULL) {
        cJSON *runs = s.json_runs;
        s.json_runs = NULL;
        if (!sweep_write_json(opt, "intercept", runs, t))
            bad++;
    }
    status = bad ? CLI_EXIT_FAILED : CLI_EXIT_OK;
out:
    cJSON_Delete(s.bugs);
    cJSON_Delete(s.json_runs);
    cJSON_Delete(counts);
    free(sites);
    unlink(s.report_path);
    unlink(s.stderr_path);
    intercept_release(&s.setup);
    return status;
}
