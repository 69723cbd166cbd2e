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
    in.ops[3] = (ptx_operand){ .kind = PTX_OPND_REG, .reg = R_C };
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
        uint64_t c = ptx_value_as(regs[R_C * PTX_WARP_SIZE + lane], tc);
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
