/* Bit manipulation of one lane with PTX semantics: see ptx_alu_parts.h. */
#include "ptx_alu_parts.h"

static uint64_t mask_of(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

/* shf.{l,r}.{wrap,clamp}.b32: the 64-bit pair b:a shifted by n, the high
 * (l) or low (r) word kept. wrap: n mod 32; clamp: min(n, 32). */
static uint64_t funnel_shift(const ptx_insn *in, uint32_t a, uint32_t b, uint32_t n)
{
    n = (in->mods & PTX_MOD_CLAMP) ? (n > 32 ? 32 : n) : (n & 31);
    uint64_t pair = ((uint64_t)b << 32) | a;
    if (in->mods & PTX_MOD_LEFT)
        return (uint32_t)((pair << n) >> 32);
    return (uint32_t)(pair >> n);
}

/* bfe: len bits of a from pos (both 0..255), zero- or sign-extended; the
 * field stops at the type's top bit, bits past it read as the sign bit
 * (signed: a's bit at min(pos + len - 1, top); len 0: 0). */
static uint64_t bit_field_extract(uint64_t a, uint64_t b, uint64_t c, unsigned bits, bool sgn)
{
    unsigned pos = (unsigned)(b & 0xFF), len = (unsigned)(c & 0xFF);
    a &= mask_of(bits);
    uint64_t sign = 0;
    if (sgn && len > 0) {
        unsigned top = pos + len - 1 < bits - 1 ? pos + len - 1 : bits - 1;
        sign = (a >> top) & 1;
    }
    uint64_t field = pos >= bits ? 0 : a >> pos; /* bits of a from pos up */
    unsigned avail = pos >= bits ? 0 : bits - pos; /* how many of them exist */
    unsigned take = len < avail ? len : avail;
    uint64_t r = field & mask_of(take);
    if (sign)
        r |= ~mask_of(take);
    return r & mask_of(bits);
}

/* bfi: b with len bits (0..255) of f inserted from pos (0..255); the
 * field is cut at the type's top bit, nothing is inserted from pos >= width. */
static uint64_t bit_field_insert(uint64_t f, uint64_t b, uint64_t c, uint64_t d, unsigned bits)
{
    unsigned pos = (unsigned)(c & 0xFF), len = (unsigned)(d & 0xFF);
    if (pos >= bits || len == 0)
        return b & mask_of(bits);
    unsigned take = len < bits - pos ? len : bits - pos;
    uint64_t field = mask_of(take) << pos;
    return ((b & ~field) | ((f << pos) & field)) & mask_of(bits);
}

/* bfind: the position of the most significant bit that differs from the
 * sign (unsigned: the most significant 1), or 0xFFFFFFFF when none;
 * .shiftamt: the left shift that brings it to the top instead. */
static uint64_t find_top_bit(uint64_t a, unsigned bits, bool sgn, bool shiftamt)
{
    a &= mask_of(bits);
    if (sgn && (a >> (bits - 1)) & 1)
        a = ~a & mask_of(bits);
    if (a == 0)
        return 0xFFFFFFFFu;
    unsigned top = 63u - (unsigned)__builtin_clzll(a);
    return shiftamt ? bits - 1 - top : top;
}

static uint64_t reverse_bits(uint64_t a, unsigned bits)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < bits; i++)
        r |= ((a >> i) & 1) << (bits - 1 - i);
    return r;
}

/* prmt.b32: four bytes picked from the eight of b:a (a is bytes 0-3). */
static uint64_t permute_bytes(ptx_prmt_mode mode, uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t src = ((uint64_t)b << 32) | a;
    unsigned s = c & 3; /* the fixed modes' selector */
    uint32_t r = 0;
    for (unsigned i = 0; i < 4; i++) {
        unsigned pick;
        bool replicate_sign = false;
        switch (mode) {
        case PTX_PRMT_F4E: pick = (s + i) & 7; break;
        case PTX_PRMT_B4E: pick = (s - i) & 7; break;
        case PTX_PRMT_RC8: pick = s; break;
        case PTX_PRMT_ECL: pick = i > s ? i : s; break;
        case PTX_PRMT_ECR: pick = i < s ? i : s; break;
        case PTX_PRMT_RC16: pick = (s & 1) * 2 + (i & 1); break;
        default: { /* a nibble per byte: 3 bits pick, the 4th replicates the sign */
            unsigned sel = (c >> (4 * i)) & 0xF;
            pick = sel & 7;
            replicate_sign = (sel & 8) != 0;
            break;
        }
        }
        uint32_t byte = (uint32_t)(src >> (8 * pick)) & 0xFF;
        if (replicate_sign)
            byte = (byte & 0x80) ? 0xFF : 0;
        r |= byte << (8 * i);
    }
    return r;
}

/* mul24 / mad24: the 48-bit product of a's and b's low 24 bits (sign-
 * extended for .s32); .lo keeps its bits 0-31, .hi its bits 16-47. */
static uint64_t multiply_24(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c, bool sgn)
{
    int64_t x = (int64_t)(a & 0xFFFFFF), y = (int64_t)(b & 0xFFFFFF);
    if (sgn) {
        x = (x ^ 0x800000) - 0x800000;
        y = (y ^ 0x800000) - 0x800000;
    }
    uint64_t p = (uint64_t)(x * y); /* |x * y| <= 2^46: no overflow */
    uint64_t r = (in->mods & PTX_MOD_HI) ? p >> 16 : p;
    return (uint32_t)(in->op == PTX_OP_MAD24 ? r + c : r);
}

uint64_t ptx_alu_bits(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    ptx_type t = (ptx_type)in->type;
    unsigned bits = ptx_type_bytes(t) * 8u;
    bool sgn = ptx_type_is_signed(t);
    switch ((ptx_opcode)in->op) {
    case PTX_OP_SHF: return funnel_shift(in, (uint32_t)a, (uint32_t)b, (uint32_t)c);
    case PTX_OP_BFE: return bit_field_extract(a, b, c, bits, sgn);
    case PTX_OP_BFI: return bit_field_insert(a, b, c, d, bits);
    case PTX_OP_BFIND: return find_top_bit(a, bits, sgn, (in->mods & PTX_MOD_SHIFTAMT) != 0);
    case PTX_OP_POPC: return (uint64_t)__builtin_popcountll(a & mask_of(bits));
    case PTX_OP_CLZ: {
        uint64_t v = a & mask_of(bits);
        return v == 0 ? bits : (uint64_t)__builtin_clzll(v) - (64 - bits);
    }
    case PTX_OP_BREV: return reverse_bits(a, bits);
    case PTX_OP_PRMT: return permute_bytes((ptx_prmt_mode)in->cmp, (uint32_t)a, (uint32_t)b, (uint32_t)c);
    case PTX_OP_MUL24: case PTX_OP_MAD24: return multiply_24(in, a, b, c, sgn);
    case PTX_OP_SAD: { /* c + |a - b|, a and b compared at their signedness */
        bool a_below = sgn ? (int64_t)a < (int64_t)b : (a & mask_of(bits)) < (b & mask_of(bits));
        return c + (a_below ? b - a : a - b);
    }
    default: return 0;
    }
}
