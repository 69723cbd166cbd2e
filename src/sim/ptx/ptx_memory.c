/*
 * Memory accesses of the interpreter: the state spaces and the generic
 * windows (ptx_ir.h), every access bounds-checked.
 *
 * Global addresses outside the module window are checked against the
 * context's live allocations (mapped host memory included): the block
 * remembers the few allocations it used last (ptx_global_window), and any
 * address outside them goes to rt->map(), which fails the launch with
 * ILLEGAL_ADDRESS when it is out of range.
 * A misaligned access (an address not a multiple of the access's size)
 * fails the launch with MISALIGNED_ADDRESS (716), sticky, as on a GPU.
 */
#include "ptx_block.h"

void ptx_block_fault(ptx_block *blk, gg_sim_trap kind)
{
    if (!blk->faulted)
        blk->b->rt->trap(blk->b, kind);
    blk->faulted = true;
}

static void *in_range(ptx_block *blk, unsigned char *base, uint64_t size, uint64_t off,
                      unsigned bytes)
{
    if (off > size || size - off < bytes) {
        ptx_block_fault(blk, GG_SIM_TRAP_ILLEGAL_ADDRESS);
        return NULL;
    }
    return base + off;
}

static void *in_window(const ptx_global_window *w, uint64_t addr, unsigned bytes)
{
    uint64_t off = addr - w->base;
    return off < w->size && w->size - off >= bytes ? w->host + off : NULL;
}

/* A device address: within an allocation the block has seen, or looked up
 * (and remembered), or refused by rt->map(), which raises the fault. */
static void *global_address(ptx_block *blk, uint64_t addr, unsigned bytes)
{
    for (unsigned i = 0; i < PTX_GLOBAL_WINDOWS; i++) {
        void *p = in_window(&blk->windows[i], addr, bytes);
        if (p)
            return p;
    }
    ptx_global_window w;
    if (blk->window && blk->window(blk->b, addr, &w)) {
        blk->windows[blk->next_window] = w;
        blk->next_window = (blk->next_window + 1) % PTX_GLOBAL_WINDOWS;
        void *p = in_window(&w, addr, bytes);
        if (p)
            return p;
    }
    void *p = blk->b->rt->map(blk->b, addr, bytes);
    if (!p)
        blk->faulted = true; /* map() raised ILLEGAL_ADDRESS */
    return p;
}

void *ptx_memory_resolve(ptx_block *blk, ptx_space space, uint64_t addr, unsigned bytes,
                         unsigned thread)
{
    if (bytes > 1 && (addr & (bytes - 1))) {
        ptx_block_fault(blk, GG_SIM_TRAP_MISALIGNED_ADDRESS);
        return NULL;
    }
    if (space == PTX_SPACE_GENERIC) {
        if (addr - PTX_WINDOW_SHARED < PTX_WINDOW_SIZE) {
            space = PTX_SPACE_SHARED;
            addr -= PTX_WINDOW_SHARED;
        } else if (addr - PTX_WINDOW_LOCAL < PTX_WINDOW_SIZE) {
            space = PTX_SPACE_LOCAL;
            addr -= PTX_WINDOW_LOCAL;
        } else {
            space = PTX_SPACE_GLOBAL;
        }
    }
    switch (space) {
    case PTX_SPACE_SHARED:
        return in_range(blk, blk->shared, blk->shared_bytes, addr, bytes);
    case PTX_SPACE_LOCAL:
        return in_range(blk, blk->local + (size_t)thread * blk->thread_local_bytes,
                        blk->thread_local_bytes, addr, bytes);
    case PTX_SPACE_GLOBAL:
    case PTX_SPACE_CONST:
        if (addr - PTX_WINDOW_MODULE < PTX_WINDOW_SIZE)
            /* The module's .global/.const bytes: device memory of the module,
             * written by kernels as on a GPU. */
            return in_range(blk, blk->m->data, blk->m->data_bytes, addr - PTX_WINDOW_MODULE, bytes);
        if (space == PTX_SPACE_CONST) {
            ptx_block_fault(blk, GG_SIM_TRAP_ILLEGAL_ADDRESS);
            return NULL;
        }
        return global_address(blk, addr, bytes);
    default:
        ptx_block_fault(blk, GG_SIM_TRAP_ILLEGAL_ADDRESS);
        return NULL;
    }
}

/* [lo, lo + span) within one allocation the block already knows, or
 * learns from blk->window: its host address, else NULL (no fault). */
static void *global_span(ptx_block *blk, uint64_t lo, uint64_t span)
{
    for (unsigned i = 0; i < PTX_GLOBAL_WINDOWS; i++) {
        const ptx_global_window *w = &blk->windows[i];
        uint64_t off = lo - w->base;
        if (off < w->size && w->size - off >= span)
            return w->host + off;
    }
    ptx_global_window w;
    if (!blk->window || !blk->window(blk->b, lo, &w))
        return NULL;
    blk->windows[blk->next_window] = w;
    blk->next_window = (blk->next_window + 1) % PTX_GLOBAL_WINDOWS;
    uint64_t off = lo - w.base;
    return off < w.size && w.size - off >= span ? w.host + off : NULL;
}

static void *span_in(unsigned char *base, uint64_t size, uint64_t off, uint64_t span)
{
    return off <= size && size - off >= span ? base + off : NULL;
}

void *ptx_memory_span(ptx_block *blk, ptx_space space, uint64_t lo, uint64_t span)
{
    if (space == PTX_SPACE_GENERIC) {
        if (lo - PTX_WINDOW_SHARED < PTX_WINDOW_SIZE)
            return span_in(blk->shared, blk->shared_bytes, lo - PTX_WINDOW_SHARED, span);
        if (lo - PTX_WINDOW_LOCAL < PTX_WINDOW_SIZE)
            return NULL; /* one range per thread */
        space = PTX_SPACE_GLOBAL;
    }
    switch (space) {
    case PTX_SPACE_SHARED:
        return span_in(blk->shared, blk->shared_bytes, lo, span);
    case PTX_SPACE_GLOBAL:
    case PTX_SPACE_CONST:
        if (lo - PTX_WINDOW_MODULE < PTX_WINDOW_SIZE)
            return span_in(blk->m->data, blk->m->data_bytes, lo - PTX_WINDOW_MODULE, span);
        return space == PTX_SPACE_GLOBAL ? global_span(blk, lo, span) : NULL;
    default:
        return NULL;
    }
}
