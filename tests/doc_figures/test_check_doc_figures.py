#!/usr/bin/python3
"""The figure checker (tools/docs/check_doc_figures.py) refuses exactly the
unsourced blocks of unsourced.md, naming each by its first line, and
accepts sourced.md.

    test_check_doc_figures.py CHECKER
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# unsourced.md's blocks the checker must name: the paragraph, the "N of M"
# count, the table, both list items (their intro cites nothing), the sample
# output (its intro cites nothing), the paragraph whose constant marker
# covers only its own line, and the one whose backticks name no command.
EXPECTED_BAD = [3, 5, 8, 13, 14, 18, 22, 25]


def run(checker, sample):
    p = subprocess.run([sys.executable, checker, os.path.join(HERE, sample)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def main():
    checker = sys.argv[1]
    failures = []
    rc, out = run(checker, "unsourced.md")
    flagged = sorted(int(line.split(":")[1]) for line in out.splitlines()
                     if "figure without a source" in line)
    if rc != 1:
        failures.append(f"unsourced.md: exit {rc}, expected 1")
    if flagged != EXPECTED_BAD:
        failures.append(f"unsourced.md: flagged lines {flagged}, expected {EXPECTED_BAD}")
    rc, out2 = run(checker, "sourced.md")
    if rc != 0:
        failures.append(f"sourced.md: exit {rc}, expected 0")
    if failures:
        print(out + out2)
        print("\n".join(failures))
        return 1
    print("figure checker: refuses the 8 unsourced blocks, accepts the sourced sample")
    return 0


if __name__ == "__main__":
    sys.exit(main())
