/*
 * Device functions (.func) and calls: the parser (ptx_parse.c) records each
 * function's body and each call site; once the whole module is read,
 * ptx_inline.c expands every call in every kernel into a copy of the
 * callee's code, so that the interpreter's min-pc scheduling (ptx_exec.c)
 * sees straight-line code in which lanes that call from different places
 * or diverge inside a callee are simply lanes at different pcs.
 *
 * Layout of an inlined call. Each function has its own registers and its
 * own .local frame: the .local variables it declares and the .param slots
 * of the calls it makes (arguments and return values live in the caller's
 * frame, so a callee reads its parameters where its caller wrote them).
 * A callee's registers are placed after its caller's, its frame after its
 * caller's frame. Two calls made one after the other from the same
 * function reuse the same registers and frame: a thread is inside at most
 * one of them at a time, and both are per thread.
 *
 * Recursion. A function that can reach itself through calls (a cycle of
 * the call graph: direct or mutual recursion) cannot be inlined. Its code
 * is emitted once per kernel, after the kernel's own, with the
 * non-recursive functions it calls inlined into it; every call to it
 * (from the kernel, an inlined function or a recursive one) becomes
 * PTX_OP_RCALL and its ret PTX_OP_RRET, run by ptx_call_stack.c with a
 * per-lane call stack in .local (ptx_ir.h, ptx_rfunc, for the layout of
 * one activation). Its registers are a window of its own, saved in the
 * new activation on each call and restored by its ret; its .local frame
 * and parameters live in the activation, addressed from a frame-pointer
 * register, so each activation has its own (and pointers into a caller's
 * frame stay valid). Lanes of a warp may stand at different depths: every
 * piece of an activation is per lane, so each lane's results are exact
 * whatever the order lanes run in; a ret sends each lane to its own return
 * pc. For warp-wide operations the scheduling of ptx_exec.c runs the
 * deepest lanes first (then the lowest pc among them), so lanes that
 * called from one place meet again at its return point before any goes
 * on, as a GPU reconverges them.
 *
 * The call stack of a thread is sized by the launch's context's
 * CU_LIMIT_STACK_SIZE: ptx_call_stack_bytes(limit), PTX_STACK_SCALE bytes
 * of the interpreter's activations per byte of the limit. Why a scale: a
 * GPU's frame holds what ptxas spills and saves (the H100 probe's
 * `recurse` frame: 120 bytes), an activation here every PTX virtual
 * register of the function's window at 8 bytes, its parameters and its
 * whole .local depot (the same function: 496 bytes, about 4x). The limit
 * is the GPU's bytes, so the rule that matters, a program that runs on a
 * GPU under a limit also runs here, needs the simulator's stack to be at
 * least the limit times that ratio; 16 covers the measured 4x with room
 * (a function with many short-lived virtual registers could exceed it:
 * unverified beyond the one kernel), keeps the default limit's stack at
 * the 16 KiB it had, and a runaway recursion still overflows it. A call
 * whose activation would not fit faults at run time with ILLEGAL_ADDRESS
 * (a sticky error, as measured on the H100; see src/sim/README.md).
 *
 * Limits, each refused at load time with the call's line: inlined calls
 * nested deeper than PTX_MAX_CALL_DEPTH, more than PTX_MAX_INLINED_INSNS
 * instructions in a module once calls are expanded, calls to functions
 * without a body (other than vprintf and __assertfail, which the
 * interpreter implements), printf inside a recursive function, a .local
 * address in a recursive function used other than as [symbol+imm] or
 * mov of the symbol's address, and one activation larger than the stack of
 * the largest limit (PTX_MAX_STACK_LIMIT).
 */
#ifndef GG_PTX_INLINE_H
#define GG_PTX_INLINE_H

#include "ptx_ir.h"

#define PTX_MAX_CALL_DEPTH 64u
#define PTX_MAX_INLINED_INSNS (1u << 19) /* 184 bytes each: at most 96 MiB */
/* The call stack: PTX_STACK_SCALE bytes per byte of CU_LIMIT_STACK_SIZE
 * (see above); the default limit (1024, as the H100 reports) gives
 * PTX_CALL_STACK_BYTES. The largest limit a context takes is the
 * architecture's local memory per thread (512 KiB, the CUDA programming
 * guide's figure for every compute capability since 2.0): 8 MiB here. */
#define PTX_STACK_SCALE 16u
#define PTX_DEFAULT_STACK_LIMIT 1024u
#define PTX_MAX_STACK_LIMIT (512u * 1024u)
#define PTX_CALL_STACK_BYTES (PTX_DEFAULT_STACK_LIMIT * PTX_STACK_SCALE) /* 16 KiB */

/* The bytes of a thread's call stack under CU_LIMIT_STACK_SIZE `limit`
 * (at most PTX_MAX_STACK_LIMIT: larger values are clamped, the caller
 * refuses them first). */
static inline uint64_t ptx_call_stack_bytes(uint64_t limit)
{
    if (limit > PTX_MAX_STACK_LIMIT)
        limit = PTX_MAX_STACK_LIMIT;
    return (limit * PTX_STACK_SCALE + 15u) & ~(uint64_t)15u;
}
#define PTX_MAX_CALL_ARGS 256u /* numba passes 5 + 2 x ndim per array: six 1-D arrays are 42 */

/* One `call` as written: the .param slots it names, in the caller's frame. */
typedef struct ptx_call_site {
    char *callee;
    uint32_t line;
    unsigned nrets, nargs;                 /* nrets: 0 or 1 */
    uint32_t ret_offset, ret_size;
    uint32_t arg_offset[PTX_MAX_CALL_ARGS], arg_size[PTX_MAX_CALL_ARGS];
} ptx_call_site;

/* A .func: its body uses the fields of a kernel (code, nregs, local_bytes,
 * params: the return value first when it has one, then the parameters).
 * In its code, PARAM operands name its own parameters, PTX_OP_CALL its
 * call sites. */
typedef struct ptx_function {
    ptx_kernel body;
    unsigned nrets;
    bool defined;        /* a body was read (not only a declaration) */
    bool weak;           /* defined .weak: a later definition of it is dropped */
    uint32_t line;       /* of its declaration or definition */
} ptx_function;

/* Where an inlining refusal comes from: the line and why. */
typedef struct ptx_inline_error {
    uint32_t line;
    char why[200];
} ptx_inline_error;

/* Sorts funcs by name, as ptx_inline_kernel wants them. */
void ptx_inline_sort_functions(ptx_function *funcs, size_t nfuncs);

/* Replaces k's code by its code with every call expanded (funcs sorted by
 * ptx_inline_sort_functions), relocations
 * applied (frame addresses, extern .shared at extern_shared_offset) and
 * k->nregs / k->local_bytes grown to hold every inlined frame. *budget is
 * how many instructions the module may still take; it is decreased. On
 * failure returns false, fills *err and leaves k as it was (freed by its
 * module as usual). */
bool ptx_inline_kernel(ptx_kernel *k, const ptx_function *funcs, size_t nfuncs,
                       const ptx_call_site *calls, size_t ncalls, uint32_t extern_shared_offset,
                       size_t *budget, ptx_inline_error *err);

/* Frees k's recursion tables (rfuncs, rcalls) and empties them. */
void ptx_kernel_free_calls(ptx_kernel *k);

#endif
