/* Mnemonic and modifier decoding: see ptx_opcode.h. */
#include "ptx_opcode.h"

#include <stdio.h>
#include <string.h>

/* Modifier categories, and the ones each opcode takes. */
enum {
    C_TYPE = 1u << 0, C_SPACE = 1u << 1, C_RND = 1u << 2, C_CMP = 1u << 3, C_BOOL = 1u << 4,
    C_HILO = 1u << 5, C_FTZ = 1u << 6, C_SAT = 1u << 7, C_APPROX = 1u << 8, C_UNI = 1u << 9,
    C_TO = 1u << 10, C_CACHE = 1u << 11, C_VEC = 1u << 12, C_ATOMOP = 1u << 13,
    C_SYNC = 1u << 14, C_LEVEL = 1u << 15, C_VOLATILE = 1u << 16, C_SHF = 1u << 17,
    C_TESTP = 1u << 18, C_PRMT = 1u << 19, C_SHIFTAMT = 1u << 20, C_MODE = 1u << 21,
    C_ORDER = 1u << 22, C_CC = 1u << 23, C_NAN = 1u << 24
};

typedef struct opcode_info {
    const char *name;
    ptx_opcode op;
    unsigned allowed;
} opcode_info;

#define ARITH_FLOAT (C_TYPE | C_RND | C_FTZ | C_SAT)
static const opcode_info k_opcodes[] = {
    { "mov", PTX_OP_MOV, C_TYPE },
    { "ld", PTX_OP_LD, C_SPACE | C_CACHE | C_VEC | C_TYPE | C_VOLATILE },
    { "st", PTX_OP_ST, C_SPACE | C_CACHE | C_VEC | C_TYPE | C_VOLATILE },
    { "add", PTX_OP_ADD, ARITH_FLOAT | C_CC },
    { "sub", PTX_OP_SUB, ARITH_FLOAT | C_CC },
    { "mul", PTX_OP_MUL, ARITH_FLOAT | C_HILO },
    { "mad", PTX_OP_MAD, ARITH_FLOAT | C_HILO | C_CC },
    { "addc", PTX_OP_ADDC, C_TYPE | C_CC },
    { "subc", PTX_OP_SUBC, C_TYPE | C_CC },
    { "madc", PTX_OP_MADC, C_TYPE | C_HILO | C_CC },
    { "fma", PTX_OP_FMA, ARITH_FLOAT },
    { "div", PTX_OP_DIV, C_TYPE | C_RND | C_FTZ | C_APPROX },
    { "rem", PTX_OP_REM, C_TYPE },
    { "min", PTX_OP_MIN, C_TYPE | C_FTZ | C_NAN },
    { "max", PTX_OP_MAX, C_TYPE | C_FTZ | C_NAN },
    { "abs", PTX_OP_ABS, C_TYPE | C_FTZ },
    { "neg", PTX_OP_NEG, C_TYPE | C_FTZ },
    { "and", PTX_OP_AND, C_TYPE },
    { "or", PTX_OP_OR, C_TYPE },
    { "xor", PTX_OP_XOR, C_TYPE },
    { "not", PTX_OP_NOT, C_TYPE },
    { "shl", PTX_OP_SHL, C_TYPE },
    { "shr", PTX_OP_SHR, C_TYPE },
    { "setp", PTX_OP_SETP, C_CMP | C_BOOL | C_FTZ | C_TYPE },
    { "set", PTX_OP_SET, C_CMP | C_BOOL | C_FTZ | C_TYPE },
    { "selp", PTX_OP_SELP, C_TYPE },
    { "cvt", PTX_OP_CVT, C_RND | C_FTZ | C_SAT | C_TYPE },
    { "cvta", PTX_OP_CVTA, C_TO | C_SPACE | C_TYPE },
    { "bra", PTX_OP_BRA, C_UNI },
    { "ret", PTX_OP_RET, C_UNI },
    { "exit", PTX_OP_EXIT, 0 },
    { "bar", PTX_OP_BAR, C_SYNC },
    { "barrier", PTX_OP_BAR, C_SYNC },
    { "membar", PTX_OP_MEMBAR, C_LEVEL },
    { "atom", PTX_OP_ATOM, C_SPACE | C_ATOMOP | C_TYPE | C_ORDER },
    { "trap", PTX_OP_TRAP, 0 },
    { "rcp", PTX_OP_RCP, C_TYPE | C_RND | C_FTZ | C_APPROX },
    { "shf", PTX_OP_SHF, C_TYPE | C_SHF },
    { "bfi", PTX_OP_BFI, C_TYPE },
    { "bfe", PTX_OP_BFE, C_TYPE },
    { "bfind", PTX_OP_BFIND, C_TYPE | C_SHIFTAMT },
    { "popc", PTX_OP_POPC, C_TYPE },
    { "clz", PTX_OP_CLZ, C_TYPE },
    { "brev", PTX_OP_BREV, C_TYPE },
    { "prmt", PTX_OP_PRMT, C_TYPE | C_PRMT },
    { "sad", PTX_OP_SAD, C_TYPE },
    { "copysign", PTX_OP_COPYSIGN, C_TYPE },
    { "testp", PTX_OP_TESTP, C_TYPE | C_TESTP },
    { "sqrt", PTX_OP_SQRT, C_TYPE | C_RND | C_FTZ | C_APPROX },
    { "rsqrt", PTX_OP_RSQRT, C_TYPE | C_FTZ | C_APPROX },
    { "ex2", PTX_OP_EX2, C_TYPE | C_FTZ | C_APPROX },
    { "lg2", PTX_OP_LG2, C_TYPE | C_FTZ | C_APPROX },
    { "sin", PTX_OP_SIN, C_TYPE | C_FTZ | C_APPROX },
    { "cos", PTX_OP_COS, C_TYPE | C_FTZ | C_APPROX },
    { "tanh", PTX_OP_TANH, C_TYPE | C_APPROX },
    { "mul24", PTX_OP_MUL24, C_TYPE | C_HILO },
    { "mad24", PTX_OP_MAD24, C_TYPE | C_HILO },
    /* Warp-level instructions and reductions to memory. */
    { "red", PTX_OP_RED, C_SPACE | C_ATOMOP | C_TYPE | C_ORDER },
    { "shfl", PTX_OP_SHFL, C_SYNC | C_MODE | C_TYPE },
    { "vote", PTX_OP_VOTE, C_SYNC | C_MODE | C_TYPE },
    { "activemask", PTX_OP_ACTIVEMASK, C_TYPE },
    { "match", PTX_OP_MATCH, C_SYNC | C_MODE | C_TYPE },
    { "redux", PTX_OP_REDUX, C_SYNC | C_ATOMOP | C_TYPE },
};

