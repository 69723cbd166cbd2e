"""What Python does to an extension's objects: garbage collection, objects
still alive at interpreter exit, a daemon thread inside a wait at exit,
an explicit shutdown. None of it may print, raise from a destructor, hang
or crash. Each case runs in a fresh interpreter, whose stderr must stay
empty.

dead_context() makes a sticky fault: as on a real CUDA driver (the
simulator's default), every other context of the process dies with it and
no context can be created in that interpreter afterwards, so the cases
make the contexts they need first."""
import textwrap
import time
import unittest

from ggpy_support import run_python

# Loads the test kernels and kills a context with an out-of-bounds launch
# (which poisons the process: see the docstring).
PRELUDE = """
import gc, os, sys
import gpuguard_py as gg
KERNELS = os.path.join(gg.kernel_dir(), "core_kernels.so")

def dead_context():
    ctx = gg.Context(1, tag="doomed")
    module = ctx.load_module(KERNELS)
    buf = ctx.alloc(64)
    module.kernel("noop")  # looked up while alive (a dead context refuses lookups)
    module.kernel("touch").launch(1, 1, "PQ", (buf, 1 << 20))
    try:
        buf.read()
    except gg.ContextDeadError:
        pass
    assert ctx.state == "dead"
    return ctx, module, buf
"""


def run(body, **kwargs):
    """Runs PRELUDE and then `body` in a fresh interpreter."""
    return run_python(PRELUDE + textwrap.dedent(body), **kwargs)


