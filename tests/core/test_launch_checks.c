/*
 * Launches checked before the driver sees them: the kernel's parameter
 * count (where the driver reports it: cuFuncGetParamInfo from CUDA 12.4,
 * the simulator's declarations), the device's block, thread, grid and
 * shared-memory limits, and what the chunked path indexes. Every refusal
 * names the limit and the value, and no launch reaches the driver (the
 * simulator's own call counter says so).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "core/launches.h"

static gg_test_rig rig;
static gg_kernel spin;

static void setup(void)
{
    gg_test_init_sim(NULL);
    gg_test_rig_open(&rig, 0); /* device 0: the display GPU, with a watchdog */
    GG_OK_(gg_kernel_create(rig.module, "spin", &spin));
}

TestSuite(launch_checks, .init = setup);

static unsigned long long driver_launches(void)
{
    return gg_test_sim_call_count(gg_test_backend_in_use()->fn_launch);
}

/* The kernel's parameters are known on CUDA drivers from 12.4 (and the
 * simulator as one); on older ones and on HIP they are not checked. */
static bool params_known(void)
{
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = rig.noop, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
                         .params = (void *[]){ NULL }, .param_count = 1 };
    unsigned long long before = driver_launches();
    gg_status s = gg_launch(&d);
    if (s == GG_OK) {
        GG_OK_(gg_context_synchronize(rig.ctx, NULL));
        return false;
    }
    cr_assert_eq(s, GG_INVALID_ARGUMENT, "%s", gg_test_last_message());
    cr_assert_eq(driver_launches(), before);
    return true;
}

#define EXPECT_REFUSED(desc, text)                                                              \
    do {                                                                                        \
        unsigned long long before_ = driver_launches();                                         \
        GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch(&(desc)));                                     \
        cr_assert_not_null(strstr(gg_test_last_message(), (text)), "message: %s",               \
                           gg_test_last_message());                                             \
        cr_assert_eq(driver_launches(), before_, "the driver saw no launch");                   \
    } while (0)

Test(launch_checks, a_wrong_parameter_count_is_refused_when_the_driver_knows_the_kernel)
{
    if (!params_known())
        cr_skip_test("this driver does not report kernel parameters (cuFuncGetParamInfo is 12.4+; HIP has none)");
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    uint64_t a = 0, b = 16;
    GG_OK_(gg_buffer_device_ptr(buf, &a));
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = rig.touch, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
                         .params = (void *[]){ &a, &b }, .param_count = 1 };
    EXPECT_REFUSED(d, "kernel 'touch' takes 2 parameter(s) but param_count is 1");
    d.param_count = 0;
    EXPECT_REFUSED(d, "takes 2 parameter(s) but param_count is 0");
    d.param_count = 2;
    GG_OK_(gg_launch(&d)); /* the right count goes through */
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(launch_checks, shapes_past_the_device_limits_are_refused_naming_the_limit)
{
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = rig.noop, .grid = { 1, 1, 1 }, .block = { 4096, 1, 1 } };
    EXPECT_REFUSED(d, "block.x is 4096, above device 0's limit of 1024");
    d.block = (gg_dim3){ 32, 32, 2 };
    EXPECT_REFUSED(d, "a block of 32 x 32 x 2 is 2048 threads, above device 0's limit of 1024 per block");
    d.block = (gg_dim3){ 1, 1, 65 };
    EXPECT_REFUSED(d, "block.z is 65, above device 0's limit of 64");
    d.block = (gg_dim3){ 1, 1, 1 };
    d.grid = (gg_dim3){ 1, 65536, 1 };
    EXPECT_REFUSED(d, "grid.y is 65536, above device 0's limit of 65535");
    d.grid = (gg_dim3){ 1, 1, 1 };
    d.shared_bytes = 1u << 30;
    EXPECT_REFUSED(d, "shared_bytes is 1073741824, above device 0's limit of");
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(launch_checks, chunked_launches_check_shapes_too)
{
    uint32_t us = 1, offset = 0;
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 8, 1, 1 }, .block = { 2048, 1, 1 },
                         .params = (void *[]){ &us, &offset }, .param_count = 2 };
    unsigned long long before = driver_launches();
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch_chunked(&d, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 1 }, NULL));
    cr_assert_not_null(strstr(gg_test_last_message(), "block.x is 2048"), "%s", gg_test_last_message());
    cr_assert_eq(driver_launches(), before);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(launch_checks, set_chunking_refuses_an_offset_parameter_the_kernel_lacks)
{
    gg_status s = gg_kernel_set_chunking(spin, 1000, 0);
    if (params_known()) {
        cr_assert_eq(s, GG_INVALID_ARGUMENT);
        /* Checked at set time: the parameter does not exist, or is not 4 bytes. */
        GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_set_chunking(spin, 1000, 0));
        cr_assert_not_null(strstr(gg_test_last_message(), "offset_param 1000 is not one of kernel 'spin''s 2"),
                           "%s", gg_test_last_message());
        GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_set_chunking(rig.noop, 0, 0));
        cr_assert_not_null(strstr(gg_test_last_message(), "'noop''s 0 parameter(s)"), "%s",
                           gg_test_last_message());
        GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_set_chunking(rig.touch, 0, 0));
        cr_assert_not_null(strstr(gg_test_last_message(), "parameter 0 of kernel 'touch' is 8 bytes wide"), "%s",
                           gg_test_last_message());
    } else {
        cr_assert_eq(s, GG_OK, "unknown parameters are checked at the launch");
    }
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

