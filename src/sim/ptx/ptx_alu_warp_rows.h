/*
 * What the warp-wide forms (ptx_alu_warp.c, ptx_alu_warp_float.c) share:
 * operands as rows of 32 lanes and the loop over the active lanes.
 * Internal to those two files.
 */
#ifndef GG_PTX_ALU_WARP_ROWS_H
#define GG_PTX_ALU_WARP_ROWS_H

#include "ptx_block.h"

#include <string.h>

/* An operand as a row of 32 lanes: a register's row, or a constant copied
 * into all 32 entries of `spill`, so that every operand is indexed the same
 * way and the loops vectorise. */
typedef struct lane_row { const uint64_t *v; } lane_row;

/* Points r at operand o's row (spill: 32 entries for a constant); false
 * for operands that have no row (negated predicates, special registers). */
static inline bool as_row(const ptx_warp *w, const ptx_operand *o, uint64_t *spill, lane_row *r)
{
    if (o->negate)
        return false;
    if (o->kind == PTX_OPND_REG) {
        r->v = w->regs + (size_t)o->reg * PTX_WARP_SIZE;
        return true;
    }
    if (o->kind == PTX_OPND_IMM) {
        for (unsigned lane = 0; lane < PTX_WARP_SIZE; lane++)
            spill[lane] = o->imm;
        r->v = spill;
        return true;
    }
    return false;
}

/* Runs `expr` (64 bits, of `lane`) for every lane of `active` into dst. */
#define FOR_LANES64(expr)                                                   \
    do {                                                                    \
        if (active == 0xFFFFFFFFu) {                                        \
            uint64_t r_[PTX_WARP_SIZE]; /* no alias of a, b or c: vectorises */\
            for (unsigned lane = 0; lane < PTX_WARP_SIZE; lane++)           \
                r_[lane] = (expr);                                          \
            memcpy(dst, r_, sizeof r_);                                     \
        } else {                                                            \
            for (uint32_t m_ = active; m_; m_ &= m_ - 1) {                  \
                unsigned lane = (unsigned)__builtin_ctz(m_);                \
                dst[lane] = (expr);                                         \
            }                                                               \
        }                                                                   \
    } while (0)

#endif
