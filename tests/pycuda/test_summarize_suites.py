#!/usr/bin/python3
"""Checks summarize_suites.py on a JUnit file written here: counts, the
error line of a chained failure, and that a test listed as out of scope
counts apart only when it failed for the stated reason."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
XML = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="test.test_driver.TestDriver" name="test_simple_kernel"/>
<testcase classname="test.test_driver.TestDriver" name="test_2d_texture">
  <failure message="pycuda.driver.CompileError: nvcc compilation failed">texture&lt;float&gt; is undefined</failure></testcase>
<testcase classname="test.test_driver.TestDriver" name="test_fp_textures">
  <failure message="pycuda._driver.LogicError: cuMemAlloc failed: out of memory">E   LogicError</failure></testcase>
<testcase classname="test.test_driver.TestDriver" name="test_constant_memory">
  <failure message="pycuda._driver.LogicError: cuModuleGetGlobal failed">E   KeyError: first
E   LogicError: last</failure></testcase>
<testcase classname="test.test_driver.TestDriver" name="test_skipped"><skipped type="pytest.skip" message="no GL"/></testcase>
<testcase classname="test.test_driver.TestDriver" name="test_x"><skipped type="pytest.xfail" message="known"/></testcase>
</testsuite></testsuites>
"""


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "test_driver.xml")
        with open(path, "w") as f:
            f.write(XML)
        run = subprocess.run([sys.executable, os.path.join(HERE, "summarize_suites.py"), path],
                             capture_output=True, text=True, timeout=30)
    out = run.stdout
    checks = [
        ("exit 1: an in-scope test failed", run.returncode == 1),
        ("counts", "test_driver.py: 1 passed, 2 failed, 1 skipped, 1 xfailed, 1 out of scope" in out),
        ("texture failure counted out of scope", "out of scope test_2d_texture: needs texture" in out),
        ("out-of-scope test failing for another reason is a failure",
         "FAILED test_fp_textures: pycuda._driver.LogicError: cuMemAlloc failed" in out),
        ("the message of the last exception", "FAILED test_constant_memory: pycuda._driver.LogicError: cuModuleGetGlobal failed" in out),
    ]
    bad = [name for name, ok in checks if not ok]
    for name, ok in checks:
        print(("ok: " if ok else "FAILED: ") + name)
    if bad:
        print("--- output ---\n" + out + run.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
