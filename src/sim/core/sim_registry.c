/*
 * The handle registry: every object a user holds a handle to.
 *
 * A handle is kind << 56 | generation << 24 | slot (slot 0 never used), so a
 * handle of the wrong kind, a destroyed one (generation moved on) or a forged
 * one is refused by comparing the whole value. Handles are never
 * dereferenced: the CUDA face hands them out cast to opaque pointer types.
 * Objects are reference counted; the registry owns one reference.
 */
#include "sim_alloc.h"
#include "sim_core.h"

#include <stdlib.h>

#define SLOT_BITS 24u
#define GEN_BITS 32u
#define MAX_SLOTS (1u << SLOT_BITS)
#define PAGE_BITS 12u
#define PAGE_SLOTS (1u << PAGE_BITS)
#define DIR_PAGES (MAX_SLOTS / PAGE_SLOTS)
#define STRIPES 128u

/* Slots live in pages that are allocated once and never move or go away,
 * so a lookup finds its slot without the allocation lock. */
typedef struct slot {
    uint32_t gen;         /* allocation lock */
    uint32_t next_free;   /* free list link (slot index), 0 = end; allocation lock */
    sim_obj *obj;         /* NULL when free; the slot's stripe lock */
} slot;

/* Allocation (free list, fresh slots, pages, generations) takes g_lock; a
 * lookup takes only its slot's stripe lock, so that threads working on
 * different objects never wait for each other (each stripe on its own
 * cache line; neighbouring slots on different stripes). */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *_Atomic g_dir[DIR_PAGES];
static uint32_t g_nslots = 1; /* slots handed out or on the free list, slot 0 included (never used) */
static uint32_t g_free;       /* head of the free list */
static atomic_long g_live;

static struct {
    pthread_mutex_t m;
    char pad[64 - sizeof(pthread_mutex_t) % 64];
} __attribute__((aligned(64))) g_stripes[STRIPES];
static pthread_once_t g_stripes_once = PTHREAD_ONCE_INIT;

static void init_stripes(void)
{
    for (unsigned i = 0; i < STRIPES; i++)
        pthread_mutex_init(&g_stripes[i].m, NULL);
}

static pthread_mutex_t *stripe(uint32_t idx)
{
    return &g_stripes[idx % STRIPES].m;
}

/* The slot of idx, or NULL if its page was never allocated. */
static slot *slot_at(uint32_t idx)
{
    slot *page = atomic_load_explicit(&g_dir[idx >> PAGE_BITS], memory_order_acquire);
    return page ? &page[idx & (PAGE_SLOTS - 1)] : NULL;
}

static uint64_t make_handle(sim_kind kind, uint32_t gen, uint32_t idx)
{
    return ((uint64_t)kind << 56) | ((uint64_t)gen << SLOT_BITS) | idx;
}

void sim_obj_init(sim_obj *o, sim_kind kind, sim_ctx *owner, void (*destroy)(sim_obj *))
{
    atomic_init(&o->refs, 1);
    o->kind = kind;
    o->handle = 0;
    o->owner = owner;
    o->destroy = destroy;
    atomic_fetch_add_explicit(&g_live, 1, memory_order_relaxed);
}

void sim_obj_retain(sim_obj *o)
{
    atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
}

void sim_obj_release(sim_obj *o)
{
    if (!o)
        return;
    if (atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1) {
        atomic_fetch_sub_explicit(&g_live, 1, memory_order_relaxed);
        o->destroy(o);
    }
}

long sim_live_objects(void)
{
    return atomic_load_explicit(&g_live, memory_order_relaxed);
}

void sim_live_count_add(long delta)
{
    atomic_fetch_add_explicit(&g_live, delta, memory_order_relaxed);
}

/* A fresh slot index (allocation lock held), adding a page when needed; 0
 * when the registry is full. */
static uint32_t fresh_slot_locked(void)
{
    if (g_nslots >= MAX_SLOTS)
        return 0;
    uint32_t idx = g_nslots;
    if (!slot_at(idx)) {
        slot *page = sim_calloc(PAGE_SLOTS, sizeof *page);
        if (!page)
            return 0;
        for (uint32_t i = 0; i < PAGE_SLOTS; i++)
            page[i].gen = 1;
        atomic_store_explicit(&g_dir[idx >> PAGE_BITS], page, memory_order_release);
    }
    g_nslots++;
    return idx;
}

