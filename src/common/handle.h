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
#include "common/spin.h"

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

/* The table's state that allocation and free change, under
 * gg__handle_table_lock (handle.c defines them; declared here only for the
 * inline fast paths below, which every create and destroy takes: the call
 * itself was about a tenth of each, bench/README.md). Nothing else reads
 * or writes them outside handle.c. */
extern gg__spin gg__handle_table_lock;     /* allocation and free; lookup never takes it */
extern uint32_t gg__handle_free_head[GG__T_COUNT]; /* a free list per type, 0 = empty (handle.c) */
extern _Atomic uint64_t gg__handle_live_ids; /* live ids, all types */

/* The slot of an index below gg__handle_slots_used (a free list's or a
 * live id's, read under the table lock): its page exists (handle.c's
 * fresh_slot adds it before handing the index out), so neither the
 * directory's bound nor the page is tested. */
static inline gg__slot *gg__handle_handed_out_slot(uint32_t index)
{
    gg__slot *page = atomic_load_explicit(&gg__handle_dir[index >> GG__PAGE_BITS], memory_order_relaxed);
    return &page[index & (GG__PAGE_SLOTS - 1)];
}

/* gg__handle_alloc's work on slot `index` (table lock held; the index
 * taken off type's free list or fresh): the next generation, the object,
 * the id published. Returns the id. */
static inline uint64_t gg__handle_issue(gg__type type, void *object, uint32_t index, gg__slot *slot)
{
    slot->generation += 1; /* a fresh slot starts at generation 1: ids are never 0 */
    uint64_t id = ((uint64_t)type << 56) | ((uint64_t)slot->generation << 32) | index;
    atomic_store_explicit(&slot->object, object, memory_order_relaxed);
    atomic_store_explicit(&slot->id, id, memory_order_release);
    atomic_fetch_add_explicit(&gg__handle_live_ids, 1, memory_order_relaxed);
    return id;
}

/* gg__handle_alloc when type's free list is empty (a never-used slot,
 * perhaps a new page): out of line, it takes the lock itself. */
uint64_t gg__handle_alloc_fresh(gg__type type, void *object);

/* A new id for `object`; 0 when the table is full (then OUT_OF_MEMORY).
 * Inline: a slot off the kind's free list (every create after the first of
 * its kind) is a few loads and stores under the lock; the rest is
 * gg__handle_alloc_fresh's. */
static inline uint64_t gg__handle_alloc(gg__type type, void *object)
{
    if (type <= GG__T_NONE || type >= GG__T_COUNT)
        return 0;
    gg__spin_lock(&gg__handle_table_lock);
    uint32_t index = gg__handle_free_head[type];
    if (__builtin_expect(index == 0, 0)) {
        /* Released, then taken again by the slow path, which looks at the
         * free list again: it may have been refilled meanwhile. */
        gg__spin_unlock(&gg__handle_table_lock);
        return gg__handle_alloc_fresh(type, object);
    }
    gg__slot *slot = gg__handle_handed_out_slot(index);
    gg__handle_free_head[type] = slot->next_free;
    uint64_t id = gg__handle_issue(type, object, index, slot);
    gg__spin_unlock(&gg__handle_table_lock);
    return id;
}
/* Why gg__handle_alloc returned 0, for the message: "the handle table is
 * full (...)" once every slot was handed out, else the failed page
 * allocation. */
const char *gg__handle_alloc_failure(void);
/* Frees the id (no effect if it is not live). Inline: every destroy frees
 * one (and a context's teardown one per child). */
static inline void gg__handle_free(uint64_t id, gg__free_reason reason)
{
    if (id == 0)
        return;
    gg__spin_lock(&gg__handle_table_lock);
    gg__slot *slot = gg__id_slot(id) < atomic_load_explicit(&gg__handle_slots_used, memory_order_relaxed)
                         ? gg__handle_handed_out_slot(gg__id_slot(id)) : NULL;
    if (slot != NULL && atomic_load_explicit(&slot->id, memory_order_relaxed) == id) {
        /* seq_cst: the revocation half of the pin protocol (pin.c, W2). */
        atomic_store_explicit(&slot->id, 0, memory_order_seq_cst);
        atomic_store_explicit(&slot->object, NULL, memory_order_relaxed);
        atomic_store_explicit(&slot->last_free_reason, (uint8_t)reason, memory_order_relaxed);
        atomic_fetch_sub_explicit(&gg__handle_live_ids, 1, memory_order_relaxed);
        /* A slot whose generation would wrap is retired: reusing it could
         * bring an ancient id back to life. */
        if (slot->generation < GG__GEN_MAX) {
            slot->next_free = gg__handle_free_head[gg__id_type(id)];
            gg__handle_free_head[gg__id_type(id)] = gg__id_slot(id);
        }
    }
    gg__spin_unlock(&gg__handle_table_lock);
}

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
