/*
 * The HIP backend's error table on its own: pure functions, tested without
 * opening a runtime (an opened backend's classify/code_name/
 * native_for_status point at them). Where the real runtime is installed, its
 * own hipGetErrorName confirms every name.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include "cuda/cuda_errors.h"
#include "hip/hip_abi.h"
#include "hip/hip_errors.h"
#include "hip_test.h"

typedef struct expected_class {
    int code;
    const char *name;
    gg_status status;
    bool sticky;
} expected_class;

/* DRIVER-FACTS.md's context-killing codes, plus PriorLaunchFailure (an
 * earlier launch failed: see hip_errors.c), with the status each maps to. */
static const expected_class sticky_codes[] = {
    { 53, "hipErrorPriorLaunchFailure", GG_LAUNCH_FAILED, true },
    { 214, "hipErrorECCNotCorrectable", GG_DRIVER, true },
    { 700, "hipErrorIllegalAddress", GG_ILLEGAL_ADDRESS, true },
    { 702, "hipErrorLaunchTimeOut", GG_LAUNCH_TIMEOUT, true },
    { 710, "hipErrorAssert", GG_LAUNCH_FAILED, true },
    { 719, "hipErrorLaunchFailure", GG_LAUNCH_FAILED, true },
};

static const expected_class other_codes[] = {
    { 0, "hipSuccess", GG_OK, false },
    { 1, "hipErrorInvalidValue", GG_INVALID_ARGUMENT, false },
    { 2, "hipErrorOutOfMemory", GG_OUT_OF_MEMORY, false },
    { 3, "hipErrorNotInitialized", GG_NOT_INITIALIZED, false },
    { 4, "hipErrorDeinitialized", GG_DRIVER, false },
    { 9, "hipErrorInvalidConfiguration", GG_INVALID_ARGUMENT, false },
    { 35, "hipErrorInsufficientDriver", GG_NO_DRIVER, false },
    { 98, "hipErrorInvalidDeviceFunction", GG_INVALID_ARGUMENT, false },
    { 100, "hipErrorNoDevice", GG_NO_DEVICE, false },
    { 101, "hipErrorInvalidDevice", GG_NO_DEVICE, false },
    { 200, "hipErrorInvalidImage", GG_INVALID_ARGUMENT, false },
    { 201, "hipErrorInvalidContext", GG_INVALID_HANDLE, false },
    { 209, "hipErrorNoBinaryForGpu", GG_UNSUPPORTED, false },
    { 216, "hipErrorContextAlreadyInUse", GG_BUSY, false },
    { 218, "hipErrorInvalidKernelFile", GG_INVALID_ARGUMENT, false },
    { 301, "hipErrorFileNotFound", GG_INVALID_ARGUMENT, false },
    { 400, "hipErrorInvalidHandle", GG_INVALID_HANDLE, false },
    { 500, "hipErrorNotFound", GG_INVALID_ARGUMENT, false },
    { 600, "hipErrorNotReady", GG_NOT_READY, false },
    { 701, "hipErrorLaunchOutOfResources", GG_INVALID_ARGUMENT, false },
    { 709, "hipErrorContextIsDestroyed", GG_INVALID_HANDLE, false },
    { 720, "hipErrorCooperativeLaunchTooLarge", GG_INVALID_ARGUMENT, false },
    { 801, "hipErrorNotSupported", GG_UNSUPPORTED, false },
    { 999, "hipErrorUnknown", GG_DRIVER, false },
    { 1052, "hipErrorRuntimeMemory", GG_DRIVER, false },
    { 1053, "hipErrorRuntimeOther", GG_DRIVER, false },
};

static void check_class(const expected_class *e)
{
    gg__code_class c = gg__hip_classify(e->code);
    cr_expect_str_eq(gg__hip_code_name(e->code), e->name, "name of %d", e->code);
    cr_expect_eq(c.status, e->status, "%s: status %s, expected %s", e->name,
                 gg_status_name(c.status), gg_status_name(e->status));
    cr_expect_eq(c.sticky, e->sticky, "%s: sticky %d, expected %d", e->name, c.sticky, e->sticky);
}

Test(hip_errors, every_context_killing_code_is_sticky)
{
    for (size_t i = 0; i < sizeof sticky_codes / sizeof sticky_codes[0]; i++)
        check_class(&sticky_codes[i]);
}

Test(hip_errors, ordinary_failures_are_not_sticky_and_keep_their_meaning)
{
    for (size_t i = 0; i < sizeof other_codes / sizeof other_codes[0]; i++)
        check_class(&other_codes[i]);
}

Test(hip_errors, no_other_code_is_sticky)
{
    int sticky = 0;
    for (int code = -10; code <= 2000; code++)
        sticky += gg__hip_classify(code).sticky;
    cr_expect_eq(sticky, (int)(sizeof sticky_codes / sizeof sticky_codes[0]));
}

Test(hip_errors, only_deinitialized_means_the_runtime_is_shutting_down)
{
    for (int code = -10; code <= 2000; code++)
        cr_expect_eq(gg__hip_classify(code).deinitialized, code == 4, "code %d", code);
}

