/*
 * The HIP backend's context mapping (hip_backend.c, top comment) against a
 * runtime that behaves as ROCm's does (tests/hip/fake_libamdhip.c): one
 * primary context per device, a current device that hipCtxPopCurrent does
 * not restore, hipDevicePrimaryCtxReset doing nothing. These are the
 * behaviours where HIP differs from CUDA and the backend must make up for it.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/backend.h"
#include "hip_test.h"

static gg__backend fake;

static void open_fake(void)
{
    gg__backend_open_result r = gg__hip_backend_open(GG_FAKE_HIP, &fake);
    cr_assert_eq(r.status, GG_OK, "%s", r.message);
}

static void close_fake(void)
{
    if (fake.close != NULL)
        fake.close(fake.self, true);
    memset(&fake, 0, sizeof fake);
}

static gg__nctx current(void)
{
    gg__nctx c = (gg__nctx)0x1;
    cr_assert_eq(fake.ctx_get_current(fake.self, &c), 0);
    return c;
}

#define OK(call) cr_assert_eq((call), 0, "%s", #call)

TestSuite(hip_contexts, .init = open_fake, .fini = close_fake);

Test(hip_contexts, both_kinds_of_context_are_the_devices_primary_context)
{
    gg__nctx own = NULL, primary = NULL, other = NULL;
    OK(fake.ctx_create(fake.self, 1, false, &own));
    OK(fake.ctx_create(fake.self, 1, true, &primary));
    OK(fake.ctx_create(fake.self, 0, false, &other));
    cr_assert_not_null(own);
    cr_expect_eq(own, primary, "HIP has no separate contexts: the two share fate");
    cr_expect_neq(own, other, "one primary context per device");
    cr_expect_eq(hip_test_fake_count("fake_hip_retains", 1), 2);

    OK(fake.ctx_destroy(fake.self, 1, false, own));
    OK(fake.ctx_destroy(fake.self, 1, true, primary));
    OK(fake.ctx_destroy(fake.self, 0, false, other));
    cr_expect_eq(hip_test_fake_count("fake_hip_releases", 1), 2);
    cr_expect_eq(hip_test_fake_count("fake_hip_resets", 1), 0, "destroying resets nothing");
}

Test(hip_contexts, creating_a_context_leaves_the_current_one_alone)
{
    gg__nctx before = current();
    cr_assert_not_null(before, "HIP always has a current device (device 0 at first)");
    gg__nctx c = NULL;
    OK(fake.ctx_create(fake.self, 1, false, &c));
    cr_expect_eq(current(), before);
    cr_expect_eq(hip_test_fake_count("fake_hip_stack_depth", 0), 0);
}

Test(hip_contexts, an_invalid_device_is_refused_and_leaves_nothing)
{
    gg__nctx c = (gg__nctx)0x1;
    int rc = fake.ctx_create(fake.self, 7, false, &c);
    cr_expect_eq(fake.classify(rc).status, GG_NO_DEVICE, "%s", fake.code_name(rc));
    cr_expect_null(c);
    gg__device_props p;
    rc = fake.device_props(fake.self, 7, &p);
    cr_expect_eq(fake.classify(rc).status, GG_NO_DEVICE, "%s", fake.code_name(rc));
}

Test(hip_contexts, entering_and_leaving_a_context_restores_the_callers_device)
{
    /* What src/common does around every call: save, set, restore. */
    gg__nctx c1 = NULL;
    OK(fake.ctx_create(fake.self, 1, false, &c1));
    gg__nctx saved = current();
    OK(fake.ctx_set_current(fake.self, c1));
    cr_expect_eq(current(), c1);
    OK(fake.ctx_set_current(fake.self, saved));
    cr_expect_eq(current(), saved);
}

