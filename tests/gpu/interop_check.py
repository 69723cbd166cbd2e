"""The Python checks of the GPU acceptance suite, one per run:

    interop_check.py --check NAME --backend B --device N --kernel-image PATH

gpuguard_py (examples/python, the PyCUDA-style module) on the device, and
interop with PyTorch and CuPy where they are installed for this interpreter.
Prints one JSON object as its last line: {"verdict": "PASS"|"FAIL"|"SKIP",
"message": ..., "figures": {...}}. A check whose library is missing, or that
needs a gpuguard feature that does not exist yet, says SKIP and why.
"""
import argparse
import json
import struct
import sys
import traceback

N = 4096


class Skip(Exception):
    pass


def need_gpuguard_py():
    try:
        import gpuguard_py
    except ImportError as e:
        raise Skip(f"gpuguard_py is not built for {sys.executable} ({e}); it needs python3-dev at build time")
    return gpuguard_py


def need(module, what):
    try:
        return __import__(module)
    except ImportError as e:
        raise Skip(f"{what} is not installed for {sys.executable} ({e})")


def need_torch_cuda():
    torch = need("torch", "PyTorch")
    if not torch.cuda.is_available():
        raise Skip("PyTorch is installed but sees no CUDA device")
    return torch


def start(args, **context_options):
    gg = need_gpuguard_py()
    gg.init(args.backend)
    ctx = gg.Context(args.device, **context_options)
    module = ctx.load_module(args.kernel_image)
    return gg, ctx, module


def expected_bytes(value):
    return struct.pack(f"<{N}I", *([value] * N))


