/*
 * The interposer as the HIP runtime. This executable is compiled against
 * Debian's HIP 5.2.3 header and linked against Debian's real
 * libamdhip64.so.5, exactly as a HIP program is (DT_NEEDED
 * libamdhip64.so.5, symbol versions hip_4.2 ... hip_5.2); its run path
 * finds the interposer under that name first (build/lib/intercept), so
 * every versioned reference must resolve there or the test does not even
 * start. The interposer forwards to the simulator's HIP face
 * (GPUGUARD_INTERCEPT_HIP_RUNTIME), or to Debian's real runtime, which
 * answers "no device" here. Criterion runs every test in a process of its
 * own, so each sets its environment before the first HIP call.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "intercept_test_report.h"

#define HIP_IS(call, want)                                                                         \
    do {                                                                                           \
        hipError_t r_ = (call);                                                                    \
        cr_assert_eq(r_, (want), "%s -> %d, expected %d", #call, (int)r_, (int)(want));            \
    } while (0)
#define HIP_OK(call) HIP_IS(call, hipSuccess)

#define SIM_HIP GG_TEST_LIB_DIR "/libgpuguard_sim_hip.so"

/* Forwards to `runtime`, with `plan` (NULL: none) and a report. */
static void setup(const char *runtime, const char *plan)
{
    setenv("GPUGUARD_INTERCEPT_HIP_RUNTIME", runtime, 1);
    set_plan_and_report("hip_test", plan, true);
}

static void *interposer(void)
{
    void *self = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(self, "libamdhip64.so.5 is not loaded");
    cr_assert_not_null(dlsym(self, "gg_intercept_marker"), "libamdhip64.so.5 here is not the interposer");
    return self;
}

Test(intercept_hip, the_program_linked_against_the_real_runtime_runs_over_the_interposer)
{
    setup(SIM_HIP, "{\"rules\": [{\"function\": \"hipMalloc\", \"nth\": 1000, \"error\": \"out_of_memory\"}]}");
    void *self = interposer();
    int count = 0;
    HIP_OK(hipGetDeviceCount(&count));
    cr_assert_gt(count, 0, "the simulator has devices");
    int version = 0;
    HIP_OK(hipRuntimeGetVersion(&version));
    cr_assert_eq(version / 10000000, 5, "HIP %d through the interposer", version);
    /* The wrapper is the interposer's; so is a pass-through (a function the
     * simulator does not implement: the interposer forwards, the simulator
     * lacks it, hipErrorNotFound). */
    cr_assert_eq((void *)(uintptr_t)hipGetDeviceCount, dlsym(self, "hipGetDeviceCount"));
    hipDeviceProp_t props;
    HIP_IS(hipGetDeviceProperties(&props, 0), hipErrorNotFound);
    /* A pass-through returning a pointer: the simulator's own string. */
    void *sim = dlopen(SIM_HIP, RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(sim);
    const char *(*sim_string)(hipError_t) = (const char *(*)(hipError_t))(uintptr_t)dlsym(sim, "hipGetErrorString");
    cr_assert_str_eq(hipGetErrorString(hipErrorOutOfMemory), sim_string(hipErrorOutOfMemory));
}

/* Runs `calls` in a child (whose interposer writes the report at its
 * exit), then returns the report. */
static cJSON *report_after(void (*calls)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        calls();
        exit(0);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed: status %d", status);
    return read_report();
}

static void count_devices_and_query(void)
{
    int count = 0;
    if (hipGetDeviceCount(&count) != hipErrorInsufficientDriver)
        exit(10);
    hipDeviceProp_t props;
    if (hipGetDeviceProperties(&props, 0) != hipErrorInsufficientDriver) /* a pass-through too */
        exit(11);
    /* A pass-through that returns text answers a sentence, not an error
     * code the caller would dereference. */
    const char *name = hipGetErrorName(hipErrorInvalidValue);
    if (name == NULL || strstr(name, "no HIP runtime") == NULL)
        exit(12);
}

Test(intercept_hip, calls_are_counted_and_the_runtime_named)
{
    setup(SIM_HIP, "{\"rules\": [{\"function\": \"hipMalloc\", \"nth\": 1, \"error\": \"out_of_memory\"}]}");
    int count = 0;
    HIP_OK(hipGetDeviceCount(&count));
    HIP_OK(hipGetDeviceCount(&count));
    void *p = NULL;
    HIP_IS(hipMalloc(&p, 64), hipErrorOutOfMemory); /* fires: the report is written now */
    cJSON *report = read_report();
    cr_assert_eq(call_count(report, "hipGetDeviceCount"), 2);
    cr_assert_eq(call_count(report, "hipMalloc"), 1);
    cr_assert_str_eq(string_field(report, "hip_runtime"), SIM_HIP);
    cr_assert_str_eq(string_field(report, "driver"), "", "no CUDA call: the CUDA driver was never loaded");
    const cJSON *rule = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "rules"), 0);
    cr_assert_str_eq(string_field(rule, "first_fired_call"), "hipMalloc");
    cJSON_Delete(report);
}

