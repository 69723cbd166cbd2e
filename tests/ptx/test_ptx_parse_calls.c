/* The parser and the inliner on device functions and calls: what loads,
 * how it is laid out, and what is refused (with the call's line). */
#include <criterion/criterion.h>

#include "ptx_inline.h"
#include "ptx_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(ptx_parse_calls, .timeout = 60);

#define HEADER ".version 9.0\n.target sm_75\n.address_size 64\n" /* lines 1-3 */

static void assert_refused(const char *src, const char *want)
{
    char err[512];
    ptx_module *m = ptx_module_parse(src, strlen(src), err, sizeof err);
    cr_assert_null(m, "accepted: %s", src);
    cr_assert(strstr(err, want) != NULL, "message \"%s\" lacks \"%s\"", err, want);
}

static ptx_module *assert_parses(const char *src)
{
    char err[512];
    ptx_module *m = ptx_module_parse(src, strlen(src), err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    return m;
}

/* A function f(a) returning a + 1, declared ahead, called by k, defined
 * after k. */
#define INC_DECL ".func (.param .b32 func_retval0) inc(.param .b32 inc_param_0);\n" /* line 4 */
#define INC_DEF                                                                           \
    ".func (.param .b32 func_retval0) inc(.param .b32 inc_param_0)\n{\n"                  \
    "\t.reg .b32 %r<3>;\n\tld.param.u32 %r1, [inc_param_0];\n\tadd.s32 %r2, %r1, 1;\n"    \
    "\tst.param.b32 [func_retval0+0], %r2;\n\tret;\n}\n"
#define CALL_INC(arg_decl)                                                                \
    "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r1;\n\t" arg_decl             \
    "\tcall.uni (retval0), inc, (param0);\n\tld.param.b32 %r1, [retval0+0];\n\t}\n"

Test(ptx_parse_calls, a_call_is_inlined_with_its_frame_after_the_callers)
{
    ptx_module *m = assert_parses(HEADER INC_DECL
                                  ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 5;\n"
                                  CALL_INC(".param .b32 retval0;\n") "\tret;\n}\n" INC_DEF);
    const ptx_kernel *k = ptx_module_kernel(m, "k");
    cr_assert_not_null(k);
    /* k's two registers, then inc's three; k's frame: param0 and retval0. */
    cr_assert_eq(k->nregs, 2 + 3);
    cr_assert_eq(k->local_bytes, 8);
    bool saw_call = false, saw_return_branch = false;
    for (size_t i = 0; i < k->ncode; i++) {
        cr_assert_neq(k->code[i].op, PTX_OP_CALL, "a call left at %zu", i);
        if (k->code[i].op == PTX_OP_LD && k->code[i].space == PTX_SPACE_LOCAL &&
            k->code[i].ops[1].imm == 0 && k->code[i].ops[0].reg == 2 + 1)
            saw_call = true; /* inc's ld.param of its parameter: k's param0 slot */
        if (k->code[i].op == PTX_OP_BRA && k->code[i].target == i + 1)
            saw_return_branch = true; /* inc's ret: past its copy */
    }
    cr_assert(saw_call && saw_return_branch);
    ptx_module_free(m);
}

Test(ptx_parse_calls, refusals_name_the_call)
{
    /* line 4: INC_DECL; 5: .entry; 6: {; 7: .reg; 8: mov; 9: {; 10-12: param0,
     * st, retval0 decl; 13: call */
    assert_refused(HEADER INC_DECL ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 5;\n"
                   CALL_INC(".param .b32 retval0;\n") "\tret;\n}\n",
                   "PTX line 13: call to inc, which has no body in this module");
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 5;\n"
                   CALL_INC(".param .b32 retval0;\n") "\tret;\n}\n",
                   "PTX line 12: call to unknown function inc");
    /* Two arguments to a one-parameter function. */
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t{\n\t.param .b32 param0;\n"
                   "\t.param .b32 param1;\n\t.param .b32 retval0;\n"
                   "\tcall.uni (retval0), inc, (param0, param1);\n\t}\n\tret;\n}\n" INC_DEF,
                   "PTX line 11: wrong number of arguments: inc takes 1, the call passes 2");
    /* An argument of the wrong size. */
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t{\n\t.param .b64 param0;\n"
                   "\t.param .b32 retval0;\n\tcall.uni (retval0), inc, (param0);\n\t}\n\tret;\n}\n" INC_DEF,
                   "PTX line 10: parameter 0 of inc is 4 bytes, the call's is 8 bytes");
    /* A .param name outside its call scope. */
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t{\n\t.param .b32 param0;\n\t}\n"
                   "\tst.param.b32 [param0+0], %r1;\n\tret;\n}\n",
                   "PTX line 10: unknown symbol param0");
    /* Beyond the .param's size. */
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t{\n\t.param .b32 param0;\n"
                   "\tst.param.b32 [param0+4], %r1;\n\t}\n\tret;\n}\n",
                   "PTX line 9: access beyond the parameter's declared size");
    /* Calls through a register. */
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .b64 %rd<2>;\n\tcall.uni %rd1, ();\n\tret;\n}\n",
                   "PTX line 7: indirect calls");
    /* Defined twice. */
    assert_refused(HEADER INC_DEF INC_DEF ".visible .entry k()\n{\n\tret;\n}\n",
                   "PTX line 12: function inc defined twice");
}

