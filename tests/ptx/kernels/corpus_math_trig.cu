// Single-precision trigonometry as users call it: sinf, cosf, sincosf and
// tanf. Arguments beyond about 105615 take the library's slow path of
// argument reduction (Payne-Hanek with a per-thread local array).
extern "C" __global__ void corpus_math_trig(const float *x, float *s, float *c, float *ss, float *cc, float *t,
                                            int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    s[i] = sinf(v);
    c[i] = cosf(v);
    sincosf(v, &ss[i], &cc[i]);
    t[i] = tanf(v);
}
