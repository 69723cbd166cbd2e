#!/usr/bin/env python3
"""gpuguard from Python: a kernel fault, what the CUDA driver allows after it,
and the work finished in a new process with a chunked Mandelbrot render and a
progress bar, on gpuguard's simulated driver (or a real GPU, where the kernel
images were built for it).

    PYTHONPATH=build/python python3 examples/python/demo.py

1. A kernel with an off-by-a-lot bug writes past its buffer on the compute
   GPU (device 1 of the simulator). The launch returns; the fault surfaces
   at the next call as ContextDeadError naming the kernel; every later call
   fails fast. The error is sticky: the CUDA driver keeps it for every
   context of the process, even after they are destroyed (measured:
   docs/DRIVER-FACTS.md), so ctx.recover() raises ProcessPoisonedError and
   so does a new Context. Only a new process can use the GPU.
2. The program goes on in a new process (this script again, with
   --fresh-process DEVICE, started with subprocess): the corrected launch
   computes the right answer.
3. In that process, the Mandelbrot kernel of examples/render runs on the display GPU (device 0, with a watchdog) by launch_chunked in
   slices well under the watchdog, with a progress bar drawn by a Python
   callback; then a small text rendering of the image.

A GPU program that must survive its own kernel faults does its GPU work in
worker processes (subprocess, or multiprocessing with the 'spawn' start
method) and starts a new worker when one ends with ProcessPoisonedError.
"""
import array
import math
import os
import struct
import subprocess
import sys

import gpuguard_py as gg

N = 4096  # floats in the buffer of part 1


