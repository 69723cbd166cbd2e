/*
 * Fault injection: plans, the gate every driver call passes, and counts.
 *
 * The gate's fast path (no plan, nothing latched) is one relaxed load in
 * call.h. Everything here is the slow path and takes the plan lock: plans
 * are for tests, where determinism matters more than speed.
 */
#include "common/fault.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/fault_plan.h"
#include "common/fork.h"
#include "base/json_syntax.h"

#include "common/call.h"

/* Nonzero while a plan is loaded or an async error is latched somewhere. */
atomic_bool gg__fault_plan_loaded;

/* The plan in force, and how many calls of each operation it has seen. */
typedef struct fault_plan {
    gg__fault_plan *parsed;
    uint64_t calls[GG__OP_COUNT];
} fault_plan;

static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static fault_plan *plan;
static _Atomic unsigned latched_contexts;

_Static_assert(GG__OP_COUNT <= GG_FAULT_TARGETS_MAX, "a plan's target set cannot hold every operation");

static const char *const op_names[GG__OP_COUNT] = {
#define GG__OP_NAME(name, str) str,
    GG__OP_LIST(GG__OP_NAME)
#undef GG__OP_NAME
};

/* The operations a sync-point surfaces latched async errors at. */
static bool synchronizing(gg__op op)
{
    return op == GG__OP_STREAM_QUERY || op == GG__OP_STREAM_SYNCHRONIZE || op == GG__OP_EVENT_QUERY ||
           op == GG__OP_EVENT_SYNCHRONIZE || op == GG__OP_CTX_SYNCHRONIZE;
}

static void update_armed(void)
{
    atomic_store(&gg__fault_plan_loaded, plan != NULL || atomic_load(&latched_contexts) > 0);
}

/* What a plan's device and kernel filters see of a call (gg__fault_call). */
static int call_device(const void *self)
{
    const gg__call *c = self;
    return c->ctx != NULL ? c->ctx->device : -1;
}

static bool call_names_kernel(const void *self, const char *filter)
{
    const gg__call *c = self;
    return c->kernel_name != NULL && gg__record_names(filter, c->kernel_name);
}

int gg__fault_gate(struct gg__call *c, gg__op op)
{
    gg__context *ctx = c->ctx;
    if (ctx != NULL && synchronizing(op)) {
        int latched = atomic_load(&ctx->latched_fault);
        if (latched != 0) {
            c->injected = latched;
            return latched;
        }
    }
    pthread_mutex_lock(&plan_lock);
    if (plan == NULL) {
        pthread_mutex_unlock(&plan_lock);
        return 0;
    }
    plan->calls[op]++;
    int native = 0;
    const gg__fault_call call = {
        .target = (int)op, .self = c, .device = call_device, .names_kernel = call_names_kernel
    };
    gg__fault_rule *r;
    for (size_t i = 0; native == 0 && (r = gg__fault_plan_next_fired(plan->parsed, &call, &i)) != NULL; i++) {
        int code = c->b->native_for_status(r->error);
        if (r->async && ctx != NULL) {
            /* The call goes through; its error waits for the next sync. */
            int expected = 0;
            if (atomic_compare_exchange_strong(&ctx->latched_fault, &expected, code))
                atomic_fetch_add(&latched_contexts, 1);
        } else {
            native = code;
        }
    }
    update_armed();
    pthread_mutex_unlock(&plan_lock);
    return native;
}

void gg__fault_context_released(gg__context *ctx)
{
    if (atomic_exchange(&ctx->latched_fault, 0) != 0) {
        pthread_mutex_lock(&plan_lock);
        atomic_fetch_sub(&latched_contexts, 1);
        update_armed();
        pthread_mutex_unlock(&plan_lock);
    }
}

/* ---- what a plan's names mean to libgpuguard ------------------------- */

static bool op_targets(void *self, const char *name, gg__fault_targets *t)
{
    (void)self;
    for (int k = 0; k < GG__OP_COUNT; k++) {
        if (strcmp(name, op_names[k]) == 0) {
            gg__fault_targets_add(t, k);
            return true;
        }
    }
    return false;
}

static bool kills_context(void *self, gg_status error, bool numeric, int native)
{
    const gg__backend *b = self;
    (void)numeric;
    (void)native;
    return b->classify(b->native_for_status(error)).sticky;
}

static bool kernel_filter_allowed(void *self, const gg__fault_targets *t, bool any_target)
{
    (void)self;
    if (any_target)
        return false;
    for (int k = 0; k < GG__OP_COUNT; k++)
        if (gg__fault_targets_has(t, k) && k != GG__OP_LAUNCH && k != GG__OP_MODULE_GET_FUNCTION)
            return false;
    return true;
}

static gg_status parse_plan(const char *json, const gg__backend *b, fault_plan **out, char *message,
                            size_t message_size)
{
    const gg__fault_naming naming = {
        .self = (void *)b,
        .op_targets = op_targets,
        .kills_context = kills_context,
        .kernel_filter_allowed = kernel_filter_allowed,
        .kernel_filter_ops = "\"launch\" and \"kernel_get\"",
    };
    *out = NULL;
    fault_plan *p = gg__calloc(1, sizeof *p);
    if (p == NULL) {
        snprintf(message, message_size, "fault plan: out of memory for the plan");
        return GG_OUT_OF_MEMORY;
    }
    gg_status status = gg__fault_plan_parse(json, &naming, &p->parsed, message, message_size);
    if (status != GG_OK) {
        gg__free(p);
        return status;
    }
    *out = p;
    return GG_OK;
}

