"""Devices, contexts, buffers, streams, events, modules: the everyday API."""
import array
import os
import sys
import tracemalloc
import unittest

from ggpy_support import COMPUTE_GPU, DISPLAY_GPU, GpuTestCase, core_kernels, gg, run_python


class Library(unittest.TestCase):
    def test_devices_of_the_simulator(self):
        devices = gg.devices()
        self.assertEqual(len(devices), gg.device_count())
        self.assertGreaterEqual(len(devices), 2)
        display, compute = devices[DISPLAY_GPU], devices[COMPUTE_GPU]
        self.assertTrue(display.simulated)
        self.assertTrue(display.watchdog)
        self.assertFalse(compute.watchdog)
        self.assertEqual(compute.index, COMPUTE_GPU)
        self.assertEqual(compute.backend, gg.backend_name())
        self.assertEqual(len(compute.max_grid), 3)
        self.assertGreater(compute.total_memory, 0)
        self.assertEqual(gg.device_info(COMPUTE_GPU), compute)
        self.assertTrue(gg.initialized())
        self.assertEqual(gg.config()["backend"], "sim")

    @unittest.skipIf("GPUGUARD_KERNEL_DIR" in os.environ, "GPUGUARD_KERNEL_DIR is set")
    def test_kernel_dir_is_found_next_to_the_module(self):
        self.assertTrue(os.path.isfile(os.path.join(gg.kernel_dir(), "core_kernels.so")))
        image = gg.kernel_image("render")
        self.assertTrue(image.endswith("/render_sim.so"), image)
        self.assertTrue(os.path.isfile(image))

    def test_kernel_dir_follows_the_environment(self):
        done = run_python("import gpuguard_py; print(gpuguard_py.kernel_dir())",
                          env={"GPUGUARD_KERNEL_DIR": "/somewhere/kernels"})
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "/somewhere/kernels")

    def test_dump_lists_live_objects(self):
        with gg.Context(COMPUTE_GPU, tag="dumped") as ctx:
            ctx.alloc(32, tag="in the dump")
            text = repr(gg.dump())
            self.assertIn("dumped", text)
        self.assertNotIn("dumped", repr(gg.dump()))


class Contexts(unittest.TestCase):
    def test_with_block_owns_the_lifetime(self):
        before = gg.live_objects()
        with gg.Context(COMPUTE_GPU, tag="scoped") as ctx:
            buf = ctx.alloc(64)
            self.assertEqual(ctx.state, "alive")
            self.assertEqual(ctx.tag, "scoped")
            self.assertEqual(ctx.device, COMPUTE_GPU)
            self.assertIn("scoped", repr(ctx))
            self.assertGreater(gg.live_objects(), before)
        self.assertEqual(ctx.state, "closed")
        self.assertEqual(ctx.handle, 0)
        self.assertEqual(gg.live_objects(), before)
        with self.assertRaises(gg.InvalidHandleError):
            buf.read()  # went with the context
        with self.assertRaises(gg.InvalidHandleError):
            with ctx:
                pass

    def test_exit_does_not_hide_the_exception_of_the_block(self):
        with self.assertRaises(KeyError):
            with gg.Context(COMPUTE_GPU):
                raise KeyError("mine")

    def test_dropping_the_last_reference_releases_everything(self):
        before = gg.live_objects()
        ctx = gg.Context(COMPUTE_GPU)
        buf = ctx.alloc(64)
        del ctx  # the buffer keeps it alive
        self.assertEqual(buf.context.state, "alive")
        del buf
        self.assertEqual(gg.live_objects(), before)

    def test_watchdog_policy(self):
        with gg.Context(DISPLAY_GPU, watchdog="refuse", watchdog_budget_ms=1000) as ctx:
            ctx.set_watchdog("allow")
            ctx.set_watchdog()
            with self.assertRaises(ValueError):
                ctx.set_watchdog("sometimes")


class Buffers(GpuTestCase):
    def test_write_read_round_trip(self):
        buf = self.ctx.alloc(256)
        self.assertEqual(len(buf), 256)
        self.assertEqual(buf.nbytes, 256)
        data = bytes(range(256))
        buf.write(data)
        self.assertEqual(buf.read(), data)
        self.assertEqual(buf.read(16, 100), data[100:116])
        buf.write(b"\xff" * 4, 8)
        self.assertEqual(buf.read(12), data[:8] + b"\xff" * 4)
        self.assertEqual(buf.read(0), b"")
        self.assertIsInstance(buf.device_ptr, int)

    def test_any_bytes_like_in_and_out(self):
        values = array.array("I", range(64))
        buf = self.ctx.upload(values)
        self.assertEqual(buf.nbytes, 256)
        self.assertEqual(self.u32s(buf), list(range(64)))
        out = bytearray(32)
        buf.read_into(out, 4)
        self.assertEqual(bytes(out), values.tobytes()[4:36])
        view = memoryview(bytearray(8))
        buf.read_into(view[2:6])
        self.assertEqual(bytes(view), b"\0\0" + values.tobytes()[:4] + b"\0\0")

    def test_fill_and_device_copies(self):
        a = self.ctx.alloc(64)
        b = self.ctx.alloc(64)
        a.fill(0xAB)
        b.fill(0)
        b.copy_from(a, 16, dst_offset=8, src_offset=4)
        self.assertEqual(b.read(), b"\0" * 8 + b"\xab" * 16 + b"\0" * 40)
        with self.assertRaises(ValueError):
            a.fill(256)

    def test_stream_ordered_work(self):
        stream = self.ctx.stream(tag="copies")
        start, end = self.ctx.event(), self.ctx.event()
        buf = self.ctx.alloc(4096)
        start.record(stream)
        buf.fill(1, stream=stream)
        buf.write(b"\x02" * 100, 10, stream=stream)
        end.record(stream)
        stream.synchronize()
        self.assertTrue(stream.query())
        self.assertTrue(end.query())
        end.synchronize(timeout_ms=1000)
        self.assertGreaterEqual(start.elapsed_ms(end), 0.0)
        self.assertEqual(buf.read(120), b"\x01" * 10 + b"\x02" * 100 + b"\x01" * 10)
        other = self.ctx.stream()
        other.wait_event(end)
        other.synchronize()
        self.assertIs(stream.context, self.ctx)
        for obj in (stream, other, start, end, buf):
            obj.close()


