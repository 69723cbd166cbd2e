/*
 * dead_context: what gpuguard does when a kernel faults.
 *
 * A kernel with an off-by-a-lot bug writes past the end of its buffer. On a
 * GPU that fault is asynchronous: the launch "succeeds", the error surfaces
 * at some later, unrelated call, every call after it fails the same way, and
 * cleanup code cascades into more errors (or aborts). On CUDA the error is
 * worse than that: the driver keeps it for every context of the process, and
 * no new context can be made in it (measured on an H100: docs/DRIVER-FACTS.md);
 * only a new process can use the GPU. This program shows the failure under
 * gpuguard, step by step:
 *
 *   1. the launch returns OK; the fault surfaces at the next copy, and the
 *      error names the kernel that caused it;
 *   2. the context is DEAD: every call fails fast with the original cause,
 *      without touching the driver;
 *   3. freeing the buffers skips the driver quietly: no cascade;
 *   4. gg_context_recover says what the driver allows: GG_PROCESS_POISONED
 *      where the error reaches the whole process (CUDA), and the corrected
 *      launch computes the right answer in a new process; where the driver
 *      keeps errors per context (HIP), a fresh context under the same id, and
 *      the corrected launch in this process.
 *
 * The faulty run is a worker process forked before any GPU call, so that
 * the program itself can start the new one (examples/common/example_worker.h).
 *
 *   dead_context [--device D]     (default: the simulated device 1)
 *
 * Exit status: 0 when the corrected launch verified, 1 on any failure, 2 for
 * bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "example_support.h"
#include "example_worker.h"

#define N 4096u
#define THREADS 256u

static int fail(gg_status status, const char *call)
{
    example_report("dead_context", status, call);
    return 1;
}

#define TRY(call)                                  \
    do {                                           \
        gg_status s_ = (call);                     \
        if (s_ != GG_OK)                           \
            return fail(s_, #call);                \
    } while (0)

/* Loads the module and launches scale(data, n, factor) over n elements. */
static gg_status launch_scale(gg_context ctx, const char *image, gg_buffer data, uint32_t n, float factor,
                              gg_module *module)
{
    gg_kernel scale;
    gg_status s = gg_module_create_from_file(ctx, image, NULL, module);
    if (s == GG_OK)
        s = gg_kernel_create(*module, "scale", &scale);
    if (s != GG_OK)
        return s;
    uint64_t dptr = 0;
    gg_buffer_device_ptr(data, &dptr);
    void *params[] = { &dptr, &n, &factor };
    gg_launch_desc d = { .struct_size = sizeof(gg_launch_desc), .kernel = scale, .grid = { (n + THREADS - 1) / THREADS, 1, 1 },
                         .block = { THREADS, 1, 1 }, .params = params, .param_count = 3 };
    return gg_launch(&d);
}

/* What a worker needs: the device (-1: the default) and, once found, the
 * kernel image; the context it made, for the worker to destroy on an error
 * path (a context's destroy releases everything in it). */
typedef struct job {
    int device;
    char image[4200];
    gg_context made;
} job;

/* gg_init, the device and the kernel image; 0 or an exit status. */
static int start(job *j, bool say_device)
{
    TRY(example_init());
    int count = 0;
    TRY(gg_device_count(&count));
    if (j->device < 0)
        j->device = count > 1 ? 1 : 0; /* the simulator's device 1 has no watchdog */
    gg_device_info info = GG_DEVICE_INFO_INIT;
    TRY(gg_device_properties(j->device, &info));
    if (say_device)
        printf("device %d: %s (%s)\n", j->device, info.name, info.simulated ? "simulated" : "real GPU");
    char file[256];
    example_image_name(&info, "dead_context", file, sizeof file);
    if (!example_image_path(file, j->image, sizeof j->image)) {
        fprintf(stderr, "dead_context: cannot locate the kernel image %s\n", file);
        return 1;
    }
    return 0;
}

/* The corrected launch in ctx, checked element by element. */
static int corrected_launch(gg_context ctx, const char *image)
{
    static float host[N];
    gg_buffer data;
    gg_module module;
    for (unsigned i = 0; i < N; i++)
        host[i] = (float)i;
    TRY(gg_buffer_create(ctx, N * sizeof(float), &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .tag = "data" }, &data));
    TRY(gg_memcpy_htod(data, 0, host, sizeof host, GG_NO_STREAM));
    TRY(launch_scale(ctx, image, data, N, 2.0f, &module));
    TRY(gg_memcpy_dtoh(host, data, 0, sizeof host, GG_NO_STREAM));
    for (unsigned i = 0; i < N; i++) {
        if (host[i] != 2.0f * (float)i) {
            fprintf(stderr, "dead_context: element %u is %g, expected %g\n", i, host[i], 2.0 * i);
            return 1;
        }
    }
    printf("   corrected launch: verified %u elements\n", N);
    return 0;
}

/* Steps 1 to 4: 0 when the corrected launch ran here (the context was
 * recovered), EXAMPLE_WORKER_POISONED when it must run in a new process,
 * else 1. */
