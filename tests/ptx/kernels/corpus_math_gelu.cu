// GELU activations as deep-learning code writes them: the tanh
// approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) and the
// exact form 0.5 x (1 + erf(x / sqrt 2)), plus tanhf and erff alone.
extern "C" __global__ void corpus_math_gelu(const float *x, float *gelu_tanh, float *gelu_erf, float *t,
                                            float *e, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float inner = 0.7978845608f * (v + 0.044715f * v * v * v);
    gelu_tanh[i] = 0.5f * v * (1.0f + tanhf(inner));
    gelu_erf[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
    t[i] = tanhf(v);
    e[i] = erff(v);
}
