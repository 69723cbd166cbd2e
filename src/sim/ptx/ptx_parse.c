/*
 * The PTX parser: module directives, declarations, kernels and their
 * instructions, decoded once into ptx_ir.h's form. Whatever it does not
 * understand is refused with its line, so a loaded module never meets an
 * unknown instruction at run time.
 */
#include "ptx_opcode.h"
#include "ptx_parser.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SYMBOL_BYTES (64ull << 20)  /* one .global / .const variable */
#define MAX_REGISTERS (1u << 20)


/* ---- helpers ------------------------------------------------------------ */

static bool fail_at(parser *p, uint32_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail_at(parser *p, uint32_t line, const char *fmt, ...)
{
    if (p->failed)
        return false;
    p->failed = true;
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    const char *text;
    size_t len;
    ptx_lexer_line_text(&p->lx, line, &text, &len);
    if (len > 160)
        len = 160;
    snprintf(p->err, p->errlen, "PTX line %u: %s: %.*s", (unsigned)line, why, (int)len, text);
    return false;
}

#define FAIL(p, ...) fail_at((p), (p)->lx.tok.line, __VA_ARGS__)

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *a = realloc(*arr, n * elem);
    if (!a)
        return false;
    memset((char *)a + *cap * elem, 0, (n - *cap) * elem);
    *arr = a;
    *cap = n;
    return true;
}

static char *dup_tok(const ptx_token *t)
{
    char *s = malloc(t->len + 1);
    if (s) {
        memcpy(s, t->text, t->len);
        s[t->len] = '\0';
    }
    return s;
}


static bool expect_punct(parser *p, char c)
{
    if (!ptx_tok_punct(tok(p), c))
        return FAIL(p, "expected '%c'", c);
    next(p);
    return true;
}

/* Skips what is left of the current token's line (directives such as
 * .version or .loc end with their line, not with ';'). */
static void skip_line(parser *p, uint32_t line)
{
    while (tok(p)->kind != PTX_TOK_END && tok(p)->line == line)
        next(p);
}

static bool skip_to_semicolon(parser *p)
{
    while (tok(p)->kind != PTX_TOK_END && !ptx_tok_punct(tok(p), ';'))
        next(p);
    return expect_punct(p, ';');
}

static bool hexval(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0 || n > 16)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
        else return false;
        v = v << 4 | d;
    }
    *out = v;
    return true;
}

static uint64_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t f64_bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static float bits_f32(uint64_t b) { uint32_t u = (uint32_t)b; float f; memcpy(&f, &u, 4); return f; }
static double bits_f64(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }

/* A numeric literal as the bits of a value of type t. */
static bool parse_number(const ptx_token *t, bool negative, ptx_type type, uint64_t *bits)
{
    const char *s = t->text;
    size_t n = t->len;
    if (t->kind != PTX_TOK_WORD || n == 0 || !(s[0] >= '0' && s[0] <= '9'))
        return false;
    bool want_float = ptx_type_is_float(type);
    if (n == 10 && (s[1] == 'f' || s[1] == 'F') && s[0] == '0') {
        uint64_t v;
        if (!hexval(s + 2, 8, &v))
            return false;
        float f = bits_f32(v);
        if (negative)
            f = -f;
        if (!want_float)
            return false;
        *bits = type == PTX_T_F64 ? f64_bits((double)f) : f32_bits(f);
        return true;
    }
    if (n == 18 && (s[1] == 'd' || s[1] == 'D') && s[0] == '0') {
        uint64_t v;
        if (!hexval(s + 2, 16, &v))
            return false;
        double d = bits_f64(v);
        if (negative)
            d = -d;
        if (!want_float)
            return false;
        *bits = type == PTX_T_F32 ? f32_bits((float)d) : f64_bits(d);
        return true;
    }
    if (memchr(s, '.', n) || (!(n > 1 && (s[1] == 'x' || s[1] == 'X')) && (memchr(s, 'e', n) || memchr(s, 'E', n)))) {
        char buf[64];
        if (n >= sizeof buf || !want_float)
            return false;
        memcpy(buf, s, n);
        buf[n] = '\0';
        char *end;
        double d = strtod(buf, &end);
        if (*end)
            return false;
        if (negative)
            d = -d;
        *bits = type == PTX_T_F32 ? f32_bits((float)d) : f64_bits(d);
        return true;
    }
    if (want_float)
        return false; /* PTX writes float constants as 0f / 0d / decimal floats */
    if (n > 0 && (s[n - 1] == 'U' || s[n - 1] == 'u'))
        n--;
    uint64_t v = 0;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        if (!hexval(s + 2, n - 2, &v))
            return false;
    } else if (n > 1 && s[0] == '0') {
        for (size_t i = 1; i < n; i++) {
            if (s[i] < '0' || s[i] > '7' || v > (UINT64_MAX >> 3))
                return false;
            v = v << 3 | (uint64_t)(s[i] - '0');
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
                return false;
            v = v * 10 + (uint64_t)(s[i] - '0');
        }
    }
    *bits = negative ? (uint64_t)0 - v : v;
    return true;
}

/* An integer constant in a declaration or an address offset. */
static bool parse_int(parser *p, int64_t *out)
{
    bool neg = false;
    if (ptx_tok_punct(tok(p), '-')) {
        neg = true;
        next(p);
    } else if (ptx_tok_punct(tok(p), '+')) {
        next(p);
    }
    uint64_t v;
    if (!parse_number(tok(p), neg, PTX_T_S64, &v))
        return FAIL(p, "expected an integer");
    next(p);
    *out = (int64_t)v;
    return true;
}

/* For ptx_parse_func.c (see ptx_parser.h). */
bool ptx_parser_fail(parser *p, uint32_t line, const char *why) { return fail_at(p, line, "%s", why); }
bool ptx_parser_grow(void **arr, size_t *cap, size_t need, size_t elem) { return grow(arr, cap, need, elem); }
char *ptx_parser_dup_tok(const ptx_token *t) { return dup_tok(t); }
bool ptx_parser_expect(parser *p, char c) { return expect_punct(p, c); }
bool ptx_parser_int(parser *p, int64_t *out) { return parse_int(p, out); }

static symbol *find_symbol(parser *p, const ptx_token *t)
{
    for (size_t i = p->nsyms; i-- > 0;)
        if (tok_eq(t, p->syms[i].name))
            return &p->syms[i];
    return NULL;
}

static bool add_symbol(parser *p, const ptx_token *name, ptx_space space, uint64_t offset,
                       bool is_extern_shared)
{
    if (!grow((void **)&p->syms, &p->capsyms, p->nsyms + 1, sizeof *p->syms))
        return FAIL(p, "out of memory");
    symbol *s = &p->syms[p->nsyms];
    if (!(s->name = dup_tok(name)))
        return FAIL(p, "out of memory");
    s->space = space;
    s->offset = offset;
    s->is_extern_shared = is_extern_shared;
    p->nsyms++;
    return true;
}


/* ---- declarations of variables ------------------------------------------ */

