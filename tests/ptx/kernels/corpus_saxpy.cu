// saxpy, the first kernel of every CUDA tutorial: y = a*x + y over a grid of
// blocks with a partial last block. nvcc contracts a*x + y into fma.rn.f32.
extern "C" __global__ void corpus_saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
