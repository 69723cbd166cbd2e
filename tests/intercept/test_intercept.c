/*
 * The interposing driver (src/intercept) under a program that calls the
 * driver directly. This executable is linked against the interposer as
 * libcuda.so.1 (DT_NEEDED, found through its run path in
 * build/lib/intercept), exactly as a CUDA program is linked against
 * NVIDIA's; the interposer forwards to the simulator
 * (GPUGUARD_INTERCEPT_DRIVER). Criterion runs every test in a process of
 * its own, so each test sets its environment before the first driver call,
 * when the interposer reads it.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "intercept_test_report.h"
#include "sim_cuda.h"

#define CU_IS(call, want)                                                                          \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        cr_assert_eq(r_, (want), "%s -> %d, expected %d", #call, (int)r_, (int)(want));            \
    } while (0)
#define CU_OK(call) CU_IS(call, CUDA_SUCCESS)

/* Forwards to the simulator, with `plan` (NULL: none) and a report. */
static void setup(const char *plan)
{
    setenv("GPUGUARD_INTERCEPT_DRIVER", GG_TEST_LIB_DIR "/libgpuguard_sim_cuda.so", 1);
    set_plan_and_report("test", plan, true);
}

static const cJSON *rule(const cJSON *report, int i)
{
    const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "rules"), i);
    cr_assert_not_null(r, "the report has no rule %d", i);
    return r;
}

static CUcontext make_context(void)
{
    CUcontext ctx = NULL;
    CU_OK(cuInit(0));
    CU_OK(cuCtxCreate_v4(&ctx, NULL, 0, 0));
    return ctx;
}

static CUfunction kernel(const char *name)
{
    CUmodule m = NULL;
    CUfunction f = NULL;
    CU_OK(cuModuleLoad(&m, GG_TEST_KERNEL_DIR "/sim_test_kernels.so"));
    CU_OK(cuModuleGetFunction(&f, m, name));
    return f;
}

/* fill(ptr, n, value) over n elements. */
static CUresult launch_fill(CUfunction fill, CUdeviceptr p, unsigned n, unsigned value)
{
    uint64_t ptr = p;
    void *params[] = { &ptr, &n, &value };
    return cuLaunchKernel(fill, (n + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, params, NULL);
}

Test(intercept, forwards_unchanged_without_a_plan)
{
    setup(NULL);
    unsetenv("GPUGUARD_INTERCEPT_REPORT");
    int version = 0;
    CU_OK(cuDriverGetVersion(&version));
    cr_assert_geq(version, 11040, "the simulator's version came back as %d", version);
    CUcontext ctx = make_context();
    CUdeviceptr p = 0;
    CU_OK(cuMemAlloc_v2(&p, 256 * sizeof(unsigned)));
    CU_OK(launch_fill(kernel("fill"), p, 256, 7));
    unsigned out[256] = { 0 };
    CU_OK(cuMemcpyDtoH_v2(out, p, sizeof out));
    for (int i = 0; i < 256; i++)
        cr_assert_eq(out[i], 7u, "element %d is %u", i, out[i]);
    /* The simulator's own errors come back as they are. */
    CU_IS(cuMemAlloc_v2(NULL, 16), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemFree_v2(p));
    CU_OK(cuCtxDestroy_v2(ctx));
    cr_assert_eq(access(report_path, F_OK), -1, "a report was written though none was asked for");
}

Test(intercept, nth_call_of_a_function_fails_once)
{
    setup("{\"rules\": [{\"function\": \"cuMemAlloc\", \"nth\": 2, \"error\": \"out_of_memory\"}]}");
    CUcontext ctx = make_context();
    CUdeviceptr a = 0, b = 0, c = 0;
    CU_OK(cuMemAlloc_v2(&a, 64));
    CU_IS(cuMemAlloc_v2(&b, 64), CUDA_ERROR_OUT_OF_MEMORY);
    cr_assert_eq(b, 0, "the failed allocation wrote a pointer: the driver was called");
    CU_OK(cuMemAlloc_v2(&c, 64));
    CU_OK(cuMemFree_v2(a));
    CU_OK(cuMemFree_v2(c));
    cJSON *report = read_report();
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(report, "written_at")->valuestring, "fault");
    cr_assert_eq(call_count(report, "cuMemAlloc_v2"), 2, "the report at the fault counts 2 allocations");
    const cJSON *r = rule(report, 0);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(r, "function")->valuestring, "cuMemAlloc");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(r, "fired")->valuedouble, 1);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(r, "first_fired_call")->valuestring, "cuMemAlloc_v2");
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(r, "first_fired_match")->valuedouble, 2);
    cJSON_Delete(report);
    CU_OK(cuCtxDestroy_v2(ctx));
}