/* The overflow the issue measured: set_chunking(k, 1000) accepted, then a
 * plain launch on the watchdog device went to the chunked path, which
 * indexed params[1000] on its stack. Now the chunked path checks what it
 * indexes itself, whatever the kernel's declaration says. */
Test(launch_checks, the_automatic_chunked_path_checks_what_it_indexes)
{
    bool known = params_known();
    if (!known)
        GG_OK_(gg_kernel_set_chunking(spin, 1000, 0));
    else
        GG_OK_(gg_kernel_set_chunking(spin, 1, 0));
    uint32_t us = 1, offset = 0;
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 8, 1, 1 }, .block = { 1, 1, 1 },
                         .params = (void *[]){ &us, &offset }, .param_count = 2 };
    if (!known) {
        unsigned long long before = driver_launches();
        GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch(&d));
        cr_assert_not_null(strstr(gg_test_last_message(), "the offset parameter 1000 is not one of the launch's 2"),
                           "%s", gg_test_last_message());
        cr_assert_eq(driver_launches(), before);
    } else {
        /* A valid declaration chunks: every slice's offset lands in the
         * 4-byte parameter. */
        GG_OK_(gg_launch(&d));
    }
    /* No parameters at all, declared chunkable where nothing is known:
     * refused, not a zero-length array. */
    if (!known) {
        GG_OK_(gg_kernel_set_chunking(rig.noop, 0, 0));
        gg_launch_desc none = { .struct_size = sizeof(gg_launch_desc), .kernel = rig.noop, .grid = { 4, 1, 1 }, .block = { 1, 1, 1 } };
        GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch(&none));
        cr_assert_not_null(strstr(gg_test_last_message(), "is not one of the launch's 0 parameter(s)"), "%s",
                           gg_test_last_message());
    }
    GG_OK_(gg_context_synchronize(rig.ctx, NULL));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(launch_checks, too_many_parameters_for_a_chunked_launch_are_refused)
{
    static void *many[300];
    uint32_t v = 0;
    for (int i = 0; i < 300; i++)
        many[i] = &v;
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = spin, .grid = { 4, 1, 1 }, .block = { 1, 1, 1 }, .params = many,
                         .param_count = 300 };
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_launch_chunked(&d, &(gg_chunk_desc){ .struct_size = sizeof(gg_chunk_desc), .offset_param = 1 }, NULL));
    cr_assert_not_null(strstr(gg_test_last_message(), "param_count 300 is more than 256"), "%s",
                       gg_test_last_message());
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}