/* Operations of atom, red and redux.sync (atomop_takes says which types
 * each takes), and the modes of shfl.sync, vote.sync and match.sync. */
static const struct word_value_op { const char *name; int value; ptx_opcode op; } k_subops[] = {
    { "add", PTX_ATOM_ADD, PTX_OP_ATOM }, { "exch", PTX_ATOM_EXCH, PTX_OP_ATOM },
    { "cas", PTX_ATOM_CAS, PTX_OP_ATOM }, { "min", PTX_ATOM_MIN, PTX_OP_ATOM },
    { "max", PTX_ATOM_MAX, PTX_OP_ATOM }, { "and", PTX_ATOM_AND, PTX_OP_ATOM },
    { "or", PTX_ATOM_OR, PTX_OP_ATOM }, { "xor", PTX_ATOM_XOR, PTX_OP_ATOM },
    { "inc", PTX_ATOM_INC, PTX_OP_ATOM }, { "dec", PTX_ATOM_DEC, PTX_OP_ATOM },
    { "up", PTX_SHFL_UP, PTX_OP_SHFL }, { "down", PTX_SHFL_DOWN, PTX_OP_SHFL },
    { "bfly", PTX_SHFL_BFLY, PTX_OP_SHFL }, { "idx", PTX_SHFL_IDX, PTX_OP_SHFL },
    { "all", PTX_VOTE_ALL, PTX_OP_VOTE }, { "any", PTX_VOTE_ANY, PTX_OP_VOTE },
    { "uni", PTX_VOTE_UNI, PTX_OP_VOTE }, { "ballot", PTX_VOTE_BALLOT, PTX_OP_VOTE },
    { "any", PTX_MATCH_ANY, PTX_OP_MATCH }, { "all", PTX_MATCH_ALL, PTX_OP_MATCH },
};

/* The operation or mode word w of opcode op (red and redux take atom's
 * words), or -1. */
static int lookup_subop(ptx_opcode op, const char *w, size_t n)
{
    ptx_opcode table_op = op == PTX_OP_RED || op == PTX_OP_REDUX ? PTX_OP_ATOM : op;
    for (size_t i = 0; i < sizeof k_subops / sizeof k_subops[0]; i++)
        if (k_subops[i].op == table_op && strlen(k_subops[i].name) == n &&
            !memcmp(k_subops[i].name, w, n))
            return k_subops[i].value;
    return -1;
}

/* Memory orders and scopes of atom and red: one block runs at a time and
 * every global atomic is a sequentially consistent host atomic, which is
 * at least as strong as any of them. */
