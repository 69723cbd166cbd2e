/*
 * Inlining of calls at load time: see ptx_inline.h for the layout and the
 * limits.
 */
#include "ptx_inline.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAME_BYTES (1u << 24)   /* .local per thread, as the parser's bound */
#define MAX_REGISTERS (1u << 20)

typedef struct inliner {
    const ptx_function *funcs;
    size_t nfuncs;
    const ptx_call_site *calls;
    size_t ncalls;
    uint32_t extern_shared_offset;
    size_t budget;
    ptx_insn *out;
    size_t nout, capout;
    uint64_t max_regs, max_frame;
    uint64_t max_fp_frame;   /* while a recursive function's body is emitted: its frame's end */
    ptx_inline_error *err;
    /* Recursion: recursive[i] for funcs[i] (it can reach itself; -1: not
     * known yet); rfunc_of[i] its index in rfuncs once a call needs it,
     * else -1. */
    signed char *recursive;
    long *rfunc_of;
    const ptx_function **rfunc_fn;
    ptx_rfunc *rfuncs;
    size_t nrfuncs, caprfuncs;
    ptx_rcall *rcalls;
    size_t nrcalls, caprcalls;
} inliner;

/* The chain of functions being expanded, innermost first: for recursion. */
typedef struct active_call {
    const ptx_function *fn;
    const struct active_call *outer;
} active_call;

static bool refuse(inliner *c, uint32_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool refuse(inliner *c, uint32_t line, const char *fmt, ...)
{
    c->err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err->why, sizeof c->err->why, fmt, ap);
    va_end(ap);
    return false;
}

static ptx_insn *emit(inliner *c, uint32_t line)
{
    if (c->nout >= c->budget) {
        refuse(c, line, "more than %u instructions once calls are inlined", PTX_MAX_INLINED_INSNS);
        return NULL;
    }
    if (c->nout == c->capout) {
        size_t n = c->capout ? c->capout * 2 : 256;
        ptx_insn *a = realloc(c->out, n * sizeof *a);
        if (!a) {
            refuse(c, line, "out of memory");
            return NULL;
        }
        c->out = a;
        c->capout = n;
    }
    return &c->out[c->nout++];
}

static int compare_name(const void *key, const void *elem)
{
    return strcmp(key, ((const ptx_function *)elem)->body.name);
}

/* funcs are sorted by name (ptx_inline.h): a large module's many calls
 * stay cheap to resolve. */
static const ptx_function *find_function(const inliner *c, const char *name)
{
    return c->nfuncs ? bsearch(name, c->funcs, c->nfuncs, sizeof *c->funcs, compare_name) : NULL;
}

/* The frame of one body being copied. In a recursive function's body
 * (fp_reg != PTX_NO_REG) frame_base and param_slot are offsets from the
 * lane's frame pointer, held in register fp_reg; elsewhere they are fixed
 * .local offsets. */
typedef struct frame {
    uint32_t reg_base;
    uint32_t frame_base;
    const uint32_t *param_slot;  /* a function's: where each parameter lives; kernel: NULL */
    uint32_t fp_reg;
    uint32_t rret;               /* the body of rfuncs[rret]: its ret is a real return; else UINT32_MAX */
} frame;

/* A frame address in a recursive function: [fp + offset], or mov of a
 * .local symbol's address becoming add fp, offset. Other uses of a .local
 * symbol's address there are refused. */
static bool relocate_frame_address(inliner *c, const frame *f, ptx_insn *in, ptx_operand *o)
{
    if (o->kind == PTX_OPND_ADDR && o->reg == PTX_NO_REG) {
        o->reg = f->fp_reg;
        o->imm += f->frame_base;
        return true;
    }
    if (o->kind == PTX_OPND_IMM && in->op == PTX_OP_MOV && o == &in->ops[1] &&
        (ptx_type_bytes((ptx_type)in->type) == 8 || ptx_type_bytes((ptx_type)in->type) == 4)) {
        in->op = PTX_OP_ADD;
        in->type = ptx_type_bytes((ptx_type)in->type) == 8 ? PTX_T_U64 : PTX_T_U32;
        in->nops = 3;
        in->ops[2] = *o;
        in->ops[2].imm += f->frame_base;
        in->ops[2].reloc = 0; /* applied (the caller's loop reaches ops[2] next) */
        memset(o, 0, sizeof *o);
        o->kind = PTX_OPND_REG;
        o->reg = f->fp_reg;
        return true;
    }
    return refuse(c, in->line, "this use of a .local address in a recursive function is not supported");
}

