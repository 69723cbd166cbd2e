/* A recursive-descent checker of RFC 8259 syntax (see json_syntax.h). It
 * only answers "is this one JSON value, and if not, where and what was
 * expected"; cJSON builds the tree afterwards. */
#include "common/json_syntax.h"

#include <stdio.h>
#include <string.h>

typedef struct checker {
    const char *text;
    size_t at;
    char *message;
    size_t message_size;
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

static bool check_object(checker *c, int depth)
{
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
        if (!check_string(c))
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
    checker c = { text, 0, message, message_size };
    if (!check_value(&c, 0))
        return false;
    if (text[c.at] != '\0')
        return fail(&c, "the end of the text after the value");
    return true;
}
