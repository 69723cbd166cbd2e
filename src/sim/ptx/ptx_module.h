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

/* Whether a module image is PTX text: after blanks and comments it starts
 * with ".version", or it is text (its first 256 bytes, up to a NUL, are
 * printable) that contains ".entry" before its end (NUL). */
bool ptx_image_is_ptx(const char *image);

/* Parses len bytes of PTX. On failure returns NULL and writes into err
 * "PTX line N: why: <the line's text>". */
ptx_module *ptx_module_parse(const char *src, size_t len, char *err, size_t errlen);
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

/* Runs block b->block_idx of a launch of k: every thread of the block, as
 * warps of 32 lanes in lockstep. Faults go through b->rt->trap() (or
 * b->rt->map(), which raises ILLEGAL_ADDRESS itself); the block stops at
 * its first fault and when b->rt->cancelled() says so. window may be NULL
 * (every global access then goes through rt->map()). */
void ptx_run_block(const ptx_module *m, const ptx_kernel *k, const gg_sim_block *b,
                   ptx_window_fn window);
/* ptx_run_block that also adds to *thread_insns (if not NULL) the
 * thread-instructions the block executed: for each instruction run, the
 * lanes whose guard predicate held (bench/ptx_interp.c's unit of work). */
void ptx_run_block_counted(const ptx_module *m, const ptx_kernel *k, const gg_sim_block *b,
                           ptx_window_fn window, uint64_t *thread_insns);

#endif
