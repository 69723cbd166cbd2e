/* The kinds table, generated from GG__KINDS (kinds.h): one entry per kind,
 * naming the per-kind functions each kind's file defines
 * (gg__stream_release, gg__stream_describe, ...). */
#include <stddef.h>

#include "common/lifetime.h"

/* The part of a record that survives recycling: a context's lock (object.h);
 * nothing for the other kinds. */
#define GG__KEPT_FROM_context offsetof(gg__context, lock)
#define GG__KEPT_FROM_stream sizeof(gg__stream)
#define GG__KEPT_FROM_event sizeof(gg__event)
#define GG__KEPT_FROM_buffer sizeof(gg__buffer)
#define GG__KEPT_FROM_module sizeof(gg__module)
#define GG__KEPT_FROM_kernel sizeof(gg__kernel)

#define GG__INIT_ONCE_context gg__context_init_once
#define GG__FINI_context gg__context_fini
#define GG__INIT_ONCE_stream NULL
#define GG__FINI_stream NULL
#define GG__INIT_ONCE_event NULL
#define GG__FINI_event NULL
#define GG__INIT_ONCE_buffer NULL
#define GG__FINI_buffer NULL
#define GG__INIT_ONCE_module NULL
#define GG__FINI_module NULL
#define GG__INIT_ONCE_kernel NULL
#define GG__FINI_kernel NULL

void gg__context_init_once(gg__object *o);
void gg__context_fini(gg__object *o);

const gg__kind gg__kinds[GG__T_COUNT] = {
    [GG__T_NONE] = { .name = "invalid", .plural = "object(s)" },
#define GG__KIND_ENTRY(KIND, name_, record, rank_)                                                \
    [GG__T_##KIND] = { .name = "gg_" #name_, .plural = #name_ "(s)", .size = sizeof(record),       \
                       .kept_from = GG__KEPT_FROM_##name_, .rank = rank_, .release = gg__##name_##_release, \
                       .describe = gg__##name_##_describe, .init_once = GG__INIT_ONCE_##name_,     \
                       .fini = GG__FINI_##name_ },
    GG__KINDS(GG__KIND_ENTRY)
#undef GG__KIND_ENTRY
};
