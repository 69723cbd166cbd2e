/*
 * Kernel launches: validation and parameter capture at submission, then the
 * block loop on the stream worker, with the watchdog and the configured
 * misbehaviour.
 *
 * Parameters are copied when the launch is submitted, as CUDA does, using
 * the sizes the module declares with GG_SIM_KERNEL_PARAMS; each copy sits
 * 16-byte aligned in one buffer that lives as long as the launch.
 *
 * The watchdog measures run time from when the launch starts executing. For
 * C-function kernels it is wall-clock time, checked between blocks and by
 * rt->cancelled(); a block that never polls cannot be interrupted (host
 * code cannot be preempted safely). For PTX kernels (without a misbehave
 * rule) it is simulated time (ptx_sim_clock, ptx_module.h): each warp's
 * warp-instructions at the device's ns_per_warp_instruction, its block
 * starting when a place on a multiprocessor frees up (sim_block_slots.h:
 * a grid larger than the device runs in waves); the launch stops before
 * the instruction that would take a warp past watchdog_ms, the same one on
 * any host; rt->cancelled() still ends it on a destroy or reset. A PTX
 * launch takes the simulated time of its latest block in device time
 * (sim_timeline.c), which events measure; any other launch the wall-clock
 * time it ran.
 *
 * Ground truth (sim_truth.c): a launch ends COMPLETED only if every block
 * ran and it was never told to stop; a fault of its own (the kernel's, a
 * "fault" rule, the watchdog) ends it FAULTED / TIMED_OUT, as the context's
 * poisoner if its sim_ctx_poison won; a launch stopped by someone else
 * (another launch's poison, a destroy, a reset) ends DISCARDED.
 */
#include "sim_alloc.h"
#include "sim_block_slots.h"
#include "sim_core.h"
#include "ptx/ptx_inline.h"
#include "ptx/ptx_module.h"

#include <stdlib.h>
#include <string.h>

#define PARAM_ALIGN 16u

typedef struct sim_launch {
    sim_function *fn;           /* retained */
    sim_ctx *ctx;
    sim_stream *stream;
    gg_sim_dim3 grid, block;
    unsigned shared_bytes;
    void **params;
    unsigned char *buf;
    const sim_misbehave *rule;  /* NULL: behave */
    unsigned epoch;
    uint64_t clock;
    atomic_int fault;           /* sim_status of the first device fault */
    bool has_deadline;
    struct timespec deadline;
    ptx_sim_clock sim_clock;    /* PTX kernels: their simulated time */
    uint64_t stack_bytes;       /* PTX kernels: each thread's call stack (check_stack) */
    bool stopped;               /* worker only: told to stop by someone else */
    sim_truth_slot truth;       /* its ground-truth record */
    sim_alloc **pins;           /* allocations map() handed out */
    size_t npins, cappins;
} sim_launch;

void sim_launch_free(sim_launch *l)
{
    if (!l)
        return;
    /* An op freed unrun (its stream freed with work queued) never ran. */
    sim_launch_truth_discard(l);
    for (size_t i = 0; i < l->npins; i++)
        sim_alloc_release(l->pins[i]);
    free(l->pins);
    free(l->params);
    free(l->buf);
    sim_obj_release(&l->fn->obj);
    free(l);
}

sim_status sim_launch_truth_accept(sim_launch *l)
{
    return sim_truth_accept(l->stream, l->fn->name, l->rule ? l->rule->action : SIM_MB_NONE,
                            &l->truth);
}

void sim_launch_truth_discard(sim_launch *l)
{
    sim_truth_ended(&l->truth, GG_SIM_LAUNCH_DISCARDED, SIM_OK, false);
}

/* ---- submission ---------------------------------------------------------- */

