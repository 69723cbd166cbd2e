#include "common/report.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/call.h"

#define MAX_CONTEXTS 4096
#define MAX_LISTED_LEAKS 16

static const char *state_name(gg_context_state_t s)
{
    switch (s) {
    case GG_STATE_ALIVE: return "alive";
    case GG_STATE_DEAD: return "dead";
    case GG_STATE_FORKED: return "forked";
    default: return "invalid";
    }
}

void gg__report_leaks(const char *when)
{
    if (!gg__log_enabled(GG_LOG_WARN))
        return;
    /* On the stack (32 KiB), not static: two threads may report at once. */
    gg__context *all[MAX_CONTEXTS];
    size_t n = gg__contexts_snapshot(all, MAX_CONTEXTS);
    if (n == 0)
        return;
    uint64_t counts[GG__T_COUNT] = { 0 };
    unsigned listed = 0;
    for (size_t i = 0; i < n; i++) {
        gg__context *ctx = all[i];
        counts[GG__T_CONTEXT]++;
        pthread_mutex_lock(&ctx->lock);
        for (int t = 1; t < GG__T_COUNT; t++)
            counts[t] += ctx->child_count[t];
        if (listed++ < MAX_LISTED_LEAKS)
            gg__log(GG_LOG_WARN, atomic_load(&ctx->h.id), "%s: context '%s' (%s) still alive with %u stream(s), "
                    "%u event(s), %u buffer(s), %u module(s)", when, ctx->h.tag,
                    state_name(gg__context_state(ctx)), ctx->child_count[GG__T_STREAM],
                    ctx->child_count[GG__T_EVENT], ctx->child_count[GG__T_BUFFER],
                    ctx->child_count[GG__T_MODULE]);
        for (gg__object *o = ctx->children.next; o != &ctx->children; o = o->next)
            if (o->tag[0] != '\0' && listed++ < MAX_LISTED_LEAKS)
                gg__log(GG_LOG_WARN, atomic_load(&o->id), "%s: leaked %s '%s' (from %s)", when,
                        gg__type_name(o->type), o->tag, o->created_by);
        pthread_mutex_unlock(&ctx->lock);
    }
    gg__log(GG_LOG_WARN, 0, "%s: releasing %llu leaked object(s): %llu context(s), %llu stream(s), %llu "
            "event(s), %llu buffer(s), %llu module(s), %llu kernel(s)", when,
            (unsigned long long)(counts[1] + counts[2] + counts[3] + counts[4] + counts[5] + counts[6]),
            (unsigned long long)counts[1], (unsigned long long)counts[2], (unsigned long long)counts[3],
            (unsigned long long)counts[4], (unsigned long long)counts[5], (unsigned long long)counts[6]);
}

static cJSON *object_json(const gg__object *o)
{
    cJSON *j = cJSON_CreateObject();
    char id[32];
    snprintf(id, sizeof id, "0x%016llx", (unsigned long long)atomic_load(&o->id));
    cJSON_AddStringToObject(j, "id", id);
    cJSON_AddStringToObject(j, "type", gg__type_name(o->type));
    cJSON_AddStringToObject(j, "tag", o->tag);
    cJSON_AddStringToObject(j, "created_by", o->created_by ? o->created_by : "");
    return j;
}

gg_status gg_dump_json(char **json)
{
    gg__call c = GG__CALL("gg_dump_json");
    if (json == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_dump_json: json is NULL");
    *json = NULL;
    gg_status status = gg__require_library(&c);
    if (status != GG_OK)
        return status;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "backend", c.b->name);
    cJSON_AddStringToObject(root, "library", c.b->library ? c.b->library : "");
    cJSON *contexts = cJSON_AddArrayToObject(root, "contexts");
    gg__context *all[MAX_CONTEXTS];
    size_t n = gg__contexts_snapshot(all, MAX_CONTEXTS);
    for (size_t i = 0; i < n; i++) {
        gg__context *ctx = all[i];
        pthread_mutex_lock(&ctx->lock);
        cJSON *cj = object_json(&ctx->h);
        gg_context_state_t state = gg__context_state(ctx);
        cJSON_AddStringToObject(cj, "state", state_name(state));
        cJSON_AddNumberToObject(cj, "device", ctx->device);
        if (state == GG_STATE_DEAD) {
            cJSON *d = cJSON_AddObjectToObject(cj, "death");
            cJSON_AddStringToObject(d, "status", gg_status_name(ctx->death.status));
            cJSON_AddStringToObject(d, "native", ctx->death.native_name ? ctx->death.native_name : "");
            cJSON_AddStringToObject(d, "message", ctx->death.message);
            if (ctx->death.culprit.certainty != GG_ATTRIBUTION_NONE) {
                cJSON_AddStringToObject(d, "culprit_kernel", ctx->death.culprit.kernel_name);
                cJSON_AddNumberToObject(d, "culprit_launch", (double)ctx->death.culprit.sequence);
                cJSON_AddStringToObject(d, "certainty",
                                        ctx->death.culprit.certainty == GG_ATTRIBUTION_EXACT ? "exact" : "window");
            }
        }
        cJSON *children = cJSON_AddArrayToObject(cj, "objects");
        for (gg__object *o = ctx->children.next; o != &ctx->children; o = o->next)
            cJSON_AddItemToArray(children, object_json(o));
        pthread_mutex_unlock(&ctx->lock);
        cJSON_AddItemToArray(contexts, cj);
    }
    *json = cJSON_Print(root);
    cJSON_Delete(root);
    if (*json == NULL)
        return gg__fail(&c, GG_OUT_OF_MEMORY, "gg_dump_json: out of memory");
    return GG_OK;
}

void gg_free(void *p)
{
    free(p);
}

gg_status gg_live_objects(uint64_t *count)
{
    gg__call c = GG__CALL("gg_live_objects");
    if (count == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_live_objects: count is NULL");
    *count = gg__handle_live_count();
    return GG_OK;
}
