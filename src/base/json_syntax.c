/* A recursive-descent checker of RFC 8259 syntax (see json_syntax.h). It
 * only answers "is this one JSON value, and if not, where and what was
 * expected"; cJSON builds the tree afterwards. */
#include "base/json_syntax.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A member name seen in an object still open: where its opening quote is,
 * and a hash of what it decodes to (compared first, so that only names
 * with equal hashes are decoded side by side). */
typedef struct open_key {
    size_t at;
    uint32_t hash;
} open_key;

typedef struct checker {
    const char *text;
    size_t at;
    char *message;
    size_t message_size;
    /* The names of the objects open at this point, innermost last: a fixed
     * table, so the check allocates nothing (GG_JSON_MAX_OPEN_MEMBERS). */
    open_key keys[GG_JSON_MAX_OPEN_MEMBERS];
    size_t nkeys;
} checker;

static bool fail(checker *c, const char *expected)
{
    unsigned char ch = (unsigned char)c->text[c->at];
    char found[32];
    if (ch == '\0')
        snprintf(found, sizeof found, "the end of the text");
    else if (ch >= 0x20 && ch < 0x7f)
        snprintf(found, sizeof found, "'%c'", ch);
    else
        snprintf(found, sizeof found, "byte 0x%02x", ch);
    snprintf(c->message, c->message_size, "at offset %zu: expected %s, found %s", c->at, expected, found);
    return false;
}

static void skip_space(checker *c)
{
    while (c->text[c->at] == ' ' || c->text[c->at] == '\t' || c->text[c->at] == '\n' || c->text[c->at] == '\r')
        c->at++;
}

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static int hex_value(char ch)
{
    if (is_digit(ch))
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Four hex digits after "\u"; -1 (message set) if they are not. */
static long read_hex4(checker *c)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_value(c->text[c->at]);
        if (h < 0) {
            fail(c, "a hex digit of a \\u escape");
            return -1;
        }
        v = v * 16 + h;
        c->at++;
    }
    return v;
}

size_t gg__utf8_sequence(const char *text, const char **why)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t n;
    uint32_t cp, min;
    if (p[0] < 0x80)
        return 1;
    if (p[0] < 0xC0) {
        *why = "a continuation byte with no lead byte before it";
        return 0;
    }
    if (p[0] < 0xE0) {
        n = 2, cp = p[0] & 0x1Fu, min = 0x80;
    } else if (p[0] < 0xF0) {
        n = 3, cp = p[0] & 0x0Fu, min = 0x800;
    } else if (p[0] < 0xF8) {
        n = 4, cp = p[0] & 0x07u, min = 0x10000;
    } else {
        *why = "a byte that never occurs in UTF-8";
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        /* Stops at the text's end too: NUL is not a continuation byte. */
        if ((p[i] & 0xC0u) != 0x80u) {
            *why = "a sequence cut short";
            return 0;
        }
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    /* The whole sequence is decoded before the range checks, so that each
     * is one comparison (C0, C1, E0 80..9F and F0 80..8F are overlong; ED
     * A0..BF are surrogates; F4 90.. and F5..F7 are past U+10FFFF). */
    if (cp < min)
        *why = "an overlong form";
    else if (cp >= 0xD800 && cp <= 0xDFFF)
        *why = "a UTF-16 surrogate (U+D800 to U+DFFF)";
    else if (cp > 0x10FFFF)
        *why = "a code point above U+10FFFF";
    else
        return n;
    return 0;
}

/* Four hex digits already checked. */
static long hex4(const char *p)
{
    return ((long)hex_value(p[0]) << 12) | (hex_value(p[1]) << 8) | (hex_value(p[2]) << 4) | hex_value(p[3]);
}

/* The next character of a string already checked, at *at (after its
 * opening quote or a previous character): its code point, with escapes and
 * surrogate pairs decoded; -1 at the closing quote. Two names are the same
 * member name when these sequences are equal ("a" and "\u0061" are). */
