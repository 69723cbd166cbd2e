/* The warp-wide forms (src/sim/ptx/ptx_alu_warp.c) against one lane's
 * arithmetic (ptx_alu.c), which the edge-case table checks: the same
 * result in every active lane, inactive lanes untouched, for random
 * operands, edge values, constants and partial masks. */
#include <criterion/criterion.h>

#include <string.h>

#include "ptx_alu.h"
#include "ptx_alu_warp.h"

TestSuite(ptx_alu_warp, .timeout = 30);

enum { R_A = 0, R_B, R_C, R_DST, NREGS };

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t interesting(void)
{
    static const uint64_t edges[] = { 0, 1, 31, 32, 33, 63, 64, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
                                      0x100000000ull, 0x8000000000000000ull, ~0ull };
    uint64_t r = next_random();
    return r % 3 == 0 ? edges[(r >> 8) % (sizeof edges / sizeof edges[0])] : next_random();
}

/* The register value an instruction of type t leaves: as the interpreter
 * keeps it (truncated to the width). */
static ptx_type dst_type(const ptx_insn *in)
{
    if (in->op == PTX_OP_SETP)
        return PTX_T_PRED;
    if (in->mods & PTX_MOD_WIDE)
        return in->type == PTX_T_S32 ? PTX_T_S64 : PTX_T_U64;
    return (ptx_type)in->type;
}

static void check(ptx_insn in, bool imm_b)
{
    uint64_t regs[NREGS * PTX_WARP_SIZE];
    for (unsigned i = 0; i < NREGS * PTX_WARP_SIZE; i++)
        regs[i] = interesting();
    ptx_warp w;
    memset(&w, 0, sizeof w);
    w.regs = regs;
    ptx_type t = (ptx_type)in.type;
    in.ops[0] = (ptx_operand){ .kind = PTX_OPND_REG, .reg = R_DST };
    in.ops[1] = (ptx_operand){ .kind = PTX_OPND_REG, .reg = R_A };
    in.ops[2] = imm_b ? (ptx_operand){ .kind = PTX_OPND_IMM, .imm = interesting() }
                      : (ptx_operand){ .kind = PTX_OPND_REG, .reg = R_B };
    bool imm_c = imm_b && next_random() % 2; /* mad r, r, k, k */
    in.ops[3] = imm_c ? (ptx_operand){ .kind = PTX_OPND_IMM, .imm = interesting() }
                      : (ptx_operand){ .kind = PTX_OPND_REG, .reg = R_C };
    uint32_t active = next_random() % 2 ? 0xFFFFFFFFu : (uint32_t)next_random();
    uint64_t before[PTX_WARP_SIZE];
    memcpy(before, regs + R_DST * PTX_WARP_SIZE, sizeof before);
    if (!ptx_alu_warp_b32(&w, &in, active))
        return; /* not a warp-wide form: ptx_alu runs it */
    ptx_type tb = (in.op == PTX_OP_SHL || in.op == PTX_OP_SHR) ? PTX_T_U32 : t;
    ptx_type tc = (in.mods & PTX_MOD_WIDE) ? dst_type(&in) : t;
    for (unsigned lane = 0; lane < PTX_WARP_SIZE; lane++) {
        uint64_t got = regs[R_DST * PTX_WARP_SIZE + lane];
        if (!((active >> lane) & 1)) {
            cr_assert_eq(got, before[lane], "op %d: inactive lane %u written", in.op, lane);
            continue;
        }
        uint64_t a = ptx_value_as(regs[R_A * PTX_WARP_SIZE + lane], t);
        uint64_t b = ptx_value_as(imm_b ? in.ops[2].imm : regs[R_B * PTX_WARP_SIZE + lane], tb);
        uint64_t c = ptx_value_as(imm_c ? in.ops[3].imm : regs[R_C * PTX_WARP_SIZE + lane], tc);
        uint64_t want = ptx_value_store(ptx_alu(&in, a, b, c), dst_type(&in));
        cr_assert_eq(got, want, "op %d type %d mods %u cmp %d lane %u: %#llx, want %#llx (a %#llx b %#llx)",
                     in.op, in.type, in.mods, in.cmp, lane, (unsigned long long)got,
                     (unsigned long long)want, (unsigned long long)a, (unsigned long long)b);
    }
}

