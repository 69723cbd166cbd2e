/*
 * Pass-through exports: a trampoline for every function of the real CUDA
 * driver (535) and HIP runtime (5.2.3) that the interposer does not wrap
 * (tools/intercept/gen_passthrough.py writes them from the export lists in
 * exports/). Trampoline i jumps through gg_icpt_pass_slots[i]; each slot
 * starts at a lazy stub that saves the argument registers, asks
 * gg_icpt_pass_resolve(i) for the real function (loading its library on
 * first use), stores it in the slot and jumps to it, so a pass-through call
 * costs one indirect jump after its first. x86-64 only.
 */
#ifndef GG_INTERCEPT_PASSTHROUGH_H
#define GG_INTERCEPT_PASSTHROUGH_H

#include <stddef.h>

#include "intercept.h"
#include "intercept_passthrough_count.h"

typedef struct gg_icpt_pass_row {
    const char *name;
    const char *version; /* the HIP runtime's symbol version; NULL for the CUDA driver's */
    int face;            /* gg_icpt_face */
    int returns_text;    /* returns a const char * (hipGetErrorName...), not an error code */
} gg_icpt_pass_row;

extern const gg_icpt_pass_row gg_icpt_pass_rows[GG_ICPT_PASS_COUNT];
/* Written by the generated assembly (initially the lazy stubs). */
extern gg_icpt_fnptr gg_icpt_pass_slots[GG_ICPT_PASS_COUNT];

/* The real function for pass-through row `index`, stored in its slot: the
 * library's own (by name and version), or, where the library is missing or
 * lacks the function, one that returns the face's error for that: an int,
 * right for every function of both APIs that returns a CUresult /
 * hipError_t, which all but a few do; the few that return text
 * (returns_text) get a sentence saying what is missing instead. Called by
 * the lazy stub. */
gg_icpt_fnptr gg_icpt_pass_resolve(size_t index);

#endif
