/*
 * The decoded form of a PTX module: what the parser (ptx_parse.c) builds once
 * per module and the interpreter (ptx_exec.c) runs. Every name is resolved
 * here: registers to slot indices, labels to instruction indices, parameters
 * to (index, offset), symbols to addresses in their space's window, so the
 * interpreter never looks at text.
 */
#ifndef GG_PTX_IR_H
#define GG_PTX_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Value types. Registers are 64-bit slots whatever their declared width:
 * each instruction reads and writes them at its own type's width. */
typedef enum ptx_type {
    PTX_T_NONE = 0,
    PTX_T_B8, PTX_T_B16, PTX_T_B32, PTX_T_B64,
    PTX_T_U8, PTX_T_U16, PTX_T_U32, PTX_T_U64,
    PTX_T_S8, PTX_T_S16, PTX_T_S32, PTX_T_S64,
    PTX_T_F32, PTX_T_F64,
    PTX_T_PRED,
    /* binary16 (ptx_f16.h): its 16 bits in a .b16/.f16 register. Not a
     * "float" for ptx_type_is_float, whose users (warp fast paths,
     * atomics, float literals) handle f32 and f64 only. */
    PTX_T_F16
} ptx_type;

/* Inline: the interpreter asks for every access. */
static inline unsigned ptx_type_bytes(ptx_type t) /* PRED: 1; NONE: 0 */
{
    static const unsigned char bytes[] = { 0, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 1, 2 };
    return (unsigned)t < sizeof bytes ? bytes[t] : 0;
}

static inline bool ptx_type_is_signed(ptx_type t)
{
    return t == PTX_T_S8 || t == PTX_T_S16 || t == PTX_T_S32 || t == PTX_T_S64;
}

static inline bool ptx_type_is_float(ptx_type t) /* f32 or f64; f16 is not */
{
    return t == PTX_T_F32 || t == PTX_T_F64;
}

/* f16, f32 or f64: every IEEE binary type. */
static inline bool ptx_type_is_ieee(ptx_type t)
{
    return ptx_type_is_float(t) || t == PTX_T_F16;
}

typedef enum ptx_opcode {
    PTX_OP_NOP = 0,
    PTX_OP_MOV, PTX_OP_LD, PTX_OP_ST,
    PTX_OP_ADD, PTX_OP_SUB, PTX_OP_MUL, PTX_OP_MAD, PTX_OP_FMA, PTX_OP_DIV, PTX_OP_REM,
    PTX_OP_MIN, PTX_OP_MAX, PTX_OP_ABS, PTX_OP_NEG,
    PTX_OP_AND, PTX_OP_OR, PTX_OP_XOR, PTX_OP_NOT, PTX_OP_SHL, PTX_OP_SHR,
    PTX_OP_SETP, PTX_OP_SELP, PTX_OP_CVT, PTX_OP_CVTA,
    PTX_OP_BRA, PTX_OP_RET, PTX_OP_EXIT, PTX_OP_BAR, PTX_OP_MEMBAR, PTX_OP_ATOM,
    PTX_OP_TRAP, PTX_OP_ASSERTFAIL, PTX_OP_RCP,
    /* Bit manipulation (ptx_alu_bits.c). */
    PTX_OP_SHF, PTX_OP_BFI, PTX_OP_BFE, PTX_OP_BFIND, PTX_OP_POPC, PTX_OP_CLZ, PTX_OP_BREV,
    PTX_OP_PRMT, PTX_OP_SAD,
    /* Float functions and classification (ptx_alu_math.c). */
    PTX_OP_COPYSIGN, PTX_OP_TESTP, PTX_OP_SQRT, PTX_OP_RSQRT, PTX_OP_EX2, PTX_OP_LG2,
    PTX_OP_SIN, PTX_OP_COS, PTX_OP_TANH,
    /* 24-bit multiplies (ptx_alu_bits.c). */
    PTX_OP_MUL24, PTX_OP_MAD24,
    /* Warp-level instructions and reductions to memory (ptx_warp_ops.c,
     * ptx_atomic.c); `subop` says which operation or mode. */
    PTX_OP_RED, PTX_OP_SHFL, PTX_OP_VOTE, PTX_OP_ACTIVEMASK, PTX_OP_MATCH, PTX_OP_REDUX,
    PTX_OP_WARPSYNC,
    /* bar.red.{popc.u32,and.pred,or.pred} d, a{, b}, {!}c: a block barrier
     * that also reduces c over the block's threads (subop: ptx_bar_red). */
    PTX_OP_BAR_RED,
    /* Only between parsing and inlining (ptx_inline.c): a call to a .func,
     * target = the call site's index; never reaches the interpreter. */
    PTX_OP_CALL,
    /* printf: ops[0] the address of the .s32 result in .local (or NONE),
     * ops[1] and ops[2] the addresses in .local of the two .b64 arguments
     * (format, argument buffer); see ptx_printf.c. */
    PTX_OP_VPRINTF,
    /* Extended-precision arithmetic with the carry flag (ptx_carry.c):
     * addc subc madc; add.cc sub.cc mad.cc are ADD SUB MAD with PTX_MOD_CC. */
    PTX_OP_ADDC, PTX_OP_SUBC, PTX_OP_MADC,
    /* set.CmpOp{.BoolOp}.dtype.stype d, a, b{, c}: a setp whose result is
     * written as dtype's true (1.0, or all ones for integers) or 0;
     * type = dtype, type2 = stype. */
    PTX_OP_SET,
    /* A call into a recursive function (ptx_inline.h, ptx_call_stack.c):
     * target = its ptx_rcall in the kernel's rcalls. */
    PTX_OP_RCALL,
    /* A recursive function's ret: target = its ptx_rfunc in the kernel's
     * rfuncs; each lane pops its own frame and goes back to its own caller. */
    PTX_OP_RRET
} ptx_opcode;

