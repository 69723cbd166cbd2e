// Kernels for the module API tests (test_ptx_module_api.c): module
// variables the host reaches with cuModuleGetGlobal, parameters whose
// declared alignment is not their size's, and static shared memory.
#include <cuComplex.h>

__constant__ unsigned coef[2] = { 7, 9 };
__device__ unsigned long long counter = 5;

// Reads both variables, then bumps the counter (one thread).
extern "C" __global__ void read_globals(unsigned long long *out)
{
    out[0] = coef[0];
    out[1] = coef[1];
    out[2] = counter;
    counter = counter + 1;
}

// Reads through a pointer the host got from cuModuleGetGlobal.
extern "C" __global__ void read_through(const unsigned *p, unsigned *out)
{
    out[0] = p[0] + p[1];
}

// PyCUDA's complex<double> is aligned to 8, like cuDoubleComplex: the
// parameters after it sit where a C struct puts them, not at multiples of 16.
struct __align__(8) cplx { double re, im; };

extern "C" __global__ void axpb(cplx a, const cplx *x, cplx b, cplx *y, char tag, long long n)
{
    for (long long i = 0; i < n; i++) {
        y[i].re = a.re * x[i].re - a.im * x[i].im + b.re + tag;
        y[i].im = a.re * x[i].im + a.im * x[i].re + b.im;
    }
}

// 16-byte aligned parameter after a 4-byte one.
extern "C" __global__ void aligned16(int k, double2 v, double *out)
{
    out[0] = v.x * k;
    out[1] = v.y * k;
}

// 40000 bytes of static shared memory.
extern "C" __global__ void big_shared(unsigned *out)
{
    __shared__ unsigned buf[10000];
    buf[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}

// Declares its block size limit.
extern "C" __global__ void __launch_bounds__(96) bounded(int *out)
{
    out[threadIdx.x] = threadIdx.x;
}
