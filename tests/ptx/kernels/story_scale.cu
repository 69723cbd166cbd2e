// The kernel of the watchdog story (examples/python/pycuda_vs_gpuguard) as
// CUDA: the same parameters as the simulator module story_kernels.c, so
// PyCUDA's story runs the real kernel's PTX on the simulator
// (tests/pycuda: cli_intercept_*_pycuda_ptx).
// scale(data, n, factor, block_offset): data[i] *= factor for the i of block
// (block_offset + blockIdx.x).
extern "C" __global__ void scale(float *data, unsigned n, float factor, unsigned block_offset)
{
    unsigned i = (block_offset + blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] *= factor;
}