static const char *const k_order_words[] = { "relaxed", "acquire", "release", "acq_rel",
                                             "cta", "gpu", "sys", NULL };

typedef struct word_value { const char *name; int value; } word_value;

static const word_value k_types[] = {
    { "b8", PTX_T_B8 }, { "b16", PTX_T_B16 }, { "b32", PTX_T_B32 }, { "b64", PTX_T_B64 },
    { "u8", PTX_T_U8 }, { "u16", PTX_T_U16 }, { "u32", PTX_T_U32 }, { "u64", PTX_T_U64 },
    { "s8", PTX_T_S8 }, { "s16", PTX_T_S16 }, { "s32", PTX_T_S32 }, { "s64", PTX_T_S64 },
    { "f32", PTX_T_F32 }, { "f64", PTX_T_F64 }, { "pred", PTX_T_PRED }, { "f16", PTX_T_F16 },
    { NULL, 0 }
};
static const word_value k_spaces[] = {
    { "global", PTX_SPACE_GLOBAL }, { "shared", PTX_SPACE_SHARED }, { "local", PTX_SPACE_LOCAL },
    { "param", PTX_SPACE_PARAM }, { "const", PTX_SPACE_CONST }, { NULL, 0 }
};
static const word_value k_rounds[] = {
    { "rn", PTX_RND_RN }, { "rz", PTX_RND_RZ }, { "rm", PTX_RND_RM }, { "rp", PTX_RND_RP },
    { "rni", PTX_RND_RNI }, { "rzi", PTX_RND_RZI }, { "rmi", PTX_RND_RMI }, { "rpi", PTX_RND_RPI },
    { NULL, 0 }
};
static const word_value k_cmps[] = {
    { "eq", PTX_CMP_EQ }, { "ne", PTX_CMP_NE }, { "lt", PTX_CMP_LT }, { "le", PTX_CMP_LE },
    { "gt", PTX_CMP_GT }, { "ge", PTX_CMP_GE }, { "lo", PTX_CMP_LO }, { "ls", PTX_CMP_LS },
    { "hi", PTX_CMP_HI }, { "hs", PTX_CMP_HS }, { "equ", PTX_CMP_EQU }, { "neu", PTX_CMP_NEU },
    { "ltu", PTX_CMP_LTU }, { "leu", PTX_CMP_LEU }, { "gtu", PTX_CMP_GTU }, { "geu", PTX_CMP_GEU },
    { "num", PTX_CMP_NUM }, { "nan", PTX_CMP_NAN }, { NULL, 0 }
};
static const word_value k_bools[] = {
    { "and", PTX_BOOL_AND }, { "or", PTX_BOOL_OR }, { "xor", PTX_BOOL_XOR }, { NULL, 0 }
};
static const word_value k_testps[] = {
    { "finite", PTX_TESTP_FINITE }, { "infinite", PTX_TESTP_INFINITE },
    { "number", PTX_TESTP_NUMBER }, { "notanumber", PTX_TESTP_NOTANUMBER },
    { "normal", PTX_TESTP_NORMAL }, { "subnormal", PTX_TESTP_SUBNORMAL }, { NULL, 0 }
};
static const word_value k_prmt_modes[] = {
    { "f4e", PTX_PRMT_F4E }, { "b4e", PTX_PRMT_B4E }, { "rc8", PTX_PRMT_RC8 },
    { "ecl", PTX_PRMT_ECL }, { "ecr", PTX_PRMT_ECR }, { "rc16", PTX_PRMT_RC16 }, { NULL, 0 }
};
/* Accepted and without effect here: cache hints, memory-order words the
 * interpreter already honours by running one block at a time. */
static const char *const k_cache_words[] = { "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc",
                                             "weak", "relaxed", NULL };

static int lookup(const word_value *table, const char *w, size_t n)
{
    for (int i = 0; table[i].name; i++)
        if (strlen(table[i].name) == n && !memcmp(table[i].name, w, n))
            return table[i].value;
    return -1;
}

static bool word_in(const char *const *list, const char *w, size_t n)
{
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == n && !memcmp(list[i], w, n))
            return true;
    return false;
}

static bool word_is(const char *w, size_t n, const char *s)
{
    return strlen(s) == n && !memcmp(w, s, n);
}

ptx_type ptx_type_from_name(const char *name, size_t len)
{
    int t = lookup(k_types, name, len);
    return t < 0 ? PTX_T_NONE : (ptx_type)t;
}

static bool fail(char *why, size_t whylen, const char *fmt, const char *w, size_t n)
{
    snprintf(why, whylen, fmt, (int)n, w);
    return false;
}

