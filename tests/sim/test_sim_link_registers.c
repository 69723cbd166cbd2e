/* cuFuncGetAttribute(NUM_REGS) as a real driver bounds it: never above the
 * architecture's 255 registers per thread, nor above the
 * CU_JIT_MAX_REGISTERS the JIT linker was given (cuLinkCreate), which the
 * linked image carries to the module loaded from it, even from a copy; a
 * cap below 24 is raised to 24 and one above 255 ignored, and a kernel's
 * .maxnreg decides over the option (measured on an H100, driver
 * 580.159.04: docs/DRIVER-FACTS.md, "Register caps"). */
#include "sim_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

TestSuite(sim_link_registers, .timeout = 60);

#define NUM_REGS ((CUfunction_attribute)4)
#define MAX_THREADS_PER_BLOCK ((CUfunction_attribute)0)

/* many_regs declares 300 32-bit registers, few_regs 10; the maxnreg_*
 * kernels 300 each, under .maxnreg 40, 10 and 300. */
static char g_ptx[] = ".version 7.5\n.target sm_75\n.address_size 64\n"
                      ".visible .entry many_regs()\n{\n\t.reg .b32 %r<300>;\n"
                      "\tmov.u32 %r1, 1;\n\tret;\n}\n"
                      ".visible .entry few_regs()\n{\n\t.reg .b32 %r<10>;\n"
                      "\tmov.u32 %r1, 1;\n\tret;\n}\n"
                      ".visible .entry maxnreg_40()\n.maxnreg 40\n{\n\t.reg .b32 %r<300>;\n"
                      "\tmov.u32 %r1, 1;\n\tret;\n}\n"
                      ".visible .entry maxnreg_10()\n.maxnreg 10\n{\n\t.reg .b32 %r<300>;\n"
                      "\tmov.u32 %r1, 1;\n\tret;\n}\n"
                      ".visible .entry maxnreg_300()\n.maxnreg 300\n{\n\t.reg .b32 %r<300>;\n"
                      "\tmov.u32 %r1, 1;\n\tret;\n}\n";

static int attr(CUmodule m, const char *kernel, CUfunction_attribute a)
{
    int v = -1;
    CU_OK(cuFuncGetAttribute(&v, a, sim_test_kernel(m, kernel)));
    return v;
}

/* Links g_ptx with the given options and loads a copy of the image (numba
 * copies it before cuModuleLoadDataEx), the linker destroyed first. */
static CUmodule link_and_load(unsigned nopts, CUjit_option *opts, void **vals)
{
    CUlinkState link;
    CU_OK(cuLinkCreate_v2(nopts, opts, vals, &link));
    CU_OK(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, g_ptx, sizeof g_ptx, "regs.ptx", 0, NULL, NULL));
    void *image = NULL;
    size_t size = 0;
    CU_OK(cuLinkComplete(link, &image, &size));
    cr_assert_eq(size, strlen(image) + 1);
    char *copy = malloc(size);
    cr_assert_not_null(copy);
    memcpy(copy, image, size);
    CU_OK(cuLinkDestroy(link));
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, copy));
    free(copy);
    return m;
}

static CUmodule link_with_max(uintptr_t max)
{
    CUjit_option opt = CU_JIT_MAX_REGISTERS;
    void *val = (void *)max;
    return link_and_load(1, &opt, &val);
}

