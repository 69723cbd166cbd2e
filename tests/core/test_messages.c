/* What a newcomer reads (issue 17): each message names what went wrong and
 * what to do, in one form. Injected faults say so; objects without a tag
 * are named by id; debug lines name the call once; keyword values ignore
 * case; a fault report that cannot be written fails gg_init; a missing
 * driver suggests the simulator; the simulated driver's own reason, and
 * what it loads, reach gpuguard's message; errors name the driver call
 * actually made. Runs over both simulator faces (conformance). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/launches.h"

static gg_test_rig rig;

static void setup(void)
{
    gg_test_init_sim(NULL);
    gg_test_rig_open(&rig, 1);
}

static void teardown_rig(void)
{
    GG_OK_(gg_context_destroy(rig.ctx));
    gg_test_finish();
}

TestSuite(messages);

static void assert_message_has(const char *needle)
{
    const char *m = gg_test_last_message();
    cr_assert(strstr(m, needle) != NULL, "message '%s' lacks '%s'", m, needle);
}

Test(messages, injected_out_of_memory_is_labelled, .init = setup)
{
    GG_OK_(gg_fault_set_plan("{\"rules\":[{\"op\":\"alloc\",\"nth\":1,\"error\":\"out_of_memory\"}]}"));
    gg_buffer buf;
    GG_EXPECT(GG_OUT_OF_MEMORY, gg_buffer_create(rig.ctx, 4096, NULL, &buf));
    assert_message_has("4096 bytes");
    assert_message_has("(injected fault)");
    /* A real refusal is not labelled: far more than the device has. */
    GG_OK_(gg_fault_clear());
    GG_EXPECT(GG_OUT_OF_MEMORY, gg_buffer_create(rig.ctx, (size_t)1 << 50, NULL, &buf));
    cr_assert(strstr(gg_test_last_message(), "injected") == NULL, "%s", gg_test_last_message());
    teardown_rig();
}

Test(messages, untagged_objects_are_named_by_id, .init = setup)
{
    gg_buffer buf;
    GG_OK_(gg_buffer_create(rig.ctx, 64, NULL, &buf));
    void *host = NULL;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_buffer_host_ptr(buf, &host));
    char id[32];
    snprintf(id, sizeof id, "0x%016llx", (unsigned long long)buf.id);
    assert_message_has(id);
    cr_assert(strstr(gg_test_last_message(), "''") == NULL, "%s", gg_test_last_message());
    /* A tagged one keeps its tag. */
    gg_buffer tagged;
    GG_OK_(gg_buffer_create(rig.ctx, 64, &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .tag = "weights" }, &tagged));
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_memset(tagged, 60, 0, 8, GG_NO_STREAM));
    assert_message_has("'weights'");
    teardown_rig();
}

typedef struct captured_log {
    char lines[16][GG_MESSAGE_MAX + 64];
    int count;
} captured_log;

static void capture(void *user, gg_log_level level, uint64_t object_id, const char *message)
{
    (void)level;
    (void)object_id;
    captured_log *log = user;
    if (log->count < 16)
        snprintf(log->lines[log->count++], sizeof log->lines[0], "%s", message);
}

Test(messages, debug_lines_name_the_call_once)
{
    static captured_log log;
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .log_fn = capture, .log_user = &log, .log_level = GG_LOG_DEBUG };
    gg_test_init_sim_desc(NULL, &desc);
    gg_test_rig_open(&rig, 1);
    log.count = 0;
    gg_kernel k;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_create(rig.module, NULL, &k));
    bool seen = false;
    for (int i = 0; i < log.count; i++) {
        cr_assert(strstr(log.lines[i], "gg_kernel_create: gg_kernel_create") == NULL, "repeated: %s", log.lines[i]);
        seen = seen || strncmp(log.lines[i], "gg_kernel_create: name is NULL", 27) == 0;
    }
    cr_assert(seen, "no debug line for the failure (%d lines)", log.count);
    teardown_rig();
}

Test(messages, keyword_values_ignore_case)
{
    setenv("GPUGUARD_BACKEND", gg_test_backend_in_use()->hip ? "SIM-HIP" : "Sim", 1);
    setenv("GPUGUARD_LOG", "DEBUG", 1);
    setenv("GPUGUARD_TIMEOUT_POLICY", "Return", 1);
    setenv("GPUGUARD_WATCHDOG", "REFUSE:700", 1);
    gg_init_desc desc = GG_INIT_DESC_INIT;
    gg_test_init_sim_desc(NULL, &desc);
    unsetenv("GPUGUARD_BACKEND");
    unsetenv("GPUGUARD_LOG");
    unsetenv("GPUGUARD_TIMEOUT_POLICY");
    unsetenv("GPUGUARD_WATCHDOG");
    gg_init_desc cfg = GG_INIT_DESC_INIT;
    GG_OK_(gg_config(&cfg));
    cr_assert_str_eq(cfg.backend, gg_test_backend_in_use()->hip ? "sim-hip" : "sim");
    cr_assert_eq(cfg.log_level, GG_LOG_DEBUG);
    cr_assert_eq(cfg.timeout_policy, GG_TIMEOUT_RETURNS);
    cr_assert_eq(cfg.watchdog, GG_WATCHDOG_REFUSE);
    cr_assert_eq(cfg.watchdog_budget_ms, 700);
    gg_test_finish();
}

