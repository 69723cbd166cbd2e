/* The PTX tokenizer: see ptx_lexer.h. */
#include "ptx_lexer.h"

#include <string.h>

static int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c == '%' || c == '.';
}

void ptx_lexer_init(ptx_lexer *lx, const char *src, size_t len)
{
    lx->src = lx->p = src;
    lx->end = src + len;
    lx->line = 1;
    ptx_lexer_next(lx);
}

/* Skips blanks and comments, counting lines. */
static void skip_space(ptx_lexer *lx)
{
    while (lx->p < lx->end) {
        char c = *lx->p;
        if (c == '\n') {
            lx->line++;
            lx->p++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
            lx->p += 2;
            while (lx->p < lx->end && !(*lx->p == '*' && lx->p + 1 < lx->end && lx->p[1] == '/')) {
                if (*lx->p == '\n')
                    lx->line++;
                lx->p++;
            }
            lx->p = lx->p < lx->end ? lx->p + 2 : lx->end;
        } else {
            return;
        }
    }
}

void ptx_lexer_next(ptx_lexer *lx)
{
    skip_space(lx);
    ptx_token *t = &lx->tok;
    t->line = lx->line;
    t->text = lx->p;
    if (lx->p >= lx->end) {
        t->kind = PTX_TOK_END;
        t->len = 0;
        return;
    }
    char c = *lx->p;
    if (is_word_char(c)) {
        /* "::" belongs to the word (.shared::cta, .L2::evict_last), so
         * that such a modifier is refused as a whole, not read as a label. */
        while (lx->p < lx->end && (is_word_char(*lx->p) ||
                                   (*lx->p == ':' && lx->p + 1 < lx->end && lx->p[1] == ':'))) {
            lx->p += *lx->p == ':' ? 2 : 1;
        }
        t->kind = PTX_TOK_WORD;
    } else if (c == '"') {
        lx->p++;
        while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n') {
            if (*lx->p == '\\' && lx->p + 1 < lx->end && lx->p[1] != '\n')
                lx->p++;
            lx->p++;
        }
        if (lx->p < lx->end && *lx->p == '"') {
            lx->p++;
            t->kind = PTX_TOK_STRING;
        } else {
            t->kind = PTX_TOK_BAD; /* unterminated string */
        }
    } else if (strchr("{}[](),;:+-@!<>=|", c) && c != '\0') {
        lx->p++;
        t->kind = PTX_TOK_PUNCT;
    } else {
        lx->p++;
        t->kind = PTX_TOK_BAD;
    }
    t->len = (size_t)(lx->p - t->text);
}

int ptx_tok_is(const ptx_token *t, const char *word)
{
    size_t n = strlen(word);
    return t->kind == PTX_TOK_WORD && t->len == n && !memcmp(t->text, word, n);
}

int ptx_tok_punct(const ptx_token *t, char c)
{
    return t->kind == PTX_TOK_PUNCT && t->text[0] == c;
}

void ptx_lexer_line_text(const ptx_lexer *lx, uint32_t line, const char **start, size_t *len)
{
    const char *p = lx->src;
    for (uint32_t l = 1; l < line && p < lx->end; p++)
        if (*p == '\n')
            l++;
    while (p < lx->end && (*p == ' ' || *p == '\t'))
        p++;
    const char *e = p;
    while (e < lx->end && *e != '\n' && *e != '\r')
        e++;
    *start = p;
    *len = (size_t)(e - p);
}
