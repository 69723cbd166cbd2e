"""Chunked launches: progress reaches Python between slices, and Python can
stop the launch (return False: CancelledError; raise: that exception)."""
import os
import signal
import threading
import unittest

from ggpy_support import GpuTestCase, gg

GX, GY = 4, 64  # record_blocks over a 4 x 64 grid, sliced along y


class ChunkedLaunch(GpuTestCase):
    def setUp(self):
        super().setUp()
        self.counts = self.ctx.alloc(4 * GX * GY)
        self.counts.fill(0)
        self.record = self.kernel("record_blocks")

    def launch(self, **kwargs):
        # record_blocks(counts, gx, gy, offset, dim): counts[block] += 1, where
        # the sliced index is blockIdx + offset (parameter 3).
        kwargs.setdefault("target_ms", 0.001)  # tiny slices: many progress calls
        return self.record.launch_chunked((GX, GY), 1, "PIIII", (self.counts, GX, GY, 0, 1), offset_param=3,
                                          dimension=1, **kwargs)

    def test_progress_reaches_python(self):
        seen = []
        stats = self.launch(progress=lambda p: seen.append(p))  # None: go on
        self.assertGreater(len(seen), 1)
        self.assertEqual([p.slices for p in seen], list(range(1, len(seen) + 1)))
        done = [p.blocks_done for p in seen]
        self.assertEqual(done, sorted(done))
        self.assertEqual(seen[-1].blocks_done, GX * GY)
        self.assertEqual(seen[-1].blocks_total, GX * GY)
        self.assertEqual(seen[-1].fraction, 1.0)
        self.assertEqual(stats.slices, len(seen))
        self.assertEqual(stats.blocks, GX * GY)
        self.assertGreaterEqual(stats.total_ms, 0.0)
        self.assertEqual(self.u32s(self.counts), [1] * (GX * GY))  # every block exactly once

    def test_returning_false_cancels(self):
        calls = []

        def stop_after_two(p):
            calls.append(p)
            return len(calls) < 2

        with self.assertRaises(gg.CancelledError) as caught:
            self.launch(progress=stop_after_two, first_slice=4)
        e = caught.exception
        self.assertEqual(e.status, "GG_CANCELLED")
        self.assertEqual(len(calls), 2)
        self.assertEqual(e.stats.slices, 2)
        self.assertEqual(e.stats.blocks, calls[-1].blocks_done)
        self.assertLess(e.stats.blocks, GX * GY)
        # The context stays alive; what was done stays done, exactly once.
        self.assertEqual(self.ctx.state, "alive")
        counts = self.u32s(self.counts)
        self.assertEqual(counts[:e.stats.blocks], [1] * e.stats.blocks)
        self.assertEqual(counts[e.stats.blocks:], [0] * (GX * GY - e.stats.blocks))

    def test_an_exception_in_the_callback_cancels_and_propagates(self):
        class Stop(Exception):
            pass

        def fail(p):
            raise Stop(p.slices)

        with self.assertRaises(Stop) as caught:
            self.launch(progress=fail)
        self.assertEqual(caught.exception.args, (1,))
        self.assertEqual(self.ctx.state, "alive")
        self.assertEqual(sum(self.u32s(self.counts)), GX)  # one row of blocks: the first slice
        self.launch()  # the kernel still works
        self.ctx.synchronize()

    def test_the_callback_cannot_close_what_the_launch_uses(self):
        refused = []

        def try_to_close(p):
            for close in (self.ctx.close, self.ctx.recover, self.module.close):
                try:
                    close()
                except gg.BusyError as e:
                    refused.append(e.status)
            return True

        self.launch(progress=try_to_close)
        self.assertEqual(set(refused), {"GG_BUSY"})
        self.assertEqual(self.ctx.state, "alive")
        self.ctx.close()  # fine once the launch is over
        self.ctx = gg.Context(self.device)  # for tearDown

    def test_the_callback_may_use_the_gpu(self):
        other = self.ctx.alloc(16)
        reads = []

        def read_between_slices(p):
            other.write(bytes([p.slices]) * 16)
            reads.append(other.read(1))
            return True

        self.launch(progress=read_between_slices)
        self.assertEqual(reads, [bytes([i + 1]) for i in range(len(reads))])

    def test_offset_parameter_must_be_uint32(self):
        with self.assertRaises(gg.InvalidArgumentError):
            self.record.launch_chunked((GX, GY), 1, "PIIQI", (self.counts, GX, GY, 0, 1), offset_param=3)
        with self.assertRaises(TypeError):
            self.record.launch_chunked((GX, GY), 1, "PIIII", (self.counts, GX, GY, 0, 1))  # no offset_param
        with self.assertRaises(gg.InvalidArgumentError):
            self.launch(target_ms=-1.0)
        with self.assertRaises(TypeError):
            self.launch(progress=42)

    def test_plain_launch_of_a_chunkable_kernel_on_a_watchdog_device(self):
        with gg.Context(0) as display:  # the simulated display GPU: watchdog on
            counts = display.alloc(4 * GX * GY)
            counts.fill(0)
            record = display.load_module(self.module.path).kernel("record_blocks")
            record.set_chunking(3, 1)
            record.launch((GX, GY), 1, "PIIII", (counts, GX, GY, 0, 1))  # runs chunked
            self.assertEqual(self.u32s(counts), [1] * (GX * GY))


@unittest.skipIf(threading.current_thread() is not threading.main_thread(), "signals go to the main thread")
class Interrupt(GpuTestCase):
    def test_ctrl_c_stops_a_long_chunked_launch(self):
        spin = self.kernel("spin")
        timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                # 400 blocks of 20 ms, in slices of about 20 ms: 8 s if not stopped.
                spin.launch_chunked((400, 1), 1, "II", (20000, 0), offset_param=1, dimension=0, target_ms=20.0)
        finally:
            timer.cancel()
        self.assertEqual(self.ctx.state, "alive")


if __name__ == "__main__":
    unittest.main()
