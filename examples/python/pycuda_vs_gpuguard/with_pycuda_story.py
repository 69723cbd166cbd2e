"""The watchdog story with PyCUDA: scale a large array on the display GPU in
one launch, then read it back. Run over gpuguard's simulated driver
(presented as libcuda.so.1) with story_config.json; argv[1] is the kernel
image. What happens is what PyCUDA users reported on real display GPUs."""
import sys

import numpy as np
import pycuda.driver as cuda

N = 1024 * 256

cuda.init()
ctx = cuda.Device(0).make_context()          # device 0: the display GPU, with a watchdog
scale = cuda.module_from_file(sys.argv[1]).get_function("scale")
data = np.arange(N, dtype=np.float32)
data_gpu = cuda.mem_alloc(data.nbytes)
cuda.memcpy_htod(data_gpu, data)
scale(data_gpu, np.uint32(N), np.float32(2.0), np.uint32(0), block=(256, 1, 1), grid=(N // 256, 1))
cuda.memcpy_dtoh(data, data_gpu)             # the launch's fate shows up here
if not np.array_equal(data, np.arange(N, dtype=np.float32) * 2):
    sys.exit("wrong result: the kernel did not scale every element")
print("scaled", N, "elements")
ctx.pop()
ctx.detach()