static int faulty_run(job *j)
{
    int rc = start(j, true);
    if (rc != 0)
        return rc;
    gg_context ctx;
    gg_buffer data, scratch;
    gg_module module;
    const char *image = j->image;
    TRY(gg_context_create(j->device, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "demo" }, &ctx));
    j->made = ctx;
    TRY(gg_buffer_create(ctx, N * sizeof(float), &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .tag = "data" }, &data));
    TRY(gg_buffer_create(ctx, 1024, &(gg_buffer_desc){ .struct_size = sizeof(gg_buffer_desc), .tag = "scratch" }, &scratch));
    static float host[N];
    for (unsigned i = 0; i < N; i++)
        host[i] = (float)i;
    TRY(gg_memcpy_htod(data, 0, host, sizeof host, GG_NO_STREAM));

    /* 1. The bug: n is 64x the buffer's length. The launch is accepted. */
    printf("\n1. launching 'scale' with n = %u over a buffer of %u floats\n", N * 64, N);
    TRY(launch_scale(ctx, image, data, N * 64, 2.0f, &module));
    printf("   gg_launch returned GG_OK: launch errors are asynchronous\n");
    gg_status s = gg_memcpy_dtoh(host, data, 0, sizeof host, GG_NO_STREAM);
    gg_error_info err = GG_ERROR_INFO_INIT;
    gg_last_error(&err);
    printf("   the next call, gg_memcpy_dtoh, returned %s (%s from %s)\n", gg_status_name(s), err.native_name,
           err.driver_call);
    if (err.culprit.certainty == GG_ATTRIBUTION_NONE) {
        fprintf(stderr, "dead_context: expected the fault to name a culprit\n");
        return 1;
    }
    printf("   culprit: kernel '%s', launch #%llu (%s)\n", err.culprit.kernel_name,
           (unsigned long long)err.culprit.sequence,
           err.culprit.certainty == GG_ATTRIBUTION_EXACT ? "exact" : "one of several");

    /* 2. Fail fast: no driver call, the original cause attached. */
    gg_buffer more;
    s = gg_buffer_create(ctx, 64, NULL, &more);
    gg_last_error(&err);
    printf("\n2. the context is %s; gg_buffer_create now returns %s at once:\n   %s\n",
           gg_context_state(ctx) == GG_STATE_DEAD ? "DEAD" : "not dead?", gg_status_name(s), err.message);
    if (s != GG_CONTEXT_DEAD)
        return 1;

    /* 3. Cleanup in a dead context: released, no driver calls, no cascade. */
    TRY(gg_buffer_destroy(data));
    TRY(gg_buffer_destroy(scratch));
    TRY(gg_module_destroy(module));
    uint64_t skipped = 0;
    TRY(gg_context_skipped_cleanups(ctx, &skipped));
    printf("\n3. freed 2 buffers and the module: GG_OK, %llu driver calls skipped (the context's teardown "
           "frees them)\n", (unsigned long long)skipped);

    /* 4. Recover, if the driver allows it: gpuguard's answer decides. */
    s = gg_context_recover(ctx);
    if (s == GG_PROCESS_POISONED) {
        gg_last_error(&err);
        /* (What it died of was said in step 1.) */
        char *repeat = strstr(err.message, " It died of:");
        if (repeat != NULL)
            *repeat = '\0';
        printf("\n4. gg_context_recover returned GG_PROCESS_POISONED:\n   %s\n", err.message);
        /* gg_context_create says the same: no context in this process. */
        gg_context other = { 0 };
        gg_status again = gg_context_create(j->device, NULL, &other);
        printf("   gg_context_create in this process: %s too\n", gg_status_name(again));
        if (again == GG_OK)
            gg_context_destroy(other);
        TRY(gg_context_destroy(ctx));
        TRY(gg_shutdown());
        return again == GG_PROCESS_POISONED ? EXAMPLE_WORKER_POISONED : 1;
    }
    if (s != GG_OK)
        return fail(s, "gg_context_recover");
    printf("\n4. gg_context_recover: the context is %s again (this driver keeps errors per context):\n"
           "   recovered in this process\n", gg_context_state(ctx) == GG_STATE_ALIVE ? "ALIVE" : "not alive?");
    rc = corrected_launch(ctx, image);
    if (rc != 0)
        return rc;
    TRY(gg_context_destroy(ctx));
    TRY(gg_shutdown());
    return 0;
}

/* The corrected launch in a new process, which can use the GPU. */
static int fresh_run(job *j)
{
    int rc = start(j, false);
    if (rc != 0)
        return rc;
    gg_context ctx;
    TRY(gg_context_create(j->device, &(gg_context_desc){ .struct_size = sizeof(gg_context_desc), .tag = "demo, new process" }, &ctx));
    j->made = ctx;
    printf("   a new process (pid %ld): gg_context_create returned GG_OK\n", (long)getpid());
    rc = corrected_launch(ctx, j->image);
    if (rc != 0)
        return rc;
    TRY(gg_context_destroy(ctx));
    TRY(gg_shutdown());
    return 0;
}

/* A worker's body: every error path ends with its context destroyed
 * (releasing whatever is still in it, dead or alive; destroying id 0, or one
 * already destroyed, is harmless) and gg_shutdown (safe to repeat). */
static int faulty_worker(void *arg)
{
    job *j = arg;
    int rc = faulty_run(j);
    gg_context_destroy(j->made);
    gg_shutdown();
    return rc;
}

static int fresh_worker(void *arg)
{
    job *j = arg;
    int rc = fresh_run(j);
    gg_context_destroy(j->made);
    gg_shutdown();
    return rc;
}

int main(int argc, char **argv)
{
    job j = { .device = -1 };
    if (argc == 3 && strcmp(argv[1], "--device") == 0)
        j.device = atoi(argv[2]);
    else if (argc != 1) {
        fprintf(stderr, "usage: dead_context [--device D]\n");
        return 2;
    }
    /* No GPU call in this process: it only starts the workers. */
    int rc = example_in_worker("dead_context", faulty_worker, &j);
    if (rc != EXAMPLE_WORKER_POISONED)
        return rc == 0 ? 0 : 1;
    printf("   the work goes on in a new process, as it must after such a fault\n");
    rc = example_in_worker("dead_context", fresh_worker, &j);
    return rc == 0 ? 0 : 1;
}
