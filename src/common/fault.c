/*
 * Fault injection: plans, the gate every driver call passes, and counts.
 *
 * The gate's fast path (no plan, nothing latched) is one relaxed load in
 * call.h. Everything here is the slow path and takes the plan lock: plans
 * are for tests, where determinism matters more than speed.
 */
#include "common/fault.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/fork.h"
#include "common/json_syntax.h"

#include "common/call.h"

/* Nonzero while a plan is loaded or an async error is latched somewhere. */
atomic_bool gg__fault_plan_loaded;

typedef enum which_calls { WHICH_ALL, WHICH_NTH, WHICH_RANGE, WHICH_EVERY, WHICH_PROBABILITY } which_calls;

typedef struct fault_rule {
    int op;                 /* gg__op, or -1 for any */
    which_calls which;
    uint64_t first, last;   /* NTH: first == last; RANGE: last 0 = open-ended */
    uint64_t every;
    double probability;
    uint64_t rng;           /* PROBABILITY: this rule's generator state */
    int device;             /* -1 = any */
    char kernel[GG_NAME_MAX]; /* "" = any */
    gg_status error;
    bool async;
    uint64_t matched, fired;
} fault_rule;

typedef struct fault_plan {
    fault_rule *rules;
    size_t count;
    uint64_t calls[GG__OP_COUNT];
    char *source; /* the plan's text, reported so a sweep can tell its plan is the one in force */
} fault_plan;

static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static fault_plan *plan;
static _Atomic unsigned latched_contexts;

static const char *const op_names[GG__OP_COUNT] = {
#define GG__OP_NAME(name, str) str,
    GG__OP_LIST(GG__OP_NAME)
#undef GG__OP_NAME
};

static const struct {
    const char *name;
    gg_status status;
} error_names[] = {
    { "out_of_memory", GG_OUT_OF_MEMORY }, { "launch_failed", GG_LAUNCH_FAILED },
    { "illegal_address", GG_ILLEGAL_ADDRESS }, { "launch_timeout", GG_LAUNCH_TIMEOUT },
    { "not_ready", GG_NOT_READY }, { "no_device", GG_NO_DEVICE },
    { "invalid_argument", GG_INVALID_ARGUMENT }, { "driver", GG_DRIVER },
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

/* splitmix64: small, seedable, and the same sequence on every platform. */
static double next_uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / (double)(1ull << 53);
}

static bool rule_selects(fault_rule *r)
{
    uint64_t n = r->matched;
    switch (r->which) {
    case WHICH_ALL: return true;
    case WHICH_NTH: return n == r->first;
    case WHICH_RANGE: return n >= r->first && (r->last == 0 || n <= r->last);
    case WHICH_EVERY: return n >= r->first && (n - r->first) % r->every == 0;
    case WHICH_PROBABILITY: return next_uniform(&r->rng) < r->probability;
    }
    return false;
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
    for (size_t i = 0; i < plan->count && native == 0; i++) {
        fault_rule *r = &plan->rules[i];
        if ((r->op >= 0 && r->op != (int)op) || (r->device >= 0 && (ctx == NULL || ctx->device != r->device)) ||
            (r->kernel[0] && (c->kernel_name == NULL || strcmp(r->kernel, c->kernel_name) != 0)))
            continue;
        r->matched++;
        if (!rule_selects(r))
            continue;
        r->fired++;
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

/* ---- parsing ---------------------------------------------------------- */

#define PLAN_ERROR(...) do { snprintf(message, message_size, __VA_ARGS__); return false; } while (0)

static bool get_count(const cJSON *rule, const char *field, size_t index, uint64_t min, uint64_t *out,
                      bool *present, char *message, size_t message_size)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(rule, field);
    *present = v != NULL;
    if (v == NULL)
        return true;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < (double)min ||
        v->valuedouble > 9007199254740992.0)
        PLAN_ERROR("fault plan: rule %zu: \"%s\" must be a whole number >= %llu", index, field,
                   (unsigned long long)min);
    *out = (uint64_t)v->valuedouble;
    return true;
}