/* Writes one initialiser element of type t at dst. */
static bool parse_init_element(parser *p, ptx_type t, unsigned char *dst)
{
    bool neg = false;
    if (ptx_tok_punct(tok(p), '-')) {
        neg = true;
        next(p);
    }
    uint64_t v;
    if (!parse_number(tok(p), neg, t, &v))
        return FAIL(p, "initialiser element not supported (numbers only)");
    next(p);
    memcpy(dst, &v, ptx_type_bytes(t)); /* little-endian host, as the device */
    return true;
}

/* `= value` or `= { v, {v, v}, ... }` (nested braces for arrays of arrays),
 * elements written one after the other. */
static bool parse_initialiser(parser *p, ptx_type t, unsigned char *data, uint64_t bytes)
{
    unsigned esize = ptx_type_bytes(t);
    uint64_t at = 0;
    int depth = 0;
    do {
        if (ptx_tok_punct(tok(p), '{')) {
            depth++;
            next(p);
            continue;
        }
        if (ptx_tok_punct(tok(p), '}')) {
            if (depth-- == 0)
                return FAIL(p, "unbalanced '}' in an initialiser");
            next(p);
        } else {
            if (at + esize > bytes)
                return FAIL(p, "more initialisers than elements");
            if (!parse_init_element(p, t, data + at))
                return false;
            at += esize;
        }
        if (depth > 0 && ptx_tok_punct(tok(p), ','))
            next(p);
    } while (depth > 0 && !p->failed && tok(p)->kind != PTX_TOK_END);
    return !p->failed;
}

/* After the state space word: [.align N] .type name[dims]... [= init] ;
 * .global and .const go to the module's data, .shared to the block's
 * shared layout, .local to each thread's local layout. */
/* The module's .weak .global/.const variable called name, or NULL. */
static ptx_variable *weak_variable(ptx_module *m, const ptx_token *name)
{
    for (size_t i = 0; i < m->nvars; i++)
        if (m->vars[i].weak && tok_eq(name, m->vars[i].name))
            return &m->vars[i];
    return NULL;
}

/* A .global/.const variable's declaration. A .weak one defined again (each
 * of several linked inputs carrying it, as numba's environment pointers)
 * is the first definition: one variable, as a linker keeps one; the later
 * one's initialiser is read and dropped, and it must have the same size. */
static bool parse_variable(parser *p, ptx_space space, bool is_extern, bool is_weak)
{
    uint32_t line = tok(p)->line;
    unsigned align = 0;
    next(p);
    if (tok_eq(tok(p), ".align")) {
        next(p);
        int64_t a = 0; /* gcc -O3 does not see that parse_int sets it when it succeeds */
        if (!parse_int(p, &a))
            return false;
        if (a <= 0 || a > 4096 || (a & (a - 1)))
            return FAIL(p, "alignment %lld", (long long)a);
        align = (unsigned)a;
    }
    if (tok(p)->kind != PTX_TOK_WORD || tok(p)->text[0] != '.')
        return FAIL(p, "expected the variable's type");
    ptx_type t = ptx_type_from_name(tok(p)->text + 1, tok(p)->len - 1);
    if (t == PTX_T_NONE || t == PTX_T_PRED)
        return FAIL(p, "variable type not supported");
    unsigned esize = ptx_type_bytes(t);
    if (!align)
        align = esize;
    next(p);
    ptx_token name = *tok(p);
    if (name.kind != PTX_TOK_WORD || name.text[0] == '.' || name.text[0] == '%')
        return FAIL(p, "expected the variable's name");
    next(p);
    uint64_t elements = 1;
    bool unsized = false;
    while (ptx_tok_punct(tok(p), '[')) {
        next(p);
        if (ptx_tok_punct(tok(p), ']')) {
            unsized = true;
        } else {
            int64_t d = 0; /* gcc -O3 does not see that parse_int sets it when it succeeds */
            if (!parse_int(p, &d))
                return false;
            if (d <= 0 || (uint64_t)d > MAX_SYMBOL_BYTES / esize / elements)
                return FAIL(p, "array size %lld", (long long)d);
            elements *= (uint64_t)d;
        }
        if (!expect_punct(p, ']'))
            return false;
    }
    uint64_t bytes = elements * esize;
    if (unsized && !(is_extern && space == PTX_SPACE_SHARED))
        return fail_at(p, line, "an array without size is only supported for extern .shared");
    if (is_extern && space != PTX_SPACE_SHARED)
        return fail_at(p, line, ".extern variables other than .shared are not supported");
    ptx_module *m = p->m;
    if (space == PTX_SPACE_SHARED) {
        if (is_extern) {
            m->has_extern_shared = true;
            if (!add_symbol(p, &name, space, 0, true))
                return false;
        } else {
            uint64_t off = align_up(m->static_shared_bytes, align);
            if (off + bytes > 0xFFFFFFFFull)
                return fail_at(p, line, "too much .shared memory");
            if (!add_symbol(p, &name, space, off, false))
                return false;
            m->static_shared_bytes = (uint32_t)(off + bytes);
            /* What the kernel (or, at module scope, every kernel) needs:
             * cuFuncGetAttribute's SHARED_SIZE_BYTES, the launch limit. */
            uint32_t *own = p->in_entry ? &p->k->static_shared_bytes : &m->module_shared_bytes;
            *own = (uint32_t)(align_up(*own, align) + bytes);
        }
        if (!ptx_tok_punct(tok(p), ';'))
            return FAIL(p, ".shared variables take no initialiser");
        return expect_punct(p, ';');
    }
    if (space == PTX_SPACE_LOCAL) {
        uint64_t off = align_up(p->k->local_bytes, align);
        if (off + bytes > (1u << 24))
            return fail_at(p, line, "too much .local memory");
        if (!add_symbol(p, &name, space, off, false))
            return false;
        p->k->local_bytes = (uint32_t)(off + bytes);
        return expect_punct(p, ';');
    }
    /* .global / .const: bytes in the module, zero unless initialised. */
    ptx_variable *first = is_weak ? weak_variable(m, &name) : NULL;
    if (first) {
        if (first->bytes != bytes || first->space != space)
            return fail_at(p, line, ".weak variable defined again with another size or space");
        if (ptx_tok_punct(tok(p), '=')) {
            next(p);
            unsigned char *scratch = calloc(1, bytes ? bytes : 1);
            bool ok = scratch && parse_initialiser(p, t, scratch, bytes);
            free(scratch);
            if (!ok)
                return p->failed ? false : fail_at(p, line, "out of memory");
        }
        return expect_punct(p, ';');
    }
    uint64_t off = align_up(m->data_bytes, align < 16 ? 16 : align);
    if (off + bytes > MAX_SYMBOL_BYTES * 4)
        return fail_at(p, line, "too much .global/.const data");
    unsigned char *data = realloc(m->data, off + bytes ? off + bytes : 1);
    if (!data)
        return fail_at(p, line, "out of memory");
    memset(data + m->data_bytes, 0, off + bytes - m->data_bytes);
    m->data = data;
    m->data_bytes = off + bytes;
    if (!grow((void **)&m->vars, &p->capvars, m->nvars + 1, sizeof *m->vars))
        return fail_at(p, line, "out of memory");
    ptx_variable *v = &m->vars[m->nvars];
    if (!(v->name = dup_tok(&name)))
        return fail_at(p, line, "out of memory");
    v->space = space;
    v->offset = off;
    v->bytes = bytes;
    v->align = align;
    v->weak = is_weak;
    m->nvars++;
    if (!add_symbol(p, &name, space, PTX_WINDOW_MODULE + off, false))
        return false;
    if (ptx_tok_punct(tok(p), '=')) {
        next(p);
        if (!parse_initialiser(p, t, data + off, bytes))
            return false;
    }
    return expect_punct(p, ';');
}

