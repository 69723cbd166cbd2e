// Thread 5 executes a trap instruction; the launch fails (719).
extern "C" __global__ void trap_kernel(int *out)
{
    out[threadIdx.x] = 1;
    if (threadIdx.x == 5)
        __trap();
}
