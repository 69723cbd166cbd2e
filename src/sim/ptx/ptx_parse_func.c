/*
 * The parser's part for device functions and calls (see ptx_inline.h):
 * .func declarations and definitions, the .param slots of call sequences,
 * `call` itself, and the expansion of every kernel's calls once the module
 * is read.
 */
#include "ptx_opcode.h"
#include "ptx_parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool fail_at(parser *p, uint32_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail_at(parser *p, uint32_t line, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return ptx_parser_fail(p, line, why);
}

#define FAIL(p, ...) fail_at((p), (p)->lx.tok.line, __VA_ARGS__)

call_param *ptx_parser_find_call_param(parser *p, const ptx_token *t)
{
    for (size_t i = p->ncall_params; i-- > 0;)
        if (tok_eq(t, p->call_params[i].name))
            return &p->call_params[i];
    return NULL;
}

/* ( name, name, ... ) of a call: each a .param of the call's scope; the
 * slots go to offset[] and size[]. */
static bool parse_call_list(parser *p, unsigned max, unsigned *n, uint32_t *offset, uint32_t *size)
{
    next(p); /* '(' */
    *n = 0;
    while (!ptx_tok_punct(tok(p), ')')) {
        call_param *cp = tok(p)->kind == PTX_TOK_WORD ? ptx_parser_find_call_param(p, tok(p)) : NULL;
        if (!cp)
            return FAIL(p, "a call's arguments and return value must be .param names declared in its scope");
        if (*n == max)
            return FAIL(p, max == 1 ? "more than one return value" : "more than %u arguments", max);
        offset[*n] = cp->offset;
        size[*n] = cp->size;
        ++*n;
        next(p);
        if (ptx_tok_punct(tok(p), ','))
            next(p);
        else if (!ptx_tok_punct(tok(p), ')'))
            return FAIL(p, "expected ',' or ')' in a call");
    }
    next(p);
    return true;
}

/* call[.uni] [(ret),] callee[, (args)];  Recorded as a call site and
 * expanded once the module is read (ptx_inline.c). */
bool ptx_parser_call(parser *p, ptx_insn *in)
{
    if (in->pred != PTX_NO_REG)
        return FAIL(p, "a guarded call is not supported");
    next(p);
    ptx_call_site cs;
    memset(&cs, 0, sizeof cs);
    cs.line = in->line;
    if (ptx_tok_punct(tok(p), '(')) {
        if (!parse_call_list(p, 1, &cs.nrets, &cs.ret_offset, &cs.ret_size) || !ptx_parser_expect(p, ','))
            return false;
    }
    ptx_token name = *tok(p);
    if (name.kind != PTX_TOK_WORD || name.text[0] == '%' || name.text[0] == '.')
        return FAIL(p, "indirect calls (through a register) are not supported");
    next(p);
    if (ptx_tok_punct(tok(p), ',')) {
        next(p);
        if (!ptx_tok_punct(tok(p), '('))
            return FAIL(p, "expected the call's arguments");
        if (!parse_call_list(p, PTX_MAX_CALL_ARGS, &cs.nargs, cs.arg_offset, cs.arg_size))
            return false;
    }
    if (!ptx_tok_punct(tok(p), ';'))
        return FAIL(p, "call form not supported (prototypes and jump tables are not)");
    next(p);
    if (!ptx_parser_grow((void **)&p->calls, &p->capcalls, p->ncalls + 1, sizeof *p->calls) ||
        !(cs.callee = ptx_parser_dup_tok(&name)))
        return FAIL(p, "out of memory");
    p->calls[p->ncalls] = cs;
    in->op = PTX_OP_CALL;
    in->target = (uint32_t)p->ncalls++;
    return true;
}

/* After .param: [.align N] .type name[[count]]. The size in bytes and the
 * alignment (the type's size unless .align says otherwise). */
static bool parse_param_shape(parser *p, unsigned *size, unsigned *align, ptx_token *name)
{
    *align = 0;
    if (tok_eq(tok(p), ".align")) {
        next(p);
        int64_t a = 0; /* gcc -O3 does not see that parse_int sets it when it succeeds */
        if (!ptx_parser_int(p, &a))
            return false;
        if (a <= 0 || a > 4096 || (a & (a - 1)))
            return FAIL(p, "parameter alignment %lld: must be a power of two up to 4096", (long long)a);
        *align = (unsigned)a;
    }
    if (tok(p)->kind != PTX_TOK_WORD || tok(p)->text[0] != '.')
        return FAIL(p, "expected the parameter's type");
    ptx_type t = ptx_type_from_name(tok(p)->text + 1, tok(p)->len - 1);
    if (t == PTX_T_NONE || t == PTX_T_PRED)
        return FAIL(p, "parameter type not supported");
    *size = ptx_type_bytes(t);
    if (!*align)
        *align = *size;
    next(p);
    if (tok(p)->kind != PTX_TOK_WORD || tok(p)->text[0] == '.' || tok(p)->text[0] == '%')
        return FAIL(p, "parameter form not supported");
    *name = *tok(p);
    next(p);
    if (ptx_tok_punct(tok(p), '[')) {
        next(p);
        int64_t n = 0; /* gcc -O3 does not see that parse_int sets it when it succeeds */
        if (!ptx_parser_int(p, &n))
            return false;
        if (n <= 0 || (uint64_t)n * *size > 32764)
            return FAIL(p, "parameter size");
        *size *= (unsigned)n;
        if (!ptx_parser_expect(p, ']'))
            return false;
    }
    return true;
}

