/* sticky_probe: measures what a sticky error (a kernel's illegal address,
 * trap or failed assert) does to the rest of the process on a real CUDA
 * driver: other contexts, the primary context, creating a context, and each
 * way of tearing down. The answers decide what gpuguard may promise about
 * recovery (docs/DRIVER-FACTS.md, "Sticky errors reach the whole process").
 *
 *   sticky_probe KERNELS.ptx
 *
 * Each scenario runs in its own child process (forked before the parent
 * touches the driver), bounded by alarm(), so one scenario's poisoned
 * driver cannot colour the next. Every driver call's answer is printed as
 * "scenario | step | code NAME"; nothing is concluded here: the lines are
 * the measurement. Exit status 0 when every scenario ran to its end (its
 * answers, whatever they are, printed), 1 otherwise, 2 for bad usage.
 *
 * Built with the CUDA toolkit's cuda.h, linked with -lcuda (the driver's
 * stub at build time, the real libcuda.so.1 at run time; gpuguard's
 * simulated driver stands in for it in a dry run without a GPU). */
#include "probe_support.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { FILL_COUNT = 4096, CHILD_SECONDS = 30 };

static const char *g_ptx;


/* Runs fill_u32 in the current context and checks every value: the proof
 * that a context computes. Prints each step's answer; returns the first
 * failure (CUDA_ERROR_UNKNOWN when the values are wrong). */