/* The kernel's code: how many PTX_OP_CALL (none may be left), RCALL and
 * RRET it holds. */
static void count_calls(const ptx_kernel *k, unsigned *rcall, unsigned *rret)
{
    *rcall = *rret = 0;
    for (size_t i = 0; i < k->ncode; i++) {
        cr_assert_neq(k->code[i].op, PTX_OP_CALL, "a call left at %zu", i);
        *rcall += k->code[i].op == PTX_OP_RCALL;
        *rret += k->code[i].op == PTX_OP_RRET;
    }
}

Test(ptx_parse_calls, recursion_direct_and_mutual_gets_real_calls)
{
    /* f calls itself: one body after k's, called from k and from itself. */
    ptx_module *m = assert_parses(HEADER ".func f()\n{\n\t{\n\tcall.uni f, ();\n\t}\n\tret;\n}\n"
                                  ".visible .entry k()\n{\n\t{\n\tcall.uni f, ();\n\t}\n\tret;\n}\n");
    const ptx_kernel *k = ptx_module_kernel(m, "k");
    unsigned rcall, rret;
    count_calls(k, &rcall, &rret);
    cr_assert_eq(rcall, 2);
    cr_assert_eq(rret, 2, "f's ret and the one the parser ends every body with");
    cr_assert_eq(k->nrfuncs, 1);
    cr_assert_eq(k->nrcalls, 2);
    cr_assert_eq(ptx_kernel_thread_local_bytes(k, PTX_CALL_STACK_BYTES), k->stack_base + PTX_CALL_STACK_BYTES);
    cr_assert_eq(k->code[k->rfuncs[0].entry].op, PTX_OP_RCALL, "f's first instruction is its call");
    ptx_module_free(m);
    /* a calls b, b calls a, and a non-recursive inc inlined into b: both
     * recursive functions get a body; inc is copied into b's. */
    m = assert_parses(HEADER ".func b();\n.func a()\n{\n\t{\n\tcall.uni b, ();\n\t}\n\tret;\n}\n"
                      ".func b()\n{\n\t.reg .b32 %r<2>;\n\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r1;\n"
                      "\t.param .b32 retval0;\n\tcall.uni (retval0), inc, (param0);\n\tld.param.b32 %r1, [retval0+0];\n"
                      "\t}\n\t{\n\tcall.uni a, ();\n\t}\n\tret;\n}\n"
                      ".visible .entry k()\n{\n\t{\n\tcall.uni a, ();\n\t}\n\tret;\n}\n" INC_DEF);
    k = ptx_module_kernel(m, "k");
    count_calls(k, &rcall, &rret);
    cr_assert_eq(rcall, 3, "k->a, a->b, b->a");
    cr_assert_eq(rret, 4, "two per body (see above)");
    cr_assert_eq(k->nrfuncs, 2);
    /* b's window: its frame pointer, its 2 registers, inc's 3. */
    for (size_t r = 0; r < k->nrfuncs; r++)
        if (k->rfuncs[r].nparams == 0 && k->rfuncs[r].save_offset > 0)
            cr_assert_eq(k->rfuncs[r].nregs, 1 + 2 + 3);
    ptx_module_free(m);
}

