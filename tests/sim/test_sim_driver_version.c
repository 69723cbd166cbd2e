/*
 * The "driver_version" setting and cuGetProcAddress against two things we
 * did not write: the variants and versions of the CUDA 13.0 toolkit's
 * cudaTypedefs.h, and what a real 12.2 driver (535.261.03) answered
 * (data/real_driver_535_procaddr.txt). Both CUDA libraries are opened with
 * dlopen, so each test picks the one it checks; answers are compared with
 * dlsym of the export that the rule says they must be.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIB_CUDA GG_TEST_LIB_DIR "/libgpuguard_sim_cuda.so"
#define LIB_CUDA11 GG_TEST_LIB_DIR "/libgpuguard_sim_cuda11.so"

/* cuda.h's numbers, restated: this test includes no simulator header. */
enum { SUCCESS = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3 };
enum { FOUND = 0, SYMBOL_NOT_FOUND = 1, VERSION_NOT_SUFFICIENT = 2 };

typedef int (*gpa2_fn)(const char *, void **, int, uint64_t, int *);
typedef int (*gpa1_fn)(const char *, void **, int, uint64_t);
typedef int (*version_fn)(int *);
typedef int (*init_fn)(unsigned);
typedef const char *(*text_fn)(void);

/* One simulator library, opened. */
typedef struct sim {
    void *lib;
    gpa1_fn gpa1;
    gpa2_fn gpa2; /* NULL in the 11.x library */
    version_fn driver_version;
    init_fn init;
    text_fn config_error;
} sim;

static sim open_sim(const char *path)
{
    sim s = { .lib = dlopen(path, RTLD_NOW | RTLD_LOCAL) };
    cr_assert_not_null(s.lib, "%s", dlerror());
    s.gpa1 = (gpa1_fn)(uintptr_t)dlsym(s.lib, "cuGetProcAddress");
    s.gpa2 = (gpa2_fn)(uintptr_t)dlsym(s.lib, "cuGetProcAddress_v2");
    s.driver_version = (version_fn)(uintptr_t)dlsym(s.lib, "cuDriverGetVersion");
    s.init = (init_fn)(uintptr_t)dlsym(s.lib, "cuInit");
    s.config_error = (text_fn)(uintptr_t)dlsym(s.lib, "gg_sim_last_config_error");
    cr_assert(s.gpa1 && s.driver_version && s.init && s.config_error, "%s lacks an export", path);
    return s;
}

/* The library that imitates driver `version`, configured as it. */
static sim sim_as_driver(int version)
{
    char config[64];
    snprintf(config, sizeof config, "{\"driver_version\":%d}", version);
    setenv("GPUGUARD_SIM_CONFIG", config, 1);
    sim s = open_sim(version < 12000 ? LIB_CUDA11 : LIB_CUDA);
    int v = 0;
    cr_assert_eq(s.driver_version(&v), SUCCESS);
    cr_assert_eq(v, version);
    return s;
}

/* ---- the rule over cudaTypedefs.h --------------------------------------- */

/* Every base name the simulator serves. */
static const char *const served[] = {
    "cuInit", "cuDriverGetVersion", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetName",
    "cuDeviceTotalMem", "cuDeviceGetAttribute", "cuCtxCreate", "cuCtxDestroy", "cuCtxPushCurrent",
    "cuCtxPopCurrent", "cuCtxGetCurrent", "cuCtxSetCurrent", "cuCtxGetDevice", "cuCtxSynchronize",
    "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxReset",
    "cuDevicePrimaryCtxSetFlags",
    "cuStreamCreate", "cuStreamDestroy", "cuStreamQuery", "cuStreamSynchronize", "cuStreamWaitEvent",
    "cuEventCreate", "cuEventDestroy", "cuEventRecord", "cuEventQuery", "cuEventSynchronize",
    "cuEventElapsedTime", "cuMemAlloc", "cuMemFree", "cuMemAllocHost", "cuMemFreeHost",
    "cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyDtoD", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync",
    "cuMemcpyDtoDAsync", "cuMemsetD8", "cuMemsetD8Async", "cuModuleLoad", "cuModuleLoadData",
    "cuModuleUnload", "cuModuleGetFunction", "cuLaunchKernel", "cuGetErrorName", "cuGetErrorString",
    "cuGetProcAddress", "cuFuncGetParamInfo", "cuMemHostAlloc", "cuMemHostGetDevicePointer",
    "cuStreamWriteValue32", "cuStreamWriteValue64", "cuModuleLoadFatBinary",
};
#define NSERVED (sizeof served / sizeof served[0])

