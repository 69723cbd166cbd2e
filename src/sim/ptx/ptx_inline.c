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
    ptx_inline_error *err;
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

/* The frame of one body being copied. */
typedef struct frame {
    uint32_t reg_base;
    uint32_t frame_base;
    const uint32_t *param_slot;  /* a function's: where each parameter lives; kernel: NULL */
} frame;

static void relocate_operand(const inliner *c, const frame *f, ptx_insn *in, ptx_operand *o)
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
            o->reg = PTX_NO_REG;
            in->space = PTX_SPACE_LOCAL;
        }
        break;
    default:
        break;
    }
    if (o->reloc & PTX_RELOC_FRAME)
        o->imm += f->frame_base;
    if (o->reloc & PTX_RELOC_EXTERN_SHARED)
        o->imm += c->extern_shared_offset;
    o->reloc = 0;
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
    for (const active_call *a = chain; a; a = a->outer)
        if (a->fn == fn)
            return refuse(c, cs->line, "recursive call to %s: calls are inlined at load time, so recursion is not supported",
                          cs->callee);
    if (depth >= PTX_MAX_CALL_DEPTH)
        return refuse(c, cs->line, "calls nested deeper than %u", PTX_MAX_CALL_DEPTH);
    const ptx_kernel *b = &fn->body;
    if (cs->nrets != fn->nrets)
        return refuse(c, cs->line, "%s returns %u value(s), the call takes %u", cs->callee, fn->nrets, cs->nrets);
    if (cs->nargs != b->nparams - fn->nrets)
        return refuse(c, cs->line, "wrong number of arguments: %s takes %u, the call passes %u", cs->callee,
                      b->nparams - fn->nrets, cs->nargs);
    uint32_t slots[PTX_MAX_CALL_ARGS + 1];
    for (unsigned i = 0; i < b->nparams; i++) {
        bool is_ret = i < fn->nrets;
        uint32_t size = is_ret ? cs->ret_size : cs->arg_size[i - fn->nrets];
        if (size != b->param_sizes[i])
            return refuse(c, cs->line, "%s %u of %s is %u bytes, the call's is %u bytes",
                          is_ret ? "the return value" : "parameter", is_ret ? 0u : i - fn->nrets,
                          cs->callee, b->param_sizes[i], size);
        slots[i] = f->frame_base + (is_ret ? cs->ret_offset : cs->arg_offset[i - fn->nrets]);
    }
    frame inner = {
        .reg_base = f->reg_base + caller->nregs,
        .frame_base = f->frame_base + (uint32_t)((caller->local_bytes + 15u) & ~15u),
        .param_slot = slots,
    };
    active_call link = { fn, chain };
    return emit_body(c, b, &inner, &link, depth + 1);
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
    if (body->local_bytes && f->frame_base + body->local_bytes > c->max_frame)
        c->max_frame = f->frame_base + body->local_bytes;
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
        for (unsigned o = 0; o < in->nops && o < PTX_MAX_OPERANDS; o++)
            relocate_operand(c, f, in, &in->ops[o]);
        if (is_function && in->op == PTX_OP_RET) {
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
    frame top = { 0, 0, NULL };
    if (!emit_body(&c, k, &top, NULL, 0)) {
        free(c.out);
        return false;
    }
    free(k->code);
    k->code = c.out;
    k->ncode = c.nout;
    k->nregs = (uint32_t)c.max_regs;
    k->local_bytes = (uint32_t)c.max_frame;
    *budget -= c.nout;
    return true;
}
