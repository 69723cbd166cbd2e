/*
 * The PTX parser's state and the helpers its two files share: ptx_parse.c
 * (module items, variables, registers, instructions) and ptx_parse_func.c
 * (device functions and calls). Private to the parser.
 */
#ifndef GG_PTX_PARSER_H
#define GG_PTX_PARSER_H

#include "ptx_inline.h"
#include "ptx_lexer.h"
#include "ptx_module.h"

#include <string.h>

typedef struct reg_decl {
    char *prefix;       /* "%r" of %r<128>, or the whole name of a scalar */
    uint32_t count;     /* 0: a scalar register */
    uint32_t base;
    int depth;          /* the scope declaring it: its name goes when that closes */
} reg_decl;

typedef struct symbol {
    char *name;
    ptx_space space;
    uint64_t offset;    /* shared: in the block's shared layout; local: in a
                         * thread's; global/const: in the module window */
    bool is_extern_shared;
} symbol;

typedef struct label_ref {
    char *name;
    size_t insn;
    uint32_t line;
} label_ref;

/* A .param declared in a call sequence's scope `{ ... }`: a slot of the
 * function's .local frame (see ptx_inline.h). */
typedef struct call_param {
    char *name;
    uint32_t offset, size;
    int depth;          /* the scope it belongs to */
} call_param;

typedef struct parser {
    ptx_lexer lx;
    char *err;
    size_t errlen;
    bool failed;
    ptx_module *m;
    symbol *syms;               /* module scope, then the function's locals */
    size_t nsyms, capsyms, module_nsyms;
    bool in_entry;              /* inside a kernel's body: its .shared are its own */
    size_t capvars;                 /* of the module's vars */
    ptx_function *funcs;            /* .func declarations and definitions */
    size_t nfuncs, capfuncs;
    ptx_call_site *calls;           /* every call of the module */
    size_t ncalls, capcalls;
    /* the function being parsed */
    ptx_kernel *k;
    reg_decl *regs;
    size_t nregs, capregs;
    call_param *call_params;    /* .param declared inside a call sequence */
    size_t ncall_params, capcall_params;
    int scope_depth;            /* 1: the body; 2 and more: call sequences */
    /* Constants in a st's vector ({%r1, 3}): each gets a register of its
     * own, set by a mov inserted before the st. */
    struct { uint32_t reg; uint64_t bits; } vec_imm[4];
    unsigned nvec_imm;
    label_ref *labels, *refs;
    size_t nlabels, caplabels, nrefs, caprefs;
    size_t capcode;
} parser;

static inline void next(parser *p) { ptx_lexer_next(&p->lx); }
static inline ptx_token *tok(parser *p) { return &p->lx.tok; }
static inline bool tok_eq(const ptx_token *t, const char *s)
{
    return strlen(s) == t->len && !memcmp(t->text, s, t->len);
}
static inline uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* ptx_parse.c's helpers. */
/* Fails the parse at `line` with `why` (the first failure wins); false. */
bool ptx_parser_fail(parser *p, uint32_t line, const char *why);
/* Grows *arr (of *cap elements of elem bytes, zeroed) to hold need; false
 * when out of memory. */
bool ptx_parser_grow(void **arr, size_t *cap, size_t need, size_t elem);
/* A NUL-terminated copy of t's text, or NULL. */
char *ptx_parser_dup_tok(const ptx_token *t);
/* Takes the punctuation c, or fails. */
bool ptx_parser_expect(parser *p, char c);
/* An integer constant ([+-] digits, hex, octal), or fails. */
bool ptx_parser_int(parser *p, int64_t *out);
/* The body `{ ... }` of p->k, a kernel or a .func, with its labels
 * resolved and a final ret; forgets the function's names after. */
bool ptx_parser_function_body(parser *p);

/* ptx_parse_func.c. */
/* The call-sequence .param named t (innermost scope first), or NULL. */
call_param *ptx_parser_find_call_param(parser *p, const ptx_token *t);
/* ( .param ..., ... ): appended to k's parameters (NULL: only checked). */
bool ptx_parser_params(parser *p, ptx_kernel *k);
/* .param ... ; inside a body: a slot of p->k's .local frame. */
bool ptx_parser_call_param_decl(parser *p);
/* A `}` closed a scope: its .param and .reg names go (an inner .reg may
 * shadow an outer one; after the `}` the name is the outer one again). */
void ptx_parser_close_scope(parser *p);
/* call[.uni] ...; into `in` (PTX_OP_CALL and a call site). */
bool ptx_parser_call(parser *p, ptx_insn *in);
/* .func ...: a declaration, or a definition and its body. */
bool ptx_parser_func(parser *p, bool weak);
/* Every kernel's calls expanded (ptx_inline.c); false after failing. */
bool ptx_parser_inline_calls(parser *p);
/* Frees the functions and call sites the parse recorded. */
void ptx_parser_free_functions(parser *p);

#endif
