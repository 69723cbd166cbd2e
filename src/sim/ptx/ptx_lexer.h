/*
 * Tokens of PTX text. A word is a run of letters, digits and "_$%." so that
 * a mnemonic with its modifiers (ld.global.v2.u32), a register (%r12), a
 * special register (%tid.x), a directive (.reg) and a number (0f3F800000,
 * 42) are each one token; everything else is one punctuation character or
 * a quoted string. Comments are skipped; each token knows its line.
 */
#ifndef GG_PTX_LEXER_H
#define GG_PTX_LEXER_H

#include <stddef.h>
#include <stdint.h>

typedef enum ptx_token_kind {
    PTX_TOK_END = 0, PTX_TOK_WORD, PTX_TOK_PUNCT, PTX_TOK_STRING, PTX_TOK_BAD
} ptx_token_kind;

typedef struct ptx_token {
    ptx_token_kind kind;
    const char *text;    /* into the source; not NUL-terminated */
    size_t len;
    uint32_t line;
} ptx_token;

typedef struct ptx_lexer {
    const char *src, *p, *end;
    uint32_t line;
    ptx_token tok;       /* the current token */
} ptx_lexer;

void ptx_lexer_init(ptx_lexer *lx, const char *src, size_t len);
/* Moves to the next token (lx->tok). */
void ptx_lexer_next(ptx_lexer *lx);
/* Whether the current token is this word / this punctuation character. */
int ptx_tok_is(const ptx_token *t, const char *word);
int ptx_tok_punct(const ptx_token *t, char c);
/* The whole source line `line` (for messages): start and length. */
void ptx_lexer_line_text(const ptx_lexer *lx, uint32_t line, const char **start, size_t *len);

#endif
