/* Shared steps of creating and using a context's children. */
#ifndef GPUGUARD_CHILD_H
#define GPUGUARD_CHILD_H

#include "common/call.h"

/* Looks up the context and enters it with its lock held (creation). On
 * failure returns NULL with *status set, and nothing to undo. */
gg__context *gg__create_begin(gg__call *c, gg_context handle, gg_status *status);
/* Leaves and unlocks what gg__create_begin took. */
void gg__create_end(gg__call *c, gg__context *ctx);
/* Registers a new child that the driver has made: handle, tag, list. Returns
 * its id, or 0 (OUT_OF_MEMORY recorded) when the record could not be made;
 * the caller then undoes the native object. */
uint64_t gg__create_record(gg__call *c, gg__context *ctx, gg__object *obj, const char *tag);

/* Looks up an object of `type` and enters its context. On failure returns
 * NULL with *status set; gg__leave is still safe. (Inline: it is the front
 * half of every record and query.) */
GG__HOT void *gg__use_begin(gg__call *c, uint64_t id, gg__type type, const char *what, gg_status *status)
{
    *status = gg__require_library(c);
    if (GG__UNLIKELY(*status != GG_OK))
        return NULL;
    gg__object *obj = gg__lookup(c, id, type, what);
    if (GG__UNLIKELY(obj == NULL)) {
        *status = GG_INVALID_HANDLE;
        return NULL;
    }
    if (type == GG__T_STREAM)
        c->stream = (struct gg__stream *)obj;
    *status = gg__enter(c, obj->context);
    return GG__LIKELY(*status == GG_OK) ? obj : NULL;
}

#endif