Test(hip_contexts, popping_makes_the_new_top_of_the_stack_current_as_in_cuda)
{
    gg__nctx c0 = NULL, c1 = NULL;
    OK(fake.ctx_create(fake.self, 0, false, &c0));
    OK(fake.ctx_create(fake.self, 1, false, &c1));
    OK(fake.ctx_push(fake.self, c0));
    OK(fake.ctx_push(fake.self, c1));
    cr_expect_eq(current(), c1);

    gg__nctx popped = NULL;
    OK(fake.ctx_pop(fake.self, &popped));
    cr_expect_eq(popped, c1);
    /* HIP's own pop would leave device 1 current. */
    cr_expect_eq(current(), c0, "the context below is current again");
    cr_expect_eq(hip_test_fake_count("fake_hip_stack_depth", 0), 1, "and still on the stack");

    OK(fake.ctx_pop(fake.self, &popped));
    cr_expect_eq(popped, c0);
    cr_expect_eq(hip_test_fake_count("fake_hip_stack_depth", 0), 0);
    cr_expect_eq(current(), c0, "an empty stack keeps the last device: HIP always has one");

    int rc = fake.ctx_pop(fake.self, &popped);
    cr_expect_eq(fake.classify(rc).status, GG_INVALID_HANDLE, "%s", fake.code_name(rc));
    cr_expect_null(popped);
}

Test(hip_contexts, pop_accepts_a_null_out)
{
    gg__nctx c1 = NULL;
    OK(fake.ctx_create(fake.self, 1, false, &c1));
    OK(fake.ctx_push(fake.self, c1));
    OK(fake.ctx_pop(fake.self, NULL));
}

Test(hip_contexts, resetting_uses_hipDeviceReset_on_that_device_and_restores_the_callers)
{
    gg__nctx c0 = NULL;
    OK(fake.ctx_create(fake.self, 0, false, &c0));
    OK(fake.ctx_set_current(fake.self, c0));
    int depth = hip_test_fake_count("fake_hip_stack_depth", 0);

    OK(fake.ctx_reset_primary(fake.self, 1));
    cr_expect_eq(hip_test_fake_count("fake_hip_resets", 1), 1,
                 "hipDevicePrimaryCtxReset does nothing in ROCm: device 1 must be reset");
    cr_expect_eq(hip_test_fake_count("fake_hip_resets", 0), 0, "the caller's device is untouched");
    cr_expect_eq(current(), c0, "the caller's device is current again");
    cr_expect_eq(hip_test_fake_count("fake_hip_stack_depth", 0), depth, "the stack is untouched");

    int rc = fake.ctx_reset_primary(fake.self, 9);
    cr_expect_eq(fake.classify(rc).status, GG_NO_DEVICE, "%s", fake.code_name(rc));
    cr_expect_eq(current(), c0);
}

static void *current_on_a_new_thread(void *arg)
{
    gg__nctx *out = arg;
    fake.ctx_get_current(fake.self, out);
    return NULL;
}

Test(hip_contexts, each_thread_starts_on_device_0)
{
    gg__nctx c0 = NULL, c1 = NULL, seen = NULL;
    OK(fake.ctx_create(fake.self, 0, false, &c0));
    OK(fake.ctx_create(fake.self, 1, false, &c1));
    OK(fake.ctx_set_current(fake.self, c1));
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, current_on_a_new_thread, &seen), 0);
    pthread_join(t, NULL);
    cr_expect_eq(seen, c0, "the current device is per thread");
    cr_expect_eq(current(), c1);
}

Test(hip_contexts, device_properties_use_hips_attribute_numbers)
{
    /* The fake refuses any attribute number the backend should not ask for
     * (CUDA's numbering would be refused). */
    gg__device_props p;
    OK(fake.device_props(fake.self, 1, &p));
    cr_expect_str_eq(p.name, "fake HIP GPU 1");
    cr_expect_eq(p.total_memory, 2ull << 30);
    cr_expect_not(p.watchdog, "ROCm reports no kernel run-time limit");
    cr_expect_not(p.simulated);
    cr_expect_eq(p.multiprocessors, 61);
    cr_expect_eq(p.max_threads_per_block, 1024);
    cr_expect_eq(p.max_block[2], 1024);
    cr_expect_eq(p.max_grid[0], 2147483647);
    cr_expect_eq(p.max_grid[1], 65536);
}