/* ---- registers ---------------------------------------------------------- */

/* True for ".reg.b16": the type joined to the directive, as cuda_fp16.h's
 * inline PTX writes it. */
static bool is_joined_reg_decl(const ptx_token *t)
{
    return t->kind == PTX_TOK_WORD && t->len > 5 && !memcmp(t->text, ".reg.", 5);
}

/* .reg .type %r<128>;  or  .reg .type %a, %b;  (or .reg.type ...) */
static bool parse_reg_decl(parser *p)
{
    ptx_token head = *tok(p);
    next(p);
    if (is_joined_reg_decl(&head)) {
        if (ptx_type_from_name(head.text + 5, head.len - 5) == PTX_T_NONE)
            return FAIL(p, "register type not supported");
    } else {
        if (tok(p)->kind != PTX_TOK_WORD || tok(p)->text[0] != '.' ||
            ptx_type_from_name(tok(p)->text + 1, tok(p)->len - 1) == PTX_T_NONE)
            return FAIL(p, "register type not supported");
        next(p);
    }
    for (;;) {
        ptx_token name = *tok(p);
        if (name.kind != PTX_TOK_WORD || name.text[0] == '.')
            return FAIL(p, "expected a register name");
        next(p);
        uint32_t count = 0;
        if (ptx_tok_punct(tok(p), '<')) {
            next(p);
            int64_t n = 0; /* gcc -O3 does not see that parse_int sets it when it succeeds */
            if (!parse_int(p, &n))
                return false;
            if (n <= 0 || n > (int64_t)MAX_REGISTERS)
                return FAIL(p, "register count");
            count = (uint32_t)n;
            if (!expect_punct(p, '>'))
                return false;
        }
        uint32_t slots = count ? count : 1;
        if (p->k->nregs + (uint64_t)slots > MAX_REGISTERS)
            return FAIL(p, "too many registers");
        if (!grow((void **)&p->regs, &p->capregs, p->nregs + 1, sizeof *p->regs))
            return FAIL(p, "out of memory");
        reg_decl *r = &p->regs[p->nregs];
        if (!(r->prefix = dup_tok(&name)))
            return FAIL(p, "out of memory");
        r->count = count;
        r->base = p->k->nregs;
        r->depth = p->scope_depth;
        p->nregs++;
        p->k->nregs += slots;
        if (!ptx_tok_punct(tok(p), ','))
            break;
        next(p);
    }
    return expect_punct(p, ';');
}

/* The slot of register token t, or PTX_NO_REG. */
static uint32_t find_register(parser *p, const ptx_token *t)
{
    size_t digits = 0;
    while (digits < t->len && t->text[t->len - 1 - digits] >= '0' && t->text[t->len - 1 - digits] <= '9')
        digits++;
    for (size_t i = p->nregs; i-- > 0;) {
        const reg_decl *r = &p->regs[i];
        if (r->count == 0) {
            if (tok_eq(t, r->prefix))
                return r->base;
            continue;
        }
        size_t plen = strlen(r->prefix);
        if (digits == 0 || plen != t->len - digits || memcmp(t->text, r->prefix, plen))
            continue;
        if (digits > 1 && t->text[plen] == '0')
            continue; /* %r01 is not %r1 */
        uint64_t n = 0;
        for (size_t d = plen; d < t->len && n < UINT32_MAX; d++)
            n = n * 10 + (uint64_t)(t->text[d] - '0');
        if (n < r->count)
            return r->base + (uint32_t)n;
    }
    return PTX_NO_REG;
}

static const struct { const char *name; ptx_sreg sreg; } k_sregs[] = {
    { "%tid.x", PTX_SREG_TID_X }, { "%tid.y", PTX_SREG_TID_Y }, { "%tid.z", PTX_SREG_TID_Z },
    { "%ntid.x", PTX_SREG_NTID_X }, { "%ntid.y", PTX_SREG_NTID_Y }, { "%ntid.z", PTX_SREG_NTID_Z },
    { "%ctaid.x", PTX_SREG_CTAID_X }, { "%ctaid.y", PTX_SREG_CTAID_Y }, { "%ctaid.z", PTX_SREG_CTAID_Z },
    { "%nctaid.x", PTX_SREG_NCTAID_X }, { "%nctaid.y", PTX_SREG_NCTAID_Y }, { "%nctaid.z", PTX_SREG_NCTAID_Z },
    { "%laneid", PTX_SREG_LANEID }, { "%warpid", PTX_SREG_WARPID }, { "%nwarpid", PTX_SREG_NWARPID },
    { "WARP_SZ", PTX_SREG_WARPSZ },
    { "%clock", PTX_SREG_CLOCK }, { "%clock64", PTX_SREG_CLOCK64 },
    { "%globaltimer", PTX_SREG_GLOBALTIMER }, { "%globaltimer_lo", PTX_SREG_GLOBALTIMER_LO },
    { "%globaltimer_hi", PTX_SREG_GLOBALTIMER_HI },
    { "%lanemask_eq", PTX_SREG_LANEMASK_EQ }, { "%lanemask_le", PTX_SREG_LANEMASK_LE },
    { "%lanemask_lt", PTX_SREG_LANEMASK_LT }, { "%lanemask_ge", PTX_SREG_LANEMASK_GE },
    { "%lanemask_gt", PTX_SREG_LANEMASK_GT },
    { "%dynamic_smem_size", PTX_SREG_DYNAMIC_SMEM_SIZE }, { "%total_smem_size", PTX_SREG_TOTAL_SMEM_SIZE },
};

static int find_sreg(const ptx_token *t)
{
    for (size_t i = 0; i < sizeof k_sregs / sizeof k_sregs[0]; i++)
        if (tok_eq(t, k_sregs[i].name))
            return (int)k_sregs[i].sreg;
    return -1;
}

/* ---- operands ----------------------------------------------------------- */

static int find_param(parser *p, const ptx_token *t)
{
    for (unsigned i = 0; i < p->k->nparams; i++)
        if (tok_eq(t, p->k->param_names[i]))
            return (int)i;
    return -1;
}

/* The address of symbol s as seen from an instruction in `space`
 * (generic: the symbol's generic address). */
static uint64_t symbol_address(const symbol *s, ptx_space space)
{
    if (space != PTX_SPACE_GENERIC)
        return s->offset;
    if (s->space == PTX_SPACE_SHARED)
        return PTX_WINDOW_SHARED + s->offset;
    if (s->space == PTX_SPACE_LOCAL)
        return PTX_WINDOW_LOCAL + s->offset;
    return s->offset;
}

