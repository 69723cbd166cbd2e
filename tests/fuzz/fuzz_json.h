/*
 * What the harnesses check of JSON, independently of the library's own
 * checker (src/base/json_syntax.c), so that the checker cannot vouch for
 * itself: UTF-8 by RFC 3629's table of byte ranges, a \u0000 escape by its
 * backslashes, duplicate member names on cJSON's tree (cJSON keeps both).
 */
#ifndef GG_FUZZ_JSON_H
#define GG_FUZZ_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cjson/cJSON.h>

/* Whether `text` is well-formed UTF-8 (RFC 3629 section 4); *bad: the
 * offset of the first sequence that is not. */
static inline bool fuzz_utf8_valid(const char *text, size_t *bad)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; s[i] != 0;) {
        unsigned char b = s[i], lo = 0x80, hi = 0xBF;
        int more;
        if (b <= 0x7F)
            more = 0;
        else if (b >= 0xC2 && b <= 0xDF)
            more = 1;
        else if (b == 0xE0)
            more = 2, lo = 0xA0;
        else if (b == 0xED)
            more = 2, hi = 0x9F;
        else if (b >= 0xE1 && b <= 0xEF)
            more = 2;
        else if (b == 0xF0)
            more = 3, lo = 0x90;
        else if (b == 0xF4)
            more = 3, hi = 0x8F;
        else if (b >= 0xF1 && b <= 0xF3)
            more = 3;
        else {
            *bad = i;
            return false;
        }
        for (int k = 1; k <= more; k++) {
            unsigned char c = s[i + k];
            if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) {
                *bad = i;
                return false;
            }
        }
        i += (size_t)more + 1;
    }
    return true;
}

/* Whether a valid JSON text has a \u0000 escape: a "\u0000" whose
 * backslash is not itself escaped (an odd run of backslashes ends at it). */
static inline bool fuzz_has_nul_escape(const char *text)
{
    for (const char *p = strchr(text, '\\'); p != NULL; p = strchr(p, '\\')) {
        size_t run = 0;
        while (p[run] == '\\')
            run++;
        if (run % 2 == 1 && p[run] == 'u' && strncmp(p + run + 1, "0000", 4) == 0)
            return true;
        p += run;
    }
    return false;
}

/* Whether every object in the tree names each member once; *name: the
 * first name given twice. */
static inline bool fuzz_names_unique(const cJSON *j, const char **name)
{
    for (const cJSON *c = j ? j->child : NULL; c != NULL; c = c->next) {
        if (cJSON_IsObject(j))
            for (const cJSON *d = c->next; d != NULL; d = d->next)
                if (strcmp(c->string, d->string) == 0) {
                    *name = c->string;
                    return false;
                }
        if (!fuzz_names_unique(c, name))
            return false;
    }
    return true;
}

#endif
