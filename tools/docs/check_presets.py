#!/usr/bin/python3
"""Fails when CMakePresets.json and scripts/test.sh disagree on what a
preset can express: each mode's build folder and GG_SANITIZE, and the
sanitizer options and torture rounds the tests run with.

    check_presets.py [PRESETS SCRIPT]   defaults: CMakePresets.json, scripts/test.sh

What only the script does (packages, referees, unsetting
CUDA_VISIBLE_DEVICES, setarch -R under TSan) is written in
docs/CONTRIBUTING.md and not checked here.
"""
import json
import os
import re
import sys

MODES = {"default": "", "asan": "--sanitize", "tsan": "--tsan"}


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    presets_path = argv[1] if len(argv) > 2 else os.path.join(root, "CMakePresets.json")
    script_path = argv[2] if len(argv) > 2 else os.path.join(root, "scripts", "test.sh")
    with open(presets_path, encoding="utf-8") as f:
        presets = json.load(f)
    with open(script_path, encoding="utf-8") as f:
        script = f.read()
    configure = {p["name"]: p for p in presets["configurePresets"]}
    tests = {p["name"]: p for p in presets["testPresets"]}

    def cache(name, var):
        while name:
            p = configure[name]
            if var in p.get("cacheVariables", {}):
                return p["cacheVariables"][var]
            name = p.get("inherits")
        return ""

    problems = []
    # The script's modes: `asan)    dir=build-asan; cmake_args+=(-DGG_SANITIZE=address,undefined) ;;`
    for mode in MODES:
        m = re.search(r"^\s*%s\)\s+dir=(\S+?)(?:;|\s)(?:.*-DGG_SANITIZE=([^)\s]+))?" % mode, script, re.MULTILINE)
        if not m:
            problems.append("scripts/test.sh has no mode %s" % mode)
            continue
        want_dir, want_sanitize = "${sourceDir}/" + m.group(1), m.group(2) or ""
        if configure.get(mode, {}).get("binaryDir") != want_dir:
            problems.append("preset %s builds in %s, scripts/test.sh in %s"
                            % (mode, configure.get(mode, {}).get("binaryDir"), want_dir))
        if cache(mode, "GG_SANITIZE") != want_sanitize:
            problems.append("preset %s has GG_SANITIZE=%r, scripts/test.sh %r"
                            % (mode, cache(mode, "GG_SANITIZE"), want_sanitize))
    # `export TSAN_OPTIONS="${TSAN_OPTIONS:-...}"`: the script's defaults.
    exported = dict(re.findall(r'^export (\w+)="\$\{\w+:-([^}]*)\}"', script, re.MULTILINE))
    rounds = re.search(r'export GG_TORTURE_ROUNDS="\$\{GG_TORTURE_ROUNDS:-(\d+)\}"', script)
    wanted = {
        "asan": {"ASAN_OPTIONS": exported.get("ASAN_OPTIONS"), "UBSAN_OPTIONS": exported.get("UBSAN_OPTIONS")},
        "tsan": {"TSAN_OPTIONS": exported.get("TSAN_OPTIONS"),
                 "GG_TORTURE_ROUNDS": rounds.group(1) if rounds else None},
    }
    for mode, variables in wanted.items():
        env = tests.get(mode, {}).get("environment", {})
        for var, value in variables.items():
            if value is None:
                problems.append("scripts/test.sh sets no %s" % var)
                continue
            value = value.replace("$GG_ROOT", "${sourceDir}")
            if env.get(var) != value:
                problems.append("test preset %s has %s=%r, scripts/test.sh %r" % (mode, var, env.get(var), value))
    for problem in problems:
        print(problem)
    if problems:
        print("CMakePresets.json and scripts/test.sh disagree in %d place(s)" % len(problems))
        return 1
    print("CMakePresets.json builds and tests as scripts/test.sh (%s)" % ", ".join(MODES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
