/* The module and launch API around PTX kernels, through the simulator's CUDA
 * face: module variables (cuModuleGetGlobal), parameter layouts
 * (cuFuncGetParamInfo and the `extra` launch form), function attributes,
 * the shared-memory limit of a launch, pitched copies (cuMemcpy2D/3D) and
 * cuModuleLoadFatBinary. Kernels: tests/ptx/kernels/module_api.cu. */
#include "sim_test.h"
#include "sim_cuda_client.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(ptx_module_api, .timeout = 60);

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    if (size)
        *size = (size_t)n;
    return s;
}

static CUmodule load_module_api(void)
{
    char *src = read_file(GG_PTX_FIXTURE_DIR "/module_api.ptx", NULL);
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, src));
    free(src);
    return m;
}

static void run1(CUfunction f, unsigned block, unsigned shared, void **args)
{
    CU_OK(cuLaunchKernel(f, 1, 1, 1, block, 1, 1, shared, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
}

/* ---- module variables ----------------------------------------------------- */

Test(ptx_module_api, globals_start_as_declared_and_host_writes_reach_kernels)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_module_api();
    CUfunction f = sim_test_kernel(m, "read_globals");
    CUdeviceptr coef, counter;
    size_t coef_bytes = 0, counter_bytes = 0;
    CU_OK(cuModuleGetGlobal_v2(&coef, &coef_bytes, m, "coef"));
    CU_OK(cuModuleGetGlobal_v2(&counter, &counter_bytes, m, "counter"));
    cr_assert_eq(coef_bytes, 8);
    cr_assert_eq(counter_bytes, 8);
    cr_assert_neq(coef, counter);

    /* Initialised as declared, read by the host. */
    uint32_t c2[2];
    uint64_t n;
    CU_OK(cuMemcpyDtoH_v2(c2, coef, sizeof c2));
    CU_OK(cuMemcpyDtoH_v2(&n, counter, sizeof n));
    cr_assert(c2[0] == 7 && c2[1] == 9 && n == 5, "%u %u %llu", c2[0], c2[1], (unsigned long long)n);

    CUdeviceptr out;
    CU_OK(cuMemAlloc_v2(&out, 3 * sizeof(uint64_t)));
    void *args[] = { &out };
    uint64_t got[3];
    run1(f, 1, 0, args);
    CU_OK(cuMemcpyDtoH_v2(got, out, sizeof got));
    cr_assert(got[0] == 7 && got[1] == 9 && got[2] == 5, "%llu %llu %llu",
              (unsigned long long)got[0], (unsigned long long)got[1], (unsigned long long)got[2]);

    /* The kernel's store to the .global is what the host reads. */
    CU_OK(cuMemcpyDtoH_v2(&n, counter, sizeof n));
    cr_assert_eq(n, 6);

    /* A __constant__ the host rewrote with cuMemcpyHtoD, and a .global it
     * set with cuMemsetD32, are what the next launch sees. */
    uint32_t fresh[2] = { 11, 0xFFFFFFFFu };
    CU_OK(cuMemcpyHtoD_v2(coef, fresh, sizeof fresh));
    CU_OK(cuMemsetD32_v2(counter, 0x01020304u, 2));
    run1(f, 1, 0, args);
    CU_OK(cuMemcpyDtoH_v2(got, out, sizeof got));
    cr_assert(got[0] == 11 && got[1] == 0xFFFFFFFFu && got[2] == 0x0102030401020304ull,
              "%llx %llx %llx", (unsigned long long)got[0], (unsigned long long)got[1],
              (unsigned long long)got[2]);

    /* The device pointer works as a kernel parameter, too. */
    CUfunction through = sim_test_kernel(m, "read_through");
    void *targs[] = { &coef, &out };
    run1(through, 1, 0, targs);
    uint32_t sum;
    CU_OK(cuMemcpyDtoH_v2(&sum, out, sizeof sum));
    cr_assert_eq(sum, 10u); /* 11 + 0xFFFFFFFF, wrapped */

    CU_OK(cuMemFree_v2(out));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

Test(ptx_module_api, globals_are_bounded_owned_by_their_module_and_per_module)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m1 = load_module_api(), m2 = load_module_api();
    CUdeviceptr a, b, none = 0;
    size_t bytes = 0;
    CU_OK(cuModuleGetGlobal_v2(&a, NULL, m1, "coef")); /* either output may be NULL */
    CU_OK(cuModuleGetGlobal_v2(NULL, &bytes, m2, "coef"));
    cr_assert_eq(bytes, 8);
    CU_OK(cuModuleGetGlobal_v2(&b, NULL, m2, "coef"));
    cr_assert_neq(a, b, "each loaded module has its own variables");
    uint32_t v = 42, back = 0;
    CU_OK(cuMemcpyHtoD_v2(a, &v, sizeof v));
    CU_OK(cuMemcpyDtoH_v2(&back, b, sizeof back));
    cr_assert_eq(back, 7u);

    CU_IS(cuModuleGetGlobal_v2(&none, &bytes, m1, "no_such_variable"), CUDA_ERROR_NOT_FOUND);
    CU_IS(cuModuleGetGlobal_v2(&none, &bytes, m1, "read_globals"), CUDA_ERROR_NOT_FOUND);
    CU_IS(cuModuleGetGlobal_v2(&none, &bytes, m1, NULL), CUDA_ERROR_INVALID_VALUE);
    cr_assert_eq(none, 0);

    /* The module's variables are one allocation, as a GPU's module data
     * segment is: a copy is bounded by its end, which is the end of the
     * last variable (counter, 8 bytes): 8 bytes copy, 9 are refused. */
    CUdeviceptr last;
    CU_OK(cuModuleGetGlobal_v2(&last, NULL, m1, "counter"));
    uint32_t nine[3] = { 1, 2, 3 };
    CU_OK(cuMemcpyHtoD_v2(last, nine, 8));
    CU_IS(cuMemcpyHtoD_v2(last, nine, 9), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemcpyDtoH_v2(nine, last + 4, 5), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemsetD8_v2(last, 0, 9), CUDA_ERROR_INVALID_VALUE);

    /* Not the user's to free; gone with its module. */
    CU_IS(cuMemFree_v2(a), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuModuleUnload(m1));
    CU_IS(cuMemcpyDtoH_v2(&back, a, sizeof back), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuModuleGetGlobal_v2(&a, &bytes, m1, "coef"), CUDA_ERROR_INVALID_HANDLE);
    CU_OK(cuMemcpyDtoH_v2(&back, b, sizeof back));
    cr_assert_eq(back, 7u);
    /* m2 is left loaded: the context's destroy frees its variables. */
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* A module without variables has none to find. */
Test(ptx_module_api, a_module_without_variables_finds_none)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    char *src = read_file(GG_PTX_FIXTURE_DIR "/vector_add.ptx", NULL);
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, src));
    free(src);
    CUdeviceptr d;
    size_t n;
    CU_IS(cuModuleGetGlobal_v2(&d, &n, m, "vector_add"), CUDA_ERROR_NOT_FOUND);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* ---- parameters ------------------------------------------------------------ */

