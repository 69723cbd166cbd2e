/*
 * Fault plans: parsing and rule selection (see fault_plan.h).
 */
#include "base/fault_plan.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json_syntax.h"

static const struct {
    const char *name;
    gg_status status;
} error_names[] = {
    { "out_of_memory", GG_OUT_OF_MEMORY }, { "launch_failed", GG_LAUNCH_FAILED },
    { "illegal_address", GG_ILLEGAL_ADDRESS }, { "launch_timeout", GG_LAUNCH_TIMEOUT },
    { "not_ready", GG_NOT_READY }, { "no_device", GG_NO_DEVICE },
    { "invalid_argument", GG_INVALID_ARGUMENT }, { "driver", GG_DRIVER },
};

const char *gg__fault_error_name(gg_status status)
{
    for (size_t k = 0; k < sizeof error_names / sizeof error_names[0]; k++)
        if (error_names[k].status == status)
            return error_names[k].name;
    return NULL;
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

bool gg__fault_rule_hit(gg__fault_rule *r)
{
    uint64_t n = ++r->matched;
    bool selected = false;
    switch (r->which) {
    case GG_FAULT_WHICH_ALL: selected = true; break;
    case GG_FAULT_WHICH_NTH: selected = n == r->first; break;
    case GG_FAULT_WHICH_RANGE: selected = n >= r->first && (r->last == 0 || n <= r->last); break;
    case GG_FAULT_WHICH_EVERY: selected = n >= r->first && (n - r->first) % r->every == 0; break;
    case GG_FAULT_WHICH_PROBABILITY: selected = next_uniform(&r->rng) < r->probability; break;
    }
    if (selected)
        r->fired++;
    return selected;
}

/* Whether rule `r` concerns `call` (before its selection counts it). */
static bool rule_matches(const gg__fault_rule *r, const gg__fault_call *call)
{
    if (!r->any_target && !gg__fault_targets_has(&r->targets, call->target))
        return false;
    if (r->device >= 0 && call->device(call->self) != r->device)
        return false;
    if (r->kernel[0] != '\0' && (call->names_kernel == NULL || !call->names_kernel(call->self, r->kernel)))
        return false;
    return true;
}

gg__fault_rule *gg__fault_plan_next_fired(gg__fault_plan *p, const gg__fault_call *call, size_t *from)
{
    for (size_t i = *from; i < p->count; i++) {
        gg__fault_rule *r = &p->rules[i];
        if (rule_matches(r, call) && gg__fault_rule_hit(r)) {
            *from = i;
            return r;
        }
    }
    *from = p->count;
    return NULL;
}

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

/* "op" or (where the naming has it) "function": exactly one, naming
 * something the caller knows. */
static bool parse_target(const cJSON *j, size_t index, const gg__fault_naming *naming, gg__fault_rule *r,
                         char *message, size_t message_size)
{
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(j, "op");
    const cJSON *function = naming->function_targets ? cJSON_GetObjectItemCaseSensitive(j, "function") : NULL;
    if (op != NULL && function != NULL)
        PLAN_ERROR("fault plan: rule %zu: give \"op\" or \"function\", not both", index);
    if (function != NULL) {
        if (!cJSON_IsString(function) || function->valuestring[0] == '\0')
            PLAN_ERROR("fault plan: rule %zu: \"function\" must be a driver function's name", index);
        if (!naming->function_targets(naming->self, function->valuestring, &r->targets))
            PLAN_ERROR("fault plan: rule %zu: \"function\": unknown driver function \"%s\"", index,
                       function->valuestring);
        r->target_field = "function";
        r->target_name = gg__strdup(function->valuestring);
        return true;
    }
    if (!cJSON_IsString(op))
        PLAN_ERROR("fault plan: rule %zu: \"op\" is missing or not a string", index);
    r->target_field = "op";
    if (strcmp(op->valuestring, "*") == 0)
        r->any_target = true;
    else if (!naming->op_targets(naming->self, op->valuestring, &r->targets))
        PLAN_ERROR("fault plan: rule %zu: \"op\": unknown operation \"%s\"", index, op->valuestring);
    r->target_name = gg__strdup(op->valuestring);
    return true;
}

static bool parse_error(const cJSON *j, size_t index, const gg__fault_naming *naming, gg__fault_rule *r,
                        char *message, size_t message_size)
{
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(j, "error");
    if (naming->numeric_errors && cJSON_IsNumber(err)) {
        if (err->valuedouble != floor(err->valuedouble) || err->valuedouble < 1 || err->valuedouble > 100000)
            PLAN_ERROR("fault plan: rule %zu: \"error\": a driver error code is a whole number from 1 to "
                       "100000", index);
        r->error = GG_DRIVER;
        r->has_native_error = true;
        r->native_error = (int)err->valuedouble;
        return true;
    }
    if (!cJSON_IsString(err))
        PLAN_ERROR("fault plan: rule %zu: \"error\" is missing or not a %s", index,
                   naming->numeric_errors ? "string or a driver error code" : "string");
    for (size_t k = 0; k < sizeof error_names / sizeof error_names[0]; k++) {
        if (strcmp(err->valuestring, error_names[k].name) == 0) {
            r->error = error_names[k].status;
            return true;
        }
    }
    PLAN_ERROR("fault plan: rule %zu: \"error\": unknown error \"%s\"", index, err->valuestring);
}

static bool parse_rule(const cJSON *j, size_t index, uint64_t seed, const gg__fault_naming *naming,
                       gg__fault_rule *r, char *message, size_t message_size)
{
    static const char *const known[] = { "op", "nth", "from", "to", "every", "probability", "device",
                                         "kernel", "error", "mode" };
    r->device = -1;
    if (!cJSON_IsObject(j))
        PLAN_ERROR("fault plan: rule %zu is not a JSON object", index);
    for (const cJSON *f = j->child; f != NULL; f = f->next) {
        bool ok = naming->function_targets != NULL && strcmp(f->string, "function") == 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            ok = ok || strcmp(f->string, known[k]) == 0;
        if (!ok)
            PLAN_ERROR("fault plan: rule %zu: unknown field \"%s\"", index, f->string);
    }
    if (!parse_target(j, index, naming, r, message, message_size))
        return false;
    if (!parse_error(j, index, naming, r, message, message_size))
        return false;

    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(j, "mode");
    if (mode != NULL) {
        if (!cJSON_IsString(mode) || (strcmp(mode->valuestring, "immediate") != 0 &&
                                      strcmp(mode->valuestring, "async") != 0))
            PLAN_ERROR("fault plan: rule %zu: \"mode\" must be \"immediate\" or \"async\"", index);
        r->async = strcmp(mode->valuestring, "async") == 0;
        if (r->async && !naming->kills_context(naming->self, r->error, r->has_native_error, r->native_error)) {
            char what[32];
            const cJSON *err = cJSON_GetObjectItemCaseSensitive(j, "error");
            if (r->has_native_error)
                snprintf(what, sizeof what, "%d", r->native_error);
            else
                snprintf(what, sizeof what, "%s", err->valuestring);
            PLAN_ERROR("fault plan: rule %zu: \"mode\": \"async\" needs an error that kills the context "
                       "(launch_failed, illegal_address, launch_timeout), not \"%s\"", index, what);
        }
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
        r->which = GG_FAULT_WHICH_NTH;
        r->first = r->last = nth;
    } else if (has_every) {
        if (has_to)
            PLAN_ERROR("fault plan: rule %zu: \"to\" does not go with \"every\"", index);
        r->which = GG_FAULT_WHICH_EVERY;
        r->every = every;
        r->first = has_from ? from : every;
    } else if (has_from || has_to) {
        r->which = GG_FAULT_WHICH_RANGE;
        r->first = has_from ? from : 1;
        r->last = has_to ? to : 0;
        if (has_to && r->last < r->first)
            PLAN_ERROR("fault plan: rule %zu: \"to\" (%llu) is before \"from\" (%llu)", index,
                       (unsigned long long)r->last, (unsigned long long)r->first);
    } else if (prob != NULL) {
        if (!cJSON_IsNumber(prob) || prob->valuedouble < 0.0 || prob->valuedouble > 1.0)
            PLAN_ERROR("fault plan: rule %zu: \"probability\" must be a number from 0 to 1", index);
        r->which = GG_FAULT_WHICH_PROBABILITY;
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
        if (!cJSON_IsString(kernel) || kernel->valuestring[0] == '\0')
            PLAN_ERROR("fault plan: rule %zu: \"kernel\" must be a non-empty kernel name", index);
        /* Kernel names are compared whole: a longer one could never match. */
        if (strlen(kernel->valuestring) >= sizeof r->kernel)
            PLAN_ERROR("fault plan: rule %zu: \"kernel\" is %zu bytes long; a kernel filter names at most %zu",
                       index, strlen(kernel->valuestring), sizeof r->kernel - 1);
        if (naming->kernel_filter_allowed == NULL)
            PLAN_ERROR("fault plan: rule %zu: \"kernel\" filters are not available here", index);
        if (!naming->kernel_filter_allowed(naming->self, &r->targets, r->any_target))
            PLAN_ERROR("fault plan: rule %zu: \"kernel\" only filters %s", index, naming->kernel_filter_ops);
        snprintf(r->kernel, sizeof r->kernel, "%s", kernel->valuestring);
    }
    return true;
}

void gg__fault_plan_free(gg__fault_plan *p)
{
    if (p != NULL) {
        for (size_t i = 0; p->rules != NULL && i < p->count; i++)
            gg__free(p->rules[i].target_name);
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

gg_status gg__fault_plan_parse(const char *json, const gg__fault_naming *naming, gg__fault_plan **out,
                               char *message, size_t message_size)
{
    char syntax[256];
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
    gg__fault_plan *p = NULL;
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
    size_t count = (size_t)cJSON_GetArraySize(rules);
    p->rules = count ? gg__calloc(count, sizeof *p->rules) : NULL;
    if (count != 0 && p->rules == NULL) {
        snprintf(message, message_size, "fault plan: out of memory for its %zu rules", count);
        goto done;
    }
    p->count = count;
    if ((p->source = gg__strdup(json)) == NULL) {
        snprintf(message, message_size, "fault plan: out of memory for a copy of its text");
        goto done;
    }
    size_t i = 0;
    for (const cJSON *r = rules->child; r != NULL; r = r->next, i++) {
        status = GG_INVALID_ARGUMENT;
        if (!parse_rule(r, i, seed, naming, &p->rules[i], message, message_size))
            goto done;
        status = GG_OUT_OF_MEMORY;
        if (p->rules[i].target_name == NULL) {
            snprintf(message, message_size, "fault plan: out of memory for rule %zu's name", i);
            goto done;
        }
    }
    status = GG_OK;
    *out = p;
    p = NULL;
done:
    gg__fault_plan_free(p);
    cJSON_Delete(root);
    return status;
}

char *gg__fault_plan_text(const char *value, const char *variable, gg_status *status, char *message,
                          size_t message_size)
{
    *status = GG_INVALID_ARGUMENT;
    if (value[0] != '@') {
        char *copy = gg__strdup(value);
        if (copy == NULL) {
            *status = GG_OUT_OF_MEMORY;
            snprintf(message, message_size, "%s: out of memory copying the plan", variable);
        }
        return copy;
    }
    FILE *f = fopen(value + 1, "rb");
    if (f == NULL) {
        snprintf(message, message_size, "%s: cannot open '%s': %s", variable, value + 1, strerror(errno));
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size < 0 || size >= (1 << 24)) {
        snprintf(message, message_size, "%s: cannot read '%s' (an error, or 16 MiB or more)", variable, value + 1);
        fclose(f);
        return NULL;
    }
    char *text = gg__malloc((size_t)size + 1);
    if (text == NULL) {
        *status = GG_OUT_OF_MEMORY;
        snprintf(message, message_size, "%s: out of memory reading '%s'", variable, value + 1);
        fclose(f);
        return NULL;
    }
    if (fread(text, 1, (size_t)size, f) != (size_t)size) {
        snprintf(message, message_size, "%s: cannot read '%s'", variable, value + 1);
        gg__free(text);
        fclose(f);
        return NULL;
    }
    text[size] = '\0';
    fclose(f);
    /* The plan is handled as a C string: a NUL byte in the file would end
     * it there, and the rest would be dropped without a word. */
    const char *nul = memchr(text, '\0', (size_t)size);
    if (nul != NULL) {
        snprintf(message, message_size, "%s: '%s' has a NUL byte at offset %zu (a plan is UTF-8 text)", variable,
                 value + 1, (size_t)(nul - text));
        gg__free(text);
        return NULL;
    }
    return text;
}
