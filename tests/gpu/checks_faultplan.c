/* Checks: fault plans over the real driver, immediate and asynchronous. */
#include <stdio.h>
#include <string.h>

#include "gc_check.h"
#include "gc_checks.h"

/* The "fired" count of rule `rule` in gg_fault_counts_json, or -1. */
static int rule_fired(int rule)
{
    char *json = NULL;
    if (gg_fault_counts_json(&json) != GG_OK)
        return -1;
    cJSON *root = cJSON_Parse(json);
    gg_free(json);
    cJSON *entry = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "rules"), rule);
    cJSON *fired = cJSON_GetObjectItem(entry, "fired");
    int n = cJSON_IsNumber(fired) ? (int)cJSON_GetNumberValue(fired) : -1;
    cJSON_Delete(root);
    return n;
}

void check_fault_plan_immediate(const gc_env *env, gc_result *r)
{
    gg_init_desc desc = {
        .struct_size = sizeof(gg_init_desc), .fault_plan_json = "{\"rules\": [{\"op\": \"alloc\", \"nth\": 2, \"error\": \"out_of_memory\"}]}",
    };
    gc_session s;
    gg_buffer a, b, c;
    if (!gc_init(r, env, &desc) || !gc_open(r, env, "plan-immediate", &s) ||
        !gc_ok(r, gg_buffer_create(s.ctx, 1 << 20, NULL, &a), "the 1st gg_buffer_create") ||
        !gc_expect(r, gg_buffer_create(s.ctx, 1 << 20, NULL, &b), GG_OUT_OF_MEMORY,
                   "the 2nd gg_buffer_create (the plan fails it)"))
        return;
    gc_figure_last_error(r, "error");
    if (gg_context_state(s.ctx) != GG_STATE_ALIVE)
        return (void)gc_fail(r, "an injected out-of-memory left the context in state %d", (int)gg_context_state(s.ctx));
    if (!gc_ok(r, gg_buffer_create(s.ctx, 1 << 20, NULL, &c), "the 3rd gg_buffer_create") ||
        !gc_computes(r, &s, 1 << 16, 17))
        return;
    int fired = rule_fired(0);
    gc_figure_num(r, "fired", fired);
    if (fired != 1)
        return (void)gc_fail(r, "gg_fault_counts_json says the rule fired %d times, expected 1", fired);
    gc_note(r, "the 2nd allocation failed with GG_OUT_OF_MEMORY, the context stayed ALIVE and computes");
}

void check_fault_plan_async(const gc_env *env, gc_result *r)
{
    gg_init_desc desc = {
        .struct_size = sizeof(gg_init_desc), .fault_plan_json = "{\"rules\": [{\"op\": \"launch\", \"kernel\": \"add_one_u32\", \"nth\": 2, "
                           "\"error\": \"illegal_address\", \"mode\": \"async\"}]}",
    };
    gc_session s;
    gg_kernel add_one;
    gg_buffer buf;
    uint64_t ptr = 0;
    uint32_t n = 1024;
    void *params[] = { &ptr, &n };
    if (!gc_init(r, env, &desc) || !gc_open(r, env, "plan-async", &s) || !gc_kernel(r, &s, "add_one_u32", &add_one) ||
        !gc_ok(r, gg_buffer_create(s.ctx, n * 4, NULL, &buf), "gg_buffer_create") ||
        !gc_ok(r, gg_buffer_device_ptr(buf, &ptr), "gg_buffer_device_ptr") ||
        !gc_ok(r, gg_memset(buf, 0, 0, n * 4, GG_NO_STREAM), "gg_memset") ||
        !gc_ok(r, gc_launch(add_one, s.stream, 4, 256, params, 2), "the 1st gg_launch") ||
        !gc_ok(r, gg_stream_synchronize(s.stream, NULL), "gg_stream_synchronize") ||
        !gc_ok(r, gc_launch(add_one, s.stream, 4, 256, params, 2), "the 2nd gg_launch (async fault: returns GG_OK)"))
        return;
    gg_status st = gg_stream_synchronize(s.stream, NULL);
    gc_figure_last_error(r, "error");
    if (!gc_expect(r, st, GG_ILLEGAL_ADDRESS, "gg_stream_synchronize after the faulted launch"))
        return;
    gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    if (strcmp(e.culprit.kernel_name, "add_one_u32") != 0 || e.culprit.sequence != 2)
        return (void)gc_fail(r, "culprit '%s' #%llu, expected add_one_u32 #2", e.culprit.kernel_name,
                             (unsigned long long)e.culprit.sequence);
    if (gg_context_state(s.ctx) != GG_STATE_DEAD)
        return (void)gc_fail(r, "context not DEAD after the injected asynchronous fault");
    /* An injected sticky fault poisons the process as a real one would. */
    bool recovered;
    if (!gc_recover_as_the_driver_allows(r, env, &s, &recovered))
        return;
    if (!recovered)
        return gc_note(r, "the 2nd add_one_u32 launch surfaced as GG_ILLEGAL_ADDRESS at the next synchronize, "
                       "culprit add_one_u32 #2, DEAD; recovery refused with GG_PROCESS_POISONED, as after a real "
                       "fault");
    gc_session fresh = { .ctx = s.ctx };
    if (!gc_ok(r, gg_module_create_from_file(s.ctx, env->kernel_image, NULL, &fresh.module), "gg_module_create_from_file") ||
        !gc_ok(r, gg_stream_create(s.ctx, &(gg_stream_desc){ .struct_size = sizeof(gg_stream_desc), .tag = "after" }, &fresh.stream), "gg_stream_create") ||
        !gc_computes(r, &fresh, 1 << 16, 8))
        return;
    gc_note(r, "the 2nd add_one_u32 launch surfaced as GG_ILLEGAL_ADDRESS at the next synchronize, culprit "
            "add_one_u32 #2, DEAD; recovered and computes");
}