typedef struct cplx {
    double re, im;
} cplx;

/* axpb(cplx a, cplx *x, cplx b, cplx *y, char tag, long long n): the
 * complex values are declared .align 8, so the layout is a C struct's with
 * 8-byte alignment: 0, 16, 24, 40, 48, 56 (PyCUDA packs it so). */
Test(ptx_module_api, param_info_follows_declared_alignment)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_module_api();
    CUfunction f = sim_test_kernel(m, "axpb");
    static const size_t want_off[] = { 0, 16, 24, 40, 48, 56 };
    static const size_t want_size[] = { 16, 8, 16, 8, 1, 8 };
    size_t off, size;
    for (size_t i = 0; i < 6; i++) {
        CU_OK(cuFuncGetParamInfo(f, i, &off, &size));
        cr_assert(off == want_off[i] && size == want_size[i], "param %zu: %zu bytes at %zu", i,
                  size, off);
    }
    CU_IS(cuFuncGetParamInfo(f, 6, &off, &size), CUDA_ERROR_INVALID_VALUE);
    /* aligned16(int k, double2 v, double *out): v declared .align 16. */
    CUfunction g = sim_test_kernel(m, "aligned16");
    static const size_t off16[] = { 0, 16, 32 };
    for (size_t i = 0; i < 3; i++) {
        CU_OK(cuFuncGetParamInfo(g, i, &off, NULL));
        cr_assert_eq(off, off16[i], "param %zu at %zu", i, off);
    }
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* The `extra` form with a buffer packed at those offsets (64 bytes) runs;
 * one byte less is refused. */
Test(ptx_module_api, extra_buffer_with_declared_alignment_launches)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_module_api();
    CUfunction f = sim_test_kernel(m, "axpb");
    enum { N = 3 };
    cplx x[N] = { { 1, 2 }, { -3, 0.5 }, { 0, -1 } }, y[N];
    CUdeviceptr dx, dy;
    CU_OK(cuMemAlloc_v2(&dx, sizeof x));
    CU_OK(cuMemAlloc_v2(&dy, sizeof y));
    CU_OK(cuMemcpyHtoD_v2(dx, x, sizeof x));
    cplx a = { 2, -1 }, b = { 0.25, 4 };
    char tag = 3;
    long long n = N;
    unsigned char buf[64];
    memset(buf, 0xEE, sizeof buf);
    memcpy(buf + 0, &a, 16);
    memcpy(buf + 16, &dx, 8);
    memcpy(buf + 24, &b, 16);
    memcpy(buf + 40, &dy, 8);
    memcpy(buf + 48, &tag, 1);
    memcpy(buf + 56, &n, 8);
    size_t size = sizeof buf;
    /* CU_LAUNCH_PARAM_BUFFER_POINTER (1), _SIZE (2), _END (0) */
    void *extra[] = { (void *)(uintptr_t)1, buf, (void *)(uintptr_t)2, &size, NULL };
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(y, dy, sizeof y));
    for (int i = 0; i < N; i++) {
        double re = a.re * x[i].re - a.im * x[i].im + b.re + tag;
        double im = a.re * x[i].im + a.im * x[i].re + b.im;
        cr_assert(y[i].re == re && y[i].im == im, "y[%d] = (%g, %g), want (%g, %g)", i, y[i].re,
                  y[i].im, re, im);
    }
    size = sizeof buf - 1;
    CU_IS(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemFree_v2(dx));
    CU_OK(cuMemFree_v2(dy));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* ---- attributes and the shared-memory limit -------------------------------- */

