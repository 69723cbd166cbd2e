/* The PTX parser on its own: every fixture nvcc made loads; what the
 * interpreter cannot run is refused at load time with its line. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_module.h"

TestSuite(ptx_parse, .timeout = 30);

static char *read_fixture(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GG_PTX_FIXTURE_DIR, name);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

Test(ptx_parse, every_fixture_loads)
{
    static const char *const fixtures[] = { "vector_add.ptx", "divergent.ptx", "block_reduce.ptx",
                                            "warp_reduce.ptx", "oob_store.ptx", "trap.ptx",
                                            "assert.ptx", "mixed_ops.ptx", "spin.ptx",
                                            "generic_spaces.ptx", "bits.ptx" };
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        char *src = read_fixture(fixtures[i]);
        char err[512];
        cr_assert(ptx_image_is_ptx(src), "%s", fixtures[i]);
        ptx_module *m = ptx_module_parse(src, strlen(src), err, sizeof err);
        cr_assert_not_null(m, "%s: %s", fixtures[i], err);
        cr_assert_eq(m->nkernels, 1);
        ptx_module_free(m);
        free(src);
    }
}

Test(ptx_parse, parameters_come_from_the_declarations)
{
    char *src = read_fixture("mixed_ops.ptx");
    char err[512];
    ptx_module *m = ptx_module_parse(src, strlen(src), err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    const ptx_kernel *k = ptx_module_kernel(m, "mixed_ops");
    cr_assert_not_null(k);
    cr_assert_eq(k->nparams, 8);
    for (unsigned i = 0; i < 7; i++)
        cr_assert_eq(k->param_sizes[i], 8);
    cr_assert_eq(k->param_sizes[7], 4);
    cr_assert_null(ptx_module_kernel(m, "nope"));
    ptx_module_free(m);
    free(src);
}

#define HEADER ".version 9.0\n.target sm_75\n.address_size 64\n"

/* Parses src, which must fail with a message containing want. */
static void assert_refused(const char *src, const char *want)
{
    char err[512];
    ptx_module *m = ptx_module_parse(src, strlen(src), err, sizeof err);
    cr_assert_null(m, "accepted: %s", src);
    cr_assert(strstr(err, want) != NULL, "message \"%s\" lacks \"%s\"", err, want);
}

Test(ptx_parse, unknown_instruction_is_refused_with_its_line)
{
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 1;\n"
                          "\tfrobnicate.b32 %r1, %r1;\n\tret;\n}\n",
                   "PTX line 8: unknown instruction frobnicate.b32: frobnicate.b32 %r1, %r1;");
}

/* The .f16 forms the interpreter does not run are refused at load with
 * their line; the implemented ones load. */
