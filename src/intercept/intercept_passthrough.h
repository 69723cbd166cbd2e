/*
 * Pass-through exports: a trampoline for every function of the real CUDA
 * driver (535) and HIP runtime (5.2.3) that the interposer does not wrap
 * (tools/intercept/gen_passthrough.py writes them from the export lists in
 * exports/). Trampoline i jumps through gg_icpt_pass_slots[i]; each slot
 * starts at a lazy stub that saves the argument registers, asks
 * gg_icpt_pass_resolve(i) for the function to go on to (loading its
 * library on first use) and jumps to it with the caller's arguments.
 *
 * With no plan and no report the real function is stored in the slot, so a
 * pass-through call costs one indirect jump after its first. While the
 * interposer watches (a plan or a report), a function that returns an
 * error code (RESULT "error" in the lists) keeps its lazy stub: each of
 * its calls is counted, and a plan can fail it (the stub then goes on to a
 * function that returns the injected error without calling the real one)
 * or latch a sticky error, as for the wrapped functions. That needs no
 * signature: the error is the return value, whatever the arguments were.
 * Functions that return anything else are only ever passed through.
 * x86-64 only.
 */
#ifndef GG_INTERCEPT_PASSTHROUGH_H
#define GG_INTERCEPT_PASSTHROUGH_H

#include <stddef.h>

#include "intercept.h"

/* What a pass-through function returns (the lists' RESULT column). */
typedef enum gg_icpt_pass_result {
    GG_ICPT_PASS_ERROR, /* a CUresult / hipError_t: counted and failable while watching */
    GG_ICPT_PASS_TEXT,  /* a const char *: a sentence when the library is missing */
    GG_ICPT_PASS_OTHER  /* anything else, or not declared: passed through only */
} gg_icpt_pass_result;

typedef struct gg_icpt_pass_row {
    const char *name;
    const char *version; /* the HIP runtime's symbol version; NULL for the CUDA driver's */
    int face;            /* gg_icpt_face */
    int result;          /* gg_icpt_pass_result */
} gg_icpt_pass_row;

extern const gg_icpt_pass_row gg_icpt_pass_rows[GG_ICPT_PASS_COUNT];
/* Written by the generated assembly (initially the lazy stubs). */
extern gg_icpt_fnptr gg_icpt_pass_slots[GG_ICPT_PASS_COUNT];

/* The function lazy stub `index` goes on to, with the caller's arguments:
 * the library's own (by name and version); where the library is missing or
 * lacks the function, one that returns the face's error for that (an int,
 * right for the functions that return an error code; those that return
 * text get a sentence saying what is missing; the others are never called
 * with a missing library by a program that checked its loading); while
 * watching, for an error-returning function, after counting the call and
 * applying the plan, possibly one that returns the injected error. Stores
 * the real function in the slot when no later call needs to come back
 * here. Called by the lazy stub (intercept_passthrough_lazy.S). */
gg_icpt_fnptr gg_icpt_pass_resolve(size_t index);

#endif
