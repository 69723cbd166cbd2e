/*
 * fault_injection: how to test your own error paths with a fault plan.
 *
 * `scale_on_gpu` below stands for a function of yours: it allocates, copies,
 * launches and copies back, and must clean up and report on every failure.
 * The test drives it through failures a real GPU would only produce at 3 a.m.:
 *
 *   - the allocation fails (out of memory): it must return the error and
 *     leave nothing allocated; the context stays usable, in this process;
 *   - the kernel faults asynchronously (as real launch failures do): it must
 *     report the context dead and name the kernel. Such a fault is sticky:
 *     on CUDA the driver keeps it for every context of the process
 *     (docs/DRIVER-FACTS.md), so gg_context_recover answers
 *     GG_PROCESS_POISONED and the work goes on in a new process; where the
 *     driver keeps errors per context (HIP) the caller recovers in place;
 *   - each kind of call it makes, failed in turn with a sticky error: it must
 *     never leak. Each case runs in a process of its own, as a test runner
 *     runs its cases, since a sticky fault ends the GPU's use in a process.
 *
 * The worker processes are forked before this process makes any GPU call
 * (examples/common/example_worker.h). The same plans work over a real GPU.
 * Here, with no GPU, they run on the simulated driver. Copy the pattern into
 * your test suite.
 */
#include <stdio.h>
#include <string.h>

#include "example_support.h"
#include "example_worker.h"

#define N 1024u

static char image_path[4200];

/* The code under test: data[i] *= factor on the GPU. Cleans up on any failure. */
static gg_status scale_on_gpu(gg_context ctx, float *data, unsigned n, float factor)
{
    gg_buffer buf = { 0 };
    gg_module module = { 0 };
    gg_kernel scale;
    uint64_t dptr = 0;
    gg_status s = gg_buffer_create(ctx, n * sizeof(float), &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .tag = "scale_on_gpu" }, &buf);
    if (s == GG_OK)
        s = gg_memcpy_htod(buf, 0, data, n * sizeof(float), GG_NO_STREAM);
    if (s == GG_OK)
        s = gg_module_create_from_file(ctx, image_path, NULL, &module);
    if (s == GG_OK)
        s = gg_kernel_create(module, "scale", &scale);
    if (s == GG_OK)
        s = gg_buffer_device_ptr(buf, &dptr);
    if (s == GG_OK) {
        void *params[] = { &dptr, &n, &factor };
        gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = scale, .grid = { (n + 255) / 256, 1, 1 }, .block = { 256, 1, 1 },
                             .params = params, .param_count = 3 };
        s = gg_launch(&d);
    }
    if (s == GG_OK)
        s = gg_memcpy_dtoh(data, buf, 0, n * sizeof(float), GG_NO_STREAM);
    /* Cleanup runs on every path; in a dead context it costs nothing and
     * cannot fail (gpuguard skips the driver there). Keep the error of the
     * call that failed, not of the cleanup. */
    gg_error_info first = GG_ERROR_INFO_INIT;
    gg_last_error(&first);
    gg_module_destroy(module);
    gg_buffer_destroy(buf);
    if (s != GG_OK)
        fprintf(stderr, "   scale_on_gpu: %s: %s\n", gg_status_name(s), first.message);
    return s;
}

static int failures;
#define EXPECT(cond, ...)                                  \
    do {                                                   \
        if (!(cond)) {                                     \
            printf("   FAIL: " __VA_ARGS__);               \
            printf("\n");                                  \
            failures++;                                    \
        } else {                                           \
            printf("   ok: " __VA_ARGS__);                 \
            printf("\n");                                  \
        }                                                  \
    } while (0)

static uint64_t live_objects(void)
{
    uint64_t n = 0;
    gg_live_objects(&n);
    return n;
}

/* A worker's exit status: its failures (at most 63), plus this flag when it
 * ended with a poisoned process (gpuguard answered GG_PROCESS_POISONED). */
#define POISONED_FLAG 64

/* gg_init, the kernel image and a context on device 0; 0 or 1 (said). */
static int setup(gg_context *ctx)
{
    gg_status s = example_init();
    if (s != GG_OK) {
        example_report("fault_injection", s, "gg_init");
        return 1;
    }
    gg_device_info info = GG_DEVICE_INFO_INIT;
    if ((s = gg_device_properties(0, &info)) != GG_OK) {
        example_report("fault_injection", s, "gg_device_properties");
        return 1;
    }
    char file[256];
    example_image_name(&info, "dead_context", file, sizeof file); /* the `scale` kernel */
    if (!example_image_path(file, image_path, sizeof image_path)) {
        fprintf(stderr, "fault_injection: cannot locate the kernel image %s\n", file);
        return 1;
    }
    if ((s = gg_context_create(0, NULL, ctx)) != GG_OK) {
        example_report("fault_injection", s, "gg_context_create");
        return 1;
    }
    return 0;
}

/* Every worker ends here: nothing is left for the exit handler. */
static int finish(gg_context ctx, bool poisoned)
{
    gg_context_destroy(ctx);
    gg_shutdown();
    return (failures < 63 ? failures : 63) | (poisoned ? POISONED_FLAG : 0);
}