Test(ptx_parse_calls, a_non_recursive_call_graph_has_no_call_stack)
{
    ptx_module *m = assert_parses(HEADER INC_DECL
                                  ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 5;\n"
                                  CALL_INC(".param .b32 retval0;\n") "\tret;\n}\n" INC_DEF);
    const ptx_kernel *k = ptx_module_kernel(m, "k");
    unsigned rcall, rret;
    count_calls(k, &rcall, &rret);
    cr_assert_eq(rcall + rret, 0);
    cr_assert_eq(k->nrfuncs + k->nrcalls, 0);
    /* No call stack whatever the limit. */
    cr_assert_eq(ptx_kernel_thread_local_bytes(k, PTX_CALL_STACK_BYTES), k->local_bytes);
    cr_assert_eq(ptx_kernel_thread_local_bytes(k, ptx_call_stack_bytes(PTX_MAX_STACK_LIMIT)), k->local_bytes);
    ptx_module_free(m);
}

Test(ptx_parse_calls, what_recursive_functions_cannot_do_is_refused)
{
    /* printf inside a recursive function (its call on line 9). */
    assert_refused(HEADER ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);\n"
                   ".func f()\n{\n\t{\n\t.param .b64 param0;\n\t.param .b64 param1;\n"
                   "\t.param .b32 retval0;\n\tcall.uni (retval0), vprintf, (param0, param1);\n\t}\n"
                   "\t{\n\tcall.uni f, ();\n\t}\n\tret;\n}\n"
                   ".visible .entry k()\n{\n\t{\n\tcall.uni f, ();\n\t}\n\tret;\n}\n",
                   "PTX line 11: printf inside a recursive function is not supported");
    /* A .local symbol's address moved into a 16-bit register. */
    assert_refused(HEADER ".func f()\n{\n\t.local .align 4 .b8 d[8];\n\t.reg .b16 %h<2>;\n"
                   "\tmov.u16 %h1, d;\n\t{\n\tcall.uni f, ();\n\t}\n\tret;\n}\n"
                   ".visible .entry k()\n{\n\t{\n\tcall.uni f, ();\n\t}\n\tret;\n}\n",
                   "PTX line 8: this use of a .local address in a recursive function is not supported");
}

/* The PTX at `path` (relative to the fixtures), parsed. */
static ptx_module *parse_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GG_PTX_FIXTURE_DIR, name);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *src = malloc((size_t)n + 1);
    cr_assert_eq(fread(src, 1, (size_t)n, f), (size_t)n);
    src[n] = '\0';
    fclose(f);
    ptx_module *m = assert_parses(src);
    free(src);
    return m;
}

/* The layout test_ptx_recursion.c's stack bound counts on: one activation
 * of depth() in recursion.ptx. */
Test(ptx_parse_calls, recursion_fixture_activation_layout)
{
    ptx_module *m = parse_file("recursion.ptx");
    const ptx_kernel *k = ptx_module_kernel(m, "recursion_depth");
    cr_assert_not_null(k);
    cr_assert_eq(k->nrfuncs, 1);
    /* params 2 x 16, frame 16, 20 registers (fp + 19) x 8, trailer 16 */
    cr_assert_eq(k->rfuncs[0].activation_bytes, 224, "update test_ptx_recursion.c's DEPTH_ACTIVATION_BYTES");
    k = ptx_module_kernel(m, "recursion");
    cr_assert_not_null(k);
    cr_assert_eq(k->nrfuncs, 6, "factorial fib is_even is_odd frame_array fill_down");
    ptx_module_free(m);
}

/* The scale of ptx_inline.h (PTX_STACK_SCALE): the activation of depth()
 * in tools/driver-facts/limits_kernels.ptx here against the frame ptxas
 * gave it for the H100 (120 bytes, docs/DRIVER-FACTS.md): about 4x, under
 * the scale of 16. */
