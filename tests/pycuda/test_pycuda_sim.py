"""PyCUDA (Debian's python3-pycuda 2022.2) over gpuguard's simulated driver.

PyCUDA is a client we did not write: its extension binds the Driver API at
load time and uses it its own way (the `extra` launch form, cuCtxDetach,
cuModuleLoadDataEx, ...). Each test drives one area through PyCUDA's public
API and checks the results against numpy. Run by tests/pycuda/with_pycuda.sh,
which presents the simulator as libcuda.so.1; argv[1] is the kernel module
(build/kernels/pycuda_kernels.so).
"""
import sys
import unittest

import numpy as np
import pycuda.driver as cuda

KERNELS = None  # path of pycuda_kernels.so, from the command line


def setUpModule():
    cuda.init()


class PyCudaOverSimulator(unittest.TestCase):
    def setUp(self):
        self.ctx = cuda.Device(0).make_context()

    def tearDown(self):
        # PyCUDA's teardown: pop, then detach (cuCtxDetach destroys it).
        self.ctx.pop()
        self.ctx.detach()
        self.assertIsNone(cuda.Context.get_current())

    def test_devices_and_attributes(self):
        self.assertGreaterEqual(cuda.Device.count(), 1)
        dev = cuda.Device(0)
        self.assertIn("gpuguard sim", dev.name())
        self.assertEqual(dev.compute_capability(), (8, 0))
        bus_id = dev.pci_bus_id()
        self.assertRegex(bus_id, r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]$")
        self.assertEqual(cuda.Device(bus_id), dev)
        attrs = dev.get_attributes()
        da = cuda.device_attribute
        # Every attribute PyCUDA knows answers (get_attributes skips none).
        known = [a for a in dir(da) if a.isupper()]
        self.assertGreaterEqual(len(attrs), len(known) - 5)
        self.assertEqual(attrs[da.WARP_SIZE], 32)
        self.assertEqual(attrs[da.COMPUTE_CAPABILITY_MAJOR], 8)
        self.assertEqual(attrs[da.MAX_THREADS_PER_BLOCK], dev.max_threads_per_block)
        self.assertGreater(attrs[da.MULTIPROCESSOR_COUNT], 0)
        self.assertEqual(attrs[da.KERNEL_EXEC_TIMEOUT], 1)  # device 0 is the display GPU
        self.assertGreater(dev.total_memory(), 0)

    def test_context_stack(self):
        self.assertEqual(cuda.Context.get_current(), self.ctx)
        self.assertEqual(cuda.Context.get_device(), cuda.Device(0))
        other = cuda.Device(cuda.Device.count() - 1).make_context()
        self.assertEqual(cuda.Context.get_current(), other)
        other.pop()
        self.assertEqual(cuda.Context.get_current(), self.ctx)
        other.push()
        self.assertEqual(cuda.Context.get_current(), other)
        cuda.Context.pop()
        other.detach()
        self.ctx.synchronize()
        self.assertEqual(self.ctx.get_api_version(), 3020)
        self.assertEqual(self.ctx.get_limit(cuda.limit.STACK_SIZE), 1024)
        self.ctx.set_limit(cuda.limit.STACK_SIZE, 4096)
        self.assertEqual(self.ctx.get_limit(cuda.limit.STACK_SIZE), 4096)
        self.ctx.set_cache_config(cuda.func_cache.PREFER_L1)
        self.assertEqual(self.ctx.get_cache_config(), cuda.func_cache.PREFER_L1)

    def test_attach_detach_counts_uses(self):
        attached = self.ctx.attach()
        self.assertEqual(attached, self.ctx)
        attached.detach()  # one use left: the context survives
        self.assertEqual(cuda.Context.get_current(), self.ctx)
        cuda.Context.synchronize()

    def test_memory_and_copies(self):
        free0, total = cuda.mem_get_info()
        self.assertEqual(total, cuda.Device(0).total_memory())
        host = np.arange(4096, dtype=np.float32)
        dev = cuda.mem_alloc(host.nbytes)
        free1, _ = cuda.mem_get_info()
        self.assertLessEqual(free1, free0 - host.nbytes)
        cuda.memcpy_htod(dev, host)
        back = np.empty_like(host)
        cuda.memcpy_dtoh(back, dev)
        np.testing.assert_array_equal(back, host)
        other = cuda.mem_alloc(host.nbytes)
        cuda.memcpy_dtod(other, dev, host.nbytes)
        cuda.memset_d32(dev, 0x3F800000, host.size)  # 1.0f
        cuda.memcpy_dtoh(back, dev)
        np.testing.assert_array_equal(back, np.ones_like(host))
        cuda.memset_d16(dev, 0xBEEF, 2 * host.size)
        words = np.empty(2 * host.size, dtype=np.uint16)
        cuda.memcpy_dtoh(words, dev)
        self.assertTrue((words == 0xBEEF).all())
        cuda.memcpy_dtoh(back, other)
        np.testing.assert_array_equal(back, host)
        base, size = cuda.mem_get_address_range(int(dev) + 100)
        self.assertEqual((base, size), (int(dev), host.nbytes))
        dev.free()
        other.free()
        free2, _ = cuda.mem_get_info()
        self.assertEqual(free2, free0)

    def test_streams_events_and_registered_memory(self):
        host = np.arange(1 << 16, dtype=np.float32)
        pinned = cuda.register_host_memory(np.zeros_like(host))
        dev = cuda.mem_alloc(host.nbytes)
        stream = cuda.Stream()
        start, end = cuda.Event(), cuda.Event()
        start.record(stream)
        cuda.memcpy_htod_async(dev, host, stream)
        cuda.memset_d8_async(dev, 0, 4, stream)
        cuda.memcpy_dtoh_async(pinned, dev, stream)
        end.record(stream)
        end.synchronize()
        self.assertTrue(stream.is_done())
        self.assertTrue(end.query())
        self.assertGreaterEqual(end.time_since(start), 0.0)
        expected = host.copy()
        expected[0] = 0
        np.testing.assert_array_equal(pinned, expected)
        stream.synchronize()
        pinned.base.unregister()
        dev.free()

    def check_scale_add(self, launch):
        n = 1000
        x = np.arange(n, dtype=np.float32)
        y = np.full(n, 2.0, dtype=np.float32)
        x_gpu, y_gpu = cuda.mem_alloc(x.nbytes), cuda.mem_alloc(y.nbytes)
        cuda.memcpy_htod(x_gpu, x)
        cuda.memcpy_htod(y_gpu, y)
        launch(np.float32(3.0), x_gpu, np.uint32(n), y_gpu, n)
        cuda.Context.synchronize()
        out = np.empty_like(y)
        cuda.memcpy_dtoh(out, y_gpu)
        np.testing.assert_array_equal(out, 3.0 * x + 2.0)
        x_gpu.free()
        y_gpu.free()

    def test_module_from_file_and_call(self):
        mod = cuda.module_from_file(KERNELS)
        fn = mod.get_function("scale_add")
        self.assertEqual(fn.max_threads_per_block, cuda.Device(0).max_threads_per_block)
        self.assertEqual(fn.shared_size_bytes, 0)
        self.assertGreater(fn.num_regs, 0)

        def call(a, x, n, y, count):
            fn(a, x, n, y, block=(128, 1, 1), grid=((count + 127) // 128, 1))
        self.check_scale_add(call)
        with self.assertRaises(cuda.LogicError):
            mod.get_function("no_such_kernel")

    def test_prepared_call_and_timed_call(self):
        fn = cuda.module_from_file(KERNELS).get_function("scale_add")
        fn.prepare("fPIP")

        def prepared(a, x, n, y, count):
            fn.prepared_call(((count + 63) // 64, 1), (64, 1, 1), a, x, n, y)
        self.check_scale_add(prepared)
        stream = cuda.Stream()

        def prepared_async(a, x, n, y, count):
            fn.prepared_async_call(((count + 63) // 64, 1), (64, 1, 1), stream, a, x, n, y)
            stream.synchronize()
        self.check_scale_add(prepared_async)

        def timed(a, x, n, y, count):
            elapsed = fn.prepared_timed_call(((count + 63) // 64, 1), (64, 1, 1), a, x, n, y)
            self.assertGreaterEqual(elapsed(), 0.0)
        self.check_scale_add(timed)

    def test_module_from_buffer_fills_the_jit_log(self):
        with open(KERNELS, "rb") as f:
            image = f.read()
        mod = cuda.module_from_buffer(image, options=[(cuda.jit_option.MAX_REGISTERS, 32)],
                                      message_handler=self.record_jit_log)
        self.assertTrue(self.jit_log[0])
        self.assertIn("module loaded", self.jit_log[1])
        fn = mod.get_function("scale_add")
        self.check_scale_add(lambda a, x, n, y, count: fn(a, x, n, y, block=(256, 1, 1),
                                                           grid=((count + 255) // 256, 1)))

    def record_jit_log(self, compile_success, info_str, error_str):
        self.jit_log = (compile_success, info_str, error_str)

    def test_legacy_launch_interface(self):
        fn = cuda.module_from_file(KERNELS).get_function("scale_add")

        def legacy(a, x, n, y, count):
            # The pre-4.0 interface: block shape, then the parameter buffer
            # byte by byte at the offsets the kernel's ABI puts them.
            fn._set_block_shape(32, 1, 1)
            fn._param_setf(0, float(a))
            fn._param_setv(8, np.uint64(int(x)).tobytes())
            fn._param_seti(16, int(n))
            fn._param_setv(24, np.uint64(int(y)).tobytes())
            fn._param_set_size(32)
            fn._launch_grid((count + 31) // 32, 1)
        self.check_scale_add(legacy)

    def test_unsupported_calls_fail_cleanly(self):
        with self.assertRaises(cuda.Error) as caught:
            cuda.mem_alloc_pitch(64, 64, 3)  # element size 3: CUDA refuses it too
        self.assertIn("invalid", str(caught.exception))
        with self.assertRaises(cuda.Error) as caught:
            cuda.Array(cuda.ArrayDescriptor())
        self.assertIn("not supported", str(caught.exception))


if __name__ == "__main__":
    KERNELS = sys.argv.pop(1)
    # Results on stdout: with_pycuda.sh fails the test on any stderr output.
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