static sim_status check_dims(const sim_device_config *c, const sim_launch_desc *d)
{
    const unsigned g[3] = { d->grid.x, d->grid.y, d->grid.z };
    const unsigned b[3] = { d->block.x, d->block.y, d->block.z };
    for (int i = 0; i < 3; i++) {
        if (g[i] == 0 || b[i] == 0 || g[i] > c->max_grid[i] || b[i] > c->max_block[i]) {
            sim_detail("launch of %s: grid (%u,%u,%u) block (%u,%u,%u) outside the device limits",
                       d->fn->name, g[0], g[1], g[2], b[0], b[1], b[2]);
            return SIM_ERR_INVALID_VALUE;
        }
    }
    if ((uint64_t)b[0] * b[1] * b[2] > c->max_threads_per_block) {
        sim_detail("launch of %s: %llu threads per block, the device allows %u", d->fn->name,
                   (unsigned long long)b[0] * b[1] * b[2], c->max_threads_per_block);
        return SIM_ERR_INVALID_VALUE;
    }
    /* Static (a PTX kernel's .shared) and dynamic shared memory together
     * against the per-block limit, as the driver checks at launch. */
    sim_function_info info;
    sim_function_get_info(d->fn, &info);
    if ((uint64_t)d->shared_bytes + info.static_shared > SIM_MAX_SHARED_PER_BLOCK) {
        sim_detail("launch of %s: %u bytes of dynamic and %u of static shared memory, the device "
                   "allows %u in all",
                   d->fn->name, d->shared_bytes, info.static_shared, SIM_MAX_SHARED_PER_BLOCK);
        return SIM_ERR_INVALID_VALUE;
    }
    return SIM_OK;
}

/* The largest .local a block of a recursive kernel may take (its threads'
 * fixed frames and call stacks): one block runs at a time per launch, and
 * the interpreter maps a large block's .local without touching it
 * (ptx_exec.c), so this bounds address space more than memory. A 1024-thread block under a 64 KiB limit (1 MiB
 * of the interpreter's stack each, ptx_inline.h) fits. */
#define SIM_MAX_BLOCK_STACK_BYTES (2ull << 30)

/* Each thread's call stack for a PTX kernel that makes recursive calls,
 * from the context's CU_LIMIT_STACK_SIZE as it is at submission (0 for
 * any other kernel: it pays nothing). A block whose stacks exceed
 * SIM_MAX_BLOCK_STACK_BYTES is refused with LAUNCH_OUT_OF_RESOURCES, the
 * driver's answer for a launch the device cannot hold. */
static sim_status check_stack(sim_ctx *c, const sim_launch_desc *d, uint64_t *stack_bytes)
{
    *stack_bytes = 0;
    const ptx_kernel *k = d->fn->ptx;
    if (!k || !k->nrfuncs)
        return SIM_OK;
    uint64_t limit = atomic_load(&c->stack_limit);
    *stack_bytes = ptx_call_stack_bytes(limit);
    uint64_t threads = (uint64_t)d->block.x * d->block.y * d->block.z;
    uint64_t total = threads * ptx_kernel_thread_local_bytes(k, *stack_bytes);
    if (total > SIM_MAX_BLOCK_STACK_BYTES) {
        sim_detail("launch of %s: %llu threads with a call stack of %llu bytes each (CU_LIMIT_STACK_SIZE "
                   "%llu) need %llu bytes of .local, more than the simulator gives a block (%llu)",
                   d->fn->name, (unsigned long long)threads, (unsigned long long)*stack_bytes,
                   (unsigned long long)limit, (unsigned long long)total,
                   (unsigned long long)SIM_MAX_BLOCK_STACK_BYTES);
        return SIM_ERR_LAUNCH_OUT_OF_RESOURCES;
    }
    return SIM_OK;
}

/* kernelParams must hold one non-NULL pointer per declared parameter. */
static sim_status check_params(const sim_function *f, void **params)
{
    if (f->nparams == 0)
        return SIM_OK;
    if (!params) {
        sim_detail("launch of %s: kernelParams is NULL but the kernel takes %u parameters",
                   f->name, f->nparams);
        return SIM_ERR_INVALID_VALUE;
    }
    for (unsigned i = 0; i < f->nparams; i++) {
        if (!params[i]) {
            sim_detail("launch of %s: kernelParams[%u] is NULL", f->name, i);
            return SIM_ERR_INVALID_VALUE;
        }
    }
    return SIM_OK;
}

