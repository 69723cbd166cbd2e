/*
 * PTX modules for the simulator: recognising PTX text, parsing it into the
 * decoded form (ptx_ir.h), finding its kernels, and running one block of a
 * kernel (ptx_exec.c). Nothing here prints, aborts or exits; errors come
 * back as text.
 */
#ifndef GG_PTX_MODULE_H
#define GG_PTX_MODULE_H

#include "gpuguard/sim_kernel.h"
#include "ptx_ir.h"
#include "ptx_printf.h"

/* Whether a module image is PTX text: after blanks and comments it starts
 * with ".version", or it is text (its first 256 bytes, up to a NUL, are
 * printable) that contains ".entry" before its end (NUL). */
bool ptx_image_is_ptx(const char *image);

/* Parses len bytes of PTX. On failure returns NULL and writes into err
 * "PTX line N: why: <the line's text>". */
ptx_module *ptx_module_parse(const char *src, size_t len, char *err, size_t errlen);
/* How ptx_module_parse_as reads a text. */
typedef enum ptx_parse_mode {
    PTX_PARSE_MODULE,     /* a module to run: at least one .entry, every call resolved */
    PTX_PARSE_LINK_INPUT  /* one input of a JIT link (cuLinkAddData): a library without
                           * .entry is fine, and calls are resolved only once the
                           * inputs are linked (the module then checks them) */
} ptx_parse_mode;
/* ptx_module_parse in the given mode. A LINK_INPUT module is for checking
 * only: its calls are not inlined, so it cannot be run. */
ptx_module *ptx_module_parse_as(const char *src, size_t len, ptx_parse_mode mode, char *err, size_t errlen);
void ptx_module_free(ptx_module *m);
/* The .entry named name, or NULL. */
const ptx_kernel *ptx_module_kernel(const ptx_module *m, const char *name);

/* A whole device allocation, so that the interpreter checks most global
 * accesses against a few cached ranges instead of calling rt->map() for
 * each: the launch keeps it alive (pinned) until it ends. */
typedef struct ptx_global_window {
    uint64_t base, size;
    unsigned char *host;
} ptx_global_window;
/* The allocation holding global address addr, or false (no fault raised:
 * the interpreter then asks rt->map(), which raises it). */
typedef bool (*ptx_window_fn)(const gg_sim_block *b, uint64_t addr, ptx_global_window *out);

/* Simulated time of one launch, whatever the host's speed. Every warp-
 * instruction a warp executes (one instruction for the lanes that run it
 * together) moves that warp's clock on by ns_per_insn, and a bar.sync
 * brings the block's warps to the latest of their clocks. A block's warps
 * start at block_start, the time the launch's scheduler (sim_launch.c)
 * gives the block a place on a multiprocessor; the block ends with its
 * latest warp (block_end). A warp reads its own clock in %clock, %clock64
 * and %globaltimer; a warp whose clock would pass insn_limit stops the
 * launch there (the watchdog), at the same instruction on any host. Clocks
 * count warp-instructions from the launch's start. */
typedef struct ptx_sim_clock {
    uint64_t start_ns;      /* device time when the launch began */
    double ns_per_insn;     /* > 0 */
    uint64_t insns;         /* the latest warp's clock so far, over all blocks run */
    uint64_t insn_limit;    /* how far a warp's clock may go (UINT64_MAX: no limit) */
    uint64_t block_start;   /* in: where the next block's warps start */
    uint64_t block_end;     /* out: where the block just run ended (its latest warp) */
    bool expired;           /* set when a warp reached insn_limit and stopped there */
} ptx_sim_clock;

/* The simulated time, in ns, of a warp that has run insns warp-instructions. */
static inline uint64_t ptx_sim_time_ns(const ptx_sim_clock *c, uint64_t insns)
{
    return c->start_ns + (uint64_t)((double)insns * c->ns_per_insn);
}

/* The simulated GPU runs at 1 GHz (its CLOCK_RATE attribute): one cycle
 * of %clock and %clock64 is one simulated ns. */
#define PTX_SIM_CYCLES_PER_NS 1u

/* Runs block b->block_idx of a launch of k: every thread of the block, as
 * warps of 32 lanes in lockstep. Faults go through b->rt->trap() (or
 * b->rt->map(), which raises ILLEGAL_ADDRESS itself); the block stops at
 * its first fault, when b->rt->cancelled() says so, and before the warp-
 * instruction that would pass clock->insn_limit (clock->expired set; the
 * caller raises the timeout). window may be NULL (every global access then
 * goes through rt->map()). printf output goes to printf_fifo (the
 * launch's; NULL: dropped). */
void ptx_run_block(const ptx_module *m, const ptx_kernel *k, const gg_sim_block *b,
                   ptx_window_fn window, ptx_sim_clock *clock, ptx_printf_fifo *printf_fifo);
/* ptx_run_block that also adds to *thread_insns (if not NULL) the
 * thread-instructions the block executed: for each instruction run, the
 * lanes whose guard predicate held (bench/ptx_interp.c's unit of work). */
void ptx_run_block_counted(const ptx_module *m, const ptx_kernel *k, const gg_sim_block *b,
                           ptx_window_fn window, ptx_sim_clock *clock, ptx_printf_fifo *printf_fifo,
                           uint64_t *thread_insns);
/* ptx_run_block with each thread's call stack stack_bytes (a launch's:
 * ptx_call_stack_bytes of its context's CU_LIMIT_STACK_SIZE; the two
 * above use the default limit's PTX_CALL_STACK_BYTES). Only a kernel that
 * makes recursive calls allocates it. */
void ptx_run_block_with_stack(const ptx_module *m, const ptx_kernel *k, const gg_sim_block *b,
                              ptx_window_fn window, ptx_sim_clock *clock,
                              ptx_printf_fifo *printf_fifo, uint64_t stack_bytes);

#endif
