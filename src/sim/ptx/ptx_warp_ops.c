/*
 * Warp-level instructions: shfl.sync, vote.sync, activemask, match.sync,
 * redux.sync (see ptx_warp_ops.h).
 *
 * Lanes run in lockstep, so every lane's operands are read before any
 * lane's destination is written: a lane may shuffle the very register
 * another lane overwrites. Each lane reads its own b, c and membermask
 * operands, as PTX allows them to differ between lanes.
 */
#include "ptx_alu.h"
#include "ptx_warp_ops.h"

static unsigned lowest_lane(uint32_t m) { return (unsigned)__builtin_ctz(m); }

static uint64_t value_of(const ptx_block *blk, const ptx_warp *w, unsigned lane,
                         const ptx_operand *o, ptx_type t)
{
    return ptx_operand_value(blk, w, lane, o, t);
}

/* The lanes one lane's membermask names among those that execute. */
static uint32_t members(const ptx_block *blk, const ptx_warp *w, unsigned lane,
                        const ptx_operand *mask, uint32_t active)
{
    return (uint32_t)value_of(blk, w, lane, mask, PTX_T_U32) & active;
}

/* shfl.sync.mode.b32 d[|p], a, b, c, membermask (PTX ISA): c holds the
 * clamp value in bits 0-4 and the segment mask in bits 8-12; a source
 * lane outside [minLane, maxLane] or inactive gives the lane its own a
 * and p false. */
static void shuffle(const ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    uint32_t src[PTX_WARP_SIZE], result[PTX_WARP_SIZE];
    bool valid[PTX_WARP_SIZE];
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        src[lane] = (uint32_t)value_of(blk, w, lane, &in->ops[1], PTX_T_B32);
    }
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        int b = (int)(value_of(blk, w, lane, &in->ops[2], PTX_T_B32) & 31u);
        uint32_t c = (uint32_t)value_of(blk, w, lane, &in->ops[3], PTX_T_B32);
        int clamp = (int)(c & 31u), segmask = (int)((c >> 8) & 31u);
        int min_lane = (int)lane & segmask;
        int max_lane = min_lane | (clamp & ~segmask);
        int j;
        bool in_range;
        switch ((ptx_warp_mode)in->subop) {
        case PTX_SHFL_UP: j = (int)lane - b; in_range = j >= max_lane; break;
        case PTX_SHFL_DOWN: j = (int)lane + b; in_range = j <= max_lane; break;
        case PTX_SHFL_BFLY: j = (int)lane ^ b; in_range = j <= max_lane; break;
        default: j = min_lane | (b & ~segmask); in_range = j <= max_lane; break;
        }
        /* A lane in range is 0..31; one that does not execute the shuffle
         * (members() holds executing lanes only) has no value to give. */
        bool ok = in_range && j >= 0 && j < (int)PTX_WARP_SIZE &&
                  ((members(blk, w, lane, &in->ops[4], active) >> j) & 1u);
        result[lane] = ok ? src[j] : src[lane];
        valid[lane] = ok;
    }
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        *ptx_lane_reg(w, in->ops[0].reg, lane) = result[lane];
        if (in->mods & PTX_MOD_PRED_DST)
            *ptx_lane_reg(w, in->pred_dst, lane) = valid[lane];
    }
}

/* vote.sync.{all,any,uni}.pred d, {!}a, membermask and
 * vote.sync.ballot.b32 d, {!}a, membermask: over the executing lanes of
 * each lane's membermask. */
static void vote(const ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    uint32_t yes = 0;
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        if (value_of(blk, w, lane, &in->ops[1], PTX_T_PRED))
            yes |= 1u << lane;
    }
    uint64_t result[PTX_WARP_SIZE];
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        uint32_t group = members(blk, w, lane, &in->ops[2], active);
        switch ((ptx_warp_mode)in->subop) {
        case PTX_VOTE_ALL: result[lane] = (yes & group) == group; break;
        case PTX_VOTE_ANY: result[lane] = (yes & group) != 0; break;
        case PTX_VOTE_UNI: result[lane] = (yes & group) == group || (yes & group) == 0; break;
        default: result[lane] = yes & group; break;
        }
    }
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        *ptx_lane_reg(w, in->ops[0].reg, lane) = result[lane];
    }
}

/* match.any.sync: the lanes whose a equals this lane's; match.all.sync:
 * all the lanes if every a is equal (p true), else 0 (p false). */
static void match(const ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_type t = (ptx_type)in->type;
    uint64_t v[PTX_WARP_SIZE];
    uint32_t result[PTX_WARP_SIZE];
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        v[lane] = value_of(blk, w, lane, &in->ops[1], t);
    }
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        uint32_t group = members(blk, w, lane, &in->ops[2], active), same = 0;
        for (uint32_t g = group; g; g &= g - 1)
            if (v[lowest_lane(g)] == v[lane])
                same |= 1u << lowest_lane(g);
        result[lane] = in->subop == PTX_MATCH_ANY ? same : same == group ? group : 0;
    }
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        *ptx_lane_reg(w, in->ops[0].reg, lane) = result[lane];
        if (in->mods & PTX_MOD_PRED_DST)
            *ptx_lane_reg(w, in->pred_dst, lane) = result[lane] != 0;
    }
}

/* redux.sync.op.type d, a, membermask: the operation over the executing
 * lanes of each lane's membermask (add wraps at 32 bits). */
static void reduce(const ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    ptx_type t = (ptx_type)in->type;
    bool is_signed = ptx_type_is_signed(t);
    uint32_t v[PTX_WARP_SIZE], result[PTX_WARP_SIZE];
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        v[lane] = (uint32_t)value_of(blk, w, lane, &in->ops[1], t);
    }
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        uint32_t group = members(blk, w, lane, &in->ops[2], active);
        uint32_t acc = 0;
        bool first = true;
        for (uint32_t g = group; g; g &= g - 1) {
            uint32_t x = v[lowest_lane(g)];
            bool less = is_signed ? (int32_t)x < (int32_t)acc : x < acc;
            switch ((ptx_atomop)in->subop) {
            case PTX_ATOM_ADD: acc += x; break;
            case PTX_ATOM_MIN: acc = first || less ? x : acc; break;
            case PTX_ATOM_MAX: acc = first || (!less && x != acc) ? x : acc; break;
            case PTX_ATOM_AND: acc = first ? x : acc & x; break;
            case PTX_ATOM_OR: acc |= x; break;
            default: acc ^= x; break;
            }
            first = false;
        }
        result[lane] = acc;
    }
    for (uint32_t m = active; m; m &= m - 1) {
        unsigned lane = lowest_lane(m);
        *ptx_lane_reg(w, in->ops[0].reg, lane) = ptx_value_store(result[lane], t);
    }
}

void ptx_exec_warp_op(ptx_block *blk, ptx_warp *w, const ptx_insn *in, uint32_t active)
{
    switch ((ptx_opcode)in->op) {
    case PTX_OP_SHFL: shuffle(blk, w, in, active); break;
    case PTX_OP_VOTE: vote(blk, w, in, active); break;
    case PTX_OP_MATCH: match(blk, w, in, active); break;
    case PTX_OP_REDUX: reduce(blk, w, in, active); break;
    case PTX_OP_ACTIVEMASK:
        for (uint32_t m = active; m; m &= m - 1)
            *ptx_lane_reg(w, in->ops[0].reg, lowest_lane(m)) = active;
        break;
    default: /* bar.warp.sync: lanes of a warp run in lockstep here */
        break;
    }
}
