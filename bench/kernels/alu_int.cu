// ALU-bound integer kernel for bench/ptx_interp.c: every thread runs an
// LCG and xorshift mix for `rounds` iterations and writes one word, so
// nearly all of its thread-instructions are 32-bit integer arithmetic,
// logic, shifts and the loop's compare-and-branch.
extern "C" __global__ void alu_int(unsigned *out, unsigned rounds)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = i * 2654435761u + 1u;
    for (unsigned r = 0; r < rounds; r++) {
        x = x * 1664525u + 1013904223u;
        x ^= x >> 13;
        x ^= x << 7;
    }
    out[i] = x;
}
