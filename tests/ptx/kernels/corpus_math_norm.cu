// Vector norms and normalisation as users write them: each thread owns one
// 3-vector (float, structure of arrays) and computes its length with sqrtf,
// the unit vector with rsqrtf, and the double-precision length with sqrt.
extern "C" __global__ void corpus_math_norm(const float *x, const float *y, const float *z, float *len,
                                            float *ux, float *uy, float *uz, const double *dx, double *dlen, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = x[i], b = y[i], c = z[i];
    float sq = a * a + b * b + c * c;
    len[i] = sqrtf(sq);
    float inv = rsqrtf(sq);
    ux[i] = a * inv;
    uy[i] = b * inv;
    uz[i] = c * inv;
    dlen[i] = sqrt(dx[i]);
}

// The functions alone over any inputs (edges included).
extern "C" __global__ void corpus_math_roots(const float *x, float *s, float *r, const double *d, double *ds, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        s[i] = sqrtf(x[i]);
        r[i] = rsqrtf(x[i]);
        ds[i] = sqrt(d[i]);
    }
}