/* ptx_insn.subop of atom, red and redux.sync. */
typedef enum ptx_atomop {
    PTX_ATOM_ADD = 0, PTX_ATOM_EXCH, PTX_ATOM_CAS, PTX_ATOM_MIN, PTX_ATOM_MAX,
    PTX_ATOM_AND, PTX_ATOM_OR, PTX_ATOM_XOR, PTX_ATOM_INC, PTX_ATOM_DEC,
    PTX_ATOM_NONE = 0xff  /* not given yet (while decoding) */
} ptx_atomop;

/* ptx_insn.subop of shfl.sync, vote.sync and match.sync. */
typedef enum ptx_warp_mode {
    PTX_SHFL_UP = 0, PTX_SHFL_DOWN, PTX_SHFL_BFLY, PTX_SHFL_IDX,
    PTX_VOTE_ALL, PTX_VOTE_ANY, PTX_VOTE_UNI, PTX_VOTE_BALLOT,
    PTX_MATCH_ANY, PTX_MATCH_ALL
} ptx_warp_mode;

typedef enum ptx_space {
    PTX_SPACE_GENERIC = 0, PTX_SPACE_GLOBAL, PTX_SPACE_SHARED, PTX_SPACE_LOCAL,
    PTX_SPACE_PARAM, PTX_SPACE_CONST
} ptx_space;

/* Modifier bits of ptx_insn.mods. */
enum {
    PTX_MOD_HI = 1u << 0,     /* mul/mad .hi */
    PTX_MOD_WIDE = 1u << 1,   /* mul/mad .wide */
    PTX_MOD_FTZ = 1u << 2,    /* f32 subnormal inputs and results flushed to zero */
    PTX_MOD_SAT = 1u << 3,    /* float result clamped to [0, 1]; cvt: to the integer range */
    PTX_MOD_TO = 1u << 4,     /* cvta.to.<space>: generic to space */
    PTX_MOD_UNI = 1u << 5,    /* bra.uni */
    PTX_MOD_LEFT = 1u << 6,   /* shf.l (else shf.r) */
    PTX_MOD_CLAMP = 1u << 7,  /* shf.clamp (else .wrap) */
    PTX_MOD_SHIFTAMT = 1u << 8, /* bfind.shiftamt */
    PTX_MOD_PRED_DST = 1u << 9, /* d|p: the second destination is ptx_insn.pred_dst */
    PTX_MOD_APPROX = 1u << 10,  /* .approx (div.approx.f32 has its own range rule) */
    PTX_MOD_CC = 1u << 11,      /* .cc: the carry (or borrow) out goes to the lane's CC.CF */
    PTX_MOD_NAN = 1u << 12      /* min/max .NaN: a NaN operand gives the canonical NaN */
};