/* One modifier word; false if the opcode does not take it. */
static bool apply_modifier(const opcode_info *oi, const char *w, size_t n, ptx_insn *in,
                           int *ntypes, char *why, size_t whylen)
{
    unsigned ok = oi->allowed;
    int v;
    if ((ok & C_TYPE) && (v = lookup(k_types, w, n)) >= 0) {
        if (*ntypes == 0)
            in->type = (uint8_t)v;
        else if (*ntypes == 1 && (in->op == PTX_OP_CVT || in->op == PTX_OP_SET))
            in->type2 = (uint8_t)v;
        else
            return fail(why, whylen, "one type too many: .%.*s", w, n);
        ++*ntypes;
        return true;
    }
    if ((ok & C_SPACE) && (v = lookup(k_spaces, w, n)) >= 0) {
        in->space = (uint8_t)v;
        return true;
    }
    if ((ok & C_RND) && (v = lookup(k_rounds, w, n)) >= 0) {
        in->round = (uint8_t)v;
        return true;
    }
    if ((ok & C_CMP) && in->cmp == 0xff && (v = lookup(k_cmps, w, n)) >= 0) {
        in->cmp = (uint8_t)v;
        return true;
    }
    if ((ok & C_BOOL) && (v = lookup(k_bools, w, n)) >= 0) {
        in->boolop = (uint8_t)v;
        return true;
    }
    if ((ok & C_HILO) && word_is(w, n, "hi")) {
        in->mods |= PTX_MOD_HI;
        return true;
    }
    if ((ok & C_HILO) && word_is(w, n, "lo"))
        return true;
    if ((ok & C_CC) && word_is(w, n, "cc")) {
        in->mods |= PTX_MOD_CC;
        return true;
    }
    if ((ok & C_HILO) && word_is(w, n, "wide")) {
        in->mods |= PTX_MOD_WIDE;
        return true;
    }
    if ((ok & C_FTZ) && word_is(w, n, "ftz")) {
        in->mods |= PTX_MOD_FTZ;
        return true;
    }
    if ((ok & C_NAN) && word_is(w, n, "NaN")) {
        in->mods |= PTX_MOD_NAN;
        return true;
    }
    if ((ok & C_SAT) && word_is(w, n, "sat")) {
        in->mods |= PTX_MOD_SAT;
        return true;
    }
    if ((ok & C_SHF) && (word_is(w, n, "l") || word_is(w, n, "r"))) {
        in->mods |= w[0] == 'l' ? PTX_MOD_LEFT : 0;
        return true;
    }
    if ((ok & C_SHF) && (word_is(w, n, "wrap") || word_is(w, n, "clamp"))) {
        in->mods |= w[0] == 'c' ? PTX_MOD_CLAMP : 0;
        return true;
    }
    if ((ok & C_TESTP) && in->cmp == 0xff && (v = lookup(k_testps, w, n)) >= 0) {
        in->cmp = (uint8_t)v;
        return true;
    }
    if ((ok & C_PRMT) && in->cmp == 0xff && (v = lookup(k_prmt_modes, w, n)) >= 0) {
        in->cmp = (uint8_t)v;
        return true;
    }
    if ((ok & C_SHIFTAMT) && word_is(w, n, "shiftamt")) {
        in->mods |= PTX_MOD_SHIFTAMT;
        return true;
    }
    /* div.approx / div.full / rcp.approx / sqrt.approx and the .approx
     * functions: computed correctly rounded (or from a correctly rounded
     * double), within every form's documented bound (see ptx_alu_math.c). */
    if ((ok & C_APPROX) && word_is(w, n, "approx")) {
        in->mods |= PTX_MOD_APPROX;
        return true;
    }
    if ((ok & C_APPROX) && word_is(w, n, "full"))
        return true;
    if ((ok & C_UNI) && word_is(w, n, "uni")) {
        in->mods |= PTX_MOD_UNI;
        return true;
    }
    if ((ok & C_TO) && word_is(w, n, "to")) {
        in->mods |= PTX_MOD_TO;
        return true;
    }
    if ((ok & C_CACHE) && word_in(k_cache_words, w, n))
        return true;
    if ((ok & C_VOLATILE) && word_is(w, n, "volatile"))
        return true;
    if ((ok & C_VEC) && (word_is(w, n, "v2") || word_is(w, n, "v4"))) {
        in->vec = (uint8_t)(w[1] - '0');
        return true;
    }
    if ((ok & (C_ATOMOP | C_MODE)) && in->subop == PTX_ATOM_NONE &&
        (v = lookup_subop(oi->op, w, n)) >= 0) {
        in->subop = (uint8_t)v;
        return true;
    }
    if ((ok & C_ORDER) && word_in(k_order_words, w, n))
        return true;
    if ((ok & C_SYNC) && (word_is(w, n, "sync") || word_is(w, n, "aligned")))
        return true;
    if ((ok & C_LEVEL) && (word_is(w, n, "gl") || word_is(w, n, "cta") || word_is(w, n, "sys")))
        return true;
    return fail(why, whylen, "modifier .%.*s not supported", w, n);
}

