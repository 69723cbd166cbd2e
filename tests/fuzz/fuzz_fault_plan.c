/* libFuzzer harness: the fault-plan parser (gg_fault_set_plan), through the
 * public API over the simulated driver. Contracts: any text is accepted
 * (GG_OK) or refused with GG_INVALID_ARGUMENT and a message (never
 * GG_OUT_OF_MEMORY: nothing fails allocations here, so that would mean the
 * strict syntax check passed a text cJSON then refused); a refused plan
 * leaves the plan in force as it was; an accepted plan's counts are JSON
 * naming exactly that plan. */
#include <cjson/cJSON.h>

#include "fuzz_support.h"

static const char *const sentinel = "[{\"op\":\"event_elapsed\",\"nth\":999,\"error\":\"driver\"}]";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (fuzz_init_sim() != GG_OK) {
        fprintf(stderr, "fuzz_fault_plan: gg_init over the simulator failed\n");
        abort();
    }
    return 0;
}

/* The "plan" the counts name: the text of the plan in force. */
static char *plan_in_force(void)
{
    char *json = NULL;
    FUZZ_CHECK(gg_fault_counts_json(&json) == GG_OK, "gg_fault_counts_json");
    cJSON *root = cJSON_Parse(json);
    FUZZ_CHECK(root != NULL, "the counts are not JSON: %s", json);
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(root, "plan");
    char *text = cJSON_IsString(plan) ? strdup(plan->valuestring) : NULL;
    cJSON_Delete(root);
    gg_free(json);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    FUZZ_CHECK(gg_fault_set_plan(sentinel) == GG_OK, "the sentinel plan");
    gg_status s = gg_fault_set_plan(text);
    fuzz_check_status(s, "gg_fault_set_plan");
    FUZZ_CHECK(s == GG_OK || s == GG_INVALID_ARGUMENT, "gg_fault_set_plan returned %s", gg_status_name(s));
    char *in_force = plan_in_force();
    FUZZ_CHECK(in_force != NULL, "no plan in force after gg_fault_set_plan");
    FUZZ_CHECK(strcmp(in_force, s == GG_OK ? text : sentinel) == 0, "%s, yet the plan in force is %s",
               gg_status_name(s), in_force);
    free(in_force);
    FUZZ_CHECK(gg_fault_clear() == GG_OK, "gg_fault_clear");
    free(text);
    return 0;
}