/* testp's property, kept in ptx_insn.cmp. */
typedef enum ptx_testp {
    PTX_TESTP_FINITE = 0, PTX_TESTP_INFINITE, PTX_TESTP_NUMBER, PTX_TESTP_NOTANUMBER,
    PTX_TESTP_NORMAL, PTX_TESTP_SUBNORMAL
} ptx_testp;

/* prmt's mode, kept in ptx_insn.cmp: the default (a selector nibble per
 * byte) or one of the fixed patterns chosen by the selector's low 2 bits. */
typedef enum ptx_prmt_mode {
    PTX_PRMT_DEFAULT = 0, PTX_PRMT_F4E, PTX_PRMT_B4E, PTX_PRMT_RC8, PTX_PRMT_ECL, PTX_PRMT_ECR,
    PTX_PRMT_RC16
} ptx_prmt_mode;

/* Rounding of cvt and of float arithmetic (add sub mul mad fma div rcp sqrt). */
typedef enum ptx_round {
    PTX_RND_DEFAULT = 0, PTX_RND_RN, PTX_RND_RZ, PTX_RND_RM, PTX_RND_RP,
    PTX_RND_RNI, PTX_RND_RZI, PTX_RND_RMI, PTX_RND_RPI
} ptx_round;

typedef enum ptx_cmp {
    PTX_CMP_EQ = 0, PTX_CMP_NE, PTX_CMP_LT, PTX_CMP_LE, PTX_CMP_GT, PTX_CMP_GE,
    PTX_CMP_LO, PTX_CMP_LS, PTX_CMP_HI, PTX_CMP_HS,
    PTX_CMP_EQU, PTX_CMP_NEU, PTX_CMP_LTU, PTX_CMP_LEU, PTX_CMP_GTU, PTX_CMP_GEU,
    PTX_CMP_NUM, PTX_CMP_NAN
} ptx_cmp;

typedef enum ptx_bar_red { PTX_BAR_RED_POPC = 1, PTX_BAR_RED_AND, PTX_BAR_RED_OR } ptx_bar_red;

typedef enum ptx_boolop { PTX_BOOL_NONE = 0, PTX_BOOL_AND, PTX_BOOL_OR, PTX_BOOL_XOR } ptx_boolop;

typedef enum ptx_sreg {
    PTX_SREG_TID_X = 0, PTX_SREG_TID_Y, PTX_SREG_TID_Z,
    PTX_SREG_NTID_X, PTX_SREG_NTID_Y, PTX_SREG_NTID_Z,
    PTX_SREG_CTAID_X, PTX_SREG_CTAID_Y, PTX_SREG_CTAID_Z,
    PTX_SREG_NCTAID_X, PTX_SREG_NCTAID_Y, PTX_SREG_NCTAID_Z,
    PTX_SREG_LANEID, PTX_SREG_WARPID, PTX_SREG_NWARPID, PTX_SREG_WARPSZ,
    /* Simulated time (ptx_sim_clock in ptx_module.h). */
    PTX_SREG_CLOCK, PTX_SREG_CLOCK64, PTX_SREG_GLOBALTIMER, PTX_SREG_GLOBALTIMER_LO,
    PTX_SREG_GLOBALTIMER_HI,
    /* A lane's bit and the bits below/above it, as masks of the warp. */
    PTX_SREG_LANEMASK_EQ, PTX_SREG_LANEMASK_LE, PTX_SREG_LANEMASK_LT, PTX_SREG_LANEMASK_GE,
    PTX_SREG_LANEMASK_GT,
    /* Shared memory of the block: the launch's dynamic bytes, and all of it. */
    PTX_SREG_DYNAMIC_SMEM_SIZE, PTX_SREG_TOTAL_SMEM_SIZE
} ptx_sreg;

