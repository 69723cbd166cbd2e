#!/usr/bin/python3
"""Fails when the layout table of docs/CONTRIBUTING.md ("## Layout", its
first fenced block) and the tree disagree.

    check_layout.py [ROOT [DOC]]    defaults: this repository, docs/CONTRIBUTING.md

The table must name every folder directly under src/, tools/, tests/ and
bench/ (written as the path with a trailing slash, `src/common/`, at the
start of a line or after a space), and every folder it names under them
must exist. The second level of src/ (`src/sim/ptx/`) is checked only when
the table names at least one folder there: from then on the table is the
truth for all of src/'s second level, both ways. Prints each disagreement
and exits 1; exits 0 with a count otherwise.
"""
import os
import re
import sys

CHECKED = ("src", "tools", "tests", "bench")
# A folder named in the table: src/x/ or src/x/y/, after a space or at the start.
NAMED = re.compile(r"(?:(?<=\s)|^)((?:%s)/[A-Za-z0-9_.-]+/(?:[A-Za-z0-9_.-]+/)?)" % "|".join(CHECKED),
                   re.MULTILINE)


def layout_block(text):
    """The first fenced block after the "## Layout" heading, or None."""
    match = re.search(r"^## Layout\s*$", text, re.MULTILINE)
    if not match:
        return None
    fence = re.search(r"^```[^\n]*\n(.*?)^```", text[match.end():], re.MULTILINE | re.DOTALL)
    return fence.group(1) if fence else None


def subfolders(path):
    """The visible folders directly under path (no __pycache__)."""
    if not os.path.isdir(path):
        return []
    return sorted(name for name in os.listdir(path)
                  if os.path.isdir(os.path.join(path, name))
                  and not name.startswith(".") and name != "__pycache__")


def disagreements(root, block):
    """(problems, count of folders checked) for the table block over root."""
    named = set(m.rstrip("/") for m in NAMED.findall(block))
    first = set(n for n in named if n.count("/") == 1)
    second = set(n for n in named if n.count("/") == 2)
    real_first = set("%s/%s" % (top, sub) for top in CHECKED for sub in subfolders(os.path.join(root, top)))
    expected = set(real_first)
    problems = []
    src_second = set(n for n in second if n.startswith("src/"))
    if src_second:
        expected |= set("%s/%s" % (folder, sub) for folder in real_first if folder.startswith("src/")
                        for sub in subfolders(os.path.join(root, folder)))
    for folder in sorted(expected - named):
        problems.append("%s/ is in the tree but not in the layout table" % folder)
    for folder in sorted(first | second):
        if not os.path.isdir(os.path.join(root, folder)):
            problems.append("the layout table names %s/, which is not in the tree" % folder)
    return problems, len(expected)


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    doc = argv[2] if len(argv) > 2 else os.path.join(root, "docs", "CONTRIBUTING.md")
    with open(doc, encoding="utf-8") as f:
        block = layout_block(f.read())
    if block is None:
        print("%s: no \"## Layout\" heading followed by a fenced block" % doc)
        return 1
    problems, count = disagreements(root, block)
    for problem in problems:
        print("%s: %s" % (os.path.relpath(doc, root), problem))
    if problems:
        print("%d disagreement(s) between the layout table and the tree" % len(problems))
        return 1
    print("the layout table names all %d folders of %s and nothing else" % (count, ", ".join(CHECKED)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