static bool relocate_operand(inliner *c, const frame *f, ptx_insn *in, ptx_operand *o)
{
    switch (o->kind) {
    case PTX_OPND_REG:
        o->reg += f->reg_base;
        break;
    case PTX_OPND_ADDR:
        if (o->reg != PTX_NO_REG)
            o->reg += f->reg_base;
        break;
    case PTX_OPND_VEC:
        for (unsigned e = 0; e < o->count; e++)
            o->vec[e] += f->reg_base;
        break;
    case PTX_OPND_PARAM:
        if (f->param_slot) {
            /* A function's parameter: the caller's argument slot. */
            o->kind = PTX_OPND_ADDR;
            o->imm += f->param_slot[o->reg];
            o->reg = f->fp_reg;
            in->space = PTX_SPACE_LOCAL;
        }
        break;
    default:
        break;
    }
    bool ok = true;
    if ((o->reloc & PTX_RELOC_FRAME) && f->fp_reg != PTX_NO_REG)
        ok = relocate_frame_address(c, f, in, o);
    else if (o->reloc & PTX_RELOC_FRAME)
        o->imm += f->frame_base;
    if (o->reloc & PTX_RELOC_EXTERN_SHARED)
        o->imm += c->extern_shared_offset;
    o->reloc = 0;
    return ok;
}

static ptx_operand local_slot(uint32_t offset)
{
    ptx_operand o;
    memset(&o, 0, sizeof o);
    o.kind = PTX_OPND_ADDR;
    o.reg = PTX_NO_REG;
    o.imm = offset;
    return o;
}

static bool emit_body(inliner *c, const ptx_kernel *body, const frame *f, const active_call *chain,
                      unsigned depth);
static bool emit_recursive_call(inliner *c, const ptx_call_site *cs, const ptx_function *fn,
                                const frame *f);

/* vprintf(format, args) and __assertfail(...): implemented by the
 * interpreter, so the call becomes one instruction. */
static bool emit_builtin_call(inliner *c, const ptx_call_site *cs, const frame *f, bool *handled)
{
    *handled = true;
    if (!strcmp(cs->callee, "__assertfail")) {
        ptx_insn *in = emit(c, cs->line);
        if (!in)
            return false;
        memset(in, 0, sizeof *in);
        in->op = PTX_OP_ASSERTFAIL;
        in->pred = PTX_NO_REG;
        in->line = cs->line;
        return true;
    }
    if (!strcmp(cs->callee, "vprintf")) {
        if (cs->nargs != 2 || cs->arg_size[0] != 8 || cs->arg_size[1] != 8 ||
            (cs->nrets && cs->ret_size != 4))
            return refuse(c, cs->line, "vprintf takes two .b64 arguments and returns a .b32");
        if (f->fp_reg != PTX_NO_REG)
            return refuse(c, cs->line, "printf inside a recursive function is not supported");
        ptx_insn *in = emit(c, cs->line);
        if (!in)
            return false;
        memset(in, 0, sizeof *in);
        in->op = PTX_OP_VPRINTF;
        in->pred = PTX_NO_REG;
        in->line = cs->line;
        in->space = PTX_SPACE_LOCAL;
        in->nops = 3;
        in->ops[0] = local_slot(f->frame_base + cs->ret_offset);
        if (!cs->nrets)
            in->ops[0].kind = PTX_OPND_NONE;
        in->ops[1] = local_slot(f->frame_base + cs->arg_offset[0]);
        in->ops[2] = local_slot(f->frame_base + cs->arg_offset[1]);
        return true;
    }
    *handled = false;
    return true;
}

/* The call passes what fn takes: as many return values and arguments, of
 * the same sizes. */
