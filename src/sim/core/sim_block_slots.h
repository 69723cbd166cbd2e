/*
 * Where a launch's blocks run in simulated time: the device's places for
 * resident blocks ("slots": multiprocessors times the blocks of this launch
 * one multiprocessor holds at once), each with a clock. The launch hands its
 * blocks out in order, each to the slot that frees up first (the lowest
 * numbered on a tie), as a GPU's block scheduler gives the next block to
 * the first multiprocessor with room; so a grid larger than the device runs
 * in waves, and the same launch gets the same times on every host.
 *
 * The model's limits, stated: a slot runs its block as if alone on its
 * multiprocessor (resident blocks do not slow each other down: no issue
 * contention, no memory bandwidth), and registers do not limit residency
 * (PTX's virtual registers say nothing about the machine's).
 */
#ifndef GG_SIM_BLOCK_SLOTS_H
#define GG_SIM_BLOCK_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_slot {
    uint64_t clock; /* when the slot is next free (warp-instructions from the launch's start) */
    unsigned index;
} sim_slot;

typedef struct sim_block_slots {
    sim_slot *heap; /* min-heap by (clock, index) */
    unsigned n;
} sim_block_slots;

/* How many blocks of threads_per_block threads (> 0) using shared_bytes of
 * shared memory one multiprocessor holds at once: limited by its threads,
 * its block count and its shared memory (SIM_MAX_THREADS_PER_SM,
 * SIM_MAX_BLOCKS_PER_SM, SIM_SHARED_PER_SM); at least 1. */
unsigned sim_blocks_per_sm(unsigned threads_per_block, uint64_t shared_bytes);

/* Sets up the slots for a launch of nblocks blocks on multiprocessors
 * multiprocessors (> 0), per_sm blocks each, all free at time 0: as many
 * as can be used (never more than nblocks). False when out of memory. */
bool sim_block_slots_init(sim_block_slots *s, unsigned multiprocessors, unsigned per_sm,
                          uint64_t nblocks);

/* The time at which the next block starts: the earliest free slot's. */
static inline uint64_t sim_block_slots_next(const sim_block_slots *s)
{
    return s->heap[0].clock;
}

/* The block that started at sim_block_slots_next() ended at end (>= its
 * start): its slot is free again from then. */
void sim_block_slots_done(sim_block_slots *s, uint64_t end);

void sim_block_slots_free(sim_block_slots *s);

#endif
