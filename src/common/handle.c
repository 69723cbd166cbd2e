#include "base/alloc.h"
#include "common/handle.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/fork.h"
#include "common/spin.h"

gg__slot *_Atomic gg__handle_dir[GG__DIR_PAGES];
_Atomic uint32_t gg__handle_slots_used = 1; /* slot 0 is never handed out */

/* Allocation and free take this lock; lookup never does. */
gg__spin gg__handle_table_lock = GG__SPIN_INIT; /* short sections only (spin.h) */
/* One free list per type (0 = empty; slot 0 is never used): a slot is only
 * ever reused for an id of the same type, so a lookup that matched an id
 * just before it was freed and its slot reused reads an object of the type
 * it asked for (type-stable memory, see object.c), never another type's. */
uint32_t gg__handle_free_head[GG__T_COUNT];
_Atomic uint64_t gg__handle_live_ids;

static const char *const type_names[GG__T_COUNT] = {
    "invalid",
#define GG__KIND_NAME(KIND, name, record, rank, kept_from, prepared) "gg_" #name,
    GG__KINDS(GG__KIND_NAME)
#undef GG__KIND_NAME
};

const char *gg__type_name(gg__type type)
{
    return (unsigned)type < GG__T_COUNT ? type_names[type] : "unknown";
}

static gg__slot *slot_at(uint32_t index)
{
    if ((index >> GG__PAGE_BITS) >= GG__DIR_PAGES)
        return NULL;
    gg__slot *page = atomic_load_explicit(&gg__handle_dir[index >> GG__PAGE_BITS], memory_order_acquire);
    return page ? &page[index & (GG__PAGE_SLOTS - 1)] : NULL;
}

/* Takes a never-used slot index, adding a page when needed (table lock held). */
static uint32_t fresh_slot(void)
{
    uint32_t index = atomic_load_explicit(&gg__handle_slots_used, memory_order_relaxed);
    if ((index >> GG__PAGE_BITS) >= GG__DIR_PAGES)
        return 0;
    if (slot_at(index) == NULL) {
        gg__slot *page = gg__calloc(GG__PAGE_SLOTS, sizeof *page);
        if (page == NULL)
            return 0;
        atomic_store_explicit(&gg__handle_dir[index >> GG__PAGE_BITS], page, memory_order_release);
    }
    atomic_store_explicit(&gg__handle_slots_used, index + 1, memory_order_relaxed);
    return index;
}

_Static_assert((uint64_t)GG__DIR_PAGES * GG__PAGE_SLOTS == 268435456u, "the message below names the bound");

const char *gg__handle_alloc_failure(void)
{
    if ((atomic_load_explicit(&gg__handle_slots_used, memory_order_relaxed) >> GG__PAGE_BITS) >= GG__DIR_PAGES)
        return "the handle table is full (268435456 ids live or retired; ids of destroyed objects of the same "
               "kind are reused)";
    return "out of host memory for a page of the handle table";
}

uint64_t gg__handle_alloc_fresh(gg__type type, void *object)
{
    gg__spin_lock(&gg__handle_table_lock);
    uint32_t index = gg__handle_free_head[type]; /* refilled since the inline path looked: reuse, as it would */
    gg__slot *slot;
    if (index != 0) {
        slot = gg__handle_handed_out_slot(index);
        gg__handle_free_head[type] = slot->next_free;
    } else {
        index = fresh_slot();
        if (index == 0) {
            gg__spin_unlock(&gg__handle_table_lock);
            return 0;
        }
        slot = slot_at(index);
    }
    uint64_t id = gg__handle_issue(type, object, index, slot);
    gg__spin_unlock(&gg__handle_table_lock);
    return id;
}

static const char *reason_text(gg__free_reason reason)
{
    switch (reason) {
    case GG__FREED_DESTROYED: return "it was destroyed";
    case GG__FREED_WITH_CONTEXT: return "its context was destroyed";
    case GG__FREED_CONTEXT_RECOVERED: return "its context was recovered";
    case GG__FREED_MODULE_UNLOADED: return "its module was unloaded";
    case GG__FREED_SHUTDOWN: return "gg_shutdown released it";
    }
    return "it was released";
}

void gg__handle_explain(uint64_t id, gg__type type, char *out, size_t out_size)
{
    const char *want = gg__type_name(type);
    if (id == 0) {
        snprintf(out, out_size, "the %s id is 0 (no object)", want);
        return;
    }
    gg__type got = gg__id_type(id);
    if (got != type) {
        if (got > GG__T_NONE && got < GG__T_COUNT)
            snprintf(out, out_size, "expected a %s id, got a %s id (0x%016llx)", want,
                     gg__type_name(got), (unsigned long long)id);
        else
            snprintf(out, out_size, "0x%016llx is not a %s id (forged or corrupted)",
                     (unsigned long long)id, want);
        return;
    }
    /* Read under the lock, formatted after it (a spin lock's section stays short). */
    gg__spin_lock(&gg__handle_table_lock);
    uint32_t index = gg__id_slot(id);
    gg__slot *slot = index < atomic_load_explicit(&gg__handle_slots_used, memory_order_relaxed)
                         ? slot_at(index) : NULL;
    uint32_t generation = slot != NULL ? slot->generation : 0;
    gg__free_reason reason =
        slot != NULL ? (gg__free_reason)atomic_load_explicit(&slot->last_free_reason, memory_order_relaxed)
                     : GG__FREED_DESTROYED;
    gg__spin_unlock(&gg__handle_table_lock);
    if (index == 0 || slot == NULL || gg__id_generation(id) == 0 || gg__id_generation(id) > generation) {
        snprintf(out, out_size, "%s id 0x%016llx was never issued (forged or corrupted)", want,
                 (unsigned long long)id);
    } else if (gg__id_generation(id) == generation) {
        snprintf(out, out_size, "%s id 0x%016llx is stale: %s", want, (unsigned long long)id,
                 reason_text(reason));
    } else {
        snprintf(out, out_size, "%s id 0x%016llx is stale: its object was released long ago", want,
                 (unsigned long long)id);
    }
}

uint64_t gg__handle_live_count(void)
{
    return atomic_load_explicit(&gg__handle_live_ids, memory_order_relaxed);
}

void gg__handle_test_set_generation(uint32_t index, uint32_t generation)
{
    gg__spin_lock(&gg__handle_table_lock);
    gg__slot *slot = index < atomic_load_explicit(&gg__handle_slots_used, memory_order_relaxed) ? slot_at(index) : NULL;
    if (slot != NULL && atomic_load_explicit(&slot->id, memory_order_relaxed) == 0)
        slot->generation = generation;
    gg__spin_unlock(&gg__handle_table_lock);
}

void gg__handle_table_locks(bool take)
{
    if (take)
        gg__spin_lock(&gg__handle_table_lock);
    else
        gg__spin_unlock(&gg__handle_table_lock);
}