Test(ptx_parse_calls, the_h100_probe_activation_is_under_the_stack_scale)
{
    ptx_module *m = parse_file("../../../tools/driver-facts/limits_kernels.ptx");
    const ptx_kernel *k = ptx_module_kernel(m, "recurse");
    cr_assert_not_null(k);
    cr_assert_eq(k->nrfuncs, 1);
    cr_assert_eq(k->rfuncs[0].activation_bytes, 496u, "update ptx_inline.h's comment");
    cr_assert_lt(k->rfuncs[0].activation_bytes, PTX_STACK_SCALE * 120u);
    /* Non-recursive kernels of the same module have no stack. */
    const ptx_kernel *fill = ptx_module_kernel(m, "fill_u32");
    cr_assert_not_null(fill);
    cr_assert_eq(ptx_kernel_thread_local_bytes(fill, ptx_call_stack_bytes(PTX_MAX_STACK_LIMIT)), fill->local_bytes);
    ptx_module_free(m);
}

/* A chain f0 <- f1 <- ... <- f{depth-1}, k calling f{depth-1}: calls nested
 * `depth` deep. */
static char *call_chain(unsigned depth)
{
    size_t cap = 256 + depth * 96;
    char *s = malloc(cap);
    size_t at = (size_t)snprintf(s, cap, "%s.func f0()\n{\n\tret;\n}\n", HEADER);
    for (unsigned i = 1; i < depth; i++)
        at += (size_t)snprintf(s + at, cap - at, ".func f%u()\n{\n\t{\n\tcall.uni f%u, ();\n\t}\n\tret;\n}\n", i,
                               i - 1);
    snprintf(s + at, cap - at, ".visible .entry k()\n{\n\t{\n\tcall.uni f%u, ();\n\t}\n\tret;\n}\n", depth - 1);
    return s;
}

Test(ptx_parse_calls, call_depth_bound_and_bound_plus_one)
{
    char *ok = call_chain(PTX_MAX_CALL_DEPTH);
    ptx_module *m = assert_parses(ok);
    ptx_module_free(m);
    free(ok);
    char *deep = call_chain(PTX_MAX_CALL_DEPTH + 1);
    char err[512];
    m = ptx_module_parse(deep, strlen(deep), err, sizeof err);
    cr_assert_null(m);
    cr_assert(strstr(err, "calls nested deeper than 64") != NULL, "%s", err);
    free(deep);
}

/* k calls f `calls` times; f has `body` instructions besides its ret. */
static char *many_calls(unsigned calls, unsigned body)
{
    size_t cap = 256 + (size_t)calls * 48 + (size_t)body * 24;
    char *s = malloc(cap);
    size_t at = (size_t)snprintf(s, cap, "%s.func f()\n{\n\t.reg .b32 %%r<2>;\n", HEADER);
    for (unsigned i = 0; i < body; i++)
        at += (size_t)snprintf(s + at, cap - at, "\tadd.s32 %%r1, %%r1, 1;\n");
    at += (size_t)snprintf(s + at, cap - at, "\tret;\n}\n.visible .entry k()\n{\n");
    for (unsigned i = 0; i < calls; i++)
        at += (size_t)snprintf(s + at, cap - at, "\t{\n\tcall.uni f, ();\n\t}\n");
    snprintf(s + at, cap - at, "\tret;\n}\n");
    return s;
}

Test(ptx_parse_calls, inlined_size_bound_and_bound_plus_one)
{
    /* f's copy: 1023 adds + its ret (a branch) = 1024 instructions; k:
     * `calls` copies and its ret, and the final ret the parser adds. */
    unsigned per_copy = 1024, calls = (PTX_MAX_INLINED_INSNS - 2) / per_copy;
    char *fits = many_calls(calls, per_copy - 1);
    ptx_module *m = assert_parses(fits);
    cr_assert_leq(ptx_module_kernel(m, "k")->ncode, (size_t)PTX_MAX_INLINED_INSNS);
    size_t left = PTX_MAX_INLINED_INSNS - ptx_module_kernel(m, "k")->ncode;
    ptx_module_free(m);
    free(fits);
    /* One instruction more than the bound: the same with `left + 1` more
     * adds spread by one more call of a function that long. */
    char *too_big = many_calls(calls, per_copy - 1 + (unsigned)(left / calls) + 1);
    char err[512];
    m = ptx_module_parse(too_big, strlen(too_big), err, sizeof err);
    cr_assert_null(m);
    cr_assert(strstr(err, "more than 524288 instructions once calls are inlined") != NULL, "%s", err);
    free(too_big);
}
