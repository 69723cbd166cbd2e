#!/usr/bin/python3
"""The layout checker (tools/docs/check_layout.py) over scratch trees: it
accepts a table that names every folder, and refuses one that misses a
folder, one that names a folder the tree lacks, and, once the table names a
second-level folder of src/, one that misses another second-level folder.

    test_check_layout.py CHECKER
"""
import os
import subprocess
import sys
import tempfile

FOLDERS = ["src/core", "src/sim", "src/sim/ptx", "tools/cli", "tests/unit", "bench/kernels"]
COMPLETE = """## Layout

```
src/core/        the core
src/sim/         the simulator; its interpreter in ptx/
tools/cli/       the tool (build/bin/cli, scripts/x.sh, tests/unit on a machine)
tests/unit/      unit tests
bench/kernels/   kernels
```
"""


def run(checker, folders, table):
    with tempfile.TemporaryDirectory() as root:
        for folder in folders:
            os.makedirs(os.path.join(root, folder))
        doc = os.path.join(root, "LAYOUT.md")
        with open(doc, "w", encoding="utf-8") as f:
            f.write(table)
        result = subprocess.run([sys.executable, checker, root, doc], capture_output=True, text=True)
        return result.returncode, result.stdout


def expect(checker, what, folders, table, rc, needle):
    got_rc, out = run(checker, folders, table)
    if got_rc != rc or needle not in out:
        print("FAIL: %s: exit %d (expected %d), output:\n%s" % (what, got_rc, rc, out))
        return 1
    return 0


def main(argv):
    checker = argv[1]
    failures = 0
    failures += expect(checker, "a complete table", FOLDERS, COMPLETE, 0, "names all 5 folders")
    failures += expect(checker, "a folder missing from the table", FOLDERS + ["tools/docs"], COMPLETE, 1,
                       "tools/docs/ is in the tree but not in the layout table")
    failures += expect(checker, "a folder the tree lacks", FOLDERS,
                       COMPLETE.replace("tests/unit/      unit tests", "tests/unit/ tests/gone/ tests"), 1,
                       "names tests/gone/, which is not in the tree")
    second = COMPLETE.replace("src/sim/         the simulator; its interpreter in ptx/",
                              "src/sim/         the simulator\n  src/sim/ptx/   its interpreter")
    failures += expect(checker, "the second level of src/, complete", FOLDERS, second, 0, "names all 6 folders")
    failures += expect(checker, "the second level of src/, one missing", FOLDERS + ["src/sim/core"], second, 1,
                       "src/sim/core/ is in the tree but not in the layout table")
    failures += expect(checker, "no layout section", FOLDERS, "# nothing\n", 1, "no \"## Layout\" heading")
    if failures:
        return 1
    print("layout checker: accepts the complete tables and refuses the 4 wrong ones")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
