/*
 * What the interposer's tests share: the fault plan and the report path
 * they give the interposer (it reads its environment at the first call, so
 * each test sets them before its first driver call), and reading the
 * report back. Criterion runs each test in a process of its own, so the
 * path carries the pid.
 */
#ifndef GG_INTERCEPT_TEST_REPORT_H
#define GG_INTERCEPT_TEST_REPORT_H

#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char report_path[256];

/* Sets the plan (NULL: none) and, when `report` is true, a fresh report
 * path named after `tag` and this process (else no report). */
static inline void set_plan_and_report(const char *tag, const char *plan, bool report)
{
    snprintf(report_path, sizeof report_path, "/tmp/gg_intercept_%s_%ld.json", tag, (long)getpid());
    unlink(report_path);
    if (report)
        setenv("GPUGUARD_INTERCEPT_REPORT", report_path, 1);
    else
        unsetenv("GPUGUARD_INTERCEPT_REPORT");
    if (plan != NULL)
        setenv("GPUGUARD_INTERCEPT_FAULTS", plan, 1);
    else
        unsetenv("GPUGUARD_INTERCEPT_FAULTS");
}

/* The report as it stands (the interposer writes one when a rule fires,
 * and at exit); fails the test when there is none or it is not JSON. */
static inline cJSON *read_report(void)
{
    FILE *f = fopen(report_path, "r");
    cr_assert_not_null(f, "no report at %s", report_path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON *j = cJSON_Parse(text);
    cr_assert_not_null(j, "the report is not JSON: %s", text);
    return j;
}

/* How many calls of `function` the report counts (0: none listed). */
static inline double call_count(const cJSON *report, const char *function)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "calls"), function);
    return cJSON_IsNumber(n) ? n->valuedouble : 0;
}

/* A string member of `object`, or NULL. */
static inline const char *string_field(const cJSON *object, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

#endif
