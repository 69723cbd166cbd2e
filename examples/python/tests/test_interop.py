"""Interop: the CUDA array interface and stream protocol on gpuguard's
objects, and memory and streams made outside gpuguard (here with the
simulated driver's own calls, through ctypes) adopted without copying."""
import array
import ctypes
import sys
import unittest

from ggpy_support import GpuTestCase, gg


# The simulated HIP face's names for the driver calls the tests make.
HIP_NAMES = {
    "cuCtxPushCurrent_v2": "hipCtxPushCurrent", "cuCtxPopCurrent_v2": "hipCtxPopCurrent",
    "cuStreamCreate": "hipStreamCreateWithFlags", "cuStreamDestroy_v2": "hipStreamDestroy",
    "cuStreamQuery": "hipStreamQuery", "cuMemAlloc_v2": "hipMalloc", "cuMemFree_v2": "hipFree",
    "cuMemcpyDtoH_v2": "hipMemcpyDtoH",
}


def loaded_driver():
    """The driver library gpuguard loaded (the simulator's CUDA or HIP face),
    the same instance: ctypes.CDLL of a loaded path returns it; and whether
    it is the HIP face."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            for face, hip in (("libgpuguard_sim_cuda", False), ("libgpuguard_sim_hip", True)):
                if face in line:
                    return ctypes.CDLL(line.split()[-1]), hip
    raise unittest.SkipTest("no simulated driver is loaded")


class Driver:
    """The few driver calls a foreign library would make, in one context,
    by their CUDA names (the HIP face's equivalents on HIP)."""

    def __init__(self, native_ctx):
        self.lib, self.hip = loaded_driver()
        self.ctx = ctypes.c_void_p(native_ctx)

    def fn(self, name):
        f = self.lib[HIP_NAMES[name] if self.hip else name]
        f.restype = ctypes.c_int
        return f

    def call(self, name, *args):
        if self.fn("cuCtxPushCurrent_v2")(self.ctx) != 0:
            raise RuntimeError("pushing the context failed")
        try:
            return self.fn(name)(*args)
        finally:
            popped = ctypes.c_void_p()
            self.fn("cuCtxPopCurrent_v2")(ctypes.byref(popped))

    def stream(self):
        s = ctypes.c_void_p()
        assert self.call("cuStreamCreate", ctypes.byref(s), ctypes.c_uint(1)) == 0
        return s.value

    def alloc(self, nbytes):
        p = ctypes.c_uint64()
        assert self.call("cuMemAlloc_v2", ctypes.byref(p), ctypes.c_size_t(nbytes)) == 0
        return p.value

    def read(self, address, nbytes):
        out = ctypes.create_string_buffer(nbytes)
        assert self.call("cuMemcpyDtoH_v2", out, ctypes.c_uint64(address), ctypes.c_size_t(nbytes)) == 0
        return out.raw


class ForeignArray:
    """What CuPy or PyTorch hand out: an array of uint32 on a stream."""

    def __init__(self, address, count, stream=None, strides=None):
        self.__cuda_array_interface__ = {"version": 3, "shape": (count,), "typestr": "<u4",
                                         "data": (address, False), "strides": strides, "stream": stream}


class ForeignStream:
    def __init__(self, handle):
        self.handle = handle

    def __cuda_stream__(self):
        return (0, self.handle)


class Exporting(GpuTestCase):
    def test_buffer_gives_the_cuda_array_interface_version_3(self):
        buf = self.ctx.upload(bytes(range(256)) * 4)
        cai = buf.__cuda_array_interface__
        self.assertEqual(set(cai), {"version", "shape", "typestr", "data", "strides", "stream"})
        self.assertEqual(cai["version"], 3)
        self.assertEqual(cai["shape"], (1024,))
        self.assertEqual(cai["typestr"], "|u1")
        self.assertEqual(cai["data"], (buf.device_ptr, False))
        self.assertIsNone(cai["strides"])
        self.assertIsNone(cai["stream"])  # its context's work was waited for
        buf.close()
        with self.assertRaises(gg.InvalidHandleError):
            buf.__cuda_array_interface__

    def test_stream_gives_the_cuda_stream_protocol(self):
        stream = self.ctx.stream()
        version, handle = stream.__cuda_stream__()
        self.assertEqual(version, 0)
        self.assertIsInstance(handle, int)
        self.assertNotEqual(handle, 0)
        # The handle is the driver's stream: the driver answers for it.
        self.assertEqual(Driver(self.ctx.native_handle).call("cuStreamQuery", ctypes.c_void_p(handle)), 0)
        stream.close()


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor)))]

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_set_name = ctypes.pythonapi.PyCapsule_SetName
_set_name.restype = ctypes.c_int
_set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
_USED = ctypes.c_char_p(b"used_dltensor")  # the name must outlive the capsule