static CUresult compute(const char *label)
{
    char step[96];
    CUmodule module = NULL;
    CUfunction fill = NULL;
    CUdeviceptr buffer = 0;
    CUresult r;
#define STEP(name, call)                                             \
    do {                                                             \
        snprintf(step, sizeof step, "%s: %s", label, name);          \
        if ((r = say(step, (call))) != CUDA_SUCCESS)                 \
            goto out;                                                \
    } while (0)
    STEP("cuModuleLoadData", cuModuleLoadData(&module, g_ptx));
    STEP("cuModuleGetFunction", cuModuleGetFunction(&fill, module, "fill_u32"));
    STEP("cuMemAlloc", cuMemAlloc(&buffer, FILL_COUNT * sizeof(uint32_t)));
    unsigned value = 7, n = FILL_COUNT;
    void *args[] = {&buffer, &value, &n};
    STEP("cuLaunchKernel", cuLaunchKernel(fill, FILL_COUNT / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    STEP("cuCtxSynchronize", cuCtxSynchronize());
    static uint32_t host[FILL_COUNT];
    STEP("cuMemcpyDtoH", cuMemcpyDtoH(host, buffer, sizeof host));
    for (unsigned i = 0; i < FILL_COUNT; i++)
        if (host[i] != value + i) {
            snprintf(step, sizeof step, "%s: values", label);
            r = say(step, CUDA_ERROR_UNKNOWN);
            goto out;
        }
    snprintf(step, sizeof step, "%s: computed %u values", label, FILL_COUNT);
    say(step, CUDA_SUCCESS);
out:
    if (buffer) {
        snprintf(step, sizeof step, "%s: cuMemFree", label);
        say(step, cuMemFree(buffer));
    }
    if (module) {
        snprintf(step, sizeof step, "%s: cuModuleUnload", label);
        say(step, cuModuleUnload(module));
    }
#undef STEP
    return r;
}

/* Launches the faulting kernel in the current context and waits for it. */
static void fault(const char *kind)
{
    CUmodule module = NULL;
    CUfunction f = NULL;
    if (say("fault: cuModuleLoadData", cuModuleLoadData(&module, g_ptx)) != CUDA_SUCCESS)
        return;
    if (strcmp(kind, "illegal_address") == 0) {
        CUdeviceptr bogus = (CUdeviceptr)0x1000; /* below every allocation */
        void *args[] = {&bogus};
        say("fault: cuModuleGetFunction", cuModuleGetFunction(&f, module, "oob_store"));
        say("fault: cuLaunchKernel oob_store", cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    } else if (strcmp(kind, "trap") == 0) {
        say("fault: cuModuleGetFunction", cuModuleGetFunction(&f, module, "trap_kernel"));
        say("fault: cuLaunchKernel trap_kernel", cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    } else {
        unsigned one = 1;
        void *args[] = {&one};
        say("fault: cuModuleGetFunction", cuModuleGetFunction(&f, module, "assert_kernel"));
        say("fault: cuLaunchKernel assert_kernel", cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    }
    say("fault: cuCtxSynchronize", cuCtxSynchronize());
    say("fault: cuCtxSynchronize again", cuCtxSynchronize());
}

/* No fault: the probe's own check that every step answers 0 when nothing
 * went wrong (else its other answers mean nothing). */
static void scenario_baseline(CUdevice dev)
{
    CUcontext a = NULL, p = NULL;
    say("cuCtxCreate A", cuCtxCreate(&a, NULL, 0, dev));
    compute("A");
    say("cuDevicePrimaryCtxRetain P", cuDevicePrimaryCtxRetain(&p, dev));
    say("cuCtxSetCurrent P", cuCtxSetCurrent(p));
    compute("P");
    say("cuCtxDestroy A", cuCtxDestroy(a));
    say("cuDevicePrimaryCtxRelease P", cuDevicePrimaryCtxRelease(dev));
}

/* The fault in a context of its own (A, cuCtxCreate), with a bystander
 * context B and the primary context P made before it. */
static void scenario_own_context(CUdevice dev, const char *kind)
{
    CUcontext a = NULL, b = NULL, p = NULL, c = NULL;
    say("cuCtxCreate B (bystander)", cuCtxCreate(&b, NULL, 0, dev));
    say("cuDevicePrimaryCtxRetain P", cuDevicePrimaryCtxRetain(&p, dev));
    say("cuCtxCreate A (faults)", cuCtxCreate(&a, NULL, 0, dev));
    /* An event recorded once earlier work is done: whether the driver still
     * answers its query after the fault (a cheaper completion mark than a
     * write-value, if it does). */
    CUevent before = NULL;
    say("A: cuEventCreate", cuEventCreate(&before, CU_EVENT_DISABLE_TIMING));
    compute("A before");
    say("A: cuEventRecord (before the fault)", cuEventRecord(before, NULL));
    say("A: cuEventSynchronize (before the fault)", cuEventSynchronize(before));
    fault(kind);
    say("A: cuEventQuery of the event recorded before the fault", cuEventQuery(before));
    say("A: cuStreamQuery of the null stream", cuStreamQuery(NULL));
    say("A: cuMemAlloc after the fault", cuMemAlloc(&(CUdeviceptr){0}, 256));
    say("cuCtxSetCurrent B", cuCtxSetCurrent(b));
    say("B: cuCtxSynchronize", cuCtxSynchronize());
    compute("B");
    say("cuCtxSetCurrent P", cuCtxSetCurrent(p));
    compute("P");
    say("cuCtxCreate C (A still alive)", cuCtxCreate(&c, NULL, 0, dev));
    if (c)
        say("cuCtxDestroy C", cuCtxDestroy(c)), c = NULL;
    say("cuCtxDestroy A", cuCtxDestroy(a));
    say("cuCtxCreate D (A destroyed; B, P alive)", cuCtxCreate(&c, NULL, 0, dev));
    if (c) {
        compute("D");
        say("cuCtxDestroy D", cuCtxDestroy(c)), c = NULL;
    }
    say("cuCtxDestroy B", cuCtxDestroy(b));
    say("cuDevicePrimaryCtxRelease P", cuDevicePrimaryCtxRelease(dev));
    say("cuCtxCreate E (no context left)", cuCtxCreate(&c, NULL, 0, dev));
    if (c) {
        compute("E");
        say("cuCtxDestroy E", cuCtxDestroy(c)), c = NULL;
    }
    say("cuDevicePrimaryCtxReset", cuDevicePrimaryCtxReset(dev));
    say("cuDevicePrimaryCtxRetain P2", cuDevicePrimaryCtxRetain(&p, dev));
    say("cuCtxSetCurrent P2", cuCtxSetCurrent(p));
    compute("P2");
    say("cuCtxCreate F (after the primary reset)", cuCtxCreate(&c, NULL, 0, dev));
    if (c) {
        compute("F");
        say("cuCtxDestroy F", cuCtxDestroy(c));
    }
}

/* The fault in the primary context, as the CUDA runtime's programs have it;
 * then the runtime's cudaDeviceReset path (reset, retain) and a fresh
 * context of its own. */
static void scenario_primary(CUdevice dev, const char *kind)
{
    CUcontext p = NULL, c = NULL;
    say("cuDevicePrimaryCtxRetain P", cuDevicePrimaryCtxRetain(&p, dev));
    say("cuCtxSetCurrent P", cuCtxSetCurrent(p));
    fault(kind);
    say("cuDevicePrimaryCtxReset", cuDevicePrimaryCtxReset(dev));
    say("cuDevicePrimaryCtxRetain P2", cuDevicePrimaryCtxRetain(&p, dev));
    say("cuCtxSetCurrent P2", cuCtxSetCurrent(p));
    compute("P2");
    say("cuDevicePrimaryCtxRelease P (x2)", cuDevicePrimaryCtxRelease(dev));
    say("cuDevicePrimaryCtxRelease P2", cuDevicePrimaryCtxRelease(dev));
    say("cuCtxCreate G (primary released)", cuCtxCreate(&c, NULL, 0, dev));
    if (c) {
        compute("G");
        say("cuCtxDestroy G", cuCtxDestroy(c));
    }
    int version = 0;
    say("cuDriverGetVersion", cuDriverGetVersion(&version));
    say("cuInit again", cuInit(0));
}

static int run_child(const char *scenario, const char *kind)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "sticky_probe: fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        alarm(CHILD_SECONDS);
        static char name[64];
        snprintf(name, sizeof name, "%s/%s", scenario, kind ? kind : "none");
        g_scenario = name;
        CUdevice dev = 0;
        if (say("cuInit", cuInit(0)) != CUDA_SUCCESS || say("cuDeviceGet 0", cuDeviceGet(&dev, 0)) != CUDA_SUCCESS)
            _exit(3);
        if (strcmp(scenario, "baseline") == 0)
            scenario_baseline(dev);
        else if (strcmp(scenario, "own_context") == 0)
            scenario_own_context(dev, kind);
        else
            scenario_primary(dev, kind);
        printf("%s | end | 0 ran to its end\n", g_scenario);
        fflush(stdout);
        _exit(0);
    }
    int status = wait_for_child(pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFSIGNALED(status))
        printf("%s/%s | child | killed by signal %d%s\n", scenario, kind ? kind : "none", WTERMSIG(status),
               WTERMSIG(status) == SIGALRM ? " (past its time limit)" : "");
    else
        printf("%s/%s | child | exited %d\n", scenario, kind ? kind : "none", WEXITSTATUS(status));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sticky_probe KERNELS.ptx\n");
        return 2;
    }
    g_ptx = read_file(argv[1]);
    if (g_ptx == NULL) {
        fprintf(stderr, "sticky_probe: cannot read %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    static const char *kinds[] = {"illegal_address", "trap", "assert"};
    int failed = run_child("baseline", NULL);
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        failed |= run_child("own_context", kinds[i]);
        failed |= run_child("primary", kinds[i]);
    }
    return failed;
}