Test(hip_contexts, operations_the_runtime_refuses_pass_its_code_up)
{
    /* The fake's placeholders answer hipErrorNotSupported. */
    gg__dptr d = 1;
    int rc = fake.mem_alloc(fake.self, &d, 64);
    cr_expect_eq(rc, 801);
    cr_expect_eq(d, 0, "a failed allocation leaves nothing");
    cr_expect_eq(fake.classify(rc).status, GG_UNSUPPORTED);
    gg__nstream s = (gg__nstream)0x1;
    rc = fake.stream_create(fake.self, &s);
    cr_expect_eq(rc, 801);
    cr_expect_null(s);
}

Test(hip_contexts, a_new_context_on_a_device_that_died_starts_from_a_reset_device)
{
    gg__nctx c0 = NULL, c1 = NULL, again = NULL;
    OK(fake.ctx_create(fake.self, 0, false, &c0));
    OK(fake.ctx_create(fake.self, 1, false, &c1));

    /* A call on device 1 reports an illegal address: device 1 is dead. */
    gg__nctx saved = current();
    OK(fake.ctx_set_current(fake.self, c1));
    setenv("FAKE_HIP_MALLOC", "700", 1);
    gg__dptr d = 0;
    cr_assert(fake.classify(fake.mem_alloc(fake.self, &d, 64)).sticky);
    unsetenv("FAKE_HIP_MALLOC");
    OK(fake.ctx_set_current(fake.self, saved));
    cr_expect_eq(hip_test_fake_count("fake_hip_resets", 1), 0, "noting it resets nothing");

    /* What gg_context_recover does for a non-primary context. */
    OK(fake.ctx_destroy(fake.self, 1, false, c1));
    OK(fake.ctx_create(fake.self, 1, false, &again));
    cr_expect_eq(again, c1, "the same primary context, ...");
    cr_expect_eq(hip_test_fake_count("fake_hip_resets", 1), 1, "... reset");
    cr_expect_eq(current(), saved, "the caller's device is current again");

    /* Once reset, the device is fine: no more resets, and none elsewhere. */
    OK(fake.ctx_create(fake.self, 1, true, &again));
    OK(fake.ctx_create(fake.self, 0, false, &again));
    cr_expect_eq(hip_test_fake_count("fake_hip_resets", 1), 1);
    cr_expect_eq(hip_test_fake_count("fake_hip_resets", 0), 0);
}

Test(hip_contexts, ordinary_failures_and_explicit_resets_leave_no_mark)
{
    gg__nctx c1 = NULL, again = NULL;
    OK(fake.ctx_create(fake.self, 1, false, &c1));
    OK(fake.ctx_set_current(fake.self, c1));
    gg__dptr d = 0;
    setenv("FAKE_HIP_MALLOC", "2", 1); /* out of memory: not sticky */
    cr_assert_eq(fake.mem_alloc(fake.self, &d, 64), 2);
    OK(fake.ctx_create(fake.self, 1, false, &again));
    cr_expect_eq(hip_test_fake_count("fake_hip_resets", 1), 0);

    setenv("FAKE_HIP_MALLOC", "719", 1); /* launch failure: sticky */
    cr_assert_eq(fake.mem_alloc(fake.self, &d, 64), 719);
    unsetenv("FAKE_HIP_MALLOC");
    OK(fake.ctx_reset_primary(fake.self, 1)); /* recovery of a primary context */
    OK(fake.ctx_create(fake.self, 1, true, &again));
    cr_expect_eq(hip_test_fake_count("fake_hip_resets", 1), 1, "the explicit reset only");
}
