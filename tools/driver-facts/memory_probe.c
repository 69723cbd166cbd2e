/* memory_probe: measures what a real CUDA driver answers for managed memory,
 * mapped and registered host memory, register caps (CU_JIT_MAX_REGISTERS,
 * .maxnreg) and the per-thread default stream entry points. The answers
 * decide what the simulator does where cuda.h is silent or vague (issue 31:
 * numba's test suites over the simulator; docs/DRIVER-FACTS.md, "Host,
 * managed and mapped memory" and "Register caps").
 *
 *   memory_probe KERNELS.ptx
 *
 * Each scenario runs in its own child process (forked before the parent
 * touches the driver), bounded by alarm(). Every answer is printed as
 * "scenario | step | value"; nothing is concluded here: the lines are the
 * measurement. Exit status 0 when every scenario ran to its end, 1
 * otherwise, 2 for bad usage.
 *
 * Built with the CUDA toolkit's cuda.h, linked with -lcuda (the stub at
 * build time, the real libcuda.so.1 at run time) and -ldl. */
#include "probe_support.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { CHILD_SECONDS = 60, PAGE = 4096, COUNT = 1024 };

static const char *g_ptx;

static void pointer_attributes(const char *label, CUdeviceptr p)
{
    char step[128];
    static const struct { CUpointer_attribute a; const char *name; } attrs[] = {
        {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, "MEMORY_TYPE"},
        {CU_POINTER_ATTRIBUTE_IS_MANAGED, "IS_MANAGED"},
        {CU_POINTER_ATTRIBUTE_MAPPED, "MAPPED"},
    };
    for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
        unsigned int v = 0xdead;
        snprintf(step, sizeof step, "%s: cuPointerGetAttribute %s", label, attrs[i].name);
        if (say(step, cuPointerGetAttribute(&v, attrs[i].a, p)) == CUDA_SUCCESS) {
            snprintf(step, sizeof step, "%s: %s value", label, attrs[i].name);
            value(step, "%llu", v);
        }
    }
    CUdeviceptr dptr = 0;
    void *hptr = NULL;
    snprintf(step, sizeof step, "%s: cuPointerGetAttribute DEVICE_POINTER", label);
    if (say(step, cuPointerGetAttribute(&dptr, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p)) == CUDA_SUCCESS) {
        snprintf(step, sizeof step, "%s: DEVICE_POINTER - p", label);
        value(step, "%lld", (unsigned long long)(dptr - p));
    }
    snprintf(step, sizeof step, "%s: cuPointerGetAttribute HOST_POINTER", label);
    if (say(step, cuPointerGetAttribute(&hptr, CU_POINTER_ATTRIBUTE_HOST_POINTER, p)) == CUDA_SUCCESS) {
        snprintf(step, sizeof step, "%s: HOST_POINTER - p", label);
        value(step, "%lld", (unsigned long long)((CUdeviceptr)(uintptr_t)hptr - p));
    }
    CUdeviceptr base = 0;
    size_t size = 0;
    snprintf(step, sizeof step, "%s: cuMemGetAddressRange(p + 100)", label);
    if (say(step, cuMemGetAddressRange(&base, &size, p + 100)) == CUDA_SUCCESS) {
        snprintf(step, sizeof step, "%s: range base - p", label);
        value(step, "%lld", (unsigned long long)(base - p));
        snprintf(step, sizeof step, "%s: range size", label);
        value(step, "%llu", size);
    }
}

/* fill_u32 over p, then a host read of every value through host. */
static void kernel_fill(const char *label, CUfunction fill, CUdeviceptr p, const unsigned *host)
{
    char step[128];
    unsigned v = 11, n = COUNT;
    void *args[] = {&p, &v, &n};
    snprintf(step, sizeof step, "%s: cuLaunchKernel fill_u32", label);
    if (say(step, cuLaunchKernel(fill, COUNT / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL)) != CUDA_SUCCESS)
        return;
    snprintf(step, sizeof step, "%s: cuCtxSynchronize", label);
    if (say(step, cuCtxSynchronize()) != CUDA_SUCCESS || host == NULL)
        return;
    unsigned wrong = 0;
    for (unsigned i = 0; i < COUNT; i++)
        wrong += host[i] != v + i;
    snprintf(step, sizeof step, "%s: host reads of the kernel's values, wrong", label);
    value(step, "%llu", wrong);
}