class DLPack(GpuTestCase):
    def test_capsule_describes_the_buffer(self):
        buf = self.ctx.upload(bytes(range(64)))
        expected_type = 10 if gg.backend_name() == "hip" else 2  # kDLROCM, kDLCUDA
        self.assertEqual(buf.__dlpack_device__(), (expected_type, self.ctx.device))
        capsule = buf.__dlpack__(stream=None)
        managed = DLManagedTensor.from_address(_get_pointer(capsule, b"dltensor"))
        t = managed.dl_tensor
        self.assertEqual(t.data, buf.device_ptr)
        self.assertEqual((t.device.device_type, t.device.device_id), (expected_type, self.ctx.device))
        self.assertEqual(t.ndim, 1)
        self.assertEqual((t.dtype.code, t.dtype.bits, t.dtype.lanes), (1, 8, 1))  # uint8
        self.assertEqual(t.shape[0], 64)
        self.assertFalse(t.strides)  # NULL: compact
        self.assertEqual(t.byte_offset, 0)
        del capsule, managed, t  # never consumed: the capsule releases the buffer
        buf.close()

    def test_a_consumed_tensor_keeps_the_buffer_until_its_deleter_runs(self):
        baseline = gg.live_objects()
        buf = self.ctx.upload(bytes([7]) * 32)
        device_ptr = buf.device_ptr
        capsule = buf.__dlpack__()
        address = _get_pointer(capsule, b"dltensor")
        self.assertEqual(_set_name(capsule, _USED), 0)  # what a consumer does
        with self.assertRaises(gg.BusyError):
            buf.close()
        del buf, capsule  # the Python Buffer and the capsule are gone...
        self.assertEqual(gg.live_objects(), baseline + 1)  # ...the gpuguard buffer is not
        managed = DLManagedTensor.from_address(address)
        self.assertEqual(managed.dl_tensor.data, device_ptr)
        managed.deleter(ctypes.pointer(managed))  # the consumer is done
        self.assertEqual(gg.live_objects(), baseline)

    def test_bad_stream_argument(self):
        buf = self.ctx.alloc(16)
        with self.assertRaises(TypeError):
            buf.__dlpack__(stream="default")
        buf.close()