static sim_status copy_params(sim_launch *l, void **params)
{
    const sim_function *f = l->fn;
    sim_status st = check_params(f, params);
    if (st || f->nparams == 0)
        return st;
    l->params = sim_calloc(f->nparams, sizeof *l->params);
    l->buf = sim_aligned_alloc(PARAM_ALIGN, f->param_bytes);
    if (!l->params || !l->buf)
        return SIM_ERR_OUT_OF_MEMORY;
    size_t off = 0;
    for (unsigned i = 0; i < f->nparams; i++) {
        memcpy(l->buf + off, params[i], f->sizes[i]);
        l->params[i] = l->buf + off;
        off += (f->sizes[i] + PARAM_ALIGN - 1) / PARAM_ALIGN * PARAM_ALIGN;
    }
    return SIM_OK;
}

/* Counts this launch against every rule naming the kernel; the first rule
 * whose launch number is reached applies. */
static const sim_misbehave *match_rule(const sim_function *f, int device)
{
    const sim_config *cfg = sim_get_config();
    const sim_misbehave *hit = NULL;
    for (int i = 0; cfg && i < cfg->nrules; i++) {
        sim_misbehave *r = &cfg->rules[i];
        if (strcmp(r->kernel, f->name) != 0 || (r->device >= 0 && r->device != device))
            continue;
        unsigned long long n = atomic_fetch_add(&r->seen, 1) + 1;
        if (!hit && (r->launch == 0 || r->launch == n))
            hit = r;
    }
    return hit;
}

sim_status sim_launch_submit(sim_stream *s, const sim_launch_desc *d)
{
    sim_ctx *c = s->ctx;
    sim_host_spend(sim_get_config()->host_us_launch);
    sim_status st = check_dims(c->dev->cfg, d);
    uint64_t stack_bytes = 0;
    if (st == SIM_OK)
        st = check_stack(c, d, &stack_bytes);
    if (st)
        return st;
    if (sim_fast()) {
        /* Validated like any launch, complete at once, the kernel not run. */
        st = check_params(d->fn, d->params);
        if (st)
            return st;
        return sim_stream_submit_done(s) ? SIM_OK : SIM_ERR_INVALID_HANDLE;
    }
    sim_launch *l = sim_calloc(1, sizeof *l);
    if (!l)
        return SIM_ERR_OUT_OF_MEMORY;
    sim_obj_retain(&d->fn->obj);
    l->fn = d->fn;
    l->ctx = c;
    l->stream = s;
    l->grid = d->grid;
    l->block = d->block;
    l->shared_bytes = d->shared_bytes;
    l->stack_bytes = stack_bytes;
    l->epoch = atomic_load(&c->epoch);
    atomic_init(&l->fault, SIM_OK);
    st = copy_params(l, d->params);
    sim_op *op = st ? NULL : sim_op_new(SIM_OP_LAUNCH);
    if (!op) {
        sim_launch_free(l);
        return st ? st : SIM_ERR_OUT_OF_MEMORY;
    }
    l->rule = match_rule(d->fn, c->dev->ordinal);
    op->u.launch = l;
    return sim_stream_submit_launch(s, op);
}

/* ---- the runtime a kernel sees ----------------------------------------- */

static void raise_fault(sim_launch *l, sim_status st)
{
    int none = SIM_OK;
    atomic_compare_exchange_strong(&l->fault, &none, (int)st);
}

/* Someone else ended the launch: its work was discarded or the context is
 * already dead. No fault of its own to report. */
static bool abandoned(const sim_launch *l)
{
    return atomic_load(&l->stream->discard) || sim_ctx_health(l->ctx) != SIM_OK;
}