static int attr(CUfunction f, CUfunction_attribute a)
{
    int v = -12345;
    CU_OK(cuFuncGetAttribute(&v, a, f));
    return v;
}

enum {
    ATTR_MAX_THREADS = 0, ATTR_SHARED = 1, ATTR_CONST = 2, ATTR_LOCAL = 3, ATTR_REGS = 4,
    ATTR_PTX_VERSION = 5, ATTR_BINARY_VERSION = 6, ATTR_MAX_DYNAMIC_SHARED = 8
};

Test(ptx_module_api, attributes_come_from_the_declarations)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_module_api();
    CUfunction big = sim_test_kernel(m, "big_shared");
    CUfunction bounded = sim_test_kernel(m, "bounded");
    CUfunction reads = sim_test_kernel(m, "read_globals");
    cr_assert_eq(attr(big, (CUfunction_attribute)ATTR_SHARED), 40000);
    cr_assert_eq(attr(reads, (CUfunction_attribute)ATTR_SHARED), 0, "another kernel's .shared is not its");
    cr_assert_eq(attr(big, (CUfunction_attribute)ATTR_MAX_DYNAMIC_SHARED), 49152 - 40000);
    /* Settable up to what the static leaves: 9152, not 9153. */
    CU_OK(cuFuncSetAttribute(big, (CUfunction_attribute)ATTR_MAX_DYNAMIC_SHARED, 100));
    cr_assert_eq(attr(big, (CUfunction_attribute)ATTR_MAX_DYNAMIC_SHARED), 100);
    CU_OK(cuFuncSetAttribute(big, (CUfunction_attribute)ATTR_MAX_DYNAMIC_SHARED, 49152 - 40000));
    CU_IS(cuFuncSetAttribute(big, (CUfunction_attribute)ATTR_MAX_DYNAMIC_SHARED, 49152 - 40000 + 1),
          CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuFuncSetAttribute(reads, (CUfunction_attribute)ATTR_MAX_DYNAMIC_SHARED, 49152));
    cr_assert_eq(attr(reads, (CUfunction_attribute)ATTR_CONST), 8); /* coef */
    cr_assert_eq(attr(reads, (CUfunction_attribute)ATTR_LOCAL), 0);
    /* .reg .b32 %r<11>; .reg .b64 %rd<5>: 11 + 5 register slots. */
    cr_assert_eq(attr(big, (CUfunction_attribute)ATTR_REGS), 16);
    cr_assert_eq(attr(bounded, (CUfunction_attribute)ATTR_MAX_THREADS), 96); /* .maxntid 96, 1, 1 */
    cr_assert_eq(attr(big, (CUfunction_attribute)ATTR_MAX_THREADS), 1024);   /* the device's */
    int version = attr(big, (CUfunction_attribute)ATTR_PTX_VERSION);
    cr_assert(version >= 80 && version < 200, "PTX version %d", version); /* CUDA 13's .version 9.x */
    cr_assert_eq(attr(big, (CUfunction_attribute)ATTR_BINARY_VERSION), 80); /* the device: 8.0 */
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* 40000 static bytes leave 9152 of the 48 KiB per block for dynamic
 * shared memory: 9152 launches, 9153 is CUDA_ERROR_INVALID_VALUE. */
Test(ptx_module_api, static_and_dynamic_shared_memory_share_the_limit)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUmodule m = load_module_api();
    CUfunction big = sim_test_kernel(m, "big_shared");
    CUdeviceptr out;
    CU_OK(cuMemAlloc_v2(&out, 64 * sizeof(uint32_t)));
    void *args[] = { &out };
    run1(big, 64, 49152 - 40000, args);
    uint32_t got[64];
    CU_OK(cuMemcpyDtoH_v2(got, out, sizeof got));
    for (uint32_t i = 0; i < 64; i++)
        cr_assert_eq(got[i], 63 - i);
    CU_IS(cuLaunchKernel(big, 1, 1, 1, 64, 1, 1, 49152 - 40000 + 1, NULL, args, NULL),
          CUDA_ERROR_INVALID_VALUE);
    /* A kernel without static shared memory has the whole 48 KiB. */
    CUfunction bounded = sim_test_kernel(m, "bounded");
    run1(bounded, 32, 49152, args);
    CU_IS(cuLaunchKernel(bounded, 1, 1, 1, 32, 1, 1, 49153, NULL, args, NULL),
          CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemFree_v2(out));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* ---- pitched copies ---------------------------------------------------------- */

