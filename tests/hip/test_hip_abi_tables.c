/*
 * The per-runtime ABI tables (src/hip/hip_abi_tables.c) against the
 * published ROCm 6 facts (tests/hip_abi/hip_rocm6_facts.c), and the loader's
 * choice of table from the version a runtime reports (over the fake runtime
 * of fake_libamdhip.c, told to report itself as 5.x, 6.x or 7.x).
 *
 * The ROCm 6 checks compare against transcriptions of the published headers,
 * not a real ROCm 6 header (none is installed here). The ROCm 5 table is
 * built from the GGHIP_ values that tests/hip_abi compiles against Debian's
 * real 5.2.3 header; here it is only checked to say the same as those.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../hip_abi/hip_rocm6_facts.h"
#include "common/backend.h"
#include "hip/hip_abi.h"
#include "hip/hip_errors.h"
#include "hip/hip_loader.h"
#include "hip_test.h"

#define EXPECT_IN(haystack, needle) \
    cr_expect_not_null(strstr((haystack), (needle)), "'%s' not in: %s", (needle), (haystack))

/* ------------------------------------------------------------------------ */
/* The ROCm 6 table against the published facts                             */
/* ------------------------------------------------------------------------ */

static long fact(const gghip_fact *facts, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(facts[i].name, name) == 0)
            return facts[i].value;
    cr_assert_fail("no published fact named %s", name);
    return -1;
}

#define ATTR6(name) fact(gghip_rocm6_attributes, gghip_rocm6_attribute_count, "hipDeviceAttribute" name)

Test(hip_abi_tables, the_rocm6_attribute_numbers_are_the_published_ones)
{
    const gghip_abi *a = &gghip_abi_rocm6;
    cr_expect_eq(a->attr_max_threads_per_block, ATTR6("MaxThreadsPerBlock"));
    cr_expect_eq(a->attr_max_block_dim[0], ATTR6("MaxBlockDimX"));
    cr_expect_eq(a->attr_max_block_dim[1], ATTR6("MaxBlockDimY"));
    cr_expect_eq(a->attr_max_block_dim[2], ATTR6("MaxBlockDimZ"));
    cr_expect_eq(a->attr_max_grid_dim[0], ATTR6("MaxGridDimX"));
    cr_expect_eq(a->attr_max_grid_dim[1], ATTR6("MaxGridDimY"));
    cr_expect_eq(a->attr_max_grid_dim[2], ATTR6("MaxGridDimZ"));
    cr_expect_eq(a->attr_multiprocessor_count, ATTR6("MultiprocessorCount"));
    cr_expect_eq(a->attr_kernel_exec_timeout, ATTR6("KernelExecTimeout"));
    cr_expect_eq(a->attr_max_shared_per_block, ATTR6("MaxSharedMemoryPerBlock"));
    cr_expect_eq(a->attr_can_map_host_memory, ATTR6("CanMapHostMemory"));
    cr_expect_eq(a->attr_can_use_stream_wait_value, ATTR6("CanUseStreamWaitValue"));
    /* Twelve attributes asked, twelve facts: none asked without a fact. */
    cr_expect_eq(gghip_rocm6_attribute_count, 12);
}

Test(hip_abi_tables, the_rocm6_flags_are_the_published_ones)
{
    const gghip_abi *a = &gghip_abi_rocm6;
    cr_expect_eq(a->stream_non_blocking,
                 fact(gghip_rocm6_flags, gghip_rocm6_flag_count, "hipStreamNonBlocking"));
    cr_expect_eq(a->host_malloc_default,
                 fact(gghip_rocm6_flags, gghip_rocm6_flag_count, "hipHostMallocDefault"));
    cr_expect_eq(a->host_malloc_mapped,
                 fact(gghip_rocm6_flags, gghip_rocm6_flag_count, "hipHostMallocMapped"));
    /* hipEventCreate takes no flags; the default it implies is checked too. */
    cr_expect_eq(GGHIP_EventDefault,
                 fact(gghip_rocm6_flags, gghip_rocm6_flag_count, "hipEventDefault"));
}