static void free_plan(fault_plan *p)
{
    if (p != NULL) {
        gg__fault_plan_free(p->parsed);
        gg__free(p);
    }
}

gg_status gg__fault_load_plan(const char *json, char *message, size_t message_size)
{
    fault_plan *p = NULL;
    gg_status status = parse_plan(json, &gg__lib.backend_storage, &p, message, message_size);
    if (status != GG_OK)
        return status;
    pthread_mutex_lock(&plan_lock);
    fault_plan *old = plan;
    plan = p;
    update_armed();
    pthread_mutex_unlock(&plan_lock);
    free_plan(old);
    return GG_OK;
}

void gg__fault_clear_plan(void)
{
    pthread_mutex_lock(&plan_lock);
    fault_plan *old = plan;
    plan = NULL;
    update_armed();
    pthread_mutex_unlock(&plan_lock);
    free_plan(old);
}

gg_status gg_fault_set_plan(const char *json)
{
    gg__call c = GG__CALL("gg_fault_set_plan");
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    if (json == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_fault_set_plan: json is NULL");
    char message[GG_MESSAGE_MAX];
    status = gg__fault_load_plan(json, message, sizeof message);
    return status == GG_OK ? GG_OK : gg__fail(&c, status, "gg_fault_set_plan: %s", message);
}

gg_status gg_fault_clear(void)
{
    gg__call c = GG__CALL("gg_fault_clear");
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    gg__fault_clear_plan();
    return GG_OK;
}

/* The counts as JSON; `live_objects` is what the report states as alive. */
static char *counts_text(uint64_t live_objects, const char *written_at)
{
    /* cJSON allocates every node; one fault point stands for them all. */
    if (gg__alloc_fault_point())
        return NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON *calls = cJSON_AddObjectToObject(root, "calls");
    cJSON *rules = cJSON_AddArrayToObject(root, "rules");
    pthread_mutex_lock(&plan_lock);
    /* The plan in force, so that a sweep can tell when the program replaced
     * (gg_fault_set_plan) or cleared (gg_fault_clear) the plan it set. */
    if (plan != NULL)
        cJSON_AddStringToObject(root, "plan", plan->parsed->source);
    else
        cJSON_AddNullToObject(root, "plan");
    for (int op = 0; op < GG__OP_COUNT; op++)
        cJSON_AddNumberToObject(calls, op_names[op], plan ? (double)plan->calls[op] : 0.0);
    for (size_t i = 0; plan && i < plan->parsed->count; i++) {
        const gg__fault_rule *r = &plan->parsed->rules[i];
        cJSON *rj = cJSON_CreateObject();
        cJSON_AddNumberToObject(rj, "rule", (double)i);
        cJSON_AddStringToObject(rj, "op", r->target_name);
        /* The kernel filter as accepted, so that a reader can tell which
         * rule is which when two name the same operation. */
        if (r->kernel[0] != '\0')
            cJSON_AddStringToObject(rj, "kernel", r->kernel);
        cJSON_AddNumberToObject(rj, "matched", (double)r->matched);
        cJSON_AddNumberToObject(rj, "fired", (double)r->fired);
        cJSON_AddItemToArray(rules, rj);
    }
    pthread_mutex_unlock(&plan_lock);
    cJSON_AddNumberToObject(root, "live_objects", (double)live_objects);
    if (written_at != NULL)
        cJSON_AddStringToObject(root, "written_at", written_at);
    gg__alloc_counts a = gg__alloc_counts_now();
    cJSON *host = cJSON_AddObjectToObject(root, "host_allocations");
    cJSON_AddNumberToObject(host, "made", (double)a.made);
    cJSON_AddNumberToObject(host, "fail_at", (double)a.fail_at);
    cJSON_AddBoolToObject(host, "failed", a.failed);
    /* cJSON copies a string's bytes as they are; the plan's were checked,
     * but the report is valid UTF-8 whatever comes into it later. */
    char *text = gg__json_valid_utf8(cJSON_Print(root));
    cJSON_Delete(root);
    return text;
}

char *gg__fault_counts_text(void)
{
    return counts_text(gg__handle_live_count(), NULL);
}

gg_status gg_fault_counts_json(char **json)
{
    gg__call c = GG__CALL("gg_fault_counts_json");
    if (json == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_fault_counts_json: json is NULL");
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    *json = gg__fault_counts_text();
    return *json ? GG_OK : gg__fail(&c, GG_OUT_OF_MEMORY, "gg_fault_counts_json: out of memory");
}

void gg__fault_write_report(const char *path, uint64_t live_objects, const char *written_at)
{
    if (path[0] == '\0')
        return;
    /* The report describes the run's allocations; its own are not counted
     * (and cannot be failed), so that it always gets written. */
    gg__alloc_suspend(true);
    char *text = counts_text(live_objects, written_at);
    gg__alloc_suspend(false);
    FILE *f = text ? fopen(path, "w") : NULL;
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    } else {
        gg__log(GG_LOG_WARN, 0, "cannot write the fault report to %s", path);
    }
    free(text);
}

void gg__fault_lock(bool take)
{
    if (take)
        pthread_mutex_lock(&plan_lock);
    else
        pthread_mutex_unlock(&plan_lock);
}