static bool check_signature(inliner *c, const ptx_call_site *cs, const ptx_function *fn)
{
    const ptx_kernel *b = &fn->body;
    if (cs->nrets != fn->nrets)
        return refuse(c, cs->line, "%s returns %u value(s), the call takes %u", cs->callee, fn->nrets, cs->nrets);
    if (cs->nargs != b->nparams - fn->nrets)
        return refuse(c, cs->line, "wrong number of arguments: %s takes %u, the call passes %u", cs->callee,
                      b->nparams - fn->nrets, cs->nargs);
    for (unsigned i = 0; i < b->nparams; i++) {
        bool is_ret = i < fn->nrets;
        uint32_t size = is_ret ? cs->ret_size : cs->arg_size[i - fn->nrets];
        if (size != b->param_sizes[i])
            return refuse(c, cs->line, "%s %u of %s is %u bytes, the call's is %u bytes",
                          is_ret ? "the return value" : "parameter", is_ret ? 0u : i - fn->nrets,
                          cs->callee, b->param_sizes[i], size);
    }
    return true;
}

/* Whether funcs[start] can reach itself through calls (it belongs to a
 * cycle of the call graph: direct or mutual recursion): a walk over the
 * calls of the functions it reaches, made the first time a call to it is
 * met and remembered (c->recursive: -1 not known yet). */
static bool is_recursive(inliner *c, size_t start, uint32_t line, bool *out)
{
    if (c->recursive[start] >= 0) {
        *out = c->recursive[start] != 0;
        return true;
    }
    size_t n = c->nfuncs;
    bool *seen = calloc(n, sizeof *seen);
    size_t *todo = malloc(n * sizeof *todo); /* each function once, start included */
    if (!seen || !todo) {
        free(seen);
        free(todo);
        return refuse(c, line, "out of memory");
    }
    bool found = false;
    size_t ntodo = 0;
    todo[ntodo++] = start;
    seen[start] = true;
    while (ntodo && !found) {
        const ptx_kernel *b = &c->funcs[todo[--ntodo]].body;
        for (size_t j = 0; j < b->ncode && !found; j++) {
            if (b->code[j].op != PTX_OP_CALL)
                continue;
            const ptx_function *callee = find_function(c, c->calls[b->code[j].target].callee);
            if (!callee || !callee->defined)
                continue;
            size_t ci = (size_t)(callee - c->funcs);
            found = ci == start;
            if (!seen[ci]) {
                seen[ci] = true;
                todo[ntodo++] = ci;
            }
        }
    }
    free(seen);
    free(todo);
    c->recursive[start] = found;
    *out = found;
    return true;
}

static bool emit_call(inliner *c, const ptx_insn *call, const ptx_kernel *caller, const frame *f,
                      const active_call *chain, unsigned depth)
{
    const ptx_call_site *cs = &c->calls[call->target];
    bool handled;
    bool ok = emit_builtin_call(c, cs, f, &handled);
    if (handled || !ok)
        return ok;
    const ptx_function *fn = find_function(c, cs->callee);
    if (!fn)
        return refuse(c, cs->line, "call to unknown function %s", cs->callee);
    if (!fn->defined)
        return refuse(c, cs->line, "call to %s, which has no body in this module (external functions are not supported)",
                      cs->callee);
    if (!check_signature(c, cs, fn))
        return false;
    bool recursive = false;
    if (!is_recursive(c, (size_t)(fn - c->funcs), cs->line, &recursive))
        return false;
    if (recursive)
        return emit_recursive_call(c, cs, fn, f);
    /* Not recursive: no chain can hold it twice; kept as a guard. */
    for (const active_call *a = chain; a; a = a->outer)
        if (a->fn == fn)
            return refuse(c, cs->line, "recursive call to %s the call graph analysis missed", cs->callee);
    if (depth >= PTX_MAX_CALL_DEPTH)
        return refuse(c, cs->line, "calls nested deeper than %u", PTX_MAX_CALL_DEPTH);
    const ptx_kernel *b = &fn->body;
    uint32_t slots[PTX_MAX_CALL_ARGS + 1];
    for (unsigned i = 0; i < b->nparams; i++) {
        bool is_ret = i < fn->nrets;
        slots[i] = f->frame_base + (is_ret ? cs->ret_offset : cs->arg_offset[i - fn->nrets]);
    }
    frame inner = {
        .reg_base = f->reg_base + caller->nregs,
        .frame_base = f->frame_base + (uint32_t)((caller->local_bytes + 15u) & ~15u),
        .param_slot = slots,
        .fp_reg = f->fp_reg,
        .rret = UINT32_MAX,
    };
    active_call link = { fn, chain };
    return emit_body(c, b, &inner, &link, depth + 1);
}

