#!/usr/bin/python3
"""Proves that tools/abi/check_abi.py refuses ABI breaks and accepts additions.

usage: test_check_abi.py PROBE_DIR   (ctest abi_check_refuses)

PROBE_DIR holds the variants of the stand-in library of abi_probe.h
(tests/abi/CMakeLists.txt builds them). The baseline is made from the BASE
variant with tools/abi/update_baseline.py, as a developer would; then the
check runs on each variant and must give the expected exit status and name
the change. A refused break must print the command that accepts it, and
accepting it with that command must make the check pass.
Exit status: 0 all as expected, 1 a case failed, 77 abigail-tools missing.
"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "tools/abi/check_abi.py"
UPDATE = ROOT / "tools/abi/update_baseline.py"
HEADERS = Path(__file__).resolve().parent  # abi_probe.h's folder

# variant -> (expected exit status, text the report must hold)
ADDITIONS = {
    "base": (0, "ABI check passed"),
    "add_symbol": (0, "added (compatible): symbol abi_probe_added added"),
    "append_growable": (0, "struct abi_probe_desc: member depth appended"),
    "add_enumerator": (0, "enum abi_probe_mode: ABI_PROBE_PARANOID = 2 added"),
    "name_padding": (0, "member reserved_probe_tail names the old tail padding at bit 160"),
}
BREAKS = {
    "remove_symbol": (1, "BREAK: symbol abi_probe_legacy removed"),
    # abidiff's append suppression hides this one: check_abi's own
    # comparison must catch it.
    "change_member": (1, "BREAK: struct abi_probe_desc: member width: type int32_t -> int64_t"),
    "insert_member": (1, "BREAK: struct abi_probe_desc: member inserted inserted at bit 64"),
    # abidiff's append suppression hides this one too.
    "append_into_padding": (1, "BREAK: struct abi_probe_padded: member extra inserted at bit 160"),
    "append_handle": (1, "BREAK: struct abi_probe_handle: member generation appended"),
    "append_by_value": (1, "BREAK: struct abi_probe_options: member extra appended"),
    "renumber_enum": (1, "BREAK: enum abi_probe_mode: ABI_PROBE_SAFE = 1 -> 2"),
    # Only abidiff sees a changed parameter list.
    "change_param": (1, "parameter 2 of type 'int' was added"),
    "export_internal": (1, "BREAK: exports abi_probe__internal"),
    "no_debug_info": (2, "has no debug info"),
}


def run(script, *args):
    done = subprocess.run([sys.executable, str(script), *args],
                          capture_output=True, text=True, check=False)
    return done.returncode, done.stdout + done.stderr


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    if shutil.which("abidw") is None or shutil.which("abidiff") is None:
        print("SKIP: abigail-tools not installed (apt-get install abigail-tools)")
        return 77
    probes = Path(sys.argv[1])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        baseline = str(Path(tmp) / "probe.abi")
        common = ["--headers", str(HEADERS), "--baseline", baseline, "--prefix", "abi_probe_"]
        status, out = run(UPDATE, "--library", str(probes / "libgg_abi_probe_base.so"), *common)
        if status != 0:
            print(f"update_baseline.py failed ({status}):\n{out}")
            return 1
        accept = "update_baseline.py --library PROBE"
        for variant, (want, text) in {**ADDITIONS, **BREAKS}.items():
            library = str(probes / f"libgg_abi_probe_{variant}.so")
            status, out = run(CHECK, library, *common, "--update-command", accept)
            problems = []
            if status != want:
                problems.append(f"exit status {status}, expected {want}")
            if text not in out:
                problems.append(f"no '{text}' in the report")
            if status == 1 and accept not in out:
                problems.append("the refusal does not print the command that accepts it")
            print(f"{variant}: {'ok' if not problems else 'WRONG'} (status {status})")
            if problems:
                failures.append(f"{variant}: {'; '.join(problems)}\n{out}")

        # Accepting an intended break with the update command: the check then passes.
        removed = str(probes / "libgg_abi_probe_remove_symbol.so")
        status, out = run(UPDATE, "--library", removed, *common)
        if status != 0 or "accepting BREAK: symbol abi_probe_legacy removed" not in out:
            failures.append(f"update_baseline.py on remove_symbol ({status}):\n{out}")
        status, out = run(CHECK, removed, *common)
        if status != 0:
            failures.append(f"check after accepting remove_symbol ({status}):\n{out}")

    for failure in failures:
        print(f"FAILED {failure}")
    if failures:
        return 1
    print(f"ABI check: refuses the {len(BREAKS) - 1} breaks and a library without "
          f"debug info, accepts the {len(ADDITIONS) - 1} additions and an unchanged library")
    return 0


if __name__ == "__main__":
    sys.exit(main())