Test(intercept, a_versioned_name_matches_that_variant_only)
{
    setup("{\"rules\": [{\"function\": \"cuCtxCreate_v2\", \"error\": \"driver\"}]}");
    CUcontext ctx = make_context(); /* cuCtxCreate_v4: not the rule's */
    CUcontext old = NULL;
    CU_IS(cuCtxCreate_v2(&old, 0, 0), CUDA_ERROR_UNKNOWN);
    CU_OK(cuCtxDestroy_v2(ctx));
}

Test(intercept, an_op_rule_fails_the_functions_of_that_operation)
{
    setup("{\"rules\": [{\"op\": \"launch\", \"nth\": 1, \"error\": \"launch_failed\"}]}");
    CUcontext ctx = make_context();
    CUfunction fill = kernel("fill");
    CUdeviceptr p = 0;
    CU_OK(cuMemAlloc_v2(&p, 64 * sizeof(unsigned)));
    CU_IS(launch_fill(fill, p, 64, 1), CUDA_ERROR_LAUNCH_FAILED);
    /* Immediate: the context is not poisoned, the next launch runs. */
    CU_OK(launch_fill(fill, p, 64, 2));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemFree_v2(p));
    CU_OK(cuCtxDestroy_v2(ctx));
}

/* As the measured driver (docs/DRIVER-FACTS.md, H100 with driver 580): a
 * sticky error reaches every context of the process, creating one answers
 * it too, and no destroy brings the driver back; teardown and the calls
 * that look around still answer. */
Test(intercept, an_async_fault_poisons_the_whole_process)
{
    setup("{\"rules\": [{\"op\": \"launch\", \"nth\": 1, \"error\": \"illegal_address\", \"mode\": \"async\"}]}");
    CUcontext other = make_context(); /* made before the fault */
    CUcontext bad = make_context();
    CUfunction fill = kernel("fill");
    CUdeviceptr p = 0;
    CU_OK(cuMemAlloc_v2(&p, 64 * sizeof(unsigned)));
    CU_OK(launch_fill(fill, p, 64, 1)); /* the launch itself is accepted */
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    CUdeviceptr q = 0;
    CU_IS(cuMemAlloc_v2(&q, 64), CUDA_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuMemFree_v2(p), CUDA_ERROR_ILLEGAL_ADDRESS); /* PyCUDA's "cuMemFree failed" */

    /* The other context answers it too, and no new one can be made. */
    CU_OK(cuCtxSetCurrent(other));
    CU_IS(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuMemAlloc_v2(&q, 64), CUDA_ERROR_ILLEGAL_ADDRESS);
    CUcontext fresh = NULL;
    CU_IS(cuCtxCreate_v4(&fresh, NULL, 0, 0), CUDA_ERROR_ILLEGAL_ADDRESS);
    CUcontext primary = NULL;
    CU_IS(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_ERROR_ILLEGAL_ADDRESS);
    /* Looking around and tearing down still answer. */
    int version = 0;
    CU_OK(cuDriverGetVersion(&version));
    CUdevice dev = -1;
    CU_OK(cuDeviceGet(&dev, 0));
    /* Destroying every context does not bring the driver back. */
    CU_OK(cuCtxDestroy_v2(bad));
    CU_OK(cuCtxDestroy_v2(other));
    CU_IS(cuCtxCreate_v4(&fresh, NULL, 0, 0), CUDA_ERROR_ILLEGAL_ADDRESS);
    CU_OK(cuDevicePrimaryCtxReset_v2(0));
    CU_IS(cuCtxCreate_v4(&fresh, NULL, 0, 0), CUDA_ERROR_ILLEGAL_ADDRESS);
}