static bool grow_array(void **a, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 8;
    void *p = realloc(*a, n * elem);
    if (!p)
        return false;
    *a = p;
    *cap = n;
    return true;
}

/* The ptx_rfunc of fn, made on its first call: its body is emitted after
 * the kernel's (emit_recursive_bodies). */
static long rfunc_index(inliner *c, const ptx_function *fn, uint32_t line)
{
    size_t i = (size_t)(fn - c->funcs);
    if (c->rfunc_of[i] >= 0)
        return c->rfunc_of[i];
    if (!grow_array((void **)&c->rfuncs, &c->caprfuncs, c->nrfuncs + 1, sizeof *c->rfuncs)) {
        refuse(c, line, "out of memory");
        return -1;
    }
    const ptx_function **fns = realloc(c->rfunc_fn, (c->nrfuncs + 1) * sizeof *fns);
    if (!fns) {
        refuse(c, line, "out of memory");
        return -1;
    }
    c->rfunc_fn = fns;
    ptx_rfunc *r = &c->rfuncs[c->nrfuncs];
    memset(r, 0, sizeof *r);
    c->rfunc_fn[c->nrfuncs] = fn;
    c->rfunc_of[i] = (long)c->nrfuncs;
    return (long)c->nrfuncs++;
}

/* A call to a recursive function: one PTX_OP_RCALL, with its call site. */
static bool emit_recursive_call(inliner *c, const ptx_call_site *cs, const ptx_function *fn,
                                const frame *f)
{
    long rf = rfunc_index(c, fn, cs->line);
    if (rf < 0)
        return false;
    if (!grow_array((void **)&c->rcalls, &c->caprcalls, c->nrcalls + 1, sizeof *c->rcalls))
        return refuse(c, cs->line, "out of memory");
    ptx_rcall *rc = &c->rcalls[c->nrcalls];
    memset(rc, 0, sizeof *rc);
    rc->arg_src = malloc((cs->nargs ? cs->nargs : 1) * sizeof *rc->arg_src);
    if (!rc->arg_src)
        return refuse(c, cs->line, "out of memory");
    c->nrcalls++;
    rc->rfunc = (uint32_t)rf;
    rc->caller_fp = f->fp_reg;
    rc->ret_dst = f->frame_base + cs->ret_offset;
    rc->nargs = cs->nargs;
    for (unsigned i = 0; i < cs->nargs; i++)
        rc->arg_src[i] = f->frame_base + cs->arg_offset[i];
    ptx_insn *in = emit(c, cs->line);
    if (!in)
        return false;
    memset(in, 0, sizeof *in);
    in->op = PTX_OP_RCALL;
    in->pred = PTX_NO_REG;
    in->line = cs->line;
    in->target = (uint32_t)(c->nrcalls - 1);
    return true;
}

/* Copies body's code at the end of c->out, relocated into frame f, its
 * calls expanded. A function's `ret` becomes a branch past its copy. */