class Timeline(GpuTestCase):
    def test_auto_measures_then_reports_its_decision(self):
        config = gg.config()
        self.assertEqual(config["timeline"], "auto")
        self.assertEqual(config["timeline_stride"], 0)
        self.assertEqual(config["timeline_budget_percent"], 50)
        before = self.ctx.timeline
        self.assertEqual(before["basis"], "measuring")
        self.assertEqual(before["stride"], 1)
        self.assertEqual(before["samples"], 0)
        data = self.ctx.alloc(4 * 128)
        fill = self.kernel("fill_u32")
        for _ in range(48):  # auto times a context's launches 17 to 48
            fill.launch(1, 128, "PII", (data, 1, 128))
        self.ctx.synchronize()
        after = self.ctx.timeline
        self.assertEqual(after["basis"], "measured", after["why"])
        self.assertEqual(after["samples"], 32)
        self.assertGreater(after["launch_ns"], 0)
        self.assertEqual(after["stride"], 1, after)  # the simulator's launch costs more than its mark
        data.close()


class Modules(GpuTestCase):
    def test_kernels_are_looked_up_once(self):
        before = gg.live_objects()
        first = self.module.kernel("noop")
        again = self.module.kernel("noop")
        self.assertEqual(first.handle, again.handle)
        self.assertEqual(gg.live_objects(), before + 1)
        self.assertEqual(first.name, "noop")
        self.assertIs(first.module, self.module)
        self.assertIs(first.context, self.ctx)
        self.assertTrue(self.module.path.endswith("core_kernels.so"))

    def test_unknown_kernel_and_missing_image(self):
        with self.assertRaises(gg.InvalidArgumentError):
            self.module.kernel("no_such_kernel")
        with self.assertRaises(gg.GpuguardError):
            self.ctx.load_module("/nonexistent/kernels.so")

    def test_closed_module_takes_its_kernels(self):
        module = self.ctx.load_module(core_kernels())
        kernel = module.kernel("noop")
        module.close()
        with self.assertRaises(gg.InvalidHandleError):
            kernel.launch(1, 1)


class References(GpuTestCase):
    """The module's C code keeps its reference counts and memory balanced."""

    def exercise(self, buf, stream, fill):
        fill.launch(1, 16, "PII", (buf, 7, 16), stream=stream)
        stream.synchronize()
        buf.write(b"abcd", 4)
        buf.read(8)
        buf.read_into(bytearray(8))
        self.ctx.alloc(16).close()
        self.ctx.stream().close()
        for bad in ((buf, -1, 16), (buf, 1)):
            try:
                fill.launch(1, 16, "PII", bad)
            except (OverflowError, gg.InvalidArgumentError):
                pass
        try:
            buf.read(1, 4096)
        except gg.InvalidArgumentError as e:
            assert e.status == "GG_INVALID_ARGUMENT"
        fill.launch_chunked((1, 4), 16, "PII", (buf, 0, 16), offset_param=1, progress=lambda p: True)

    def test_no_reference_leaks(self):
        buf, stream, fill = self.ctx.alloc(64), self.ctx.stream(), self.kernel("fill_u32")
        watched = (buf, stream, fill, self.ctx, self.module, gg.InvalidArgumentError, gg.GpuguardError)
        self.exercise(buf, stream, fill)
        before = [sys.getrefcount(obj) for obj in watched]
        for _ in range(200):
            self.exercise(buf, stream, fill)
        self.assertEqual([sys.getrefcount(obj) for obj in watched], before)

    def test_no_memory_growth(self):
        buf, stream, fill = self.ctx.alloc(64), self.ctx.stream(), self.kernel("fill_u32")
        for _ in range(50):
            self.exercise(buf, stream, fill)
        tracemalloc.start()
        try:
            start, _ = tracemalloc.get_traced_memory()
            for _ in range(500):
                self.exercise(buf, stream, fill)
            end, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertLess(end - start, 16 * 1024, "memory grew over 500 rounds")


if __name__ == "__main__":
    unittest.main()
