// The all-pairs n-body force loop of the CUDA samples' style: each thread
// accumulates the softened inverse-cube attraction of every body on its own,
// with rsqrtf and (contracted) fma, bodies staged through shared memory
// tiles of float4 (x, y, z, mass).
#define TILE 64
extern "C" __global__ void corpus_math_nbody(const float4 *pos, float3 *acc, int n, float eps2)
{
    __shared__ float4 tile[TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 me = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int base = 0; base < n; base += TILE) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        for (int k = 0; k < TILE && base + k < n; k++) {
            float4 o = tile[k];
            float rx = o.x - me.x, ry = o.y - me.y, rz = o.z - me.z;
            float d2 = rx * rx + ry * ry + rz * rz + eps2;
            float inv = rsqrtf(d2);
            float s = o.w * inv * inv * inv;
            a.x += rx * s;
            a.y += ry * s;
            a.z += rz * s;
        }
        __syncthreads();
    }
    if (i < n)
        acc[i] = a;
}