Test(ptx_alu_warp, agrees_with_one_lane_arithmetic)
{
    static const ptx_opcode ops[] = { PTX_OP_MOV, PTX_OP_ADD, PTX_OP_SUB, PTX_OP_MUL, PTX_OP_MAD,
                                      PTX_OP_AND, PTX_OP_OR, PTX_OP_XOR, PTX_OP_NOT, PTX_OP_SHL,
                                      PTX_OP_SHR, PTX_OP_SETP };
    static const ptx_type types[] = { PTX_T_B32, PTX_T_U32, PTX_T_S32, PTX_T_B64, PTX_T_U64, PTX_T_S64 };
    static const unsigned nops[] = { [PTX_OP_MOV] = 2, [PTX_OP_NOT] = 2, [PTX_OP_MAD] = 4 };
    for (int round = 0; round < 200; round++)
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
            for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
                for (int imm = 0; imm < 2; imm++) {
                    ptx_insn in;
                    memset(&in, 0, sizeof in);
                    in.op = (uint8_t)ops[o];
                    in.type = (uint8_t)types[t];
                    in.nops = (uint8_t)(ops[o] < sizeof nops / sizeof nops[0] && nops[ops[o]] ? nops[ops[o]] : 3);
                    in.cmp = (uint8_t)(next_random() % (PTX_CMP_HS + 1));
                    check(in, imm && in.nops > 2);
                    if (ops[o] == PTX_OP_MUL && ptx_type_bytes(types[t]) == 4) {
                        in.mods = PTX_MOD_WIDE;
                        check(in, imm != 0);
                    }
                }
}

/* ---- floats, selp, predicates, cvt: bit-identical to ptx_alu ------------ */

/* Edge values of f32 (low 32 bits; some with junk above, which a .f32
 * read ignores) and of f64. */
static const uint64_t f32_edges[] = {
    0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, /* ±0 1 -1 ±inf */
    0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF, 0xFFBFFFFF,             /* quiet, signalling NaNs */
    0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,             /* denormals, smallest normal */
    0x7F7FFFFF, 0xFF7FFFFF, 0x4B000001, 0x4F000000, 0xCF000000, 0x3EAAAAAB, /* large, 2^31, 1/3 */
    0x5F800000, 0x3F000000, 0x4F800000, 0xDEADBEEF3F800000ull,
};
static const uint64_t f64_edges[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x3FF0000000000000ull, 0xBFF0000000000000ull,
    0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FF8000000000000ull, 0xFFF8000000000000ull,
    0x7FF0000000000001ull, 0x7FFFFFFFFFFFFFFFull, 0x0000000000000001ull, 0x8000000000000001ull,
    0x000FFFFFFFFFFFFFull, 0x0010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull,
    0x41E0000000000000ull, 0xC1E0000000000000ull, 0x36A0000000000000ull, 0x47EFFFFFE0000000ull,
    0x3FD5555555555555ull, 0x4330000000000001ull, 0x3810000000000000ull, 0x380FFFFFFFFFFFFFull,
};
#define NEDGES(a) (sizeof a / sizeof a[0])

static uint64_t float_value(ptx_type t)
{
    uint64_t r = next_random();
    if (r % 4 == 0)
        return next_random(); /* any bits */
    if (t == PTX_T_F64)
        return f64_edges[(r >> 8) % NEDGES(f64_edges)];
    if (t == PTX_T_F32)
        return f32_edges[(r >> 8) % NEDGES(f32_edges)];
    return interesting();
}

/* The lane masks every form runs under: all, none, one, alternate,
 * halves, and random. */
static uint32_t lane_pattern(unsigned i)
{
    static const uint32_t fixed[] = { 0xFFFFFFFFu, 0, 1, 0x80000000u, 0x55555555u, 0xAAAAAAAAu,
                                      0x0000FFFFu, 0xFFFF0000u, 0x7FFFFFFFu };
    return i < NEDGES(fixed) ? fixed[i] : (uint32_t)next_random();
}
#define NPATTERNS 12u

