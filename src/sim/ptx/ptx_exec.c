/*
 * The interpreter: runs one block of a PTX kernel.
 *
 * Warps of 32 lanes run in lockstep: an instruction is executed for every
 * active lane of the warp before the next instruction starts, so
 * warp-synchronous code (volatile shared-memory reductions without
 * barriers) sees what it would on a GPU.
 *
 * Reconvergence: each lane has its own pc and the warp always runs the
 * lanes standing at the lowest pc ("min-pc" scheduling). Lanes that took
 * different sides of a branch meet again as soon as they stand at the same
 * instruction, which for nvcc's code (blocks laid out so that a merge point
 * follows both of its branches, loops closing with a backward branch) is
 * the immediate post-dominator a SIMT stack would use. It needs no
 * control-flow analysis, handles unstructured flow, and can never deadlock
 * a warp; a layout where a merge point comes before one of its branches
 * only converges later than a GPU would, never gives wrong results for
 * code without races between lanes.
 *
 * Barriers: bar.sync parks the lanes that reach it; a warp runs until it
 * has no lane left to run (all exited or parked), then the next warp runs.
 * When no warp of the block can run, every live thread is at a barrier and
 * all are released. Exited threads do not count (as on sm_70 and later);
 * barrier numbers and thread counts are not told apart yet.
 *
 * Calls: expanded at load time (ptx_inline.h), except calls to recursive
 * functions: PTX_OP_RCALL pushes a per-lane activation and branches to the
 * callee, PTX_OP_RRET pops it and sends each lane to its own return pc
 * (ptx_call_stack.c). All of an activation is per lane; in such a kernel
 * the deepest lanes run first (select_group_by_depth), so the lanes of a
 * call meet again at its return point.
 * printf is PTX_OP_VPRINTF (ptx_printf.c).
 */
#include "ptx_alu.h"
#include "ptx_alu_warp.h"
#include "ptx_carry.h"
#include "ptx_block.h"
#include "ptx_call_stack.h"
#include "ptx_inline.h"
#include "ptx_module.h"
#include "ptx_warp_ops.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Warp-instructions between two polls of rt->cancelled(). */
#define CANCEL_POLL_INTERVAL 4096u

#define REG(w, r, lane) ((w)->regs[(size_t)(r) * PTX_WARP_SIZE + (lane)])

static unsigned lowest_lane(uint32_t mask) { return (unsigned)__builtin_ctz(mask); }

/* Lanes in a mask: inline bit counting, since without -mpopcnt
 * __builtin_popcount is a library call. */
