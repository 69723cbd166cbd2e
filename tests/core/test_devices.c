/*
 * Contexts land on the device asked for, whatever driver version the
 * simulator plays. On drivers 11.4-12.4 cuCtxCreate is _v3, whose device
 * argument comes after numParams and flags: called through _v4's signature
 * (the bug issue 11 was about) a context on device 1 either failed or
 * silently landed on device 0. The simulator's per-device memory counters
 * say where each context's allocation really went.
 */
#include "support/gg_test.h"
#include "launches.h"

Test(devices, each_context_lives_on_its_device_and_computes)
{
    gg_test_init_sim(NULL);
    enum { N = 1024 };
    for (int device = 0; device < 2; device++) {
        unsigned long long before[2] = { gg_test_sim_device_memory_used(0),
                                         gg_test_sim_device_memory_used(1) };
        gg_test_rig rig;
        gg_test_rig_open(&rig, device);
        int reported = -1;
        GG_OK_(gg_context_device(rig.ctx, &reported));
        cr_expect_eq(reported, device);

        gg_buffer buf;
        GG_OK_(gg_buffer_create(rig.ctx, N * sizeof(uint32_t), NULL, &buf));
        unsigned long long after[2] = { gg_test_sim_device_memory_used(0),
                                        gg_test_sim_device_memory_used(1) };
        cr_expect_gt(after[device], before[device], "the allocation is on device %d", device);
        cr_expect_eq(after[1 - device], before[1 - device], "and not on device %d", 1 - device);

        GG_OK_(launch_fill(&rig, GG_NO_STREAM, buf, 0xC0DE0000u + (uint32_t)device, N));
        uint32_t out[N];
        GG_OK_(gg_memcpy_dtoh(out, buf, 0, sizeof out, GG_NO_STREAM));
        for (int i = 0; i < N; i++)
            cr_assert_eq(out[i], 0xC0DE0000u + (uint32_t)device, "device %d element %d", device, i);
        GG_OK_(gg_buffer_destroy(buf));
        GG_OK_(gg_context_destroy(rig.ctx));
    }
    gg_test_finish();
}
