#!/usr/bin/python3
"""Fails when a built libgpuguard.so breaks the ABI of the committed baseline.

usage: tools/abi/check_abi.py [--baseline FILE] [--headers DIR] [--prefix P]
                              [--update-command CMD] LIBRARY
  e.g. tools/abi/check_abi.py build/lib/libgpuguard.so   (ctest abi_check)

Compares LIBRARY (built with -g) against FILE (default
tools/abi/baseline/libgpuguard.abi) through the declarations of the public
headers (default: those in include/gpuguard), twice over:
- abidiff (abigail-tools): removed symbols, changed function signatures,
  changed enums, changed struct layouts. Added symbols are not counted
  (--no-added-syms), and the appending of members to a struct that carries
  a `struct_size` member is suppressed (a generated suppression file).
- its own comparison of every public struct and enum, because abidiff's
  "has_data_member_inserted_at = end" suppression also hides a changed type
  or offset of an existing member and a member appended into the old tail
  padding (libabigail 2.2; tests/abi shows both): an existing member must
  keep its name, offset and type; new members may only follow the old size,
  and only in a struct with `struct_size` that no exported function passes
  by value (a member named reserved_* may name the old tail padding, to make
  room, if nothing in src/ mentions it); enumerators keep their values; the
  SONAME stays.
- exported symbols must start with P (default gg_) and never with P + "_"
  (gg__: internal, must be hidden).
Additions (new symbols, structs, enumerators, appended members of a
growable struct) are listed and pass. Exit status: 0 compatible, 1 break,
2 error, 77 abigail-tools not installed (ctest reports it skipped).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import abi_dump  # noqa: E402  (the folder is put on the path just above)

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BASELINE = ROOT / "tools/abi/baseline/libgpuguard.abi"
DEFAULT_HEADERS = ROOT / "include/gpuguard"
# The member that makes a struct growable: a caller sets it to the size of
# the struct it was compiled with, so the library reads and writes only that.
GROWABLE_MEMBER = "struct_size"


def growable(corpus):
    """Names of the structs of CORPUS that carry a struct_size member and
    that no exported function takes or returns by value."""
    return sorted(name for name, (_, members) in corpus.structs.items()
                  if any(m == GROWABLE_MEMBER for m, _, _ in members)
                  and name not in corpus.by_value)


def compare(old, new, prefix):
    """The differences from OLD to NEW (Corpus): (breaks, additions), each a
    list of sentences."""
    breaks, additions = [], []
    internal = prefix + "_"
    if old.soname != new.soname:
        breaks.append(f"SONAME {old.soname or '(none)'} -> {new.soname or '(none)'}: "
                      "a new SOVERSION says the ABI broke on purpose")
    for sym in sorted(new.symbols):
        if sym.startswith(internal) or not sym.startswith(prefix):
            breaks.append(f"exports {sym}, which is not public API (symbols must "
                          f"start with {prefix} and not {internal}): hide it")
    for sym in sorted(old.symbols - new.symbols):
        breaks.append(f"symbol {sym} removed")
    for sym in sorted(new.symbols - old.symbols):
        additions.append(f"symbol {sym} added")
    grows = set(growable(old))
    for name in sorted(old.structs):
        if name not in new.structs:
            breaks.append(f"struct {name} removed (or no exported function reaches it)")
            continue
        breaks_of, added_of = _compare_struct(name, old.structs[name], new.structs[name],
                                              name in grows and name not in new.by_value)
        breaks += breaks_of
        additions += added_of
    for name in sorted(set(new.structs) - set(old.structs)):
        additions.append(f"struct {name} added")
    for name in sorted(old.enums):
        if name not in new.enums:
            breaks.append(f"enum {name} removed (or no exported function reaches it)")
            continue
        (old_size, old_values), (new_size, new_values) = old.enums[name], new.enums[name]
        if old_size != new_size:
            breaks.append(f"enum {name}: size {old_size} -> {new_size} bits")
        for key, value in sorted(old_values.items()):
            if key not in new_values:
                breaks.append(f"enum {name}: {key} removed")
            elif new_values[key] != value:
                breaks.append(f"enum {name}: {key} = {value} -> {new_values[key]}")
        for key in sorted(set(new_values) - set(old_values)):
            additions.append(f"enum {name}: {key} = {new_values[key]} added")
    for name in sorted(set(new.enums) - set(old.enums)):
        additions.append(f"enum {name} added")
    return breaks, additions


# A member whose name starts with this, added inside a struct's old size,
# names what was tail padding: an old caller's struct_size covers it with
# whatever its padding held, so the library must never read it (checked by
# looking for the name anywhere in src/).
RESERVED_PREFIX = "reserved_"


def _readers_of(member):
    """Files under src/ that mention MEMBER (as a whole word)."""
    pattern = re.compile(r"\b" + re.escape(member) + r"\b")
    found = []
    for path in sorted((ROOT / "src").rglob("*")):
        if path.suffix in (".c", ".h", ".cc", ".cpp") and pattern.search(path.read_text(errors="replace")):
            found.append(str(path.relative_to(ROOT)))
    return found


def _compare_struct(name, old, new, can_grow):
    """Breaks and additions from OLD to NEW layout of struct NAME; CAN_GROW:
    it carries struct_size and no exported function passes it by value.
    Members are matched by name: a renamed one reads as removed and added."""
    (old_size, old_members), (new_size, new_members) = _named(old), _named(new)
    changed, moved, additions = [], [], []
    new_by_name = {member: (offset, spelled) for member, offset, spelled in new_members}
    old_names = {member for member, _, _ in old_members}
    for member, offset, spelled in old_members:
        if member not in new_by_name:
            changed.append(f"member {member} removed (or renamed)")
            continue
        new_offset, new_spelled = new_by_name[member]
        if new_offset != offset:
            moved.append(f"member {member} moved from bit {offset} to {new_offset}")
        if new_spelled != spelled:
            was, now = _readable(spelled), _readable(new_spelled)
            if was == now:
                was, now = spelled, new_spelled  # the difference is below the names
            changed.append(f"member {member}: type {was} -> {now}")
    added = [(member, offset) for member, offset, _ in new_members if member not in old_names]
    for member, offset in added:
        if offset < old_size and member.startswith(RESERVED_PREFIX):
            # Old tail padding given a name, which only makes room for the
            # members after it: compatible while the library never reads it.
            readers = _readers_of(member)
            if readers:
                changed.append(f"member {member} names the old tail padding at bit {offset}, but the library "
                               f"reads it ({', '.join(readers)}): a caller built before holds its padding there")
            else:
                additions.append(f"struct {name}: member {member} names the old tail padding at bit {offset} "
                                 f"(never read in src/)")
            continue
        if offset < old_size:
            # Tail padding included: an old caller's struct_size covers it, so
            # the library would take the caller's padding for the new member.
            changed.append(f"member {member} inserted at bit {offset}, inside the old "
                           f"size ({old_size} bits, its tail padding included)")
        elif not can_grow:
            changed.append(f"member {member} appended at bit {offset} to a struct without "
                           f"{GROWABLE_MEMBER} or passed by value: its size is part of the ABI")
        else:
            additions.append(f"struct {name}: member {member} appended at bit {offset}")
    # Causes first: the members after an insertion usually just moved with it.
    changed += moved
    if new_size != old_size and not (can_grow and added and new_size > old_size):
        changed.append(f"size {old_size} -> {new_size} bits")
    breaks = [f"struct {name}: {line}" for line in changed[:4]]
    if len(changed) > 4:
        breaks.append(f"struct {name}: and {len(changed) - 4} more changes")
    return breaks, additions


def _named(layout):
    """LAYOUT with a name for each unnamed member (its position)."""
    size, members = layout
    return size, [(member or f"(unnamed #{index})", offset, spelled)
                  for index, (member, offset, spelled) in enumerate(members)]


def _readable(spelled):
    """SPELLED (abi_dump's full spelling) as C would write it: typedefs by
    their name, without the sizes."""
    out, depth = [], 0
    index = 0
    while index < len(spelled):
        if spelled.startswith("=(", index) and depth == 0:
            depth, index = 1, index + 2
            continue
        char = spelled[index]
        if depth:
            depth += {"(": 1, ")": -1}.get(char, 0)
        else:
            out.append(char)
        index += 1
    return re.sub(r":\d+", "", "".join(out))


def run_abidiff(baseline, current_dump, suppress):
    """abidiff's verdict: (status, report). Status bits (abidiff's manual):
    1 error, 2 usage error, 4 ABI change, 8 incompatible change (a removed
    symbol). With added symbols and growable appends left out, 4 and 8 are
    both breaks here."""
    cmd = [abi_dump.find_tool("abidiff"), "--no-default-suppression", "--no-added-syms"]
    with tempfile.TemporaryDirectory() as tmp:
        if suppress:
            supp = os.path.join(tmp, "growable.suppr")
            with open(supp, "w", encoding="utf-8") as out:
                out.write("[suppress_type]\n  type_kind = struct\n"
                          f"  name_regexp = ^({'|'.join(map(re.escape, suppress))})$\n"
                          "  has_data_member_inserted_at = end\n")
            cmd += ["--suppressions", supp]
        run = subprocess.run(cmd + [str(baseline), current_dump],
                             capture_output=True, text=True, check=False)
    return run.returncode, (run.stdout + run.stderr).strip()


def default_update_command(library):
    """The one command that accepts LIBRARY's ABI as the new baseline."""
    build_dir = Path(library).resolve().parent.parent
    try:
        build_dir = build_dir.relative_to(ROOT)
    except ValueError:
        pass
    return f"tools/abi/update_baseline.py {build_dir}"