static unsigned lane_count(uint32_t m)
{
    if (m == 0xFFFFFFFFu)
        return PTX_WARP_SIZE;
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    return (((m + (m >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}

/* Runs next the lanes of `candidates` (waiting lanes) at their lowest pc,
 * in one pass: a lower pc found demotes the previous lowest to `next`, the
 * lowest pc of the other candidates (w->next_wait_pc). */
static inline void take_lowest_pc(ptx_warp *w, uint32_t candidates)
{
    uint32_t lo = UINT32_MAX, next = UINT32_MAX, group = 0;
    for (uint32_t m = candidates; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        uint32_t pc = w->lane_pc[lane];
        if (pc < lo) {
            next = lo;
            lo = pc;
            group = 1u << lane;
        } else if (pc == lo) {
            group |= 1u << lane;
        } else if (pc < next) {
            next = pc;
        }
    }
    w->pc = group ? lo : w->pc;
    w->group = group;
    w->waiting &= ~group;
    w->next_wait_pc = next;
}

/* select_group in a kernel with recursive calls: the waiting lanes at
 * the lowest pc among the deepest ones. A lane that returned from a call
 * waits until every lane deeper than it has returned too, so lanes that
 * called from one place meet again at its return point (where a GPU
 * reconverges them) before any goes on: warp-wide operations after a
 * call see the whole warp. next_wait_pc: the lowest pc of the other
 * waiting lanes at the group's depth (those it may meet while it runs;
 * shallower ones wait for it, none is deeper). */
static void select_group_by_depth(ptx_warp *w)
{
    uint32_t deepest = 0;
    for (uint32_t m = w->waiting; m; m &= m - 1) {
        uint32_t d = w->call_depth[lowest_lane(m)];
        deepest = d > deepest ? d : deepest;
    }
    uint32_t at_deepest = 0;
    for (uint32_t m = w->waiting; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        if (w->call_depth[lane] == deepest)
            at_deepest |= 1u << lane;
    }
    take_lowest_pc(w, at_deepest);
}

/* Picks the lanes to run next: the waiting lanes at the lowest pc (by
 * depth first in a kernel with recursive calls). */
static void select_group(ptx_warp *w)
{
    if (w->call_depth)
        select_group_by_depth(w);
    else
        take_lowest_pc(w, w->waiting);
}

/* After the group moved to w->pc: if waiting lanes stand at or below it,
 * it must merge with them or let them run first. */
static void settle(ptx_warp *w)
{
    if (!w->waiting || w->pc < w->next_wait_pc)
        return;
    for (uint32_t m = w->group; m; m &= m - 1)
        w->lane_pc[lowest_lane(m)] = w->pc;
    w->waiting |= w->group;
    select_group(w);
}

/* Moves lanes `lanes` of the group to pc `to` (the rest stay at w->pc). */
static void split(ptx_warp *w, uint32_t lanes, uint32_t to, uint32_t rest_pc)
{
    if (!w->waiting && to != rest_pc) {
        /* Nobody else waits: the side with the lower pc runs, the other
         * waits (what select_group would find, without a pass). A running
         * lane's lane_pc is not read until it leaves the group. */
        uint32_t taken = w->group & lanes, fall = w->group & ~lanes;
        bool taken_first = to < rest_pc;
        uint32_t wait = taken_first ? fall : taken, wait_pc = taken_first ? rest_pc : to;
        for (uint32_t m = wait; m; m &= m - 1)
            w->lane_pc[lowest_lane(m)] = wait_pc;
        w->pc = taken_first ? to : rest_pc;
        w->group = taken_first ? taken : fall;
        w->waiting = wait;
        w->next_wait_pc = wait_pc;
        return;
    }
    for (uint32_t m = w->group; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        w->lane_pc[lane] = (lanes >> lane) & 1 ? to : rest_pc;
    }
    w->waiting |= w->group;
    select_group(w);
}

static uint64_t special_register(const ptx_block *blk, const ptx_warp *w, unsigned lane, ptx_sreg s)
{
    const gg_sim_block *b = blk->b;
    unsigned t = w->index * PTX_WARP_SIZE + lane;
    switch (s) {
    case PTX_SREG_TID_X: return t % b->block_dim.x;
    case PTX_SREG_TID_Y: return t / b->block_dim.x % b->block_dim.y;
    case PTX_SREG_TID_Z: return t / (b->block_dim.x * b->block_dim.y);
    case PTX_SREG_NTID_X: return b->block_dim.x;
    case PTX_SREG_NTID_Y: return b->block_dim.y;
    case PTX_SREG_NTID_Z: return b->block_dim.z;
    case PTX_SREG_CTAID_X: return b->block_idx.x;
    case PTX_SREG_CTAID_Y: return b->block_idx.y;
    case PTX_SREG_CTAID_Z: return b->block_idx.z;
    case PTX_SREG_NCTAID_X: return b->grid_dim.x;
    case PTX_SREG_NCTAID_Y: return b->grid_dim.y;
    case PTX_SREG_NCTAID_Z: return b->grid_dim.z;
    case PTX_SREG_LANEID: return lane;
    case PTX_SREG_WARPID: return w->index;
    case PTX_SREG_NWARPID: return blk->nwarps;
    case PTX_SREG_WARPSZ: return PTX_WARP_SIZE;
    case PTX_SREG_CLOCK: case PTX_SREG_CLOCK64: /* mov.u32 keeps the low half */
        return ptx_sim_time_ns(blk->clock, w->insns) * PTX_SIM_CYCLES_PER_NS;
    case PTX_SREG_GLOBALTIMER: return ptx_sim_time_ns(blk->clock, w->insns);
    case PTX_SREG_GLOBALTIMER_LO: return (uint32_t)ptx_sim_time_ns(blk->clock, w->insns);
    case PTX_SREG_GLOBALTIMER_HI: return ptx_sim_time_ns(blk->clock, w->insns) >> 32;
    case PTX_SREG_LANEMASK_EQ: return 1u << lane;
    case PTX_SREG_LANEMASK_LE: return (uint32_t)((2ull << lane) - 1);
    case PTX_SREG_LANEMASK_LT: return (1u << lane) - 1;
    case PTX_SREG_LANEMASK_GE: return ~((1u << lane) - 1);
    case PTX_SREG_LANEMASK_GT: return (uint32_t)~((2ull << lane) - 1);
    case PTX_SREG_DYNAMIC_SMEM_SIZE: return b->shared_bytes;
    case PTX_SREG_TOTAL_SMEM_SIZE: return blk->shared_bytes;
    default: return 0;
    }
}

/* mov of a special register: %tid.x of a one-dimensional block is the
 * thread's index, the others are the same for every lane but %laneid. */
static void mov_special(const ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    const gg_sim_block *b = blk->b;
    ptx_sreg s = in->ops[1].sreg;
    ptx_type t = (ptx_type)in->type;
    uint32_t dst = in->ops[0].reg;
    bool per_lane = s == PTX_SREG_LANEID || s == PTX_SREG_TID_X || s == PTX_SREG_TID_Y ||
                    s == PTX_SREG_TID_Z || (s >= PTX_SREG_LANEMASK_EQ && s <= PTX_SREG_LANEMASK_GT);
    if (!per_lane || (s == PTX_SREG_TID_X && b->block_dim.y * b->block_dim.z == 1)) {
        uint64_t v = per_lane ? 0 : ptx_value_store(special_register(blk, w, 0, s), t);
        uint64_t base = (uint64_t)w->index * PTX_WARP_SIZE;
        uint64_t mask = ptx_value_store(UINT64_MAX, t); /* the type's width (not a predicate) */
        for (uint32_t m = active; m; m &= m - 1) {
            unsigned lane = lowest_lane(m);
            REG(w, dst, lane) = per_lane && t != PTX_T_PRED ? (base + lane) & mask
                                : per_lane ? ptx_value_store(base + lane, t) : v;
        }
        return;
    }
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        REG(w, dst, lane) = ptx_value_store(special_register(blk, w, lane, s), t);
    }
}

static uint64_t read_operand(const ptx_block *blk, const ptx_warp *w, unsigned lane,
                             const ptx_operand *o, ptx_type t)
{
    uint64_t raw;
    switch (o->kind) {
    case PTX_OPND_REG: raw = REG(w, o->reg, lane); break;
    case PTX_OPND_IMM: raw = o->imm; break;
    case PTX_OPND_SREG: raw = special_register(blk, w, lane, o->sreg); break;
    default: raw = 0; break;
    }
    uint64_t v = ptx_value_as(raw, t);
    return o->negate ? v ^ 1u : v;
}

uint64_t ptx_operand_value(const ptx_block *blk, const ptx_warp *w, unsigned lane,
                           const ptx_operand *o, ptx_type t)
{
    return read_operand(blk, w, lane, o, t);
}

static ptx_type wide_type(ptx_type t)
{
    switch (t) {
    case PTX_T_S16: return PTX_T_S32;
    case PTX_T_U16: return PTX_T_U32;
    case PTX_T_S32: return PTX_T_S64;
    case PTX_T_U32: return PTX_T_U64;
    default: return t;
    }
}

/* The address an ld/st/atom operand names for one lane. */
static uint64_t operand_address(const ptx_warp *w, unsigned lane, const ptx_operand *o)
{
    uint64_t base = o->reg == PTX_NO_REG ? 0 : REG(w, o->reg, lane);
    return base + o->imm;
}

/* ld.param of a kernel parameter: the same value for every lane. */
static void load_param(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_type t = (ptx_type)in->type;
    unsigned size = ptx_type_bytes(t);
    const ptx_operand *dst = &in->ops[0], *src = &in->ops[1];
    const unsigned char *p = (const unsigned char *)blk->b->params[src->reg] + src->imm;
    for (unsigned e = 0; e < in->vec; e++) {
        uint64_t v = 0;
        memcpy(&v, p + e * size, size);
        v = ptx_value_as(v, t);
        uint32_t reg = in->vec > 1 ? dst->vec[e] : dst->reg;
        for (uint32_t m = active; m; m &= m - 1)
            REG(w, reg, lowest_lane(m)) = v;
    }
}

/* The lowest address `active` lanes access through ADDR operand o, and
 * the span from it to the end of the highest access; false if one is
 * misaligned or the span wraps (the lane-by-lane path then faults). */
static bool warp_span(const ptx_warp *w, const ptx_operand *o, uint32_t active, unsigned bytes,
                      uint64_t *lo_out, uint64_t *span_out)
{
    uint64_t lo = UINT64_MAX, hi = 0, misaligned = 0;
    if (o->reg == PTX_NO_REG) {
        lo = hi = o->imm;
        misaligned = o->imm;
    } else {
        const uint64_t *base = &REG(w, o->reg, 0);
        for (uint32_t m = active; m; m &= m - 1) {
            uint64_t a = base[lowest_lane(m)] + o->imm;
            lo = a < lo ? a : lo;
            hi = a > hi ? a : hi;
            misaligned |= a;
        }
    }
    if ((bytes > 1 && (misaligned & (bytes - 1))) || hi + bytes < hi)
        return false;
    *lo_out = lo;
    *span_out = hi + bytes - lo;
    return true;
}

/* ld/st of one element for all active lanes at once, when their accesses
 * lie in one range (ptx_memory_span): what the lane-by-lane path does,
 * without resolving each lane. False (nothing done) otherwise. */
static bool load_warp(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_type t = (ptx_type)in->type;
    unsigned size = ptx_type_bytes(t);
    const ptx_operand *src = &in->ops[1];
    uint64_t lo, span;
    if (in->vec != 1 || src->kind != PTX_OPND_ADDR || !active || !warp_span(w, src, active, size, &lo, &span))
        return false;
    const unsigned char *p = ptx_memory_span(blk, (ptx_space)in->space, lo, span);
    if (!p)
        return false;
    const uint64_t *base = src->reg == PTX_NO_REG ? NULL : &REG(w, src->reg, 0);
    uint64_t *dst = &REG(w, in->ops[0].reg, 0);
    uint64_t delta = src->imm - lo;
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        const unsigned char *q = p + (base ? base[lane] + delta : 0);
        if (size == 4) {
            uint32_t v;
            memcpy(&v, q, 4);
            dst[lane] = t == PTX_T_S32 ? (uint64_t)(int64_t)(int32_t)v : v;
        } else if (size == 8) {
            memcpy(&dst[lane], q, 8);
        } else {
            uint64_t v = 0;
            memcpy(&v, q, size);
            dst[lane] = ptx_value_as(v, t);
        }
    }
    return true;
}

static bool store_warp(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    unsigned size = ptx_type_bytes((ptx_type)in->type);
    const ptx_operand *dst = &in->ops[0], *src = &in->ops[1];
    uint64_t lo, span;
    if (in->vec != 1 || dst->kind != PTX_OPND_ADDR || (src->kind != PTX_OPND_REG && src->kind != PTX_OPND_IMM) ||
        src->negate || !active || !warp_span(w, dst, active, size, &lo, &span))
        return false;
    unsigned char *p = ptx_memory_span(blk, (ptx_space)in->space, lo, span);
    if (!p)
        return false;
    const uint64_t *base = dst->reg == PTX_NO_REG ? NULL : &REG(w, dst->reg, 0);
    const uint64_t *val = src->kind == PTX_OPND_REG ? &REG(w, src->reg, 0) : NULL;
    uint64_t delta = dst->imm - lo;
    /* Lanes in ascending order: of lanes storing to one address, the
     * highest wins, as in the lane-by-lane path. The low `size` bytes of
     * the register are the value at the type's width. */
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        uint64_t v = val ? val[lane] : src->imm;
        memcpy(p + (base ? base[lane] + delta : 0), &v, size);
    }
    return true;
}

static void do_load(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_type t = (ptx_type)in->type;
    unsigned size = ptx_type_bytes(t);
    const ptx_operand *dst = &in->ops[0], *src = &in->ops[1];
    if (src->kind == PTX_OPND_PARAM) {
        load_param(blk, w, in, active);
        return;
    }
    if (load_warp(blk, w, in, active))
        return;
    for (uint32_t m = active; m && !blk->faulted; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        const unsigned char *p;
        if (src->kind == PTX_OPND_PARAM) {
            p = (const unsigned char *)blk->b->params[src->reg] + src->imm;
        } else {
            p = ptx_memory_resolve(blk, (ptx_space)in->space, operand_address(w, lane, src),
                                   size * in->vec, w->index * PTX_WARP_SIZE + lane);
            if (!p)
                return;
        }
        for (unsigned e = 0; e < in->vec; e++) {
            uint64_t v = 0;
            memcpy(&v, p + e * size, size); /* little-endian host, as the device */
            uint32_t reg = in->vec > 1 ? dst->vec[e] : dst->reg;
            REG(w, reg, lane) = ptx_value_as(v, t);
        }
    }
}

static void do_store(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_type t = (ptx_type)in->type;
    unsigned size = ptx_type_bytes(t);
    const ptx_operand *dst = &in->ops[0], *src = &in->ops[1];
    if (store_warp(blk, w, in, active))
        return;
    for (uint32_t m = active; m && !blk->faulted; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        unsigned char *p;
        if (dst->kind == PTX_OPND_PARAM) {
            p = (unsigned char *)blk->b->params[dst->reg] + dst->imm;
        } else {
            p = ptx_memory_resolve(blk, (ptx_space)in->space, operand_address(w, lane, dst),
                                   size * in->vec, w->index * PTX_WARP_SIZE + lane);
            if (!p)
                return;
        }
        for (unsigned e = 0; e < in->vec; e++) {
            uint64_t v = in->vec > 1 ? REG(w, src->vec[e], lane) : read_operand(blk, w, lane, src, t);
            memcpy(p + e * size, &v, size);
        }
    }
}

static void do_alu(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_type t = (ptx_type)in->type;
    ptx_type ta = t, tb = t, tc = t, tdst = t;
    switch ((ptx_opcode)in->op) {
    case PTX_OP_CVT: ta = (ptx_type)in->type2; break;
    case PTX_OP_SHL: case PTX_OP_SHR: tb = PTX_T_U32; break;
    case PTX_OP_SETP: tdst = PTX_T_PRED; tc = PTX_T_PRED; break;
    case PTX_OP_SET: ta = tb = (ptx_type)in->type2; tc = PTX_T_PRED; break;
    case PTX_OP_TESTP: tdst = PTX_T_PRED; break;
    case PTX_OP_SELP: tc = PTX_T_PRED; break;
    case PTX_OP_MUL: case PTX_OP_MAD:
        if (in->mods & PTX_MOD_WIDE)
            tdst = tc = wide_type(t);
        break;
    default: break;
    }
    const ptx_operand *o = in->ops;
    uint32_t dst = o[0].reg;
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        uint64_t a = read_operand(blk, w, lane, &o[1], ta);
        uint64_t b = in->nops > 2 ? read_operand(blk, w, lane, &o[2], tb) : 0;
        uint64_t c = in->nops > 3 ? read_operand(blk, w, lane, &o[3], tc) : 0;
        uint64_t d = in->nops > 4 ? read_operand(blk, w, lane, &o[4], t) : 0; /* bfi's length */
        uint64_t r = ptx_alu4(in, a, b, c, d);
        if (in->op == PTX_OP_SETP && in->boolop) {
            r = in->boolop == PTX_BOOL_AND ? (r & c) : in->boolop == PTX_BOOL_OR ? (r | c) : (r ^ c);
        }
        REG(w, dst, lane) = ptx_value_store(r, tdst);
    }
}