/* Float arithmetic takes the four IEEE roundings; the integral ones
 * (.rni ...) are cvt's alone. */
static bool is_float_arith_rounding_ok(const ptx_insn *in)
{
    return in->round <= PTX_RND_RP;
}

static bool is_b32_or_b64(ptx_type t)
{
    return t == PTX_T_B32 || t == PTX_T_B64;
}

static bool is_int32_or_64(ptx_type t)
{
    return t == PTX_T_U32 || t == PTX_T_S32 || t == PTX_T_U64 || t == PTX_T_S64;
}

/* The forms of the bit-manipulation and float-function opcodes. */
static bool check_bits_and_functions(const char *text, size_t len, const ptx_insn *in, char *why,
                                     size_t whylen)
{
    ptx_type t = (ptx_type)in->type;
    bool ok;
    switch (in->op) {
    case PTX_OP_SHF: case PTX_OP_PRMT: ok = t == PTX_T_B32; break;
    case PTX_OP_MUL24: case PTX_OP_MAD24:
        ok = (t == PTX_T_U32 || t == PTX_T_S32) && !(in->mods & PTX_MOD_WIDE);
        break;
    case PTX_OP_BFI: case PTX_OP_POPC: case PTX_OP_CLZ: case PTX_OP_BREV: ok = is_b32_or_b64(t); break;
    case PTX_OP_BFE: case PTX_OP_BFIND: ok = is_int32_or_64(t); break;
    case PTX_OP_SAD:
        ok = is_int32_or_64(t) || t == PTX_T_U16 || t == PTX_T_S16;
        break;
    case PTX_OP_COPYSIGN: case PTX_OP_TESTP: case PTX_OP_SQRT: case PTX_OP_RSQRT:
        ok = ptx_type_is_float(t);
        break;
    default: /* ex2 lg2 sin cos tanh: .f32 only here */
        ok = t == PTX_T_F32;
        break;
    }
    if (!ok)
        return fail(why, whylen, "%.*s: type not supported", text, len);
    if (in->op == PTX_OP_SQRT && t == PTX_T_F64 && (in->mods & PTX_MOD_FTZ))
        return fail(why, whylen, "%.*s: .ftz on an f64 square root", text, len);
    if (in->op == PTX_OP_SQRT && !is_float_arith_rounding_ok(in))
        return fail(why, whylen, "%.*s: rounding not supported", text, len);
    return true;
}

/* The types each operation of atom/red and redux.sync takes (PTX ISA;
 * f16 and b16 forms are not implemented). */
static bool atomop_takes(ptx_atomop op, ptx_type t, bool redux)
{
    bool b32_64 = t == PTX_T_B32 || t == PTX_T_B64;
    switch (op) {
    case PTX_ATOM_ADD:
        return t == PTX_T_U32 || t == PTX_T_S32 ||
               (!redux && (t == PTX_T_U64 || t == PTX_T_F32 || t == PTX_T_F64));
    case PTX_ATOM_MIN: case PTX_ATOM_MAX:
        return t == PTX_T_U32 || t == PTX_T_S32 || (!redux && (t == PTX_T_U64 || t == PTX_T_S64));
    case PTX_ATOM_AND: case PTX_ATOM_OR: case PTX_ATOM_XOR:
        return redux ? t == PTX_T_B32 : b32_64;
    case PTX_ATOM_EXCH: case PTX_ATOM_CAS:
        return !redux && b32_64;
    case PTX_ATOM_INC: case PTX_ATOM_DEC:
        return !redux && t == PTX_T_U32;
    default:
        return false;
    }
}

/* atom, red and the warp-level instructions: their operation or mode,
 * their type and their space. */