/* A 5x4 window of a 8-wide host matrix of bytes, to (x 2, y 1) of a
 * device matrix with pitch 16, and back into a third layout. */
Test(ptx_module_api, memcpy2d_moves_windows_between_host_and_device)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    unsigned char host[8 * 6];
    for (unsigned i = 0; i < sizeof host; i++)
        host[i] = (unsigned char)(i + 1);
    CUdeviceptr dev;
    CU_OK(cuMemAlloc_v2(&dev, 16 * 6));
    CU_OK(cuMemsetD8_v2(dev, 0, 16 * 6));
    CUDA_MEMCPY2D p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = CU_MEMORYTYPE_HOST;
    p.srcHost = host;
    p.srcXInBytes = 1;
    p.srcY = 2;
    p.srcPitch = 8;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.dstDevice = dev;
    p.dstXInBytes = 2;
    p.dstY = 1;
    p.dstPitch = 16;
    p.WidthInBytes = 5;
    p.Height = 4;
    CU_OK(cuMemcpy2D_v2(&p));
    unsigned char image[16 * 6];
    CU_OK(cuMemcpyDtoH_v2(image, dev, sizeof image));
    for (unsigned y = 0; y < 6; y++)
        for (unsigned x = 0; x < 16; x++) {
            bool inside = y >= 1 && y < 5 && x >= 2 && x < 7;
            unsigned char want = inside ? host[(y - 1 + 2) * 8 + (x - 2 + 1)] : 0;
            cr_assert_eq(image[y * 16 + x], want, "(%u, %u)", x, y);
        }
    /* Back, device to host through the async form on the null stream. */
    unsigned char back[5 * 4];
    memset(back, 0, sizeof back);
    CUDA_MEMCPY2D q;
    memset(&q, 0, sizeof q);
    q.srcMemoryType = CU_MEMORYTYPE_UNIFIED; /* a device address: device memory */
    q.srcDevice = dev;
    q.srcXInBytes = 2;
    q.srcY = 1;
    q.srcPitch = 16;
    q.dstMemoryType = CU_MEMORYTYPE_HOST;
    q.dstHost = back;
    q.dstPitch = 5;
    q.WidthInBytes = 5;
    q.Height = 4;
    CU_OK(cuMemcpy2DAsync_v2(&q, NULL));
    CU_OK(cuCtxSynchronize());
    for (unsigned y = 0; y < 4; y++)
        for (unsigned x = 0; x < 5; x++)
            cr_assert_eq(back[y * 5 + x], host[(y + 2) * 8 + x + 1], "(%u, %u)", x, y);
    CU_OK(cuMemFree_v2(dev));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* The last row's end at the allocation's end copies; one byte further (in
 * X, in Y, or through the width) is CUDA_ERROR_INVALID_VALUE, the async
 * form included, and nothing is written. Widths over a pitch and arrays
 * are refused. */
Test(ptx_module_api, memcpy2d_checks_bounds_and_geometry)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    CUdeviceptr dev;
    CU_OK(cuMemAlloc_v2(&dev, 64)); /* 4 rows of 16 */
    CU_OK(cuMemsetD8_v2(dev, 0, 64));
    unsigned char host[64];
    memset(host, 0xAB, sizeof host);
    CUDA_MEMCPY2D p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = CU_MEMORYTYPE_HOST;
    p.srcHost = host;
    p.srcPitch = 16;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.dstDevice = dev;
    p.dstPitch = 16;
    p.dstXInBytes = 8;
    p.WidthInBytes = 8;
    p.Height = 4; /* last row ends at 3 * 16 + 8 + 8 = 64 */
    CU_OK(cuMemcpy2D_v2(&p));
    CU_OK(cuMemsetD8_v2(dev, 0, 64));
    p.dstXInBytes = 9;
    CU_IS(cuMemcpy2D_v2(&p), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemcpy2DAsync_v2(&p, NULL), CUDA_ERROR_INVALID_VALUE);
    p.dstXInBytes = 8;
    p.dstY = 1;
    CU_IS(cuMemcpy2D_v2(&p), CUDA_ERROR_INVALID_VALUE);
    p.dstY = 0;
    p.WidthInBytes = 17; /* wider than the pitch */
    CU_IS(cuMemcpy2D_v2(&p), CUDA_ERROR_INVALID_VALUE);
    p.WidthInBytes = 8;
    p.dstPitch = SIZE_MAX / 2; /* rows' offsets overflow */
    CU_IS(cuMemcpy2D_v2(&p), CUDA_ERROR_INVALID_VALUE);
    p.dstPitch = 16;
    p.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    CU_IS(cuMemcpy2D_v2(&p), CUDA_ERROR_NOT_SUPPORTED);
    p.dstMemoryType = (CUmemorytype)9;
    CU_IS(cuMemcpy2D_v2(&p), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemcpy2D_v2(NULL), CUDA_ERROR_INVALID_VALUE);
    unsigned char image[64];
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(image, dev, sizeof image));
    for (unsigned i = 0; i < 64; i++)
        cr_assert_eq(image[i], 0, "byte %u written by a refused copy", i);
    /* Zero width or height: nothing to do. */
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.Height = 0;
    CU_OK(cuMemcpy2D_v2(&p));
    CU_OK(cuMemFree_v2(dev));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* A 2x2x2 box out of a 4x3x3 host volume of uint16, device to device and
 * back (the slice stride is srcHeight * pitch); one slice too many is
 * refused. */
