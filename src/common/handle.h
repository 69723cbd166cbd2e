/*
 * The handle table: every object a user holds is a 64-bit id
 *   bits  0..31  slot index (slot 0 is never used)
 *   bits 32..55  generation of the slot (bumped on every free; a slot whose
 *                generation would wrap is retired, never reused)
 *   bits 56..63  type tag
 * Lookup compares the whole id, so a stale, forged or wrong-type id is
 * refused and never followed. Lookup takes no lock: the slot directory and
 * its pages are only ever added to, and a slot's generation only grows. A
 * plain lookup (gg__handle_lookup) may return an object whose id was freed
 * a moment later; calls use the pinning lookup (call.h, pin.c), which
 * re-checks the id after publishing the object and so keeps it alive.
 */
#ifndef GPUGUARD_HANDLE_H
#define GPUGUARD_HANDLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/kinds.h"

typedef enum gg__type {
    GG__T_NONE = 0,
#define GG__KIND_TAG(KIND, name, record, rank, kept_from, prepared) GG__T_##KIND,
    GG__KINDS(GG__KIND_TAG)
#undef GG__KIND_TAG
    GG__T_COUNT
} gg__type;

/* Why a slot was last freed: lets a stale id be explained precisely. */
typedef enum gg__free_reason {
    GG__FREED_DESTROYED = 0,      /* destroyed by its own destroy call */
    GG__FREED_WITH_CONTEXT = 1,   /* its context was destroyed */
    GG__FREED_CONTEXT_RECOVERED = 2, /* its context was recovered */
    GG__FREED_MODULE_UNLOADED = 3, /* (kernels) its module was unloaded */
    GG__FREED_SHUTDOWN = 4        /* gg_shutdown released it */
} gg__free_reason;

#define GG__SLOT_BITS 32
#define GG__GEN_BITS 24
#define GG__GEN_MAX ((1u << GG__GEN_BITS) - 1u)
#define GG__PAGE_BITS 12
#define GG__PAGE_SLOTS (1u << GG__PAGE_BITS)
/* 2^28 slots at most: plenty, and the directory is 512 KiB of BSS (pages of
 * 4096 slots, 128 KiB each, allocated as ids are first handed out). Past it
 * a creation fails with GG_OUT_OF_MEMORY saying the handle table is full,
 * until an id of the same kind is freed; a slot whose generation would wrap
 * (GG__GEN_MAX) is retired instead. Crossed by tests/core/test_bounds.c
 * (and the generation by test_handles.c). */
#define GG__DIR_PAGES (1u << 16)

typedef struct gg__slot {
    _Atomic uint64_t id;        /* the live id, 0 when free */
    void *_Atomic object;
    uint32_t generation;        /* generation of the current or last id (table lock) */
    uint32_t next_free;         /* free-list link (table lock) */
    _Atomic uint8_t last_free_reason;
} gg__slot;

static inline gg__type gg__id_type(uint64_t id) { return (gg__type)(id >> 56); }
static inline uint32_t gg__id_slot(uint64_t id) { return (uint32_t)id; }
static inline uint32_t gg__id_generation(uint64_t id) { return (uint32_t)(id >> 32) & GG__GEN_MAX; }

extern gg__slot *_Atomic gg__handle_dir[GG__DIR_PAGES];
extern _Atomic uint32_t gg__handle_slots_used; /* highest slot index handed out + 1 */

/* The slot an id of `type` would live in, or NULL (wrong type, or a page
 * never allocated). Slots are never freed, so this is safe at any time. */
static inline gg__slot *gg__handle_slot(uint64_t id, gg__type type)
{
    if (gg__id_type(id) != type)
        return NULL;
    /* A forged index beyond the directory is folded into it: no live id has
     * such an index (see fresh_slot), so the whole-id comparison refuses it. */
    uint32_t index = gg__id_slot(id) & (GG__DIR_PAGES * GG__PAGE_SLOTS - 1u);
    gg__slot *page = atomic_load_explicit(&gg__handle_dir[index >> GG__PAGE_BITS], memory_order_acquire);
    return page != NULL ? &page[index & (GG__PAGE_SLOTS - 1)] : NULL;
}

/* Lock-free lookup: the object whose live id is exactly `id` and whose type
 * is `type`, or NULL. Not a pin: the object may be released at once (calls
 * use gg__lookup, call.h). */
static inline void *gg__handle_lookup(uint64_t id, gg__type type)
{
    gg__slot *slot = gg__handle_slot(id, type);
    if (slot == NULL || atomic_load_explicit(&slot->id, memory_order_acquire) != id)
        return NULL;
    return atomic_load_explicit(&slot->object, memory_order_acquire);
}

/* True while `id` is live (sequentially consistent: the re-check half of
 * the pin protocol, pin.c R3). */
static inline bool gg__handle_live(uint64_t id, gg__type type)
{
    gg__slot *slot = gg__handle_slot(id, type);
    return slot != NULL && atomic_load_explicit(&slot->id, memory_order_seq_cst) == id;
}

/* A new id for `object`; 0 when the table is full (then OUT_OF_MEMORY). */
uint64_t gg__handle_alloc(gg__type type, void *object);
/* Why gg__handle_alloc returned 0, for the message: "the handle table is
 * full (...)" once every slot was handed out, else the failed page
 * allocation. */
const char *gg__handle_alloc_failure(void);
/* Frees the id (no effect if it is not live). */
void gg__handle_free(uint64_t id, gg__free_reason reason);

/* Explains why `id` is not a live id of `type`, for INVALID_HANDLE messages. */
void gg__handle_explain(uint64_t id, gg__type type, char *out, size_t out_size);

/* Number of live ids (all types). */
uint64_t gg__handle_live_count(void);

const char *gg__type_name(gg__type type); /* "gg_stream" */

/* Tests only: moves a free slot's generation, to reach the wrap limit
 * without 16 million allocations. */
void gg__handle_test_set_generation(uint32_t index, uint32_t generation);

/* Takes (true) or releases (false) this file's global locks (fork
 * handlers: library.c's gg__global_locks). */
void gg__handle_table_locks(bool take);

#endif /* GPUGUARD_HANDLE_H */