static bool check_warp_form(const char *text, size_t len, const ptx_insn *in, char *why, size_t whylen)
{
    ptx_type t = (ptx_type)in->type;
    switch (in->op) {
    case PTX_OP_ATOM: case PTX_OP_RED: case PTX_OP_REDUX:
        if (in->subop == PTX_ATOM_NONE)
            return fail(why, whylen, "%.*s: no operation", text, len);
        if (!atomop_takes((ptx_atomop)in->subop, t, in->op == PTX_OP_REDUX))
            return fail(why, whylen, "%.*s: this operation does not take this type", text, len);
        if (in->op != PTX_OP_REDUX && in->space != PTX_SPACE_GLOBAL &&
            in->space != PTX_SPACE_SHARED && in->space != PTX_SPACE_GENERIC)
            return fail(why, whylen, "%.*s: atom or red in this space", text, len);
        if (in->op == PTX_OP_RED && in->subop == PTX_ATOM_CAS)
            return fail(why, whylen, "%.*s: red has no .cas", text, len);
        return true;
    case PTX_OP_SHFL:
        if (in->subop == PTX_ATOM_NONE)
            return fail(why, whylen, "%.*s: no mode (.up .down .bfly .idx)", text, len);
        if (t != PTX_T_B32)
            return fail(why, whylen, "%.*s: shfl takes .b32", text, len);
        return true;
    case PTX_OP_VOTE:
        if (in->subop == PTX_ATOM_NONE)
            return fail(why, whylen, "%.*s: no mode (.all .any .uni .ballot)", text, len);
        if (in->subop == PTX_VOTE_BALLOT ? t != PTX_T_B32 : t != PTX_T_PRED)
            return fail(why, whylen, "%.*s: vote.ballot takes .b32, the others .pred", text, len);
        return true;
    case PTX_OP_MATCH:
        if (in->subop == PTX_ATOM_NONE)
            return fail(why, whylen, "%.*s: no mode (.any .all)", text, len);
        if (t != PTX_T_B32 && t != PTX_T_B64)
            return fail(why, whylen, "%.*s: match takes .b32 or .b64", text, len);
        return true;
    default: /* activemask */
        if (t != PTX_T_B32)
            return fail(why, whylen, "%.*s: activemask takes .b32", text, len);
        return true;
    }
}

/* The .f16 forms implemented (ptx_f16.h): moves, loads and stores of its
 * bits, cvt to and from it, setp, add sub mul fma min max abs neg. mad has
 * no .f16 form in PTX; the rest (div, rcp, sqrt, ex2, testp ...) and the
 * packed .f16x2 are not implemented. */
static bool check_f16_form(const char *text, size_t len, const ptx_insn *in, char *why,
                           size_t whylen)
{
    switch (in->op) {
    case PTX_OP_MOV: case PTX_OP_LD: case PTX_OP_ST: case PTX_OP_SELP: case PTX_OP_CVT:
    case PTX_OP_SETP: case PTX_OP_SET: case PTX_OP_MIN: case PTX_OP_MAX: case PTX_OP_ABS: case PTX_OP_NEG:
        return true;
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_FMA:
        if (in->mods & (PTX_MOD_HI | PTX_MOD_WIDE | PTX_MOD_CC))
            return fail(why, whylen, "%.*s: .hi/.wide/.cc on .f16", text, len);
        return true;
    default:
        return fail(why, whylen, "%.*s: this .f16 form is not supported", text, len);
    }
}