static bool should_stop(void *p)
{
    sim_launch *l = p;
    return atomic_load(&l->fault) != SIM_OK || abandoned(l);
}

/* should_stop, remembering a stop ordered by someone else: a launch told to
 * stop did not run to its end, whatever its blocks did with the news. */
static bool must_stop(sim_launch *l)
{
    if (atomic_load(&l->fault) != SIM_OK)
        return true;
    if (abandoned(l)) {
        l->stopped = true;
        return true;
    }
    return false;
}

static bool watchdog_fired(sim_launch *l)
{
    if (l->has_deadline && sim_ts_passed(l->deadline)) {
        raise_fault(l, SIM_ERR_LAUNCH_TIMEOUT);
        return true;
    }
    return false;
}

static bool keep_pin(sim_launch *l, sim_alloc *a)
{
    for (size_t i = 0; i < l->npins; i++)
        if (l->pins[i] == a) {
            sim_alloc_release(a); /* already pinned once */
            return true;
        }
    if (l->npins == l->cappins) {
        size_t cap = l->cappins ? l->cappins * 2 : 4;
        sim_alloc **n = sim_realloc(l->pins, cap * sizeof *n);
        if (!n)
            return false;
        l->pins = n;
        l->cappins = cap;
    }
    l->pins[l->npins++] = a;
    return true;
}

static void *rt_map(const gg_sim_block *b, uint64_t dptr, size_t bytes)
{
    sim_launch *l = b->launch;
    sim_alloc *a = NULL;
    size_t off;
    void *p = NULL;
    /* A kernel sees an allocation's extent (allocation_granularity). */
    if ((a = sim_mem_find_kernel(l->ctx, dptr, l->clock, &off)) != NULL) {
        if (bytes <= a->extent - off)
            p = (char *)a->host + off;
        else
            sim_alloc_release(a);
    }
    if (!p && (p = sim_host_device_access(l->ctx, dptr, bytes)) != NULL)
        return p; /* page-locked host memory: not pinned per launch */
    if (p && !keep_pin(l, a)) {
        sim_alloc_release(a);
        raise_fault(l, SIM_ERR_LAUNCH_FAILED);
        return NULL;
    }
    if (!p)
        raise_fault(l, SIM_ERR_ILLEGAL_ADDRESS);
    return p;
}

static void rt_trap(const gg_sim_block *b, gg_sim_trap kind)
{
    sim_launch *l = b->launch;
    switch (kind) {
    case GG_SIM_TRAP_ASSERT: raise_fault(l, SIM_ERR_ASSERT); break;
    case GG_SIM_TRAP_LAUNCH_FAILED: raise_fault(l, SIM_ERR_LAUNCH_FAILED); break;
    case GG_SIM_TRAP_MISALIGNED_ADDRESS: raise_fault(l, SIM_ERR_MISALIGNED_ADDRESS); break;
    case GG_SIM_TRAP_ILLEGAL_ADDRESS:
    default: raise_fault(l, SIM_ERR_ILLEGAL_ADDRESS); break;
    }
}

static bool rt_cancelled(const gg_sim_block *b)
{
    sim_launch *l = b->launch;
    return must_stop(l) || watchdog_fired(l);
}

static const gg_sim_runtime g_runtime = { rt_map, rt_trap, rt_cancelled };

/* For PTX kernels: the whole allocation holding dptr, pinned for the
 * launch, so the interpreter checks its accesses without a lookup each. */
static bool ptx_window(const gg_sim_block *b, uint64_t dptr, ptx_global_window *out)
{
    sim_launch *l = b->launch;
    size_t off;
    sim_alloc *a = sim_mem_find_kernel(l->ctx, dptr, l->clock, &off);
    if (!a)
        return false;
    if (!keep_pin(l, a)) {
        sim_alloc_release(a);
        return false;
    }
    out->base = dptr - off;
    out->size = a->extent;
    out->host = (unsigned char *)a->host;
    return true;
}

