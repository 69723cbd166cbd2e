#!/usr/bin/python3
"""Fails when a measured figure in the docs cites no source.

The rule (docs/CONTRIBUTING.md, "Figures in the docs"): every measured
number in the docs (a time, a rate, a size measured, a percentage, a count
of tests passing, instructions per call, a speed-up) is produced by a
script or command of this repository, and the text says which, so that
anyone can regenerate it and it cannot silently go stale.

How it is checked (a heuristic, kept simple on purpose):
- A Markdown file is cut into blocks: paragraphs and list items (ended by a
  blank line or by the next list item), tables (consecutive lines starting
  with `|`), headings, and fenced code blocks.
- A figure is a number followed by a unit of time (ns, us, µs, ms, s, sec,
  seconds, minutes, min, hours), a percentage, a measured size (KB, MB, GB,
  KiB, MiB, GiB), "instructions", a speed-up ("2x", "2×", "3 times
  faster"), "passed", or a count "N of M" (tests passing). A number with no
  unit, or one written in words, is not seen.
- A block with a figure must cite a source somewhere in it: a backticked
  command (`bash ...`, `ctest ...`, `gpuguard ...`, `valgrind ...`, COMMANDS
  below; `build/bin/PROG ...`, `./PROG`; a VAR=value may come first) or a
  path to a script or a results file of the repository (bench/..., tools/...,
  scripts/..., .ci/..., a .sh/.py/.txt/.json/.csv file), or the words
  "measured by" / "produced by" / "regenerate". A fenced code block (a
  sample output) or a table may instead be sourced by the block just
  before it, the sentence that introduces it; a list item by its list's
  introduction (the last block before it that is not a list item).
- A line holding a documented constant or a limit the code enforces, not a
  measurement, is opted out with the HTML comment `<!-- figure: constant -->`
  on that line. Only constants may be marked so.

    check_doc_figures.py [FILE...]

With no FILE, checks every Markdown file of the repository (docs_in_scope
below). Prints each unsourced block as FILE:LINE and its figures;
exits 1 if there is any, 0 otherwise.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The docs held to the rule: every Markdown file of the tree, found anew on
# each run so that a new doc is held to it too, except build folders (the
# referees' packages unpack there), hidden ones, and the checker's own
# samples (tests/doc_figures, which must fail).
SKIPPED_DIRS = ("tests/doc_figures",)


def docs_in_scope():
    """The repository's Markdown files, relative to ROOT, sorted."""
    found = []
    for top, dirs, files in os.walk(ROOT):
        rel = os.path.relpath(top, ROOT)
        dirs[:] = sorted(d for d in dirs
                         if not d.startswith((".", "build")) and d != "node_modules"
                         and os.path.normpath(os.path.join(rel, d)) not in SKIPPED_DIRS)
        found += [os.path.normpath(os.path.join(rel, f)) for f in files if f.endswith(".md")]
    return sorted(found)


CONSTANT = "<!-- figure: constant -->"

NUM = r"(?<![\w.\-/#^])\d[\d,]*(?:\.\d+)?"
FIGURE = re.compile(
    NUM + r"(?:\s?(?:ns|us|µs|ms|s|sec|secs|seconds?|minutes?|mins?|hours?)\b"
    r"|\s?%"
    r"|\s?(?:[KMGT]i?B)\b"
    r"|\s(?:CPU\s)?instructions?\b"
    r"|(?:x|×)(?![\w])|\s×|\stimes\s(?:faster|slower)\b"
    r"|\s(?:tests?\s)?(?:passed|pass|passing)\b"
    r"|\sof\s\d+\b)")

COMMANDS = (r"bash|sh|ctest|cmake|gpuguard|valgrind|callgrind_annotate|python3|/usr/bin/python3|"
            r"/usr/bin/time|time|perf|objdump|wc|git|nvidia-smi|gg_bench\w*|bench_\w+|gg_gpu_check")
ENV = r"(?:[A-Z][A-Z0-9_]*=\S*\s+)*"  # VAR=value before a command
SOURCE = re.compile(
    # a backticked command: a command word, then its arguments or nothing
    r"`" + ENV + r"(?:" + COMMANDS + r")(?:\s[^`]*)?`"
    # a backticked path to something run: ./prog, build/bin/prog ARGS
    r"|`" + ENV + r"(?:\./|build/bin/)[^`]+`"
    # a path to a script, a benchmark or a results file of the repository
    r"|(?:^|[\s(\[`])(?:bench|tools|scripts|\.ci)/[\w.+\-/]*\w"
    r"|[\w\-/]+\.(?:sh|py|txt|json|csv|log)\b"
    r"|\b(?:[Mm]easured by|[Pp]roduced by|[Rr]egenerate[sd]?)\b")

LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def blocks(lines):
    """(kind, first line number, [lines]) for each block of a Markdown file;
    kind is "code", "table" or "text"."""
    out, cur, kind, start, fence = [], [], None, 0, None

    def flush():
        nonlocal cur, kind
        if cur:
            out.append((kind, start, cur))
        cur, kind = [], None

    for n, line in enumerate(lines, 1):
        stripped = line.strip()
        if fence:
            cur.append(line)
            if stripped.startswith(fence):
                fence = None
                flush()
            continue
        if stripped.startswith("```") or stripped.startswith("~~~"):
            flush()
            fence = stripped[:3]
            kind, start, cur = "code", n, [line]
            continue
        if not stripped:
            flush()
            continue
        if stripped.startswith("#"):
            flush()
            out.append(("text", n, [line]))
            continue
        is_table = stripped.startswith("|")
        if cur and (kind == "table") != is_table:
            flush()
        if cur and not is_table and LIST_ITEM.match(line) and not line.startswith((" ", "\t")):
            flush()  # a new top-level list item: its own block
        if not cur:
            kind, start = ("table" if is_table else "text"), n
        cur.append(line)
    flush()
    return out


def figures(block_lines):
    """The figures of a block, lines marked as constants left out."""
    found = []
    for line in block_lines:
        if CONSTANT in line:
            continue
        found.extend(m.group(0) for m in FIGURE.finditer(line))
    return found


def has_source(block_lines):
    return SOURCE.search("\n".join(block_lines)) is not None


def check(path, shown):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    bad = []
    previous = None  # the block just before this one
    intro = None     # the last block that is not a list item: a list's intro
    for kind, start, block_lines in blocks(lines):
        is_item = kind == "text" and LIST_ITEM.match(block_lines[0]) is not None
        found = figures(block_lines)
        if found and not has_source(block_lines):
            # a sample output, or a table, introduced by a sourced sentence;
            # a list item whose list's intro names the source
            introducer = intro if is_item else previous if kind in ("code", "table") else None
            if introducer is None or not has_source(introducer):
                bad.append((start, found))
        previous = block_lines
        if not is_item:
            intro = block_lines
    for start, found in bad:
        shown_figures = ", ".join(dict.fromkeys(found))
        print(f"{shown}:{start}: figure without a source: {shown_figures}")
    return len(bad)


def main(argv):
    paths = argv[1:] or [os.path.join(ROOT, d) for d in docs_in_scope()]
    total = 0
    for path in paths:
        shown = os.path.relpath(path, ROOT) if not argv[1:] else path
        total += check(path, shown)
    if total:
        print(f"{total} block(s) hold a figure but cite no source: add the command, script or "
              f"results file that produces it (docs/CONTRIBUTING.md, \"Figures in the docs\"), "
              f"or remove the figure; mark a documented constant with {CONSTANT}")
        return 1
    print(f"doc figures: every figure in {len(paths)} file(s) cites its source")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