Test(hip_abi_tables, the_error_table_is_the_published_rocm6_list_both_ways)
{
    /* Every published code is in the table, under its name ... */
    for (int i = 0; i < gghip_rocm6_error_count; i++)
        cr_expect_str_eq(gg__hip_code_name((int)gghip_rocm6_errors[i].value),
                         gghip_rocm6_errors[i].name, "code %ld (%s)",
                         gghip_rocm6_errors[i].value, gghip_rocm6_errors[i].source);
    /* ... and the table has nothing else. */
    int listed = 0;
#define GG_COUNT_AND_CHECK(name, value, gg, sticky)                                   \
    listed++;                                                                        \
    cr_expect_eq(fact(gghip_rocm6_errors, gghip_rocm6_error_count, "hip" #name), value, \
                 "hip" #name);
    GGHIP_ERROR_LIST(GG_COUNT_AND_CHECK)
#undef GG_COUNT_AND_CHECK
    cr_expect_eq(listed, gghip_rocm6_error_count);
    cr_expect_eq(listed, 73);
}

Test(hip_abi_tables, every_rocm6_entry_point_is_resolved_by_its_published_export)
{
    cr_assert_eq(gghip_rocm6_symbol_count, GGHIP_SYMBOL_COUNT,
                 "a published fact for each entry point the backend resolves");
    for (int i = 0; i < gghip_rocm6_symbol_count; i++) {
        const gghip_symbol_fact *f = &gghip_rocm6_symbols[i];
        cr_expect_str_eq(gghip_abi_rocm6.symbols[i], f->exported, "%s", f->entry_point);
        /* Nodes that dlsym of the plain name reaches: each symbol is
         * exported in one node only (hip_4.2, hip_4.4 for the write-values,
         * hip_5.0 for hipPointerGetAttribute), so the plain name has one
         * definition. */
        bool write_value = i == GGHIP_SYM_hipStreamWriteValue32 ||
                           i == GGHIP_SYM_hipStreamWriteValue64;
        const char *node = write_value ? "hip_4.4" : i == GGHIP_SYM_hipPointerGetAttribute ? "hip_5.0" : "hip_4.2";
        cr_expect_str_eq(f->version, node, "%s exported in %s", f->entry_point, f->version);
    }
}

Test(hip_abi_tables, no_entry_point_rocm6_renamed_is_resolved_by_its_old_name)
{
    /* If the backend ever resolves hipGetDeviceProperties, its ROCm 6 table
     * must name hipGetDevicePropertiesR0600, never the 5.x-layout symbol. */
    for (int s = 0; s < GGHIP_SYMBOL_COUNT; s++)
        for (int r = 0; r < gghip_rocm6_renamed_count; r++)
            cr_expect_neq(strcmp(gghip_abi_rocm6.symbols[s], gghip_rocm6_renamed[r].entry_point),
                          0, "ROCm 6 exports %s as %s (%s)", gghip_rocm6_renamed[r].entry_point,
                          gghip_rocm6_renamed[r].exported, gghip_rocm6_renamed[r].source);
}

Test(hip_abi_tables, the_rocm5_table_is_the_values_checked_against_debians_header)
{
    const gghip_abi *a = &gghip_abi_rocm5;
    cr_expect_eq(a->attr_kernel_exec_timeout, 18);
    cr_expect_eq(a->attr_max_threads_per_block, GGHIP_DeviceAttributeMaxThreadsPerBlock);
    cr_expect_eq(a->stream_non_blocking, GGHIP_StreamNonBlocking);
    for (int s = 0; s < GGHIP_SYMBOL_COUNT; s++)
        cr_expect_str_eq(a->symbols[s], gghip_rocm6_symbols[s].entry_point);
}

Test(hip_abi_tables, versions_choose_a_table_only_inside_the_checked_ranges)
{
    const struct { int version; const gghip_abi *abi; } cases[] = {
        { 50221153, &gghip_abi_rocm5 }, /* Debian 12's runtime */
        { 50000000, &gghip_abi_rocm5 },
        { 50731921, &gghip_abi_rocm5 },
        { 60032830, &gghip_abi_rocm6 }, /* 6.0.x */
        { 60241134, &gghip_abi_rocm6 }, /* 6.2.x */
        { 50800000, NULL },             /* no 5.8 was checked */
        { 60300000, NULL },             /* 6.3: no release header read */
        { 60443483, NULL },
        { 70000000, NULL },             /* ROCm 7 */
        { 40500000, NULL },             /* ROCm 4: another attribute numbering */
        { 0, NULL },
        { -1, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(gg__hip_abi_for_version(cases[i].version), cases[i].abi, "version %d",
                     cases[i].version);
    char ranges[128];
    snprintf(ranges, sizeof ranges, "%s (HIP %d.%d-%d.%d), %s (HIP %d.%d-%d.%d)",
             gghip_abi_rocm5.name, 5, gghip_abi_rocm5.minor_first, 5, gghip_abi_rocm5.minor_last,
             gghip_abi_rocm6.name, 6, gghip_abi_rocm6.minor_first, 6, gghip_abi_rocm6.minor_last);
    cr_expect_str_eq(gg__hip_abi_checked_ranges(), ranges, "the message says the tables' ranges");
}

/* ------------------------------------------------------------------------ */
/* The loader's choice, over the fake runtime                               */
/* ------------------------------------------------------------------------ */

static gg__backend_open_result open_fake_as(const char *library, const char *version,
                                            gghip_runtime *rt)
{
    unsetenv("FAKE_HIP_INIT");
    setenv("FAKE_HIP_VERSION", version, 1);
    gg__backend_open_result r = gg__hip_runtime_open(rt, library);
    unsetenv("FAKE_HIP_VERSION");
    return r;
}

Test(hip_abi_loader, a_runtime_reporting_6_2_gets_the_rocm6_table)
{
    static gghip_runtime rt;
    gg__backend_open_result r = open_fake_as(GG_FAKE_HIP, "60241134", &rt);
    cr_assert_eq(r.status, GG_OK, "%s", r.message);
    cr_expect_eq(rt.abi, &gghip_abi_rocm6);
    cr_expect_eq(rt.runtime_version, 60241134);
    cr_expect_not_null(rt.hipModuleLaunchKernel);
    gg__hip_runtime_close(&rt);
}

Test(hip_abi_loader, a_runtime_reporting_5_2_gets_the_rocm5_table)
{
    static gghip_runtime rt;
    gg__backend_open_result r = open_fake_as(GG_FAKE_HIP, "50221153", &rt);
    cr_assert_eq(r.status, GG_OK, "%s", r.message);
    cr_expect_eq(rt.abi, &gghip_abi_rocm5);
    gg__hip_runtime_close(&rt);
}

Test(hip_abi_loader, the_backend_over_a_6_x_runtime_reads_the_device_attributes)
{
    /* The fake answers only HIP's numbers (the same in both ABIs, so this
     * shows the 6.x path works, not which table it took: the tests above
     * check the table). */
    setenv("FAKE_HIP_VERSION", "60032830", 1);
    gg__backend b;
    gg__backend_open_result r = gg__hip_backend_open(GG_FAKE_HIP, &b);
    unsetenv("FAKE_HIP_VERSION");
    cr_assert_eq(r.status, GG_OK, "%s", r.message);
    gg__device_props props;
    memset(&props, 0, sizeof props);
    cr_expect_eq(b.device_props(b.self, 1, &props), 0);
    cr_expect_eq(props.multiprocessors, 61);
    cr_expect_eq(props.max_threads_per_block, 1024);
    cr_expect_eq(props.max_shared_per_block, 65536);
    /* The fake exports no hipStreamWriteValue32/64 (optional entry points):
     * no write-value support, and the operation answers NOT_SUPPORTED. */
    cr_expect_not(props.stream_write_value_32);
    cr_expect_not(props.stream_write_value_64);
    int rc = b.stream_write_value(b.self, NULL, 0x1000, 1, true);
    cr_expect_eq(b.classify(rc).status, GG_UNSUPPORTED, "%s", b.code_name(rc));
    b.close(b.self, true);
}

Test(hip_abi_loader, unchecked_versions_are_refused_naming_the_version)
{
    const struct { const char *version; const char *digits; } cases[] = {
        { "70001234", "HIP 7.0.1234" },
        { "60300000", "HIP 6.3.0" },
        { "40500000", "HIP 4.5.0" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static gghip_runtime rt;
        gg__backend_open_result r = open_fake_as(GG_FAKE_HIP, cases[i].version, &rt);
        cr_expect_eq(r.status, GG_NO_DRIVER, "%s: %s", cases[i].version, r.message);
        EXPECT_IN(r.message, cases[i].digits);
        EXPECT_IN(r.message, "ABI is unchecked");
        EXPECT_IN(r.message, "ROCm 6 (HIP 6.0-6.2)");
        cr_expect_null(rt.handle, "nothing stays loaded");
    }
}

Test(hip_abi_loader, a_runtime_that_cannot_say_its_version_is_refused)
{
    static gghip_runtime rt;
    gg__backend_open_result r = open_fake_as(GG_FAKE_HIP, "-1", &rt);
    cr_expect_eq(r.status, GG_NO_DRIVER, "%s", r.message);
    EXPECT_IN(r.message, "hipRuntimeGetVersion");
    EXPECT_IN(r.message, "cannot tell which HIP ABI");
}

/* The fake under a soname's name, through a symlink in a fresh directory. */
static void link_fake_as(char *dir, size_t dir_size, char *path, size_t path_size,
                         const char *soname)
{
    snprintf(dir, dir_size, "/tmp/gg-hip-abi-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, path_size, "%s/%s", dir, soname);
    cr_assert_eq(symlink(GG_FAKE_HIP, path), 0, "symlink %s", path);
}

Test(hip_abi_loader, a_version_that_contradicts_the_soname_is_refused)
{
    char dir[64], path[PATH_MAX];
    link_fake_as(dir, sizeof dir, path, sizeof path, "libamdhip64.so.5");
    static gghip_runtime rt;
    gg__backend_open_result r = open_fake_as(path, "60241134", &rt);
    cr_expect_eq(r.status, GG_NO_DRIVER, "%s", r.message);
    EXPECT_IN(r.message, "libamdhip64.so.5 must be HIP 5.x");
    EXPECT_IN(r.message, "HIP 6.2.41134");
    /* The same file reporting 5.x is accepted: the check is not the name. */
    r = open_fake_as(path, "50731921", &rt);
    cr_expect_eq(r.status, GG_OK, "%s", r.message);
    cr_expect_eq(rt.abi, &gghip_abi_rocm5);
    if (r.status == GG_OK)
        gg__hip_runtime_close(&rt);
    unlink(path);
    rmdir(dir);
}
