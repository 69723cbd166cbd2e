/* Shared steps of using a context's children. */
#ifndef GPUGUARD_CHILD_H
#define GPUGUARD_CHILD_H

#include "common/call.h"

/* Looks up (pins) an object of `type` and enters its context: the call's
 * first pin (it has pinned nothing before). On failure returns NULL with
 * *status set; gg__leave is still needed, and safe. (Inline: it is the
 * front half of every record and query.) */
GG__HOT void *gg__use_begin(gg__call *c, uint64_t id, gg__type type, const char *what, gg_status *status)
{
    *status = gg__require_library(c);
    if (GG__UNLIKELY(*status != GG_OK))
        return NULL;
    gg__object *obj = gg__lookup_first(c, id, type, what);
    if (GG__UNLIKELY(obj == NULL)) {
        *status = gg__lookup_status();
        return NULL;
    }
    if (type == GG__T_STREAM)
        c->stream = (struct gg__stream *)obj;
    *status = gg__enter_required(c, obj->context);
    return GG__LIKELY(*status == GG_OK) ? obj : NULL;
}

#endif
