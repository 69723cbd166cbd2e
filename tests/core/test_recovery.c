/* Recovery: a dead context comes back ALIVE under the same id; every old
 * child id is stale and says why; work runs again. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/launches.h"

static gg_test_rig rig;

static void setup(void)
{
    gg_test_init_sim(NULL);
    gg_test_rig_open(&rig, 1);
}

TestSuite(recovery, .init = setup);

Test(recovery, recovered_context_is_alive_and_computes)
{
    gg_buffer buf;
    gg_stream stream;
    GG_OK_(gg_buffer_alloc(rig.ctx, 4096, NULL, &buf));
    GG_OK_(gg_stream_create(rig.ctx, &(gg_stream_desc){ .tag = "before" }, &stream));
    kill_with_illegal_address(&rig, buf);

    GG_OK_(gg_context_recover(rig.ctx));
    cr_assert_eq(gg_context_state(rig.ctx), GG_STATE_ALIVE);
    gg_error_info death;
    GG_OK_(gg_context_death(rig.ctx, &death));
    cr_assert_eq(death.status, GG_OK, "a recovered context has no cause of death");

    GG_EXPECT(GG_INVALID_HANDLE, gg_stream_query(stream));
    cr_assert(strstr(gg_test_last_message(), "its context was recovered") != NULL, "%s", gg_test_last_message());
    GG_OK_(gg_buffer_free(buf)); /* freeing an id that is already gone is harmless */
    GG_EXPECT(GG_INVALID_HANDLE, launch_plain(rig.noop, GG_NO_STREAM));

    /* A fresh module, buffer and launch on the recovered context. */
    gg_module module;
    gg_kernel fill;
    GG_OK_(gg_module_load_file(rig.ctx, gg_test_kernel_module("core_kernels"), NULL, &module));
    GG_OK_(gg_kernel_get(module, "fill_u32", &fill));
    rig.fill_u32 = fill;
    gg_buffer fresh;
    GG_OK_(gg_buffer_alloc(rig.ctx, 1024 * 4, NULL, &fresh));
    GG_OK_(launch_fill(&rig, GG_NO_STREAM, fresh, 42, 1024));
    uint32_t host[1024];
    GG_OK_(gg_memcpy_dtoh(host, fresh, 0, sizeof host, GG_NO_STREAM));
    for (int i = 0; i < 1024; i++)
        cr_assert_eq(host[i], 42);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(recovery, recovering_an_alive_context_changes_nothing)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_alloc(rig.ctx, 64, NULL, &buf));
    GG_OK_(gg_context_recover(rig.ctx));
    size_t size = 0;
    GG_OK_(gg_buffer_size(buf, &size));
    cr_assert_eq(size, 64);
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

Test(recovery, primary_context_recovers_by_reset)
{
    /* Device 0: on HIP every context of a device is its primary context, so
     * resetting device 1's would take the rig's resources with it. */
    gg_context primary;
    GG_OK_(gg_context_create(0, &(gg_context_desc){ .use_primary = true, .tag = "primary" }, &primary));
    gg_module module;
    gg_kernel touch;
    GG_OK_(gg_module_load_file(primary, gg_test_kernel_module("core_kernels"), NULL, &module));
    GG_OK_(gg_kernel_get(module, "touch", &touch));
    gg_buffer buf;
    GG_OK_(gg_buffer_alloc(primary, 64, NULL, &buf));
    uint64_t dptr, bytes = 1u << 30;
    GG_OK_(gg_buffer_device_ptr(buf, &dptr));
    void *params[] = { &dptr, &bytes };
    gg_launch_desc d = { .kernel = touch, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .params = params, .param_count = 2 };
    GG_OK_(gg_launch(&d));
    GG_EXPECT(GG_ILLEGAL_ADDRESS, gg_context_synchronize(primary, 0));
    GG_OK_(gg_context_recover(primary));
    gg_buffer again;
    GG_OK_(gg_buffer_alloc(primary, 64, NULL, &again));
    GG_OK_(gg_memset(again, 0, 3, 64, GG_NO_STREAM));
    GG_OK_(gg_context_destroy(primary));
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}