typedef enum ptx_operand_kind {
    PTX_OPND_NONE = 0,
    PTX_OPND_REG,     /* reg */
    PTX_OPND_IMM,     /* imm: the bits, already in the instruction's type */
    PTX_OPND_SREG,    /* sreg */
    PTX_OPND_ADDR,    /* [reg + offset] or [offset] (reg < 0): in the instruction's space */
    PTX_OPND_PARAM,   /* [kernel parameter param + offset] */
    PTX_OPND_VEC      /* {vec[0..count-1]} */
} ptx_operand_kind;

#define PTX_NO_REG UINT32_MAX

/* ptx_operand.reloc: what inlining (ptx_inline.c) adds to imm once the
 * layout is known. */
enum {
    PTX_RELOC_FRAME = 1u << 0,        /* an address in the function's .local frame */
    PTX_RELOC_EXTERN_SHARED = 1u << 1 /* an address in extern .shared */
};

typedef struct ptx_operand {
    uint8_t kind;
    uint8_t negate;       /* !%p */
    uint8_t count;        /* VEC */
    uint8_t reloc;        /* PTX_RELOC_*: cleared once applied */
    uint32_t reg;         /* REG, ADDR base (PTX_NO_REG: none), PARAM index */
    uint32_t vec[4];
    uint64_t imm;         /* IMM bits; ADDR / PARAM byte offset */
    ptx_sreg sreg;
} ptx_operand;

#define PTX_MAX_OPERANDS 5 /* bfi d, f, b, pos, len; shfl.sync d, a, b, c, membermask */

typedef struct ptx_insn {
    uint8_t op;           /* ptx_opcode */
    uint8_t type;         /* ptx_type of the operation (cvt: destination) */
    uint8_t type2;        /* cvt and set: source type; setp/selp: none */
    uint8_t space;        /* ld/st/atom/cvta: ptx_space */
    uint8_t cmp;          /* setp: ptx_cmp; testp: ptx_testp; prmt: ptx_prmt_mode */
    uint8_t boolop;       /* setp: ptx_boolop with operand 3 */
    uint8_t round;        /* ptx_round */
    uint8_t vec;          /* ld/st .v2/.v4: 2 or 4; else 1 */
    uint16_t mods;        /* PTX_MOD_* */
    uint8_t pred_negate;
    uint8_t nops;
    uint32_t pred;        /* guard predicate register, PTX_NO_REG: none */
    uint32_t target;      /* bra: instruction index */
    uint32_t line;        /* source line, for messages */
    uint8_t subop;        /* atom/red/redux: ptx_atomop; shfl/vote/match: ptx_warp_mode */
    uint32_t pred_dst;    /* with PTX_MOD_PRED_DST: the predicate register of d|p */
    ptx_operand ops[PTX_MAX_OPERANDS];
} ptx_insn;

/* A .global or .const variable of the module: its bytes live in the
 * module (initialised as declared) at an address of the module window. */
typedef struct ptx_variable {
    char *name;
    ptx_space space;
    uint64_t offset;      /* in its space's layout */
    uint64_t bytes;
    unsigned align;
    bool weak;            /* defined .weak: a later .weak definition of it is this one */
} ptx_variable;

/* A function of the kernel's call graph that can reach itself (direct or
 * mutual recursion): its code is emitted once, after the kernel's, and run
 * with real calls. One activation of it, at the lane's frame pointer fp (a
 * .local offset) in the lane's call stack:
 *   [fp, fp + save_offset): its parameters (param_offset[i]) then its own
 *       .local frame (its locals, the .param slots of its calls, the frames
 *       of the non-recursive functions inlined into it);
 *   [save_offset, trailer_offset): its register window as it was before
 *       the call (an outer activation's, restored by its ret);
 *   [trailer_offset, +16): the return pc (u64) and where the return value
 *       goes (u64, a .local offset).
 * Registers [reg_base, reg_base + nregs) are its window; fp_reg (inside
 * it) holds fp. */
