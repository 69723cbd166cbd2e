"""Shared by the gpuguard_py test suites: environment defaults and helpers.

Import it before gpuguard_py is initialised: it sets the simulator
configuration the suites rely on (when ctest has not already), which is read
once, when the driver starts.
"""
import functools
import json
import os
import subprocess
import sys
import textwrap
import unittest

os.environ.setdefault("GPUGUARD_BACKEND", "sim")
# The 'hang_me' test kernel never completes (only a destroy or reset ends it).
os.environ.setdefault("GPUGUARD_SIM_CONFIG", '{"misbehave":[{"kernel":"hang_me","action":"hang"}]}')

import gpuguard_py as gg  # noqa: E402

DISPLAY_GPU = 0  # the simulator's device with a watchdog (2 s)
COMPUTE_GPU = 1  # the simulator's device without one


def core_kernels():
    """Path of the test kernels (tests/kernels/core_kernels.c)."""
    return os.path.join(gg.kernel_dir(), "core_kernels.so")


def run_python(code, timeout=120, env=None):
    """Runs `code` in a fresh interpreter (this one's, with this environment
    plus `env`); returns the CompletedProcess with text stdout and stderr."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=full_env)


# Set to a test's id in the fresh interpreter that in_fresh_process() starts.
_FRESH_PROCESS_TEST = "GGPY_TEST_IN_FRESH_PROCESS"


def in_fresh_process(sticky_scope=None, timeout=120):
    """Decorator: the test runs alone in a fresh interpreter (this one runs
    it there and fails with its output when it fails).

    For a test that makes a sticky fault (illegal address, trap, launch
    timeout, an injected launch_failed...): as on a real CUDA driver, the
    simulator then keeps the error for the whole process and refuses every
    new context, so it must not share its process with other tests.
    sticky_scope="context" configures the simulator in that interpreter
    to keep sticky errors per context (HIP's model), for the tests whose
    subject is in-process recovery."""
    def wrap(test):
        @functools.wraps(test)
        def run(self):
            if os.environ.get(_FRESH_PROCESS_TEST) == self.id():
                return test(self)
            env = {_FRESH_PROCESS_TEST: self.id()}
            if sticky_scope is not None:
                given = os.environ.get("GPUGUARD_SIM_CONFIG", "{}")
                if given.startswith("@"):
                    with open(given[1:]) as f:
                        given = f.read()
                config = json.loads(given)
                config["sticky_scope"] = sticky_scope
                env["GPUGUARD_SIM_CONFIG"] = json.dumps(config)
            done = subprocess.run([sys.executable, "-m", "unittest", "-v", self.id()], capture_output=True,
                                  text=True, timeout=timeout, env=dict(os.environ, **env))
            self.assertEqual(done.returncode, 0, f"in a fresh process:\n{done.stdout}{done.stderr}")
            self.assertIn("Ran 1 test", done.stderr, done.stderr)
        return run
    return wrap


class GpuTestCase(unittest.TestCase):
    """A test with a context on the compute GPU and the core kernels loaded;
    checks at the end that the test left no gpuguard object behind."""

    device = COMPUTE_GPU

    def setUp(self):
        self.baseline = gg.live_objects()
        self.ctx = gg.Context(self.device, tag=self.id().rsplit(".", 1)[-1])
        self.module = self.ctx.load_module(core_kernels())

    def tearDown(self):
        gg.clear_fault_plan()
        self.module = None
        self.ctx.close()
        self.ctx = None
        self.assertEqual(gg.live_objects(), self.baseline, "the test left gpuguard objects alive")

    def kernel(self, name):
        return self.module.kernel(name)

    def u32s(self, buf, count=None):
        """The buffer's contents as a list of uint32."""
        import array
        out = array.array("I", bytes(buf.nbytes if count is None else 4 * count))
        buf.read_into(out)
        return out.tolist()