def fault_in_this_process(device):
    print(f"\n1. a kernel fault on device {device}, in process {os.getpid()}")
    with gg.Context(device, tag="demo") as ctx:
        data = ctx.upload(struct.pack(f"<{N}f", *range(N)))
        scale = ctx.load_module(gg.kernel_image("dead_context", device)).kernel("scale")
        # scale(data, n, factor): the bug is n, 64 times the buffer's length.
        scale.launch((64 * N + 255) // 256, 256, "PIf", (data, 64 * N, 2.0))
        print("   launch of 'scale' with n = 64 x the buffer: accepted (kernel faults are asynchronous)")
        try:
            data.read()
        except gg.ContextDeadError as e:
            print(f"   the next call raised {type(e).__name__} ({e.status}, {e.native_name})")
            print(f"   culprit: kernel '{e.culprit_kernel}', launch #{e.culprit_sequence} ({e.certainty})")
        else:
            raise SystemExit("demo: expected the fault to surface")
        try:
            ctx.alloc(64)
        except gg.ContextDeadError as e:
            print(f"   the context is {ctx.state}: ctx.alloc() fails fast with {e.status}, cause {e.cause}")
        data.close()  # no driver call, no error: the dead context's teardown frees it
        print(f"   closing objects of the dead context: quiet ({ctx.skipped_cleanups} driver call(s) skipped)")

        try:
            ctx.recover()
        except gg.ProcessPoisonedError as e:
            print(f"   ctx.recover() raised {type(e).__name__} ({e.status}): the context stays {ctx.state}")
        else:
            # A driver that keeps sticky errors per context (HIP) recovers here.
            print("   ctx.recover() gave a fresh context (this driver keeps sticky errors per context)")
            return
    try:
        gg.Context(device, tag="demo again").close()
    except gg.ProcessPoisonedError as e:
        print(f"   a new Context raised {type(e).__name__} too")
    print("   The CUDA driver keeps such an error (illegal address, trap, assert, launch timeout)")
    print("   for the whole process: no context of this process can use the GPU again.")


def corrected_launch(device):
    with gg.Context(device, tag="demo") as ctx:
        data = ctx.upload(struct.pack(f"<{N}f", *range(N)))
        scale = ctx.load_module(gg.kernel_image("dead_context", device)).kernel("scale")
        scale.launch((N + 255) // 256, 256, "PIf", (data, N, 2.0))
        result = struct.unpack(f"<{N}f", data.read())
    if any(result[i] != 2.0 * i for i in range(N)):
        raise SystemExit("demo: the corrected launch computed a wrong result")
    print(f"   the corrected launch of 'scale' on device {device} verified {N} elements")


def interleave_stride(rows):
    """Row order for even slices (see examples/render/render.c): a stride
    near rows / golden ratio, coprime with rows."""
    if rows <= 2:
        return 1
    stride = int(rows * 0.6180339887 + 0.5)
    while math.gcd(stride, rows) != 1:
        stride += 1
    return stride


class ProgressBar:
    """Redrawn in place on a terminal, one line per quarter otherwise."""

    def __init__(self):
        self.tty = sys.stdout.isatty()
        self.shown = 0

    def __call__(self, p):
        percent = int(p.fraction * 100)
        if self.tty:
            filled = int(p.fraction * 30)
            sys.stdout.write(f"\r   [{'#' * filled}{'.' * (30 - filled)}] {percent:3d}%  "
                             f"slice {p.slices}  {p.last_slice_ms:6.1f} ms ")
            sys.stdout.flush()
        elif percent // 25 > self.shown:
            self.shown = percent // 25
            print(f"   {percent:3d}%  slice {p.slices}  {p.last_slice_ms:.1f} ms")
        return True  # False would cancel the rest (CancelledError)

    def done(self):
        if self.tty:
            print()


def preview(counts, width, height, cols=64, rows=20):
    """The image as text: '@' inside the set, lighter further out."""
    shades = " .:-=+*%#"
    lines = []
    for r in range(rows):
        y = int((r + 0.5) * height / rows)
        line = ""
        for c in range(cols):
            v = counts[y * width + int((c + 0.5) * width / cols)]
            line += "@" if v < 0 else shades[min(len(shades) - 1, int(math.log2(1 + v)))]
        lines.append("   " + line.rstrip())
    return "\n".join(lines)


def chunked_render(device, width=512, height=384, max_iter=3000):
    info = gg.device_info(device)
    print(f"\n3. Mandelbrot {width} x {height}, {max_iter} iterations, chunked, on device {device} "
          f"({'watchdog on' if info.watchdog else 'no watchdog'})")
    block = (64, 4)
    grid = ((width + block[0] - 1) // block[0], (height + block[1] - 1) // block[1])
    with gg.Context(device, tag="render") as ctx:
        mandelbrot = ctx.load_module(gg.kernel_image("render", device)).kernel("mandelbrot")
        image = ctx.alloc(4 * width * height, tag="image")
        image.fill(0xFF)  # NaN everywhere: any left afterwards is a block that did not run
        bar = ProgressBar()
        # mandelbrot(image, width, height, max_iter, block_offset_y, row_stride):
        # parameter 4 is the slice's first row of blocks, set by launch_chunked.
        stats = mandelbrot.launch_chunked(grid, block, "PIIIII",
                                          (image, width, height, max_iter, 0, interleave_stride(grid[1])),
                                          offset_param=4, dimension=1, target_ms=50.0, progress=bar)
        bar.done()
        print(f"   {stats.blocks} blocks in {stats.slices} slices; largest slice {stats.largest_slice_ms:.1f} ms, "
              f"device time {stats.device_ms:.1f} ms, wall time {stats.total_ms:.1f} ms")
        counts = array.array("f", bytes(4 * width * height))
        image.read_into(counts)
    missing = sum(1 for v in counts if math.isnan(v))
    if missing:
        raise SystemExit(f"demo: {missing} pixels were never written")
    print(preview(counts, width, height))
    print(f"   every pixel computed ({width * height})")


def fresh_process(device):
    """The rest of the work, in a process of its own that no fault touched."""
    print(f"\n2. the work goes on in a new process ({os.getpid()})")
    corrected_launch(device)
    chunked_render(0)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--fresh-process":
        fresh_process(int(sys.argv[2]))
        return 0
    devices = gg.devices()
    for d in devices:
        kind = "simulated" if d.simulated else "GPU"
        print(f"device {d.index}: {d.name} ({kind}, {d.backend}{', watchdog' if d.watchdog else ''})")
    compute = 1 if len(devices) > 1 else 0
    fault_in_this_process(compute)
    print("   The work continues in a new process.")
    sys.stdout.flush()  # before the new process writes to the same output
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--fresh-process", str(compute)])
    if done.returncode != 0:
        raise SystemExit(f"demo: the new process failed (exit status {done.returncode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
