// Atomics of every operation on global and shared memory, each from many
// threads at once, so that the host can check the final values (and, where
// the order does not matter, the set of values the threads got back).

// Integer operations on global words: out[0..] as the host lays them out.
extern "C" __global__ void atomic_ints(const int *v, int *g, unsigned *old_inc, unsigned bound)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = v[i];
    atomicMax(&g[0], x);
    atomicMin(&g[1], x);
    atomicMax((unsigned *)&g[2], (unsigned)x);
    atomicMin((unsigned *)&g[3], (unsigned)x);
    atomicAnd(&g[4], x | 0x0f0f0f0f);
    atomicOr(&g[5], 1 << (i % 32));
    atomicXor(&g[6], x);
    atomicAdd(&g[7], x);
    old_inc[i] = atomicInc((unsigned *)&g[8], bound);
    atomicDec((unsigned *)&g[9], bound);
    atomicExch(&g[10], (int)i);
    atomicSub(&g[11], x);
}

// 64-bit integer operations and a double sum.
extern "C" __global__ void atomic_wide(const long long *v, unsigned long long *g, double *sum,
                                       const double *dv)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    long long x = v[i];
    atomicMax((long long *)&g[0], x);
    atomicMin((long long *)&g[1], x);
    atomicMax(&g[2], (unsigned long long)x);
    atomicMin(&g[3], (unsigned long long)x);
    atomicAnd(&g[4], (unsigned long long)x | 0x0f0f0f0f0f0f0f0full);
    atomicOr(&g[5], 1ull << (i % 64));
    atomicXor(&g[6], (unsigned long long)x);
    atomicAdd(&g[7], (unsigned long long)x);
    atomicExch(&g[8], (unsigned long long)i);
    atomicAdd(sum, dv[i]);
}

// A lock-free float maximum through an atomicCAS loop, and a 64-bit CAS
// counter, plus a float sum and exchange.
extern "C" __global__ void atomic_cas(const float *v, int *fmax_bits, unsigned long long *counter,
                                      float *fsum, float *fx)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = v[i];
    int cur = *(volatile int *)fmax_bits;
    while (__int_as_float(cur) < x) {
        int seen = atomicCAS(fmax_bits, cur, __float_as_int(x));
        if (seen == cur)
            break;
        cur = seen;
    }
    unsigned long long c = *(volatile unsigned long long *)counter, seen;
    while ((seen = atomicCAS(counter, c, c + 1)) != c)
        c = seen;
    atomicAdd(fsum, x);
    atomicExch(fx, x);
}

// The same operations on shared memory, then copied out.
extern "C" __global__ void atomic_shared(const int *v, int *out, unsigned bound)
{
    __shared__ int s[8];
    __shared__ unsigned long long w[2];
    unsigned t = threadIdx.x;
    if (t < 8)
        s[t] = t == 1 ? 0x7fffffff : t == 3 ? -1 : 0;
    if (t < 2)
        w[t] = 0;
    __syncthreads();
    int x = v[t];
    atomicMax(&s[0], x);
    atomicMin(&s[1], x);
    atomicAdd(&s[2], x);
    atomicAnd(&s[3], x | 0x00ff00ff);
    atomicInc((unsigned *)&s[4], bound);
    atomicDec((unsigned *)&s[5], bound);
    int old = atomicCAS(&s[6], (int)t, (int)t + 1);
    (void)old;
    atomicExch(&s[7], x);
    atomicAdd(&w[0], (unsigned long long)(long long)x);
    atomicCAS(&w[1], (unsigned long long)t, (unsigned long long)t + 1);
    __syncthreads();
    if (t < 8)
        out[t] = s[t];
    if (t < 2) {
        out[8 + 2 * t] = (int)(unsigned)w[t];
        out[9 + 2 * t] = (int)(unsigned)(w[t] >> 32);
    }
}

// An atomic at an address the kernel is given, for alignment checks.
extern "C" __global__ void atomic_at(char *base, long long offset)
{
    atomicAdd((unsigned *)(base + offset), 1u);
}
