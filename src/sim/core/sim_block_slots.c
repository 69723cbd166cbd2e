/*
 * The block scheduler of simulated time (sim_block_slots.h): a min-heap of
 * slots ordered by (clock, index), so that the next block always goes to
 * the slot free first and ties go to the lowest slot.
 */
#include "sim_block_slots.h"

#include "sim_alloc.h"
#include "sim_core.h"

#include <stdlib.h>

unsigned sim_blocks_per_sm(unsigned threads_per_block, uint64_t shared_bytes)
{
    uint64_t n = SIM_MAX_BLOCKS_PER_SM;
    uint64_t by_threads = SIM_MAX_THREADS_PER_SM / (threads_per_block ? threads_per_block : 1);
    n = by_threads < n ? by_threads : n;
    if (shared_bytes) {
        uint64_t by_shared = SIM_SHARED_PER_SM / shared_bytes;
        n = by_shared < n ? by_shared : n;
    }
    return n ? (unsigned)n : 1u;
}

static bool before(const sim_slot *a, const sim_slot *b)
{
    return a->clock < b->clock || (a->clock == b->clock && a->index < b->index);
}

bool sim_block_slots_init(sim_block_slots *s, unsigned multiprocessors, unsigned per_sm,
                          uint64_t nblocks)
{
    uint64_t n = (uint64_t)multiprocessors * per_sm;
    n = nblocks < n ? nblocks : n;
    n = n ? n : 1;
    s->heap = sim_calloc((size_t)n, sizeof *s->heap);
    if (!s->heap)
        return false;
    s->n = (unsigned)n;
    /* All at time 0 in index order: already a heap. */
    for (unsigned i = 0; i < s->n; i++)
        s->heap[i].index = i;
    return true;
}

void sim_block_slots_done(sim_block_slots *s, uint64_t end)
{
    /* The top's clock grows: sift it down. */
    sim_slot moving = { end, s->heap[0].index };
    unsigned i = 0;
    for (;;) {
        unsigned l = 2 * i + 1, r = l + 1, m = i;
        const sim_slot *best = &moving;
        if (l < s->n && before(&s->heap[l], best)) {
            m = l;
            best = &s->heap[l];
        }
        if (r < s->n && before(&s->heap[r], best))
            m = r;
        if (m == i)
            break;
        s->heap[i] = s->heap[m];
        i = m;
    }
    s->heap[i] = moving;
}

void sim_block_slots_free(sim_block_slots *s)
{
    free(s->heap);
    s->heap = NULL;
    s->n = 0;
}