static void do_cvta(ptx_warp *w, const ptx_insn *in, uint32_t active, const ptx_block *blk)
{
    if (in->space == PTX_SPACE_GLOBAL && in->ops[1].kind == PTX_OPND_REG && in->type == PTX_T_U64) {
        /* Global and generic addresses are the same: a copy. */
        for (uint32_t m = active; m; m &= m - 1) {
            unsigned lane = lowest_lane(m);
            REG(w, in->ops[0].reg, lane) = REG(w, in->ops[1].reg, lane);
        }
        return;
    }
    uint64_t window = in->space == PTX_SPACE_SHARED ? PTX_WINDOW_SHARED
                      : in->space == PTX_SPACE_LOCAL ? PTX_WINDOW_LOCAL : 0;
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        uint64_t a = read_operand(blk, w, lane, &in->ops[1], PTX_T_U64);
        uint64_t r = (in->mods & PTX_MOD_TO) ? a - window : a + window;
        REG(w, in->ops[0].reg, lane) = ptx_value_store(r, (ptx_type)in->type);
    }
}

/* mov.bN {a, b[, c, d]}, x splits x into its pieces, low first;
 * mov.bN x, {a, b[, c, d]} joins them. */
static void do_mov_vector(ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    bool unpack = in->ops[0].kind == PTX_OPND_VEC;
    const ptx_operand *vec = unpack ? &in->ops[0] : &in->ops[1];
    uint32_t scalar = unpack ? in->ops[1].reg : in->ops[0].reg;
    unsigned piece_bits = ptx_type_bytes((ptx_type)in->type) * 8u / vec->count;
    uint64_t piece_mask = (1ull << piece_bits) - 1; /* piece_bits <= 32 */
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        if (unpack) {
            uint64_t x = REG(w, scalar, lane);
            for (unsigned e = 0; e < vec->count; e++)
                REG(w, vec->vec[e], lane) = (x >> (e * piece_bits)) & piece_mask;
        } else {
            uint64_t x = 0;
            for (unsigned e = 0; e < vec->count; e++)
                x |= (REG(w, vec->vec[e], lane) & piece_mask) << (e * piece_bits);
            REG(w, scalar, lane) = x;
        }
    }
}