/* ---- running ------------------------------------------------------------ */

/* Sleeps until us have passed, the watchdog fires or the launch stops. */
static void busy_for(sim_launch *l, uint64_t us)
{
    struct timespec until = sim_ts_add_us(sim_now(), us);
    if (l->has_deadline && sim_ts_diff_ms(l->deadline, until) > 0)
        until = l->deadline;
    sim_progress_wait(should_stop, l, &until);
    if (!must_stop(l))
        watchdog_fired(l);
}

/* A PTX block at its place in simulated time: it starts when the earliest
 * slot frees up, which is busy until the block's latest warp ends. False
 * when the launch must stop (the watchdog, a fault, a cancel). */
static bool run_ptx_block(sim_launch *l, const gg_sim_block *b, sim_block_slots *slots,
                          ptx_printf_fifo *printf_fifo)
{
    l->sim_clock.block_start = sim_block_slots_next(slots);
    ptx_run_block_with_stack(l->fn->mod->ptx, l->fn->ptx, b, ptx_window, &l->sim_clock, printf_fifo,
                             l->stack_bytes);
    sim_block_slots_done(slots, l->sim_clock.block_end);
    if (l->sim_clock.expired) {
        raise_fault(l, SIM_ERR_LAUNCH_TIMEOUT);
        return false;
    }
    return true;
}

static void run_blocks(sim_launch *l)
{
    gg_sim_block b;
    memset(&b, 0, sizeof b);
    void *shared = l->shared_bytes ? sim_malloc(l->shared_bytes) : NULL;
    if (l->shared_bytes && !shared) {
        raise_fault(l, SIM_ERR_LAUNCH_FAILED);
        return;
    }
    b.grid_dim = l->grid;
    b.block_dim = l->block;
    b.shared = shared;
    b.shared_bytes = l->shared_bytes;
    b.params = l->params;
    b.rt = &g_runtime;
    b.launch = l;
    bool slow = l->rule && l->rule->action == SIM_MB_SLOW;
    sim_block_slots slots = { 0 };
    if (l->fn->ptx) {
        sim_function_info info;
        sim_function_get_info(l->fn, &info);
        unsigned per_sm = sim_blocks_per_sm(l->block.x * l->block.y * l->block.z,
                                            (uint64_t)info.static_shared + l->shared_bytes);
        uint64_t nblocks = (uint64_t)l->grid.x * l->grid.y * l->grid.z;
        if (!sim_block_slots_init(&slots, l->ctx->dev->cfg->multiprocessors, per_sm, nblocks)) {
            raise_fault(l, SIM_ERR_LAUNCH_FAILED);
            free(shared);
            return;
        }
    }
    /* Kernel printf output: the process's stdout once the blocks ran, as
     * a driver prints it at the synchronisation after the kernel. */
    ptx_printf_fifo printf_fifo;
    ptx_printf_fifo_init(&printf_fifo, PTX_PRINTF_FIFO_BYTES);
    for (unsigned z = 0; z < l->grid.z; z++)
        for (unsigned y = 0; y < l->grid.y; y++)
            for (unsigned x = 0; x < l->grid.x; x++) {
                if (must_stop(l) || watchdog_fired(l))
                    goto out;
                b.block_idx = (gg_sim_dim3){ x, y, z };
                if (shared)
                    memset(shared, 0, l->shared_bytes);
                if (l->fn->ptx) {
                    if (!run_ptx_block(l, &b, &slots, &printf_fifo))
                        goto out;
                } else
                    l->fn->fn(&b);
                if (slow)
                    busy_for(l, l->rule->block_us);
            }
out:
    ptx_printf_fifo_flush(&printf_fifo, stdout);
    sim_block_slots_free(&slots);
    free(shared);
}