Test(intercept, proc_address_hands_out_the_wrappers)
{
    setup("{\"rules\": [{\"function\": \"cuMemAlloc\", \"nth\": 1, \"error\": \"out_of_memory\"}]}");
    CUcontext ctx = make_context();
    void *self = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(self, "the interposer is not loaded as libcuda.so.1");
    cr_assert_not_null(dlsym(self, "gg_intercept_marker"), "libcuda.so.1 here is not the interposer");
    void *pfn = NULL;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CU_OK(cuGetProcAddress_v2("cuMemAlloc", &pfn, 12020, 0, &st));
    cr_assert_eq(st, CU_GET_PROC_ADDRESS_SUCCESS);
    cr_assert_eq(pfn, dlsym(self, "cuMemAlloc_v2"), "cuGetProcAddress handed out the driver's own pointer");
    CUresult (*alloc)(CUdeviceptr *, size_t) = (CUresult(*)(CUdeviceptr *, size_t))(uintptr_t)pfn;
    CUdeviceptr p = 0;
    CU_IS(alloc(&p, 64), CUDA_ERROR_OUT_OF_MEMORY); /* the plan applies through it */
    CU_OK(alloc(&p, 64));
    CU_OK(cuMemFree_v2(p));
    /* The 11.x form too, and cuGetProcAddress itself. */
    pfn = NULL;
    CU_OK(cuGetProcAddress("cuCtxSynchronize", &pfn, 11040, 0));
    cr_assert_eq(pfn, dlsym(self, "cuCtxSynchronize"));
    CU_OK(cuGetProcAddress_v2("cuGetProcAddress", &pfn, 12020, 0, &st));
    cr_assert_eq(pfn, dlsym(self, "cuGetProcAddress_v2"));
    /* What the driver refuses is refused unchanged. */
    pfn = (void *)1;
    CU_OK(cuGetProcAddress_v2("cuNoSuchFunction", &pfn, 12020, 0, &st));
    cr_assert_eq(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    cr_assert_null(pfn);
    dlclose(self);
    CU_OK(cuCtxDestroy_v2(ctx));
}

/* Runs `body` in a child process that then exits normally, which writes
 * the exit report; the child's status must be 0 (its own checks passed). */
static void run_in_child(void (*body)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        body();
        exit(0);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed (status %#x)", status);
}

/* In a child there is no Criterion to report to: a failed check exits 1. */
#define CHILD_IS(call, want) do { if ((call) != (want)) { fprintf(stderr, "%s\n", #call); _exit(1); } } while (0)

static void bad_plan_body(void)
{
    CHILD_IS(cuInit(0), CUDA_ERROR_INVALID_VALUE);
    int version = 0;
    CHILD_IS(cuDriverGetVersion(&version), CUDA_SUCCESS); /* everything else forwards */
}

Test(intercept, a_bad_plan_fails_cuInit_and_is_named_in_the_report)
{
    setup("{\"rules\": [{\"function\": \"cuNoSuchThing\", \"error\": \"out_of_memory\"}]}");
    run_in_child(bad_plan_body);
    cJSON *report = read_report();
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(report, "plan_error");
    cr_assert(cJSON_IsString(why), "the report has no plan_error");
    cr_assert(strstr(why->valuestring, "GPUGUARD_INTERCEPT_FAULTS: fault plan: rule 0: \"function\": unknown "
                                       "driver function \"cuNoSuchThing\"") != NULL, "plan_error: %s", why->valuestring);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(report, "plan")));
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(report, "written_at")->valuestring, "exit");
    cJSON_Delete(report);
}

