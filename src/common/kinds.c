/* The kinds table, generated from GG__KINDS (kinds.h): one entry per kind,
 * every column from the list, naming the per-kind functions each kind's
 * file defines (gg__stream_release, gg__stream_describe, ...; declared in
 * lifetime.h from the same list). */
#include <stddef.h>

#include "common/lifetime.h"

/* A prepared kind's init_once and fini (kinds.h's last column), or none. */
#define GG__KIND_INIT_ONCE_0(name) NULL
#define GG__KIND_INIT_ONCE_1(name) gg__##name##_init_once
#define GG__KIND_FINI_0(name) NULL
#define GG__KIND_FINI_1(name) gg__##name##_fini

const gg__kind gg__kinds[GG__T_COUNT] = {
    [GG__T_NONE] = { .name = "invalid", .plural = "object(s)" },
#define GG__KIND_ENTRY(KIND, name_, record, rank_, kept_from_, prepared)                          \
    [GG__T_##KIND] = { .name = "gg_" #name_, .plural = #name_ "(s)", .size = sizeof(record),       \
                       .kept_from = kept_from_, .rank = rank_, .release = gg__##name_##_release,   \
                       .describe = gg__##name_##_describe,                                          \
                       .init_once = GG__KIND_INIT_ONCE_##prepared(name_),                           \
                       .fini = GG__KIND_FINI_##prepared(name_) },
    GG__KINDS(GG__KIND_ENTRY)
#undef GG__KIND_ENTRY
};