/* Runs `in` (operands: R_A, R_B or a constant, R_C) warp-wide and checks
 * every lane against ptx_alu with the operand types do_alu reads at; true
 * if it had a warp-wide form. */
static bool check_exact(ptx_insn in, ptx_type ta, ptx_type tb, ptx_type tc, ptx_type tdst, bool imm_b,
                        uint32_t active)
{
    uint64_t regs[NREGS * PTX_WARP_SIZE];
    for (unsigned lane = 0; lane < PTX_WARP_SIZE; lane++) {
        regs[R_A * PTX_WARP_SIZE + lane] = float_value(ta);
        regs[R_B * PTX_WARP_SIZE + lane] = float_value(tb);
        regs[R_C * PTX_WARP_SIZE + lane] = tc == PTX_T_PRED ? next_random() % 2 : float_value(tc);
        regs[R_DST * PTX_WARP_SIZE + lane] = next_random();
    }
    ptx_warp w;
    memset(&w, 0, sizeof w);
    w.regs = regs;
    in.ops[0] = (ptx_operand){ .kind = PTX_OPND_REG, .reg = R_DST };
    in.ops[1] = (ptx_operand){ .kind = PTX_OPND_REG, .reg = R_A };
    in.ops[2] = imm_b ? (ptx_operand){ .kind = PTX_OPND_IMM, .imm = float_value(tb) }
                      : (ptx_operand){ .kind = PTX_OPND_REG, .reg = R_B };
    in.ops[3] = (ptx_operand){ .kind = PTX_OPND_REG, .reg = R_C };
    uint64_t before[PTX_WARP_SIZE];
    memcpy(before, regs + R_DST * PTX_WARP_SIZE, sizeof before);
    if (!ptx_alu_warp_b32(&w, &in, active) && !ptx_alu_warp_float(&w, &in, active))
        return false;
    for (unsigned lane = 0; lane < PTX_WARP_SIZE; lane++) {
        uint64_t got = regs[R_DST * PTX_WARP_SIZE + lane];
        if (!((active >> lane) & 1)) {
            cr_assert_eq(got, before[lane], "op %d: inactive lane %u written", in.op, lane);
            continue;
        }
        uint64_t a = ptx_value_as(regs[R_A * PTX_WARP_SIZE + lane], ta);
        uint64_t b = ptx_value_as(imm_b ? in.ops[2].imm : regs[R_B * PTX_WARP_SIZE + lane], tb);
        uint64_t c = ptx_value_as(regs[R_C * PTX_WARP_SIZE + lane], tc);
        uint64_t want = ptx_value_store(ptx_alu(&in, a, b, c), tdst);
        cr_assert_eq(got, want,
                     "op %d type %d from %d round %d cmp %d lane %u: %#llx, want %#llx (a %#llx b %#llx c %#llx)",
                     in.op, in.type, in.type2, in.round, in.cmp, lane, (unsigned long long)got,
                     (unsigned long long)want, (unsigned long long)a, (unsigned long long)b,
                     (unsigned long long)c);
    }
    return true;
}