Test(ptx_module_api, memcpy3d_copies_a_box)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    enum { W = 4, H = 3, D = 3 };
    uint16_t vol[D][H][W];
    for (unsigned i = 0; i < W * H * D; i++)
        (&vol[0][0][0])[i] = (uint16_t)(1000 + i);
    CUdeviceptr a, b;
    CU_OK(cuMemAlloc_v2(&a, sizeof vol));
    CU_OK(cuMemAlloc_v2(&b, 2 * 2 * 2 * 2));
    CU_OK(cuMemcpyHtoD_v2(a, vol, sizeof vol));
    CUDA_MEMCPY3D p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    p.srcDevice = a;
    p.srcXInBytes = 2 * 2;
    p.srcY = 1;
    p.srcZ = 1;
    p.srcPitch = W * 2;
    p.srcHeight = H;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.dstDevice = b;
    p.dstPitch = 2 * 2;
    p.dstHeight = 2;
    p.WidthInBytes = 2 * 2;
    p.Height = 2;
    p.Depth = 2;
    CU_OK(cuMemcpy3D_v2(&p));
    uint16_t box[2][2][2];
    CU_OK(cuMemcpyDtoH_v2(box, b, sizeof box));
    for (unsigned z = 0; z < 2; z++)
        for (unsigned y = 0; y < 2; y++)
            for (unsigned x = 0; x < 2; x++)
                cr_assert_eq(box[z][y][x], vol[z + 1][y + 1][x + 2], "(%u, %u, %u)", x, y, z);
    p.srcZ = 2; /* the box's second slice would be slice 3 of 3 */
    CU_IS(cuMemcpy3D_v2(&p), CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuMemcpy3DAsync_v2(&p, NULL), CUDA_ERROR_INVALID_VALUE);
    p.srcZ = 1;
    p.reserved0 = &p;
    CU_IS(cuMemcpy3D_v2(&p), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemFree_v2(a));
    CU_OK(cuMemFree_v2(b));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* ---- cuModuleLoadFatBinary ----------------------------------------------------- */