/* Steps 1 to 3, in one process. */
static int first_steps(void *unused)
{
    (void)unused;
    gg_context ctx = { 0 };
    if (setup(&ctx) != 0)
        return finish(ctx, false) | 1;
    float data[N];
    uint64_t baseline = live_objects();

    printf("1. no faults: the function works\n");
    for (unsigned i = 0; i < N; i++)
        data[i] = (float)i;
    EXPECT(scale_on_gpu(ctx, data, N, 3.0f) == GG_OK && data[10] == 30.0f, "scaled correctly");

    printf("2. the allocation fails: the error comes back, nothing leaks\n");
    gg_fault_set_plan("{\"rules\":[{\"op\":\"alloc\",\"nth\":1,\"error\":\"out_of_memory\"}]}");
    EXPECT(scale_on_gpu(ctx, data, N, 3.0f) == GG_OUT_OF_MEMORY, "returned GG_OUT_OF_MEMORY");
    EXPECT(live_objects() == baseline, "no object left behind");
    EXPECT(gg_context_state(ctx) == GG_STATE_ALIVE, "the context is still alive (OOM is not sticky)");
    gg_fault_clear();
    for (unsigned i = 0; i < N; i++)
        data[i] = (float)i;
    EXPECT(scale_on_gpu(ctx, data, N, 3.0f) == GG_OK && data[10] == 30.0f, "works again in the same process");

    printf("3. the kernel faults asynchronously: the context dies, the kernel is named\n");
    gg_fault_set_plan("{\"rules\":[{\"op\":\"launch\",\"kernel\":\"scale\",\"nth\":1,"
                      "\"error\":\"illegal_address\",\"mode\":\"async\"}]}");
    gg_status s = scale_on_gpu(ctx, data, N, 3.0f);
    gg_error_info death = GG_ERROR_INFO_INIT;
    gg_context_death(ctx, &death);
    EXPECT(s == GG_ILLEGAL_ADDRESS, "the fault surfaced at the copy back: %s", gg_status_name(s));
    EXPECT(strcmp(death.culprit.kernel_name, "scale") == 0, "culprit: kernel '%s'", death.culprit.kernel_name);
    EXPECT(live_objects() == baseline, "cleanup in the dead context released everything");
    gg_fault_clear();
    /* The driver decides whether this process can go on: ask gpuguard. */
    s = gg_context_recover(ctx);
    if (s == GG_PROCESS_POISONED) {
        EXPECT(true, "recover: GG_PROCESS_POISONED (the driver keeps the error for the whole process)");
        gg_context other = { 0 };
        EXPECT(gg_context_create(0, NULL, &other) == GG_PROCESS_POISONED,
               "a new context in this process: GG_PROCESS_POISONED too");
        gg_context_destroy(other);
        return finish(ctx, true);
    }
    EXPECT(s == GG_OK, "recovered in this process (the driver keeps errors per context): %s", gg_status_name(s));
    for (unsigned i = 0; i < N; i++)
        data[i] = (float)i;
    EXPECT(scale_on_gpu(ctx, data, N, 3.0f) == GG_OK && data[10] == 30.0f, "works again after recovery");
    return finish(ctx, false);
}

/* Step 3 continued, where the fault poisoned the process. */
static int in_a_new_process(void *unused)
{
    (void)unused;
    gg_context ctx = { 0 };
    if (setup(&ctx) != 0)
        return finish(ctx, false) | 1;
    float data[N];
    for (unsigned i = 0; i < N; i++)
        data[i] = (float)i;
    EXPECT(scale_on_gpu(ctx, data, N, 3.0f) == GG_OK && data[10] == 30.0f, "works again in a new process");
    return finish(ctx, false);
}

/* Step 4, one case: the first call of operation `op` fails with a sticky
 * error (launch_failed). */
static int one_failing_call(void *op_name)
{
    const char *op = op_name;
    gg_context ctx = { 0 };
    if (setup(&ctx) != 0)
        return finish(ctx, false) | 1;
    uint64_t baseline = live_objects();
    float data[N];
    for (unsigned i = 0; i < N; i++)
        data[i] = (float)i;
    char plan[160];
    snprintf(plan, sizeof plan, "{\"rules\":[{\"op\":\"%s\",\"nth\":1,\"error\":\"launch_failed\"}]}", op);
    gg_fault_set_plan(plan);
    gg_status s = scale_on_gpu(ctx, data, N, 1.0f);
    bool leaked = live_objects() != baseline;
    gg_fault_clear();
    /* Sticky: the context is dead; whether this process can have another,
     * the driver decides (GG_PROCESS_POISONED on CUDA, GG_OK on HIP). */
    gg_status r = gg_context_recover(ctx);
    EXPECT(s == GG_LAUNCH_FAILED && !leaked && (r == GG_PROCESS_POISONED || r == GG_OK),
           "%s failing: %s, nothing leaked; recover: %s", op, gg_status_name(s), gg_status_name(r));
    return finish(ctx, r == GG_PROCESS_POISONED);
}

/* Runs one worker and counts its failures; false if it ended poisoned. */
static bool run_worker(int (*work)(void *), void *arg)
{
    int rc = example_in_worker("fault_injection", work, arg);
    if (rc < 0) {
        failures++;
        return true;
    }
    failures += rc & ~POISONED_FLAG;
    return (rc & POISONED_FLAG) == 0;
}

int main(void)
{
    /* No GPU call in this process: every step runs in a worker. */
    if (!run_worker(first_steps, NULL)) {
        printf("   the process is poisoned: the work goes on in a new one\n");
        run_worker(in_a_new_process, NULL);
    }

    /* gpuguard sweep does this for a whole program, for every call of every
     * operation (gg_fault_counts_json tells which calls a run made). */
    printf("4. each kind of call the function makes, failed in turn (each case in a new process)\n");
    static const char *const ops[] = { "alloc", "copy_htod", "module_load", "kernel_get", "launch", "copy_dtoh" };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        run_worker(one_failing_call, (void *)ops[i]);

    printf("%s: %d failure(s)\n", failures ? "FAILED" : "all error paths behaved", failures);
    return failures ? 1 : 0;
}
