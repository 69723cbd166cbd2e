"""gpuguard_py and numba in one process, on one context (issue 31, item 5):
a numba device array adopted by gpuguard through __cuda_array_interface__
and changed by a gpuguard launch; a gpuguard buffer handed to a numba
kernel through the same protocol. numba goes first and makes device 0's
primary context current; gpuguard loads the same driver library
(GPUGUARD_CUDA_LIBRARY = NUMBA_CUDA_DRIVER, set by interop_numba.sh) and
takes that primary context (use_primary), so both see the same memory.
Prints one line per check and exits 0 when every value is right, 1 with
the reason otherwise."""
import os
import sys

import numpy as np
from numba import cuda

import gpuguard_py as gg

N = 1024


def fail(what):
    print("FAILED:", what)
    sys.exit(1)


@cuda.jit
def times_three(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i * 3


def main():
    # numba first: its context is device 0's primary context.
    host = np.arange(N, dtype=np.uint32)
    theirs = cuda.to_device(host)
    gg.init("sim")
    if gg.backend_name() != "cuda":
        fail("gpuguard is on %s, not the CUDA face numba uses" % gg.backend_name())
    ctx = gg.Context(0, use_primary=True, tag="numba's primary context")
    # The test kernels (tests/kernels/core_kernels.c) as a simulator module.
    module = ctx.load_module(os.path.join(gg.kernel_dir(), "core_kernels.so"))

    # 1. numba's array, adopted by gpuguard without a copy.
    buf = ctx.adopt_buffer(theirs, tag="numba array")
    if buf.device_ptr != theirs.__cuda_array_interface__["data"][0]:
        fail("the adopted buffer is not numba's memory")
    module.kernel("add_one_u32").launch(N // 128, 128, "PI", (buf, N))
    ctx.synchronize()
    got = theirs.copy_to_host()
    if not np.array_equal(got, host + 1):
        fail("numba does not see gpuguard's add_one_u32 in its array: %r" % got[:8])
    print("a numba device array adopted by gpuguard: add_one_u32 ran on it in place (%d values)" % N)
    buf.close()

    # 2. gpuguard's buffer, written by a numba kernel.
    mine = ctx.alloc(4 * N, tag="for numba")
    # The buffer says it is bytes (typestr |u1): numba views them as uint32.
    raw = cuda.as_cuda_array(mine)
    if raw.shape != (4 * N,) or raw.dtype != np.uint8:
        fail("numba reads the buffer as %s %s, not (%d,) uint8" % (raw.shape, raw.dtype, 4 * N))
    view = raw.view(np.uint32)
    times_three[N // 128, 128](view)
    cuda.synchronize()
    back = np.frombuffer(mine.read(4 * N), dtype=np.uint32)
    if not np.array_equal(back, np.arange(N, dtype=np.uint32) * 3):
        fail("gpuguard does not read numba's kernel's values: %r" % back[:8])
    print("a gpuguard buffer handed to a numba kernel: %d values written and read back" % N)
    mine.close()
    module.close()
    ctx.close()
    print("numba interop checked")


if __name__ == "__main__":
    main()