Test(ptx_module_api, load_fat_binary_runs_the_ptx_inside)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    size_t size;
    char *image = read_file(GG_PTX_FIXTURE_DIR "/fatbin/ptx75_zstd.fatbin", &size);
    CUmodule m;
    CU_OK(cuModuleLoadFatBinary(&m, image));
    CUfunction f = sim_test_kernel(m, "scale");
    float x[4] = { 1, 2, 3, 4 }, a = 2.5f;
    int n = 4;
    CUdeviceptr d;
    CU_OK(cuMemAlloc_v2(&d, sizeof x));
    CU_OK(cuMemcpyHtoD_v2(d, x, sizeof x));
    void *args[] = { &d, &a, &n };
    run1(f, 32, 0, args);
    CU_OK(cuMemcpyDtoH_v2(x, d, sizeof x));
    for (int i = 0; i < 4; i++)
        cr_assert_eq(x[i], 2.5f * (float)(i + 1));
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuModuleUnload(m));
    free(image);
    image = read_file(GG_PTX_FIXTURE_DIR "/fatbin/sass75.cubin", &size);
    CU_IS(cuModuleLoadFatBinary(&m, image), CUDA_ERROR_NO_BINARY_FOR_GPU);
    free(image);
    CU_IS(cuModuleLoadFatBinary(&m, NULL), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* ---- declarations the layouts come from ---------------------------------------- */

/* A kernel k(params) with an optional directive. */
static CUresult load_decl(const char *params, const char *directive, CUmodule *m)
{
    char src[512];
    snprintf(src, sizeof src,
             ".version 7.5\n.target sm_75\n.address_size 64\n"
             ".visible .entry k(%s)\n%s\n{\n\tret;\n}\n",
             params, directive);
    return cuModuleLoadData(m, src);
}

static size_t offset_of(const char *params, size_t index)
{
    CUmodule m;
    CU_OK(load_decl(params, "", &m));
    size_t off = 0;
    CU_OK(cuFuncGetParamInfo(sim_test_kernel(m, "k"), index, &off, NULL));
    CU_OK(cuModuleUnload(m));
    return off;
}

/* .param .align takes a power of two up to 4096; a parameter's alignment
 * moves it, not the one after it. 8192, 0, 3 and -4 are refused with their
 * line. */
Test(ptx_module_api, param_alignment_bounds)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    cr_assert_eq(offset_of(".param .u8 a, .param .align 4096 .b8 p[2]", 1), 4096);
    cr_assert_eq(offset_of(".param .align 16 .b8 p[3], .param .u8 q", 1), 3);
    cr_assert_eq(offset_of(".param .u8 a, .param .b8 p[4]", 1), 1); /* .b8: 1 */
    cr_assert_eq(offset_of(".param .u8 a, .param .u16 p[2]", 1), 2);
    cr_assert_eq(offset_of(".param .u8 a, .param .f64 d", 1), 8);
    static const char *const bad[] = { ".param .align 8192 .b8 p[1]", ".param .align 0 .b8 p[1]",
                                       ".param .align 3 .b8 p[1]", ".param .align -4 .b8 p[1]" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CUmodule m;
        CU_IS(load_decl(bad[i], "", &m), CUDA_ERROR_INVALID_IMAGE);
        cr_assert(strstr(gg_sim_last_error_detail(), "PTX line 4: parameter alignment") != NULL,
                  "%s: %s", bad[i], gg_sim_last_error_detail());
    }
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* .maxntid / .reqntid give MAX_THREADS_PER_BLOCK (their product, at most
 * the device's 1024); a count of 0 is refused. */
Test(ptx_module_api, thread_limit_directives)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    static const struct {
        const char *directive;
        int want;
    } cases[] = { { ".maxntid 8, 4, 2", 64 }, { ".reqntid 1023", 1023 }, { ".maxntid 1025", 1024 },
                  { ".maxntid 32, 32, 2", 1024 }, { ".minnctapersm 4", 1024 },
                  { ".maxntid 1048576, 1048576, 1048576, 1048576", 1024 } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CUmodule m;
        CU_OK(load_decl(".param .u32 p", cases[i].directive, &m));
        int v = -1;
        CU_OK(cuFuncGetAttribute(&v, (CUfunction_attribute)ATTR_MAX_THREADS, sim_test_kernel(m, "k")));
        cr_assert_eq(v, cases[i].want, "%s: %d", cases[i].directive, v);
        CU_OK(cuModuleUnload(m));
    }
    CUmodule m;
    CU_IS(load_decl(".param .u32 p", ".maxntid 0", &m), CUDA_ERROR_INVALID_IMAGE);
    CU_IS(load_decl(".param .u32 p", ".maxntid 1048577", &m), CUDA_ERROR_INVALID_IMAGE);
    cr_assert(strstr(gg_sim_last_error_detail(), "PTX line 5: directive value out of range") != NULL,
              "%s", gg_sim_last_error_detail());
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* Page-locked host memory (cuMemAllocHost) as either side of a 2D copy. */
Test(ptx_module_api, memcpy2d_with_page_locked_host_memory)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    uint32_t *pinned;
    CU_OK(cuMemAllocHost_v2((void **)&pinned, 16 * sizeof(uint32_t)));
    for (uint32_t i = 0; i < 16; i++)
        pinned[i] = i * 3;
    CUdeviceptr dev;
    CU_OK(cuMemAlloc_v2(&dev, 4 * sizeof(uint32_t)));
    CUDA_MEMCPY2D p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = CU_MEMORYTYPE_HOST; /* column 1 of a 4x4 matrix */
    p.srcHost = pinned;
    p.srcXInBytes = 4;
    p.srcPitch = 16;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.dstDevice = dev;
    p.dstPitch = 4;
    p.WidthInBytes = 4;
    p.Height = 4;
    CU_OK(cuMemcpy2DAsync_v2(&p, NULL));
    CU_OK(cuCtxSynchronize());
    uint32_t col[4];
    CU_OK(cuMemcpyDtoH_v2(col, dev, sizeof col));
    for (uint32_t i = 0; i < 4; i++)
        cr_assert_eq(col[i], (4 * i + 1) * 3);
    /* And back into column 3. */
    CUDA_MEMCPY2D q;
    memset(&q, 0, sizeof q);
    q.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    q.srcDevice = dev;
    q.srcPitch = 4;
    q.dstMemoryType = CU_MEMORYTYPE_HOST;
    q.dstHost = pinned;
    q.dstXInBytes = 12;
    q.dstPitch = 16;
    q.WidthInBytes = 4;
    q.Height = 4;
    CU_OK(cuMemcpy2D_v2(&q));
    for (uint32_t i = 0; i < 4; i++)
        cr_assert_eq(pinned[4 * i + 3], (4 * i + 1) * 3);
    CU_OK(cuMemFree_v2(dev));
    CU_OK(cuMemFreeHost(pinned));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* ---- the JIT linker ------------------------------------------------------------- */

/* Two PTX inputs (one from memory, one from a file) and a fatbin's PTX
 * linked into one image that cuModuleLoadData loads with every kernel;
 * the info log says so and its size slot gets the bytes written. */
Test(ptx_module_api, link_ptx_inputs_into_one_module)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    char info[256] = "", error[256] = "";
    CUjit_option opts[] = { CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_WALL_TIME };
    void *vals[] = { info, (void *)(uintptr_t)sizeof info, error, (void *)(uintptr_t)sizeof error,
                     NULL };
    CUlinkState link;
    CU_OK(cuLinkCreate_v2(5, opts, vals, &link));
    size_t size;
    char *vadd = read_file(GG_PTX_FIXTURE_DIR "/vector_add.ptx", &size);
    CU_OK(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, vadd, size + 1, "vector_add.ptx", 0, NULL, NULL));
    free(vadd);
    CU_OK(cuLinkAddFile_v2(link, CU_JIT_INPUT_PTX, GG_PTX_FIXTURE_DIR "/module_api.ptx", 0, NULL, NULL));
    char *fat = read_file(GG_PTX_FIXTURE_DIR "/fatbin/ptx75_none.fatbin", &size);
    CU_OK(cuLinkAddData_v2(link, CU_JIT_INPUT_FATBINARY, fat, size, "scale", 0, NULL, NULL));
    free(fat);
    void *image = NULL;
    size_t image_size = 0;
    CU_OK(cuLinkComplete(link, &image, &image_size));
    cr_assert_not_null(image);
    cr_assert_eq(image_size, strlen(image) + 1);
    cr_assert(strstr(info, "linked") != NULL, "info log: %s", info);
    cr_assert_eq((size_t)(uintptr_t)vals[1], strlen(info) + 1);
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, image));
    CU_OK(cuLinkDestroy(link));
    cr_assert_not_null(sim_test_kernel(m, "vector_add"));
    cr_assert_not_null(sim_test_kernel(m, "read_globals"));
    cr_assert_not_null(sim_test_kernel(m, "scale"));
    CUdeviceptr coef;
    CU_OK(cuModuleGetGlobal_v2(&coef, NULL, m, "coef"));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* Refusals: bad PTX (its line in the error log), machine code, an unknown
 * input type, a missing file, nothing to link. */
