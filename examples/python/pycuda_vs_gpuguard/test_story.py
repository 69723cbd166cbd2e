"""The watchdog story, asserted: the same program with PyCUDA and with
gpuguard_py, each in its own process over gpuguard's simulated driver with
story_config.json (the kernel overruns the display GPU's watchdog). Run by
tests/pycuda/with_pycuda.sh (PyCUDA's environment); argv[1] is the kernel
image. Nothing is timed: each run ends on its own, bounded by the watchdog.
The simulator keeps a launch timeout for the whole process, as the CUDA
driver does (its default "sticky_scope": "process"): neither library can use
the GPU again in the process that timed out."""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = None


def run(script, **env):
    full = dict(os.environ, GPUGUARD_SIM_CONFIG="@" + os.path.join(HERE, "story_config.json"), **env)
    return subprocess.run([sys.executable, os.path.join(HERE, script), KERNELS], env=full,
                          capture_output=True, text=True, timeout=240)


class WatchdogStory(unittest.TestCase):
    def test_pycuda_times_out_warns_and_aborts(self):
        r = run("with_pycuda_story.py")
        # The launch timeout surfaces at the copy, as on a real display GPU.
        self.assertIn("cuMemcpyDtoH failed: the launch timed out and was terminated", r.stderr)
        # Each object's cleanup then fails on the dead context...
        self.assertGreaterEqual(r.stderr.count(
            "PyCUDA WARNING: a clean-up operation failed (dead context maybe?)"), 2, r.stderr)
        self.assertIn("cuMemFree failed", r.stderr)
        # ...and the context the exception left pushed aborts the interpreter.
        self.assertIn("The context stack was not empty upon module cleanup", r.stderr)
        self.assertEqual(r.returncode, -6, r.stderr)  # SIGABRT: exit status 134 in a shell
        self.assertNotIn("scaled", r.stdout)

    def test_pycuda_cannot_make_a_context_after_the_timeout_either(self):
        r = run("pycuda_after_the_timeout.py")
        self.assertIn("the copy: cuMemcpyDtoH failed: the launch timed out and was terminated", r.stdout,
                      r.stderr)
        self.assertIn("a new context: cuCtxCreate failed: the launch timed out and was terminated", r.stdout,
                      r.stderr)
        self.assertNotIn("a new context: made", r.stdout)
        self.assertEqual(r.returncode, 0, r.stderr)  # popped: no abort at exit

    def test_gpuguard_names_the_kernel_and_computes_in_a_new_process(self):
        r = run("with_gpuguard_story.py", GPUGUARD_BACKEND="sim")
        self.assertEqual(r.stderr, "")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("LaunchTimeoutError: CUDA_ERROR_LAUNCH_TIMEOUT; culprit kernel 'scale', launch #1",
                      r.stdout)
        # recover() says what the driver allows: nothing more in this process.
        self.assertIn("ProcessPoisonedError from recover(): the driver keeps the error for the whole process",
                      r.stdout)
        self.assertNotIn("recovered", r.stdout)
        self.assertRegex(r.stdout, r"in a new process: scaled 262144 elements in \d+ slices under the watchdog")


if __name__ == "__main__":
    KERNELS = sys.argv.pop(1)
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