static void counted_body(void)
{
    CUcontext ctx = NULL;
    CHILD_IS(cuInit(0), CUDA_SUCCESS);
    CHILD_IS(cuCtxCreate_v4(&ctx, NULL, 0, 0), CUDA_SUCCESS);
    CUdeviceptr p = 0;
    for (int i = 0; i < 5; i++) {
        CHILD_IS(cuMemAlloc_v2(&p, 64), CUDA_SUCCESS);
        CHILD_IS(cuMemFree_v2(p), CUDA_SUCCESS);
    }
    CUcontext cur = NULL;
    for (int i = 0; i < 3; i++)
        CHILD_IS(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    CHILD_IS(cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
}

/* libgpuguard's host-allocation countdown is not the interposer's: with
 * GPUGUARD_FAIL_HOST_ALLOC naming any one of the allocations the interposer
 * makes loading its plan (the text, the parse, the plan, its rules and
 * their names, its per-rule tables: 9), and the one after them, the plan
 * still loads and fires (src/intercept/intercept_alloc.c). */
static void countdown_body(void)
{
    CUcontext ctx = NULL;
    CHILD_IS(cuInit(0), CUDA_SUCCESS);
    CHILD_IS(cuCtxCreate_v4(&ctx, NULL, 0, 0), CUDA_SUCCESS);
    CUdeviceptr p = 0;
    CHILD_IS(cuMemAlloc_v2(&p, 64), CUDA_ERROR_OUT_OF_MEMORY);
    CHILD_IS(cuMemAlloc_v2(&p, 64), CUDA_SUCCESS);
    CHILD_IS(cuMemFree_v2(p), CUDA_SUCCESS);
    CHILD_IS(cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
}

Test(intercept, libgpuguard_s_host_alloc_countdown_never_fails_the_interposer)
{
    setup("{\"rules\": [{\"function\": \"cuMemAlloc\", \"nth\": 1, \"error\": \"out_of_memory\"}]}");
    unsetenv("GPUGUARD_INTERCEPT_REPORT");
    for (int n = 1; n <= 10; n++) {
        char value[16];
        snprintf(value, sizeof value, "%d", n);
        setenv("GPUGUARD_FAIL_HOST_ALLOC", value, 1);
        run_in_child(countdown_body);
    }
}

Test(intercept, the_exit_report_counts_every_call)
{
    setup("{\"rules\": []}");
    run_in_child(counted_body);
    cJSON *report = read_report();
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(report, "written_at")->valuestring, "exit");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(report, "driver")->valuestring,
                     GG_TEST_LIB_DIR "/libgpuguard_sim_cuda.so");
    cr_assert_eq(call_count(report, "cuInit"), 1);
    cr_assert_eq(call_count(report, "cuCtxCreate_v4"), 1);
    cr_assert_eq(call_count(report, "cuMemAlloc_v2"), 5);
    cr_assert_eq(call_count(report, "cuMemFree_v2"), 5);
    cr_assert_eq(call_count(report, "cuCtxGetCurrent"), 3);
    cr_assert_eq(call_count(report, "cuCtxDestroy_v2"), 1);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "calls")), 6,
                 "calls the program never made are listed");
    cJSON_Delete(report);
}

Test(intercept, no_driver_means_every_call_says_stub_library)
{
    setup(NULL);
    setenv("GPUGUARD_INTERCEPT_DRIVER", GG_TEST_LIB_DIR "/intercept/libcuda.so.1", 1);
    CU_IS(cuInit(0), CUDA_ERROR_STUB_LIBRARY); /* never forwards to itself */
    int version = 0;
    CU_IS(cuDriverGetVersion(&version), CUDA_ERROR_STUB_LIBRARY);
}

/* ---- functions the interposer only passes through ------------------------ */

typedef CUresult (*graph_create_fn)(void **graph, unsigned int flags);
typedef CUresult (*uuid_fn)(void *uuid, CUdevice dev);
typedef CUresult (*launch_ex_fn)(const void *config, CUfunction f, void **params, void **extra);

/* The interposer's own export `name` (a pass-through trampoline). */
static void *own(const char *name)
{
    void *self = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(self);
    void *p = dlsym(self, name);
    cr_assert_not_null(p, "the interposer does not export %s", name);
    void *sim = dlopen(GG_TEST_LIB_DIR "/libgpuguard_sim_cuda.so", RTLD_NOW | RTLD_NOLOAD);
    cr_assert(sim == NULL || dlsym(sim, name) == NULL, "the simulator implements %s now: pick another", name);
    return p;
}

Test(intercept, passed_through_functions_are_counted_and_failed_by_plans)
{
    /* The simulator lacks the graph and Ex calls, so a call that reaches it
     * answers 500; an injected error means the plan stopped the call first. */
    setup("{\"rules\": [{\"function\": \"cuGraphCreate\", \"nth\": 2, \"error\": \"out_of_memory\"},"
          " {\"op\": \"launch\", \"nth\": 1, \"error\": \"launch_failed\", \"mode\": \"async\"}]}");
    graph_create_fn graph_create = (graph_create_fn)(uintptr_t)own("cuGraphCreate");
    launch_ex_fn launch_ex = (launch_ex_fn)(uintptr_t)own("cuLaunchKernelEx");
    uuid_fn uuid = (uuid_fn)(uintptr_t)own("cuDeviceGetUuid_v2");
    (void)make_context();
    void *graph = NULL;
    CU_IS(graph_create(&graph, 0), CUDA_ERROR_NOT_FOUND);
    CU_IS(graph_create(&graph, 0), CUDA_ERROR_OUT_OF_MEMORY);
    CU_IS(graph_create(&graph, 0), CUDA_ERROR_NOT_FOUND);
    /* An async launch failure on a passed-through launch (the "launch" op
     * takes in cuLaunchKernelEx): the call itself goes on to the driver,
     * and the context is dead for the calls after it, passed-through ones
     * included; a device query is still answered, as by a real driver. */
    CU_IS(launch_ex(NULL, NULL, NULL, NULL), CUDA_ERROR_NOT_FOUND);
    CUdeviceptr p = 0;
    CU_IS(cuMemAlloc_v2(&p, 64), CUDA_ERROR_LAUNCH_FAILED);
    CU_IS(graph_create(&graph, 0), CUDA_ERROR_LAUNCH_FAILED);
    unsigned char id[16] = { 0 };
    CU_IS(uuid(id, 0), CUDA_SUCCESS); /* the simulator has it (issue 31): answered on a dead context */
    cr_assert_eq(memcmp(id, "gpuguard-sim", 12), 0, "the call reached the simulator");
    cJSON *report = read_report(); /* written when the rules fired */
    cr_assert_eq(call_count(report, "cuGraphCreate"), 3, "the report is the one written at the last fault");
    cr_assert_eq(call_count(report, "cuLaunchKernelEx"), 1);
    cr_assert_str_eq(string_field(rule(report, 0), "first_fired_call"), "cuGraphCreate");
    cr_assert_str_eq(string_field(rule(report, 1), "first_fired_call"), "cuLaunchKernelEx");
    cJSON_Delete(report);
}