static long next_char(const char *text, size_t *at)
{
    const unsigned char *p = (const unsigned char *)text + *at;
    if (p[0] == '"')
        return -1;
    if (p[0] != '\\') {
        const char *why;
        size_t n = gg__utf8_sequence((const char *)p, &why);
        long cp = n == 1 ? p[0] : n == 2 ? p[0] & 0x1F : n == 3 ? p[0] & 0x0F : p[0] & 0x07;
        for (size_t i = 1; i < n; i++)
            cp = (cp << 6) | (p[i] & 0x3F);
        *at += n;
        return cp;
    }
    static const char escapes[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
    for (const char *e = escapes; *e != '\0'; e += 2)
        if (p[1] == (unsigned char)e[0]) {
            *at += 2;
            return (unsigned char)e[1];
        }
    /* \uXXXX, possibly a high surrogate that a \uXXXX low one follows. */
    long unit = hex4((const char *)p + 2);
    *at += 6;
    if (unit >= 0xD800 && unit <= 0xDBFF) {
        long low = hex4((const char *)p + 8);
        *at += 6;
        return 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
    }
    return unit;
}

/* FNV-1a over a member name's code points. */
static uint32_t name_hash(const char *text, size_t at)
{
    uint32_t h = 2166136261u;
    at++; /* the opening quote */
    for (long cp; (cp = next_char(text, &at)) >= 0;) {
        h ^= (uint32_t)cp;
        h *= 16777619u;
    }
    return h;
}

static bool same_name(const char *text, size_t a, size_t b)
{
    a++, b++;
    for (;;) {
        long x = next_char(text, &a), y = next_char(text, &b);
        if (x != y)
            return false;
        if (x < 0)
            return true;
    }
}

static bool check_string(checker *c)
{
    c->at++; /* the opening quote */
    for (;;) {
        unsigned char ch = (unsigned char)c->text[c->at];
        if (ch == '"') {
            c->at++;
            return true;
        }
        if (ch == '\0' || ch < 0x20)
            return fail(c, "'\"' closing the string (control characters must be escaped)");
        if (ch >= 0x80) {
            /* cJSON copies any bytes; what gpuguard accepts must be text
             * that every JSON reader takes back (RFC 8259 section 8.1). */
            const char *why = NULL;
            size_t n = gg__utf8_sequence(c->text + c->at, &why);
            if (n == 0) {
                snprintf(c->message, c->message_size, "at offset %zu: expected valid UTF-8, found byte 0x%02x (%s)",
                         c->at, ch, why);
                return false;
            }
            c->at += n;
            continue;
        }
        if (ch != '\\') {
            c->at++;
            continue;
        }
        c->at++;
        char e = c->text[c->at];
        if (strchr("\"\\/bfnrt", e) != NULL && e != '\0') {
            c->at++;
            continue;
        }
        if (e != 'u')
            return fail(c, "an escape (one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
        c->at++;
        long unit = read_hex4(c);
        if (unit < 0)
            return false;
        /* A C string ends at NUL: cJSON would keep "alloc\u0000junk" as
         * "alloc", and gpuguard would act on less than the text says. */
        if (unit == 0) {
            c->at -= 6;
            return fail(c, "a character other than NUL (\\u0000 is not allowed in strings)");
        }
        /* UTF-16 surrogates must pair up: cJSON refuses them otherwise. */
        if (unit >= 0xDC00 && unit <= 0xDFFF) {
            c->at -= 6;
            return fail(c, "a \\u escape that is not a lone low surrogate");
        }
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            if (c->text[c->at] != '\\' || c->text[c->at + 1] != 'u')
                return fail(c, "a \\u escape of a low surrogate after a high one");
            c->at += 2;
            long low = read_hex4(c);
            if (low < 0)
                return false;
            if (low < 0xDC00 || low > 0xDFFF) {
                c->at -= 6;
                return fail(c, "a \\u escape of a low surrogate after a high one");
            }
        }
    }
}

/* A member name starting at `at` (its opening quote), checked: refused if
 * the object already has it, else recorded. Most readers keep the last of
 * duplicate names and cJSON the first, so a plan with two "op"s would mean
 * different things to different readers. */
static bool check_new_name(checker *c, size_t first_name, size_t at)
{
    uint32_t hash = name_hash(c->text, at);
    for (size_t i = first_name; i < c->nkeys; i++) {
        if (c->keys[i].hash != hash || !same_name(c->text, c->keys[i].at, at))
            continue;
        /* The name as written, at most 40 bytes of it, not cut inside a
         * UTF-8 sequence (the message stays valid text). */
        size_t len = c->at - at - 2;
        if (len > 40) {
            len = 40;
            while (len > 0 && ((unsigned char)c->text[at + 1 + len] & 0xC0u) == 0x80u)
                len--;
        }
        snprintf(c->message, c->message_size,
                 "at offset %zu: expected a member name not already in this object, found \"%.*s\"%s again "
                 "(first at offset %zu)",
                 at, (int)len, c->text + at + 1, len < c->at - at - 2 ? "..." : "", c->keys[i].at);
        return false;
    }
    if (c->nkeys == GG_JSON_MAX_OPEN_MEMBERS) {
        char expected[96];
        snprintf(expected, sizeof expected, "at most %d members in the objects open at this point",
                 GG_JSON_MAX_OPEN_MEMBERS);
        c->at = at;
        return fail(c, expected);
    }
    c->keys[c->nkeys++] = (open_key){ at, hash };
    return true;
}

static bool check_number(checker *c)
{
    if (c->text[c->at] == '-')
        c->at++;
    if (c->text[c->at] == '0') {
        c->at++;
    } else if (is_digit(c->text[c->at])) {
        while (is_digit(c->text[c->at]))
            c->at++;
    } else {
        return fail(c, "a digit");
    }
    if (c->text[c->at] == '.') {
        c->at++;
        if (!is_digit(c->text[c->at]))
            return fail(c, "a digit after the decimal point");
        while (is_digit(c->text[c->at]))
            c->at++;
    }
    if (c->text[c->at] == 'e' || c->text[c->at] == 'E') {
        c->at++;
        if (c->text[c->at] == '+' || c->text[c->at] == '-')
            c->at++;
        if (!is_digit(c->text[c->at]))
            return fail(c, "a digit of the exponent");
        while (is_digit(c->text[c->at]))
            c->at++;
    }
    return true;
}

static bool check_word(checker *c, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i < n; i++, c->at++)
        if (c->text[c->at] != word[i]) {
            char expected[32];
            snprintf(expected, sizeof expected, "'%s'", word);
            return fail(c, expected);
        }
    return true;
}