def _shown(path):
    """PATH relative to the current folder when it is below it (shorter
    messages), else as given."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n", 1)[0],
        usage="tools/abi/check_abi.py [--baseline FILE] [--headers DIR] [--prefix P] "
              "[--update-command CMD] LIBRARY")
    parser.add_argument("library")
    parser.add_argument("--baseline", default=str(DEFAULT_BASELINE))
    parser.add_argument("--headers", action="append", metavar="DIR",
                        help="a folder of public headers (repeatable; "
                             "default include/gpuguard)")
    parser.add_argument("--prefix", default="gg_")
    parser.add_argument("--update-command")
    args = parser.parse_args()
    update = args.update_command or default_update_command(args.library)

    if not Path(args.baseline).is_file():
        print(f"error: no baseline {args.baseline}; create it with: {update}")
        return 2
    try:
        abi_dump.find_tool("abidw")
        abi_dump.find_tool("abidiff")
    except abi_dump.AbiToolError as err:
        print(f"SKIP: {err}")
        return abi_dump.SKIP
    with tempfile.TemporaryDirectory() as tmp:
        current_dump = os.path.join(tmp, "current.abi")
        try:
            new = abi_dump.dump(args.library, args.headers or [DEFAULT_HEADERS], current_dump)
            old = abi_dump.read(args.baseline)
            status, report = run_abidiff(args.baseline, current_dump, growable(old))
        except abi_dump.AbiToolError as err:
            print(f"error: {err}")
            return 2
    if status & 3:
        print(f"error: abidiff failed ({status}):\n{report}")
        return 2
    breaks, additions = compare(old, new, args.prefix)
    if status & 12 and not breaks:
        breaks.append("abidiff reports an incompatible change (below)")

    print(f"ABI of {_shown(args.library)} against {_shown(args.baseline)}:")
    for line in additions:
        print(f"  added (compatible): {line}")
    if not breaks:
        print(f"ABI check passed: {len(new.symbols)} symbols, {len(new.structs)} structs, "
              f"{len(new.enums)} enums compatible with the baseline")
        if additions:
            print(f"Record the additions in the baseline, so that the check guards them "
                  f"too, with (from the repository root):\n    {update}")
        return 0
    for line in breaks:
        print(f"  BREAK: {line}")
    if report:
        print(f"abidiff (status {status}):\n{report}")
    print("ABI check FAILED: programs built against the baseline's header would "
          "misbehave with this library.\n"
          "If the change is unintended, undo it (grow a struct only by appending "
          f"members to one with {GROWABLE_MEMBER}; add functions rather than change "
          "them).\n"
          "If it is intended (a release that breaks the ABI on purpose, with a new "
          "SOVERSION), accept it, from the repository root, with\n"
          f"    {update}\n"
          f"and commit {_shown(args.baseline)} together with the change.")
    return 1


if __name__ == "__main__":
    sys.exit(main())
