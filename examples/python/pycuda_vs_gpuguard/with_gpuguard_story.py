"""The watchdog story with gpuguard_py: the same program as
with_pycuda_story.py, then what gpuguard makes possible afterwards: the
exception names the kernel, the context is recovered, and the same work is
done in slices under the watchdog. argv[1] is the kernel image."""
import struct
import sys

import gpuguard_py as gg

N = 1024 * 256

with gg.Context(0, watchdog="allow") as ctx:  # device 0: the display GPU; let the long launch through
    scale = ctx.load_module(sys.argv[1]).kernel("scale")
    data = ctx.upload(struct.pack(f"<{N}f", *range(N)))
    scale.launch(N // 256, 256, "PIfI", (data, N, 2.0, 0))
    try:
        data.read()                              # the launch's fate shows up here
    except gg.ContextDeadError as e:
        print(f"{type(e).__name__}: {e.native_name}; culprit kernel '{e.culprit_kernel}', "
              f"launch #{e.culprit_sequence} ({e.certainty})")
    ctx.recover()
    scale = ctx.load_module(sys.argv[1]).kernel("scale")
    data = ctx.upload(struct.pack(f"<{N}f", *range(N)))
    # Parameter 3 carries each slice's first block; slices of about 100 ms.
    stats = scale.launch_chunked(N // 256, 256, "PIfI", (data, N, 2.0, 0),
                                 offset_param=3, dimension=0, target_ms=100.0)
    result = struct.unpack(f"<{N}f", data.read())
    if any(result[i] != 2.0 * i for i in range(N)):
        raise SystemExit("wrong result")
    print(f"recovered; scaled {N} elements in {stats.slices} slices under the watchdog")
