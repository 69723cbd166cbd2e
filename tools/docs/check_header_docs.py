#!/usr/bin/python3
"""Fails when a GG_API function of a public header has no contract comment.

A contract comment is a Doxygen comment (/** ... */) ending on the line just
before the declaration, so that scripts/docs.sh puts it in the reference.
Each declaration needs its own: a comment shared by a group of declarations
documents only the first. Also checks that the comment says what the
function returns, or names a status (a gg_status function's contract lists
the statuses it can return).

    check_header_docs.py HEADER...
"""
import re
import sys


def declarations(text):
    """(line number, function name, return type, comment or None) per GG_API."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if not line.startswith("GG_API "):
            continue
        decl = line
        j = i
        while ";" not in decl and j + 1 < len(lines):
            j += 1
            decl += " " + lines[j].strip()
        m = re.match(r"GG_API\s+(.*?)\b(gg_\w+)\s*\(", decl)
        if m is None:
            out.append((i + 1, decl.strip(), "", None))
            continue
        comment = None
        k = i - 1
        if k >= 0 and lines[k].rstrip().endswith("*/"):
            start = k
            while start >= 0 and "/*" not in lines[start]:
                start -= 1
            if start >= 0 and lines[start].lstrip().startswith("/**"):
                comment = "\n".join(lines[start:k + 1])
        out.append((i + 1, m.group(2), m.group(1).strip(), comment))
    return out


def main(paths):
    failures = []
    count = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for line, name, returns, comment in declarations(text):
            count += 1
            if comment is None:
                failures.append(f"{path}:{line}: {name} has no contract comment "
                                "(a /** ... */ comment just before it)")
            elif returns == "gg_status" and not re.search(r"\bGG_[A-Z_]+\b", comment):
                failures.append(f"{path}:{line}: {name}'s comment names no status it returns")
    if count == 0:
        failures.append("no GG_API declaration found: is this the right header?")
    for f in failures:
        print(f)
    if failures:
        print(f"{len(failures)} problem(s) in {count} GG_API declaration(s)")
        return 1
    print(f"header docs check passed: {count} GG_API declarations, each with a contract comment")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
