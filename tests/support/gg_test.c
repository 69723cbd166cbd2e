#include "support/gg_test.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The backends the conformance suites run over, chosen by GG_TEST_BACKEND
 * (sim by default): the same tests, the driver names each backend uses. */
static const gg_test_backend backends[] = {
    { .name = "sim", .library = GG_TEST_SIM_CUDA, .hip = false,
      .fn_context_destroy = "cuCtxDestroy_v2", .fn_context_pop = "cuCtxPopCurrent_v2",
      .fn_launch = "cuLaunchKernel", .fn_get_current = "cuCtxGetCurrent",
      .illegal_address_name = "CUDA_ERROR_ILLEGAL_ADDRESS" },
    { .name = "sim-hip", .library = GG_TEST_SIM_HIP, .hip = true,
      .fn_context_destroy = "hipDevicePrimaryCtxRelease", .fn_context_pop = "hipCtxPopCurrent",
      .fn_launch = "hipModuleLaunchKernel", .fn_get_current = "hipCtxGetCurrent",
      .illegal_address_name = "hipErrorIllegalAddress" },
};
/* "sim" as a CUDA 11.x driver (GG_TEST_SIM_DRIVER_VERSION below 12000). */
static const gg_test_backend sim_cuda11 = {
    .name = "sim", .library = GG_TEST_SIM_CUDA11, .hip = false,
    .fn_context_destroy = "cuCtxDestroy_v2", .fn_context_pop = "cuCtxPopCurrent_v2",
    .fn_launch = "cuLaunchKernel", .fn_get_current = "cuCtxGetCurrent",
    .illegal_address_name = "CUDA_ERROR_ILLEGAL_ADDRESS" };

/* GG_TEST_SIM_DRIVER_VERSION, whatever the backend; 0 when unset. */
static int requested_driver_version(void)
{
    const char *text = getenv("GG_TEST_SIM_DRIVER_VERSION");
    if (text == NULL || text[0] == '\0')
        return 0;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    cr_assert(errno == 0 && *end == '\0' && v > 0 && v < 1000000,
              "GG_TEST_SIM_DRIVER_VERSION='%s' is not a CUDA version number such as 12020", text);
    return (int)v;
}

const gg_test_backend *gg_test_backend_in_use(void)
{
    const char *name = getenv("GG_TEST_BACKEND");
    const gg_test_backend *tb = &backends[0];
    for (size_t i = 0; name != NULL && i < sizeof backends / sizeof backends[0]; i++)
        if (strcmp(name, backends[i].name) == 0)
            tb = &backends[i];
    cr_assert(name == NULL || strcmp(name, tb->name) == 0, "GG_TEST_BACKEND='%s' is not sim or sim-hip", name);
    if (!tb->hip && requested_driver_version() != 0 && requested_driver_version() < 12000)
        return &sim_cuda11;
    return tb;
}

int gg_test_sim_driver_version(void)
{
    return gg_test_backend_in_use()->hip ? 0 : requested_driver_version();
}

/* Sets GPUGUARD_SIM_CONFIG to `sim_config` with "driver_version" added from
 * GG_TEST_SIM_DRIVER_VERSION (CUDA face only) unless the test set it, or
 * the configuration is not a JSON object (a test of bad configurations:
 * passed as it is). */
static void set_sim_config(const char *sim_config)
{
    int version = gg_test_sim_driver_version();
    cJSON *root = version != 0 ? cJSON_Parse(sim_config != NULL ? sim_config : "{}") : NULL;
    if (cJSON_IsObject(root) && !cJSON_HasObjectItem(root, "driver_version")) {
        cr_assert_not_null(cJSON_AddNumberToObject(root, "driver_version", version));
        char *merged = cJSON_PrintUnformatted(root);
        cr_assert_not_null(merged);
        setenv("GPUGUARD_SIM_CONFIG", merged, 1);
        cJSON_free(merged);
    } else if (sim_config != NULL) {
        setenv("GPUGUARD_SIM_CONFIG", sim_config, 1);
    } else {
        unsetenv("GPUGUARD_SIM_CONFIG");
    }
    cJSON_Delete(root);
}

void gg_test_init_sim_desc(const char *sim_config, gg_init_desc *desc)
{
    set_sim_config(sim_config);
    const gg_test_backend *tb = gg_test_backend_in_use();
    desc->backend = tb->name;
    if (tb->hip)
        desc->hip_library = tb->library;
    else
        desc->cuda_library = tb->library;
    GG_OK_(gg_init(desc));
}

void gg_test_init_sim(const char *sim_config)
{
    gg_init_desc desc = GG_INIT_DESC_INIT;
    gg_test_init_sim_desc(sim_config, &desc);
}