#define F16_HEAD HEADER ".visible .entry k()\n{\n\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<4>;\n\t.reg .pred %p<2>;\n"
#define F16_KERNEL(body) F16_HEAD body "}\n"
Test(ptx_parse, f16_forms_load_or_are_refused_with_a_reason)
{
    assert_refused(F16_KERNEL("\tdiv.rn.f16 %rs1, %rs2, %rs3;\n"),
                   "PTX line 9: div.rn.f16: this .f16 form is not supported");
    assert_refused(F16_KERNEL("\tmad.f16 %rs1, %rs2, %rs3, %rs3;\n"),
                   "PTX line 9: mad.f16: this .f16 form is not supported");
    assert_refused(F16_KERNEL("\ttestp.finite.f16 %p1, %rs1;\n"),
                   "PTX line 9: testp.finite.f16: this .f16 form is not supported");
    assert_refused(F16_KERNEL("\tadd.f16x2 %r1, %r2, %r3;\n"),
                   "PTX line 9: modifier .f16x2 not supported in add.f16x2");
    assert_refused(F16_KERNEL("\tset.eq.f64.f16 %rs1, %rs2, %rs2;\n"),
                   "PTX line 9: set.eq.f64.f16: set needs a destination type");
    assert_refused(F16_KERNEL("\tset.eq.u32.u8 %r1, %rs2, %rs2;\n"),
                   "PTX line 9: set.eq.u32.u8: set needs a destination type");
    assert_refused(F16_KERNEL("\tset.eq.and.f16.f16 %rs1, %rs2, %rs2;\n"),
                   "PTX line 9: set takes a fourth (predicate) operand with a boolean operation only");
    assert_refused(F16_KERNEL("\tset.f16.f16 %rs1, %rs2, %rs2;\n"), "PTX line 9: set.f16.f16: no comparison");
    assert_refused(F16_KERNEL("\tmax.NaN.s32 %r1, %r2, %r2;\n"),
                   "PTX line 9: max.NaN.s32: .NaN takes .f32 or .f16");
    assert_refused(F16_KERNEL("\tcvt.rz.s32.f16 %r1, %rs1;\n"),
                   "PTX line 9: cvt.rz.s32.f16: float-to-integer conversion needs an integer rounding");
    assert_refused(F16_KERNEL("\tcvt.rz.bf16.f32 %rs1, %r1;\n"), "PTX line 9: modifier .bf16 not supported");
    static const char *const loads[] = {
        "\tcvt.rn.f16.f32 %rs1, %r1;\n", "\tcvt.f32.f16 %r1, %rs1;\n", "\tcvt.rzi.u8.f16 %rs1, %rs2;\n",
        "\tcvt.rn.f16.u64 %rs1, %rs2;\n", "\tsetp.gtu.f16 %p1, %rs1, %rs2;\n",
        "\tadd.rn.ftz.sat.f16 %rs1, %rs2, %rs3;\n", "\tfma.rn.f16 %rs1, %rs2, %rs3, %rs1;\n",
        "\tmax.f16 %rs1, %rs2, %rs3;\n", "\tneg.f16 %rs1, %rs2;\n", "\tabs.ftz.f16 %rs1, %rs2;\n",
        "\tset.nan.f16.f16 %rs1, %rs2, %rs2;\n", "\tset.lt.u32.f32 %r1, %r2, 0f3F800000;\n",
        "\tset.eq.or.s16.f16 %rs1, %rs2, 0x3C00, !%p1;\n", "\tmax.NaN.f16 %rs1, %rs2, %rs3;\n",
        "\t{.reg.b16 t;\n\tmov.b16 t, 0X3C00U;\n\tadd.f16 %rs1, t, t;\n\t}\n",
    };
    for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++) {
        char src[512], err[512];
        snprintf(src, sizeof src, "%s%s}\n", F16_HEAD, loads[i]);
        ptx_module *m = ptx_module_parse(src, strlen(src), err, sizeof err);
        cr_assert_not_null(m, "%s: %s", loads[i], err);
        ptx_module_free(m);
    }
}

Test(ptx_parse, unsupported_forms_are_refused_with_their_line)
{
    assert_refused(HEADER ".bogus 3\n", "PTX line 4: directive .bogus not supported");
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r5, 1;\n\tret;\n}\n",
                   "PTX line 7: unknown register %r5");
    assert_refused(HEADER ".visible .entry k()\n{\n\tbra $L_nowhere;\n}\n",
                   "PTX line 6: unknown label $L_nowhere");
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .f32 %f<2>;\n\tadd.rni.f32 %f1, %f1, %f1;\n}\n",
                   "PTX line 7: add.rni.f32: integral rounding on float arithmetic");
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tshf.l.b32 %r1, %r1, %r1, %r1;\n}\n",
                   "PTX line 7: shf.l.b32: shf needs .l or .r and .wrap or .clamp");
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tbfi.b32 %r1, %r1, %r1, %r1;\n}\n",
                   "PTX line 7: wrong number of operands");
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .f64 %fd<2>;\n\tex2.approx.f64 %fd1, %fd1;\n}\n",
                   "PTX line 7: ex2.approx.f64: type not supported");
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .f32 %f<2>;\n\t.reg .pred %p<2>;\n"
                          "\ttestp.f32 %p1, %f1;\n}\n",
                   "PTX line 8: testp.f32: testp needs the property to test");
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tatom.global.cas.b16 %r1, [%r1], 1, 2;\n}\n",
                   "PTX line 7: atom.global.cas.b16: this operation does not take this type");
    assert_refused(HEADER ".extern .func g();\n.visible .entry k()\n{\n\tcall.uni g, ();\n\tret;\n}\n",
                   "PTX line 7: call to g, which has no body in this module");
    assert_refused(HEADER ".visible .entry k(.param .u32 k_p)\n{\n\t.reg .b64 %rd<2>;\n"
                          "\tld.param.u64 %rd1, [k_p];\n\tret;\n}\n",
                   "PTX line 7: access beyond the parameter's declared size");
    assert_refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tld.shared::cta.u32 %r1, [%r1];\n}\n",
                   "PTX line 7: modifier .shared::cta not supported in ld.shared::cta.u32");
    assert_refused(HEADER, "no .entry in the module");
    assert_refused(HEADER ".visible .entry k()\n{\n\tret;\n", "the function has no closing '}'");
}

