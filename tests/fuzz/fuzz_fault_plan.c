/* libFuzzer harness: the fault-plan parser (gg_fault_set_plan), through the
 * public API over the simulated driver. Contracts: any text is accepted
 * (GG_OK) or refused with GG_INVALID_ARGUMENT and a message (never
 * GG_OUT_OF_MEMORY: nothing fails allocations here, so that would mean the
 * strict syntax check passed a text cJSON then refused); a refused plan
 * leaves the plan in force as it was; an accepted plan's counts are JSON
 * naming exactly that plan. Issue 26's contracts: an accepted plan is
 * valid UTF-8, has no \u0000 and names no member twice (checked here
 * independently of the library's checker); the counts are valid JSON in
 * valid UTF-8 and name the same rules, ops and kernels as the accepted
 * plan; and gg_objects_json, with the input as an object's tag, is valid JSON
 * in valid UTF-8 that gives a valid short tag back as it was (the input as
 * a buffer's tag). */
#include <cjson/cJSON.h>

#include "fuzz_json.h"
#include "fuzz_support.h"

static const char *const sentinel = "[{\"op\":\"event_elapsed\",\"nth\":999,\"error\":\"driver\"}]";
static gg_context ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (fuzz_init_sim() != GG_OK || gg_context_create(0, NULL, &ctx) != GG_OK) {
        fprintf(stderr, "fuzz_fault_plan: gg_init and a context over the simulator failed\n");
        abort();
    }
    return 0;
}

/* The counts, parsed, after checking they are UTF-8 and JSON. */
static cJSON *counts_now(void)
{
    char *json = NULL;
    FUZZ_CHECK(gg_fault_counts_json(&json) == GG_OK, "gg_fault_counts_json");
    size_t bad = 0;
    FUZZ_CHECK(fuzz_utf8_valid(json, &bad), "the counts are not UTF-8 at byte %zu: %s", bad, json);
    cJSON *root = cJSON_Parse(json);
    FUZZ_CHECK(root != NULL, "the counts are not JSON: %s", json);
    gg_free(json);
    return root;
}

/* The "plan" the counts name: the text of the plan in force. */
static char *plan_in_force(const cJSON *counts)
{
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(counts, "plan");
    return cJSON_IsString(plan) ? strdup(plan->valuestring) : NULL;
}

static const char *string_field(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* An accepted plan: what it is made of, and what the counts say of it. */
static void check_accepted(const char *text, const cJSON *counts)
{
    size_t bad = 0;
    const char *twice = NULL;
    FUZZ_CHECK(fuzz_utf8_valid(text, &bad), "a plan with bytes that are not UTF-8 (at %zu) was accepted", bad);
    FUZZ_CHECK(!fuzz_has_nul_escape(text), "a plan with \\u0000 was accepted");
    cJSON *plan = cJSON_Parse(text);
    FUZZ_CHECK(plan != NULL, "an accepted plan is not JSON to cJSON");
    FUZZ_CHECK(fuzz_names_unique(plan, &twice), "a plan naming \"%s\" twice in an object was accepted", twice);
    const cJSON *rules = cJSON_IsArray(plan) ? plan : cJSON_GetObjectItemCaseSensitive(plan, "rules");
    const cJSON *counted = cJSON_GetObjectItemCaseSensitive(counts, "rules");
    FUZZ_CHECK(cJSON_GetArraySize(rules) == cJSON_GetArraySize(counted), "%d rules accepted, %d counted",
               cJSON_GetArraySize(rules), cJSON_GetArraySize(counted));
    int i = 0;
    for (const cJSON *r = rules->child, *c = counted->child; r != NULL; r = r->next, c = c->next, i++) {
        const char *op = string_field(r, "op"), *kernel = string_field(r, "kernel");
        const char *op_back = string_field(c, "op"), *kernel_back = string_field(c, "kernel");
        FUZZ_CHECK(op != NULL && op_back != NULL && strcmp(op, op_back) == 0, "rule %d: \"op\" %s counted as %s", i,
                   op ? op : "(none)", op_back ? op_back : "(none)");
        FUZZ_CHECK((kernel == NULL) == (kernel_back == NULL) && (kernel == NULL || strcmp(kernel, kernel_back) == 0),
                   "rule %d: \"kernel\" %s counted as %s", i, kernel ? kernel : "(none)",
                   kernel_back ? kernel_back : "(none)");
    }
    cJSON_Delete(plan);
}

/* Whether any "tag" in the dump is `tag`. */
static bool has_tag(const cJSON *j, const char *tag)
{
    for (const cJSON *c = j ? j->child : NULL; c != NULL; c = c->next) {
        if (c->string != NULL && strcmp(c->string, "tag") == 0 && cJSON_IsString(c) && strcmp(c->valuestring, tag) == 0)
            return true;
        if (has_tag(c, tag))
            return true;
    }
    return false;
}

/* The input as a buffer's tag (a buffer: a stream would cost a simulator
 * thread per input): the dump stays UTF-8 and JSON, and a tag that is
 * valid UTF-8 and short enough to be kept whole comes back. */
static void check_dump(const char *text)
{
    gg_buffer b;
    FUZZ_CHECK(gg_buffer_create(ctx, 16, &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .tag = text }, &b) == GG_OK, "gg_buffer_create");
    char *dump = NULL;
    FUZZ_CHECK(gg_objects_json(&dump) == GG_OK, "gg_objects_json");
    size_t bad = 0;
    FUZZ_CHECK(fuzz_utf8_valid(dump, &bad), "the dump is not UTF-8 at byte %zu", bad);
    cJSON *root = cJSON_Parse(dump);
    FUZZ_CHECK(root != NULL, "the dump is not JSON: %s", dump);
    if (fuzz_utf8_valid(text, &bad) && strlen(text) < GG_NAME_MAX)
        FUZZ_CHECK(has_tag(root, text), "the tag did not come back: %s", dump);
    cJSON_Delete(root);
    gg_free(dump);
    FUZZ_CHECK(gg_buffer_destroy(b) == GG_OK, "gg_buffer_destroy");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    FUZZ_CHECK(gg_fault_set_plan(sentinel) == GG_OK, "the sentinel plan");
    gg_status s = gg_fault_set_plan(text);
    fuzz_check_status(s, "gg_fault_set_plan");
    FUZZ_CHECK(s == GG_OK || s == GG_INVALID_ARGUMENT, "gg_fault_set_plan returned %s", gg_status_name(s));
    cJSON *counts = counts_now();
    char *in_force = plan_in_force(counts);
    FUZZ_CHECK(in_force != NULL, "no plan in force after gg_fault_set_plan");
    FUZZ_CHECK(strcmp(in_force, s == GG_OK ? text : sentinel) == 0, "%s, yet the plan in force is %s",
               gg_status_name(s), in_force);
    if (s == GG_OK)
        check_accepted(text, counts);
    free(in_force);
    cJSON_Delete(counts);
    FUZZ_CHECK(gg_fault_clear() == GG_OK, "gg_fault_clear");
    check_dump(text);
    free(text);
    return 0;
}
