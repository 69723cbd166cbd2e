/*
 * Fault plans: the JSON format, parsed once for the two things that apply
 * plans — libgpuguard's fault gate (src/common/fault.c), whose targets are
 * gpuguard's operations, and the interposing driver (src/intercept), whose
 * targets are driver functions. Neither the parsing nor the rule matching
 * and selection knows which: a plan's targets are a set of indices that the
 * caller's naming functions fill in, so both read one format with one set
 * of messages, and both match a call against the rules with one function
 * (gg__fault_plan_next_fired).
 *
 * Not thread-safe by itself: a caller holds its own lock around
 * gg__fault_plan_next_fired, gg__fault_rule_hit and the counts.
 */
#ifndef GPUGUARD_FAULT_PLAN_H
#define GPUGUARD_FAULT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuguard/gpuguard.h"

/* Up to this many targets (operations or driver functions) can be named: a
 * 256-byte bit set per rule. Fixed at build time: fault.c and the
 * interposer check their target counts against it with _Static_assert. */
#define GG_FAULT_TARGETS_MAX 2048

typedef struct gg__fault_targets {
    uint64_t bits[GG_FAULT_TARGETS_MAX / 64];
} gg__fault_targets;

static inline void gg__fault_targets_add(gg__fault_targets *t, int index)
{
    t->bits[index / 64] |= 1ull << (index % 64);
}

static inline bool gg__fault_targets_has(const gg__fault_targets *t, int index)
{
    return (t->bits[index / 64] >> (index % 64)) & 1u;
}

typedef enum gg__fault_which {
    GG_FAULT_WHICH_ALL,
    GG_FAULT_WHICH_NTH,
    GG_FAULT_WHICH_RANGE,
    GG_FAULT_WHICH_EVERY,
    GG_FAULT_WHICH_PROBABILITY
} gg__fault_which;

typedef struct gg__fault_rule {
    gg__fault_targets targets;
    bool any_target;        /* "op": "*" */
    const char *target_field; /* "op" or "function", for reports */
    char *target_name;      /* the name as the plan wrote it (owned) */
    gg__fault_which which;
    uint64_t first, last;   /* NTH: first == last; RANGE: last 0 = open-ended */
    uint64_t every;
    double probability;
    uint64_t rng;           /* PROBABILITY: this rule's generator state */
    int device;             /* -1 = any */
    char kernel[GG_NAME_MAX]; /* "" = any */
    gg_status error;        /* the named error; GG_DRIVER for a numeric one */
    bool has_native_error;  /* "error": <number> (interposer only) */
    int native_error;
    bool async;
    uint64_t matched, fired;
} gg__fault_rule;

typedef struct gg__fault_plan {
    gg__fault_rule *rules;
    size_t count;
    char *source; /* the plan's text, reported so a sweep can tell its plan is the one in force */
} gg__fault_plan;

/* What a plan's names mean to the one applying it. */
typedef struct gg__fault_naming {
    void *self;
    /* "op": adds the targets of operation `name` to *t; false if unknown. */
    bool (*op_targets)(void *self, const char *name, gg__fault_targets *t);
    /* "function": adds the driver functions `name` stands for; false if
     * unknown. NULL: the field is not part of this format (libgpuguard). */
    bool (*function_targets)(void *self, const char *name, gg__fault_targets *t);
    /* Whether injecting `error` (or, numerically, `native`) kills a
     * context, as "mode": "async" requires. */
    bool (*kills_context)(void *self, gg_status error, bool numeric, int native);
    /* Whether a "kernel" filter goes with the rule's targets; NULL: never
     * (the message then says the filter is not available here). */
    bool (*kernel_filter_allowed)(void *self, const gg__fault_targets *t, bool any_target);
    const char *kernel_filter_ops; /* named in the message: "\"launch\" and \"kernel_get\"" */
    bool numeric_errors;           /* "error" may be a CUresult number */
} gg__fault_naming;

/* Parses `json` into *out (malloc'd through gg__malloc; free with
 * gg__fault_plan_free). GG_OK; GG_INVALID_ARGUMENT for a bad plan, with
 * `message` naming the rule and the field ("fault plan: rule 2: ...");
 * GG_OUT_OF_MEMORY. */
gg_status gg__fault_plan_parse(const char *json, const gg__fault_naming *naming, gg__fault_plan **out,
                               char *message, size_t message_size);
void gg__fault_plan_free(gg__fault_plan *p);

/* A plan's text from an environment variable's `value`: the value itself,
 * or with "@FILE" the file's contents (under 16 MiB). Malloc'd (gg__free);
 * NULL with `message` naming `variable` and *status GG_INVALID_ARGUMENT or
 * GG_OUT_OF_MEMORY. */
char *gg__fault_plan_text(const char *value, const char *variable, gg_status *status, char *message,
                          size_t message_size);

/* One matching call seen by rule `r`: counts it, and true when the rule
 * selects this call (counted as fired). The caller has checked the
 * targets, device and kernel (gg__fault_plan_next_fired does all of it). */
bool gg__fault_rule_hit(gg__fault_rule *r);

/* One call as a plan's rules see it. The device and the kernel are asked
 * for only when a rule filters on them (the interposer's device is a call
 * into the real driver). */
typedef struct gg__fault_call {
    int target; /* the operation's or the driver function's index */
    const void *self;
    /* The device the call runs on, or -1 when it has none. */
    int (*device)(const void *self);
    /* Whether the call concerns the kernel that `filter` (a rule's "kernel",
     * a GG_NAME_MAX record) names; NULL: no call concerns a kernel, and a
     * rule with a kernel filter never matches. */
    bool (*names_kernel)(const void *self, const char *filter);
} gg__fault_call;

/* The rule matching of both appliers (libgpuguard's gate and the
 * interposer's): the first rule of `p`, from index *from on, whose target
 * set holds call->target (or that names any target), whose device (if it
 * names one) is the call's and whose kernel filter (if any) names the
 * call's kernel, and that selects this call (gg__fault_rule_hit: every
 * matching rule passed on the way is counted as matched). Returns that
 * rule, with *from set to its index (the caller goes on from *from + 1);
 * NULL when no rule from *from on fires. The caller holds its plan lock. */
gg__fault_rule *gg__fault_plan_next_fired(gg__fault_plan *p, const gg__fault_call *call, size_t *from);

/* The error names of the format and their statuses (NULL for an unknown
 * status). */
const char *gg__fault_error_name(gg_status status);

#endif