Test(intercept_hip, function_rules_fail_the_nth_call_only)
{
    setup(SIM_HIP, "{\"rules\": [{\"function\": \"hipMalloc\", \"nth\": 2, \"error\": \"out_of_memory\"}]}");
    void *a = NULL, *b = NULL, *c = NULL;
    HIP_OK(hipMalloc(&a, 256));
    HIP_IS(hipMalloc(&b, 256), hipErrorOutOfMemory);
    HIP_OK(hipMalloc(&c, 256));
    HIP_OK(hipFree(a));
    HIP_OK(hipFree(c));
}

Test(intercept_hip, op_rules_name_the_hip_functions_too)
{
    setup(SIM_HIP, "{\"rules\": [{\"op\": \"copy_htod\", \"error\": \"launch_failed\"}]}");
    void *d = NULL;
    char host[16] = "abc";
    HIP_OK(hipMalloc(&d, sizeof host));
    HIP_IS(hipMemcpyHtoD(d, host, sizeof host), hipErrorLaunchFailure);
    HIP_OK(hipMemcpyDtoH(host, d, sizeof host));
    HIP_OK(hipFree(d));
}

Test(intercept_hip, an_async_fault_is_sticky_on_the_device_until_hipDeviceReset)
{
    setup(SIM_HIP, "{\"rules\": [{\"function\": \"hipMemcpyHtoD\", \"error\": \"illegal_address\", "
                   "\"mode\": \"async\"}]}");
    void *d = NULL;
    char host[16] = "abc";
    HIP_OK(hipMalloc(&d, sizeof host));
    HIP_OK(hipMemcpyHtoD(d, host, sizeof host)); /* the faulting call itself returns */
    HIP_IS(hipMemcpyDtoH(host, d, sizeof host), hipErrorIllegalAddress);
    HIP_IS(hipDeviceSynchronize(), hipErrorIllegalAddress);
    void *e = NULL;
    HIP_IS(hipMalloc(&e, 16), hipErrorIllegalAddress);
    int count = 0, dev = -1;
    HIP_OK(hipGetDeviceCount(&count)); /* looking around still works */
    HIP_OK(hipGetDevice(&dev));
    cr_assert_eq(dev, 0);
    HIP_OK(hipDeviceReset());
    HIP_OK(hipMalloc(&e, 16));
    HIP_OK(hipFree(e));
}

Test(intercept_hip, an_async_fault_stays_on_its_device)
{
    setup(SIM_HIP, "{\"rules\": [{\"function\": \"hipDeviceSynchronize\", \"error\": \"launch_timeout\", "
                   "\"mode\": \"async\"}]}");
    int count = 0;
    HIP_OK(hipGetDeviceCount(&count));
    if (count < 2)
        cr_skip_test("the simulator has %d device(s)", count);
    HIP_OK(hipSetDevice(1));
    HIP_OK(hipDeviceSynchronize());
    void *p = NULL;
    HIP_IS(hipMalloc(&p, 16), hipErrorLaunchTimeOut);
    HIP_OK(hipSetDevice(0));
    HIP_OK(hipMalloc(&p, 16));
    HIP_OK(hipFree(p));
}