typedef struct ptx_rfunc {
    uint32_t entry;           /* instruction index of its first instruction */
    uint32_t reg_base, nregs, fp_reg;
    uint32_t nparams, nrets;  /* the return value is parameter 0 when nrets */
    uint32_t *param_offset, *param_size;
    uint32_t save_offset, trailer_offset;
    uint32_t activation_bytes; /* what one call takes of the lane's stack */
} ptx_rfunc;

/* One call site of a recursive function: the caller's .param slots, as
 * offsets from the caller's frame pointer (caller_fp, a register) or, for
 * a caller with a fixed frame (caller_fp == PTX_NO_REG), from 0. */
typedef struct ptx_rcall {
    uint32_t rfunc;
    uint32_t caller_fp;
    uint32_t ret_dst;         /* where the return value goes (if the callee has one) */
    uint32_t nargs;
    uint32_t *arg_src;        /* where each argument is */
} ptx_rcall;

typedef struct ptx_kernel {
    char *name;
    unsigned nparams;
    unsigned *param_sizes;   /* bytes of each .param, as declared */
    char **param_names;
    unsigned *param_aligns;  /* alignment of each .param: its .align, else its type's size */
    uint32_t max_threads;    /* threads per block .maxntid/.reqntid allow; 0: not declared */
    uint32_t max_registers;  /* .maxnreg: the registers ptxas may allocate a thread; 0: not declared */
    uint32_t static_shared_bytes; /* its own .shared (declared in its body), laid out alone */
    ptx_insn *code;
    size_t ncode;
    uint32_t nregs;          /* register slots per thread */
    uint32_t local_bytes;    /* .local per thread (its fixed frames) */
    uint32_t first_line;
    /* Recursion (ptx_inline.h): the recursive functions it reaches, their
     * call sites, and where each thread's call stack starts in its .local
     * (stack_base). The stack's size is the launch's (ptx_call_stack_bytes
     * of the context's CU_LIMIT_STACK_SIZE); a kernel that makes no
     * recursive call (nrfuncs 0) has none. */
    ptx_rfunc *rfuncs;
    size_t nrfuncs;
    ptx_rcall *rcalls;
    size_t nrcalls;
    uint32_t stack_base;
} ptx_kernel;

/* .local bytes per thread: its fixed frames, then, in a kernel that makes
 * recursive calls, a call stack of stack_bytes (ignored otherwise: a
 * kernel without recursion pays nothing whatever the limit). */
static inline uint64_t ptx_kernel_thread_local_bytes(const ptx_kernel *k, uint64_t stack_bytes)
{
    return k->nrfuncs ? (uint64_t)k->stack_base + stack_bytes : k->local_bytes;
}

/* Where symbol addresses live, as generic addresses. Device allocations of
 * the simulator sit at 0x7d0000000000 and up, mapped host memory in the
 * host's user half: these non-canonical windows collide with neither. */
#define PTX_WINDOW_SIZE (1ull << 32)
#define PTX_WINDOW_SHARED 0xF100000000000000ull
#define PTX_WINDOW_LOCAL 0xF200000000000000ull
#define PTX_WINDOW_MODULE 0xF300000000000000ull

typedef struct ptx_module {
    ptx_kernel *kernels;
    size_t nkernels;
    ptx_variable *vars;
    size_t nvars;
    unsigned char *data;     /* .global and .const bytes (module window offset 0); the
                              * simulator's loader moves them into a device allocation
                              * and points data there (sim_module.c) */
    uint64_t data_bytes;
    uint32_t static_shared_bytes; /* .shared variables, laid out from 0 */
    uint32_t module_shared_bytes; /* those declared at module scope, laid out alone */
    bool has_extern_shared;
    uint32_t extern_shared_offset; /* where extern .shared arrays start */
} ptx_module;

#endif