Test(ptx_alu_warp, float_forms_are_bit_identical_to_one_lane_arithmetic)
{
    static const ptx_opcode ops[] = { PTX_OP_MOV, PTX_OP_ADD, PTX_OP_SUB, PTX_OP_MUL, PTX_OP_MAD,
                                      PTX_OP_FMA, PTX_OP_NEG, PTX_OP_ABS, PTX_OP_SETP, PTX_OP_SELP };
    static const unsigned nops[] = { [PTX_OP_MOV] = 2, [PTX_OP_NEG] = 2, [PTX_OP_ABS] = 2,
                                     [PTX_OP_MAD] = 4, [PTX_OP_FMA] = 4, [PTX_OP_SELP] = 4 };
    static const ptx_type types[] = { PTX_T_F32, PTX_T_F64 };
    unsigned warp_wide = 0;
    for (unsigned p = 0; p < NPATTERNS; p++)
        for (int round = 0; round < 40; round++)
            for (size_t o = 0; o < NEDGES(ops); o++)
                for (size_t t = 0; t < NEDGES(types); t++)
                    for (int imm = 0; imm < 2; imm++) {
                        ptx_insn in;
                        memset(&in, 0, sizeof in);
                        in.op = (uint8_t)ops[o];
                        in.type = (uint8_t)types[t];
                        in.nops = (uint8_t)(nops[ops[o]] ? nops[ops[o]] : 3);
                        in.round = (uint8_t)(ops[o] == PTX_OP_FMA || round % 2 ? PTX_RND_RN : PTX_RND_DEFAULT);
                        in.cmp = (uint8_t)(next_random() % (PTX_CMP_NAN + 1));
                        if (ops[o] == PTX_OP_SETP && in.cmp >= PTX_CMP_LO && in.cmp <= PTX_CMP_HS)
                            in.cmp = PTX_CMP_EQ; /* unsigned forms: integers only */
                        ptx_type tc = ops[o] == PTX_OP_SELP ? PTX_T_PRED : types[t];
                        ptx_type tdst = ops[o] == PTX_OP_SETP ? PTX_T_PRED : types[t];
                        warp_wide += check_exact(in, types[t], types[t], tc, tdst, imm && in.nops > 2,
                                                 lane_pattern(p));
                    }
    cr_assert_eq(warp_wide, NPATTERNS * 40 * NEDGES(ops) * NEDGES(types) * 2,
                 "every form above has a warp-wide path");
}

Test(ptx_alu_warp, ftz_sat_and_directed_rounding_are_left_to_ptx_alu)
{
    ptx_insn in;
    memset(&in, 0, sizeof in);
    in.op = PTX_OP_ADD;
    in.type = PTX_T_F32;
    in.nops = 3;
    in.mods = PTX_MOD_FTZ;
    cr_assert_not(check_exact(in, PTX_T_F32, PTX_T_F32, PTX_T_F32, PTX_T_F32, false, ~0u));
    in.mods = PTX_MOD_SAT;
    cr_assert_not(check_exact(in, PTX_T_F32, PTX_T_F32, PTX_T_F32, PTX_T_F32, false, ~0u));
    in.mods = 0;
    in.round = PTX_RND_RZ;
    cr_assert_not(check_exact(in, PTX_T_F32, PTX_T_F32, PTX_T_F32, PTX_T_F32, false, ~0u));
    in.type = PTX_T_F64;
    in.round = PTX_RND_RM;
    cr_assert_not(check_exact(in, PTX_T_F64, PTX_T_F64, PTX_T_F64, PTX_T_F64, false, ~0u));
    in.op = PTX_OP_DIV; /* no warp-wide form */
    in.round = PTX_RND_RN;
    cr_assert_not(check_exact(in, PTX_T_F64, PTX_T_F64, PTX_T_F64, PTX_T_F64, false, ~0u));
}

Test(ptx_alu_warp, selp_and_predicate_logic_of_every_type)
{
    static const ptx_type types[] = { PTX_T_B32, PTX_T_U32, PTX_T_S32, PTX_T_B64, PTX_T_U64, PTX_T_S64 };
    static const ptx_opcode pred_ops[] = { PTX_OP_MOV, PTX_OP_AND, PTX_OP_OR, PTX_OP_XOR, PTX_OP_NOT };
    for (unsigned p = 0; p < NPATTERNS; p++)
        for (int round = 0; round < 40; round++) {
            for (size_t t = 0; t < NEDGES(types); t++) {
                ptx_insn in;
                memset(&in, 0, sizeof in);
                in.op = PTX_OP_SELP;
                in.type = (uint8_t)types[t];
                in.nops = 4;
                cr_assert(check_exact(in, types[t], types[t], PTX_T_PRED, types[t], round % 2, lane_pattern(p)));
                /* neg, abs, not and 64-bit setp of integers */
                in.nops = 2;
                in.op = PTX_OP_NEG;
                cr_assert(check_exact(in, types[t], types[t], types[t], types[t], false, lane_pattern(p)));
                in.op = PTX_OP_ABS;
                cr_assert(check_exact(in, types[t], types[t], types[t], types[t], false, lane_pattern(p)));
                in.op = PTX_OP_NOT;
                cr_assert(check_exact(in, types[t], types[t], types[t], types[t], false, lane_pattern(p)));
                in.op = PTX_OP_SETP;
                in.nops = 3;
                in.cmp = (uint8_t)(next_random() % (PTX_CMP_HS + 1));
                cr_assert(check_exact(in, types[t], types[t], types[t], PTX_T_PRED, round % 2, lane_pattern(p)));
            }
            for (size_t o = 0; o < NEDGES(pred_ops); o++) {
                ptx_insn in;
                memset(&in, 0, sizeof in);
                in.op = (uint8_t)pred_ops[o];
                in.type = PTX_T_PRED;
                in.nops = pred_ops[o] == PTX_OP_MOV || pred_ops[o] == PTX_OP_NOT ? 2 : 3;
                /* registers with any bits: a predicate reads as "non-zero" */
                cr_assert(check_exact(in, PTX_T_PRED, PTX_T_PRED, PTX_T_PRED, PTX_T_PRED, round % 2,
                                      lane_pattern(p)));
            }
        }
}