/* What the modifiers together must satisfy for the interpreter to run it. */
static bool check_form(const char *text, size_t len, ptx_insn *in, char *why, size_t whylen)
{
    ptx_type t = (ptx_type)in->type;
    bool needs_type = in->op != PTX_OP_BRA && in->op != PTX_OP_RET && in->op != PTX_OP_EXIT &&
                      in->op != PTX_OP_BAR && in->op != PTX_OP_MEMBAR && in->op != PTX_OP_TRAP &&
                      in->op != PTX_OP_WARPSYNC;
    if (needs_type && t == PTX_T_NONE)
        return fail(why, whylen, "%.*s: no operand type", text, len);
    bool two_types = in->op == PTX_OP_CVT || in->op == PTX_OP_SET;
    if ((t == PTX_T_F16 || (two_types && in->type2 == PTX_T_F16)) &&
        !check_f16_form(text, len, in, why, whylen))
        return false;
    bool carry_op = in->op == PTX_OP_ADDC || in->op == PTX_OP_SUBC || in->op == PTX_OP_MADC;
    if (carry_op || (in->mods & PTX_MOD_CC)) {
        /* Extended precision: 32- and 64-bit integers, no .sat; mad and
         * madc take .lo or .hi, never .wide (PTX ISA). */
        bool int_type = t == PTX_T_U32 || t == PTX_T_S32 || t == PTX_T_U64 || t == PTX_T_S64;
        if (!int_type || (in->mods & (PTX_MOD_SAT | PTX_MOD_WIDE | PTX_MOD_FTZ)) ||
            in->round != PTX_RND_DEFAULT)
            return fail(why, whylen, "%.*s: carry arithmetic takes .u32 .s32 .u64 .s64 only", text, len);
        return true;
    }
    if ((in->mods & PTX_MOD_NAN) && t != PTX_T_F32 && t != PTX_T_F16)
        return fail(why, whylen, "%.*s: .NaN takes .f32 or .f16", text, len);
    switch (in->op) {
    case PTX_OP_RCP:
        if (!ptx_type_is_float(t))
            return fail(why, whylen, "%.*s: rcp of an integer type", text, len);
        /* fall through */
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MAD: case PTX_OP_FMA:
    case PTX_OP_DIV:
        if (ptx_type_is_ieee(t) && !is_float_arith_rounding_ok(in))
            return fail(why, whylen, "%.*s: integral rounding on float arithmetic", text, len);
        if (!ptx_type_is_ieee(t) && in->round != PTX_RND_DEFAULT)
            return fail(why, whylen, "%.*s: rounding on integer arithmetic", text, len);
        if (!ptx_type_is_ieee(t) && (in->mods & (PTX_MOD_FTZ)))
            return fail(why, whylen, "%.*s: .ftz on an integer type", text, len);
        if (!ptx_type_is_ieee(t) && (in->mods & PTX_MOD_SAT) && t != PTX_T_S32)
            return fail(why, whylen, "%.*s: .sat on an integer type other than s32", text, len);
        if (!ptx_type_is_ieee(t) && (in->mods & PTX_MOD_SAT) && in->op != PTX_OP_ADD &&
            in->op != PTX_OP_SUB)
            return fail(why, whylen, "%.*s: integer .sat is implemented for add and sub only", text, len);
        if (in->op == PTX_OP_FMA && !ptx_type_is_ieee(t))
            return fail(why, whylen, "%.*s: fma of an integer type", text, len);
        if (t == PTX_T_PRED)
            return fail(why, whylen, "%.*s: arithmetic on predicates", text, len);
        break;
    case PTX_OP_SETP:
        if (in->cmp == 0xff)
            return fail(why, whylen, "%.*s: no comparison", text, len);
        break;
    case PTX_OP_SET: {
        /* set: d is .u32 .s32 .f32, or .f16 .u16 .s16 (the half-precision
         * forms); the source any integer or float type but .b8/.u8/.s8. */
        ptx_type s = (ptx_type)in->type2;
        bool dtype_ok = t == PTX_T_U32 || t == PTX_T_S32 || t == PTX_T_F32 || t == PTX_T_F16 ||
                        t == PTX_T_U16 || t == PTX_T_S16;
        if (in->cmp == 0xff)
            return fail(why, whylen, "%.*s: no comparison", text, len);
        if (!dtype_ok || s == PTX_T_NONE || s == PTX_T_PRED || ptx_type_bytes(s) < 2)
            return fail(why, whylen, "%.*s: set needs a destination type (.u32 .s32 .f32 .f16 .u16 "
                        ".s16) and a source type", text, len);
        break;
    }
    case PTX_OP_CVT: {
        ptx_type s = (ptx_type)in->type2;
        if (s == PTX_T_NONE || s == PTX_T_PRED || t == PTX_T_PRED)
            return fail(why, whylen, "%.*s: needs a destination and a source type", text, len);
        bool to_f = ptx_type_is_ieee(t), from_f = ptx_type_is_ieee(s);
        /* .rn .rz .rm .rp: the rounding of a conversion to a float (f64
         * to f32, an integer to a float); a float to an integer rounds to an
         * integral value (.rni ...). */
        bool inexact_round = in->round == PTX_RND_RZ || in->round == PTX_RND_RM ||
                             in->round == PTX_RND_RP;
        if (inexact_round && from_f && !to_f)
            return fail(why, whylen, "%.*s: float-to-integer conversion needs an integer rounding",
                        text, len);
        break;
    }
    case PTX_OP_SHF: case PTX_OP_BFI: case PTX_OP_BFE: case PTX_OP_BFIND: case PTX_OP_POPC:
    case PTX_OP_CLZ: case PTX_OP_BREV: case PTX_OP_PRMT: case PTX_OP_SAD: case PTX_OP_COPYSIGN:
    case PTX_OP_TESTP: case PTX_OP_SQRT: case PTX_OP_RSQRT: case PTX_OP_EX2: case PTX_OP_LG2:
    case PTX_OP_SIN: case PTX_OP_COS: case PTX_OP_TANH: case PTX_OP_MUL24: case PTX_OP_MAD24:
        return check_bits_and_functions(text, len, in, why, whylen);
    case PTX_OP_CVTA:
        if (in->space == PTX_SPACE_GENERIC || in->space == PTX_SPACE_PARAM ||
            (t != PTX_T_U64 && t != PTX_T_U32))
            return fail(why, whylen, "%.*s: form not supported", text, len);
        break;
    case PTX_OP_ATOM: case PTX_OP_RED: case PTX_OP_SHFL: case PTX_OP_VOTE:
    case PTX_OP_ACTIVEMASK: case PTX_OP_MATCH: case PTX_OP_REDUX:
        return check_warp_form(text, len, in, why, whylen);
    case PTX_OP_LD: case PTX_OP_ST:
        if (t == PTX_T_PRED)
            return fail(why, whylen, "%.*s: ld/st of a predicate", text, len);
        break;
    default:
        break;
    }
    return true;
}

