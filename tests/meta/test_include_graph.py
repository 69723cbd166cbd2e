#!/usr/bin/python3
"""The include graph checker (tools/docs/include_graph.py) over scratch
trees: each rule refuses a tree that breaks it, in each way, and accepts one
that keeps it; --check refuses a stale picture and --write redraws it.

    test_include_graph.py CHECKER
"""
import os
import subprocess
import sys
import tempfile

DOC = """# layers
<!-- include-graph: begin (tools/docs/include_graph.py --write) -->
<!-- include-graph: end -->
"""
CLEAN = {
    "src/common/a.h": '#include "common/b.h"\n',
    "src/common/a.c": '#include "common/a.h"\n',
    "src/common/b.h": "",
    "src/common/b.c": '#include "common/b.h"\n#include <stdio.h>\n#include "generated_elsewhere.h"\n',
    "src/sim/s.h": "",
    "src/sim/s.c": '#include "sim/s.h"\n#include "common/a.h"\n',
    "src/intercept/i.c": '#include "common/a.h"\n',
    "docs/ARCHITECTURE.md": DOC,
}


def make(root, files):
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w", encoding="utf-8") as f:
            f.write(text)


def run(checker, root, action):
    result = subprocess.run([sys.executable, checker, "--root", root, action], capture_output=True, text=True)
    return result.returncode, result.stdout


FAILURES = []


def expect(what, got, rc, needles):
    got_rc, out = got
    if got_rc != rc or any(n not in out for n in needles):
        FAILURES.append(what)
        print("FAIL: %s: exit %d (expected %d), output:\n%s" % (what, got_rc, rc, out))


def case(checker, what, changes, action, rc, needles, write_first=False):
    with tempfile.TemporaryDirectory() as root:
        files = dict(CLEAN)
        files.update(changes)
        make(root, files)
        if write_first:
            run(checker, root, "--write")
        expect(what, run(checker, root, action), rc, needles)


def main(argv):
    checker = argv[1]
    # The picture: drawn, then checked; stale after a new include.
    with tempfile.TemporaryDirectory() as root:
        make(root, CLEAN)
        expect("an empty picture is stale", run(checker, root, "--check"), 1,
               ["include_graph.py --write"])
        expect("--write", run(checker, root, "--write"), 0, ["wrote the layer picture"])
        expect("a fresh picture", run(checker, root, "--check"), 0, ["(3 layers, 2 arrows)"])
        make(root, {"src/common/b.c": '#include "sim/s.h"\n'})
        expect("a stale picture", run(checker, root, "--check"), 1,
               ["only in the code's picture:    src_common --> src_sim", "include_graph.py --write"])
    # The interposer and the simulator.
    case(checker, "an interposer on its own", {}, "--no-intercept-to-sim", 0, ["includes nothing of src/sim"])
    case(checker, "a direct include", {"src/intercept/i.c": '#include "sim/s.h"\n'},
         "--no-intercept-to-sim", 1, ["src/intercept/i.c includes src/sim/s.h"])
    case(checker, "an include through a header",
         {"src/intercept/i.h": '#include "sim/s.h"\n', "src/intercept/i.c": '#include "i.h"\n'},
         "--no-intercept-to-sim", 1, ["src/intercept/i.c includes, through src/intercept/i.h, src/sim/s.h"])
    case(checker, "an include through the include path",
         {"src/intercept/i.c": '#include "s.h"\n',
          "src/intercept/CMakeLists.txt": "target_include_directories(t PRIVATE\n  ${PROJECT_SOURCE_DIR}/src/sim)\n"},
         "--no-intercept-to-sim", 1,
         ["src/intercept/i.c includes src/sim/s.h", "src/intercept/CMakeLists.txt:2 names src/sim"])
    # src/common's circles.
    case(checker, "src/common without a circle", {}, "--common-acyclic", 0, ["no include circle: 2 headers, 2 modules"])
    case(checker, "a circle of headers", {"src/common/b.h": '#include "common/a.h"\n'}, "--common-acyclic", 1,
         ["an include circle of 2 headers: a.h, b.h", "an include circle of 2 modules"])
    case(checker, "a circle of modules", {"src/common/b.c": '#include "common/a.h"\n'}, "--common-acyclic", 1,
         ["an include circle of 2 modules: a.{c,h}, b.{c,h}"])
    if FAILURES:
        return 1
    print("include graph checker: every case as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