static bool parse_rule(const cJSON *j, size_t index, uint64_t seed, const gg__backend *b, fault_rule *r,
                       char *message, size_t message_size)
{
    static const char *const known[] = { "op", "nth", "from", "to", "every", "probability", "device",
                                         "kernel", "error", "mode" };
    memset(r, 0, sizeof *r);
    r->device = -1;
    if (!cJSON_IsObject(j))
        PLAN_ERROR("fault plan: rule %zu is not a JSON object", index);
    for (const cJSON *f = j->child; f != NULL; f = f->next) {
        bool ok = false;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            ok = ok || strcmp(f->string, known[k]) == 0;
        if (!ok)
            PLAN_ERROR("fault plan: rule %zu: unknown field \"%s\"", index, f->string);
    }
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(j, "op");
    if (!cJSON_IsString(op))
        PLAN_ERROR("fault plan: rule %zu: \"op\" is missing or not a string", index);
    r->op = -2;
    if (strcmp(op->valuestring, "*") == 0)
        r->op = -1;
    for (int k = 0; k < GG__OP_COUNT; k++)
        if (strcmp(op->valuestring, op_names[k]) == 0)
            r->op = k;
    if (r->op == -2)
        PLAN_ERROR("fault plan: rule %zu: \"op\": unknown operation \"%s\"", index, op->valuestring);

    const cJSON *err = cJSON_GetObjectItemCaseSensitive(j, "error");
    if (!cJSON_IsString(err))
        PLAN_ERROR("fault plan: rule %zu: \"error\" is missing or not a string", index);
    bool found = false;
    for (size_t k = 0; k < sizeof error_names / sizeof error_names[0]; k++) {
        if (strcmp(err->valuestring, error_names[k].name) == 0) {
            r->error = error_names[k].status;
            found = true;
        }
    }
    if (!found)
        PLAN_ERROR("fault plan: rule %zu: \"error\": unknown error \"%s\"", index, err->valuestring);

    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(j, "mode");
    if (mode != NULL) {
        if (!cJSON_IsString(mode) || (strcmp(mode->valuestring, "immediate") != 0 &&
                                      strcmp(mode->valuestring, "async") != 0))
            PLAN_ERROR("fault plan: rule %zu: \"mode\" must be \"immediate\" or \"async\"", index);
        r->async = strcmp(mode->valuestring, "async") == 0;
        if (r->async && !b->classify(b->native_for_status(r->error)).sticky)
            PLAN_ERROR("fault plan: rule %zu: \"mode\": \"async\" needs an error that kills the context "
                       "(launch_failed, illegal_address, launch_timeout), not \"%s\"", index, err->valuestring);
    }

    uint64_t nth = 0, from = 0, to = 0, every = 0;
    bool has_nth, has_from, has_to, has_every;
    if (!get_count(j, "nth", index, 1, &nth, &has_nth, message, message_size) ||
        !get_count(j, "from", index, 1, &from, &has_from, message, message_size) ||
        !get_count(j, "to", index, 1, &to, &has_to, message, message_size) ||
        !get_count(j, "every", index, 1, &every, &has_every, message, message_size))
        return false;
    const cJSON *prob = cJSON_GetObjectItemCaseSensitive(j, "probability");
    int selectors = has_nth + (has_from || has_to) * !has_every + has_every + (prob != NULL);
    if (selectors > 1)
        PLAN_ERROR("fault plan: rule %zu: choose one of \"nth\", \"from\"/\"to\", \"every\", \"probability\"", index);
    if (has_nth) {
        r->which = WHICH_NTH;
        r->first = r->last = nth;
    } else if (has_every) {
        if (has_to)
            PLAN_ERROR("fault plan: rule %zu: \"to\" does not go with \"every\"", index);
        r->which = WHICH_EVERY;
        r->every = every;
        r->first = has_from ? from : every;
    } else if (has_from || has_to) {
        r->which = WHICH_RANGE;
        r->first = has_from ? from : 1;
        r->last = has_to ? to : 0;
        if (has_to && r->last < r->first)
            PLAN_ERROR("fault plan: rule %zu: \"to\" (%llu) is before \"from\" (%llu)", index,
                       (unsigned long long)r->last, (unsigned long long)r->first);
    } else if (prob != NULL) {
        if (!cJSON_IsNumber(prob) || prob->valuedouble < 0.0 || prob->valuedouble > 1.0)
            PLAN_ERROR("fault plan: rule %zu: \"probability\" must be a number from 0 to 1", index);
        r->which = WHICH_PROBABILITY;
        r->probability = prob->valuedouble;
        r->rng = seed ^ (0x51ed2701ull * (index + 1));
    }

    const cJSON *device = cJSON_GetObjectItemCaseSensitive(j, "device");
    if (device != NULL) {
        if (!cJSON_IsNumber(device) || device->valuedouble != floor(device->valuedouble) || device->valuedouble < 0 ||
            device->valuedouble > 1024)
            PLAN_ERROR("fault plan: rule %zu: \"device\" must be a device index", index);
        r->device = (int)device->valuedouble;
    }
    const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(j, "kernel");
    if (kernel != NULL) {
        if (!cJSON_IsString(kernel) || kernel->valuestring[0] == '\0' ||
            strlen(kernel->valuestring) >= sizeof r->kernel)
            PLAN_ERROR("fault plan: rule %zu: \"kernel\" must be a non-empty kernel name", index);
        if (r->op != GG__OP_LAUNCH && r->op != GG__OP_MODULE_GET_FUNCTION)
            PLAN_ERROR("fault plan: rule %zu: \"kernel\" only filters \"launch\" and \"kernel_get\"", index);
        snprintf(r->kernel, sizeof r->kernel, "%s", kernel->valuestring);
    }
    return true;
}