/* The relocation a symbol's address needs once the layout is known. */
static uint8_t symbol_reloc(const symbol *s)
{
    return (uint8_t)((s->is_extern_shared ? PTX_RELOC_EXTERN_SHARED : 0) |
                     (s->space == PTX_SPACE_LOCAL ? PTX_RELOC_FRAME : 0));
}

/* [reg], [reg+imm], [symbol+imm], [imm], [param+imm] */
static bool parse_address(parser *p, ptx_insn *in, int idx)
{
    ptx_operand *o = &in->ops[idx];
    next(p); /* '[' */
    o->kind = PTX_OPND_ADDR;
    o->reg = PTX_NO_REG;
    ptx_token t = *tok(p);
    int64_t disp = 0, base_disp, param_base = 0;
    uint32_t param_size = 0;    /* a call's .param: its size and place in the frame */
    bool have_base = false;
    if (t.kind == PTX_TOK_WORD && t.text[0] == '%') {
        o->reg = find_register(p, &t);
        if (o->reg == PTX_NO_REG)
            return FAIL(p, "unknown register %.*s", (int)t.len, t.text);
        next(p);
        have_base = true;
    } else if (t.kind == PTX_TOK_WORD && !(t.text[0] >= '0' && t.text[0] <= '9')) {
        int param = find_param(p, &t);
        symbol *s = param < 0 ? find_symbol(p, &t) : NULL;
        call_param *cp = param < 0 ? ptx_parser_find_call_param(p, &t) : NULL;
        if (param >= 0) {
            if (in->space != PTX_SPACE_PARAM)
                return FAIL(p, "a kernel parameter reached through another state space");
            o->kind = PTX_OPND_PARAM;
            o->reg = (uint32_t)param;
        } else if (cp) {
            /* A call's argument or return value: a slot of this frame. */
            if ((in->op != PTX_OP_ST && in->op != PTX_OP_LD) || in->space != PTX_SPACE_PARAM)
                return FAIL(p, "a call's .param is only reached by ld.param and st.param");
            in->space = PTX_SPACE_LOCAL;
            o->reloc = PTX_RELOC_FRAME;
            param_size = cp->size;
            param_base = disp = cp->offset;
        } else if (s) {
            if (in->space != PTX_SPACE_GENERIC && in->space != s->space &&
                !(in->space == PTX_SPACE_GLOBAL && s->space == PTX_SPACE_CONST) &&
                !(in->space == PTX_SPACE_CONST && s->space == PTX_SPACE_GLOBAL))
                return FAIL(p, "symbol %.*s used in another state space", (int)t.len, t.text);
            disp = (int64_t)symbol_address(s, (ptx_space)in->space);
            o->reloc = symbol_reloc(s);
        } else {
            return FAIL(p, "unknown symbol %.*s", (int)t.len, t.text);
        }
        next(p);
        have_base = true;
    }
    if (!have_base || ptx_tok_punct(tok(p), '+') || ptx_tok_punct(tok(p), '-')) {
        if (have_base && ptx_tok_punct(tok(p), '+'))
            next(p); /* "+-4" is how nvcc writes a negative offset */
        int64_t d = 0; /* gcc -O3 does not see that parse_int sets it when it succeeds */
        if (!parse_int(p, &d))
            return false;
        disp += d;
    }
    o->imm = (uint64_t)disp;
    base_disp = disp - param_base;
    if (param_size && (base_disp < 0 || (uint64_t)base_disp + (uint64_t)ptx_type_bytes((ptx_type)in->type) * in->vec > param_size))
        return FAIL(p, "access beyond the parameter's declared size");
    if (o->kind == PTX_OPND_PARAM && (disp < 0 || (uint64_t)disp + (uint64_t)ptx_type_bytes((ptx_type)in->type) * in->vec >
                                                        p->k->param_sizes[o->reg]))
        return FAIL(p, "access beyond the parameter's declared size");
    return expect_punct(p, ']');
}

static bool parse_register_operand(parser *p, ptx_operand *o)
{
    ptx_token t = *tok(p);
    int sreg = find_sreg(&t);
    if (sreg >= 0) {
        o->kind = PTX_OPND_SREG;
        o->sreg = (ptx_sreg)sreg;
    } else {
        o->kind = PTX_OPND_REG;
        o->reg = find_register(p, &t);
        if (o->reg == PTX_NO_REG)
            return FAIL(p, "unknown register %.*s", (int)t.len, t.text);
    }
    next(p);
    return true;
}

/* The type an immediate operand idx is written in. */
static ptx_type operand_type(const ptx_insn *in, int idx)
{
    switch (in->op) {
    case PTX_OP_CVT: return (ptx_type)in->type2;
    case PTX_OP_SHL: case PTX_OP_SHR: return idx == 2 ? PTX_T_U32 : (ptx_type)in->type;
    case PTX_OP_SELP: return idx == 3 ? PTX_T_PRED : (ptx_type)in->type;
    case PTX_OP_SETP: return idx == 3 ? PTX_T_PRED : (ptx_type)in->type;
    case PTX_OP_SET: return idx == 3 ? PTX_T_PRED : (ptx_type)in->type2;
    case PTX_OP_BAR_RED: return idx == 0 ? (ptx_type)in->type : idx == in->nops - 1 ? PTX_T_PRED : PTX_T_U32;
    case PTX_OP_MUL: case PTX_OP_MAD:
        if ((in->mods & PTX_MOD_WIDE) && idx == 3)
            return ptx_type_bytes((ptx_type)in->type) == 4
                       ? (ptx_type_is_signed((ptx_type)in->type) ? PTX_T_S64 : PTX_T_U64)
                       : (ptx_type_is_signed((ptx_type)in->type) ? PTX_T_S32 : PTX_T_U32);
        return (ptx_type)in->type;
    default: return (ptx_type)in->type;
    }
}

