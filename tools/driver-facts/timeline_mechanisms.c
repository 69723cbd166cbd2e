/* timeline_mechanisms: what each way of marking a launch's completion costs
 * the host on a real CUDA driver, next to the launch alone (issue 30: the
 * completion timeline's price). gpuguard's timeline enqueues a
 * cuStreamWriteValue64 after every launch; this measures that and its
 * alternatives with no gpuguard in between.
 *
 *   timeline_mechanisms KERNELS.ptx      (sticky_kernels.ptx: fill_u32)
 *
 * Per variant: CHUNKS chunks of PER_CHUNK enqueues of an empty launch
 * (fill_u32 with n = 0) plus the variant's marker, the stream drained
 * between chunks (not timed) so the queue never fills; the variants take
 * turns chunk by chunk, so drift touches each alike. Prints the median
 * nanoseconds per launch of each variant and its difference to the launch
 * alone. Exit status 0 when every call succeeded, 1 when one failed (named). */
#include <cuda.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PER_CHUNK = 400, CHUNKS = 41 };

enum variant { V_LAUNCH, V_WRITE_DEVICE, V_WRITE_HOST_MAPPED, V_BATCH_WRITE, V_EVENT_RECORD, V_COUNT };
static const char *const variant_names[V_COUNT] = {
    "launch alone",
    "launch + cuStreamWriteValue64 (device memory)",
    "launch + cuStreamWriteValue64 (mapped host memory)",
    "launch + cuStreamBatchMemOp (one 64-bit write)",
    "launch + cuEventRecord (timing disabled)",
};

typedef CUresult (*batch_mem_op_fn)(CUstream, unsigned, CUstreamBatchMemOpParams *, unsigned);
static batch_mem_op_fn batch_mem_op;

static int check(const char *what, CUresult r)
{
    if (r == CUDA_SUCCESS)
        return 0;
    const char *name = NULL;
    cuGetErrorName(r, &name);
    printf("FAILED %s: %d %s\n", what, (int)r, name ? name : "?");
    return 1;
}
#define CHECK(call) \
    do { if (check(#call, (call))) return 1; } while (0)

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (text && fread(text, 1, (size_t)size, f) == (size_t)size)
        text[size] = '\0';
    else
        free(text), text = NULL;
    fclose(f);
    return text;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: timeline_mechanisms KERNELS.ptx\n");
        return 2;
    }
    char *ptx = read_file(argv[1]);
    if (ptx == NULL) {
        fprintf(stderr, "timeline_mechanisms: cannot read %s\n", argv[1]);
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    CUmodule module;
    CUfunction fill;
    CUstream stream;
    CUevent event;
    CUdeviceptr target_device, target_host_device;
    void *target_host;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    int attr_write64 = 0;
    CHECK(cuDeviceGetAttribute(&attr_write64, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev));
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
    CHECK(cuModuleLoadData(&module, ptx));
    CHECK(cuModuleGetFunction(&fill, module, "fill_u32"));
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
    CHECK(cuMemAlloc(&target_device, 64));
    CHECK(cuMemHostAlloc(&target_host, 64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
    CHECK(cuMemHostGetDevicePointer(&target_host_device, target_host, 0));
    printf("device attribute CAN_USE_64_BIT_STREAM_MEM_OPS = %d\n", attr_write64);
    /* Looked up, not linked: gpuguard's simulated driver (a dry run) has no
     * batched memory operations, and the variant is then left out. */
    batch_mem_op = (batch_mem_op_fn)dlsym(RTLD_DEFAULT, "cuStreamBatchMemOp_v2");
    if (batch_mem_op == NULL)
        printf("cuStreamBatchMemOp_v2 is not exported: that variant is left out\n");

    CUdeviceptr nothing = target_device;
    unsigned value = 0, n = 0;
    void *args[] = {&nothing, &value, &n};
    static double per_launch[V_COUNT][CHUNKS];
    uint64_t mark = 0;
    for (int chunk = -2; chunk < CHUNKS; chunk++) { /* two warm-up rounds */
        for (int v = 0; v < V_COUNT; v++) {
            if (v == V_BATCH_WRITE && batch_mem_op == NULL)
                continue;
            double start = now_ns();
            for (int i = 0; i < PER_CHUNK; i++) {
                CHECK(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, stream, args, NULL));
                mark++;
                switch (v) {
                case V_WRITE_DEVICE:
                    CHECK(cuStreamWriteValue64(stream, target_device, mark, 0));
                    break;
                case V_WRITE_HOST_MAPPED:
                    CHECK(cuStreamWriteValue64(stream, target_host_device, mark, 0));
                    break;
                case V_BATCH_WRITE: {
                    CUstreamBatchMemOpParams op;
                    memset(&op, 0, sizeof op);
                    op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
                    op.writeValue.address = target_host_device;
                    op.writeValue.value64 = mark;
                    CHECK(batch_mem_op(stream, 1, &op, 0));
                    break;
                }
                case V_EVENT_RECORD:
                    CHECK(cuEventRecord(event, stream));
                    break;
                default:
                    break;
                }
            }
            double elapsed = now_ns() - start;
            CHECK(cuStreamSynchronize(stream));
            if (chunk >= 0)
                per_launch[v][chunk] = elapsed / PER_CHUNK;
        }
    }
    if (attr_write64 && *(volatile uint64_t *)target_host == 0)
        printf("FAILED: the mapped host word was never written\n");
    double base = 0;
    for (int v = 0; v < V_COUNT; v++) {
        if (v == V_BATCH_WRITE && batch_mem_op == NULL)
            continue;
        qsort(per_launch[v], CHUNKS, sizeof(double), compare_double);
        double median = per_launch[v][CHUNKS / 2];
        if (v == V_LAUNCH)
            base = median;
        printf("%-52s median %7.0f ns per launch (p25 %6.0f, p75 %6.0f)  adds %6.0f ns\n", variant_names[v],
               median, per_launch[v][CHUNKS / 4], per_launch[v][3 * CHUNKS / 4], median - base);
    }
    cuMemFreeHost(target_host);
    cuMemFree(target_device);
    cuEventDestroy(event);
    cuStreamDestroy(stream);
    cuModuleUnload(module);
    cuCtxDestroy(ctx);
    free(ptx);
    return 0;
}