static void scenario_managed(CUdevice dev, CUfunction fill)
{
    int a = -1;
    static const struct { CUdevice_attribute a; const char *name; } attrs[] = {
        {CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, "MANAGED_MEMORY"},
        {CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, "CONCURRENT_MANAGED_ACCESS"},
        {CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, "PAGEABLE_MEMORY_ACCESS"},
        {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, "UNIFIED_ADDRESSING"},
        {CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, "CAN_MAP_HOST_MEMORY"},
        {CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, "HOST_REGISTER_SUPPORTED"},
    };
    for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
        char step[96];
        snprintf(step, sizeof step, "cuDeviceGetAttribute %s", attrs[i].name);
        if (say(step, cuDeviceGetAttribute(&a, attrs[i].a, dev)) == CUDA_SUCCESS)
            value(attrs[i].name, "%llu", (unsigned)a);
    }
    size_t total = 0;
    say("cuDeviceTotalMem", cuDeviceTotalMem(&total, dev));
    value("total memory", "%llu", total);

    CUdeviceptr m = 0;
    say("cuMemAllocManaged GLOBAL", cuMemAllocManaged(&m, COUNT * sizeof(unsigned), CU_MEM_ATTACH_GLOBAL));
    if (m) {
        value("managed address % 4096", "%llu", m % PAGE);
        unsigned *host = (unsigned *)(uintptr_t)m;
        for (unsigned i = 0; i < COUNT; i++)
            host[i] = 5;
        value("host wrote managed memory directly", "%llu", 1);
        unsigned back = 0;
        say("cuMemcpyDtoH from managed", cuMemcpyDtoH(&back, m + 8, sizeof back));
        value("value copied back", "%llu", back);
        say("cuMemsetD8 managed", cuMemsetD8(m, 0x5a, 16));
        say("cuCtxSynchronize after memset", cuCtxSynchronize());
        value("host read after memset", "%llx", host[0]);
        pointer_attributes("managed", m);
        kernel_fill("managed", fill, m, host);
        CUstream s = NULL;
        say("cuStreamCreate", cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
        say("cuStreamAttachMemAsync HOST", cuStreamAttachMemAsync(s, m, 0, CU_MEM_ATTACH_HOST));
        say("cuStreamAttachMemAsync SINGLE", cuStreamAttachMemAsync(s, m, 0, CU_MEM_ATTACH_SINGLE));
        say("cuStreamAttachMemAsync length 7", cuStreamAttachMemAsync(s, m, 7, CU_MEM_ATTACH_GLOBAL));
        /* Not asked: cuStreamAttachMemAsync(s, m, 0, 0) (flags 0) killed the
         * probe with SIGSEGV inside driver 580.159.04 (first run). */
        say("cuStreamSynchronize", cuStreamSynchronize(s));
        /* cuda.h 13: the _v2 forms, which take a CUmemLocation. Looked up
         * at run time, so that the probe also runs over a driver without
         * them (gpuguard's simulator: "missing" is then the answer). */
        CUmemLocation on_device = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev};
        CUmemLocation on_host = {.type = CU_MEM_LOCATION_TYPE_HOST, .id = 0};
        CUresult (*prefetch)(CUdeviceptr, size_t, CUmemLocation, unsigned, CUstream) =
            (CUresult(*)(CUdeviceptr, size_t, CUmemLocation, unsigned, CUstream))dlsym(RTLD_DEFAULT, "cuMemPrefetchAsync_v2");
        CUresult (*advise)(CUdeviceptr, size_t, CUmem_advise, CUmemLocation) =
            (CUresult(*)(CUdeviceptr, size_t, CUmem_advise, CUmemLocation))dlsym(RTLD_DEFAULT, "cuMemAdvise_v2");
        if (prefetch) {
            say("cuMemPrefetchAsync to device", prefetch(m, COUNT * sizeof(unsigned), on_device, 0, s));
            say("cuMemPrefetchAsync to host", prefetch(m, COUNT * sizeof(unsigned), on_host, 0, s));
        } else {
            printf("%s | cuMemPrefetchAsync to device | missing from the driver\n", g_scenario);
            printf("%s | cuMemPrefetchAsync to host | missing from the driver\n", g_scenario);
        }
        if (advise)
            say("cuMemAdvise SET_READ_MOSTLY", advise(m, COUNT * sizeof(unsigned), CU_MEM_ADVISE_SET_READ_MOSTLY, on_device));
        else
            printf("%s | cuMemAdvise SET_READ_MOSTLY | missing from the driver\n", g_scenario);
        say("cuStreamSynchronize", cuStreamSynchronize(s));
        say("cuStreamDestroy", cuStreamDestroy(s));
        say("cuMemFree managed", cuMemFree(m));
        say("cuMemFree managed again", cuMemFree(m));
    }
    CUdeviceptr bad = 0;
    say("cuMemAllocManaged HOST", cuMemAllocManaged(&bad, PAGE, CU_MEM_ATTACH_HOST));
    if (bad) {
        pointer_attributes("managed HOST", bad);
        say("cuMemFree managed HOST", cuMemFree(bad));
    }
    bad = 0;
    say("cuMemAllocManaged flags 0", cuMemAllocManaged(&bad, PAGE, 0));
    if (bad) cuMemFree(bad), bad = 0;
    say("cuMemAllocManaged flags 3", cuMemAllocManaged(&bad, PAGE, 3));
    if (bad) cuMemFree(bad), bad = 0;
    say("cuMemAllocManaged flags SINGLE", cuMemAllocManaged(&bad, PAGE, CU_MEM_ATTACH_SINGLE));
    if (bad) cuMemFree(bad), bad = 0;
    say("cuMemAllocManaged size 0", cuMemAllocManaged(&bad, 0, CU_MEM_ATTACH_GLOBAL));
    value("size 0 address", "%llx", bad);
    if (bad) cuMemFree(bad), bad = 0;
    say("cuMemAllocManaged size 1", cuMemAllocManaged(&bad, 1, CU_MEM_ATTACH_GLOBAL));
    if (bad) {
        CUdeviceptr base = 0;
        size_t size = 0;
        say("cuMemGetAddressRange size-1 managed", cuMemGetAddressRange(&base, &size, bad));
        value("size-1 managed range size", "%llu", size);
        say("cuMemGetAddressRange size-1 managed + 1", cuMemGetAddressRange(&base, &size, bad + 1));
        cuMemFree(bad), bad = 0;
    }
    say("cuMemAllocManaged NULL out", cuMemAllocManaged(NULL, PAGE, CU_MEM_ATTACH_GLOBAL));
    /* Oversubscription: more than the device holds (the host has more). */
    say("cuMemAllocManaged total + 1 byte", cuMemAllocManaged(&bad, total + 1, CU_MEM_ATTACH_GLOBAL));
    if (bad) cuMemFree(bad), bad = 0;
    say("cuMemAllocManaged 4 x total", cuMemAllocManaged(&bad, 4 * total, CU_MEM_ATTACH_GLOBAL));
    if (bad) cuMemFree(bad), bad = 0;
    CUdeviceptr plain = 0;
    say("cuMemAlloc total + 1 byte", cuMemAlloc(&plain, total + 1));
    if (plain) cuMemFree(plain);
}

