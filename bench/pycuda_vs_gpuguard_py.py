#!/usr/bin/env python3
"""Per-call cost of PyCUDA and gpuguard_py over the same simulated driver
(fast mode: work completes at submission, so the driver's own cost is
small and the bindings' cost shows). Not a test: it prints a table.

    GPUGUARD_SIM_CONFIG='{"fast": true}' GPUGUARD_BACKEND=sim \\
    PYTHONPATH=build/python:build/referees/python3-pycuda/usr/lib/python3/dist-packages \\
    LD_LIBRARY_PATH=DIR_WITH_libcuda.so.1_TO_THE_SIMULATOR:build/referees/libcurand10/usr/lib/x86_64-linux-gnu \\
    /usr/bin/python3 bench/pycuda_vs_gpuguard_py.py build/kernels/pycuda_kernels.so [REPEATS] [CALLS]

Each operation: REPEATS (default 7) runs of CALLS (default 20000) calls
per library, the two libraries' runs alternating; the median run's time per
call; the ratio is gpuguard_py / PyCUDA.

Each library is timed the way its users run it, with its own context
current: PyCUDA's context (made current by make_context) is popped while
gpuguard_py is timed and gpuguard_py's is pushed (Context.push()), then the
other way round for PyCUDA's runs. A gpuguard_py call whose context is
current makes one driver call besides its own (cuCtxGetCurrent) instead of
three (get, set to its context, set back); with another context current it
still works, and restores that one.
"""
import statistics
import sys
import time

import numpy as np
import pycuda.driver as cuda

import gpuguard_py as gg

KERNELS = sys.argv[1]
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
CALLS = int(sys.argv[3]) if len(sys.argv) > 3 else 20000


def time_run_us(fn):
    """One run of CALLS calls: microseconds per call."""
    t0 = time.perf_counter()
    for _ in range(CALLS):
        fn()
    return (time.perf_counter() - t0) / CALLS * 1e6


def pycuda_ops():
    cuda.init()
    ctx = cuda.Device(1).make_context()
    stream, ev = cuda.Stream(), cuda.Event()
    host = np.zeros(4, dtype=np.float32)
    dev = cuda.mem_alloc(16)
    fn = cuda.module_from_file(KERNELS).get_function("scale_add")
    fn.prepare("fPIP")
    ops = {
        "event record+query": lambda: (ev.record(stream), ev.query()),
        "stream query": stream.is_done,
        "small copy (16 B)": lambda: cuda.memcpy_htod(dev, host),
        "alloc+free": lambda: cuda.mem_alloc(256).free(),
        "launch": lambda: fn.prepared_async_call((1, 1), (32, 1, 1), stream, 1.0, dev, 4, dev),
    }
    return ctx, ops


def gpuguard_ops():
    ctx = gg.Context(1)
    stream, ev = ctx.stream(), ctx.event()
    host = bytes(16)
    buf = ctx.alloc(16)
    kernel = ctx.load_module(KERNELS).kernel("scale_add")
    ops = {
        "event record+query": lambda: (ev.record(stream), ev.query()),
        "stream query": stream.query,
        "small copy (16 B)": lambda: buf.write(host),
        "alloc+free": lambda: ctx.alloc(256).close(),
        "launch": lambda: kernel.launch(1, 32, "fPIP", (1.0, buf, 4, buf), stream=stream),
    }
    return ctx, ops


def main():
    pctx, pops = pycuda_ops()      # leaves PyCUDA's context current
    cuda.Context.pop()
    gctx, gops = gpuguard_ops()
    print(f"{'operation':<22}{'PyCUDA us':>11}{'gpuguard_py us':>16}{'ratio':>8}")
    for name in pops:
        # The two libraries' runs alternate, so that a change of load on
        # this shared machine hits both alike.
        p_runs, g_runs = [], []
        for _ in range(REPEATS):
            pctx.push()            # PyCUDA's runs: its context current
            p_runs.append(time_run_us(pops[name]))
            cuda.Context.pop()
            with gctx.current():   # gpuguard_py's runs: its context current
                g_runs.append(time_run_us(gops[name]))
        p, g = statistics.median(p_runs), statistics.median(g_runs)
        print(f"{name:<22}{p:>11.3f}{g:>16.3f}{g / p:>8.2f}")
    gctx.close()
    pctx.detach()


if __name__ == "__main__":
    main()
