"""Waits release the GIL: a wait on a hung GPU ends at its deadline with
WaitTimeoutError while the other Python threads keep running."""
import threading
import time
import unittest

from ggpy_support import GpuTestCase, core_kernels, gg


class Ticker:
    """A Python thread that notes the time every millisecond or so."""

    def __init__(self):
        self.ticks = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        while not self.ticks:
            time.sleep(0.001)

    def run(self):
        while not self.stop.is_set():
            self.ticks.append(time.monotonic())
            time.sleep(0.001)

    def between(self, start, end):
        self.stop.set()
        self.thread.join()
        return sum(1 for t in self.ticks if start < t < end)


class HungGpu(GpuTestCase):
    # The simulator runs with {"misbehave": [{"kernel": "hang_me", "action": "hang"}]}
    # and this device has no watchdog: hang_me never completes.

    def test_wait_times_out_at_its_deadline_while_python_runs(self):
        self.kernel("hang_me").launch(1, 1)
        ticker = Ticker()
        start = time.monotonic()
        with self.assertRaises(gg.WaitTimeoutError) as caught:
            self.ctx.synchronize(timeout_ms=1000)
        end = time.monotonic()
        # Ticks well inside the wait prove the GIL was released: with it
        # held, the ticker could not have run at all until the wait ended.
        inside = ticker.between(start + 0.2, end - 0.2)
        self.assertGreaterEqual(end - start, 0.99)
        self.assertLess(end - start, 5.0)
        self.assertGreater(inside, 50, f"the other thread ran {inside} times in the middle of a 1 s wait")

        e = caught.exception
        self.assertIsInstance(e, TimeoutError)
        self.assertEqual(e.status, "GG_TIMEOUT")
        self.assertEqual(e.culprit_kernel, "hang_me")
        # The default timeout policy kills the context: recover it.
        self.assertTrue(e.context_dead)
        self.assertEqual(self.ctx.state, "dead")
        with self.assertRaises(gg.ContextDeadError) as later:
            self.ctx.alloc(16)
        self.assertEqual(later.exception.cause, "GG_TIMEOUT")
        self.ctx.recover()
        self.module = self.ctx.load_module(core_kernels())
        data = self.ctx.alloc(64)
        self.kernel("fill_u32").launch(1, 16, "PII", (data, 3, 16))
        self.assertEqual(self.u32s(data), [3] * 16)

    def test_stream_and_event_waits_time_out_too(self):
        stream = self.ctx.stream()
        done = self.ctx.event()
        self.kernel("hang_me").launch(1, 1, stream=stream)
        done.record(stream)
        self.assertFalse(stream.query())
        self.assertFalse(done.query())
        with self.assertRaises(gg.WaitTimeoutError):
            done.synchronize(timeout_ms=200)
        with self.assertRaises(gg.ContextDeadError):
            stream.synchronize(timeout_ms=200)  # the first timeout killed the context


class ManyThreads(unittest.TestCase):
    def test_threads_with_their_own_contexts(self):
        errors = []

        def work(i):
            try:
                with gg.Context(1, tag=f"thread {i}") as ctx:
                    fill = ctx.load_module(core_kernels()).kernel("fill_u32")
                    data = ctx.alloc(4 * 1024)
                    for round_ in range(20):
                        fill.launch(4, 256, "PII", (data, i * 1000 + round_, 1024))
                        if data.read(4) != (i * 1000 + round_).to_bytes(4, "little"):
                            errors.append((i, round_))
            except Exception as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_threads_sharing_a_context(self):
        with gg.Context(1, tag="shared") as ctx:
            fill = ctx.load_module(core_kernels()).kernel("fill_u32")
            buffers = [ctx.alloc(4 * 256) for _ in range(4)]
            errors = []

            def work(i):
                stream = ctx.stream()
                for round_ in range(20):
                    fill.launch(1, 256, "PII", (buffers[i], round_, 256), stream=stream)
                    stream.synchronize()
                    if buffers[i].read(4) != round_.to_bytes(4, "little"):
                        errors.append((i, round_))
                stream.close()

            threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(errors, [])


if __name__ == "__main__":
    unittest.main()
