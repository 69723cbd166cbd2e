#!/usr/bin/python3
"""Summarises PyCUDA's own test files run over the simulated driver.

Reads the JUnit XML files pytest wrote (one per test file) and prints, per
file, how many tests passed, failed, were skipped or expectedly failed, and
for every failure its first error line. Failures of tests that need what the
issue leaves out of scope (texture references and surfaces, which the CUDA
13 toolkit no longer compiles, and dynamic parallelism) are counted apart,
each with the reason from OUT_OF_SCOPE; a test there that fails for another
reason than the one stated counts as an in-scope failure.

Exit status: 0 when every in-scope test passed or was skipped by PyCUDA
itself, 1 otherwise, 2 on bad input.

Usage: summarize_suites.py RESULT.xml [RESULT.xml ...]
"""
import re
import sys
import xml.etree.ElementTree as ET

TEXTURES = "needs texture references or surfaces (removed from CUDA 13's toolkit)"
DYNAMIC = "needs dynamic parallelism (kernels launching kernels)"
# test name -> (reason, pattern its failure text must match)
TEXTURE_FAILURE = r"texture|surface|tex1Dfetch|texref|cuArray3DCreate|cuTexRef"
OUT_OF_SCOPE = {
    "test_driver.py::test_2d_texture": (TEXTURES, TEXTURE_FAILURE),
    "test_driver.py::test_multiple_2d_textures": (TEXTURES, TEXTURE_FAILURE),
    "test_driver.py::test_multichannel_2d_texture": (TEXTURES, TEXTURE_FAILURE),
    "test_driver.py::test_multichannel_linear_texture": (TEXTURES, TEXTURE_FAILURE),
    "test_driver.py::test_2d_fp_textures": (TEXTURES, TEXTURE_FAILURE),
    "test_driver.py::test_2d_fp_textures_layered": (TEXTURES, TEXTURE_FAILURE),
    "test_driver.py::test_3d_fp_textures": (TEXTURES, TEXTURE_FAILURE),
    "test_driver.py::test_3d_fp_surfaces": (TEXTURES, TEXTURE_FAILURE),
    "test_driver.py::test_2d_fp_surfaces": (TEXTURES, TEXTURE_FAILURE),
    "test_driver.py::test_3d_texture": (TEXTURES, TEXTURE_FAILURE),
    "test_driver.py::test_fp_textures": (TEXTURES, TEXTURE_FAILURE),
    "test_gpuarray.py::test_take": (TEXTURES, TEXTURE_FAILURE),
    "test_gpuarray.py::test_take_put": (TEXTURES, TEXTURE_FAILURE),
    "test_driver.py::test_recursive_launch": (DYNAMIC, r"cuLink|cudadevrt|dynamic"),
    "test_driver.py::test_jit_link_module": (DYNAMIC, r"cuLink|cudadevrt|dynamic"),
}


def error_line(failure):
    """The exception the test ended with: pytest's message (the last of a
    chain), else the first line pytest marked as the error ('E   ...')."""
    message = (failure.get("message") or "").strip()
    if message:
        return message.splitlines()[0]
    for line in (failure.text or "").splitlines():
        if line.startswith("E "):
            return line[1:].strip()
    return "(no message)"


def short_name(case):
    """file.py::test_name[params] from a JUnit testcase element."""
    # "test.test_driver.TestDriver": the first part naming a test file.
    parts = case.get("classname", "").split(".")
    module = next((p + ".py" for p in parts if p.startswith("test_")), "?")
    return module, case.get("name", "?")


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    in_scope_failures = 0
    totals = {"passed": 0, "failed": 0, "skipped": 0, "xfailed": 0, "out of scope": 0}
    for path in paths:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as err:
            print(f"{path}: cannot read: {err}", file=sys.stderr)
            return 2
        counts = dict.fromkeys(totals, 0)
        failures, out_of_scope, skips = [], [], []
        for case in root.iter("testcase"):
            module, name = short_name(case)
            base = re.sub(r"\[.*\]$", "", name)
            failure = case.find("failure")
            if failure is None:
                failure = case.find("error")
            skipped = case.find("skipped")
            if failure is not None:
                text = (failure.get("message") or "") + "\n" + (failure.text or "")
                scope = OUT_OF_SCOPE.get(f"{module}::{base}")
                if scope and re.search(scope[1], text):
                    counts["out of scope"] += 1
                    out_of_scope.append(f"{name}: {scope[0]}")
                else:
                    counts["failed"] += 1
                    failures.append(f"{name}: {error_line(failure)}")
            elif skipped is not None:
                kind = "xfailed" if skipped.get("type") == "pytest.xfail" else "skipped"
                counts[kind] += 1
                skips.append(f"{name}: {kind}: {skipped.get('message', '')}")
            else:
                counts["passed"] += 1
        module = path
        cases = list(root.iter("testcase"))
        if cases:
            module = short_name(cases[0])[0]
        print(f"{module}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
        for line in failures:
            print(f"  FAILED {line[:300]}")
        for line in out_of_scope:
            print(f"  out of scope {line}")
        for line in skips:
            print(f"  {line[:300]}")
        for key, value in counts.items():
            totals[key] += value
        in_scope_failures += counts["failed"]
    print("total: " + ", ".join(f"{v} {k}" for k, v in totals.items()))
    return 1 if in_scope_failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
