"""What PyCUDA could do after the watchdog story's timeout, if the program
caught it: nothing more on the GPU in this process. The same launch, the
timeout caught, the context popped and detached; then a new context on the
same device is refused with the same error, as the CUDA driver keeps a
launch timeout for the whole process (docs/DRIVER-FACTS.md). argv[1] is the
kernel image."""
import sys

import numpy as np
import pycuda.driver as cuda

N = 1024 * 256

cuda.init()
ctx = cuda.Device(0).make_context()
scale = cuda.module_from_file(sys.argv[1]).get_function("scale")
data = np.arange(N, dtype=np.float32)
data_gpu = cuda.mem_alloc(data.nbytes)
cuda.memcpy_htod(data_gpu, data)
scale(data_gpu, np.uint32(N), np.float32(2.0), np.uint32(0), block=(256, 1, 1), grid=(N // 256, 1))
try:
    cuda.memcpy_dtoh(data, data_gpu)
except cuda.LaunchError as e:
    print("the copy:", e)
ctx.pop()
try:
    cuda.Device(0).make_context()
    print("a new context: made")
except cuda.Error as e:
    print("a new context:", e)
sys.stdout.flush()
