/*
 * The state of one block while the interpreter runs it (ptx_exec.c) and
 * the memory accesses it makes (ptx_memory.c).
 */
#ifndef GG_PTX_BLOCK_H
#define GG_PTX_BLOCK_H

#include "gpuguard/sim_kernel.h"
#include "ptx_ir.h"
#include "ptx_module.h"
#include "ptx_printf.h"

#define PTX_WARP_SIZE 32u
/* Allocations a block remembers: a kernel's buffers, typically a handful. */
#define PTX_GLOBAL_WINDOWS 8u

/* One warp. Lanes of `group` stand at `pc` and run together; other lanes
 * that can run (`waiting`) stand at lane_pc[lane], all above pc: the warp
 * always runs the lowest pc any of its lanes stands at (see ptx_exec.c);
 * in a kernel with recursive calls, the lowest pc among its deepest lanes
 * (call_depth), and `waiting` lanes at the group's depth stand above pc.
 * Lanes at a bar.sync wait in `at_barrier` (their lane_pc is the next
 * instruction) until the whole block arrives. */
typedef struct ptx_warp {
    uint32_t pc;
    uint32_t group;
    uint32_t waiting;
    uint32_t next_wait_pc;    /* lowest lane_pc of `waiting` */
    uint32_t at_barrier;
    uint32_t live;            /* lanes that exist and have not exited */
    uint32_t carry;           /* each lane's CC.CF (add.cc, addc ...: ptx_carry.c) */
    uint32_t index;
    uint32_t lane_pc[PTX_WARP_SIZE];
    uint32_t red_lanes;       /* lanes at a bar.red: they get its result at the release */
    uint32_t red_dst;         /* ... in this register */
    uint64_t *regs;           /* [register][lane] */
    uint64_t insns;           /* warp-instructions run: its simulated clock */
    /* Only in a kernel that makes recursive calls (else NULL: a warp stays
     * small for the others): per lane, the bytes of its call stack in use
     * and its activations (ptx_call_stack.c); lanes are then picked by
     * depth first. */
    uint32_t *stack_used;
    uint32_t *call_depth;
} ptx_warp;

typedef struct ptx_block {
    const ptx_module *m;
    const ptx_kernel *k;
    const gg_sim_block *b;
    unsigned char *shared;
    uint64_t shared_bytes;
    unsigned char *local;     /* thread_local_bytes per thread */
    uint64_t stack_bytes;     /* each thread's call stack (0 without recursion) */
    uint64_t thread_local_bytes; /* ptx_kernel_thread_local_bytes(k, stack_bytes) */
    unsigned nthreads, nwarps;
    bool faulted;             /* the block stops at its first fault */
    ptx_window_fn window;     /* NULL: rt->map() for every global access */
    ptx_global_window windows[PTX_GLOBAL_WINDOWS]; /* recently used allocations */
    unsigned next_window;     /* the one to replace next (round robin) */
    ptx_sim_clock *clock;     /* the launch's simulated time */
    ptx_printf_fifo *printf_fifo; /* the launch's printf output; NULL: dropped */
    uint64_t thread_insns;    /* lanes that executed an instruction, summed (bench/ptx_interp.c) */
    /* bar.red in progress (ptx_exec.c): the operation, and its predicate
     * over the threads arrived so far. */
    uint8_t red_op;           /* ptx_bar_red; 0: none */
    uint32_t red_true;        /* threads whose predicate held */
    uint32_t red_false;       /* threads whose predicate did not */
} ptx_block;

/* Host address of `bytes` at address addr of `space` for thread `thread`,
 * or NULL after raising the fault (out of range: ILLEGAL_ADDRESS;
 * misaligned: see ptx_memory.c). */
void *ptx_memory_resolve(ptx_block *blk, ptx_space space, uint64_t addr, unsigned bytes,
                         unsigned thread);
/* Host address of [lo, lo + span) of `space` if the whole range lies in
 * one range the block can reach at once (shared memory, the module's
 * data, a global allocation: the warp-wide path of ld/st), else NULL
 * without a fault (local memory, unknown or out-of-range addresses: the
 * caller then resolves lane by lane with ptx_memory_resolve, which faults
 * as it should). Alignment is the caller's to check. */
void *ptx_memory_span(ptx_block *blk, ptx_space space, uint64_t lo, uint64_t span);
/* A device-side fault: the launch fails with it, the block stops. */
void ptx_block_fault(ptx_block *blk, gg_sim_trap kind);

/* The value of a register, constant or special-register operand for one
 * lane, read as type t (negated if written !%p) (ptx_exec.c). */
uint64_t ptx_operand_value(const ptx_block *blk, const ptx_warp *w, unsigned lane,
                           const ptx_operand *o, ptx_type t);

/* The register slot r of a lane. */
static inline uint64_t *ptx_lane_reg(ptx_warp *w, uint32_t r, unsigned lane)
{
    return &w->regs[(size_t)r * PTX_WARP_SIZE + lane];
}

#endif