Test(hip_errors, cuda_only_codes_are_not_hip_codes)
{
    /* HIP has no 714-718, 721, 226, 810, 911, 909: a number the CUDA table
     * knows is not thereby a HIP code. */
    const int cuda_only[] = { 34, 226, 714, 715, 716, 717, 718, 721, 810, 909, 911 };
    for (size_t i = 0; i < sizeof cuda_only / sizeof cuda_only[0]; i++) {
        gg__code_class c = gg__hip_classify(cuda_only[i]);
        cr_expect_str_eq(gg__hip_code_name(cuda_only[i]), "hipErrorUnrecognized", "%d",
                         cuda_only[i]);
        cr_expect_eq(c.status, GG_DRIVER);
        cr_expect_not(c.sticky, "%d", cuda_only[i]);
    }
}

Test(hip_errors, unknown_codes_have_a_static_name_and_are_plain_driver_errors)
{
    const int unknown[] = { -1, 10, 36, 102, 703, 1054, 1100, 123456 };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        gg__code_class c = gg__hip_classify(unknown[i]);
        cr_expect_str_eq(gg__hip_code_name(unknown[i]), "hipErrorUnrecognized");
        cr_expect_eq(c.status, GG_DRIVER);
        cr_expect_not(c.sticky);
    }
    for (int code = -10; code <= 2000; code++)
        cr_assert_not_null(gg__hip_code_name(code));
}

Test(hip_errors, injected_statuses_get_the_code_a_runtime_would_return)
{
    const struct { gg_status status; int code; } map[] = {
        { GG_ILLEGAL_ADDRESS, 700 }, { GG_LAUNCH_FAILED, 719 }, { GG_LAUNCH_TIMEOUT, 702 },
        { GG_OUT_OF_MEMORY, 2 },     { GG_NOT_READY, 600 },     { GG_NO_DEVICE, 100 },
        { GG_INVALID_ARGUMENT, 1 },  { GG_INVALID_HANDLE, 400 }, { GG_OK, 0 },
        { GG_UNSUPPORTED, 801 },     { GG_BUSY, 216 },          { GG_TIMEOUT, 999 },
        { GG_CANCELLED, 999 },       { GG_NO_DRIVER, 999 },     { GG_INTERNAL, 999 },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        cr_expect_eq(gg__hip_native_for_status(map[i].status), map[i].code, "%s",
                     gg_status_name(map[i].status));
}

Test(hip_errors, injected_codes_classify_back_to_the_injected_status)
{
    /* Every status HIP has a code for (HIP 5.2 has no hipErrorTimeout). */
    const gg_status round_trip[] = {
        GG_OK, GG_INVALID_ARGUMENT, GG_INVALID_HANDLE, GG_NOT_INITIALIZED, GG_NO_DEVICE,
        GG_OUT_OF_MEMORY, GG_NOT_READY, GG_LAUNCH_TIMEOUT, GG_LAUNCH_FAILED,
        GG_ILLEGAL_ADDRESS, GG_UNSUPPORTED, GG_BUSY, GG_DRIVER,
    };
    for (size_t i = 0; i < sizeof round_trip / sizeof round_trip[0]; i++) {
        int code = gg__hip_native_for_status(round_trip[i]);
        cr_expect_eq(gg__hip_classify(code).status, round_trip[i], "%s -> %d",
                     gg_status_name(round_trip[i]), code);
    }
}

Test(hip_errors, injected_codes_have_the_cuda_numbers_where_the_names_are_shared)
{
    for (int s = 0; s < GG__STATUS_COUNT; s++) {
        int hip = gg__hip_native_for_status((gg_status)s);
        int cuda = gg__cuda_native_for_status((gg_status)s);
        if (s == GG_TIMEOUT) {
            cr_expect_eq(cuda, 909, "CUDA_ERROR_TIMEOUT");
            cr_expect_eq(hip, 999, "no hipErrorTimeout in HIP 5.2: hipErrorUnknown");
            continue;
        }
        cr_expect_eq(hip, cuda, "%s: HIP %d (%s), CUDA %d (%s)", gg_status_name((gg_status)s), hip,
                     gg__hip_code_name(hip), cuda, gg__cuda_code_name(cuda));
    }
}

Test(hip_errors, every_name_is_the_one_the_real_runtime_gives)
{
    if (access(GG_TEST_REAL_HIP, R_OK) != 0)
        cr_skip_test("no HIP runtime at " GG_TEST_REAL_HIP);
    void *h = dlopen(GG_TEST_REAL_HIP, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    cr_assert_not_null(h, "%s", dlerror());
    gghip_fn_hipGetErrorName name = (gghip_fn_hipGetErrorName)dlsym(h, "hipGetErrorName");
    cr_assert_not_null(name);
    int checked = 0;
#define CHECK_NAME(n, value, gg, sticky)                                                   \
    cr_expect_str_eq(gg__hip_code_name(value), name(value), "code %d", value);             \
    checked++;
    GGHIP_ERROR_LIST(CHECK_NAME)
#undef CHECK_NAME
    cr_expect_gt(checked, 70);
    dlclose(h);
}
