// The fast intrinsics that users pick for speed: __expf, __logf, __sinf,
// __cosf, __fdividef and __saturatef (ex2/lg2/sin/cos .approx underneath).
extern "C" __global__ void corpus_math_fast(const float *x, const float *y, float *e, float *l, float *s, float *c,
                                            float *q, float *sat, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    e[i] = __expf(v);
    l[i] = __logf(v);
    s[i] = __sinf(v);
    c[i] = __cosf(v);
    q[i] = __fdividef(v, y[i]);
    sat[i] = __saturatef(v);
}