Test(ptx_parse, debug_directives_are_ignored)
{
    const char *src = "// comment\n" HEADER ".file 1 \"k.cu\"\n"
                      ".visible .entry k()\n.maxntid 128, 1, 1\n{\n"
                      "\t.loc 1 3 5\n\t.pragma \"nounroll\";\n\tret;\n}\n"
                      ".section .debug_str\n{\n.b8 0\n}\n";
    char err[512];
    ptx_module *m = ptx_module_parse(src, strlen(src), err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    ptx_module_free(m);
}

/* A .reg in an inner { } shadows an outer one of the same name only inside
 * it (nvcc's inline PTX of double sin/cos declares %r1..%r3 again in a
 * scope); registers named without '%' are registers too. */
Test(ptx_parse, scoped_registers_shadow_until_their_scope_closes)
{
    const char *src = HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n"
                      "\tmov.u32 %r1, 1;\n"
                      "\t{\n\t.reg .u32 %r1, t;\n\tmov.u32 %r1, 2;\n\tmov.u32 t, %r1;\n\t}\n"
                      "\tmov.u32 %r2, %r1;\n\tret;\n}\n";
    char err[512];
    ptx_module *m = ptx_module_parse(src, strlen(src), err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    const ptx_kernel *k = &m->kernels[0];
    cr_assert_geq(k->ncode, 4u);
    uint32_t outer = k->code[0].ops[0].reg, inner = k->code[1].ops[0].reg;
    cr_assert_neq(outer, inner, "the inner %%r1 has a slot of its own");
    cr_assert_eq(k->code[2].ops[1].reg, inner, "inside the scope %%r1 is the inner one");
    cr_assert_eq(k->code[3].ops[1].reg, outer, "after the scope %%r1 is the outer one again");
    ptx_module_free(m);
    /* The inner name is gone after its scope. */
    const char *gone = HEADER ".visible .entry k()\n{\n\t{\n\t.reg .u32 t;\n\t}\n\tmov.u32 t, 1;\n\tret;\n}\n";
    m = ptx_module_parse(gone, strlen(gone), err, sizeof err);
    cr_assert_null(m);
    cr_assert(strstr(err, "PTX line 9: unknown operand t") != NULL, "%s", err);
}

Test(ptx_parse, initialised_globals_are_kept)
{
    const char *src = HEADER ".global .align 4 .u32 tbl[3] = {1, -2, 0x10};\n"
                      ".const .align 8 .f64 c = 0d3FF0000000000000;\n"
                      ".visible .entry k()\n{\n\tret;\n}\n";
    char err[512];
    ptx_module *m = ptx_module_parse(src, strlen(src), err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    cr_assert_eq(m->nvars, 2);
    uint32_t t[3];
    memcpy(t, m->data + m->vars[0].offset, sizeof t);
    cr_assert_eq(t[0], 1u);
    cr_assert_eq(t[1], (uint32_t)-2);
    cr_assert_eq(t[2], 16u);
    double c;
    memcpy(&c, m->data + m->vars[1].offset, 8);
    cr_assert_eq(c, 1.0);
    ptx_module_free(m);
}

Test(ptx_parse, recognises_ptx_text_only)
{
    cr_assert(ptx_image_is_ptx("  // nvcc\n/* x */\n.version 9.0\n"));
    cr_assert(ptx_image_is_ptx(".target sm_75\n.visible .entry k() { ret; }"));
    cr_assert_not(ptx_image_is_ptx("gg-sim-module:/x.so"));
    /* A binary image is not searched: it may have no NUL. */
    static const unsigned char fatbin[] = { 0x50, 0xed, 0x55, 0xba, 0x01, 0x00, '.', 'e', 'n', 't',
                                            'r', 'y', 0 };
    cr_assert_not(ptx_image_is_ptx((const char *)fatbin));
}

/* A kernel or function takes up to 256 parameters (numba passes 5 + 2 x
 * ndim per array); the 257th is refused with the bound. */
static char *kernel_with_params(unsigned n)
{
    size_t cap = 256 + (size_t)n * 32;
    char *src = malloc(cap);
    cr_assert_not_null(src);
    size_t at = (size_t)snprintf(src, cap, HEADER ".visible .entry k(");
    for (unsigned i = 0; i < n; i++)
        at += (size_t)snprintf(src + at, cap - at, "%s.param .u32 p%u", i ? ", " : "", i);
    snprintf(src + at, cap - at, ")\n{\n\tret;\n}\n");
    return src;
}

Test(ptx_parse, up_to_256_parameters)
{
    char err[512];
    char *src = kernel_with_params(256);
    ptx_module *m = ptx_module_parse(src, strlen(src), err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    ptx_module_free(m);
    free(src);
    src = kernel_with_params(257);
    assert_refused(src, "more than 256 parameters are not supported");
    free(src);
}

/* A .weak function defined again (linked inputs each carrying a copy) keeps
 * its first body; a second definition of a non-weak one is refused. */
Test(ptx_parse, a_weak_function_defined_twice_keeps_its_first_body)
{
    char err[512];
    const char *src = HEADER
        ".weak .func (.param .b32 r) one()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 1;\n\tst.param.b32 [r], %r1;\n\tret;\n}\n"
        ".weak .func (.param .b32 r) one()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 2;\n\tst.param.b32 [r], %r1;\n\tret;\n}\n"
        ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t{\n\t.param .b32 ret;\n\tcall.uni (ret), one, ();\n"
        "\tld.param.b32 %r1, [ret];\n\t}\n\tret;\n}\n";
    ptx_module *m = ptx_module_parse(src, strlen(src), err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    ptx_module_free(m);
    assert_refused(HEADER ".func f()\n{\n\tret;\n}\n.func f()\n{\n\tret;\n}\n.visible .entry k()\n{\n\tret;\n}\n",
                   "function f defined twice");
}

/* A .weak .global defined again (each linked input carrying numba's
 * environment pointer) is one variable; a second definition with another
 * size is refused. */
Test(ptx_parse, a_weak_variable_defined_twice_is_one_variable)
{
    char err[512];
    const char *src = HEADER ".weak .global .align 8 .u64 env = 5;\n"
                             ".weak .global .align 8 .u64 env = 9;\n"
                             ".visible .entry k()\n{\n\tret;\n}\n";
    ptx_module *m = ptx_module_parse(src, strlen(src), err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    cr_assert_eq(m->nvars, 1u);
    uint64_t v;
    memcpy(&v, m->data + m->vars[0].offset, 8);
    cr_assert_eq(v, 5u, "the first definition's initialiser");
    ptx_module_free(m);
    assert_refused(HEADER ".weak .global .u64 env;\n.weak .global .u32 env;\n.visible .entry k()\n{\n\tret;\n}\n",
                   ".weak variable defined again with another size");
    /* .common, as numba declares its environment pointers, likewise. */
    const char *common = HEADER ".common .global .align 8 .u64 env;\n.common .global .align 8 .u64 env;\n"
                                ".visible .entry k()\n{\n\tret;\n}\n";
    m = ptx_module_parse(common, strlen(common), err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    cr_assert_eq(m->nvars, 1u);
    ptx_module_free(m);
}