Test(intercept_hip, no_runtime_every_call_fails_and_the_report_says_why)
{
    setup("/nonexistent/gpuguard/libamdhip64.so.5", "{\"rules\": [{\"function\": \"hipInit\", \"nth\": 99, "
                                                     "\"error\": \"driver\"}]}");
    cJSON *report = report_after(count_devices_and_query);
    const char *why = string_field(report, "hip_runtime_error");
    cr_assert_not_null(why, "the report does not say why there is no runtime");
    cr_assert(strstr(why, "/nonexistent/gpuguard/libamdhip64.so.5") != NULL, "%s", why);
    cr_assert(strstr(why, "GPUGUARD_INTERCEPT_HIP_RUNTIME") != NULL, "%s", why);
    /* Calls are counted even with nothing to forward them to (what the
     * program asked for is what the report says), passed-through ones too
     * while watching, except those that return no error code. */
    cr_assert_eq(call_count(report, "hipGetDeviceCount"), 1);
    cr_assert_eq(call_count(report, "hipGetDeviceProperties"), 1);
    cr_assert_eq(call_count(report, "hipGetErrorName"), 0);
    cJSON_Delete(report);
}

Test(intercept_hip, a_library_that_is_not_a_hip_runtime_is_refused)
{
    setup(GG_TEST_LIB_DIR "/libgpuguard_sim_cuda.so", "{\"rules\": [{\"function\": \"hipGetDeviceCount\", "
                                                      "\"error\": \"driver\"}]}");
    cJSON *report = report_after(count_devices_and_query);
    const char *why = string_field(report, "hip_runtime_error");
    cr_assert_not_null(why);
    cr_assert(strstr(why, "exports no hipInit: not a HIP runtime") != NULL, "%s", why);
    cJSON_Delete(report);
}

/* ---- over Debian's real runtime ----------------------------------------- */

#define REAL_HIP "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5"

