"""Kernel parameters: a type code per value, checked before anything runs."""
import struct
import unittest

from ggpy_support import GpuTestCase, gg

N = 300


class Parameters(GpuTestCase):
    def test_buffer_and_uint32_parameters(self):
        data = self.ctx.alloc(4 * N)
        self.kernel("fill_u32").launch(((N + 127) // 128,), (128, 1, 1), "PII", (data, 0xDEADBEEF, N))
        self.assertEqual(self.u32s(data), [0xDEADBEEF] * N)

    def test_address_as_an_int(self):
        data = self.ctx.alloc(4 * N)
        data.fill(0)
        # The second half only, through a raw device address.
        self.kernel("fill_u32").launch(2, 128, "PII", (data.device_ptr + 4 * (N // 2), 9, N // 2))
        self.assertEqual(self.u32s(data), [0] * (N // 2) + [9] * (N // 2))

    def test_float_parameter(self):
        module = self.ctx.load_module(gg.kernel_image("dead_context", self.device))
        values = struct.pack(f"<{N}f", *range(N))
        data = self.ctx.upload(values)
        module.kernel("scale").launch(3, 128, "PIf", (data, N, 1.5))
        self.assertEqual(list(struct.unpack(f"<{N}f", data.read())), [1.5 * i for i in range(N)])

    def test_a_wider_code_reads_zero_extended(self):
        # fill_u32 takes (uint64, uint32, uint32); 'Q' for the value puts its
        # low 4 bytes where the kernel reads, never another parameter's bytes.
        data = self.ctx.alloc(4 * 16)
        self.kernel("fill_u32").launch(1, 16, "PQI", (data, 77, 16))
        self.assertEqual(self.u32s(data), [77] * 16)

    def test_values_are_checked_against_their_code(self):
        fill = self.kernel("fill_u32")
        data = self.ctx.alloc(64)
        cases = [
            ("PII", (data, 1 << 32, 1), OverflowError),
            ("PII", (data, -1, 1), OverflowError),
            ("PII", (data, 1.0, 1), TypeError),
            ("PII", (data, "1", 1), TypeError),
            ("PII", ("buffer", 1, 1), TypeError),
            ("PII", (data, 1), gg.InvalidArgumentError),
            ("PIIX", (data, 1, 1, 1), gg.InvalidArgumentError),
            ("QII", (data, 1, 1), TypeError),  # a Buffer is a 'P'
        ]
        for types, args, error in cases:
            with self.subTest(types=types, args=args):
                with self.assertRaises(error):
                    fill.launch(1, 16, types, args)
        for code, good, bad in (("b", -128, 128), ("B", 255, 256), ("h", -32768, 32768), ("H", 65535, -1),
                                ("i", -2**31, 2**31), ("q", -2**63, 2**63), ("Q", 2**64 - 1, 2**64)):
            with self.subTest(code=code):
                with self.assertRaises(OverflowError):
                    fill.launch(1, 16, "P" + code + "I", (data, bad, 0))
                fill.launch(1, 1, "P" + code + "I", (data, good, 0))  # n = 0: writes nothing
        with self.assertRaises(OverflowError):
            self.kernel("sleep_ms").launch(1, 1, "f", (1e39,))
        self.ctx.synchronize()

    def test_grid_and_block_shapes(self):
        noop = self.kernel("noop")
        for grid, block in ((1, 1), ((2,), [3]), ((2, 3), (4, 5)), ((1, 2, 3), (8, 4, 2))):
            noop.launch(grid, block)
        self.ctx.synchronize()
        for bad in ((), (1, 2, 3, 4), "1", -1, 1 << 32):
            with self.subTest(grid=bad):
                with self.assertRaises((TypeError, OverflowError)):
                    noop.launch(bad, 1)
        with self.assertRaises(gg.InvalidArgumentError):
            noop.launch(0, 1)  # gpuguard refuses an empty grid

    def test_stale_and_closed_buffers_are_refused_before_launch(self):
        data = self.ctx.alloc(64)
        data.close()
        with self.assertRaises(gg.InvalidHandleError):
            self.kernel("fill_u32").launch(1, 16, "PII", (data, 1, 16))
        self.assertEqual(self.ctx.state, "alive")

    def test_launch_on_a_stream(self):
        stream = self.ctx.stream()
        data = self.ctx.alloc(4 * N)
        self.kernel("fill_u32").launch(3, 128, "PII", (data, 5, N), stream=stream)
        self.kernel("add_one_u32").launch(3, 128, "PI", (data, N), stream=stream)
        stream.synchronize()
        self.assertEqual(self.u32s(data), [6] * N)


class Timing(GpuTestCase):
    def test_kernel_timing_history(self):
        spin = self.kernel("spin")
        self.assertEqual(spin.timing, (0.0, 0))
        spin.launch_chunked((8, 1), 1, "II", (200, 0), offset_param=1, dimension=0, target_ms=1.0)
        ms_per_block, samples = spin.timing
        self.assertGreater(samples, 0)
        self.assertGreater(ms_per_block, 0.1)


if __name__ == "__main__":
    unittest.main()
