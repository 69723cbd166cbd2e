/* limits_probe: measures what a real CUDA driver answers where gpuguard's
 * simulator had to choose without a measurement: a recursive kernel that
 * overflows the per-thread stack (and one that fits once the stack limit is
 * raised), cuLinkCreate's CU_JIT_MAX_REGISTERS 0, and host memory
 * registered without CU_MEMHOSTREGISTER_DEVICEMAP used by the device
 * (docs/DRIVER-FACTS.md, "Limits measured after the first memory probe").
 *
 *   limits_probe KERNELS.ptx
 *
 * Each scenario runs in its own child process (forked before the parent
 * touches the driver: a stack overflow may leave a sticky error), bounded by
 * alarm(). Every answer is printed as "scenario | step | value"; nothing is
 * concluded here. Exit status 0 when every scenario ran to its end, 1
 * otherwise, 2 for bad usage. Built with the toolkit's cuda.h, -lcuda. */
#include "probe_support.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { CHILD_SECONDS = 60, PAGE = 4096, COUNT = 1024 };

static const char *g_ptx;
static CUmodule g_module;

/* recurse<<<1, 32>>>(out, n): each lane's depth(n), n + 1 when it returns. */
static void recurse(const char *label, unsigned n)
{
    char step[128];
    CUfunction f = NULL;
    CUdeviceptr out = 0;
    snprintf(step, sizeof step, "%s: cuModuleGetFunction recurse", label);
    if (say(step, cuModuleGetFunction(&f, g_module, "recurse")) != CUDA_SUCCESS)
        return;
    snprintf(step, sizeof step, "%s: cuMemAlloc", label);
    if (say(step, cuMemAlloc(&out, 32 * sizeof(unsigned))) != CUDA_SUCCESS)
        return;
    void *args[] = {&out, &n};
    snprintf(step, sizeof step, "%s: cuLaunchKernel recurse(%u)", label, n);
    say(step, cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    snprintf(step, sizeof step, "%s: cuCtxSynchronize", label);
    if (say(step, cuCtxSynchronize()) == CUDA_SUCCESS) {
        unsigned host[32] = {0};
        snprintf(step, sizeof step, "%s: cuMemcpyDtoH", label);
        say(step, cuMemcpyDtoH(host, out, sizeof host));
        unsigned wrong = 0;
        for (int i = 0; i < 32; i++)
            wrong += host[i] != n + 1;
        snprintf(step, sizeof step, "%s: lanes whose depth is not n + 1", label);
        value(step, "%llu", wrong);
    }
    snprintf(step, sizeof step, "%s: cuMemAlloc after", label);
    CUdeviceptr more = 0;
    say(step, cuMemAlloc(&more, 256));
}

static void print_stack_limit(const char *label)
{
    size_t limit = 0;
    char step[128];
    snprintf(step, sizeof step, "%s: cuCtxGetLimit STACK_SIZE", label);
    if (say(step, cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE)) == CUDA_SUCCESS) {
        snprintf(step, sizeof step, "%s: stack size", label);
        value(step, "%llu", limit);
    }
}

static void scenario_stack(const char *kind)
{
    print_stack_limit("default");
    if (strcmp(kind, "fits") == 0) {
        recurse("default", 2);
    } else if (strcmp(kind, "overflow") == 0) {
        recurse("default", 100000);
        print_stack_limit("after");
    } else {
        say("cuCtxSetLimit STACK_SIZE 65536", cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 65536));
        print_stack_limit("raised");
        recurse("raised", 300);
    }
}

static void scenario_link_zero(void)
{
    CUjit_option opt[] = {CU_JIT_MAX_REGISTERS};
    void *val[] = {(void *)(uintptr_t)0};
    CUlinkState link = NULL;
    if (say("cuLinkCreate MAX_REGISTERS 0", cuLinkCreate(1, opt, val, &link)) != CUDA_SUCCESS)
        return;
    void *cubin = NULL;
    size_t size = 0;
    say("cuLinkAddData", cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)g_ptx, strlen(g_ptx) + 1, "k.ptx", 0, NULL, NULL));
    say("cuLinkComplete", cuLinkComplete(link, &cubin, &size));
    say("cuLinkDestroy", cuLinkDestroy(link));
}