uint64_t sim_registry_add(sim_obj *o)
{
    pthread_once(&g_stripes_once, init_stripes);
    pthread_mutex_lock(&g_lock);
    uint32_t idx = g_free;
    if (idx)
        g_free = slot_at(idx)->next_free;
    else
        idx = fresh_slot_locked();
    if (!idx) {
        pthread_mutex_unlock(&g_lock);
        return 0;
    }
    slot *s = slot_at(idx);
    s->next_free = 0;
    o->handle = make_handle(o->kind, s->gen, idx);
    uint64_t h = o->handle;
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_lock(stripe(idx));
    s->obj = o;
    pthread_mutex_unlock(stripe(idx));
    return h;
}

sim_obj *sim_registry_get(uint64_t handle, sim_kind kind)
{
    uint32_t idx = (uint32_t)(handle & (MAX_SLOTS - 1));
    if (idx == 0 || (sim_kind)(handle >> 56) != kind)
        return NULL;
    slot *s = slot_at(idx);
    if (!s)
        return NULL;
    sim_obj *o = NULL;
    /* Under the stripe lock the object cannot be unregistered, so it still
     * holds the registry's reference while we take ours. */
    pthread_mutex_lock(stripe(idx));
    if (s->obj && s->obj->handle == handle) {
        o = s->obj;
        sim_obj_retain(o);
    }
    pthread_mutex_unlock(stripe(idx));
    return o;
}

/* Puts a slot whose object was just unlinked back on the free list with a
 * new generation. */
static void slot_free(uint32_t idx)
{
    pthread_mutex_lock(&g_lock);
    slot *s = slot_at(idx);
    s->gen++;
    /* A slot whose generation would wrap is retired, never reused. */
    if (s->gen != 0 && s->gen < (1ull << GEN_BITS) - 1) {
        s->next_free = g_free;
        g_free = idx;
    }
    pthread_mutex_unlock(&g_lock);
}

/* Unlinks o from slot idx if it is there (stripe lock taken here). */
static bool unlink_if(uint32_t idx, sim_obj *o, bool (*match)(sim_obj *, void *), void *arg, sim_obj **out)
{
    slot *s = slot_at(idx);
    if (!s)
        return false;
    pthread_mutex_lock(stripe(idx));
    sim_obj *found = s->obj;
    bool hit = found && (o ? found == o : match(found, arg));
    if (hit)
        s->obj = NULL;
    pthread_mutex_unlock(stripe(idx));
    if (hit) {
        slot_free(idx);
        *out = found;
    }
    return hit;
}

bool sim_registry_remove(sim_obj *o)
{
    if (!o->handle)
        return false;
    pthread_once(&g_stripes_once, init_stripes);
    sim_obj *found;
    if (!unlink_if((uint32_t)(o->handle & (MAX_SLOTS - 1)), o, NULL, NULL, &found))
        return false;
    sim_obj_release(o);
    return true;
}

sim_obj *sim_registry_next(sim_kind kind, uint32_t *cursor)
{
    pthread_once(&g_stripes_once, init_stripes);
    pthread_mutex_lock(&g_lock);
    uint32_t n = g_nslots;
    pthread_mutex_unlock(&g_lock);
    for (uint32_t i = *cursor > 0 ? *cursor : 1; i < n; i++) {
        slot *s = slot_at(i);
        if (!s)
            continue;
        sim_obj *found = NULL;
        pthread_mutex_lock(stripe(i));
        if (s->obj && s->obj->kind == kind) {
            found = s->obj;
            sim_obj_retain(found);
        }
        pthread_mutex_unlock(stripe(i));
        if (found) {
            *cursor = i + 1;
            return found;
        }
    }
    *cursor = n;
    return NULL;
}

void sim_registry_remove_if(bool (*match)(sim_obj *, void *), void *arg,
                            void (*on_removed)(sim_obj *))
{
    pthread_once(&g_stripes_once, init_stripes);
    pthread_mutex_lock(&g_lock);
    uint32_t n = g_nslots;
    pthread_mutex_unlock(&g_lock);
    /* Slot by slot: an object registered meanwhile may be missed, exactly
     * as one registered just after a scan of the whole table would be. */
    for (uint32_t i = 1; i < n; i++) {
        sim_obj *o;
        if (unlink_if(i, NULL, match, arg, &o)) {
            if (on_removed)
                on_removed(o);
            sim_obj_release(o);
        }
    }
}
