// Vectorised element-wise work: scales and offsets float4s (ld/st.v4.f32,
// fma), and turns RGBA pixels packed in 32-bit words (R in the low byte)
// into 8-bit grey with the integer weights 77/150/29 (sum 256) and a
// rounding shift. The pixels are read as words and split with shifts: read
// as uchar4, nvcc combines the bytes with prmt.b32, which the interpreter
// does not run yet.
extern "C" __global__ void corpus_vec4(const float4 *in, float4 *out, float scale, float offset,
                                       const unsigned int *rgba, unsigned char *grey, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 v = in[i];
    out[i] = make_float4(v.x * scale + offset, v.y * scale + offset, v.z * scale + offset, v.w * scale + offset);
    unsigned int p = rgba[i];
    unsigned int r = p & 0xffu, g = (p >> 8) & 0xffu, b = (p >> 16) & 0xffu;
    grey[i] = (unsigned char)((77u * r + 150u * g + 29u * b + 128u) >> 8);
}