/* Lanes of the group whose guard predicate holds. */
static uint32_t guarded(const ptx_warp *w, const ptx_insn *in)
{
    if (in->pred == PTX_NO_REG)
        return w->group;
    /* All 32 lanes without branches, then masked: cheaper than a walk
     * over the group's lanes. */
    const uint64_t *p = &REG(w, in->pred, 0);
    uint32_t holds = 0;
    for (unsigned lane = 0; lane < PTX_WARP_SIZE; lane++)
        holds |= (uint32_t)(p[lane] != 0) << lane;
    return (in->pred_negate ? ~holds : holds) & w->group;
}

/* Removes lanes from the group (exited or parked at a barrier); the rest
 * of the group moves on to the next instruction. */
static void leave_group(ptx_warp *w, uint32_t lanes)
{
    w->group &= ~lanes;
    w->pc++;
    if (!w->group)
        select_group(w);
    else
        settle(w);
}

/* Executes the instruction at w->pc for the warp's group. */
/* The active lanes wait at a block barrier (bar.sync, bar.red) until the
 * whole block arrives; they go on at the next instruction. */
static void arrive_at_barrier(ptx_warp *w, uint32_t active)
{
    for (uint32_t m = active; m; m &= m - 1)
        w->lane_pc[lowest_lane(m)] = w->pc + 1;
    w->at_barrier |= active;
    leave_group(w, active);
}

