// ALU-bound single-precision kernel for bench/ptx_interp.c: a polynomial
// iterated `rounds` times per thread (fma, mul, add, compare and select),
// the shape of fp32 filter and physics code.
extern "C" __global__ void alu_f32(float *out, unsigned rounds)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = (float)i * 0.001f, acc = 0.0f;
    for (unsigned r = 0; r < rounds; r++) {
        x = fmaf(x, 0.999f, 0.001f);
        float y = x * x - 0.25f;
        acc += y > 0.0f ? y : -y;
    }
    out[i] = acc;
}
