// Device functions that nvcc keeps as real .func bodies (__noinline__):
// scalar and double returns, a struct returned and passed by value, a
// void function writing through a pointer, a local array inside a
// callee, nested calls, lanes calling from different call sites and
// diverging inside a callee.
struct pair { double sum; int count; int tag; };

__device__ __noinline__ int collatz_steps(int v)
{
    int steps = 0;
    while (v > 1 && steps < 200) {
        if (v & 1)
            v = 3 * v + 1;
        else
            v >>= 1;
        steps++;
    }
    return steps;
}

__device__ __noinline__ double scale(double x, int k)
{
    double r = x;
    for (int i = 0; i < (k & 7); i++)
        r = r * 1.5 - 0.25;
    return r;
}

__device__ __noinline__ pair make_pair(pair in, int v)
{
    pair p;
    p.sum = in.sum + scale((double)v, v);
    p.count = in.count + collatz_steps(v);
    p.tag = in.tag ^ v;
    return p;
}

__device__ __noinline__ int local_table(int v)
{
    int t[8];
    for (int i = 0; i < 8; i++)
        t[i] = v * (i + 1) + i;
    return t[(unsigned)v % 8u] - t[((unsigned)v >> 3) % 8u];
}

__device__ __noinline__ void store_twice(int *out, int i, int v)
{
    out[2 * i] = v;
    out[2 * i + 1] = -v;
}

extern "C" __global__ void calls(const int *in, int *out_int, double *out_dbl, int *out_pair, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int a;
    if (i & 1)
        a = collatz_steps(v);        // odd lanes call from here
    else
        a = collatz_steps(v + 7) + 1; // even lanes from another call site
    out_int[i] = a + local_table(v);
    out_dbl[i] = scale((double)v * 0.5, v);
    pair p = { 0.25, i, 3 };
    p = make_pair(p, v);
    out_pair[3 * i] = p.count;
    out_pair[3 * i + 1] = p.tag;
    out_pair[3 * i + 2] = (int)(p.sum * 4.0);
    store_twice(out_int + n, i, v ^ 0x55);
}