Test(sim_link_registers, num_regs_is_bounded_by_255_and_max_registers)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule plain;
    CU_OK(cuModuleLoadData(&plain, g_ptx));
    cr_assert_eq(attr(plain, "many_regs", NUM_REGS), 255, "300 virtual registers: 255");
    int few = attr(plain, "few_regs", NUM_REGS);
    cr_assert(few >= 10 && few < 16, "few_regs: %d", few);
    int max_threads = attr(plain, "many_regs", MAX_THREADS_PER_BLOCK);
    CU_OK(cuModuleUnload(plain));

    /* .maxnreg alone: 40 stays, 10 is raised to 24, 300 is ignored. */
    CU_OK(cuModuleLoadData(&plain, g_ptx));
    cr_assert_eq(attr(plain, "maxnreg_40", NUM_REGS), 40);
    cr_assert_eq(attr(plain, "maxnreg_10", NUM_REGS), 24);
    cr_assert_eq(attr(plain, "maxnreg_300", NUM_REGS), 255);
    CU_OK(cuModuleUnload(plain));

    const struct {
        uintptr_t max;  /* CU_JIT_MAX_REGISTERS */
        int many, few;  /* NUM_REGS then */
        int maxnreg_300; /* the kernel whose .maxnreg is ignored takes the option */
    } cases[] = {
        { 38, 38, few, 38 },
        { 25, 25, few, 25 },
        { 24, 24, few, 24 },  /* the lowest cap ptxas honours */
        { 23, 24, few, 24 },  /* one below: raised to 24 */
        { 16, 24, few, 24 },
        { 8, 24, few, 24 },   /* below few_regs' own count: raised, so few_regs keeps its own */
        { 1, 24, few, 24 },
        { 255, 255, few, 255 },
        { 256, 255, few, 255 }, /* one above the architecture: ignored */
        { 1000, 255, few, 255 },
        { ((uintptr_t)1 << 32) | 38, 38, few, 38 }, /* an unsigned int: the slot's low 32 bits */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (sizeof(uintptr_t) < 8 && cases[i].max > UINT32_MAX)
            continue;
        CUmodule m = link_with_max(cases[i].max);
        cr_assert_eq(attr(m, "many_regs", NUM_REGS), cases[i].many, "max %llu",
                     (unsigned long long)cases[i].max);
        cr_assert_eq(attr(m, "few_regs", NUM_REGS), cases[i].few, "max %llu",
                     (unsigned long long)cases[i].max);
        /* .maxnreg decides over the option (40 under 1 to 1000 alike), and
         * is raised to 24 like the option. */
        cr_assert_eq(attr(m, "maxnreg_40", NUM_REGS), 40, "max %llu", (unsigned long long)cases[i].max);
        cr_assert_eq(attr(m, "maxnreg_10", NUM_REGS), 24, "max %llu", (unsigned long long)cases[i].max);
        cr_assert_eq(attr(m, "maxnreg_300", NUM_REGS), cases[i].maxnreg_300, "max %llu",
                     (unsigned long long)cases[i].max);
        /* Registers are not counted at launch (src/sim/README.md): the
         * thread limit stays the device's. */
        cr_assert_eq(attr(m, "many_regs", MAX_THREADS_PER_BLOCK), max_threads);
        CU_OK(cuModuleUnload(m));
    }
    /* 0 is refused, as the H100's driver refuses it (docs/DRIVER-FACTS.md). */
    {
        CUjit_option opt = CU_JIT_MAX_REGISTERS;
        void *val = (void *)(uintptr_t)0;
        CUlinkState link = NULL;
        cr_assert_eq(cuLinkCreate_v2(1, &opt, &val, &link), CUDA_ERROR_INVALID_VALUE);
    }
    /* No option at all, and the log options alone. */
    CUmodule m = link_and_load(0, NULL, NULL);
    cr_assert_eq(attr(m, "many_regs", NUM_REGS), 255);
    CU_OK(cuModuleUnload(m));
    char info[128];
    CUjit_option opts[] = { CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_MAX_REGISTERS };
    void *vals[] = { info, (void *)(uintptr_t)sizeof info, (void *)(uintptr_t)57 };
    m = link_and_load(3, opts, vals);
    cr_assert_eq(attr(m, "many_regs", NUM_REGS), 57);
    CU_OK(cuModuleUnload(m));
    m = link_and_load(2, opts, vals);
    cr_assert_eq(attr(m, "many_regs", NUM_REGS), 255);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* The cap is the linker's: a per-input CU_JIT_MAX_REGISTERS has no effect,
 * and the image of a link without one carries none. */