static bool parse_operand(parser *p, ptx_insn *in, int idx)
{
    ptx_operand *o = &in->ops[idx];
    ptx_token t = *tok(p);
    if (ptx_tok_punct(&t, '[')) {
        if (in->op == PTX_OP_ST && idx != 0)
            return FAIL(p, "address in an unexpected place");
        return parse_address(p, in, idx);
    }
    if (ptx_tok_punct(&t, '{')) {
        next(p);
        o->kind = PTX_OPND_VEC;
        while (!ptx_tok_punct(tok(p), '}')) {
            if (o->count == 4)
                return FAIL(p, "more than 4 vector elements");
            ptx_token r = *tok(p);
            uint32_t reg = r.kind == PTX_TOK_WORD ? find_register(p, &r) : PTX_NO_REG;
            bool neg_imm = ptx_tok_punct(&r, '-');
            if (neg_imm) {
                next(p);
                r = *tok(p);
            }
            uint64_t bits;
            if (reg == PTX_NO_REG && in->op == PTX_OP_ST && p->nvec_imm < 4 &&
                parse_number(&r, neg_imm, (ptx_type)in->type, &bits)) {
                if (p->k->nregs >= MAX_REGISTERS)
                    return FAIL(p, "too many registers");
                reg = p->k->nregs++;
                p->vec_imm[p->nvec_imm].reg = reg;
                p->vec_imm[p->nvec_imm++].bits = bits;
            }
            if (reg == PTX_NO_REG)
                return FAIL(p, "vector element %.*s is not a register", (int)r.len, r.text);
            o->vec[o->count++] = reg;
            next(p);
            if (ptx_tok_punct(tok(p), ','))
                next(p);
            else if (!ptx_tok_punct(tok(p), '}'))
                return FAIL(p, "expected ',' or '}' in a vector");
        }
        next(p);
        return true;
    }
    if (ptx_tok_punct(&t, '!')) {
        next(p);
        if (!parse_register_operand(p, o))
            return false;
        o->negate = 1;
        return true;
    }
    bool neg = false;
    if (ptx_tok_punct(&t, '-')) {
        neg = true;
        next(p);
        t = *tok(p);
    }
    if (t.kind != PTX_TOK_WORD)
        return FAIL(p, "unexpected operand");
    if (t.text[0] >= '0' && t.text[0] <= '9') {
        o->kind = PTX_OPND_IMM;
        ptx_type ty = operand_type(in, idx);
        if (ty == PTX_T_PRED)
            ty = PTX_T_U32;
        if (!parse_number(&t, neg, ty, &o->imm))
            return FAIL(p, "bad constant %.*s for a .%s operand", (int)t.len, t.text,
                        ptx_type_is_float(ty) ? "float" : "integer");
        next(p);
        return true;
    }
    if (neg)
        return FAIL(p, "'-' before a non-constant operand");
    /* Registers may be named without '%' (inline PTX's ".reg .pred p;"). */
    if (t.text[0] == '%' || find_sreg(&t) >= 0 || find_register(p, &t) != PTX_NO_REG)
        return parse_register_operand(p, o);
    /* A symbol's address (mov %r, sdata) */
    symbol *s = find_symbol(p, &t);
    if (!s || in->op != PTX_OP_MOV)
        return FAIL(p, "unknown operand %.*s", (int)t.len, t.text);
    o->kind = PTX_OPND_IMM;
    o->imm = symbol_address(s, s->space);
    o->reloc = symbol_reloc(s);
    next(p);
    return true;
}

/* ---- instructions ------------------------------------------------------- */

static ptx_insn *new_insn(parser *p)
{
    ptx_kernel *k = p->k;
    if (!grow((void **)&k->code, &p->capcode, k->ncode + 1, sizeof *k->code)) {
        FAIL(p, "out of memory");
        return NULL;
    }
    ptx_insn *in = &k->code[k->ncode];
    memset(in, 0, sizeof *in);
    in->pred = PTX_NO_REG;
    in->line = tok(p)->line;
    return in;
}

static bool add_label_ref(parser *p, label_ref **arr, size_t *n, size_t *cap, const ptx_token *t,
                          size_t insn)
{
    if (!grow((void **)arr, cap, *n + 1, sizeof **arr))
        return FAIL(p, "out of memory");
    label_ref *l = &(*arr)[*n];
    if (!(l->name = dup_tok(t)))
        return FAIL(p, "out of memory");
    l->insn = insn;
    l->line = t->line;
    ++*n;
    return true;
}

typedef struct operand_shape { uint8_t op, min, max; } operand_shape;
static const operand_shape k_shapes[] = {
    { PTX_OP_MOV, 2, 2 }, { PTX_OP_LD, 2, 2 }, { PTX_OP_ST, 2, 2 }, { PTX_OP_ADD, 3, 3 },
    { PTX_OP_SUB, 3, 3 }, { PTX_OP_MUL, 3, 3 }, { PTX_OP_MAD, 4, 4 }, { PTX_OP_FMA, 4, 4 },
    { PTX_OP_DIV, 3, 3 }, { PTX_OP_REM, 3, 3 }, { PTX_OP_MIN, 3, 3 }, { PTX_OP_MAX, 3, 3 },
    { PTX_OP_ABS, 2, 2 }, { PTX_OP_NEG, 2, 2 }, { PTX_OP_AND, 3, 3 }, { PTX_OP_OR, 3, 3 },
    { PTX_OP_XOR, 3, 3 }, { PTX_OP_NOT, 2, 2 }, { PTX_OP_SHL, 3, 3 }, { PTX_OP_SHR, 3, 3 },
    { PTX_OP_SETP, 3, 4 }, { PTX_OP_SELP, 4, 4 }, { PTX_OP_CVT, 2, 2 }, { PTX_OP_CVTA, 2, 2 },
    { PTX_OP_BRA, 1, 1 }, { PTX_OP_RET, 0, 0 }, { PTX_OP_EXIT, 0, 0 }, { PTX_OP_BAR, 1, 2 },
    { PTX_OP_MEMBAR, 0, 0 }, { PTX_OP_ATOM, 3, 4 }, { PTX_OP_TRAP, 0, 0 }, { PTX_OP_RCP, 2, 2 },
    /* ptx_alu_bits.c and ptx_alu_math.c */
    { PTX_OP_SHF, 4, 4 }, { PTX_OP_BFI, 5, 5 }, { PTX_OP_BFE, 4, 4 }, { PTX_OP_BFIND, 2, 2 },
    { PTX_OP_POPC, 2, 2 }, { PTX_OP_CLZ, 2, 2 }, { PTX_OP_BREV, 2, 2 }, { PTX_OP_PRMT, 4, 4 },
    { PTX_OP_SAD, 4, 4 }, { PTX_OP_COPYSIGN, 3, 3 }, { PTX_OP_TESTP, 2, 2 }, { PTX_OP_SQRT, 2, 2 },
    { PTX_OP_RSQRT, 2, 2 }, { PTX_OP_EX2, 2, 2 }, { PTX_OP_LG2, 2, 2 }, { PTX_OP_SIN, 2, 2 },
    { PTX_OP_COS, 2, 2 }, { PTX_OP_TANH, 2, 2 }, { PTX_OP_MUL24, 3, 3 }, { PTX_OP_MAD24, 4, 4 },
    /* Warp-level instructions and red (checked in check_warp_operands). */
    { PTX_OP_RED, 2, 2 }, { PTX_OP_SHFL, 5, 5 }, { PTX_OP_VOTE, 3, 3 }, { PTX_OP_ACTIVEMASK, 1, 1 },
    { PTX_OP_MATCH, 3, 3 }, { PTX_OP_REDUX, 3, 3 }, { PTX_OP_WARPSYNC, 1, 1 }, { PTX_OP_BAR_RED, 3, 4 },
    { PTX_OP_ADDC, 3, 3 }, { PTX_OP_SUBC, 3, 3 }, { PTX_OP_MADC, 4, 4 }, { PTX_OP_SET, 3, 4 },
};

static bool is_value(const ptx_operand *o)
{
    return o->kind == PTX_OPND_REG || o->kind == PTX_OPND_IMM || o->kind == PTX_OPND_SREG;
}