static bool emit_body(inliner *c, const ptx_kernel *body, const frame *f, const active_call *chain,
                      unsigned depth)
{
    if ((uint64_t)f->reg_base + body->nregs > MAX_REGISTERS)
        return refuse(c, body->first_line, "too many registers once calls are inlined");
    if ((uint64_t)f->frame_base + body->local_bytes > MAX_FRAME_BYTES)
        return refuse(c, body->first_line, "too much .local memory once calls are inlined");
    if (f->reg_base + body->nregs > c->max_regs)
        c->max_regs = f->reg_base + body->nregs;
    uint64_t *frame_end = f->fp_reg != PTX_NO_REG ? &c->max_fp_frame : &c->max_frame;
    if (body->local_bytes && f->frame_base + body->local_bytes > *frame_end)
        *frame_end = f->frame_base + body->local_bytes;
    /* at[i]: where body instruction i starts in c->out; this body's own
     * branches (their places in c->out in branch[]) are patched once every
     * instruction has its place. */
    size_t *at = malloc((body->ncode + 1) * 2 * sizeof *at);
    if (!at)
        return refuse(c, body->first_line, "out of memory");
    size_t *branch = at + body->ncode + 1, nbranch = 0;
    bool is_function = f->param_slot != NULL;
    bool ok = true;
    for (size_t i = 0; i < body->ncode && ok; i++) {
        const ptx_insn *src = &body->code[i];
        at[i] = c->nout;
        if (src->op == PTX_OP_CALL) {
            ok = emit_call(c, src, body, f, chain, depth);
            continue;
        }
        ptx_insn *in = emit(c, src->line);
        if (!in) {
            ok = false;
            break;
        }
        *in = *src;
        if (in->pred != PTX_NO_REG)
            in->pred += f->reg_base;
        for (unsigned o = 0; o < in->nops && o < PTX_MAX_OPERANDS && ok; o++)
            ok = relocate_operand(c, f, in, &in->ops[o]);
        if (f->rret != UINT32_MAX && in->op == PTX_OP_RET) {
            /* A recursive function's own ret: a real return. */
            in->op = PTX_OP_RRET;
            in->target = f->rret;
            in->nops = 0;
        } else if (is_function && in->op == PTX_OP_RET) {
            /* Back to the caller: past this copy (body->ncode is the
             * index one past the last instruction). */
            in->op = PTX_OP_BRA;
            in->target = (uint32_t)body->ncode;
            in->nops = 1;
        }
        if (in->op == PTX_OP_BRA)
            branch[nbranch++] = c->nout - 1;
    }
    at[body->ncode] = c->nout;
    for (size_t i = 0; ok && i < nbranch; i++)
        c->out[branch[i]].target = (uint32_t)at[c->out[branch[i]].target];
    free(at);
    return ok;
}

static int compare_functions(const void *a, const void *b)
{
    return strcmp(((const ptx_function *)a)->body.name, ((const ptx_function *)b)->body.name);
}

void ptx_inline_sort_functions(ptx_function *funcs, size_t nfuncs)
{
    if (nfuncs > 1)
        qsort(funcs, nfuncs, sizeof *funcs, compare_functions);
}

/* Emits the body of every recursive function a call needs (bodies may
 * call further ones: the list grows while it is walked), each with its
 * own register window after every register used so far, its frame
 * relative to its frame pointer, and its layout (ptx_ir.h, ptx_rfunc). */
static bool emit_recursive_bodies(inliner *c)
{
    for (size_t r = 0; r < c->nrfuncs; r++) {
        const ptx_function *fn = c->rfunc_fn[r];
        const ptx_kernel *b = &fn->body;
        ptx_rfunc *rf = &c->rfuncs[r];
        rf->nparams = b->nparams;
        rf->nrets = fn->nrets;
        rf->param_offset = malloc((b->nparams ? b->nparams : 1) * 2 * sizeof *rf->param_offset);
        if (!rf->param_offset)
            return refuse(c, fn->line, "out of memory");
        rf->param_size = rf->param_offset + (b->nparams ? b->nparams : 1);
        uint64_t params_end = 0;
        for (unsigned i = 0; i < b->nparams; i++) {
            /* 16-aligned: every parameter's own alignment divides it. */
            rf->param_offset[i] = (uint32_t)params_end;
            rf->param_size[i] = b->param_sizes[i];
            params_end = (params_end + b->param_sizes[i] + 15u) & ~(uint64_t)15u;
        }
        if ((uint64_t)c->max_regs + 1 > MAX_REGISTERS || params_end > MAX_FRAME_BYTES)
            return refuse(c, fn->line, "too many registers or parameters for the recursive function %s",
                          b->name);
        rf->reg_base = (uint32_t)c->max_regs;
        rf->fp_reg = rf->reg_base;
        rf->entry = (uint32_t)c->nout;
        c->max_regs = rf->reg_base + 1u;
        c->max_fp_frame = params_end;
        frame f = {
            .reg_base = rf->reg_base + 1u,
            .frame_base = (uint32_t)params_end,
            .param_slot = rf->param_offset,
            .fp_reg = rf->fp_reg,
            .rret = (uint32_t)r,
        };
        if (!emit_body(c, b, &f, NULL, 0))
            return false;
        rf = &c->rfuncs[r]; /* emit_body may have grown rfuncs */
        rf->nregs = (uint32_t)(c->max_regs - rf->reg_base);
        uint64_t save = (c->max_fp_frame + 15u) & ~(uint64_t)15u;
        uint64_t trailer = save + 8ull * rf->nregs;
        uint64_t total = (trailer + 16u + 15u) & ~(uint64_t)15u;
        /* Against the largest stack: a smaller limit faults at the call. */
        if (total > ptx_call_stack_bytes(PTX_MAX_STACK_LIMIT))
            return refuse(c, fn->line, "one call of the recursive function %s takes %llu bytes of stack, more than the %llu a thread can have",
                          b->name, (unsigned long long)total,
                          (unsigned long long)ptx_call_stack_bytes(PTX_MAX_STACK_LIMIT));
        rf->save_offset = (uint32_t)save;
        rf->trailer_offset = (uint32_t)trailer;
        rf->activation_bytes = (uint32_t)total;
    }
    return true;
}