static bool check_value(checker *c, int depth);

static bool check_members(checker *c, int depth);

/* An object's names are recorded while it is open and dropped when it
 * closes (or the check fails), whatever the way out. */
static bool check_object(checker *c, int depth)
{
    size_t first_name = c->nkeys;
    bool ok = check_members(c, depth);
    c->nkeys = first_name;
    return ok;
}

static bool check_members(checker *c, int depth)
{
    size_t first_name = c->nkeys;
    c->at++; /* '{' */
    skip_space(c);
    if (c->text[c->at] == '}') {
        c->at++;
        return true;
    }
    for (;;) {
        skip_space(c);
        if (c->text[c->at] != '"')
            return fail(c, "a string (a member's name)");
        size_t name_at = c->at;
        if (!check_string(c) || !check_new_name(c, first_name, name_at))
            return false;
        skip_space(c);
        if (c->text[c->at] != ':')
            return fail(c, "':' after the member's name");
        c->at++;
        if (!check_value(c, depth + 1))
            return false;
        if (c->text[c->at] == ',') {
            c->at++;
            continue;
        }
        if (c->text[c->at] == '}') {
            c->at++;
            return true;
        }
        return fail(c, "',' or '}' after a member");
    }
}

static bool check_array(checker *c, int depth)
{
    c->at++; /* '[' */
    skip_space(c);
    if (c->text[c->at] == ']') {
        c->at++;
        return true;
    }
    for (;;) {
        if (!check_value(c, depth + 1))
            return false;
        if (c->text[c->at] == ',') {
            c->at++;
            continue;
        }
        if (c->text[c->at] == ']') {
            c->at++;
            return true;
        }
        return fail(c, "',' or ']' after an element");
    }
}

/* A value with the whitespace around it. */
static bool check_value(checker *c, int depth)
{
    skip_space(c);
    if (depth > GG_JSON_MAX_DEPTH) {
        char expected[64];
        snprintf(expected, sizeof expected, "arrays and objects nested at most %d deep", GG_JSON_MAX_DEPTH);
        return fail(c, expected);
    }
    bool ok;
    switch (c->text[c->at]) {
    case '{': ok = check_object(c, depth); break;
    case '[': ok = check_array(c, depth); break;
    case '"': ok = check_string(c); break;
    case 't': ok = check_word(c, "true"); break;
    case 'f': ok = check_word(c, "false"); break;
    case 'n': ok = check_word(c, "null"); break;
    default:
        if (c->text[c->at] == '-' || is_digit(c->text[c->at]))
            ok = check_number(c);
        else
            ok = fail(c, "a JSON value (object, array, string, number, true, false or null)");
    }
    if (ok)
        skip_space(c);
    return ok;
}

bool gg__json_check_syntax(const char *text, char *message, size_t message_size)
{
    checker c = { .text = text, .message = message, .message_size = message_size };
    if (!check_value(&c, 0))
        return false;
    if (text[c.at] != '\0')
        return fail(&c, "the end of the text after the value");
    return true;
}

char *gg__json_valid_utf8(char *text)
{
    if (text == NULL)
        return NULL;
    size_t extra = 0;
    const char *why;
    for (size_t i = 0, n; text[i] != '\0'; i += n ? n : 1)
        if ((n = gg__utf8_sequence(text + i, &why)) == 0)
            extra += 2; /* one byte becomes the three of U+FFFD */
    if (extra == 0)
        return text;
    size_t len = strlen(text);
    char *out = malloc(len + extra + 1);
    if (out != NULL) {
        size_t o = 0;
        for (size_t i = 0, n; text[i] != '\0'; i += n ? n : 1) {
            n = gg__utf8_sequence(text + i, &why);
            if (n == 0) {
                memcpy(out + o, "\xEF\xBF\xBD", 3);
                o += 3;
            } else {
                memcpy(out + o, text + i, n);
                o += n;
            }
        }
        out[o] = '\0';
    }
    free(text);
    return out;
}