static void scenario_registered_without_devicemap(void)
{
    enum { SPAN = 16 * PAGE };
    unsigned *r = NULL;
    if (posix_memalign((void **)&r, 65536, SPAN) != 0)
        return;
    memset(r, 0, SPAN);
    CUdeviceptr d = 0;
    say("register flags 0", cuMemHostRegister(r, SPAN, 0));
    say("cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(&d, r, 0));
    value("device pointer - host pointer", "%lld", (unsigned long long)(d - (CUdeviceptr)(uintptr_t)r));
    unsigned mapped = 0xdead;
    if (say("cuPointerGetAttribute MAPPED", cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED,
                                                                 (CUdeviceptr)(uintptr_t)r)) == CUDA_SUCCESS)
        value("MAPPED value", "%llu", mapped);
    say("cuMemsetD8 at the host address", cuMemsetD8((CUdeviceptr)(uintptr_t)r, 0x5a, 16));
    say("cuCtxSynchronize", cuCtxSynchronize());
    value("host read after memset", "%llx", r[0]);
    CUfunction fill = NULL;
    if (say("cuModuleGetFunction fill_u32", cuModuleGetFunction(&fill, g_module, "fill_u32")) == CUDA_SUCCESS) {
        CUdeviceptr p = (CUdeviceptr)(uintptr_t)r;
        unsigned v = 11, n = COUNT;
        void *args[] = {&p, &v, &n};
        say("cuLaunchKernel fill_u32 at the host address", cuLaunchKernel(fill, COUNT / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
        if (say("cuCtxSynchronize after the kernel", cuCtxSynchronize()) == CUDA_SUCCESS) {
            unsigned wrong = 0;
            for (unsigned i = 0; i < COUNT; i++)
                wrong += r[i] != v + i;
            value("host reads of the kernel's values, wrong", "%llu", wrong);
        }
    }
    say("unregister", cuMemHostUnregister(r));
    free(r);
}

static int run_child(const char *scenario, const char *kind)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "limits_probe: fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        alarm(CHILD_SECONDS);
        static char name[64];
        snprintf(name, sizeof name, "%s%s%s", scenario, kind ? "/" : "", kind ? kind : "");
        g_scenario = name;
        CUdevice dev = 0;
        CUcontext ctx = NULL;
        if (say("cuInit", cuInit(0)) != CUDA_SUCCESS || say("cuDeviceGet 0", cuDeviceGet(&dev, 0)) != CUDA_SUCCESS ||
            say("cuCtxCreate", cuCtxCreate(&ctx, NULL, 0, dev)) != CUDA_SUCCESS ||
            say("cuModuleLoadData", cuModuleLoadData(&g_module, g_ptx)) != CUDA_SUCCESS)
            _exit(3);
        if (strcmp(scenario, "stack") == 0)
            scenario_stack(kind);
        else if (strcmp(scenario, "link_zero") == 0)
            scenario_link_zero();
        else
            scenario_registered_without_devicemap();
        say("cuCtxDestroy", cuCtxDestroy(ctx));
        printf("%s | end | 0 ran to its end\n", g_scenario);
        fflush(stdout);
        _exit(0);
    }
    int status = wait_for_child(pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    printf("%s | end | child %s %d\n", scenario, WIFSIGNALED(status) ? "killed by signal" : "exited",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: limits_probe KERNELS.ptx\n");
        return 2;
    }
    g_ptx = read_file(argv[1]);
    if (g_ptx == NULL) {
        fprintf(stderr, "limits_probe: cannot read %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    int failed = run_child("stack", "fits");
    failed |= run_child("stack", "overflow");
    failed |= run_child("stack", "raised");
    failed |= run_child("link_zero", NULL);
    failed |= run_child("registered_without_devicemap", NULL);
    return failed;
}
