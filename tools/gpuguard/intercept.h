/*
 * Putting an unmodified program over gpuguard's interposing driver library
 * (src/intercept), for `gpuguard run` and `gpuguard sweep --intercept`.
 *
 * The interposer is a libcuda.so.1 in a directory of its own; a program run
 * with that directory first in LD_LIBRARY_PATH gets it wherever it links or
 * dlopens libcuda.so.1 by name. It forwards every call to the real driver,
 * whose path the tool resolves before the program starts (so the
 * interposer never has to look for it, and never finds itself), applies the
 * fault plan in GPUGUARD_INTERCEPT_FAULTS and writes what it saw to
 * GPUGUARD_INTERCEPT_REPORT (src/intercept/README.md, "Plans, errors,
 * reports", describes the report).
 */
#ifndef GPUGUARD_TOOLS_INTERCEPT_H
#define GPUGUARD_TOOLS_INTERCEPT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "child.h"

/* The environment variables the interposer reads. */
#define INTERCEPT_ENV_DRIVER "GPUGUARD_INTERCEPT_DRIVER"
#define INTERCEPT_ENV_FAULTS "GPUGUARD_INTERCEPT_FAULTS"
#define INTERCEPT_ENV_REPORT "GPUGUARD_INTERCEPT_REPORT"
#define INTERCEPT_ENV_HIP_RUNTIME "GPUGUARD_INTERCEPT_HIP_RUNTIME"

/* Where the interposer is and which driver it forwards to. */
typedef struct intercept_setup {
    char interposer_dir[PATH_MAX]; /* holds the interposer as libcuda.so.1 */
    char interposer[PATH_MAX + 16]; /* interposer_dir/libcuda.so.1 */
    char driver[PATH_MAX];         /* the real CUDA driver (or the simulator), absolute; "": none */
    const char *driver_origin;     /* how it was chosen: "--driver", "GPUGUARD_BACKEND=sim", ...,
                                      or why there is none */
    char hip_runtime[PATH_MAX];    /* the HIP runtime, absolute; "": the interposer looks for it */
    const char *hip_origin;        /* how it was chosen: "--hip-runtime", ... */
    const char *line;              /* the interposer's variant for the driver's CUDA line
                                      (intercept_line.h): "full", "cuda11", ... */
    const char *line_origin;       /* why that one */
    char *library_path;            /* LD_LIBRARY_PATH for the program: interposer_dir first */
} intercept_setup;

/* Finds the interposer and resolves the real libraries. The CUDA driver:
 * `driver_option` (the command's --driver) if not NULL; else
 * GPUGUARD_INTERCEPT_DRIVER; else, with GPUGUARD_BACKEND=sim (or sim-hip),
 * GPUGUARD_CUDA_LIBRARY or the simulated driver gpuguard itself would load;
 * none with GPUGUARD_BACKEND=hip; else GPUGUARD_CUDA_LIBRARY; else the
 * libcuda.so.1 the dynamic loader finds. The HIP runtime: `hip_option`
 * (--hip-runtime); else GPUGUARD_INTERCEPT_HIP_RUNTIME; else, with
 * GPUGUARD_BACKEND=sim or sim-hip, the simulator's HIP face; else
 * GPUGUARD_HIP_LIBRARY; else (unless GPUGUARD_BACKEND=cuda) the first
 * libamdhip64.so.5 in the interposer's own places (intercept_places.h),
 * not loaded here; else none chosen. No CUDA driver is an error only when no HIP runtime was
 * found either and GPUGUARD_BACKEND is not hip: a machine with only one of
 * them runs programs of either kind, and the other kind's calls fail as
 * without that library (intercept_missing_library says so after the run).
 * A library that is the interposer itself is refused. The interposer is the
 * variant that presents what the driver exports (intercept_choose_line).
 * Returns 0, or -1 with
 * the reason on stderr (prefixed by `who`). Release with
 * intercept_release. */
int intercept_prepare(const char *who, const char *driver_option, const char *hip_option, intercept_setup *setup);

/* Says on stderr (prefixed by `who`) where the interposer is and which
 * libraries it forwards to, and how each was chosen (--verbose). */
void intercept_describe_setup(const char *who, const intercept_setup *setup);

void intercept_release(intercept_setup *setup);

/* The environment that puts the program over the interposer: LD_LIBRARY_PATH,
 * GPUGUARD_INTERCEPT_DRIVER and GPUGUARD_INTERCEPT_HIP_RUNTIME (unset where
 * none was chosen), GPUGUARD_INTERCEPT_FAULTS = `plan` (NULL: unset, the
 * interposer injects nothing) and GPUGUARD_INTERCEPT_REPORT = `report_path`
 * (NULL: unset). Fills env[0..4] (pointing into `setup`, `plan` and
 * `report_path`) and returns the count, 5. */
#define INTERCEPT_ENV_COUNT 5
size_t intercept_environment(const intercept_setup *setup, const char *plan, const char *report_path,
                             child_env env[INTERCEPT_ENV_COUNT]);

/* True when `plan` is a fault plan the interposer accepts; else false with
 * `message` naming what is wrong (the rule and the field, in the words of
 * the shared parser, src/base/fault_plan.c). The interposer itself is the
 * judge: a child process loads it with the plan and reads its report, so
 * what is accepted here is exactly what the program's run will apply (the
 * names a plan may use are the interposer's: its driver functions and the
 * operations it maps onto them). Costs a fork and two dlopens. */
bool intercept_plan_check(const intercept_setup *setup, const char *plan, char *message, size_t message_size);

/* A fresh path for a report, in the temporary directory, that exists
 * (empty) so that no other process takes it; false with the reason on
 * stderr. */
bool intercept_temp_path(const char *who, const char *tag, char *path, size_t size);

/* The reports the program's other processes wrote beside `report_path`:
 * the interposer gives the path to the first process that calls the driver
 * with it, and every other process that makes calls (a forked or exec'd
 * child) writes REPORT.<pid> (src/intercept/README.md, "Processes").
 * Removes them when `remove` is set (the tool's temporary paths); how many
 * there were. */
size_t intercept_process_reports(const char *report_path, bool remove);

/* What the interposer's report says about one rule, for the messages of
 * `gpuguard run` and the sweep. */
typedef struct intercept_rule_report {
    long matched, fired;
    const char *first_fired_call; /* the exact driver function, or NULL */
    long first_fired_match;       /* its match number (the n of "nth"), or 0 when not reported */
} intercept_rule_report;

/* Rule `index` of `report` (all zero / NULL when the report lacks it). */
intercept_rule_report intercept_rule(const cJSON *report, int index);

/* When the program called a library the interposer had none of (CUDA
 * driver functions with no driver, HIP functions with no runtime), a
 * sentence saying so, why there was none, and what those calls returned,
 * in `message`; else false. */
bool intercept_missing_library(const cJSON *report, char *message, size_t size);

/* The report's "plan_error" message, or NULL when the plan was accepted. */
const char *intercept_plan_error(const cJSON *report);

/* True when the report names `plan` as the plan in force. */
bool intercept_plan_in_force(const cJSON *report, const char *plan);

#endif /* GPUGUARD_TOOLS_INTERCEPT_H */