static void free_recursion(inliner *c)
{
    ptx_kernel k = { .rfuncs = c->rfuncs, .nrfuncs = c->nrfuncs, .rcalls = c->rcalls, .nrcalls = c->nrcalls };
    ptx_kernel_free_calls(&k);
    c->rfuncs = NULL;
    c->rcalls = NULL;
    c->nrfuncs = c->nrcalls = 0;
}

void ptx_kernel_free_calls(ptx_kernel *k)
{
    for (size_t i = 0; i < k->nrfuncs; i++)
        free(k->rfuncs[i].param_offset);
    free(k->rfuncs);
    for (size_t i = 0; i < k->nrcalls; i++)
        free(k->rcalls[i].arg_src);
    free(k->rcalls);
    k->rfuncs = NULL;
    k->rcalls = NULL;
    k->nrfuncs = k->nrcalls = 0;
}

bool ptx_inline_kernel(ptx_kernel *k, const ptx_function *funcs, size_t nfuncs,
                       const ptx_call_site *calls, size_t ncalls, uint32_t extern_shared_offset,
                       size_t *budget, ptx_inline_error *err)
{
    inliner c = {
        .funcs = funcs, .nfuncs = nfuncs, .calls = calls, .ncalls = ncalls,
        .extern_shared_offset = extern_shared_offset, .budget = *budget, .err = err,
    };
    err->line = 0;
    err->why[0] = '\0';
    frame top = { 0, 0, NULL, PTX_NO_REG, UINT32_MAX };
    size_t slots = nfuncs ? nfuncs : 1;
    c.recursive = malloc(slots * sizeof *c.recursive);
    c.rfunc_of = malloc(slots * sizeof *c.rfunc_of);
    bool ok = c.recursive && c.rfunc_of;
    if (!ok)
        refuse(&c, k->first_line, "out of memory");
    for (size_t i = 0; ok && i < nfuncs; i++) {
        c.recursive[i] = -1;
        c.rfunc_of[i] = -1;
    }
    ok = ok && emit_body(&c, k, &top, NULL, 0) && emit_recursive_bodies(&c);
    uint64_t stack_base = (c.max_frame + 15u) & ~(uint64_t)15u;
    if (ok && c.nrfuncs && stack_base + ptx_call_stack_bytes(PTX_MAX_STACK_LIMIT) > MAX_FRAME_BYTES)
        ok = refuse(&c, k->first_line, "too much .local memory with the call stack");
    free(c.recursive);
    free(c.rfunc_of);
    free(c.rfunc_fn);
    if (!ok) {
        free(c.out);
        free_recursion(&c);
        return false;
    }
    free(k->code);
    ptx_kernel_free_calls(k);
    k->code = c.out;
    k->ncode = c.nout;
    k->nregs = (uint32_t)c.max_regs;
    k->local_bytes = (uint32_t)c.max_frame;
    k->rfuncs = c.rfuncs;
    k->nrfuncs = c.nrfuncs;
    k->rcalls = c.rcalls;
    k->nrcalls = c.nrcalls;
    k->stack_base = (uint32_t)stack_base;
    *budget -= c.nout;
    return true;
}