static void scenario_mapped(CUfunction fill)
{
    void *h = NULL;
    CUdeviceptr d = 0;
    say("cuMemHostAlloc DEVICEMAP", cuMemHostAlloc(&h, COUNT * sizeof(unsigned), CU_MEMHOSTALLOC_DEVICEMAP));
    if (h) {
        say("cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(&d, h, 0));
        value("device pointer - host pointer", "%lld", (unsigned long long)(d - (CUdeviceptr)(uintptr_t)h));
        say("cuMemHostGetDevicePointer(h + 100)", cuMemHostGetDevicePointer(&d, (char *)h + 100, 0));
        value("interior: device pointer - host pointer", "%lld", (unsigned long long)(d - (CUdeviceptr)(uintptr_t)h));
        say("cuMemHostGetDevicePointer flags 1", cuMemHostGetDevicePointer(&d, h, 1));
        d = (CUdeviceptr)(uintptr_t)h;
        pointer_attributes("hostalloc DEVICEMAP", d);
        say("cuMemsetD8 mapped", cuMemsetD8(d, 0x5a, 16));
        say("cuCtxSynchronize", cuCtxSynchronize());
        value("host read after memset", "%llx", ((unsigned *)h)[0]);
        kernel_fill("hostalloc DEVICEMAP", fill, d, h);
        say("cuMemHostRegister of cuMemHostAlloc memory", cuMemHostRegister(h, PAGE, 0));
        say("cuMemHostUnregister of cuMemHostAlloc memory", cuMemHostUnregister(h));
        say("cuMemFreeHost", cuMemFreeHost(h));
        say("cuMemFreeHost again", cuMemFreeHost(h));
    }
    h = NULL;
    say("cuMemHostAlloc flags 0", cuMemHostAlloc(&h, PAGE, 0));
    if (h) {
        say("flags 0: cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(&d, h, 0));
        pointer_attributes("hostalloc 0", (CUdeviceptr)(uintptr_t)h);
        say("flags 0: cuMemsetD8 at the host address", cuMemsetD8((CUdeviceptr)(uintptr_t)h, 1, 16));
        say("cuCtxSynchronize", cuCtxSynchronize());
        cuMemFreeHost(h);
    }
    h = NULL;
    say("cuMemAllocHost", cuMemAllocHost(&h, PAGE));
    if (h) {
        say("cuMemAllocHost: cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(&d, h, 0));
        cuMemFreeHost(h);
    }
    void *pageable = malloc(PAGE);
    say("pageable: cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(&d, pageable, 0));
    pointer_attributes("pageable", (CUdeviceptr)(uintptr_t)pageable);
    say("cuMemFreeHost(pageable)", cuMemFreeHost(pageable));
    free(pageable);
}

static void scenario_registered(CUfunction fill)
{
    enum { SPAN = 16 * PAGE };
    char *r = NULL;
    if (posix_memalign((void **)&r, 65536, 2 * SPAN) != 0)
        return;
    memset(r, 0, 2 * SPAN);
    CUdeviceptr d = 0;
    say("register DEVICEMAP", cuMemHostRegister(r, SPAN, CU_MEMHOSTREGISTER_DEVICEMAP));
    say("register the same range again", cuMemHostRegister(r, SPAN, CU_MEMHOSTREGISTER_DEVICEMAP));
    say("register an overlapping range", cuMemHostRegister(r + PAGE, SPAN, 0));
    say("register an interior range", cuMemHostRegister(r + PAGE, PAGE, 0));
    say("register the adjacent range", cuMemHostRegister(r + SPAN, PAGE, 0));
    say("unregister the adjacent range", cuMemHostUnregister(r + SPAN));
    say("cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(&d, r, 0));
    value("device pointer - host pointer", "%lld", (unsigned long long)(d - (CUdeviceptr)(uintptr_t)r));
    say("cuMemHostGetDevicePointer(r + SPAN - 1)", cuMemHostGetDevicePointer(&d, r + SPAN - 1, 0));
    say("cuMemHostGetDevicePointer(r + SPAN)", cuMemHostGetDevicePointer(&d, r + SPAN, 0));
    pointer_attributes("registered", (CUdeviceptr)(uintptr_t)r);
    say("cuMemsetD8 registered", cuMemsetD8((CUdeviceptr)(uintptr_t)r, 0x5a, 16));
    say("cuCtxSynchronize", cuCtxSynchronize());
    value("host read after memset", "%llx", (unsigned char)r[0]);
    kernel_fill("registered", fill, (CUdeviceptr)(uintptr_t)r, (unsigned *)r);
    say("cuMemFreeHost(registered)", cuMemFreeHost(r));
    say("unregister interior pointer", cuMemHostUnregister(r + PAGE));
    say("unregister", cuMemHostUnregister(r));
    say("unregister again", cuMemHostUnregister(r));
    say("register again after unregister", cuMemHostRegister(r, SPAN, 0));
    say("unregister", cuMemHostUnregister(r));
    say("register unaligned pointer", cuMemHostRegister(r + 8, PAGE, 0));
    say("unregister unaligned", cuMemHostUnregister(r + 8));
    say("register size 0", cuMemHostRegister(r, 0, 0));
    say("register size 1", cuMemHostRegister(r, 1, 0));
    say("unregister size 1", cuMemHostUnregister(r));
    say("register flags 0x80", cuMemHostRegister(r, PAGE, 0x80));
    say("register NULL", cuMemHostRegister(NULL, PAGE, 0));
    say("unregister never registered", cuMemHostUnregister(r + SPAN));
    free(r);
}

static void regs_of(const char *label, CUmodule module, const char *name)
{
    CUfunction f = NULL;
    char step[128];
    snprintf(step, sizeof step, "%s: cuModuleGetFunction %s", label, name);
    if (say(step, cuModuleGetFunction(&f, module, name)) != CUDA_SUCCESS)
        return;
    int regs = -1, threads = -1, local = -1;
    cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
    cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
    cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
    printf("%s | %s: %s | NUM_REGS %d MAX_THREADS_PER_BLOCK %d LOCAL_SIZE_BYTES %d\n",
           g_scenario, label, name, regs, threads, local);
    fflush(stdout);
}

static void scenario_registers(void)
{
    static const int caps[] = {-1, 0, 1, 16, 23, 24, 38, 255, 256, 1000};
    for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
        char label[64];
        CUmodule module = NULL;
        CUresult r;
        if (caps[i] < 0) {
            snprintf(label, sizeof label, "load, no cap");
            r = cuModuleLoadDataEx(&module, g_ptx, 0, NULL, NULL);
        } else {
            snprintf(label, sizeof label, "load, MAX_REGISTERS %d", caps[i]);
            CUjit_option opt[] = {CU_JIT_MAX_REGISTERS};
            void *val[] = {(void *)(uintptr_t)caps[i]};
            r = cuModuleLoadDataEx(&module, g_ptx, 1, opt, val);
        }
        if (say(label, r) != CUDA_SUCCESS)
            continue;
        regs_of(label, module, "many_registers");
        regs_of(label, module, "many_registers_maxnreg40");
        regs_of(label, module, "fill_u32");
        cuModuleUnload(module);
    }
    /* Through the linker, as numba asks it. */
    static const int link_caps[] = {16, 38, 256};
    for (size_t i = 0; i < sizeof link_caps / sizeof *link_caps; i++) {
        char label[64];
        snprintf(label, sizeof label, "link, MAX_REGISTERS %d", link_caps[i]);
        CUjit_option opt[] = {CU_JIT_MAX_REGISTERS};
        void *val[] = {(void *)(uintptr_t)link_caps[i]};
        CUlinkState link = NULL;
        void *cubin = NULL;
        size_t size = 0;
        CUmodule module = NULL;
        if (say(label, cuLinkCreate(1, opt, val, &link)) != CUDA_SUCCESS)
            continue;
        if (say("cuLinkAddData", cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)g_ptx, strlen(g_ptx) + 1, "k.ptx", 0, NULL, NULL)) == CUDA_SUCCESS &&
            say("cuLinkComplete", cuLinkComplete(link, &cubin, &size)) == CUDA_SUCCESS &&
            say("cuModuleLoadData", cuModuleLoadData(&module, cubin)) == CUDA_SUCCESS) {
            regs_of(label, module, "many_registers");
            regs_of(label, module, "many_registers_maxnreg40");
            cuModuleUnload(module);
        }
        cuLinkDestroy(link);
    }
}

/* Which per-thread default stream entry points the driver exports, and what
 * cuGetProcAddress hands out with each stream flag. */
static void scenario_per_thread(void)
{
    /* The driver the probe is linked with (libcuda.so.1, or the simulator
     * standing in for it), whatever its file is called. */
    void *lib = RTLD_DEFAULT;
    static const char *names[] = {"cuLaunchKernel", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemcpyHtoDAsync_v2",
                                  "cuStreamSynchronize", "cuEventRecord", "cuMemsetD8_v2", "cuStreamAttachMemAsync",
                                  "cuMemPrefetchAsync", "cuLaunchCooperativeKernel", "cuStreamQuery"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char ptds[96], ptsz[96];
        snprintf(ptds, sizeof ptds, "%s_ptds", names[i]);
        snprintf(ptsz, sizeof ptsz, "%s_ptsz", names[i]);
        void *plain = dlsym(lib, names[i]);
        void *per_ds = dlsym(lib, ptds);
        void *per_sz = dlsym(lib, ptsz);
        printf("%s | dlsym %s | plain %s, _ptds %s, _ptsz %s\n", g_scenario, names[i], plain ? "yes" : "no",
               per_ds ? "yes" : "no", per_sz ? "yes" : "no");
        /* cuGetProcAddress wants the base name, without _v2. */
        char base[96];
        snprintf(base, sizeof base, "%s", names[i]);
        char *v2 = strstr(base, "_v2");
        if (v2)
            *v2 = '\0';
        static const struct { cuuint64_t flag; const char *name; } flags[] = {
            {CU_GET_PROC_ADDRESS_DEFAULT, "DEFAULT"},
            {CU_GET_PROC_ADDRESS_LEGACY_STREAM, "LEGACY_STREAM"},
            {CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "PER_THREAD_DEFAULT_STREAM"},
        };
        for (size_t k = 0; k < 3; k++) {
            void *fn = NULL;
            CUdriverProcAddressQueryResult status = 0;
            CUresult r = cuGetProcAddress(base, &fn, 12000, flags[k].flag, &status);
            const char *same = fn == NULL ? "NULL" : fn == plain ? "= plain" : fn == per_ds ? "= _ptds" : fn == per_sz ? "= _ptsz" : "other";
            printf("%s | cuGetProcAddress(%s, 12000, %s) | %d %s, status %d, %s\n", g_scenario, base, flags[k].name, (int)r,
                   code_name(r), (int)status, same);
        }
    }
    fflush(stdout);
}

static int run_child(const char *scenario)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "memory_probe: fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        alarm(CHILD_SECONDS);
        g_scenario = scenario;
        CUdevice dev = 0;
        CUcontext ctx = NULL;
        CUmodule module = NULL;
        CUfunction fill = NULL;
        if (say("cuInit", cuInit(0)) != CUDA_SUCCESS || say("cuDeviceGet 0", cuDeviceGet(&dev, 0)) != CUDA_SUCCESS ||
            say("cuCtxCreate", cuCtxCreate(&ctx, NULL, 0, dev)) != CUDA_SUCCESS ||
            say("cuModuleLoadData", cuModuleLoadData(&module, g_ptx)) != CUDA_SUCCESS ||
            say("cuModuleGetFunction fill_u32", cuModuleGetFunction(&fill, module, "fill_u32")) != CUDA_SUCCESS)
            _exit(3);
        if (strcmp(scenario, "managed") == 0)
            scenario_managed(dev, fill);
        else if (strcmp(scenario, "mapped") == 0)
            scenario_mapped(fill);
        else if (strcmp(scenario, "registered") == 0)
            scenario_registered(fill);
        else if (strcmp(scenario, "registers") == 0)
            scenario_registers();
        else
            scenario_per_thread();
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
        fprintf(stderr, "usage: memory_probe KERNELS.ptx\n");
        return 2;
    }
    g_ptx = read_file(argv[1]);
    if (g_ptx == NULL) {
        fprintf(stderr, "memory_probe: cannot read %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    static const char *scenarios[] = {"managed", "mapped", "registered", "registers", "per_thread"};
    int failed = 0;
    for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++)
        failed |= run_child(scenarios[i]);
    return failed;
}