static void free_plan(fault_plan *p)
{
    if (p != NULL) {
        gg__free(p->rules);
        gg__free(p->source);
        gg__free(p);
    }
}

/* A whole number from 0 to 2^53 (the largest a double holds exactly), so
 * the conversion to an integer is always defined. */
static bool whole_number(const cJSON *v, double max)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= max &&
           v->valuedouble == floor(v->valuedouble);
}

/* GG_OK with *out set, GG_INVALID_ARGUMENT for a bad plan, GG_OUT_OF_MEMORY;
 * `message` says which. */
static gg_status parse_plan(const char *json, const gg__backend *b, fault_plan **out, char *message,
                            size_t message_size)
{
    char syntax[128];
    *out = NULL;
    if (!gg__json_check_syntax(json, syntax, sizeof syntax)) {
        snprintf(message, message_size, "fault plan: not valid JSON: %s", syntax);
        return GG_INVALID_ARGUMENT;
    }
    /* The syntax is right, so cJSON fails only for want of memory. */
    cJSON *root = gg__alloc_fault_point() ? NULL : cJSON_ParseWithOpts(json, NULL, true);
    if (root == NULL) {
        snprintf(message, message_size, "fault plan: out of memory parsing the JSON");
        return GG_OUT_OF_MEMORY;
    }
    gg_status status = GG_INVALID_ARGUMENT;
    const cJSON *rules = root;
    uint64_t seed = 0;
    fault_plan *p = NULL;
    if (cJSON_IsObject(root)) {
        for (const cJSON *f = root->child; f != NULL; f = f->next)
            if (strcmp(f->string, "rules") != 0 && strcmp(f->string, "seed") != 0) {
                snprintf(message, message_size, "fault plan: unknown top-level field \"%s\"", f->string);
                goto done;
            }
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "seed");
        if (s != NULL && !whole_number(s, 9007199254740992.0)) {
            snprintf(message, message_size, "fault plan: \"seed\" must be a whole number from 0 to 2^53");
            goto done;
        }
        seed = s != NULL ? (uint64_t)s->valuedouble : 0;
        rules = cJSON_GetObjectItemCaseSensitive(root, "rules");
        if (rules == NULL) {
            snprintf(message, message_size, "fault plan: the object has no \"rules\" (use \"rules\": [] for a "
                     "plan that only counts calls)");
            goto done;
        }
    }
    if (!cJSON_IsArray(rules)) {
        snprintf(message, message_size, "fault plan: expected {\"rules\": [...]} or an array of rules, not %s",
                 rules == root ? "this JSON value" : "this \"rules\" value");
        goto done;
    }
    status = GG_OUT_OF_MEMORY;
    p = gg__calloc(1, sizeof *p);
    if (p == NULL) {
        snprintf(message, message_size, "fault plan: out of memory for the plan");
        goto done;
    }
    p->count = (size_t)cJSON_GetArraySize(rules);
    p->rules = p->count ? gg__calloc(p->count, sizeof *p->rules) : NULL;
    if (p->count != 0 && p->rules == NULL) {
        snprintf(message, message_size, "fault plan: out of memory for its %zu rules", p->count);
        goto done;
    }
    if ((p->source = gg__strdup(json)) == NULL) {
        snprintf(message, message_size, "fault plan: out of memory for a copy of its text");
        goto done;
    }
    status = GG_INVALID_ARGUMENT;
    size_t i = 0;
    for (const cJSON *r = rules->child; r != NULL; r = r->next, i++)
        if (!parse_rule(r, i, seed, b, &p->rules[i], message, message_size))
            goto done;
    status = GG_OK;
    *out = p;
    p = NULL;
done:
    free_plan(p);
    cJSON_Delete(root);
    return status;
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
        cJSON_AddStringToObject(root, "plan", plan->source);
    else
        cJSON_AddNullToObject(root, "plan");
    for (int op = 0; op < GG__OP_COUNT; op++)
        cJSON_AddNumberToObject(calls, op_names[op], plan ? (double)plan->calls[op] : 0.0);
    for (size_t i = 0; plan && i < plan->count; i++) {
        const fault_rule *r = &plan->rules[i];
        cJSON *rj = cJSON_CreateObject();
        cJSON_AddNumberToObject(rj, "rule", (double)i);
        cJSON_AddStringToObject(rj, "op", r->op < 0 ? "*" : op_names[r->op]);
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
    char *text = cJSON_Print(root);
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