Test(intercept, a_function_that_returns_no_error_code_cannot_be_failed)
{
    /* cudbgApiInit is the driver's (the debugger's), returns no CUresult:
     * the interposer only passes it through, and a plan naming it is
     * refused rather than silently never firing. */
    setup("{\"rules\": [{\"function\": \"cudbgApiInit\", \"error\": \"driver\"}]}");
    run_in_child(bad_plan_body);
    cJSON *report = read_report();
    const char *why = string_field(report, "plan_error");
    cr_assert_not_null(why, "a plan naming cudbgApiInit was accepted");
    cr_assert(strstr(why, "unknown driver function \"cudbgApiInit\"") != NULL, "plan_error: %s", why);
    cJSON_Delete(report);
}

/* ---- the interposer's own inputs and outputs, to the byte (issue 26) ---- */

static char stderr_path[64];

/* The child's stderr goes to stderr_path, then the bad plan is met. */
static void bad_plan_logged_body(void)
{
    int fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || dup2(fd, 2) < 0)
        _exit(2);
    CHILD_IS(cuInit(0), CUDA_ERROR_INVALID_VALUE);
}

/* Whether the interposer wrote its message to stderr under
 * GPUGUARD_LOG=level (the file is searched, not required empty: a
 * sanitizer's own lines may be there too). */
static bool interposer_logged_with(const char *level)
{
    snprintf(stderr_path, sizeof stderr_path, "/tmp/gg_intercept_stderr_%ld", (long)getpid());
    setup("{\"rules\": [{\"function\": \"cuNoSuchThing\", \"error\": \"out_of_memory\"}]}");
    setenv("GPUGUARD_LOG", level, 1);
    run_in_child(bad_plan_logged_body);
    unsetenv("GPUGUARD_LOG");
    FILE *f = fopen(stderr_path, "r");
    cr_assert_not_null(f);
    static char text[1 << 16];
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    unlink(stderr_path);
    return strstr(text, "gpuguard intercept:") != NULL;
}

Test(intercept, log_keywords_ignore_case_as_libgpuguard_s_do)
{
    cr_assert(interposer_logged_with("warn"), "the bad plan is not logged at all: the test checks nothing");
    cr_assert(!interposer_logged_with("off"));
    cr_assert(!interposer_logged_with("OFF"), "GPUGUARD_LOG=OFF did not silence the interposer");
    cr_assert(!interposer_logged_with("Off"), "GPUGUARD_LOG=Off did not silence the interposer");
}

Test(intercept, the_report_is_valid_utf8_whatever_the_plan_named)
{
    /* A plan file whose path is not UTF-8: the error quotes the path. */
    setup("@/nonexistent/plan-\xff\xfe.json");
    run_in_child(bad_plan_body);
    FILE *f = fopen(report_path, "rb");
    cr_assert_not_null(f, "no report at %s", report_path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cr_assert_null(memchr(text, 0xff, n), "the report holds the raw byte 0xff: %s", text);
    cr_assert_null(memchr(text, 0xfe, n), "the report holds the raw byte 0xfe: %s", text);
    cr_assert_not_null(strstr(text, "plan-\xEF\xBF\xBD\xEF\xBF\xBD.json"),
                       "the path's bad bytes are not shown as U+FFFD: %s", text);
}