Test(ptx_module_api, link_refusals)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    char error[256] = "";
    CUjit_option opts[] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *vals[] = { error, (void *)(uintptr_t)sizeof error };
    CUlinkState link;
    CU_OK(cuLinkCreate_v2(2, opts, vals, &link));
    void *image;
    CU_IS(cuLinkComplete(link, &image, NULL), CUDA_ERROR_INVALID_VALUE);
    static char bad[] = ".version 7.5\n.target sm_75\n.address_size 64\n"
                        ".visible .entry k()\n{\n\tfrobnicate.b32 %r1;\n}\n";
    CU_IS(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, bad, sizeof bad, "bad.ptx", 0, NULL, NULL),
          CUDA_ERROR_INVALID_IMAGE);
    cr_assert(strstr(error, "bad.ptx: PTX line 6") != NULL, "error log: %s", error);
    cr_assert_eq((size_t)(uintptr_t)vals[1], strlen(error) + 1);
    CU_IS(cuLinkAddData_v2(link, CU_JIT_INPUT_LIBRARY, bad, sizeof bad, "libcudadevrt.a", 0, NULL, NULL),
          CUDA_ERROR_NOT_SUPPORTED);
    CU_IS(cuLinkAddData_v2(link, (CUjitInputType)6, bad, sizeof bad, "x", 0, NULL, NULL),
          CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, NULL, 10, "x", 0, NULL, NULL),
          CUDA_ERROR_INVALID_VALUE);
    CU_IS(cuLinkAddFile_v2(link, CU_JIT_INPUT_PTX, "/nonexistent/x.ptx", 0, NULL, NULL),
          CUDA_ERROR_FILE_NOT_FOUND);
    /* The same kernel twice: each input loads, their union does not. */
    size_t size;
    char *vadd = read_file(GG_PTX_FIXTURE_DIR "/vector_add.ptx", &size);
    CU_OK(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, vadd, size, "a.ptx", 0, NULL, NULL));
    CU_OK(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, vadd, size, "b.ptx", 0, NULL, NULL));
    free(vadd);
    CU_IS(cuLinkComplete(link, &image, NULL), CUDA_ERROR_INVALID_IMAGE);
    cr_assert(strstr(error, "\"vector_add\" is defined twice") != NULL, "error log: %s", error);
    CU_IS(cuLinkComplete(NULL, &image, NULL), CUDA_ERROR_INVALID_HANDLE);
    CU_IS(cuLinkDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
    CU_OK(cuLinkDestroy(link));
    CUjit_option unknown = (CUjit_option)CU_JIT_NUM_OPTIONS;
    void *v = NULL;
    CU_IS(cuLinkCreate_v2(1, &unknown, &v, &link), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* cuModuleLoadDataEx's logs on PTX: the refusal's "PTX line N" in the
 * error log, the info log on success, each size slot set to the bytes
 * written (NUL included), a short buffer truncated to its size. */
Test(ptx_module_api, load_data_ex_logs_and_their_sizes)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(0);
    char info[128], error[8];
    memset(info, 'x', sizeof info);
    memset(error, 'x', sizeof error);
    CUjit_option opts[] = { CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *vals[] = { info, (void *)(uintptr_t)sizeof info, error, (void *)(uintptr_t)sizeof error };
    CUmodule m;
    CU_IS(cuModuleLoadDataEx(&m, ".version 7.5\n.target sm_75\n.address_size 64\n"
                                  ".visible .entry k()\n{\n\tfrobnicate;\n}\n",
                             4, opts, vals),
          CUDA_ERROR_INVALID_IMAGE);
    cr_assert_str_eq(error, "PTX lin"); /* 8 bytes: 7 and the NUL */
    cr_assert_eq((size_t)(uintptr_t)vals[3], 8);
    cr_assert_str_eq(info, "");
    cr_assert_eq((size_t)(uintptr_t)vals[1], 1);
    vals[1] = (void *)(uintptr_t)sizeof info;
    vals[3] = (void *)(uintptr_t)sizeof error;
    char *src = read_file(GG_PTX_FIXTURE_DIR "/module_api.ptx", NULL);
    CU_OK(cuModuleLoadDataEx(&m, src, 4, opts, vals));
    free(src);
    cr_assert(strstr(info, "module loaded") != NULL, "%s", info);
    cr_assert_eq((size_t)(uintptr_t)vals[1], strlen(info) + 1);
    cr_assert_str_eq(error, "");
    cr_assert_eq((size_t)(uintptr_t)vals[3], 1);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}

/* numba links each device function as an input of its own: the kernel's
 * input declares `twice` .extern and calls it, a later input (a library:
 * no .entry) defines it. Each input passes its cuLinkAddData, the linked
 * module runs the call; a call that no input defines is refused at
 * cuLinkComplete, naming the function. */
Test(ptx_module_api, a_call_into_another_input_is_linked)
{
    sim_test_init(NULL);
    CUcontext c = sim_test_ctx(1);
    static const char kernel[] =
        ".version 7.0\n.target sm_75\n.address_size 64\n"
        ".extern .func (.param .b32 r) twice(.param .b32 x);\n"
        ".visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n"
        "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, 21;\n"
        "\t{\n\t.param .b32 a;\n\t.param .b32 ret;\n\tst.param.b32 [a], %r1;\n"
        "\tcall.uni (ret), twice, (a);\n\tld.param.b32 %r2, [ret];\n\t}\n"
        "\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n";
    static const char library[] =
        ".version 7.0\n.target sm_75\n.address_size 64\n"
        ".visible .func (.param .b32 r) twice(.param .b32 x)\n{\n\t.reg .b32 %r<3>;\n"
        "\tld.param.b32 %r1, [x];\n\tadd.s32 %r2, %r1, %r1;\n\tst.param.b32 [r], %r2;\n\tret;\n}\n";
    char error[512] = "";
    CUjit_option opts[] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *vals[] = { error, (void *)(uintptr_t)sizeof error };
    CUlinkState link;
    CU_OK(cuLinkCreate_v2(2, opts, vals, &link));
    CU_OK(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, (void *)kernel, sizeof kernel, "kernel.ptx", 0, NULL, NULL));
    CU_OK(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, (void *)library, sizeof library, "twice.ptx", 0, NULL, NULL));
    void *image = NULL;
    CU_OK(cuLinkComplete(link, &image, NULL));
    CUmodule m;
    CU_OK(cuModuleLoadData(&m, image));
    CU_OK(cuLinkDestroy(link));
    CUdeviceptr out;
    CU_OK(cuMemAlloc_v2(&out, 4));
    void *args[] = { &out };
    CU_OK(cuLaunchKernel(sim_test_kernel(m, "k"), 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    uint32_t got = 0;
    CU_OK(cuMemcpyDtoH_v2(&got, out, 4));
    cr_assert_eq(got, 42u);
    CU_OK(cuMemFree_v2(out));
    CU_OK(cuModuleUnload(m));
    /* The kernel alone: its input passes, the link cannot resolve the call. */
    CU_OK(cuLinkCreate_v2(2, opts, vals, &link));
    CU_OK(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, (void *)kernel, sizeof kernel, "kernel.ptx", 0, NULL, NULL));
    CU_IS(cuLinkComplete(link, &image, NULL), CUDA_ERROR_INVALID_IMAGE);
    cr_assert(strstr(error, "call to twice, which has no body") != NULL, "error log: %s", error);
    CU_OK(cuLinkDestroy(link));
    /* A module of its own still needs an .entry and resolved calls. */
    CU_IS(cuModuleLoadData(&m, library), CUDA_ERROR_INVALID_IMAGE);
    CU_IS(cuModuleLoadData(&m, kernel), CUDA_ERROR_INVALID_IMAGE);
    CU_OK(cuCtxDestroy_v2(c));
    sim_test_assert_no_leaks();
}