/* .param [.align N] .type name[[n]];  inside a call sequence: a slot of
 * the function's .local frame, named until its scope closes. */
bool ptx_parser_call_param_decl(parser *p)
{
    next(p);
    unsigned size = 0, align = 0;
    ptx_token name;
    if (!parse_param_shape(p, &size, &align, &name))
        return false;
    uint64_t off = align_up(p->k->local_bytes, align);
    if (off + size > (1u << 24))
        return FAIL(p, "too much .local memory");
    if (!ptx_parser_grow((void **)&p->call_params, &p->capcall_params, p->ncall_params + 1, sizeof *p->call_params))
        return FAIL(p, "out of memory");
    call_param *cp = &p->call_params[p->ncall_params];
    if (!(cp->name = ptx_parser_dup_tok(&name)))
        return FAIL(p, "out of memory");
    cp->offset = (uint32_t)off;
    cp->size = size;
    cp->depth = p->scope_depth;
    p->ncall_params++;
    p->k->local_bytes = (uint32_t)(off + size);
    return ptx_parser_expect(p, ';');
}

/* A scope closed: its .param and .reg names go (a register declared in
 * an inner { } may shadow an outer one of the same name, as nvcc's inline
 * PTX does with %r1: after the }, the name is the outer register again;
 * the inner one keeps its slot). */
void ptx_parser_close_scope(parser *p)
{
    p->scope_depth--;
    while (p->ncall_params > 0 && p->call_params[p->ncall_params - 1].depth > p->scope_depth)
        free(p->call_params[--p->ncall_params].name);
    while (p->nregs > 0 && p->regs[p->nregs - 1].depth > p->scope_depth)
        free(p->regs[--p->nregs].prefix);
}

/* ( .param .type name, .param .align N .b8 name[size], ... ), appended to
 * k's parameters (NULL: only checked). */
bool ptx_parser_params(parser *p, ptx_kernel *k)
{
    if (!ptx_parser_expect(p, '('))
        return false;
    while (!ptx_tok_punct(tok(p), ')')) {
        if (!tok_eq(tok(p), ".param"))
            return FAIL(p, "expected .param");
        next(p);
        unsigned size = 0, align = 0;
        ptx_token name;
        if (!parse_param_shape(p, &size, &align, &name))
            return false;
        if (k) {
            if (k->nparams == PTX_MAX_CALL_ARGS)
                return FAIL(p, "more than %u parameters are not supported", PTX_MAX_CALL_ARGS);
            unsigned *sizes = realloc(k->param_sizes, (k->nparams + 1) * sizeof *sizes);
            if (sizes)
                k->param_sizes = sizes;
            char **names = realloc(k->param_names, (k->nparams + 1) * sizeof *names);
            if (names)
                k->param_names = names;
            unsigned *aligns = realloc(k->param_aligns, (k->nparams + 1) * sizeof *aligns);
            if (aligns)
                k->param_aligns = aligns;
            if (!sizes || !names || !aligns || !(names[k->nparams] = ptx_parser_dup_tok(&name)))
                return FAIL(p, "out of memory");
            aligns[k->nparams] = align;
            sizes[k->nparams++] = size;
        }
        if (ptx_tok_punct(tok(p), ','))
            next(p);
        else if (!ptx_tok_punct(tok(p), ')'))
            return FAIL(p, "expected ',' or ')'");
    }
    next(p);
    return true;
}

static void free_function(ptx_function *f)
{
    ptx_kernel *k = &f->body;
    free(k->name);
    for (unsigned j = 0; j < k->nparams; j++)
        free(k->param_names[j]);
    free(k->param_names);
    free(k->param_sizes);
    free(k->param_aligns);
    free(k->code);
    memset(f, 0, sizeof *f);
}

static ptx_function *find_function(parser *p, const char *name)
{
    for (size_t i = 0; i < p->nfuncs; i++)
        if (!strcmp(p->funcs[i].body.name, name))
            return &p->funcs[i];
    return NULL;
}