/* The launch's outcome: a device fault, or SIM_OK (also when abandoned). */
static sim_status run_body(sim_launch *l)
{
    sim_mb_action act = l->rule ? l->rule->action : SIM_MB_NONE;
    if (act == SIM_MB_FAULT)
        return l->rule->error;
    if (act == SIM_MB_HANG) {
        /* Never completes on its own: only the watchdog or a context
         * destroy/reset (which abandons the stream) ends it. */
        sim_progress_wait(should_stop, l, l->has_deadline ? &l->deadline : NULL);
        if (!must_stop(l))
            watchdog_fired(l);
        l->stopped = true; /* whatever ended it, it did not complete */
        return (sim_status)atomic_load(&l->fault);
    }
    run_blocks(l);
    if (act == SIM_MB_OVERRUN && !must_stop(l)) {
        if (l->has_deadline)
            busy_for(l, UINT64_MAX / 4); /* until the watchdog kills it */
        else
            busy_for(l, l->rule->has_block_us ? l->rule->block_us : 2000000u);
    }
    return (sim_status)atomic_load(&l->fault);
}

/* A PTX launch's simulated clock starts at its place in device time; on a
 * watchdog device (and without a misbehave rule, whose run time is the
 * wall clock's) it may run watchdog_ms of simulated time. */
static void start_sim_clock(sim_launch *l, const sim_device_config *cfg, uint64_t start_ns)
{
    ptx_sim_clock *c = &l->sim_clock;
    c->start_ns = start_ns;
    c->ns_per_insn = cfg->ns_per_warp_instruction;
    c->insns = 0;
    c->block_start = c->block_end = 0;
    c->expired = false;
    c->insn_limit = UINT64_MAX;
    if (cfg->watchdog && !l->rule)
        c->insn_limit = (uint64_t)((double)cfg->watchdog_ms * 1e6 / c->ns_per_insn);
}

uint64_t sim_launch_run(sim_stream *s, sim_launch *l, uint64_t clock, uint64_t start_ns)
{
    (void)s;
    const sim_device_config *cfg = l->ctx->dev->cfg;
    l->clock = clock;
    /* Started before the watchdog's clock starts: a launch the wall-clock
     * watchdog timed out has a recorded run time of at least its limit (one
     * killed in simulated time may have run for less wall-clock time). */
    sim_truth_started(&l->truth);
    start_sim_clock(l, cfg, start_ns);
    bool simulated = l->fn->ptx && !l->rule;
    l->has_deadline = cfg->watchdog && !simulated;
    if (l->has_deadline)
        l->deadline = sim_ts_add_us(sim_now(), (uint64_t)cfg->watchdog_ms * 1000u);
    uint64_t wall_start = sim_wall_ns();
    sim_status st = run_body(l);
    /* Its device time: a PTX kernel's latest block (a watchdog kill at
     * exactly the budget), anything else the wall clock's. */
    uint64_t took = sim_wall_ns() - wall_start;
    if (simulated)
        took = ptx_sim_time_ns(&l->sim_clock, l->sim_clock.expired ? l->sim_clock.insn_limit
                                                                    : l->sim_clock.insns) -
               start_ns;
    /* Unpin now: the allocations may be freed while the op is released. */
    for (size_t i = 0; i < l->npins; i++)
        sim_alloc_release(l->pins[i]);
    l->npins = 0;
    if (st != SIM_OK) {
        /* A winning poison writes the truth itself, before the error shows. */
        if (abandoned(l) || !sim_ctx_poison(l->ctx, st, l->epoch, &l->truth))
            sim_truth_ended(&l->truth,
                            st == SIM_ERR_LAUNCH_TIMEOUT ? GG_SIM_LAUNCH_TIMED_OUT
                                                         : GG_SIM_LAUNCH_FAULTED,
                            st, false);
    } else {
        sim_truth_ended(&l->truth, l->stopped ? GG_SIM_LAUNCH_DISCARDED : GG_SIM_LAUNCH_COMPLETED,
                        SIM_OK, false);
    }
    return took;
}
