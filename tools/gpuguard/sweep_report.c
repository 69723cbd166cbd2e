/*
 * The totals, the summary and the verdict both kinds of sweep share (see
 * sweep.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"
#include "base/json_syntax.h"

void sweep_count_run(const sweep_options *opt, sweep_totals *t, child_outcome what, bool fired, bool replaced)
{
    t->runs++;
    t->outcomes[what]++;
    t->not_reached += !fired;
    t->replaced += replaced;
    t->capped = opt->max_runs > 0 && t->runs >= opt->max_runs;
}

void sweep_print_bug_counts(const sweep_totals *t)
{
    printf("; %ld crashes, %ld aborts, %ld hangs, %ld sanitizer reports\n", t->outcomes[CHILD_CRASH],
           t->outcomes[CHILD_ABORT], t->outcomes[CHILD_HANG], t->outcomes[CHILD_SANITIZER]);
}

long sweep_verdict(const sweep_options *opt, const sweep_totals *t)
{
    long bad = 0;
    for (int o = 0; o < CHILD_OUTCOME_COUNT; o++)
        if (child_outcome_is_bug((child_outcome)o))
            bad += t->outcomes[o];
    if (t->replaced > 0) {
        fprintf(stderr, "gpuguard sweep: FAILED: in %ld run(s) %s replaced the sweep's fault plan, so those runs "
                "tested its own plan instead\n", t->replaced, opt->command[0]);
        bad++;
    }
    if (t->runs > 0 && t->not_reached == t->runs) {
        fprintf(stderr, "gpuguard sweep: FAILED: no run reached its fault: the injected runs do not make the calls "
                "the counting run made (is %s deterministic?)\n", opt->command[0]);
        bad++;
    }
    if (t->runs == 0) {
        fprintf(stderr, "gpuguard sweep: FAILED: no injected run was made (--mode %s with errors that do not go "
                "with it?)\n", opt->async && !opt->immediate ? "async" : "immediate");
        bad++;
    }
    if (opt->fail_on_leak && t->leaks > 0) {
        fprintf(stderr, "gpuguard sweep: FAILED: %ld run(s) ended with live objects (--fail-on-leak)\n", t->leaks);
        bad++;
    }
    return bad;
}

bool sweep_write_json(const sweep_options *opt, const char *kind, cJSON *json_runs, const sweep_totals *t)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "command", opt->command[0]);
    cJSON_AddStringToObject(root, "kind", kind);
    cJSON_AddItemToObject(root, "runs", json_runs);
    cJSON *summary = cJSON_AddObjectToObject(root, "summary");
    for (int o = 0; o < CHILD_OUTCOME_COUNT; o++)
        cJSON_AddNumberToObject(summary, child_outcome_names[o], (double)t->outcomes[o]);
    cJSON_AddNumberToObject(summary, "leaks", (double)t->leaks);
    cJSON_AddNumberToObject(summary, "not_reached", (double)t->not_reached);
    cJSON_AddNumberToObject(summary, "plan_replaced", (double)t->replaced);
    char *text = gg__json_valid_utf8(cJSON_Print(root)); /* bytes not UTF-8 become U+FFFD */
    FILE *f = fopen(opt->json_path, "w");
    bool ok = f != NULL && text != NULL && fputs(text, f) >= 0;
    if (!ok)
        fprintf(stderr, "gpuguard sweep: cannot write %s: %s\n", opt->json_path, strerror(errno));
    if (f != NULL && fclose(f) != 0 && ok) {
        fprintf(stderr, "gpuguard sweep: cannot write %s: %s\n", opt->json_path, strerror(errno));
        ok = false;
    }
    free(text);
    cJSON_Delete(root);
    return ok;
}

bool sweep_is_sticky_error(const char *error)
{
    return strcmp(error, "illegal_address") == 0 || strcmp(error, "launch_failed") == 0 ||
           strcmp(error, "launch_timeout") == 0;
}