/* atom, red and the warp-level instructions: their destination and
 * address where they have them, values (registers, constants, special
 * registers) elsewhere, and d|p only where PTX has it (shfl.sync,
 * match.all.sync). */
static bool check_warp_operands(parser *p, const ptx_insn *in, uint32_t line)
{
    const ptx_operand *o = in->ops;
    int n = in->nops;
    bool pred_dst_ok = in->op == PTX_OP_SHFL || (in->op == PTX_OP_MATCH && in->subop == PTX_MATCH_ALL);
    if ((in->mods & PTX_MOD_PRED_DST) && !pred_dst_ok)
        return fail_at(p, line, "a second destination (d|p) is not allowed here");
    int first_value = 1;
    switch (in->op) {
    case PTX_OP_ATOM:
        if (o[0].kind != PTX_OPND_REG || o[1].kind != PTX_OPND_ADDR)
            return fail_at(p, line, "atom needs a register, an address and a value");
        if ((n == 4) != (in->subop == PTX_ATOM_CAS))
            return fail_at(p, line, "wrong number of operands");
        first_value = 2;
        break;
    case PTX_OP_RED:
        if (o[0].kind != PTX_OPND_ADDR)
            return fail_at(p, line, "red needs an address and a value");
        break;
    case PTX_OP_WARPSYNC:
        first_value = 0;
        break;
    default:
        if (o[0].kind != PTX_OPND_REG)
            return fail_at(p, line, "the destination must be a register");
        break;
    }
    for (int i = first_value; i < n; i++)
        if (!is_value(&o[i]))
            return fail_at(p, line, "operand %d must be a register or a constant", i + 1);
    return true;
}

/* Operand kinds each instruction needs: checked once here, so the
 * interpreter can trust them. */
static bool check_operands(parser *p, const ptx_insn *in, uint32_t line)
{
    const ptx_operand *o = in->ops;
    int n = in->nops;
    for (size_t i = 0; i < sizeof k_shapes / sizeof k_shapes[0]; i++)
        if (k_shapes[i].op == in->op && (n < k_shapes[i].min || n > k_shapes[i].max))
            return fail_at(p, line, "wrong number of operands");
    if (in->op == PTX_OP_SET && (n == 4) != (in->boolop != PTX_BOOL_NONE))
        return fail_at(p, line, "set takes a fourth (predicate) operand with a boolean operation only");
    switch (in->op) {
    case PTX_OP_NOP: case PTX_OP_BRA: case PTX_OP_RET: case PTX_OP_EXIT: case PTX_OP_MEMBAR:
    case PTX_OP_TRAP: case PTX_OP_ASSERTFAIL: case PTX_OP_CALL: case PTX_OP_VPRINTF:
        return true;
    case PTX_OP_BAR:
        for (int i = 0; i < n; i++)
            if (!is_value(&o[i]))
                return fail_at(p, line, "bar.sync takes a barrier number and a thread count");
        return true;
    case PTX_OP_BAR_RED:
        if (o[0].kind != PTX_OPND_REG || o[n - 1].kind != PTX_OPND_REG || !is_value(&o[1]) ||
            (n == 4 && !is_value(&o[2])))
            return fail_at(p, line, "bar.red takes a destination register, a barrier number, an optional "
                                    "thread count and a predicate register");
        return true;
    case PTX_OP_LD:
        if (!(o[1].kind == PTX_OPND_ADDR || o[1].kind == PTX_OPND_PARAM))
            return fail_at(p, line, "ld needs an address");
        if (in->vec > 1 ? (o[0].kind != PTX_OPND_VEC || o[0].count != in->vec) : o[0].kind != PTX_OPND_REG)
            return fail_at(p, line, "ld's destination does not match its vector width");
        return true;
    case PTX_OP_ST:
        if (!(o[0].kind == PTX_OPND_ADDR || o[0].kind == PTX_OPND_PARAM))
            return fail_at(p, line, "st needs an address");
        if (in->vec > 1 ? (o[1].kind != PTX_OPND_VEC || o[1].count != in->vec) : !is_value(&o[1]))
            return fail_at(p, line, "st's source does not match its vector width");
        return true;
    case PTX_OP_ATOM: case PTX_OP_RED: case PTX_OP_SHFL: case PTX_OP_VOTE: case PTX_OP_ACTIVEMASK:
    case PTX_OP_MATCH: case PTX_OP_REDUX: case PTX_OP_WARPSYNC:
        return check_warp_operands(p, in, line);
    case PTX_OP_MOV: {
        /* mov.b64 {lo, hi}, x and mov.b64 x, {lo, hi}: unpacking and packing. */
        const ptx_operand *vec = o[0].kind == PTX_OPND_VEC ? &o[0] : o[1].kind == PTX_OPND_VEC ? &o[1] : NULL;
        if (!vec)
            break;
        unsigned bytes = ptx_type_bytes((ptx_type)in->type);
        if (o[0].kind == o[1].kind || (vec == &o[0] ? o[1].kind != PTX_OPND_REG : o[0].kind != PTX_OPND_REG) ||
            (vec->count != 2 && vec->count != 4) || bytes % vec->count || bytes / vec->count < 1 ||
            (in->type != PTX_T_B64 && in->type != PTX_T_B32 && in->type != PTX_T_B16))
            return fail_at(p, line, "mov form with a vector not supported");
        return true;
    }
    default:
        break;
    }
    if (o[0].kind != PTX_OPND_REG)
        return fail_at(p, line, "the destination must be a register");
    for (int i = 1; i < n; i++)
        if (!is_value(&o[i]))
            return fail_at(p, line, "operand %d must be a register or a constant", i + 1);
    return true;
}

/* The p of a d|p destination (shfl.sync, match.all.sync): a register;
 * check_warp_operands refuses it on other instructions. */
static bool parse_pred_dst(parser *p, ptx_insn *in)
{
    if (in->op != PTX_OP_SHFL && in->op != PTX_OP_MATCH)
        return FAIL(p, "operand form not supported");
    next(p); /* '|' */
    ptx_token t = *tok(p);
    in->pred_dst = t.kind == PTX_TOK_WORD ? find_register(p, &t) : PTX_NO_REG;
    if (in->pred_dst == PTX_NO_REG)
        return FAIL(p, "unknown register %.*s after '|'", (int)t.len, t.text);
    in->mods |= PTX_MOD_PRED_DST;
    next(p);
    return true;
}

/* The st just parsed (at code[ncode]) moves after one mov per constant
 * of its vector operand. */
