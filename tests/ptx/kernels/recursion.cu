// Recursive device functions: nvcc keeps them as real .func bodies that
// call themselves (the interpreter runs them with per-lane call frames,
// ptx_inline.h). Factorial and Fibonacci recurse directly, is_even/is_odd
// mutually, digits_sum keeps a local array in every frame and reads it
// after its recursive call returns, and depth() recurses as deep as asked
// (for the stack bound). Each lane recurses to its own depth.
// In double: nvcc turns an integer n * factorial(n - 1) into a loop (the
// product is associative), a float product it must keep in order.
__device__ __noinline__ double factorial(unsigned n)
{
    return n <= 1 ? 1.0 : (double)n * factorial(n - 1);
}

__device__ __noinline__ int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ bool is_odd(unsigned n);

__device__ __noinline__ bool is_even(unsigned n)
{
    return n == 0 ? true : is_odd(n - 1);
}

__device__ __noinline__ bool is_odd(unsigned n)
{
    return n == 0 ? false : is_even(n - 1);
}

// Each frame fills a local array from n, recurses, then reads its own
// array again: frames must not share it.
__device__ __noinline__ int frame_array(int n, volatile int *probe)
{
    int a[6];
    for (int i = 0; i < 6; i++)
        a[i] = n * 10 + i;
    probe[0] = a[n % 6];
    int below = n > 0 ? frame_array(n - 1, probe) : 0;
    int s = 0;
    for (int i = 0; i < 6; i++)
        s += a[(i + n) % 6] * (i + 1);
    return s + below;
}

// A pointer to the caller's frame passed down: the callee writes into its
// caller's array (each activation's .local must stay addressable).
__device__ __noinline__ void fill_down(int *slot, int n)
{
    int mine = 0;
    if (n > 0)
        fill_down(&mine, n - 1);
    *slot = mine + n;
}

// Not a tail call (nvcc turns `1 + depth(n - 1)` into a loop): a volatile
// local outlives the call, so each activation keeps a frame.
__device__ __noinline__ int depth(int n)
{
    if (n == 0)
        return 0;
    volatile int keep = n;
    int below = depth(n - 1);
    return below + (keep == n ? 1 : 100);
}

extern "C" __global__ void recursion(const int *in, double *fact, int *fibs, int *parity,
                                     int *arrays, int *filled, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    fact[i] = factorial((unsigned)v);
    fibs[i] = fib(v);
    parity[i] = is_even((unsigned)(v * 3 + i % 8)) ? 1 : 0;
    volatile int probe[1];
    arrays[i] = frame_array(v, probe);
    int f = 0;
    fill_down(&f, v);
    filled[i] = f;
}

extern "C" __global__ void recursion_depth(int *out, int n)
{
    out[threadIdx.x] = depth(n);
}

// Not recursive itself (so inlined) but calling a recursive function.
__device__ __noinline__ int twice_fib(int n)
{
    return 2 * fib(n) + 1;
}

// After lanes of a warp return from recursions of different depths, a
// warp-wide shuffle reduction needs every lane back: on a GPU they
// reconverge at the call's return point.
extern "C" __global__ void recursion_warp_sum(const int *in, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int s = twice_fib(in[i]);
    for (int offset = 16; offset > 0; offset >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, offset);
    if ((threadIdx.x & 31) == 0)
        out[i / 32] = s;
}
