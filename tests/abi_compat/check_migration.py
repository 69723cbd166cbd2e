#!/usr/bin/env python3
"""Checks docs/MIGRATION-0.3.md against the headers: every public name of
the 0.2 header (functions, types, macros) either still exists in the 0.3
header with the same declaration, or is named in the migration note; every
name the note gives as a 0.3 replacement exists; every 0.2 name the note
says is gone is really gone.

usage: check_migration.py OLD_HEADER NEW_HEADER VERSION_H_IN NOTE
       check_migration.py --git REV REPO NEW_HEADER VERSION_H_IN NOTE
(--git reads OLD_HEADER as REV:include/gpuguard/gpuguard.h from REPO; exit
77, skipped, where REPO has no git history.)"""
import re
import subprocess
import sys


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def names(text):
    return set(re.findall(r"\b(gg_[a-z0-9_]+|GG_[A-Z0-9_]+)\b", strip_comments(text)))


def declarations(text):
    """Name -> normalised declaration, for GG_API functions and typedef'd structs."""
    text = strip_comments(text)
    out = {}
    for m in re.finditer(r"GG_API\s+([^;]*?\b(gg_[a-z0-9_]+)\s*\([^;]*\))\s*;", text):
        out[m.group(2)] = " ".join(m.group(1).split())
    for m in re.finditer(r"typedef struct (gg_[a-z0-9_]+) \{(.*?)\} \1;", text, flags=re.S):
        out[m.group(1)] = " ".join(m.group(2).split())
    return out


def note_pairs(note):
    """(old, new) names from the note's tables: the first two columns."""
    pairs = []
    for line in note.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not line.startswith("|"):
            continue
        old = re.findall(r"`(gg_[a-z0-9_]+|GG_[A-Z0-9_]+)", cells[0])
        new = re.findall(r"`(gg_[a-z0-9_]+|GG_[A-Z0-9_]+)", cells[1])
        if old:
            pairs.append((old[0], new[0] if new else None))
    return pairs


def main(argv):
    if argv[:1] == ["--git"]:
        if len(argv) != 6:
            sys.exit(__doc__)
        rev, repo = argv[1], argv[2]
        try:
            old = subprocess.run(["git", "-C", repo, "show", "%s:include/gpuguard/gpuguard.h" % rev],
                                 check=True, capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            print("check_migration: no 0.2 header from git (%s): skipped" % e)
            return 77
        rest = argv[3:]
    else:
        if len(argv) != 4:
            sys.exit(__doc__)
        old = open(argv[0], encoding="utf-8").read()
        rest = argv[1:]
    new = open(rest[0], encoding="utf-8").read() + open(rest[1], encoding="utf-8").read()
    note = open(rest[2], encoding="utf-8").read()
    noted = set(re.findall(r"`(gg_[a-z0-9_]+|GG_[A-Z0-9_]+)", note))
    problems = []
    old_names, new_names = names(old), names(new)
    for name in sorted(old_names - new_names):
        if name not in noted:
            problems.append("%s: in the 0.2 header, gone from 0.3, not in the migration note" % name)
    old_decl, new_decl = declarations(old), declarations(new)
    for name in sorted(set(old_decl) & set(new_decl)):
        if old_decl[name] != new_decl[name] and name not in noted:
            problems.append("%s: its declaration changed, not in the migration note" % name)
    for old_name, new_name in note_pairs(note):
        if new_name is not None and old_name in old_names and new_name not in new_names:
            problems.append("%s -> %s: the replacement is not in the 0.3 header" % (old_name, new_name))
    for p in problems:
        print("check_migration:", p)
    if not problems:
        print("check_migration: %d names of 0.2 checked; %d gone or changed, all in the note" %
              (len(old_names), len([n for n in old_names - new_names]) +
               len([n for n in set(old_decl) & set(new_decl) if old_decl[n] != new_decl[n]])))
    return 1 if problems else 0


sys.exit(main(sys.argv[1:]))
