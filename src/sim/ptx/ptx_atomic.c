/*
 * atom and red (see ptx_warp_ops.h): every operation is one C11 atomic on
 * the host word, since host threads and other launches may touch the same
 * memory at the same time. Operations C11 has (add, and, or, xor, exch,
 * cas) are used as such; the others (min, max, inc, dec, float add) are a
 * compare-and-swap loop around the PTX result.
 */
#include "ptx_alu.h"
#include "ptx_warp_ops.h"

#include <stdatomic.h>

static unsigned lowest_lane(uint32_t m) { return (unsigned)__builtin_ctz(m); }

/* The new value of a word holding `old` after operation op with b (PTX
 * ISA): integers at the type's width and signedness; inc wraps to 0 past
 * b, dec to b below 0 or above b; f32 add on global memory flushes
 * subnormal inputs and results to zero (as the GPU does), f64 add and
 * shared f32 add do not. */
static uint64_t combine(const ptx_insn *in, uint64_t old, uint64_t b, bool flush)
{
    ptx_type t = (ptx_type)in->type;
    uint64_t o = ptx_value_as(old, t);
    switch ((ptx_atomop)in->subop) {
    case PTX_ATOM_ADD:
        if (ptx_type_is_float(t)) {
            ptx_insn add = { .op = PTX_OP_ADD, .type = (uint8_t)t,
                             .mods = (uint16_t)(flush ? PTX_MOD_FTZ : 0) };
            return ptx_alu(&add, o, b, 0);
        }
        return o + b;
    case PTX_ATOM_MIN: case PTX_ATOM_MAX: {
        bool less = ptx_type_is_signed(t) ? (int64_t)b < (int64_t)o : b < o;
        bool take_b = in->subop == PTX_ATOM_MIN ? less : (!less && b != o);
        return take_b ? b : o;
    }
    case PTX_ATOM_INC: return (uint32_t)o >= (uint32_t)b ? 0 : o + 1;
    case PTX_ATOM_DEC: return (uint32_t)o == 0 || (uint32_t)o > (uint32_t)b ? b : o - 1;
    case PTX_ATOM_AND: return o & b;
    case PTX_ATOM_OR: return o | b;
    case PTX_ATOM_XOR: return o ^ b;
    default: return b; /* exch */
    }
}

/* One atomic on a 4-byte word; returns the old value. */
static uint32_t atomic32(_Atomic uint32_t *a, const ptx_insn *in, uint32_t b, uint32_t c, bool flush)
{
    switch ((ptx_atomop)in->subop) {
    case PTX_ATOM_EXCH: return atomic_exchange(a, b);
    case PTX_ATOM_CAS: atomic_compare_exchange_strong(a, &b, c); return b;
    case PTX_ATOM_AND: return atomic_fetch_and(a, b);
    case PTX_ATOM_OR: return atomic_fetch_or(a, b);
    case PTX_ATOM_XOR: return atomic_fetch_xor(a, b);
    case PTX_ATOM_ADD:
        if (in->type != PTX_T_F32)
            return atomic_fetch_add(a, b);
        break;
    default:
        break;
    }
    uint32_t cur = atomic_load(a), next;
    do {
        next = (uint32_t)combine(in, cur, ptx_value_as(b, (ptx_type)in->type), flush);
    } while (!atomic_compare_exchange_weak(a, &cur, next));
    return cur;
}

/* One atomic on an 8-byte word; returns the old value. */
static uint64_t atomic64(_Atomic uint64_t *a, const ptx_insn *in, uint64_t b, uint64_t c)
{
    switch ((ptx_atomop)in->subop) {
    case PTX_ATOM_EXCH: return atomic_exchange(a, b);
    case PTX_ATOM_CAS: atomic_compare_exchange_strong(a, &b, c); return b;
    case PTX_ATOM_AND: return atomic_fetch_and(a, b);
    case PTX_ATOM_OR: return atomic_fetch_or(a, b);
    case PTX_ATOM_XOR: return atomic_fetch_xor(a, b);
    case PTX_ATOM_ADD:
        if (in->type != PTX_T_F64)
            return atomic_fetch_add(a, b);
        break;
    default:
        break;
    }
    uint64_t cur = atomic_load(a), next;
    do {
        next = combine(in, cur, b, false);
    } while (!atomic_compare_exchange_weak(a, &cur, next));
    return cur;
}

void ptx_exec_atomic(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_type t = (ptx_type)in->type;
    unsigned size = ptx_type_bytes(t);
    bool is_red = in->op == PTX_OP_RED;
    const ptx_operand *addr = &in->ops[is_red ? 0 : 1], *bop = &in->ops[is_red ? 1 : 2];
    for (uint32_t m = active; m && !blk->faulted; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        uint64_t a = (addr->reg == PTX_NO_REG ? 0 : *ptx_lane_reg(w, addr->reg, lane)) + addr->imm;
        void *p = ptx_memory_resolve(blk, (ptx_space)in->space, a, size, w->index * PTX_WARP_SIZE + lane);
        if (!p)
            return;
        /* Global f32 add flushes subnormals, shared does not (PTX ISA). */
        bool shared = in->space == PTX_SPACE_SHARED ||
                      (in->space == PTX_SPACE_GENERIC && a - PTX_WINDOW_SHARED < PTX_WINDOW_SIZE);
        uint64_t b = ptx_operand_value(blk, w, lane, bop, t);
        uint64_t c = in->subop == PTX_ATOM_CAS ? ptx_operand_value(blk, w, lane, &in->ops[3], t) : 0;
        uint64_t old = size == 4 ? atomic32(p, in, (uint32_t)b, (uint32_t)c, !shared)
                                 : atomic64(p, in, b, c);
        if (!is_red)
            *ptx_lane_reg(w, in->ops[0].reg, lane) = ptx_value_store(old, t);
    }
}