bool ptx_decode_mnemonic(const char *text, size_t len, ptx_insn *in, char *why, size_t whylen)
{
    const char *dot = memchr(text, '.', len);
    size_t base_len = dot ? (size_t)(dot - text) : len;
    const opcode_info *oi = NULL;
    for (size_t i = 0; i < sizeof k_opcodes / sizeof k_opcodes[0]; i++)
        if (word_is(text, base_len, k_opcodes[i].name))
            oi = &k_opcodes[i];
    if (!oi)
        return fail(why, whylen, "unknown instruction %.*s", text, len);
    in->op = (uint8_t)oi->op;
    in->vec = 1;
    in->subop = PTX_ATOM_NONE;
    /* bar.warp.sync: lanes of a warp always run in lockstep here. */
    if (word_is(text, len, "bar.warp.sync")) {
        in->op = PTX_OP_WARPSYNC;
        in->cmp = 0;
        return true;
    }
    /* bar.red / barrier.red (numba's syncthreads_count, _and, _or). */
    static const struct { const char *form; uint8_t subop, type; } k_bar_red[] = {
        { "bar.red.popc.u32", PTX_BAR_RED_POPC, PTX_T_U32 }, { "bar.red.and.pred", PTX_BAR_RED_AND, PTX_T_PRED },
        { "bar.red.or.pred", PTX_BAR_RED_OR, PTX_T_PRED },
        { "barrier.red.popc.u32", PTX_BAR_RED_POPC, PTX_T_U32 },
        { "barrier.red.and.pred", PTX_BAR_RED_AND, PTX_T_PRED },
        { "barrier.red.or.pred", PTX_BAR_RED_OR, PTX_T_PRED },
    };
    for (size_t i = 0; i < sizeof k_bar_red / sizeof k_bar_red[0]; i++)
        if (word_is(text, len, k_bar_red[i].form)) {
            in->op = PTX_OP_BAR_RED;
            in->subop = k_bar_red[i].subop;
            in->type = k_bar_red[i].type;
            in->cmp = 0;
            return true;
        }
    in->cmp = 0xff;
    int ntypes = 0;
    const char *p = dot;
    const char *end = text + len;
    bool saw_sync = false;
    unsigned shf_words = 0; /* shf needs a direction (.l/.r) and a mode (.wrap/.clamp) */
    while (p && p < end) {
        const char *w = p + 1;
        const char *next = memchr(w, '.', (size_t)(end - w));
        size_t n = (size_t)((next ? next : end) - w);
        if (n == 0)
            return fail(why, whylen, "empty modifier in %.*s", text, len);
        if (word_is(w, n, "sync"))
            saw_sync = true;
        if (oi->op == PTX_OP_SHF)
            shf_words |= (word_is(w, n, "l") || word_is(w, n, "r")) ? 1u
                         : (word_is(w, n, "wrap") || word_is(w, n, "clamp")) ? 2u : 0u;
        if (!apply_modifier(oi, w, n, in, &ntypes, why, whylen)) {
            size_t used = strlen(why);
            snprintf(why + used, whylen - used, " in %.*s", (int)len, text);
            return false;
        }
        p = next;
    }
    bool warp_op = oi->op == PTX_OP_SHFL || oi->op == PTX_OP_VOTE || oi->op == PTX_OP_MATCH ||
                   oi->op == PTX_OP_REDUX;
    if (warp_op && !saw_sync)
        return fail(why, whylen, "%.*s: only the .sync forms of warp instructions are implemented",
                    text, len);
    if (oi->op == PTX_OP_BAR && !saw_sync)
        return fail(why, whylen, "%.*s: only bar.sync is implemented", text, len);
    if (oi->op == PTX_OP_SHF && shf_words != 3u)
        return fail(why, whylen, "%.*s: shf needs .l or .r and .wrap or .clamp", text, len);
    if (oi->op == PTX_OP_TESTP && in->cmp == 0xff)
        return fail(why, whylen, "%.*s: testp needs the property to test", text, len);
    if (in->cmp == 0xff && oi->op != PTX_OP_SETP && oi->op != PTX_OP_SET)
        in->cmp = 0;
    return check_form(text, len, in, why, whylen);
}