static const int requested_versions[] = { 1000, 2000, 2020, 3000, 3020, 4000, 6000, 7000,
                                          11000, 11030, 11040, 11080, 12000, 12020, 12050,
                                          12080, 13000, 13010, 99999 };

#define MAX_VARIANTS 8
typedef struct variants {
    int n;
    int version[MAX_VARIANTS]; /* ascending */
} variants;

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1u << 22, n;
    char *text = malloc(cap + 1);
    cr_assert_not_null(text);
    n = fread(text, 1, cap, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

/* The legacy-stream variants of `base` in cudaTypedefs.h: every
 * "PFN_<base>_v<digits>" not followed by more of a name (_ptsz, _ptds). */
static variants header_variants(const char *header, const char *base)
{
    variants v = { 0 };
    char key[96];
    snprintf(key, sizeof key, "PFN_%s_v", base);
    size_t klen = strlen(key);
    for (const char *p = strstr(header, key); p; p = strstr(p + 1, key)) {
        char *end;
        long ver = strtol(p + klen, &end, 10);
        if (end == p + klen || *end == '_' || (*end >= 'a' && *end <= 'z') || (*end >= 'A' && *end <= 'Z'))
            continue;
        int i = 0;
        while (i < v.n && v.version[i] < ver)
            i++;
        if (i < v.n && v.version[i] == ver)
            continue;
        cr_assert(v.n < MAX_VARIANTS, "%s: too many variants", base);
        memmove(&v.version[i + 1], &v.version[i], (size_t)(v.n - i) * sizeof v.version[0]);
        v.version[i] = (int)ver;
        v.n++;
    }
    return v;
}

/* The k-th variant (0-based) is exported as base, base_v2, base_v3, ... */
static void variant_name(char *out, size_t len, const char *base, int k)
{
    if (k == 0)
        snprintf(out, len, "%s", base);
    else
        snprintf(out, len, "%s_v%d", base, k + 1);
}

/* Asks `name` at `requested` through both forms and checks the answer the
 * rule gives: the newest variant at or below min(requested, driver); NULL
 * with VERSION_NOT_SUFFICIENT below the oldest, and for a variant the
 * simulator does not implement (the full library does not export it). */
static void check_answer(const sim *s, void *full, int driver, const char *base, const variants *v,
                         int requested)
{
    int limit = requested < driver ? requested : driver, k = -1;
    for (int i = 0; i < v->n; i++)
        if (v->version[i] <= limit)
            k = i;
    void *want = NULL;
    int want_status = VERSION_NOT_SUFFICIENT;
    char name[96] = "(none)";
    if (k >= 0) {
        variant_name(name, sizeof name, base, k);
        if (dlsym(full, name)) {
            want = dlsym(s->lib, name);
            cr_assert_not_null(want, "driver %d: %s is implemented but not exported", driver, name);
            want_status = FOUND;
        }
    }
    void *p = (void *)1;
    int status = -1;
    if (s->gpa2) {
        cr_assert_eq(s->gpa2(base, &p, requested, 0, &status), SUCCESS);
        cr_assert_eq(p, want, "driver %d: %s@%d: expected %s", driver, base, requested, name);
        cr_assert_eq(status, want_status, "driver %d: %s@%d: status %d", driver, base, requested, status);
    }
    p = (void *)1;
    cr_assert_eq(s->gpa1(base, &p, requested, 0), SUCCESS);
    cr_assert_eq(p, want, "driver %d: %s@%d (11.3 form): expected %s", driver, base, requested, name);
}

static void check_driver(int driver)
{
    char *header = read_text(GG_CUDA_TYPEDEFS_H);
    if (!header)
        cr_skip_test("no %s to compare with", GG_CUDA_TYPEDEFS_H);
    sim s = sim_as_driver(driver);
    void *full = dlopen(LIB_CUDA, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(full, "%s", dlerror());
    for (size_t i = 0; i < NSERVED; i++) {
        variants v = header_variants(header, served[i]);
        cr_assert(v.n > 0, "cudaTypedefs.h has no %s", served[i]);
        for (size_t r = 0; r < sizeof requested_versions / sizeof requested_versions[0]; r++)
            check_answer(&s, full, driver, served[i], &v, requested_versions[r]);
    }
    free(header);
}

TestSuite(sim_driver_version, .timeout = 60);

Test(sim_driver_version, rule_over_cudaTypedefs_as_driver_11040) { check_driver(11040); }
Test(sim_driver_version, rule_over_cudaTypedefs_as_driver_12020) { check_driver(12020); }
Test(sim_driver_version, rule_over_cudaTypedefs_as_driver_12050) { check_driver(12050); }
Test(sim_driver_version, rule_over_cudaTypedefs_as_driver_13000) { check_driver(13000); }

/* The cases the brief of issue 11 names, spelled out. */
Test(sim_driver_version, named_cases)
{
    sim s = sim_as_driver(12020);
    void *p;
    int st;
    cr_assert_eq(s.gpa2("cuCtxCreate", &p, 13000, 0, &st), SUCCESS);
    cr_assert_eq(p, dlsym(s.lib, "cuCtxCreate_v3"));
    cr_assert_eq(s.gpa2("cuEventElapsedTime", &p, 12080, 0, &st), SUCCESS);
    cr_assert_eq(p, dlsym(s.lib, "cuEventElapsedTime"));
    cr_assert_eq(s.gpa2("cuCtxSynchronize", &p, 13000, 0, &st), SUCCESS);
    cr_assert_eq(p, dlsym(s.lib, "cuCtxSynchronize"));
    cr_assert_eq(s.gpa2("cuGetProcAddress", &p, 13000, 0, &st), SUCCESS);
    cr_assert_eq(p, dlsym(s.lib, "cuGetProcAddress_v2"));
    cr_assert_eq(s.gpa2("cuGetProcAddress", &p, 11040, 0, &st), SUCCESS);
    cr_assert_eq(p, dlsym(s.lib, "cuGetProcAddress"));
    /* The v1 names at 7.0, as the 535 driver serves them (issue 31), v2 at
     * 11.0: never one's pointer for the other. */
    cr_assert_eq(s.gpa2("cuDevicePrimaryCtxRelease", &p, 7000, 0, &st), SUCCESS);
    cr_assert_eq(p, dlsym(s.lib, "cuDevicePrimaryCtxRelease"));
    cr_assert_neq(p, dlsym(s.lib, "cuDevicePrimaryCtxRelease_v2"));
    cr_assert_eq(s.gpa2("cuDevicePrimaryCtxSetFlags", &p, 10020, 0, &st), SUCCESS);
    cr_assert_eq(p, dlsym(s.lib, "cuDevicePrimaryCtxSetFlags"));
    cr_assert_eq(s.gpa2("cuDevicePrimaryCtxSetFlags", &p, 11000, 0, &st), SUCCESS);
    cr_assert_eq(p, dlsym(s.lib, "cuDevicePrimaryCtxSetFlags_v2"));
}

/* ---- the real 12.2 driver's answers ------------------------------------- */

Test(sim_driver_version, agrees_with_the_real_535_driver)
{
    char *probe = read_text(GG_SIM_REAL_535_PROBE);
    cr_assert_not_null(probe, "cannot read %s", GG_SIM_REAL_535_PROBE);
    sim s = sim_as_driver(12020);
    int rows = 0, differences = 0;
    for (char *line = strtok(probe, "\n"); line; line = strtok(NULL, "\n")) {
        char name[96];
        int used;
        if (line[0] == '#' || sscanf(line, "%95s%n", name, &used) != 1 || strncmp(name, "cu", 2) != 0)
            continue;
        const char *rest = line + used;
        char token[160];
        int n;
        while (sscanf(rest, "%159s%n", token, &n) == 1) {
            rest += n;
            int version, rc, status;
            char symbol[96];
            if (sscanf(token, "%d:%d/%d/%95s", &version, &rc, &status, symbol) != 4)
                continue;
            rows++;
            void *p = (void *)1;
            int st = -1;
            cr_assert_eq(s.gpa2(name, &p, version, 0, &st), rc, "%s@%d", name, version);
            if (strcmp(symbol, "NULL") == 0) {
                cr_assert_null(p, "%s@%d", name, version);
                cr_assert_eq(st, status, "%s@%d: status %d, the driver's %d", name, version, st, status);
            } else if (dlsym(s.lib, symbol)) {
                cr_assert_eq(p, dlsym(s.lib, symbol), "%s@%d: not %s", name, version, symbol);
                cr_assert_eq(st, FOUND);
            } else {
                /* A variant the simulator does not implement (the 2.0 ABIs). */
                cr_assert_null(p, "%s@%d: the driver gives %s", name, version, symbol);
                cr_assert_eq(st, VERSION_NOT_SUFFICIENT);
                differences++;
            }
        }
    }
    cr_assert_gt(rows, 600, "only %d rows read from the probe", rows);
    cr_assert_lt(differences, rows / 5, "%d of %d rows are unimplemented variants", differences, rows);
    free(probe);
}

/* ---- unknown names, flags, bad arguments -------------------------------- */

Test(sim_driver_version, unknown_names_flags_and_arguments)
{
    sim s = sim_as_driver(13000);
    const char *unknown[] = { "cuNoSuchThing", "cuCtxCreate_v3", "cuGetProcAddress_v2", "", "cuinit" };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        void *p = (void *)1;
        int st = -1;
        cr_assert_eq(s.gpa2(unknown[i], &p, 13000, 0, &st), SUCCESS);
        cr_assert_null(p);
        cr_assert_eq(st, SYMBOL_NOT_FOUND, "\"%s\"", unknown[i]);
    }
    void *p;
    int st;
    /* As the 535 driver answered (data/real_driver_535_procaddr.txt, "flags"):
     * flags 0 and 1 the legacy export, 2 and 3 (PER_THREAD_DEFAULT_STREAM)
     * the _ptsz one. */
    for (uint64_t flags = 0; flags <= 3; flags++) {
        void *want = dlsym(s.lib, flags & 2 ? "cuLaunchKernel_ptsz" : "cuLaunchKernel");
        cr_assert_not_null(want);
        cr_assert_eq(s.gpa2("cuLaunchKernel", &p, 13000, flags, &st), SUCCESS);
        cr_assert_eq(p, want, "flags %d", (int)flags);
        cr_assert_eq(s.gpa1("cuLaunchKernel", &p, 13000, flags), SUCCESS);
        cr_assert_eq(p, want, "flags %d", (int)flags);
    }
    /* The per-thread form of a _v2 name, of a 9.2 name, and a name with no
     * per-thread form (the legacy export, whatever the flags). */
    const char *const per_thread[][3] = {
        { "cuMemcpyHtoD", "cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2_ptds" },
        { "cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync_v2_ptsz" },
        { "cuStreamGetCtx", "cuStreamGetCtx", "cuStreamGetCtx_ptsz" },
        { "cuMemAlloc", "cuMemAlloc_v2", "cuMemAlloc_v2" },
    };
    for (size_t i = 0; i < sizeof per_thread / sizeof per_thread[0]; i++) {
        for (uint64_t flags = 0; flags <= 2; flags += 2) {
            const char *want = per_thread[i][flags ? 2 : 1];
            cr_assert_eq(s.gpa2(per_thread[i][0], &p, 12000, flags, &st), SUCCESS);
            cr_assert_eq(st, 0);
            cr_assert_eq(p, dlsym(s.lib, want), "%s flags %d: not %s", per_thread[i][0],
                         (int)flags, want);
        }
    }
    const uint64_t bad_flags[] = { 4, 5, 1u << 20, UINT64_MAX };
    for (size_t i = 0; i < sizeof bad_flags / sizeof bad_flags[0]; i++) {
        cr_assert_eq(s.gpa2("cuLaunchKernel", &p, 13000, bad_flags[i], &st), INVALID_VALUE);
        cr_assert_eq(s.gpa1("cuLaunchKernel", &p, 13000, bad_flags[i]), INVALID_VALUE);
    }
    /* The status pointer may be NULL; symbol and pfn may not (the real
     * driver crashes on those; the simulator refuses). */
    cr_assert_eq(s.gpa2("cuInit", &p, 13000, 0, NULL), SUCCESS);
    cr_assert_eq(p, dlsym(s.lib, "cuInit"));
    cr_assert_eq(s.gpa2(NULL, &p, 13000, 0, &st), INVALID_VALUE);
    cr_assert_eq(s.gpa2("cuInit", NULL, 13000, 0, &st), INVALID_VALUE);
    cr_assert_eq(s.gpa1(NULL, &p, 13000, 0), INVALID_VALUE);
    /* Older than every variant. */
    p = (void *)1;
    cr_assert_eq(s.gpa2("cuCtxGetCurrent", &p, 3020, 0, &st), SUCCESS);
    cr_assert_null(p);
    cr_assert_eq(st, VERSION_NOT_SUFFICIENT);
    cr_assert_eq(s.gpa2("cuInit", &p, 1000, 0, &st), SUCCESS);
    cr_assert_eq(st, VERSION_NOT_SUFFICIENT);
}

/* ---- before cuInit, defaults, and the two libraries --------------------- */

Test(sim_driver_version, answers_before_cuInit)
{
    sim s = sim_as_driver(12020); /* checked cuDriverGetVersion already */
    typedef int (*count_fn)(int *);
    count_fn count = (count_fn)(uintptr_t)dlsym(s.lib, "cuDeviceGetCount");
    int n = -1;
    cr_assert_eq(count(&n), NOT_INITIALIZED);
    void *p = NULL;
    int st;
    cr_assert_eq(s.gpa2("cuInit", &p, 12020, 0, &st), SUCCESS);
    cr_assert_eq(st, FOUND);
    cr_assert_eq(((init_fn)(uintptr_t)p)(0), SUCCESS); /* what it returned works */
    cr_assert_eq(count(&n), SUCCESS);
    cr_assert_eq(n, 2);
    int v = 0;
    cr_assert_eq(s.driver_version(&v), SUCCESS); /* the same after cuInit */
    cr_assert_eq(v, 12020);
}

Test(sim_driver_version, the_libraries_default_versions)
{
    unsetenv("GPUGUARD_SIM_CONFIG");
    sim full = open_sim(LIB_CUDA), old = open_sim(LIB_CUDA11);
    int v = 0;
    cr_assert_eq(full.driver_version(&v), SUCCESS);
    cr_assert_eq(v, 13000);
    cr_assert_eq(old.driver_version(&v), SUCCESS);
    cr_assert_eq(v, 11040);
    /* A configuration without the key: the default too. */
    setenv("GPUGUARD_SIM_CONFIG", "{\"devices\":[{}]}", 1);
    cr_assert_eq(full.driver_version(&v), SUCCESS);
    cr_assert_eq(v, 13000);
    cr_assert_eq(full.init(0), SUCCESS);
    cr_assert_eq(full.driver_version(&v), SUCCESS);
    cr_assert_eq(v, 13000);
}

Test(sim_driver_version, exports_of_the_two_libraries)
{
    unsetenv("GPUGUARD_SIM_CONFIG");
    sim full = open_sim(LIB_CUDA), old = open_sim(LIB_CUDA11);
    const char *after_11_8[] = { "cuGetProcAddress_v2", "cuCtxCreate_v4", "cuEventElapsedTime_v2",
                                 "cuCtxSynchronize_v2", "cuCtxGetDevice_v2" };
    for (size_t i = 0; i < sizeof after_11_8 / sizeof after_11_8[0]; i++) {
        cr_assert_null(dlsym(old.lib, after_11_8[i]), "the 11.x library exports %s", after_11_8[i]);
        cr_assert_not_null(dlsym(full.lib, after_11_8[i]), "the full library lacks %s", after_11_8[i]);
    }
    const char *both[] = { "cuGetProcAddress", "cuCtxCreate_v2", "cuCtxCreate_v3", "cuInit",
                           "cuMemAlloc_v2", "gg_sim_last_config_error" };
    for (size_t i = 0; i < sizeof both / sizeof both[0]; i++) {
        cr_assert_not_null(dlsym(old.lib, both[i]), "the 11.x library lacks %s", both[i]);
        cr_assert_not_null(dlsym(full.lib, both[i]), "the full library lacks %s", both[i]);
        cr_assert_neq(dlsym(old.lib, both[i]), dlsym(full.lib, both[i]), "%s: one definition", both[i]);
    }
    /* Each answers with its own functions, though both are loaded. */
    void *p;
    cr_assert_eq(old.gpa1("cuMemAlloc", &p, 11040, 0), SUCCESS);
    cr_assert_eq(p, dlsym(old.lib, "cuMemAlloc_v2"));
    cr_assert_eq(full.gpa1("cuMemAlloc", &p, 12020, 0), SUCCESS);
    cr_assert_eq(p, dlsym(full.lib, "cuMemAlloc_v2"));
}

/* gg_sim_sticky_scope is exported by both CUDA libraries, each answering
 * for its own configuration: "process" (1) by default, as a CUDA driver
 * behaves; 0 under "sticky_scope": "context". */
Test(sim_driver_version, both_libraries_poison_the_process_by_default)
{
    unsetenv("GPUGUARD_SIM_CONFIG");
    sim full = open_sim(LIB_CUDA), old = open_sim(LIB_CUDA11);
    typedef int (*scope_fn)(void);
    scope_fn full_scope = (scope_fn)(uintptr_t)dlsym(full.lib, "gg_sim_sticky_scope");
    scope_fn old_scope = (scope_fn)(uintptr_t)dlsym(old.lib, "gg_sim_sticky_scope");
    cr_assert(full_scope && old_scope, "a CUDA library lacks gg_sim_sticky_scope");
    cr_assert_neq((void *)(uintptr_t)full_scope, (void *)(uintptr_t)old_scope, "one definition");
    cr_assert_eq(full_scope(), 1);
    cr_assert_eq(old_scope(), 1);
    cr_assert_eq(old.init(0), SUCCESS);
    cr_assert_eq(old_scope(), 1, "after cuInit");
    setenv("GPUGUARD_SIM_CONFIG", "{\"sticky_scope\":\"context\"}", 1);
    cr_assert_eq(full_scope(), 0, "before cuInit, the configuration now");
    cr_assert_eq(full.init(0), SUCCESS);
    cr_assert_eq(full_scope(), 0);
    cr_assert_eq(old_scope(), 1, "fixed by its own cuInit");
}

/* cuInit refuses the configuration, naming driver_version, and the
 * library keeps answering its default version. */
static void expect_refused(const char *library, const char *config, const char *also)
{
    setenv("GPUGUARD_SIM_CONFIG", config, 1);
    sim s = open_sim(library);
    int v = 0;
    cr_assert_eq(s.driver_version(&v), SUCCESS);
    cr_assert_eq(v, strstr(library, "cuda11") ? 11040 : 13000, "%s: %d", config, v);
    cr_assert_eq(s.init(0), INVALID_VALUE, "%s accepted %s", library, config);
    const char *msg = s.config_error();
    cr_assert(strstr(msg, "driver_version") != NULL, "%s: \"%s\"", config, msg);
    cr_assert(!also || strstr(msg, also) != NULL, "%s: \"%s\" does not say %s", config, msg, also);
}

Test(sim_driver_version, bad_driver_versions_are_refused_naming_the_key)
{
    expect_refused(LIB_CUDA, "{\"driver_version\":11040}", "libgpuguard_sim_cuda11.so");
    expect_refused(LIB_CUDA, "{\"driver_version\":11080}", "libgpuguard_sim_cuda11.so");
    expect_refused(LIB_CUDA, "{\"driver_version\":13010}", NULL);
    expect_refused(LIB_CUDA, "{\"driver_version\":99999}", NULL);
    expect_refused(LIB_CUDA, "{\"driver_version\":12025}", NULL);
    expect_refused(LIB_CUDA, "{\"driver_version\":0}", NULL);
    expect_refused(LIB_CUDA, "{\"driver_version\":-12020}", NULL);
    expect_refused(LIB_CUDA, "{\"driver_version\":12020.5}", NULL);
    expect_refused(LIB_CUDA, "{\"driver_version\":\"12.2\"}", NULL);
    expect_refused(LIB_CUDA11, "{\"driver_version\":12000}", "libgpuguard_sim_cuda.so");
    expect_refused(LIB_CUDA11, "{\"driver_version\":13000}", "libgpuguard_sim_cuda.so");
    expect_refused(LIB_CUDA11, "{\"driver_version\":11020}", NULL); /* no cuGetProcAddress */
    expect_refused(LIB_CUDA11, "{\"driver_version\":11090}", NULL);
    /* A good one after them works: refusal leaves nothing behind. */
    setenv("GPUGUARD_SIM_CONFIG", "{\"driver_version\":11030}", 1);
    sim s = open_sim(LIB_CUDA11);
    cr_assert_eq(s.init(0), SUCCESS, "%s", s.config_error());
    int v = 0;
    cr_assert_eq(s.driver_version(&v), SUCCESS);
    cr_assert_eq(v, 11030);
    void *p;
    cr_assert_eq(s.gpa1("cuCtxCreate", &p, 12050, 0), SUCCESS);
    cr_assert_eq(p, dlsym(s.lib, "cuCtxCreate_v2")); /* 11.3 has no _v3 */
}

/* An invalid configuration: cuDriverGetVersion still answers (the default),
 * cuInit fails as it always has. */
Test(sim_driver_version, invalid_config_keeps_the_default_version)
{
    setenv("GPUGUARD_SIM_CONFIG", "{\"driver_version\":12020,\"nonsense\":1}", 1);
    sim s = open_sim(LIB_CUDA);
    int v = 0;
    cr_assert_eq(s.driver_version(&v), SUCCESS);
    cr_assert_eq(v, 13000);
    cr_assert_eq(s.init(0), INVALID_VALUE);
    cr_assert(strstr(s.config_error(), "nonsense") != NULL, "%s", s.config_error());
    /* Fixed in the environment: the new text is read again. */
    setenv("GPUGUARD_SIM_CONFIG", "{\"driver_version\":12020}", 1);
    cr_assert_eq(s.driver_version(&v), SUCCESS);
    cr_assert_eq(v, 12020);
    cr_assert_eq(s.init(0), SUCCESS);
}

/* ---- the 13.0 variants that name their context --------------------------- */

Test(sim_driver_version, context_argument_forms_of_13_0)
{
    sim s = sim_as_driver(13000);
    cr_assert_eq(s.init(0), SUCCESS);
    typedef int (*create_fn)(void **, unsigned, int);
    typedef int (*ctx_fn)(void *);
    typedef int (*get_device_fn)(int *, void *);
    typedef int (*pop_fn)(void **);
    create_fn create = (create_fn)(uintptr_t)dlsym(s.lib, "cuCtxCreate_v2");
    ctx_fn destroy = (ctx_fn)(uintptr_t)dlsym(s.lib, "cuCtxDestroy_v2");
    pop_fn pop = (pop_fn)(uintptr_t)dlsym(s.lib, "cuCtxPopCurrent_v2");
    void *p;
    int st;
    cr_assert_eq(s.gpa2("cuCtxSynchronize", &p, 13000, 0, &st), SUCCESS);
    ctx_fn sync2 = (ctx_fn)(uintptr_t)p;
    cr_assert_eq(s.gpa2("cuCtxGetDevice", &p, 13000, 0, &st), SUCCESS);
    get_device_fn get_device2 = (get_device_fn)(uintptr_t)p;
    cr_assert_eq((void *)(uintptr_t)sync2, dlsym(s.lib, "cuCtxSynchronize_v2"));
    cr_assert_eq((void *)(uintptr_t)get_device2, dlsym(s.lib, "cuCtxGetDevice_v2"));
    int dev = -1;
    cr_assert_eq(sync2(NULL), 201 /* INVALID_CONTEXT: none current */);
    void *a = NULL, *b = NULL, *popped = NULL;
    cr_assert_eq(create(&a, 0, 0), SUCCESS);
    cr_assert_eq(pop(&popped), SUCCESS);
    cr_assert_eq(create(&b, 0, 1), SUCCESS); /* b current, a named */
    cr_assert_eq(get_device2(&dev, a), SUCCESS);
    cr_assert_eq(dev, 0);
    cr_assert_eq(get_device2(&dev, NULL), SUCCESS);
    cr_assert_eq(dev, 1);
    cr_assert_eq(get_device2(NULL, a), INVALID_VALUE);
    cr_assert_eq(sync2(a), SUCCESS);
    cr_assert_eq(sync2(NULL), SUCCESS);
    cr_assert_eq(destroy(a), SUCCESS);
    cr_assert_eq(sync2(a), 201, "a destroyed context");
    cr_assert_eq(get_device2(&dev, a), 201);
    cr_assert_eq(destroy(b), SUCCESS);
}