def check_py_module(args, figures):
    gg, ctx, module = start(args)
    figures["backend"] = gg.backend_name()
    figures["driver_version"] = gg.driver_version()
    buf = ctx.alloc(4 * N)
    module.kernel("fill_u32").launch((N + 255) // 256, 256, "PII", (buf, 0xC0FFEE, N))
    module.kernel("add_one_u32").launch((N + 255) // 256, 256, "PI", (buf, N))
    if buf.read() != expected_bytes(0xC0FFEF):
        return "FAIL", "gpuguard_py's fill_u32 + add_one_u32 gave wrong values"
    ctx.close()
    return "PASS", f"gpuguard_py filled and incremented {N} values on the {gg.backend_name()} backend"


def buffer_protocols(gg):
    return [p for p in ("__dlpack__", "__cuda_array_interface__") if hasattr(gg.Buffer, p)]


def filled_buffer(ctx, module, value):
    buf = ctx.alloc(4 * N)
    module.kernel("fill_u32").launch((N + 255) // 256, 256, "PII", (buf, value, N))
    ctx.synchronize()
    return buf


def check_torch_from_dlpack(args, figures):
    torch = need_torch_cuda()
    gg = need_gpuguard_py()
    if "__dlpack__" not in buffer_protocols(gg):
        raise Skip("gpuguard_py buffers have no __dlpack__ yet (interop, issue 15)")
    gg, ctx, module = start(args, use_primary=True)  # PyTorch works in the primary context
    buf = filled_buffer(ctx, module, 7)
    tensor = torch.from_dlpack(buf)
    figures["dtype"] = str(tensor.dtype)
    if tensor.cpu().numpy().tobytes() != expected_bytes(7):
        return "FAIL", "torch.from_dlpack of a gpuguard buffer sees other values"
    return "PASS", f"torch.from_dlpack read {N} values from a gpuguard buffer"


def check_cupy_asarray(args, figures):
    cupy = need("cupy", "CuPy")
    gg = need_gpuguard_py()
    if not buffer_protocols(gg):
        raise Skip("gpuguard_py buffers have neither __cuda_array_interface__ nor __dlpack__ yet (interop, issue 15)")
    gg, ctx, module = start(args, use_primary=True)  # CuPy works in the primary context
    buf = filled_buffer(ctx, module, 9)
    array = cupy.asarray(buf)
    figures["dtype"] = str(array.dtype)
    if cupy.asnumpy(array).tobytes() != expected_bytes(9):
        return "FAIL", "cupy.asarray of a gpuguard buffer sees other values"
    return "PASS", f"cupy.asarray read {N} values from a gpuguard buffer"


def check_torch_tensor_launch(args, figures):
    torch = need_torch_cuda()
    gg, ctx, module = start(args, use_primary=True)
    tensor = torch.zeros(N, dtype=torch.int32, device=f"cuda:{args.device}")
    torch.cuda.synchronize()
    try:
        module.kernel("fill_u32").launch((N + 255) // 256, 256, "PII", (tensor, 5, N))
    except TypeError as e:
        raise Skip(f"gpuguard_py launches do not take an object with __cuda_array_interface__ yet "
                   f"(interop, issue 15): {e}")
    ctx.synchronize()
    if tensor.cpu().numpy().tobytes() != expected_bytes(5):
        return "FAIL", "a gpuguard launch on a PyTorch tensor wrote other values"
    return "PASS", f"fill_u32 launched by gpuguard_py on a PyTorch tensor wrote {N} values"


def check_torch_current_stream(args, figures):
    torch = need_torch_cuda()
    gg, ctx, module = start(args, use_primary=True)
    if not hasattr(ctx, "adopt_stream"):
        raise Skip("gpuguard_py cannot adopt a foreign stream yet (Context.adopt_stream over gg_stream_adopt, "
                   "interop, issue 15)")
    # PyTorch's current stream is its default stream unless a program
    # chooses another; the default stream (handle 0) is no one's to adopt
    # (gg_stream_adopt refuses it: gpuguard's own default stream is the
    # same one). So PyTorch is given a stream of its own, made current, as
    # a program that overlaps work does, and gpuguard adopts that one (seen
    # on the first GPU run: the default stream's refusal failed this check).
    torch_stream = torch.cuda.Stream(device=args.device)
    with torch.cuda.stream(torch_stream):
        current = torch.cuda.current_stream(args.device)
        if current.cuda_stream == 0:
            return "FAIL", "torch.cuda.stream() did not make the new stream current"
        stream = ctx.adopt_stream(current.cuda_stream)
        tensor = torch.zeros(N, dtype=torch.int32, device=f"cuda:{args.device}")
        torch_stream.synchronize()  # the zeros are written before the fill
        buf_ptr = tensor.data_ptr()
        module.kernel("fill_u32").launch((N + 255) // 256, 256, "QII", (buf_ptr, 11, N), stream=stream)
        tensor += 1  # queued by PyTorch on the same stream: runs after the fill
    torch_stream.synchronize()
    if tensor.cpu().numpy().tobytes() != expected_bytes(12):
        return "FAIL", "work on PyTorch's current stream was not ordered with gpuguard's launch"
    return "PASS", "a gpuguard launch on PyTorch's current (non-default) stream was ordered with PyTorch's own work"


CHECKS = {
    "py_module": check_py_module,
    "torch_from_dlpack": check_torch_from_dlpack,
    "cupy_asarray": check_cupy_asarray,
    "torch_tensor_launch": check_torch_tensor_launch,
    "torch_current_stream": check_torch_current_stream,
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", required=True, choices=sorted(CHECKS))
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--kernel-image", required=True)
    args = parser.parse_args()
    figures = {"python": sys.version.split()[0]}
    try:
        verdict, message = CHECKS[args.check](args, figures)
    except Skip as e:
        verdict, message = "SKIP", str(e)
    except Exception as e:  # any failure is the check's verdict, with where it happened
        where = traceback.extract_tb(e.__traceback__)[-1]
        verdict, message = "FAIL", f"{type(e).__name__}: {e} (line {where.lineno})"
    print(json.dumps({"verdict": verdict, "message": message, "figures": figures}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
