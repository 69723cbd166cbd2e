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

/* Lane i of the result depends on lane i of the operands only, and a
 * destination row is either an operand's row or disjoint from it (rows of
 * different registers never overlap): the loop over all 32 lanes may be
 * vectorised in place, which these pragmas tell the compiler (it cannot
 * prove it, and would otherwise leave the loop scalar at -O2). */
#if defined(__clang__)
#define PTX_LANES_INDEPENDENT _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
/* and unrolled: at -O2 a vectorised loop of 16 iterations otherwise
 * spends as much on its counter and branch as on its work. */
#define PTX_LANES_INDEPENDENT _Pragma("GCC ivdep") _Pragma("GCC unroll 16")
#else
#define PTX_LANES_INDEPENDENT
#endif

/* Runs `expr` (64 bits, of `lane`) for every lane of `active` into dst. */
#define FOR_LANES64(expr)                                                   \
    do {                                                                    \
        if (active == 0xFFFFFFFFu) {                                        \
            PTX_LANES_INDEPENDENT                                           \
            for (unsigned lane = 0; lane < PTX_WARP_SIZE; lane++)           \
                dst[lane] = (expr);                                         \
        } else {                                                            \
            for (uint32_t m_ = active; m_; m_ &= m_ - 1) {                  \
                unsigned lane = (unsigned)__builtin_ctz(m_);                \
                dst[lane] = (expr);                                         \
            }                                                               \
        }                                                                   \
    } while (0)

#endif
