"""The watchdog story with gpuguard_py: the same program as
with_pycuda_story.py, then what gpuguard makes possible afterwards: the
exception names the kernel, the dead context's objects close quietly, and
recover() says what the driver allows. A launch timeout is sticky: the CUDA
driver keeps it for the whole process (docs/DRIVER-FACTS.md), so recover()
raises ProcessPoisonedError and the same work is done again in a new process
(this script with --chunked), in slices under the watchdog. argv[1] is the
kernel image."""
import os
import struct
import subprocess
import sys

import gpuguard_py as gg

N = 1024 * 256


def one_launch(kernels):
    with gg.Context(0, watchdog="allow") as ctx:  # device 0: the display GPU; let the long launch through
        scale = ctx.load_module(kernels).kernel("scale")
        data = ctx.upload(struct.pack(f"<{N}f", *range(N)))
        scale.launch(N // 256, 256, "PIfI", (data, N, 2.0, 0))
        try:
            data.read()                              # the launch's fate shows up here
        except gg.ContextDeadError as e:
            print(f"{type(e).__name__}: {e.native_name}; culprit kernel '{e.culprit_kernel}', "
                  f"launch #{e.culprit_sequence} ({e.certainty})")
        try:
            ctx.recover()
        except gg.ProcessPoisonedError as e:
            print(f"{type(e).__name__} from recover(): the driver keeps the error for the whole process")
            return False
    return True  # a driver that keeps sticky errors per context recovered it


def in_slices(kernels):
    with gg.Context(0, watchdog="allow") as ctx:
        scale = ctx.load_module(kernels).kernel("scale")
        data = ctx.upload(struct.pack(f"<{N}f", *range(N)))
        # Parameter 3 carries each slice's first block; slices of about 100 ms.
        stats = scale.launch_chunked(N // 256, 256, "PIfI", (data, N, 2.0, 0),
                                     offset_param=3, dimension=0, target_ms=100.0)
        result = struct.unpack(f"<{N}f", data.read())
    if any(result[i] != 2.0 * i for i in range(N)):
        raise SystemExit("wrong result")
    print(f"in a new process: scaled {N} elements in {stats.slices} slices under the watchdog")


if len(sys.argv) == 3 and sys.argv[2] == "--chunked":
    in_slices(sys.argv[1])
elif one_launch(sys.argv[1]):
    in_slices(sys.argv[1])
else:
    sys.stdout.flush()  # before the new process writes to the same output
    done = subprocess.run([sys.executable, os.path.abspath(__file__), sys.argv[1], "--chunked"])
    sys.exit(done.returncode)