static bool insert_vector_constants(parser *p)
{
    unsigned n = p->nvec_imm;
    p->nvec_imm = 0;
    ptx_kernel *k = p->k;
    if (!grow((void **)&k->code, &p->capcode, k->ncode + 1 + n, sizeof *k->code))
        return FAIL(p, "out of memory");
    ptx_insn st = k->code[k->ncode];
    for (unsigned i = 0; i < n; i++) {
        ptx_insn *mov = &k->code[k->ncode + i];
        memset(mov, 0, sizeof *mov);
        mov->op = PTX_OP_MOV;
        mov->type = st.type;
        mov->pred = st.pred;
        mov->pred_negate = st.pred_negate;
        mov->line = st.line;
        mov->nops = 2;
        mov->ops[0].kind = PTX_OPND_REG;
        mov->ops[0].reg = p->vec_imm[i].reg;
        mov->ops[1].kind = PTX_OPND_IMM;
        mov->ops[1].imm = p->vec_imm[i].bits;
    }
    k->code[k->ncode + n] = st;
    k->ncode += n + 1;
    return true;
}

static bool parse_instruction(parser *p)
{
    ptx_insn *in = new_insn(p);
    if (!in)
        return false;
    uint32_t line = in->line;
    p->nvec_imm = 0;
    if (ptx_tok_punct(tok(p), '@')) {
        next(p);
        if (ptx_tok_punct(tok(p), '!')) {
            in->pred_negate = 1;
            next(p);
        }
        in->pred = tok(p)->kind == PTX_TOK_WORD ? find_register(p, tok(p)) : PTX_NO_REG;
        if (in->pred == PTX_NO_REG)
            return FAIL(p, "unknown guard predicate");
        next(p);
    }
    ptx_token mn = *tok(p);
    if (mn.kind != PTX_TOK_WORD)
        return FAIL(p, "expected an instruction");
    if (tok_eq(&mn, "call") || tok_eq(&mn, "call.uni")) {
        if (!ptx_parser_call(p, in))
            return false;
        p->k->ncode++;
        return true;
    }
    char why[200];
    if (!ptx_decode_mnemonic(mn.text, mn.len, in, why, sizeof why))
        return fail_at(p, line, "%s", why);
    next(p);
    if (in->op == PTX_OP_BRA) {
        if (tok(p)->kind != PTX_TOK_WORD)
            return FAIL(p, "expected a label");
        if (!add_label_ref(p, &p->refs, &p->nrefs, &p->caprefs, tok(p), p->k->ncode))
            return false;
        next(p);
        in->nops = 1;
    } else {
        while (!ptx_tok_punct(tok(p), ';')) {
            if (in->nops == PTX_MAX_OPERANDS)
                return FAIL(p, "too many operands");
            if (ptx_tok_punct(tok(p), '|') || tok(p)->kind == PTX_TOK_END)
                return FAIL(p, "operand form not supported");
            if (!parse_operand(p, in, in->nops))
                return false;
            in->nops++;
            if (in->nops == 1 && ptx_tok_punct(tok(p), '|') && !parse_pred_dst(p, in))
                return false;
            if (ptx_tok_punct(tok(p), ','))
                next(p);
            else if (!ptx_tok_punct(tok(p), ';'))
                return FAIL(p, "operand form not supported");
        }
    }
    if (!expect_punct(p, ';'))
        return false;
    if (in->op == PTX_OP_SETP && ((in->nops == 4) != (in->boolop != PTX_BOOL_NONE)))
        return fail_at(p, line, "setp's boolean operation and its operand go together");
    if (!check_operands(p, in, line))
        return false;
    return p->nvec_imm ? insert_vector_constants(p) : (p->k->ncode++, true);
}

/* ---- functions ---------------------------------------------------------- */

static bool resolve_labels(parser *p)
{
    for (size_t r = 0; r < p->nrefs; r++) {
        size_t l = 0;
        while (l < p->nlabels && strcmp(p->labels[l].name, p->refs[r].name))
            l++;
        if (l == p->nlabels)
            return fail_at(p, p->refs[r].line, "unknown label %s", p->refs[r].name);
        p->k->code[p->refs[r].insn].target = (uint32_t)p->labels[l].insn;
    }
    return true;
}

static void forget_function_state(parser *p)
{
    for (size_t i = 0; i < p->nregs; i++)
        free(p->regs[i].prefix);
    for (size_t i = 0; i < p->ncall_params; i++)
        free(p->call_params[i].name);
    for (size_t i = 0; i < p->nlabels; i++)
        free(p->labels[i].name);
    for (size_t i = 0; i < p->nrefs; i++)
        free(p->refs[i].name);
    for (size_t i = p->module_nsyms; i < p->nsyms; i++)
        free(p->syms[i].name);
    p->nsyms = p->module_nsyms;
    p->nregs = p->ncall_params = p->nlabels = p->nrefs = 0;
}

static bool parse_body(parser *p)
{
    if (!expect_punct(p, '{'))
        return false;
    p->scope_depth = 1;
    while (!p->failed) {
        ptx_token t = *tok(p);
        if (t.kind == PTX_TOK_END)
            return FAIL(p, "the function has no closing '}'");
        if (ptx_tok_punct(&t, '{')) {
            p->scope_depth++; /* a call sequence's scope */
            next(p);
        } else if (ptx_tok_punct(&t, '}')) {
            next(p);
            ptx_parser_close_scope(p);
            if (p->scope_depth == 0)
                break;
        } else if (tok_eq(&t, ".reg") || is_joined_reg_decl(&t)) {
            parse_reg_decl(p);
        } else if (tok_eq(&t, ".local")) {
            parse_variable(p, PTX_SPACE_LOCAL, false, false);
        } else if (tok_eq(&t, ".shared")) {
            parse_variable(p, PTX_SPACE_SHARED, false, false);
        } else if (tok_eq(&t, ".param")) {
            ptx_parser_call_param_decl(p);
        } else if (tok_eq(&t, ".loc") || tok_eq(&t, ".file")) {
            skip_line(p, t.line); /* debug information: ignored */
        } else if (tok_eq(&t, ".pragma")) {
            skip_to_semicolon(p);
        } else if (t.kind == PTX_TOK_WORD && t.text[0] == '.') {
            return FAIL(p, "directive %.*s not supported in a function", (int)t.len, t.text);
        } else if (t.kind == PTX_TOK_WORD && t.text[0] != '%' && p->lx.p < p->lx.end &&
                   *p->lx.p == ':') {
            /* A label: the lexer stands right after the word, before ':'. */
            if (!add_label_ref(p, &p->labels, &p->nlabels, &p->caplabels, &t, p->k->ncode))
                return false;
            next(p);
            next(p); /* ':' */
        } else {
            parse_instruction(p);
        }
    }
    return !p->failed;
}

/* The body of p->k, a kernel or a .func. */
bool ptx_parser_function_body(parser *p)
{
    p->capcode = 0;
    bool ok = parse_body(p) && resolve_labels(p);
    if (ok) {
        /* Falling off the end (past a predicated last instruction, or to a
         * label after it) is leaving the function: a final ret makes it
         * explicit, and every pc the interpreter can reach a valid index. */
        ptx_insn *in = new_insn(p);
        if (in) {
            in->op = PTX_OP_RET;
            p->k->ncode++;
        }
        ok = in != NULL;
    }
    forget_function_state(p);
    return ok;
}