static void step(ptx_block *blk, ptx_warp *w)
{
    const ptx_insn *in = &blk->k->code[w->pc];
    uint32_t active = guarded(w, in);
    blk->thread_insns += lane_count(active);
    switch ((ptx_opcode)in->op) {
    case PTX_OP_BRA:
        if (active == w->group) {
            w->pc = in->target;
            settle(w);
        } else if (active == 0) {
            w->pc++;
            settle(w);
        } else {
            split(w, active, in->target, w->pc + 1);
        }
        return;
    case PTX_OP_RCALL: {
        /* Calls cannot be guarded (the parser refuses it): every lane of
         * the group calls, one level deeper than any other lane. */
        if (!ptx_call_enter(blk, w, in, active))
            return; /* faulted: the block stops */
        uint32_t entry = blk->k->rfuncs[blk->k->rcalls[in->target].rfunc].entry;
        for (uint32_t m = w->group; m; m &= m - 1)
            w->lane_pc[lowest_lane(m)] = (active >> lowest_lane(m)) & 1 ? entry : w->pc + 1;
        w->waiting |= w->group;
        select_group(w);
        return;
    }
    case PTX_OP_RRET: {
        uint32_t ret_pc[PTX_WARP_SIZE];
        if (active && !ptx_call_return(blk, w, in, active, ret_pc))
            return;
        /* Each lane back at its own caller (guarded-off lanes go on): all
         * wait at their pcs and the lowest run next. */
        for (uint32_t m = w->group; m; m &= m - 1) {
            unsigned lane = lowest_lane(m);
            w->lane_pc[lane] = (active >> lane) & 1 ? ret_pc[lane] : w->pc + 1;
        }
        w->waiting |= w->group;
        select_group(w);
        return;
    }
    case PTX_OP_RET:
    case PTX_OP_EXIT:
        w->live &= ~active;
        leave_group(w, active);
        return;
    case PTX_OP_BAR_RED: {
        /* Each arriving thread's predicate counts; the result reaches every
         * participating thread when the barrier releases (release_barrier). */
        const ptx_operand *c = &in->ops[in->nops - 1];
        for (uint32_t m = active; m; m &= m - 1) {
            unsigned lane = lowest_lane(m);
            bool v = (REG(w, c->reg, lane) & 1) != (c->negate != 0);
            if (v)
                blk->red_true++;
            else
                blk->red_false++;
        }
        blk->red_op = in->subop;
        w->red_lanes |= active;
        w->red_dst = in->ops[0].reg;
        arrive_at_barrier(w, active);
        return;
    }
    case PTX_OP_BAR:
        arrive_at_barrier(w, active);
        return;
    case PTX_OP_TRAP:
        if (active)
            ptx_block_fault(blk, GG_SIM_TRAP_LAUNCH_FAILED);
        break;
    case PTX_OP_ASSERTFAIL:
        if (active)
            ptx_block_fault(blk, GG_SIM_TRAP_ASSERT);
        break;
    case PTX_OP_VPRINTF: ptx_vprintf_lanes(blk, in, w->index, active); break;
    case PTX_OP_NOP:
    case PTX_OP_MEMBAR: /* one block runs at a time: its accesses are already ordered */
        break;
    case PTX_OP_LD: do_load(blk, w, in, active); break;
    case PTX_OP_ST: do_store(blk, w, in, active); break;
    case PTX_OP_ATOM:
    case PTX_OP_RED: ptx_exec_atomic(blk, w, in, active); break;
    case PTX_OP_SHFL: case PTX_OP_VOTE: case PTX_OP_ACTIVEMASK: case PTX_OP_MATCH:
    case PTX_OP_REDUX: case PTX_OP_WARPSYNC: ptx_exec_warp_op(blk, w, in, active); break;
    case PTX_OP_CVTA: do_cvta(w, in, active, blk); break;
    case PTX_OP_MOV:
        if (in->ops[0].kind == PTX_OPND_VEC || in->ops[1].kind == PTX_OPND_VEC) {
            do_mov_vector(w, in, active);
            break;
        }
        if (in->ops[1].kind == PTX_OPND_SREG) {
            mov_special(blk, w, in, active);
            break;
        }
        if (!ptx_alu_warp_b32(w, in, active) && !ptx_alu_warp_float(w, in, active))
            do_alu(blk, w, in, active);
        break;
    case PTX_OP_ADDC: case PTX_OP_SUBC: case PTX_OP_MADC: ptx_exec_carry(blk, w, in, active); break;
    case PTX_OP_SET: do_alu(blk, w, in, active); break; /* no warp-wide path */
    default:
        if (in->mods & PTX_MOD_CC) /* add.cc sub.cc mad.cc */
            ptx_exec_carry(blk, w, in, active);
        else if (!ptx_alu_warp_b32(w, in, active) && !ptx_alu_warp_float(w, in, active))
            do_alu(blk, w, in, active);
        break;
    }
    w->pc++;
    settle(w);
}

