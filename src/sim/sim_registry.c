/*
 * The handle registry: every object a user holds a handle to.
 *
 * A handle is kind << 56 | generation << 24 | slot (slot 0 never used), so a
 * handle of the wrong kind, a destroyed one (generation moved on) or a forged
 * one is refused by comparing the whole value. Handles are never
 * dereferenced: the CUDA face hands them out cast to opaque pointer types.
 * Objects are reference counted; the registry owns one reference.
 */
#include "sim_core.h"

#include <stdlib.h>

#define SLOT_BITS 24u
#define GEN_BITS 32u
#define MAX_SLOTS (1u << SLOT_BITS)

typedef struct slot {
    uint32_t gen;
    uint32_t next_free;   /* free list link (slot index), 0 = end */
    sim_obj *obj;         /* NULL when free */
} slot;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *g_slots;     /* g_slots[0] unused */
static uint32_t g_nslots; /* slots in use or on the free list, including 0 */
static uint32_t g_cap;
static uint32_t g_free;   /* head of the free list */
static atomic_long g_live;

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

static bool grow_locked(void)
{
    if (g_cap >= MAX_SLOTS)
        return false;
    uint32_t cap = g_cap ? g_cap * 2 : 256;
    if (cap > MAX_SLOTS)
        cap = MAX_SLOTS;
    slot *s = realloc(g_slots, cap * sizeof *s);
    if (!s)
        return false;
    for (uint32_t i = g_cap; i < cap; i++)
        s[i] = (slot){ .gen = 1, .next_free = 0, .obj = NULL };
    g_slots = s;
    g_cap = cap;
    if (g_nslots == 0)
        g_nslots = 1; /* slot 0 is never handed out */
    return true;
}

uint64_t sim_registry_add(sim_obj *o)
{
    pthread_mutex_lock(&g_lock);
    uint32_t idx = g_free;
    if (idx) {
        g_free = g_slots[idx].next_free;
    } else {
        if (g_nslots >= g_cap && !grow_locked()) {
            pthread_mutex_unlock(&g_lock);
            return 0;
        }
        idx = g_nslots++;
    }
    slot *s = &g_slots[idx];
    s->obj = o;
    s->next_free = 0;
    o->handle = make_handle(o->kind, s->gen, idx);
    uint64_t h = o->handle;
    pthread_mutex_unlock(&g_lock);
    return h;
}

sim_obj *sim_registry_get(uint64_t handle, sim_kind kind)
{
    uint32_t idx = (uint32_t)(handle & (MAX_SLOTS - 1));
    if (handle == 0 || (sim_kind)(handle >> 56) != kind)
        return NULL;
    sim_obj *o = NULL;
    pthread_mutex_lock(&g_lock);
    if (idx > 0 && idx < g_nslots && g_slots[idx].obj && g_slots[idx].obj->handle == handle) {
        o = g_slots[idx].obj;
        sim_obj_retain(o);
    }
    pthread_mutex_unlock(&g_lock);
    return o;
}

/* Frees o's slot; the caller holds g_lock and o is registered. */
static void unlink_locked(sim_obj *o)
{
    uint32_t idx = (uint32_t)(o->handle & (MAX_SLOTS - 1));
    slot *s = &g_slots[idx];
    s->obj = NULL;
    s->gen++;
    /* A slot whose generation would wrap is retired, never reused. */
    if (s->gen != 0 && s->gen < (1ull << GEN_BITS) - 1) {
        s->next_free = g_free;
        g_free = idx;
    }
}

bool sim_registry_remove(sim_obj *o)
{
    bool removed = false;
    pthread_mutex_lock(&g_lock);
    uint32_t idx = (uint32_t)(o->handle & (MAX_SLOTS - 1));
    if (o->handle && idx < g_nslots && g_slots[idx].obj == o) {
        unlink_locked(o);
        removed = true;
    }
    pthread_mutex_unlock(&g_lock);
    if (removed)
        sim_obj_release(o);
    return removed;
}

void sim_registry_remove_if(bool (*match)(sim_obj *, void *), void *arg,
                            void (*on_removed)(sim_obj *))
{
    pthread_mutex_lock(&g_lock);
    size_t n = 0;
    for (uint32_t i = 1; i < g_nslots; i++)
        if (g_slots[i].obj && match(g_slots[i].obj, arg))
            n++;
    sim_obj **list = n ? malloc(n * sizeof *list) : NULL;
    size_t k = 0;
    if (list) {
        for (uint32_t i = 1; i < g_nslots && k < n; i++) {
            sim_obj *o = g_slots[i].obj;
            if (o && match(o, arg)) {
                unlink_locked(o);
                list[k++] = o;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (n && !list) {
        /* Out of memory for the list: remove one at a time instead. */
        for (;;) {
            sim_obj *found = NULL;
            pthread_mutex_lock(&g_lock);
            for (uint32_t i = 1; i < g_nslots && !found; i++)
                if (g_slots[i].obj && match(g_slots[i].obj, arg)) {
                    found = g_slots[i].obj;
                    unlink_locked(found);
                }
            pthread_mutex_unlock(&g_lock);
            if (!found)
                return;
            if (on_removed)
                on_removed(found);
            sim_obj_release(found);
        }
    }
    for (size_t i = 0; i < k; i++) {
        if (on_removed)
            on_removed(list[i]);
        sim_obj_release(list[i]);
    }
    free(list);
}
