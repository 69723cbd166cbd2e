/*
 * Strict JSON syntax checking, before cJSON parses a text.
 *
 * cJSON accepts a value followed by anything (`{"rules": []} junk`) and
 * reports a syntax error only as a pointer into the text. The settings
 * gpuguard and its simulated driver read (fault plans, GPUGUARD_SIM_CONFIG)
 * must be refused when they are not exactly one JSON value, with an error
 * that says where and what was expected. This file is compiled into both
 * libgpuguard and the simulated driver (each keeps its own hidden copy) and
 * allocates nothing.
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

/* True when `text` is exactly one JSON value (RFC 8259) with only
 * whitespace around it. Otherwise false, with `message` saying
 * "at offset N: expected WHAT, found WHAT" (offset in bytes from 0).
 * `text` must not be NULL. */
bool gg__json_check_syntax(const char *text, char *message, size_t message_size);

#endif