class Adopting(GpuTestCase):
    N = 1024

    def setUp(self):
        super().setUp()
        self.driver = Driver(self.ctx.native_handle)
        self.stream_handle = self.driver.stream()
        self.address = self.driver.alloc(4 * self.N)

    def tearDown(self):
        self.assertEqual(self.driver.call("cuMemFree_v2", ctypes.c_uint64(self.address)), 0,
                         "the foreign memory was freed by gpuguard")
        self.assertEqual(self.driver.call("cuStreamDestroy_v2", ctypes.c_void_p(self.stream_handle)), 0,
                         "the foreign stream was destroyed by gpuguard")
        super().tearDown()

    def test_launch_on_adopted_memory_and_stream_without_copying(self):
        foreign = ForeignArray(self.address, self.N, stream=self.stream_handle)
        foreign_stream = ForeignStream(self.stream_handle)
        refs = sys.getrefcount(foreign)
        stream = self.ctx.adopt_stream(foreign_stream, tag="theirs")
        buf = self.ctx.adopt_buffer(foreign, tag="their array")
        self.assertEqual(sys.getrefcount(foreign), refs + 1, "the Buffer does not keep the array alive")
        self.assertEqual(buf.nbytes, 4 * self.N)
        self.assertEqual(buf.device_ptr, self.address)
        self.assertEqual(stream.__cuda_stream__(), (0, self.stream_handle))
        # The foreign object itself as a 'P' parameter, on the adopted stream.
        self.kernel("fill_u32").launch(self.N // 128, 128, "PII", (foreign, 5, self.N), stream=stream)
        self.kernel("add_one_u32").launch(self.N // 128, 128, "PI", (buf, self.N), stream=stream)
        stream.synchronize()
        self.assertEqual(self.u32s(buf), [6] * self.N)
        # The same bytes, read behind gpuguard's back.
        self.assertEqual(self.driver.read(self.address, 8), array.array("I", [6, 6]).tobytes())
        with self.assertRaises(gg.InvalidArgumentError):
            buf.read(8, 4 * self.N)  # bounds come from the interface's shape
        buf.close()
        stream.close()
        del buf
        self.assertEqual(sys.getrefcount(foreign), refs)
        self.assertEqual(self.driver.read(self.address, 4), array.array("I", [6]).tobytes())

    def test_integer_stream_handles_are_adopted(self):
        stream = self.ctx.adopt_stream(self.stream_handle)
        self.assertEqual(stream.__cuda_stream__(), (0, self.stream_handle))
        with self.assertRaises(gg.InvalidArgumentError) as caught:
            self.ctx.adopt_stream(self.stream_handle)
        self.assertIn("already", str(caught.exception))
        stream.close()

    def test_bad_objects_are_refused(self):
        with self.assertRaises(TypeError):
            self.ctx.adopt_buffer(object())
        with self.assertRaises(TypeError):
            self.ctx.adopt_stream("stream")
        with self.assertRaises(gg.InvalidArgumentError):
            self.ctx.adopt_stream(0)  # the default stream
        with self.assertRaises(ValueError) as caught:
            self.ctx.adopt_buffer(ForeignArray(self.address, 4, strides=(8,)))
        self.assertIn("C-contiguous", str(caught.exception))
        with self.assertRaises(ValueError):
            self.ctx.adopt_buffer(ForeignArray(self.address, 4, stream=0))
        with self.assertRaises(gg.InvalidArgumentError) as caught:
            self.ctx.adopt_buffer(ForeignArray(self.address, 2 * self.N))
        self.assertIn("runs past its allocation", str(caught.exception))
        with self.assertRaises(gg.InvalidArgumentError) as caught:
            self.ctx.adopt_buffer(ForeignArray(0x10, 4))
        self.assertIn("not in any allocation", str(caught.exception))
        with self.assertRaises(TypeError):
            self.kernel("fill_u32").launch(1, 1, "PII", (object(), 1, 1))


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_DLTENSOR = ctypes.c_char_p(b"dltensor")  # the name must outlive the capsule
_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))


class ForeignTensor:
    """What torch.Tensor or cupy.ndarray hand out through DLPack: uint32
    elements at `address`, in a DLManagedTensor built here, whose deleter
    counts its calls. The capsule has no destructor of its own, so a
    capsule nobody consumed is released by release_unconsumed()."""

    def __init__(self, address, count, device=(2, 0), strides=None, bits=32):
        self.device = device
        self.deleted = 0
        self.shape = (ctypes.c_int64 * 1)(count)
        self.strides = (ctypes.c_int64 * 1)(*strides) if strides else None
        self.deleter = _DELETER(self._deleted)
        self.managed = DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = address
        t.device = DLDevice(*device)
        t.ndim = 1
        t.dtype = DLDataType(1, bits, 1)
        t.shape = self.shape
        t.strides = self.strides
        t.byte_offset = 0
        self.managed.deleter = self.deleter
        self.streams = []
        self.capsules = []

    def _deleted(self, managed):
        self.deleted += 1

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        capsule = _new_capsule(ctypes.addressof(self.managed), _DLTENSOR, None)
        self.capsules.append(capsule)
        return capsule

    def release_unconsumed(self):
        """The producer's side of a capsule no consumer took: it is still
        named "dltensor" (a consumer renames it)."""
        for c in self.capsules:
            if _get_pointer(c, b"dltensor"):
                self.managed.deleter(ctypes.pointer(self.managed))
        ctypes.pythonapi.PyErr_Clear()