/* A block's .local at or above this size (a raised stack limit's call
 * stacks) is an anonymous mapping rather than calloc's: its zero pages
 * cost nothing until a thread touches them, whatever the allocator (a
 * sanitizer's calloc writes every byte of a large block). */
#define LOCAL_MAPPED_BYTES (64ull << 20)

static unsigned char *local_alloc(uint64_t bytes)
{
    if (bytes < LOCAL_MAPPED_BYTES)
        return calloc(1, bytes ? bytes : 1);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void local_free(unsigned char *local, uint64_t bytes)
{
    if (local && bytes >= LOCAL_MAPPED_BYTES)
        munmap(local, bytes);
    else
        free(local);
}

/* The block's .local bytes in all. */
static uint64_t block_local_bytes(const ptx_block *blk)
{
    return (uint64_t)blk->nthreads * blk->thread_local_bytes;
}

static bool block_setup(ptx_block *blk, ptx_warp **warps_out)
{
    const gg_sim_block *b = blk->b;
    blk->nthreads = b->block_dim.x * b->block_dim.y * b->block_dim.z;
    blk->nwarps = (blk->nthreads + PTX_WARP_SIZE - 1) / PTX_WARP_SIZE;
    blk->shared_bytes = (uint64_t)blk->m->extern_shared_offset + b->shared_bytes;
    blk->shared = calloc(1, blk->shared_bytes ? blk->shared_bytes : 1);
    blk->thread_local_bytes = ptx_kernel_thread_local_bytes(blk->k, blk->stack_bytes);
    blk->local = local_alloc(block_local_bytes(blk));
    ptx_warp *warps = calloc(blk->nwarps, sizeof *warps);
    uint64_t *regs = calloc((size_t)blk->nwarps * PTX_WARP_SIZE, (blk->k->nregs ? blk->k->nregs : 1) * sizeof *regs);
    /* Per warp: stack_used[32] then call_depth[32]. */
    uint32_t *call_state = blk->k->nrfuncs ? calloc((size_t)blk->nwarps * 2 * PTX_WARP_SIZE, sizeof *call_state)
                                           : NULL;
    if (!blk->shared || !blk->local || !warps || !regs || (blk->k->nrfuncs && !call_state)) {
        free(warps);
        free(regs);
        free(call_state);
        return false;
    }
    for (unsigned i = 0; i < blk->nwarps; i++) {
        ptx_warp *w = &warps[i];
        unsigned lanes = blk->nthreads - i * PTX_WARP_SIZE;
        w->index = i;
        w->live = lanes >= PTX_WARP_SIZE ? 0xFFFFFFFFu : (1u << lanes) - 1;
        w->group = w->live;
        w->next_wait_pc = UINT32_MAX;
        if (call_state) {
            w->stack_used = call_state + (size_t)i * 2 * PTX_WARP_SIZE;
            w->call_depth = w->stack_used + PTX_WARP_SIZE;
        }
        w->insns = blk->clock->block_start;
        w->regs = regs + (size_t)i * PTX_WARP_SIZE * (blk->k->nregs ? blk->k->nregs : 1);
    }
    *warps_out = warps;
    return true;
}

/* The simulated clock of the block's latest warp. */
static uint64_t latest_warp_clock(const ptx_warp *warps, unsigned nwarps)
{
    uint64_t latest = 0;
    for (unsigned i = 0; i < nwarps; i++)
        latest = warps[i].insns > latest ? warps[i].insns : latest;
    return latest;
}

static void run_block(const ptx_module *m, const ptx_kernel *k, const gg_sim_block *b,
                      ptx_window_fn window, ptx_sim_clock *clock, ptx_printf_fifo *printf_fifo,
                      uint64_t stack_bytes, uint64_t *thread_insns);

void ptx_run_block(const ptx_module *m, const ptx_kernel *k, const gg_sim_block *b,
                   ptx_window_fn window, ptx_sim_clock *clock, ptx_printf_fifo *printf_fifo)
{
    run_block(m, k, b, window, clock, printf_fifo, PTX_CALL_STACK_BYTES, NULL);
}

void ptx_run_block_counted(const ptx_module *m, const ptx_kernel *k, const gg_sim_block *b,
                           ptx_window_fn window, ptx_sim_clock *clock, ptx_printf_fifo *printf_fifo,
                           uint64_t *thread_insns)
{
    run_block(m, k, b, window, clock, printf_fifo, PTX_CALL_STACK_BYTES, thread_insns);
}

void ptx_run_block_with_stack(const ptx_module *m, const ptx_kernel *k, const gg_sim_block *b,
                              ptx_window_fn window, ptx_sim_clock *clock,
                              ptx_printf_fifo *printf_fifo, uint64_t stack_bytes)
{
    run_block(m, k, b, window, clock, printf_fifo, stack_bytes, NULL);
}

static void run_block(const ptx_module *m, const ptx_kernel *k, const gg_sim_block *b,
                      ptx_window_fn window, ptx_sim_clock *clock, ptx_printf_fifo *printf_fifo,
                      uint64_t stack_bytes, uint64_t *thread_insns)
{
    ptx_block blk = { .m = m, .k = k, .b = b, .window = window, .clock = clock,
                     .printf_fifo = printf_fifo, .stack_bytes = k->nrfuncs ? stack_bytes : 0 };
    ptx_warp *warps = NULL;
    if (!block_setup(&blk, &warps)) {
        free(blk.shared);
        local_free(blk.local, block_local_bytes(&blk));
        b->rt->trap(b, GG_SIM_TRAP_LAUNCH_FAILED); /* out of host memory */
        clock->block_end = clock->block_start;
        return;
    }
    unsigned until_poll = CANCEL_POLL_INTERVAL;
    bool stopped = false;
    for (;;) {
        for (unsigned i = 0; i < blk.nwarps && !stopped; i++) {
            ptx_warp *w = &warps[i];
            while (w->group) {
                /* The watchdog in simulated time: the same instruction of
                 * the same launch is the last one, however fast the host. */
                if (w->insns >= clock->insn_limit) {
                    clock->expired = true;
                    stopped = true;
                    break;
                }
                w->insns++;
                step(&blk, w);
                if (blk.faulted) {
                    stopped = true;
                    break;
                }
                if (--until_poll == 0) {
                    until_poll = CANCEL_POLL_INTERVAL;
                    if (b->rt->cancelled(b)) {
                        stopped = true;
                        break;
                    }
                }
            }
        }
        if (stopped)
            break;
        /* No warp can run: every live thread waits at the barrier, or
         * none is left. The barrier ends when its latest warp arrives. */
        uint64_t latest = latest_warp_clock(warps, blk.nwarps);
        bool released = false;
        /* A bar.red's result: popc the threads whose predicate held, and
         * whether all of them did, or any. */
        uint64_t red = blk.red_op == PTX_BAR_RED_POPC ? blk.red_true
                       : blk.red_op == PTX_BAR_RED_AND ? blk.red_false == 0
                                                       : blk.red_true != 0;
        for (unsigned i = 0; i < blk.nwarps; i++) {
            ptx_warp *w = &warps[i];
            for (uint32_t m = w->red_lanes; m; m &= m - 1)
                REG(w, w->red_dst, lowest_lane(m)) = red;
            w->red_lanes = 0;
            if (!w->at_barrier)
                continue;
            w->insns = latest;
            w->waiting |= w->at_barrier;
            w->at_barrier = 0;
            select_group(w);
            released = true;
        }
        blk.red_op = 0;
        blk.red_true = blk.red_false = 0;
        if (!released)
            break;
    }
    uint64_t latest = latest_warp_clock(warps, blk.nwarps);
    clock->block_end = latest;
    clock->insns = latest > clock->insns ? latest : clock->insns;
    if (thread_insns)
        *thread_insns += blk.thread_insns;
    free(warps ? warps[0].regs : NULL);
    free(warps ? warps[0].stack_used : NULL);
    free(warps);
    free(blk.shared);
    local_free(blk.local, block_local_bytes(&blk));
}
