"""Dumps a shared library's ABI with abigail-tools and reads the dump back.

Shared by check_abi.py and update_baseline.py (tools/abi/README.md says
what is compared and why). The dump is abidw's XML, limited to what the
public headers declare (--headers-dir): the exported functions and the types reachable
from them (--exported-interfaces-only, --drop-private-types), without
paths or source lines, so that it does not change with the checkout's
folder or with edits that only move lines (--no-comp-dir-path,
--no-corpus-path, --no-show-locs; --short-locs names each translation unit
by its file name alone), with type ids derived from the types
(--type-id-style hash) so that a regenerated baseline differs only where
the ABI does.
"""
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

# The exit status a ctest reports as skipped (SKIP_RETURN_CODE).
SKIP = 77


class AbiToolError(Exception):
    """abidw or abidiff is missing or failed; the message says which."""


def find_tool(name):
    """The path of an abigail-tools program; AbiToolError if not installed."""
    path = shutil.which(name)
    if path is None:
        raise AbiToolError(
            f"{name} not found: install Debian's abigail-tools "
            "(apt-get install abigail-tools; scripts/test.sh does it)")
    return path


def dump(library, header_dirs, out_file):
    """Writes LIBRARY's ABI, as declared by the headers in HEADER_DIRS (a
    list of folders), to OUT_FILE (abidw XML). Raises AbiToolError when
    abidw fails or the library has no debug info (without DWARF the dump
    holds symbols only and no layout)."""
    cmd = [find_tool("abidw")]
    for folder in header_dirs:
        cmd += ["--headers-dir", str(Path(folder).resolve())]
    cmd += ["--drop-private-types", "--exported-interfaces-only",
           "--no-comp-dir-path", "--no-corpus-path", "--no-show-locs", "--short-locs",
           "--type-id-style", "hash", "--out-file", out_file, library]
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise AbiToolError(f"abidw failed ({run.returncode}): {run.stderr.strip()}")
    corpus = read(out_file)
    if corpus.symbols and not corpus.functions:
        raise AbiToolError(
            f"{library} has no debug info, so its struct layouts cannot be "
            "read: build it with -g (CMAKE_BUILD_TYPE RelWithDebInfo or Debug)")
    return corpus


class Corpus:
    """What one dump says: exported symbols, public structs, public enums.

    soname: the library's SONAME ("" if none).
    symbols: set of exported function and variable names.
    functions: names of the exported functions abidw described (empty when
        the library has no debug info).
    structs: name -> (size in bits, [(member, offset in bits, type)]), type
        a string spelling the member's type in full (pointers, qualifiers,
        arrays, function types; a struct or enum by name, compared on its
        own).
    enums: name -> (size in bits, {enumerator: value}).
    by_value: names of the structs an exported function takes or returns by
        value (their size is part of the calling convention: they cannot
        grow even with struct_size).
    """

    def __init__(self):
        self.soname = ""
        self.symbols = set()
        self.functions = set()
        self.structs = {}
        self.enums = {}
        self.by_value = set()


def read(path):
    """Reads an abidw XML dump into a Corpus."""
    root = ET.parse(path).getroot()
    corpus = Corpus()
    corpus.soname = root.get("soname", "")
    for sym in root.iter("elf-symbol"):
        if sym.get("is-defined", "yes") == "yes":
            corpus.symbols.add(sym.get("name"))
    types = {}
    for element in root.iter():
        if element.get("id") is not None:
            # A struct appears once per translation unit, sometimes as a
            # bare declaration: keep the definition.
            known = types.get(element.get("id"))
            if known is None or known.get("is-declaration-only") == "yes":
                types[element.get("id")] = element
    for fn in root.iter("function-decl"):
        if fn.get("elf-symbol-id"):
            corpus.functions.add(fn.get("name"))
            for value in fn.findall("parameter") + fn.findall("return"):
                name = _struct_named(value.get("type-id"), types)
                if name:
                    corpus.by_value.add(name)
    for element in types.values():
        name = element.get("name")
        if not name or element.get("is-anonymous") == "yes":
            continue
        if element.tag in ("class-decl", "union-decl") and \
                element.get("is-declaration-only") != "yes":
            corpus.structs[name] = _layout(element, types)
        elif element.tag == "enum-decl":
            values = {e.get("name"): int(e.get("value"))
                      for e in element.findall("enumerator")}
            corpus.enums[name] = (int(element.get("size-in-bits", "0")), values)
    return corpus


def _struct_named(type_id, types):
    """The name of the struct TYPE_ID is, through typedefs and qualifiers;
    None for any other type (a pointer included)."""
    for _ in range(32):
        element = types.get(type_id)
        if element is None:
            return None
        if element.tag in ("typedef-decl", "qualified-type-def"):
            type_id = element.get("type-id")
            continue
        if element.tag in ("class-decl", "union-decl"):
            return element.get("name") or None
        return None
    return None


def _layout(element, types):
    members = []
    for member in element.findall("data-member"):
        var = member.find("var-decl")
        members.append((var.get("name"), int(member.get("layout-offset-in-bits", "0")),
                        _spell(var.get("type-id"), types, 0)))
    return int(element.get("size-in-bits", "0")), members


def _spell(type_id, types, depth):
    """The type TYPE_ID in full, as a string: equal strings, equal types.
    Named structs and enums stop the descent (they are compared by name
    here and on their own elsewhere), which also ends self-reference."""
    element = types.get(type_id)
    if element is None or depth > 32:
        return f"?{type_id}"
    tag, name = element.tag, element.get("name", "")
    below = element.get("type-id")
    if tag == "type-decl":
        return f"{name}:{element.get('size-in-bits', '0')}"
    if tag in ("class-decl", "union-decl", "enum-decl"):
        kind = {"class-decl": "struct", "union-decl": "union", "enum-decl": "enum"}[tag]
        if name and element.get("is-anonymous") != "yes":
            return f"{kind} {name}"
        if tag == "enum-decl":
            inner = ",".join(f"{e.get('name')}={e.get('value')}"
                             for e in element.findall("enumerator"))
        else:
            size, members = _layout(element, types)
            inner = ",".join(f"{m}@{o}:{t}" for m, o, t in members) + f";{size}"
        return f"{kind} {{{inner}}}"
    if tag == "typedef-decl":
        return f"{name}=({_spell(below, types, depth + 1)})"
    if tag == "pointer-type-def":
        return f"{_spell(below, types, depth + 1)}*"
    if tag == "qualified-type-def":
        quals = [q for q in ("const", "volatile", "restrict") if element.get(q) == "yes"]
        return f"{' '.join(quals)} {_spell(below, types, depth + 1)}"
    if tag == "array-type-def":
        dims = "".join(f"[{s.get('length')}]" for s in element.findall("subrange"))
        return f"{_spell(below, types, depth + 1)}{dims}"
    if tag == "function-type":
        params = ",".join("..." if p.get("is-variadic") == "yes"
                          else _spell(p.get("type-id"), types, depth + 1)
                          for p in element.findall("parameter"))
        ret = element.find("return")
        ret_spelled = _spell(ret.get("type-id"), types, depth + 1) if ret is not None else "void"
        return f"fn({params})->{ret_spelled}"
    return f"{tag}:{name}"