class Lifetime(unittest.TestCase):
    def assertQuiet(self, done, stdout=None):
        self.assertEqual(done.stderr, "", "the interpreter printed to stderr")
        self.assertEqual(done.returncode, 0)
        if stdout is not None:
            self.assertEqual(done.stdout.strip(), stdout)

    def test_exit_with_live_objects_in_a_dead_context(self):
        done = run("""
            ctx, module, buf = dead_context()
            stream, event = ctx.stream, ctx.event  # bound methods keep the context too
            kernel = module.kernel("noop")
            # Everything stays referenced from the module's globals until
            # Python tears them down at exit.
            print("exiting")
        """)
        self.assertQuiet(done, "exiting")

    def test_sys_exit_inside_a_with_block_of_a_dead_context(self):
        done = run("""
            with gg.Context(1) as ctx:
                ctx.load_module(KERNELS).kernel("touch").launch(1, 1, "PQ", (ctx.alloc(8), 4096))
                try:
                    ctx.synchronize()
                except gg.ContextDeadError as e:
                    print(e.culprit_kernel)
                sys.exit(0)
        """)
        self.assertQuiet(done, "touch")

    def test_exit_with_work_still_running(self):
        done = run("""
            ctx = gg.Context(1)
            sleep = ctx.load_module(KERNELS).kernel("sleep_ms")
            stream = ctx.stream()
            for _ in range(5):
                sleep.launch(4, 1, "I", (50,), stream=stream)
            buf = ctx.alloc(1 << 20)
            print("exiting")
        """)
        self.assertQuiet(done, "exiting")

    def test_objects_python_never_frees_are_released_at_exit(self):
        # A leaked reference (as a buggy extension makes): Python never
        # deallocates these; the module's exit hook shuts gpuguard down, and
        # its leak report (asked for with GPUGUARD_LOG) shows that it did,
        # before the process's own exit handler.
        for with_fault in (False, True):
            with self.subTest(with_fault=with_fault):
                # With the fault, the context made before it dies with the
                # process's sticky error (GG_PROCESS_POISONED).
                done = run(f"""
                    import ctypes
                    alive = gg.Context(1, tag="alive at exit")
                    leaked = [alive, alive.alloc(64, tag="leaked buffer")]
                    if {with_fault}:
                        leaked += dead_context()
                    for obj in leaked:
                        ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))
                    print("exiting")
                """, env={"GPUGUARD_LOG": "warn"})
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertEqual(done.stdout.strip(), "exiting")
                if with_fault:
                    self.assertIn("gg_shutdown: context 'alive at exit' (dead)", done.stderr)
                    self.assertIn("gg_shutdown: context 'doomed' (dead)", done.stderr)
                else:
                    self.assertIn("gg_shutdown: context 'alive at exit' (alive)", done.stderr)
                    self.assertNotIn("doomed", done.stderr)
                self.assertIn("leaked gg_buffer 'leaked buffer'", done.stderr)
                self.assertNotIn("process exit", done.stderr)
                self.assertNotIn("Traceback", done.stderr)

    def test_atexit_handlers_can_still_use_the_gpu(self):
        # gpuguard is shut down after everything Python runs at exit,
        # whatever the order of imports and registrations.
        done = run("""
            import atexit
            ctx = gg.Context(1)
            buf = ctx.upload(b"still here")
            atexit.register(lambda: print(buf.read().decode()))
            print("exiting")
        """)
        self.assertQuiet(done, "exiting\nstill here")

    def test_daemon_thread_waiting_at_exit(self):
        # hang_me never completes: the thread sits in a 60 s wait, without
        # the GIL, when the interpreter exits under it.
        start = time.monotonic()
        done = run("""
            import threading, time
            ctx = gg.Context(1)
            ctx.load_module(KERNELS).kernel("hang_me").launch(1, 1)
            waiting = threading.Event()
            def wait():
                waiting.set()
                ctx.synchronize(timeout_ms=60000)
            threading.Thread(target=wait, daemon=True).start()
            waiting.wait()
            time.sleep(0.2)
            try:
                gg.shutdown()
            except gg.BusyError:
                print("shutdown refused while a thread waits")
            print("exiting")
        """)
        self.assertQuiet(done, "shutdown refused while a thread waits\nexiting")
        self.assertLess(time.monotonic() - start, 30.0)

    def test_garbage_collection_never_raises(self):
        # Objects of dead, closed and live contexts, in reference cycles
        # with __del__ methods that close them: collected with nothing
        # raised, nothing printed.
        done = run("""
            unraisable = []
            sys.unraisablehook = unraisable.append

            class Holder:
                def __init__(self, *objects):
                    self.objects = objects
                    self.me = self  # a cycle: only the collector frees it
                def __del__(self):
                    for obj in self.objects:
                        if hasattr(obj, "close"):
                            obj.close()

            def closed_and_live_rounds(rounds):
                for round_ in range(rounds):
                    closed = gg.Context(1)
                    Holder(closed.alloc(16), closed.stream(), closed.event())
                    closed.close()
                    live = gg.Context(1)
                    Holder(live, live.alloc(16), live.stream(), live.event(), live.load_module(KERNELS))

            gc.disable()
            # Live and closed contexts' objects.
            closed_and_live_rounds(20)
            collected = gc.collect()
            assert collected > 0, collected
            assert gg.live_objects() == 0, gg.dump()
            # Then live ones again, killed by the sticky fault of another
            # (they die with the process: GG_PROCESS_POISONED), and the
            # culprit's own.
            closed_and_live_rounds(20)
            ctx, module, buf = dead_context()
            Holder(ctx, module, buf, module.kernel("noop"), ctx.stream, buf.context)
            del ctx, module, buf
            collected = gc.collect()
            assert collected > 0, collected
            assert gg.live_objects() == 0, gg.dump()
            print(len(unraisable))
        """)
        self.assertQuiet(done, "0")

    def test_explicit_shutdown_leaves_stale_objects_that_release_quietly(self):
        # Without a fault, gpuguard initialises again and computes; after a
        # sticky fault the driver still refuses a context in this process
        # (shutdown does not clear it, as on CUDA).
        for with_fault, after in ((False, "ok"), (True, "ProcessPoisonedError")):
            with self.subTest(with_fault=with_fault):
                done = run(f"""
                    alive = gg.Context(1)
                    data = alive.alloc(64)
                    stale = dead_context() if {with_fault} else ()
                    gg.shutdown()
                    assert not gg.initialized()
                    try:
                        data.read()
                    except gg.NotInitializedError as e:
                        print(e.status)
                    del data, alive, stale
                    gc.collect()
                    try:
                        with gg.Context(1) as again:  # initialises again
                            print(again.upload(b"ok").read().decode())
                    except gg.ProcessPoisonedError as e:
                        print(type(e).__name__)
                """)
                self.assertQuiet(done, "GG_NOT_INITIALIZED\n" + after)


if __name__ == "__main__":
    unittest.main()