static bool parse_entry(parser *p)
{
    uint32_t line = tok(p)->line;
    next(p);
    if (tok(p)->kind != PTX_TOK_WORD)
        return FAIL(p, "expected the kernel's name");
    ptx_module *m = p->m;
    ptx_kernel *grown = realloc(m->kernels, (m->nkernels + 1) * sizeof *grown);
    if (!grown)
        return FAIL(p, "out of memory");
    m->kernels = grown;
    ptx_kernel *k = &m->kernels[m->nkernels];
    memset(k, 0, sizeof *k);
    k->first_line = line;
    if (!(k->name = dup_tok(tok(p))))
        return FAIL(p, "out of memory");
    m->nkernels++; /* counted now so that ptx_module_free frees it */
    p->k = k;
    p->capcode = 0;
    next(p);
    if (ptx_tok_punct(tok(p), '(') && !ptx_parser_params(p, k))
        return false;
    /* Performance directives (.maxntid 256, 1, 1 ...): hints, ignored,
     * except the thread limit of .maxntid / .reqntid, which
     * cuFuncGetAttribute(MAX_THREADS_PER_BLOCK) reports, and .maxnreg,
     * which bounds its NUM_REGS (sim_module.c). */
    while (tok(p)->kind == PTX_TOK_WORD && tok(p)->text[0] == '.' &&
           (tok_eq(tok(p), ".maxntid") || tok_eq(tok(p), ".reqntid") || tok_eq(tok(p), ".minnctapersm") ||
            tok_eq(tok(p), ".maxnctapersm") || tok_eq(tok(p), ".maxnreg") || tok_eq(tok(p), ".noreturn"))) {
        bool ntid = tok_eq(tok(p), ".maxntid") || tok_eq(tok(p), ".reqntid");
        bool nreg = tok_eq(tok(p), ".maxnreg");
        uint64_t threads = 1;
        next(p);
        while (tok(p)->kind == PTX_TOK_WORD && tok(p)->text[0] >= '0' && tok(p)->text[0] <= '9') {
            uint32_t at = tok(p)->line;
            int64_t n = 0; /* gcc -O3 does not see that parse_int sets it when it succeeds */
            if (!parse_int(p, &n))
                return false;
            if (n <= 0 || n > 1024 * 1024)
                return fail_at(p, at, "directive value out of range (1 to 1048576)");
            if (nreg)
                k->max_registers = (uint32_t)n;
            threads *= (uint64_t)n;
            if (threads > UINT32_MAX) /* saturated: no later product can wrap */
                threads = (uint64_t)UINT32_MAX + 1;
            if (ptx_tok_punct(tok(p), ','))
                next(p);
        }
        if (ntid)
            k->max_threads = threads > UINT32_MAX ? UINT32_MAX : (uint32_t)threads;
    }
    if (ptx_tok_punct(tok(p), ';'))
        return FAIL(p, "a kernel declared without a body");
    p->in_entry = true; /* its .shared are its own (SHARED_SIZE_BYTES, the launch limit) */
    bool ok = ptx_parser_function_body(p);
    p->in_entry = false;
    return ok;
}

static bool parse_section(parser *p)
{
    /* .section .debug_xxx { ... }: debug information, skipped whole. */
    next(p);
    while (tok(p)->kind != PTX_TOK_END && !ptx_tok_punct(tok(p), '{'))
        next(p);
    int depth = 0;
    do {
        if (ptx_tok_punct(tok(p), '{'))
            depth++;
        else if (ptx_tok_punct(tok(p), '}'))
            depth--;
        next(p);
    } while (depth > 0 && tok(p)->kind != PTX_TOK_END);
    return depth == 0 || FAIL(p, "unterminated .section");
}

static bool parse_module_item(parser *p)
{
    bool is_extern = false, is_weak = false;
    for (;;) {
        ptx_token *t = tok(p);
        if (tok_eq(t, ".visible") || tok_eq(t, ".weak") || tok_eq(t, ".common") ||
            tok_eq(t, ".noinline")) {
            /* .common symbols, like .weak ones, may be defined by several linked
             * inputs (numba's environment pointers are .common). */
            is_weak = is_weak || tok_eq(t, ".weak") || tok_eq(t, ".common");
            next(p);
        } else if (tok_eq(t, ".extern")) {
            is_extern = true;
            next(p);
        } else {
            break;
        }
    }
    ptx_token t = *tok(p);
    if (tok_eq(&t, ".version") || tok_eq(&t, ".target") || tok_eq(&t, ".file")) {
        skip_line(p, t.line);
        return true;
    }
    if (tok_eq(&t, ".address_size")) {
        next(p);
        if (!tok_eq(tok(p), "64"))
            return FAIL(p, "only .address_size 64 is supported");
        next(p);
        return true;
    }
    if (tok_eq(&t, ".entry"))
        return parse_entry(p);
    if (tok_eq(&t, ".func"))
        return ptx_parser_func(p, is_weak);
    if (tok_eq(&t, ".global"))
        return parse_variable(p, PTX_SPACE_GLOBAL, is_extern, is_weak);
    if (tok_eq(&t, ".const"))
        return parse_variable(p, PTX_SPACE_CONST, is_extern, is_weak);
    if (tok_eq(&t, ".shared"))
        return parse_variable(p, PTX_SPACE_SHARED, is_extern, false);
    if (tok_eq(&t, ".section"))
        return parse_section(p);
    if (tok_eq(&t, ".pragma"))
        return skip_to_semicolon(p);
    if (t.kind == PTX_TOK_WORD && t.text[0] == '.')
        return FAIL(p, "directive %.*s not supported", (int)t.len, t.text);
    return FAIL(p, "unexpected text at module scope");
}

/* ---- the module --------------------------------------------------------- */

ptx_module *ptx_module_parse(const char *src, size_t len, char *err, size_t errlen)
{
    return ptx_module_parse_as(src, len, PTX_PARSE_MODULE, err, errlen);
}

ptx_module *ptx_module_parse_as(const char *src, size_t len, ptx_parse_mode mode, char *err, size_t errlen)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.err = err;
    p.errlen = errlen;
    if (errlen)
        err[0] = '\0';
    p.m = calloc(1, sizeof *p.m);
    if (!p.m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ptx_lexer_init(&p.lx, src, len);
    while (!p.failed && tok(&p)->kind != PTX_TOK_END) {
        if (tok(&p)->kind == PTX_TOK_BAD) {
            FAIL(&p, "unexpected character");
            break;
        }
        p.module_nsyms = p.nsyms;
        parse_module_item(&p);
        p.module_nsyms = p.nsyms;
    }
    if (!p.failed && p.m->nkernels == 0 && mode == PTX_PARSE_MODULE)
        fail_at(&p, p.lx.line, "no .entry in the module");
    if (!p.failed && mode == PTX_PARSE_MODULE)
        ptx_parser_inline_calls(&p);
    forget_function_state(&p);
    for (size_t i = 0; i < p.nsyms; i++)
        free(p.syms[i].name);
    free(p.syms);
    free(p.regs);
    free(p.call_params);
    free(p.labels);
    free(p.refs);
    ptx_parser_free_functions(&p);
    if (p.failed) {
        ptx_module_free(p.m);
        return NULL;
    }
    return p.m;
}
