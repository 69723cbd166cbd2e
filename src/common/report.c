#include "base/alloc.h"
#include "common/report.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/call.h"
#include "base/json_syntax.h"
#include "common/lifetime.h"
#include "common/context.h"

/* Every live context: the snapshot is 32 KiB on the heap. */
#define MAX_CONTEXTS GG__CONTEXTS_MAX
/* Leak lines logged per report (contexts and tagged objects); past it the
 * objects are only counted, in the summary line that follows (crossed by
 * tests/core/test_bounds.c). */
#define MAX_LISTED_LEAKS 16

/* "3 stream(s), 1 event(s)" for the kinds with a nonzero count. */
static void format_counts(const uint64_t counts[GG__T_COUNT], gg__type from, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int t = from; t < GG__T_COUNT && used < size; t++)
        used += (size_t)snprintf(out + used, size - used, "%s%llu %s", used ? ", " : "",
                                 (unsigned long long)counts[t], gg__kinds[t].plural);
}

void gg__report_leaks(const char *when)
{
    if (!gg__log_enabled(GG_LOG_WARN))
        return;
    /* On the heap, not static: two threads may report at once. */
    uint64_t *ids = gg__malloc(MAX_CONTEXTS * sizeof *ids);
    if (ids == NULL)
        return;
    size_t n = gg__contexts_snapshot(ids, MAX_CONTEXTS);
    uint64_t counts[GG__T_COUNT] = { 0 };
    unsigned listed = 0;
    for (size_t i = 0; i < n; i++) {
        gg__call c = GG__CALL(when);
        c.internal = true;
        gg__context *ctx = gg__try_pin(&c, ids[i], GG__T_CONTEXT);
        if (ctx == NULL)
            continue; /* destroyed meanwhile */
        gg__rlock_take(&ctx->lock);
        counts[GG__T_CONTEXT]++;
        uint64_t mine[GG__T_COUNT] = { 0 };
        for (int t = GG__T_CONTEXT + 1; t < GG__T_COUNT; t++) {
            mine[t] = ctx->child_count[t];
            counts[t] += ctx->child_count[t];
        }
        char what[256];
        format_counts(mine, GG__T_CONTEXT + 1, what, sizeof what);
        if (listed++ < MAX_LISTED_LEAKS)
            gg__log(GG_LOG_WARN, ids[i], "%s: context %s (%s) still alive with %s", when, gg__object_label(&ctx->h).text,
                    gg__context_state(ctx) == GG_STATE_DEAD ? "dead"
                    : gg__context_state(ctx) == GG_STATE_FORKED ? "forked" : "alive", what);
        for (gg__object *o = ctx->children.next; o != &ctx->children; o = o->next)
            if (o->tag[0] != '\0' && listed++ < MAX_LISTED_LEAKS)
                gg__log(GG_LOG_WARN, atomic_load(&o->id), "%s: leaked %s '%s' (from %s)", when,
                        gg__type_name(o->type), o->tag, o->created_by);
        gg__rlock_release(&ctx->lock);
        gg__leave(&c);
    }
    gg__free(ids);
    if (counts[GG__T_CONTEXT] == 0)
        return;
    uint64_t total = 0;
    for (int t = GG__T_CONTEXT; t < GG__T_COUNT; t++)
        total += counts[t];
    char what[256];
    format_counts(counts, GG__T_CONTEXT, what, sizeof what);
    gg__log(GG_LOG_WARN, 0, "%s: releasing %llu leaked object(s): %s", when, (unsigned long long)total, what);
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
    gg__kinds[o->type].describe(o, j);
    return j;
}

gg_status gg_objects_json(char **json)
{
    gg__call c = GG__CALL("gg_objects_json");
    if (json == NULL)
        return gg__fail(&c, GG_INVALID_ARGUMENT, "gg_objects_json: json is NULL");
    *json = NULL;
    gg_status status = gg__call_open(&c);
    if (status != GG_OK)
        return status;
    uint64_t *ids = gg__malloc(MAX_CONTEXTS * sizeof *ids);
    cJSON *root = ids && !gg__alloc_fault_point() ? cJSON_CreateObject() : NULL;
    if (root != NULL) {
        cJSON_AddStringToObject(root, "backend", c.b->name);
        cJSON_AddStringToObject(root, "library", c.b->library ? c.b->library : "");
        /* The bounds attribution works within (object.h), so a reader of a
         * dump knows what an "unkept" suspect means here. */
        cJSON *bounds = cJSON_AddObjectToObject(root, "bounds");
        cJSON_AddNumberToObject(bounds, "launch_records_per_stream", gg__lib.config.launch_records);
        cJSON_AddNumberToObject(bounds, "timeline_slots_per_context", GG__TIMELINE_SLOTS);
        cJSON_AddNumberToObject(bounds, "contexts", MAX_CONTEXTS);
        cJSON *contexts = cJSON_AddArrayToObject(root, "contexts");
        size_t n = gg__contexts_snapshot(ids, MAX_CONTEXTS);
        for (size_t i = 0; i < n; i++) {
            gg__context *ctx = gg__try_pin(&c, ids[i], GG__T_CONTEXT);
            if (ctx == NULL)
                continue; /* destroyed meanwhile */
            gg__rlock_take(&ctx->lock);
            if (atomic_load_explicit(&ctx->h.id, memory_order_relaxed) == ids[i]) {
                cJSON *cj = object_json(&ctx->h);
                cJSON *children = cJSON_AddArrayToObject(cj, "objects");
                for (gg__object *o = ctx->children.next; o != &ctx->children; o = o->next)
                    cJSON_AddItemToArray(children, object_json(o));
                cJSON_AddItemToArray(contexts, cj);
            }
            gg__rlock_release(&ctx->lock);
            gg__pin_clear(c.pins, --c.npins);
        }
        /* Tags, kernel and module names come from the program and the
         * driver as bytes: invalid UTF-8 among them becomes U+FFFD, so
         * that the dump is always valid JSON (gpuguard.h, gg_objects_json). */
        *json = gg__json_valid_utf8(cJSON_Print(root));
        cJSON_Delete(root);
    }
    gg__free(ids);
    gg__leave(&c);
    if (*json == NULL)
        return gg__fail(&c, GG_OUT_OF_MEMORY, "gg_objects_json: out of memory");
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
