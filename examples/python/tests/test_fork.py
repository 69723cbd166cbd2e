"""multiprocessing: a 'fork' child that touches an inherited GPU object
gets ForkedError (not a crash, not a driver call); a 'spawn' child imports
the module afresh and computes."""
import multiprocessing
import os
import unittest

from ggpy_support import COMPUTE_GPU, GpuTestCase, core_kernels, gg

N = 512


def use_inherited(buf, kernel, results):
    """In a fork child: every use of what the parent made fails with ForkedError.
    (Results go through a Pipe, which starts no thread in the child.)"""
    attempts = {
        "read": lambda: buf.read(),
        "write": lambda: buf.write(b"x"),
        "launch": lambda: kernel.launch(1, 1, "PII", (buf, 1, 1)),
        "synchronize": lambda: buf.context.synchronize(),
        "new context": lambda: gg.Context(COMPUTE_GPU),
    }
    for what, attempt in attempts.items():
        try:
            attempt()
            results.send((what, "no error"))
        except gg.ForkedError as e:
            results.send((what, e.status))
        except Exception as e:  # reported to the parent
            results.send((what, repr(e)))
    results.send(("state", buf.context.state))
    # Releasing inherited objects is quiet (no driver call) in the child.
    buf.close()
    buf.context.close()
    results.send(("closed", "ok"))
    results.close()


def compute_in_spawn_child(value, results):
    """In a spawn child: a fresh interpreter, a fresh driver."""
    import gpuguard_py
    with gpuguard_py.Context(COMPUTE_GPU, tag="spawned") as ctx:
        data = ctx.alloc(4 * N)
        ctx.load_module(core_kernels()).kernel("fill_u32").launch(N // 128, 128, "PII", (data, value, N))
        results.put((os.getpid(), data.read()))


class Multiprocessing(GpuTestCase):
    def test_fork_child_gets_forked_error(self):
        buf = self.ctx.upload(b"\x01" * 64)
        fill = self.kernel("fill_u32")
        fork = multiprocessing.get_context("fork")
        receiver, sender = fork.Pipe(duplex=False)
        child = fork.Process(target=use_inherited, args=(buf, fill, sender))
        child.start()
        sender.close()
        got = {}
        while receiver.poll(60):
            try:
                what, result = receiver.recv()
            except EOFError:
                break
            got[what] = result
        child.join(60)
        self.assertEqual(child.exitcode, 0)
        self.assertEqual(got, {"read": "GG_FORKED", "write": "GG_FORKED", "launch": "GG_FORKED",
                               "synchronize": "GG_FORKED", "new context": "GG_FORKED", "state": "forked",
                               "closed": "ok"})
        # The parent's objects are untouched.
        self.assertEqual(self.ctx.state, "alive")
        self.assertEqual(buf.read(), b"\x01" * 64)
        fill.launch(1, 16, "PII", (buf, 2, 16))
        self.assertEqual(self.u32s(buf), [2] * 16)

    def test_spawn_child_works(self):
        spawn = multiprocessing.get_context("spawn")
        results = spawn.Queue()
        child = spawn.Process(target=compute_in_spawn_child, args=(12345, results))
        child.start()
        pid, data = results.get(timeout=120)
        child.join(60)
        self.assertEqual(child.exitcode, 0)
        self.assertNotEqual(pid, os.getpid())
        self.assertEqual(data, (12345).to_bytes(4, "little") * N)

    def test_spawn_pool(self):
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            self.assertEqual(pool.map(square_on_gpu, range(4)), [0, 1, 4, 9])


def square_on_gpu(value):
    import gpuguard_py
    with gpuguard_py.Context(COMPUTE_GPU) as ctx:
        data = ctx.alloc(64)
        ctx.load_module(core_kernels()).kernel("fill_u32").launch(1, 16, "PII", (data, value * value, 16))
        return int.from_bytes(data.read(4), "little")


if __name__ == "__main__":
    unittest.main()