void gg_test_finish(void)
{
    uint64_t live = 0;
    GG_OK_(gg_live_objects(&live));
    if (live != 0) {
        char *json = NULL;
        gg_objects_json(&json);
        cr_log_error("leaked objects: %s", json ? json : "?");
        gg_free(json);
    }
    cr_assert_eq(live, 0, "%llu gpuguard object(s) leaked by the test", (unsigned long long)live);
    GG_OK_(gg_shutdown());
}

const char *gg_test_kernel_module(const char *name)
{
    static _Thread_local char path[512];
    snprintf(path, sizeof path, "%s/%s.so", GG_TEST_KERNEL_DIR, name);
    return path;
}

const char *gg_test_last_message(void)
{
    static _Thread_local gg_error_info e = GG_ERROR_INFO_INIT;
    gg_last_error(&e);
    return e.message;
}

#include <dlfcn.h>

/* The simulator library gpuguard loaded (the same instance: dlopen of the
 * same path returns it). */
void *gg_test_sim_symbol(const char *name)
{
    void *lib = dlopen(gg_test_backend_in_use()->library, RTLD_NOW | RTLD_NOLOAD);
    cr_assert_not_null(lib, "the simulator is not loaded: %s", dlerror());
    void *sym = dlsym(lib, name);
    cr_assert_not_null(sym, "the simulator does not export %s", name);
    dlclose(lib);
    return sym;
}

unsigned long long gg_test_sim_total_calls(void)
{
    unsigned long long (*total)(void) = (unsigned long long (*)(void))gg_test_sim_symbol("gg_sim_total_calls");
    return total();
}

unsigned long long gg_test_sim_call_count(const char *function)
{
    unsigned long long (*count)(const char *) = (unsigned long long (*)(const char *))gg_test_sim_symbol("gg_sim_call_count");
    return count(function);
}

unsigned long long gg_test_sim_device_memory_used(int device)
{
    unsigned long long (*used)(int) =
        (unsigned long long (*)(int))gg_test_sim_symbol("gg_sim_device_memory_used");
    return used(device);
}

void *gg_test_sim_current_context(void)
{
    int (*get)(void **) = (int (*)(void **))gg_test_sim_symbol(gg_test_backend_in_use()->fn_get_current);
    void *ctx = NULL;
    cr_assert_eq(get(&ctx), 0);
    return ctx;
}

int gg_test_sim_push_raw_context(void **out)
{
    /* A context made behind gpuguard's back, as interop code would: a new
     * CUDA context on device 1; HIP has none to make, so device 0's primary
     * context, pushed. */
    if (!gg_test_backend_in_use()->hip) {
        int (*create)(void **, unsigned, int) = (int (*)(void **, unsigned, int))gg_test_sim_symbol("cuCtxCreate_v2");
        return create(out, 0, 1);
    }
    int (*retain)(void **, int) = (int (*)(void **, int))gg_test_sim_symbol("hipDevicePrimaryCtxRetain");
    int (*push)(void *) = (int (*)(void *))gg_test_sim_symbol("hipCtxPushCurrent");
    int n = retain(out, 0);
    return n != 0 ? n : push(*out);
}

int gg_test_sim_destroy_raw_context(void *ctx)
{
    if (!gg_test_backend_in_use()->hip) {
        int (*destroy)(void *) = (int (*)(void *))gg_test_sim_symbol("cuCtxDestroy_v2");
        return destroy(ctx);
    }
    int (*pop)(void **) = (int (*)(void **))gg_test_sim_symbol("hipCtxPopCurrent");
    void *popped = NULL;
    return pop(&popped);
}

void gg_test_rig_open(gg_test_rig *rig, int device)
{
    GG_OK_(gg_context_create(device, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "rig" }, &rig->ctx));
    GG_OK_(gg_module_create_from_file(rig->ctx, gg_test_kernel_module("core_kernels"), NULL, &rig->module));
    GG_OK_(gg_kernel_create(rig->module, "fill_u32", &rig->fill_u32));
    GG_OK_(gg_kernel_create(rig->module, "add_one_u32", &rig->add_one_u32));
    GG_OK_(gg_kernel_create(rig->module, "touch", &rig->touch));
    GG_OK_(gg_kernel_create(rig->module, "sleep_ms", &rig->sleep_ms));
    GG_OK_(gg_kernel_create(rig->module, "noop", &rig->noop));
    GG_OK_(gg_kernel_create(rig->module, "hang_me", &rig->hang_me));
    GG_OK_(gg_kernel_create(rig->module, "trap", &rig->trap));
}
