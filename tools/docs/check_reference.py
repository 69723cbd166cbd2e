#!/usr/bin/python3
"""Fails when a public status, enum value, struct field or type is not
documented, or (with --html) missing from the generated reference.

The header is the truth: every `typedef enum` and `typedef struct` of the
given public headers, their enumerators and fields, and every status of
GG_STATUS_LIST (gg_status is generated from that list, so Doxygen must
expand it: docs/Doxyfile's EXPAND_AS_DEFINED). Documented means a Doxygen
comment: `/** ... */` just before the type, and for a member `/**< ... */`
after it or `/** ... */` just before it; a status is documented by its
message in the list. Names with a double underscore (GG__STATUS_COUNT) are
private and skipped.

With --html DIR (scripts/docs.sh's build/docs/html), each of them must be
in the reference with its text: an enumerator (statuses included) in its
header's page with a non-empty description, a field in its struct's page
with a description.

    check_reference.py [--html DIR] HEADER...
"""
import html
import os
import re
import sys

COMMENT = re.compile(r"/\*.*?\*/", re.S)
TYPEDEF = re.compile(r"typedef\s+(enum|struct)\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", re.S)
STATUS = re.compile(r'X\(\s*(\w+)\s*,\s*(\d+)\s*,\s*"([^"]*)"\s*\)')


def split_code(body, offset):
    """The body's code pieces and comments, in order: (kind, text, start, end)
    with kind "code" or "comment", positions in the whole file."""
    pieces, pos = [], 0
    for m in COMMENT.finditer(body):
        if m.start() > pos:
            pieces.append(("code", body[pos:m.start()], offset + pos, offset + m.start()))
        pieces.append(("comment", m.group(0), offset + m.start(), offset + m.end()))
        pos = m.end()
    if pos < len(body):
        pieces.append(("code", body[pos:], offset + pos, offset + len(body)))
    return pieces


def members(kind, body, offset):
    """(name, documented) for each member of an enum or struct body."""
    sep = "," if kind == "enum" else ";"
    done = []           # [name, documented] of the declarations ended
    last = []           # the members of the declaration ended last
    code = ""           # the declaration being read
    pending_doc = False  # a /** */ comment before the declaration being read

    def end_declaration():
        nonlocal code, last, pending_doc
        text = code.strip()
        code = ""
        if not text:
            return
        if kind == "enum":
            last = [[re.match(r"(\w+)", text).group(1), pending_doc]]
        elif re.search(r"\(\s*\*\s*\w+\s*\)\s*\(", text):  # a function pointer
            last = [[re.search(r"\(\s*\*\s*(\w+)\s*\)", text).group(1), pending_doc]]
        else:
            last = []
            for declarator in text.split(","):
                ident = re.findall(r"(\w+)\s*(?:\[[^\]]*\])*\s*$", declarator.strip())
                if ident:
                    last.append([ident[0], pending_doc])
        done.extend(last)
        pending_doc = False

    for piece_kind, text, _, _ in split_code(body, offset):
        if piece_kind == "comment":
            if text.startswith("/**<"):
                if code.strip():  # an enum's last value, with no comma after it
                    end_declaration()
                for m in last:
                    m[1] = True
            elif text.startswith("/**"):
                pending_doc = True
            continue
        parts = text.split(sep)
        for i, part in enumerate(parts):
            code += part
            if i < len(parts) - 1:
                end_declaration()
    end_declaration()
    return [(n, d) for n, d in done if "__" not in n]


def type_documented(text, start):
    """A /** ... */ comment ends just before position `start`."""
    before = text[:start]
    if not re.search(r"\*/[ \t]*\n[ \t]*$", before):  # on the line just before
        return False
    before = before.rstrip()
    opening = before.rfind("/*")
    return before[opening:].startswith("/**") and not before[opening:].startswith("/**<")


def read_header(path):
    """The header's types: (kind, name, [(member, documented)], documented),
    gg_status's members from GG_STATUS_LIST."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    types = []
    for m in TYPEDEF.finditer(text):
        kind, name, body = m.group(1), m.group(4), m.group(3)
        if "GG_STATUS_LIST" in body:
            mem = [("GG_" + s.group(1), bool(s.group(3).strip())) for s in STATUS.finditer(text)]
            if not mem:
                mem = [("GG_STATUS_LIST has no X(NAME, NUMBER, \"message\") entry", False)]
        else:
            mem = members(kind, body, m.start(3))
        types.append((kind, name, mem, type_documented(text, m.start())))
    return types


def html_page(html_dir, name):
    path = os.path.join(html_dir, name)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return f.read()


def doxygen_name(name):
    """Doxygen's file name for a C name: _ doubled."""
    return name.replace("_", "__")


def check_html(html_dir, header, types, failures):
    page_name = doxygen_name(os.path.basename(header)).replace(".", "_8") + ".html"
    page = html_page(html_dir, page_name)
    if page is None:
        failures.append(f"{html_dir}: no {page_name}, the page of {header}")
        return 0
    checked = 0
    for kind, name, mem, _ in types:
        if kind == "enum":
            for member, _ in mem:
                checked += 1
                m = re.search(r'<td class="fieldname"><a id="[^"]*"[^>]*></a>' + re.escape(member) +
                              r'&#160;</td><td class="fielddoc">(.*?)</td>', page, re.S)
                if m is None:
                    failures.append(f"{header}: {name} value {member} is not in the reference ({page_name})")
                elif not html.unescape(re.sub(r"<[^>]*>", "", m.group(1))).strip():
                    failures.append(f"{header}: {name} value {member} has no text in the reference")
            continue
        struct_page = "struct" + doxygen_name(name) + ".html"
        spage = html_page(html_dir, struct_page)
        if spage is None:
            failures.append(f"{header}: struct {name} has no page in the reference ({struct_page})")
            continue
        for member, _ in mem:
            checked += 1
            m = re.search(r'<tr class="memitem:(\w+)">(?:(?!</tr>).)*?>' + re.escape(member) + r'</a>', spage, re.S)
            if m is None:
                failures.append(f"{header}: {name}.{member} is not in the reference ({struct_page})")
            elif f'<tr class="memdesc:{m.group(1)}">' not in spage:
                failures.append(f"{header}: {name}.{member} has no text in the reference ({struct_page})")
    return checked


def main(argv):
    html_dir = None
    if argv[:1] == ["--html"]:
        html_dir, argv = argv[1], argv[2:]
    failures = []
    count = html_count = 0
    for header in argv:
        types = read_header(header)
        if not types:
            failures.append(f"{header}: no typedef enum or struct found: is this the right header?")
        for kind, name, mem, documented in types:
            count += 1
            if not documented:
                failures.append(f"{header}: {kind} {name} has no /** ... */ comment just before it")
            for member, member_documented in mem:
                count += 1
                if not member_documented:
                    failures.append(f"{header}: {name} member {member} is not documented "
                                    "(/**< ... */ after it or /** ... */ before it)")
        if html_dir is not None:
            html_count += check_html(html_dir, header, types, failures)
    for f in failures:
        print(f)
    if failures:
        print(f"{len(failures)} problem(s) in {count} types and members")
        return 1
    where = f", {html_count} members found in {html_dir}" if html_dir else ""
    print(f"reference check passed: {count} types and members documented{where}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
