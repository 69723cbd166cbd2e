// A grid-stride loop over a 3-D volume with a 3-D grid of 3-D blocks (the
// volume is larger than the grid in every dimension): each element gets a
// value made from its coordinates and the input.
extern "C" __global__ void corpus_grid3d(const int *in, int *out, int nx, int ny, int nz)
{
    for (int z = blockIdx.z * blockDim.z + threadIdx.z; z < nz; z += gridDim.z * blockDim.z)
        for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < ny; y += gridDim.y * blockDim.y)
            for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < nx; x += gridDim.x * blockDim.x) {
                int idx = (z * ny + y) * nx + x;
                out[idx] = in[idx] * 3 + x - 2 * y + 5 * z + (int)(threadIdx.x ^ threadIdx.y ^ threadIdx.z);
            }
}