Test(messages, fault_report_in_a_missing_folder_fails_init)
{
    setenv("GPUGUARD_FAULT_REPORT", "/nonexistent-gpuguard-folder/report.json", 1);
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = GG_TEST_SIM_CUDA };
    gg_status status = gg_init(&desc);
    unsetenv("GPUGUARD_FAULT_REPORT");
    cr_assert_eq(status, GG_INVALID_ARGUMENT, "%s", gg_status_name(status));
    assert_message_has("GPUGUARD_FAULT_REPORT");
    assert_message_has("/nonexistent-gpuguard-folder");
    cr_assert_eq(gg_backend_name()[0], '\0');
    /* A file in an existing folder is accepted (written at shutdown). */
    char path[] = "/tmp/gg-report-XXXXXX";
    cr_assert_not_null(mkdtemp(path));
    char file[64];
    snprintf(file, sizeof file, "%s/report.json", path);
    setenv("GPUGUARD_FAULT_REPORT", file, 1);
    gg_test_init_sim(NULL);
    unsetenv("GPUGUARD_FAULT_REPORT");
    gg_test_finish();
    cr_assert_eq(access(file, R_OK), 0, "no report at %s", file);
    unlink(file);
    rmdir(path);
}

Test(messages, missing_driver_suggests_the_simulator)
{
    gg_init_desc desc = { .struct_size = sizeof(gg_init_desc), .backend = "cuda", .cuda_library = "/nonexistent/libcuda.so.1" };
    GG_EXPECT(GG_NO_DRIVER, gg_init(&desc));
    assert_message_has("/nonexistent/libcuda.so.1");
    assert_message_has("GPUGUARD_BACKEND=sim");
    /* Not when the simulator itself is what is missing. */
    desc = (gg_init_desc){ .struct_size = sizeof(gg_init_desc), .backend = "sim", .cuda_library = "/nonexistent/libgpuguard_sim_cuda.so" };
    GG_EXPECT(GG_NO_DRIVER, gg_init(&desc));
    cr_assert(strstr(gg_test_last_message(), "GPUGUARD_BACKEND=sim") == NULL, "%s", gg_test_last_message());
}

Test(messages, kernel_without_parameter_declaration_says_why, .init = setup)
{
    gg_kernel k;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_create(rig.module, "no_param_declaration", &k));
    assert_message_has("GG_SIM_KERNEL_PARAMS");
    assert_message_has("no_param_declaration");
    teardown_rig();
}

/* PTX the simulator's interpreter refuses (it runs PTX it understands,
 * src/sim/ptx): an instruction that does not exist. */
static const char ptx_text[] = "//\n// Generated by NVIDIA NVVM Compiler\n.version 7.5\n.target sm_75\n"
                               ".address_size 64\n.visible .entry scale()\n{\n\tnot_an_instruction;\n\tret;\n}\n";

Test(messages, ptx_on_the_simulator_says_what_it_loads, .init = setup)
{
    char path[] = "/tmp/gg-ptx-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, ptx_text, sizeof ptx_text - 1), (ssize_t)(sizeof ptx_text - 1));
    close(fd);
    bool hip = gg_test_backend_in_use()->hip;
    gg_module m;
    gg_status status = gg_module_create_from_file(rig.ctx, path, NULL, &m);
    unlink(path);
    cr_assert_eq(status, GG_INVALID_ARGUMENT, "%s: %s", gg_status_name(status), gg_test_last_message());
    gg_error_info e = GG_ERROR_INFO_INIT;
    GG_OK_(gg_last_error(&e));
    cr_assert_str_eq(e.driver_call, hip ? "hipModuleLoad" : "cuModuleLoad");
    assert_message_has("PTX line 8: unknown instruction not_an_instruction");
    assert_message_has("simulator kernel modules");
    assert_message_has("gg_add_sim_module");
    assert_message_has(path);

    /* The same image from memory: the error names the call made. */
    status = gg_module_create_from_data(rig.ctx, ptx_text, sizeof ptx_text, NULL, &m);
    cr_assert_eq(status, GG_INVALID_ARGUMENT, "%s: %s", gg_status_name(status), gg_test_last_message());
    GG_OK_(gg_last_error(&e));
    cr_assert_str_eq(e.driver_call, hip ? "hipModuleLoadData" : "cuModuleLoadData");
    assert_message_has(hip ? "hipModuleLoadData returned" : "cuModuleLoadData returned");
    assert_message_has("gg_add_sim_module");
    teardown_rig();
}

Test(messages, injected_module_failure_carries_no_simulator_detail, .init = setup)
{
    GG_OK_(gg_fault_set_plan("{\"rules\":[{\"op\":\"kernel_get\",\"error\":\"invalid_argument\"}]}"));
    gg_kernel k;
    GG_EXPECT(GG_INVALID_ARGUMENT, gg_kernel_create(rig.module, "noop", &k));
    assert_message_has("(injected fault)");
    cr_assert(strstr(gg_test_last_message(), "simulator:") == NULL, "%s", gg_test_last_message());
    GG_OK_(gg_fault_clear());
    teardown_rig();
}