/* Whether two signatures of one function agree (a declaration and its
 * definition). */
static bool same_signature(const ptx_function *a, const ptx_function *b)
{
    if (a->nrets != b->nrets || a->body.nparams != b->body.nparams)
        return false;
    for (unsigned i = 0; i < a->body.nparams; i++)
        if (a->body.param_sizes[i] != b->body.param_sizes[i])
            return false;
    return true;
}

/* .func [(.param ret)] name [(.param ...)] [.noreturn] { body } or ;
 * A declaration (external as __assertfail and vprintf, or ahead of its
 * definition) records the signature; a definition its body too. Calls are
 * checked against them once the module is read (ptx_inline.c). A .weak
 * function defined again (linked inputs each carrying a copy, as numba's
 * do) keeps its first definition, as a linker keeps one; any other second
 * definition is refused. */
bool ptx_parser_func(parser *p, bool weak)
{
    ptx_function f;
    memset(&f, 0, sizeof f);
    f.line = tok(p)->line;
    f.body.first_line = f.line;
    next(p);
    bool ok = true;
    if (ptx_tok_punct(tok(p), '(')) {
        ok = ptx_parser_params(p, &f.body);
        f.nrets = f.body.nparams;
        if (ok && f.nrets > 1)
            ok = fail_at(p, f.line, "more than one return value");
    }
    if (ok && (tok(p)->kind != PTX_TOK_WORD || tok(p)->text[0] == '.' || tok(p)->text[0] == '%'))
        ok = FAIL(p, "expected the function's name");
    if (ok && !(f.body.name = ptx_parser_dup_tok(tok(p))))
        ok = FAIL(p, "out of memory");
    if (ok) {
        next(p);
        if (ptx_tok_punct(tok(p), '('))
            ok = ptx_parser_params(p, &f.body);
    }
    while (ok && tok_eq(tok(p), ".noreturn"))
        next(p);
    ptx_function *known = ok ? find_function(p, f.body.name) : NULL;
    if (ok && known && !same_signature(known, &f))
        ok = fail_at(p, f.line, "%s declared twice with different parameters", f.body.name);
    if (ok && ptx_tok_punct(tok(p), ';')) {
        next(p);
        if (!known && !ptx_parser_grow((void **)&p->funcs, &p->capfuncs, p->nfuncs + 1, sizeof *p->funcs))
            ok = FAIL(p, "out of memory");
        if (ok && !known) {
            p->funcs[p->nfuncs++] = f;
            return true;
        }
    } else if (ok) {
        if (known && known->defined && (weak || known->weak)) {
            /* Read the copy's body, then drop it. */
            ptx_function copy = f;
            memset(&f, 0, sizeof f);
            ptx_kernel *was = p->k;
            p->k = &copy.body;
            ok = ptx_parser_function_body(p);
            p->k = was;
            free_function(&copy);
            return ok;
        }
        if (known && known->defined)
            ok = fail_at(p, f.line, "function %s defined twice", f.body.name);
        if (ok && !known && !ptx_parser_grow((void **)&p->funcs, &p->capfuncs, p->nfuncs + 1, sizeof *p->funcs))
            ok = FAIL(p, "out of memory");
        if (ok) {
            if (known)
                free_function(known);
            else
                known = &p->funcs[p->nfuncs++];
            f.defined = true;
            f.weak = weak;
            *known = f;
            p->k = &known->body;
            return ptx_parser_function_body(p);
        }
    }
    free_function(&f);
    return ok;
}

/* Every kernel's calls expanded (ptx_inline.c), relocations applied. */
bool ptx_parser_inline_calls(parser *p)
{
    ptx_module *m = p->m;
    m->extern_shared_offset = (uint32_t)align_up(m->static_shared_bytes, 16);
    size_t budget = PTX_MAX_INLINED_INSNS;
    ptx_inline_sort_functions(p->funcs, p->nfuncs);
    for (size_t i = 0; i < m->nkernels; i++) {
        ptx_inline_error e;
        if (!ptx_inline_kernel(&m->kernels[i], p->funcs, p->nfuncs, p->calls, p->ncalls,
                               m->extern_shared_offset, &budget, &e))
            return fail_at(p, e.line, "%s", e.why);
    }
    return true;
}

void ptx_parser_free_functions(parser *p)
{
    for (size_t i = 0; i < p->nfuncs; i++)
        free_function(&p->funcs[i]);
    free(p->funcs);
    for (size_t i = 0; i < p->ncalls; i++)
        free(p->calls[i].callee);
    free(p->calls);
    p->funcs = NULL;
    p->calls = NULL;
    p->nfuncs = p->ncalls = 0;
}
