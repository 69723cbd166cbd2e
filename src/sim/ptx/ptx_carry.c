/* Extended-precision integer arithmetic: see ptx_carry.h. */
#include "ptx_carry.h"
#include "ptx_alu.h"

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 s128;

static unsigned lowest_lane(uint32_t m) { return (unsigned)__builtin_ctz(m); }

/* The high half of a * b at the type's width (signed types: the signed
 * product's). a and b come sign- or zero-extended to 64 bits. */
static uint64_t product_high(uint64_t a, uint64_t b, ptx_type t, unsigned bits)
{
    if (bits == 32)
        return (uint64_t)((ptx_type_is_signed(t) ? (uint64_t)((int64_t)a * (int64_t)b)
                                                  : (uint64_t)(uint32_t)a * (uint32_t)b) >> 32);
    if (ptx_type_is_signed(t))
        return (uint64_t)((u128)((s128)(int64_t)a * (int64_t)b) >> 64);
    return (uint64_t)(((u128)a * b) >> 64);
}

void ptx_exec_carry(const ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_type t = (ptx_type)in->type;
    unsigned bits = ptx_type_bytes(t) * 8u;
    u128 mask = bits == 64 ? (u128)UINT64_MAX : (u128)UINT32_MAX;
    bool chained_in = in->op == PTX_OP_ADDC || in->op == PTX_OP_SUBC || in->op == PTX_OP_MADC;
    bool sets_cc = (in->mods & PTX_MOD_CC) != 0;
    bool is_sub = in->op == PTX_OP_SUB || in->op == PTX_OP_SUBC;
    bool is_mad = in->op == PTX_OP_MAD || in->op == PTX_OP_MADC;
    uint32_t dst = in->ops[0].reg;
    uint32_t carry_out = 0;
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        uint64_t a = ptx_operand_value(blk, w, lane, &in->ops[1], t);
        uint64_t b = ptx_operand_value(blk, w, lane, &in->ops[2], t);
        unsigned cin = chained_in ? (w->carry >> lane) & 1u : 0u;
        u128 x, y;
        if (is_mad) {
            uint64_t c = ptx_operand_value(blk, w, lane, &in->ops[3], t);
            x = (in->mods & PTX_MOD_HI) ? product_high(a, b, t, bits) : (uint64_t)(a * b);
            x &= mask;
            y = (u128)c & mask;
        } else {
            x = (u128)a & mask;
            y = (u128)b & mask;
        }
        u128 r;
        bool out;
        if (is_sub) {
            u128 subtrahend = y + cin;
            r = (x - subtrahend) & mask;
            out = x < subtrahend; /* borrow */
        } else {
            u128 sum = x + y + cin;
            r = sum & mask;
            out = (sum >> bits) != 0; /* carry */
        }
        w->regs[(size_t)dst * PTX_WARP_SIZE + lane] = ptx_value_store((uint64_t)r, t);
        carry_out |= (uint32_t)out << lane;
    }
    if (sets_cc)
        w->carry = (w->carry & ~active) | carry_out;
}