Test(ptx_alu_warp, cvt_common_forms_are_bit_identical)
{
    static const ptx_type ints[] = { PTX_T_B32, PTX_T_U32, PTX_T_S32, PTX_T_B64, PTX_T_U64, PTX_T_S64 };
    static const struct { ptx_type to, from; ptx_round round; } floats[] = {
        { PTX_T_F32, PTX_T_U32, PTX_RND_RN }, { PTX_T_F32, PTX_T_S32, PTX_RND_RN },
        { PTX_T_F64, PTX_T_U32, PTX_RND_RN }, { PTX_T_F64, PTX_T_S32, PTX_RND_RN },
        { PTX_T_F64, PTX_T_F32, PTX_RND_DEFAULT }, { PTX_T_F32, PTX_T_F64, PTX_RND_RN },
    };
    for (unsigned p = 0; p < NPATTERNS; p++)
        for (int round = 0; round < 40; round++) {
            for (size_t to = 0; to < NEDGES(ints); to++)
                for (size_t from = 0; from < NEDGES(ints); from++) {
                    ptx_insn in;
                    memset(&in, 0, sizeof in);
                    in.op = PTX_OP_CVT;
                    in.type = (uint8_t)ints[to];
                    in.type2 = (uint8_t)ints[from];
                    in.nops = 2;
                    cr_assert(check_exact(in, ints[from], ints[from], ints[from], ints[to], false, lane_pattern(p)));
                }
            for (size_t f = 0; f < NEDGES(floats); f++) {
                ptx_insn in;
                memset(&in, 0, sizeof in);
                in.op = PTX_OP_CVT;
                in.type = (uint8_t)floats[f].to;
                in.type2 = (uint8_t)floats[f].from;
                in.round = (uint8_t)floats[f].round;
                in.nops = 2;
                cr_assert(check_exact(in, floats[f].from, floats[f].from, floats[f].from, floats[f].to, false,
                                      lane_pattern(p)));
            }
        }
    /* Left to ptx_alu: .sat, .ftz, directed rounding, float to integer. */
    ptx_insn in;
    memset(&in, 0, sizeof in);
    in.op = PTX_OP_CVT;
    in.nops = 2;
    in.type = PTX_T_U32;
    in.type2 = PTX_T_S64;
    in.mods = PTX_MOD_SAT;
    cr_assert_not(check_exact(in, PTX_T_S64, PTX_T_S64, PTX_T_S64, PTX_T_U32, false, ~0u));
    in.mods = 0;
    in.type = PTX_T_F32;
    in.type2 = PTX_T_U32;
    in.round = PTX_RND_RZ;
    cr_assert_not(check_exact(in, PTX_T_U32, PTX_T_U32, PTX_T_U32, PTX_T_F32, false, ~0u));
    in.type = PTX_T_S32;
    in.type2 = PTX_T_F32;
    in.round = PTX_RND_RZI;
    cr_assert_not(check_exact(in, PTX_T_F32, PTX_T_F32, PTX_T_F32, PTX_T_S32, false, ~0u));
}