class AdoptingDLPack(GpuTestCase):
    N = 1024

    def setUp(self):
        super().setUp()
        self.driver = Driver(self.ctx.native_handle)
        self.address = self.driver.alloc(4 * self.N)
        kind = 10 if gg.backend_name() == "hip" else 2
        self.device = (kind, self.ctx.device)

    def tearDown(self):
        self.assertEqual(self.driver.call("cuMemFree_v2", ctypes.c_uint64(self.address)), 0,
                         "the foreign memory was freed by gpuguard")
        super().tearDown()

    def test_adopted_tensor_is_used_in_place_and_released_once_after_the_buffer(self):
        tensor = ForeignTensor(self.address, self.N, device=self.device)
        buf = self.ctx.adopt_buffer(tensor, tag="their tensor")
        self.assertEqual(tensor.streams, [None], "the protocol's stream argument")
        self.assertEqual(buf.nbytes, 4 * self.N)
        self.assertEqual(buf.device_ptr, self.address)
        self.assertTrue(_get_pointer(tensor.capsules[0], b"used_dltensor"), "the capsule was not renamed")
        self.kernel("fill_u32").launch(self.N // 128, 128, "PII", (buf, 9, self.N))
        self.ctx.synchronize()
        self.assertEqual(self.driver.read(self.address, 8), array.array("I", [9, 9]).tobytes())
        self.assertEqual(tensor.deleted, 0, "the deleter ran while the Buffer lives")
        buf.close()
        self.assertEqual(tensor.deleted, 0, "closing is not releasing: the Buffer object still holds it")
        del buf
        import gc
        gc.collect()
        self.assertEqual(tensor.deleted, 1, "the deleter did not run exactly once after the Buffer went")

    def test_bad_tensors_are_refused_and_given_back(self):
        cases = [
            (dict(device=(1, 0)), ValueError, "another kind of device"),
            (dict(device=(self.device[0], self.device[1] + 1)), ValueError, "another device"),
            (dict(device=self.device, strides=(2,)), ValueError, "not C-contiguous"),
            (dict(device=self.device, strides=(-1,)), ValueError, "negative strides"),
            (dict(device=self.device, bits=4), ValueError, "whole number of bytes"),
        ]
        for kwargs, error, needle in cases:
            tensor = ForeignTensor(self.address, 4, **kwargs)
            with self.assertRaises(error) as caught:
                self.ctx.adopt_buffer(tensor)
            self.assertIn(needle, str(caught.exception))
            # Refused before consuming: the capsule is still the producer's.
            tensor.release_unconsumed()
            self.assertEqual(tensor.deleted, 1 if tensor.capsules else 0, kwargs)
        # Memory the driver places past the allocation: refused by gpuguard,
        # after the capsule was opened; it is still not consumed.
        tensor = ForeignTensor(self.address, 2 * self.N, device=self.device)
        with self.assertRaises(gg.InvalidArgumentError) as caught:
            self.ctx.adopt_buffer(tensor)
        self.assertIn("runs past its allocation", str(caught.exception))
        self.assertTrue(_get_pointer(tensor.capsules[0], b"dltensor"), "a refused capsule was consumed")
        tensor.release_unconsumed()
        self.assertEqual(tensor.deleted, 1)

    def test_a_consumed_capsule_and_a_non_capsule_are_refused(self):
        tensor = ForeignTensor(self.address, 4, device=self.device)
        buf = self.ctx.adopt_buffer(tensor)
        consumed = tensor.capsules[0]

        class Replaying:
            def __dlpack_device__(self):
                return tensor.device

            def __dlpack__(self, stream=None):
                return consumed

        with self.assertRaises(ValueError) as caught:
            self.ctx.adopt_buffer(Replaying())
        self.assertIn("consumed already", str(caught.exception))

        class NotACapsule:
            def __dlpack_device__(self):
                return tensor.device

            def __dlpack__(self, stream=None):
                return b"tensor"

        with self.assertRaises(ValueError) as caught:
            self.ctx.adopt_buffer(NotACapsule())
        self.assertIn("did not return", str(caught.exception))
        self.assertEqual(tensor.deleted, 0)
        del buf
        import gc
        gc.collect()
        self.assertEqual(tensor.deleted, 1)


if __name__ == "__main__":
    unittest.main()
