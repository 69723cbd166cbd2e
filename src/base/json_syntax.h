/*
 * Strict JSON syntax checking, before cJSON parses a text.
 *
 * cJSON accepts a value followed by anything (`{"rules": []} junk`) and
 * reports a syntax error only as a pointer into the text. The settings
 * gpuguard and its simulated driver read (fault plans, GPUGUARD_SIM_CONFIG)
 * must be refused when they are not exactly one JSON value, with an error
 * that says where and what was expected. Beyond RFC 8259's grammar it
 * refuses what would make cJSON (or another reader) see something other
 * than the text says: invalid UTF-8, NUL in a string, and a member name
 * given twice in one object (RFC 8259 leaves both to the reader). Part of
 * the shared base (src/base), linked into libgpuguard, the simulated driver
 * and the interposer (each keeps its own hidden copy); the check allocates
 * nothing.
 */
#ifndef GPUGUARD_JSON_SYNTAX_H
#define GPUGUARD_JSON_SYNTAX_H

#include <stdbool.h>
#include <stddef.h>

/* How deeply arrays and objects may nest; deeper texts are refused (the
 * checker recurses, and no setting needs more than a few levels). The top
 * value is at depth 0: a value at depth 65 is refused naming the bound,
 * with its offset (about 100 bytes of stack a level; crossed by
 * tests/core/test_bounds.c). */
#define GG_JSON_MAX_DEPTH 64

/* How many member names the objects open at one point may hold together
 * (an object's own, plus those its enclosing objects had before it): the
 * duplicate check keeps them in a fixed table of this many (16 bytes each,
 * on the stack), so that it allocates nothing. A fault plan's objects have
 * a dozen members at most; a text past the bound is refused naming it. */
#define GG_JSON_MAX_OPEN_MEMBERS 512

/* True when `text` is exactly one JSON value (RFC 8259) with only
 * whitespace around it, whose strings are valid UTF-8 (RFC 3629: no
 * overlong forms, surrogates, code points above U+10FFFF, stray or missing
 * continuation bytes; a \uD800-style escape must pair with a low one),
 * contain no NUL (raw NUL ends the C string; \u0000 is refused), and whose
 * objects name each member once (names compared after decoding escapes).
 * Otherwise false, with `message` saying "at offset N: expected WHAT,
 * found WHAT" (offset in bytes from 0; a duplicate names the member and
 * where it was first given). `text` must not be NULL. */
bool gg__json_check_syntax(const char *text, char *message, size_t message_size);

/* The length (1 to 4) of the valid UTF-8 sequence at `text`, or 0 with
 * *why saying what is wrong ("an overlong form", ...). A NUL at `text` is
 * a sequence of 1; a NUL inside a sequence cuts it short. */
size_t gg__utf8_sequence(const char *text, const char **why);

/* `text` (malloc'd, e.g. by cJSON_Print) with every byte that does not
 * start a valid UTF-8 sequence replaced by U+FFFD: so that JSON gpuguard
 * writes stays valid whatever names drivers and programs gave it. Returns
 * `text` itself when it was valid, else a new malloc'd copy (`text` is
 * freed); NULL when `text` is NULL or the copy cannot be allocated (`text`
 * is freed then too). */
char *gg__json_valid_utf8(char *text);

#endif
