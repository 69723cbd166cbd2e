/*
 * What the two kinds of `gpuguard sweep` share: the options, the running
 * totals, the summary and the verdict (a sweep cannot pass having tested
 * nothing).
 *
 * cmd_sweep.c parses the options and sweeps programs that use gpuguard
 * (faults through gpuguard's plans); sweep_intercept.c sweeps unmodified
 * programs through the interposing driver library (--intercept). Both run
 * and classify each program run with child.h.
 */
#ifndef GPUGUARD_TOOLS_SWEEP_H
#define GPUGUARD_TOOLS_SWEEP_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "child.h"

#define SWEEP_MAX_OPS 64
#define SWEEP_MAX_ERRORS 8
#define SWEEP_MAX_FUNCTIONS 64

typedef struct sweep_options {
    const char *ops[SWEEP_MAX_OPS];
    int op_count;            /* 0 = every operation the program uses */
    const char *errors[SWEEP_MAX_ERRORS];
    int error_count;         /* 0 with --intercept: each function's default error */
    bool immediate, async;
    bool host_alloc;         /* fail host allocations, not driver calls */
    bool sim_host_alloc;     /* ... the simulated driver's, not gpuguard's */
    bool pairs;              /* two driver calls per run */
    bool cleanup;            /* also fail every release the driver sees */
    bool fail_on_leak;       /* a run that ends with live objects fails the sweep */
    bool intercept;          /* sweep an unmodified program through the interposer */
    const char *functions[SWEEP_MAX_FUNCTIONS]; /* --intercept: driver functions to sweep */
    int function_count;      /* 0 = every driver function the program calls */
    const char *driver;      /* --intercept: the driver to forward to (NULL: resolved) */
    const char *hip_runtime; /* --intercept: the HIP runtime to forward to (NULL: resolved) */
    long max_runs;           /* 0 = no cap */
    double timeout_s;
    const char *json_path;
    bool verbose;
    char **command;
} sweep_options;

/* What the injected runs so far add up to. */
typedef struct sweep_totals {
    long outcomes[CHILD_OUTCOME_COUNT];
    long runs, leaks, not_reached, replaced, both_fired;
    bool capped; /* --max-runs reached */
} sweep_totals;

/* Adds one injected run to the totals (and notes when --max-runs is reached). */
void sweep_count_run(const sweep_options *opt, sweep_totals *t, child_outcome what, bool fired, bool replaced);

/* Prints the outcome counts that end every summary line:
 * "; N crashes, N aborts, N hangs, N sanitizer reports\n". */
void sweep_print_bug_counts(const sweep_totals *t);

/* The verdict once every run is made: the number of reasons to fail. Each
 * run that crashed, aborted, hung or tripped a sanitizer (the summary line
 * has counted them); and, each said on stderr: runs in which the program
 * replaced the sweep's plan, a sweep where no run reached its fault or no
 * run was made (it tested nothing), runs with leaks under --fail-on-leak. */
long sweep_verdict(const sweep_options *opt, const sweep_totals *t);

/* Writes {"command", "kind", "runs": json_runs, "summary"} to opt->json_path
 * (taking json_runs); false, with the reason on stderr, if it cannot. */
bool sweep_write_json(const sweep_options *opt, const char *kind, cJSON *json_runs, const sweep_totals *t);

/* Errors that kill a context: only they make sense latched asynchronously. */
bool sweep_is_sticky_error(const char *error);

/* gpuguard sweep --intercept: the sweep of an unmodified program (the
 * options are parsed and checked by cmd_sweep). Returns the exit status. */
int sweep_intercept(const sweep_options *opt);

/* The error --intercept injects into `function` unless --errors says
 * otherwise: out_of_memory for allocations, launch_failed for launches,
 * driver (CUDA_ERROR_UNKNOWN) for everything else. */
const char *sweep_intercept_default_error(const char *function);

#endif /* GPUGUARD_TOOLS_SWEEP_H */