static void *real_runtime(const char *plan)
{
    if (access(REAL_HIP, R_OK) != 0)
        cr_skip_test("Debian's libamdhip64.so.5 is not installed at " REAL_HIP);
    setup(REAL_HIP, plan);
    void *real = dlopen(REAL_HIP, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(real, "cannot open " REAL_HIP ": %s", dlerror());
    return real;
}

/* Wrapped and passed-through functions alike answer what the real
 * runtime's own functions answer (no GPU here: "no device"). */
Test(intercept_hip_real, forwards_to_debians_runtime)
{
    void *real = real_runtime(NULL);
    void *self = interposer();
    int mine = -1, theirs = -2;
    hipError_t a = hipRuntimeGetVersion(&mine);
    hipError_t (*version)(int *) = (hipError_t(*)(int *))(uintptr_t)dlsym(real, "hipRuntimeGetVersion");
    hipError_t b = version(&theirs);
    cr_assert_eq(a, b);
    cr_assert_eq(mine, theirs, "HIP %d through the interposer, %d from the runtime", mine, theirs);
    int n1 = -1, n2 = -1;
    hipError_t (*count)(int *) = (hipError_t(*)(int *))(uintptr_t)dlsym(real, "hipGetDeviceCount");
    a = hipGetDeviceCount(&n1);
    b = count(&n2);
    cr_assert_eq(a, b, "hipGetDeviceCount: %d through the interposer, %d from the runtime", a, b);
    cr_assert_neq(a, hipErrorInsufficientDriver);
    /* Pass-through, in the runtime's hip_4.2 node: the same answer. */
    hipDeviceProp_t props;
    hipError_t (*get_props)(hipDeviceProp_t *, int) =
        (hipError_t(*)(hipDeviceProp_t *, int))(uintptr_t)dlvsym(real, "hipGetDeviceProperties", "hip_4.2");
    cr_assert_not_null(get_props);
    cr_assert_neq((void *)(uintptr_t)hipGetDeviceProperties, (void *)(uintptr_t)get_props);
    for (int round = 0; round < 2; round++) {
        a = hipGetDeviceProperties(&props, 0);
        b = get_props(&props, 0);
        cr_assert_eq(a, b, "hipGetDeviceProperties: %d through the interposer, %d from the runtime", a, b);
        cr_assert_neq(a, hipErrorNotFound);
    }
    const char *(*string)(hipError_t) = (const char *(*)(hipError_t))(uintptr_t)dlsym(real, "hipGetErrorString");
    cr_assert_eq(hipGetErrorString(hipErrorNoDevice), string(hipErrorNoDevice), "the runtime's own string");
    (void)self;
    dlclose(real);
}

Test(intercept_hip_real, a_plan_fails_hipcc_launches_before_the_real_runtime)
{
    void *real = real_runtime("{\"rules\": [{\"function\": \"hipLaunchKernel\", \"nth\": 1, "
                              "\"error\": \"launch_failed\"}]}");
    hipError_t (*launch)(const void *, dim3, dim3, void **, size_t, hipStream_t) =
        (hipError_t(*)(const void *, dim3, dim3, void **, size_t, hipStream_t))(uintptr_t)dlvsym(
            real, "hipLaunchKernel", "hip_4.2");
    cr_assert_not_null(launch);
    dim3 grid = { 1, 1, 1 }, block = { 1, 1, 1 };
    HIP_IS(hipLaunchKernel(NULL, grid, block, NULL, 0, NULL), hipErrorLaunchFailure);
    hipError_t theirs = launch(NULL, grid, block, NULL, 0, NULL);
    HIP_IS(hipLaunchKernel(NULL, grid, block, NULL, 0, NULL), theirs); /* then the runtime's own answer */
    dlclose(real);
}

Test(intercept_hip_real, the_plan_applies_before_the_real_runtime)
{
    void *real = real_runtime("{\"rules\": [{\"function\": \"hipRuntimeGetVersion\", \"nth\": 2, "
                              "\"error\": 999}]}");
    int v = 0;
    HIP_OK(hipRuntimeGetVersion(&v));
    HIP_IS(hipRuntimeGetVersion(&v), hipErrorUnknown);
    HIP_OK(hipRuntimeGetVersion(&v));
    dlclose(real);
}

/* ---- hipcc's launch path: passed through, counted and failed ------------- */

/* A hipcc-built program launches with hipLaunchKernel (its <<<>>> expands
 * to __hipPushCallConfiguration and hipLaunchKernel), which the simulator
 * does not implement: the interposer passes it through, and while a plan is
 * in force counts it and fails it. */
Test(intercept_hip, hipcc_launches_are_counted_and_failed_by_plans)
{
    setup(SIM_HIP, "{\"rules\": [{\"op\": \"launch\", \"nth\": 1, \"error\": \"launch_failed\"}]}");
    void *self = interposer();
    void *sim = dlopen(SIM_HIP, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(sim);
    cr_assert_null(dlsym(sim, "hipLaunchKernel"), "the simulator implements hipLaunchKernel now: test it there");
    dim3 grid = { 1, 1, 1 }, block = { 1, 1, 1 };
    HIP_IS(hipLaunchKernel(NULL, grid, block, NULL, 0, NULL), hipErrorLaunchFailure); /* stopped by the plan */
    HIP_IS(hipLaunchKernel(NULL, grid, block, NULL, 0, NULL), hipErrorNotFound);      /* reached the simulator */
    HIP_IS(__hipPushCallConfiguration(grid, block, 0, NULL), hipErrorNotFound);
    cJSON *report = read_report(); /* written when the rule fired */
    cr_assert_eq(call_count(report, "hipLaunchKernel"), 1, "written at the fault: the first call");
    cJSON_Delete(report);
    (void)self;
}
