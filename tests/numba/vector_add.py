"""A small numba program with a real kernel, for `gpuguard sweep --intercept`
(sweep_numba.sh): a @cuda.jit vector add, its inputs copied to the device,
one launch, the result copied back and checked. Prints "vector add: ok" and
exits 0 when the result is right; exits 1 with a message when it is wrong.
A driver call that fails is numba's to report: it raises (CudaAPIError...),
which Python prints before exiting 1."""
import sys

import numpy as np
from numba import cuda


@cuda.jit
def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


def main():
    n = 1000
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 2.0, dtype=np.float32)
    d_a = cuda.to_device(a)
    d_b = cuda.to_device(b)
    d_out = cuda.device_array(n, dtype=np.float32)
    threads = 128
    vector_add[(n + threads - 1) // threads, threads](d_a, d_b, d_out)
    cuda.synchronize()
    out = d_out.copy_to_host()
    if not np.array_equal(out, a + b):
        print("vector add: wrong result", file=sys.stderr)
        return 1
    print("vector add: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
