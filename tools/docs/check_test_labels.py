#!/usr/bin/env python3
"""Every ctest carries at least one label, so that `ctest -L LABEL` can pick
any part of the suite and no test falls outside every selection.

    check_test_labels.py CTEST BUILD_DIR   asks ctest for the tests of BUILD_DIR
    check_test_labels.py --json FILE       reads `ctest --show-only=json-v1` output

Prints each unlabelled test and exits 1; exits 0 with a count otherwise.
"""
import json
import subprocess
import sys


def unlabelled(listing):
    """The names of the tests in a json-v1 listing that have no LABELS."""
    missing = []
    for test in listing.get("tests", []):
        labels = [p["value"] for p in test.get("properties", []) if p.get("name") == "LABELS"]
        if not any(labels):
            missing.append(test["name"])
    return missing


def main(argv):
    if len(argv) == 3 and argv[1] == "--json":
        with open(argv[2], encoding="utf-8") as f:
            listing = json.load(f)
    elif len(argv) == 3:
        out = subprocess.run([argv[1], "--show-only=json-v1", "--test-dir", argv[2]],
                             check=True, capture_output=True, text=True).stdout
        listing = json.loads(out)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    count = len(listing.get("tests", []))
    missing = unlabelled(listing)
    for name in missing:
        print("test without a label: %s (give it LABELS in its CMakeLists.txt)" % name)
    if missing:
        print("%d of %d tests have no label" % (len(missing), count))
        return 1
    if count == 0:
        print("no tests listed: nothing checked")
        return 1
    print("every one of %d tests has a label" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
