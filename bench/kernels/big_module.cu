// A large PTX module for bench_ptx_interp --load (issue 27: module load
// time; PyCUDA's largest module is about 1.2 MB of PTX). Many kernels the
// way generated code has them: elementwise kernels over several types and
// expressions (PyCUDA's ElementwiseKernel), shared-memory reductions
// unrolled per block size (ReductionKernel), and unrolled float math
// (polynomials, sqrt, division, conversions). bench/gen-big-ptx.sh
// compiles it with nvcc -ptx -arch=compute_75.

#define ELEMENTWISE(name, T, expr)                                                    \
    extern "C" __global__ void name(T *z, const T *x, const T *y, T a, T b, unsigned n) \
    {                                                                                 \
        unsigned stride = blockDim.x * gridDim.x;                                     \
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) { \
            T xi = x[i], yi = y[i];                                                   \
            (void)yi; /* some expressions take x only */                              \
            z[i] = (expr);                                                            \
        }                                                                             \
    }

#define ELEMENTWISE_SET(T, suffix)                                                   \
    ELEMENTWISE(axpbyz_##suffix, T, a * xi + b * yi)                                 \
    ELEMENTWISE(axpbz_##suffix, T, a * xi + b)                                       \
    ELEMENTWISE(mul_##suffix, T, xi * yi)                                            \
    ELEMENTWISE(div_##suffix, T, xi / (yi + b))                                      \
    ELEMENTWISE(max_##suffix, T, xi > yi ? xi : yi)                                  \
    ELEMENTWISE(min_##suffix, T, xi < yi ? xi : yi)                                  \
    ELEMENTWISE(clip_##suffix, T, xi < a ? a : xi > b ? b : xi)                      \
    ELEMENTWISE(poly_##suffix, T, ((a * xi + b) * xi + yi) * xi + a)                 \
    ELEMENTWISE(sq_##suffix, T, (xi - yi) * (xi - yi))                               \
    ELEMENTWISE(lerp_##suffix, T, xi + a * (yi - xi))

ELEMENTWISE_SET(float, f32)
ELEMENTWISE_SET(double, f64)
ELEMENTWISE_SET(int, s32)
ELEMENTWISE_SET(unsigned, u32)
ELEMENTWISE_SET(long long, s64)
ELEMENTWISE_SET(unsigned long long, u64)

// Reductions: shared-memory trees, one kernel per block size, type and
// operation, the last warp unrolled (warp-synchronous with volatile).
template <typename T, unsigned BLOCK, int OP>
__device__ void reduce_body(const T *in, T *out, unsigned n)
{
    __shared__ T part[BLOCK];
    unsigned t = threadIdx.x;
    T acc = OP == 2 ? in[0] : T(0);
    for (unsigned i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) {
        T v = in[i];
        acc = OP == 0 ? acc + v : OP == 1 ? acc + v * v : (v > acc ? v : acc);
    }
    part[t] = acc;
    __syncthreads();
#pragma unroll
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (t < s)
            part[t] = OP == 2 ? (part[t + s] > part[t] ? part[t + s] : part[t]) : part[t] + part[t + s];
        __syncthreads();
    }
    if (t < 32) {
        volatile T *p = part;
#pragma unroll
        for (unsigned s = 32; s > 0; s >>= 1)
            if (BLOCK > s)
                p[t] = OP == 2 ? (p[t + s] > p[t] ? p[t + s] : p[t]) : p[t] + p[t + s];
    }
    if (t == 0)
        out[blockIdx.x] = part[0];
}

#define REDUCE(T, suffix, BLOCK, OP, opname)                                          \
    extern "C" __global__ void reduce_##opname##_##suffix##_##BLOCK(const T *in, T *out, unsigned n) \
    {                                                                                 \
        reduce_body<T, BLOCK, OP>(in, out, n);                                        \
    }
#define REDUCE_BLOCKS(T, suffix, OP, opname)                                          \
    REDUCE(T, suffix, 64, OP, opname) REDUCE(T, suffix, 128, OP, opname)               \
    REDUCE(T, suffix, 256, OP, opname) REDUCE(T, suffix, 512, OP, opname)              \
    REDUCE(T, suffix, 1024, OP, opname)
#define REDUCE_OPS(T, suffix)                                                         \
    REDUCE_BLOCKS(T, suffix, 0, sum) REDUCE_BLOCKS(T, suffix, 1, sumsq) REDUCE_BLOCKS(T, suffix, 2, max)

REDUCE_OPS(float, f32)
REDUCE_OPS(double, f64)
REDUCE_OPS(int, s32)
REDUCE_OPS(unsigned, u32)
REDUCE_OPS(long long, s64)
REDUCE_OPS(unsigned long long, u64)

// Unrolled float math: a polynomial and a rational step per round, fully
// unrolled, the bulk of generated numerical code.
template <typename T, int ROUNDS>
__device__ T unrolled_math(T x, T c)
{
#pragma unroll
    for (int r = 0; r < ROUNDS; r++) {
        T p = ((T(0.5) * x + T(0.25)) * x + c) * x + T(r);
        x = p / (T(1) + x * x) + sqrt(p * p + T(1));
    }
    return x;
}

#define MATH(T, suffix, ROUNDS)                                                       \
    extern "C" __global__ void math_##suffix##_##ROUNDS(T *z, const T *x, T c, unsigned n) \
    {                                                                                 \
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;                           \
        if (i < n)                                                                    \
            z[i] = unrolled_math<T, ROUNDS>(x[i], c);                                 \
    }

MATH(float, f32, 16) MATH(float, f32, 32) MATH(float, f32, 64) MATH(float, f32, 128)
MATH(float, f32, 256) MATH(float, f32, 384) MATH(float, f32, 512)
MATH(double, f64, 16) MATH(double, f64, 32) MATH(double, f64, 64) MATH(double, f64, 128)
MATH(double, f64, 256) MATH(double, f64, 512)
