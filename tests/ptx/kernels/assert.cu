#include <cassert>
// Thread 3's value fails the assertion; the launch fails with ASSERT (710).
extern "C" __global__ void assert_kernel(const int *in)
{
    assert(in[threadIdx.x] >= 0);
}