Test(sim_link_registers, per_input_max_registers_has_no_effect)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUlinkState link;
    CU_OK(cuLinkCreate_v2(0, NULL, NULL, &link));
    CUjit_option opt = CU_JIT_MAX_REGISTERS;
    void *val = (void *)(uintptr_t)16;
    CU_OK(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, g_ptx, sizeof g_ptx, "regs.ptx", 1, &opt, &val));
    void *image;
    CU_OK(cuLinkComplete(link, &image, NULL));
    cr_assert(strstr(image, "CU_JIT_MAX_REGISTERS") == NULL);
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, image));
    cr_assert_eq(attr(m, "many_regs", NUM_REGS), 255);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuLinkDestroy(link));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

static CUresult load_with_max(CUmodule *m, uintptr_t max)
{
    CUjit_option opt = CU_JIT_MAX_REGISTERS;
    void *val = (void *)max;
    return cuModuleLoadDataEx(m, g_ptx, 1, &opt, &val);
}

/* cuModuleLoadDataEx's CU_JIT_MAX_REGISTERS caps NUM_REGS as the linker's
 * does (the H100 answered the same for both), .maxnreg deciding over it;
 * 0 is refused with INVALID_VALUE (measured: docs/DRIVER-FACTS.md,
 * "Register caps"). */
Test(sim_link_registers, module_load_max_registers_caps_num_regs)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = NULL;
    cr_assert_eq(load_with_max(&m, 0), CUDA_ERROR_INVALID_VALUE);
    cr_assert_null(m, "nothing loaded");
    CU_OK(cuModuleLoadData(&m, g_ptx));
    int few = attr(m, "few_regs", NUM_REGS);
    CU_OK(cuModuleUnload(m));
    const struct {
        uintptr_t max;
        int many, maxnreg_300;
    } cases[] = {
        { 1, 24, 24 }, { 16, 24, 24 }, { 23, 24, 24 }, /* raised to 24 */
        { 24, 24, 24 }, { 25, 25, 25 }, { 38, 38, 38 },
        { 255, 255, 255 }, { 256, 255, 255 }, { 1000, 255, 255 }, /* ignored above 255 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CU_OK(load_with_max(&m, cases[i].max));
        unsigned long long max = cases[i].max;
        cr_assert_eq(attr(m, "many_regs", NUM_REGS), cases[i].many, "max %llu", max);
        cr_assert_eq(attr(m, "few_regs", NUM_REGS), few, "max %llu", max);
        cr_assert_eq(attr(m, "maxnreg_40", NUM_REGS), 40, "max %llu", max);
        cr_assert_eq(attr(m, "maxnreg_10", NUM_REGS), 24, "max %llu", max);
        cr_assert_eq(attr(m, "maxnreg_300", NUM_REGS), cases[i].maxnreg_300, "max %llu", max);
        CU_OK(cuModuleUnload(m));
    }
    /* A linked image's own cap wins over the load's, as a cubin's
     * register counts are fixed before it is loaded. */
    CUlinkState link;
    CUjit_option opt = CU_JIT_MAX_REGISTERS;
    void *val = (void *)(uintptr_t)38;
    CU_OK(cuLinkCreate_v2(1, &opt, &val, &link));
    CU_OK(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, g_ptx, sizeof g_ptx, "regs.ptx", 0, NULL, NULL));
    void *image = NULL;
    CU_OK(cuLinkComplete(link, &image, NULL));
    val = (void *)(uintptr_t)30;
    CU_OK(cuModuleLoadDataEx(&m, image, 1, &opt, &val));
    cr_assert_eq(attr(m, "many_regs", NUM_REGS), 38);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuLinkDestroy(link));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}
