#!/usr/bin/python3
"""The interposer's pass-through exports: every function of the real CUDA
driver and HIP runtime that it does not wrap gets an exported trampoline of
the same name (and, for HIP, the same symbol version) that jumps to the real
function, so that a program linked against any of them starts and runs over
the interposer. The trampolines are x86-64 assembly: they never touch the
arguments, so they need no signature.

The export lists are facts measured on real libraries, kept in
src/intercept/exports/ (one "NAME VERSION RESULT" per line; VERSION "-" for
none; RESULT what the function returns: "error" (a CUresult / hipError_t:
the interposer may count and fail its calls), "text" (a const char *), or
"other" (anything else, or not declared: only ever passed through)):

  gen_passthrough.py list LIBRARY [HEADER_DIR] > FILE
        list LIBRARY's exported functions; RESULT from the declarations in
        HEADER_DIR's headers (HIP), else from the name (every cu[A-Z]
        function of the CUDA driver returns a CUresult: cuda.h)
  gen_passthrough.py check FILE LIBRARY [HEADER_DIR]
        exit 1 if LIBRARY exports a function FILE lacks (or, with
        HEADER_DIR, if a RESULT differs from what the headers declare)
  gen_passthrough.py generate ROOT OUTDIR
        write the trampolines (.S), their names (.c), the version script of
        the full interposer (intercept.map), one per CUDA line variant
        (intercept-VARIANT.map: the wrapped functions of LINES_LIST newer
        than the variant are local) and the variants' table for gpuguard
        (intercept_lines.h)
  gen_passthrough.py variants ROOT
        print the variants' names, one a line (for CMake)
  gen_passthrough.py check-sim-map ROOT
        exit 1 unless the simulator's 11.x export map hides exactly the
        functions LINES_LIST names (a ctest of tests/sim)
"""
import os
import re
import subprocess
import sys

CUDA_LIST = "src/intercept/exports/libcuda.so.1-535.txt"
CUDA_LIST_VERSION = (12, 2)  # the CUDA version of the driver CUDA_LIST was measured on
LINES_LIST = "src/intercept/exports/cuda-lines.txt"
SIM_CUDA11_MAP = "src/sim/cuda/sim_cuda11.map"
HIP_LIST = "src/intercept/exports/libamdhip64.so.5-5.2.3.txt"
WRAPPED = ["src/intercept/intercept_functions.h", "src/intercept/intercept_hip_functions.h"]
# The HIP runtime's version nodes, oldest first, each inheriting the one before.
HIP_NODES = ["hip_4.2", "hip_4.3", "hip_4.4", "hip_4.5", "hip_5.0", "hip_5.1", "hip_5.2"]
RESULT_CODES = {"error": 0, "text": 1, "other": 2}  # gg_icpt_pass_result


def exported_functions(library):
    """(name, version) of each function LIBRARY defines, from readelf."""
    out = subprocess.run(["readelf", "--dyn-syms", "-W", library], check=True, capture_output=True,
                         text=True).stdout
    found = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or f[3] not in ("FUNC", "IFUNC") or f[6] == "UND" or f[4] not in ("GLOBAL", "WEAK"):
            continue
        name, _, version = f[7].partition("@")
        found.add((name, version.lstrip("@") or "-"))
    return sorted(found)


def declared_results(header_dir):
    """{name: "error" | "text"} for the functions HEADER_DIR's headers declare
    as returning hipError_t or const char *."""
    results = {}
    for folder, _, files in os.walk(header_dir):
        for f in sorted(files):
            if not f.endswith(".h"):
                continue
            text = open(os.path.join(folder, f), errors="replace").read()
            text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
            text = re.sub(r"//[^\n]*", "", text)
            for m in re.finditer(r"\bhipError_t\s+(\w+)\s*\(", text):
                results[m.group(1)] = "error"
            for m in re.finditer(r"\bconst\s+char\s*\*\s*(\w+)\s*\(", text):
                results.setdefault(m.group(1), "text")
    return results


def result_of(name, declared):
    if declared is None:
        return "error" if re.match(r"cu[A-Z]", name) else "other"
    return declared.get(name, "other")


def read_list(path):
    """(name, version, result) of each row of an export list."""
    rows = []
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            name, version, result = line.split()
            if result not in RESULT_CODES:
                sys.exit("%s: %s: unknown result %r" % (path, name, result))
            rows.append((name, version, result))
    return rows


def wrapped_names(root):
    names = set()
    for header in WRAPPED:
        names.update(re.findall(r"^GG_ICPT_FN\((\w+),", open(os.path.join(root, header)).read(), flags=re.M))
    return names


def version_of(text):
    major, _, minor = text.partition(".")
    return (int(major), int(minor or 0))


def read_lines(root, wrapped, cuda_names):
    """(name, (major, minor)) of each row of LINES_LIST, checked against the
    wrapped functions, the 535 export list and the simulator's 11.x map."""
    path = os.path.join(root, LINES_LIST)
    rows = []
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            name, version = line.split()
            rows.append((name, version_of(version)))
    listed = {n for n, _ in rows}
    problems = []
    for name, version in rows:
        if name not in wrapped:
            problems.append("%s is not a wrapped function" % name)
        elif (version <= CUDA_LIST_VERSION) != (name in cuda_names):
            problems.append("%s (from %d.%d) is %sin %s" % (name, version[0], version[1],
                            "not " if name not in cuda_names else "", CUDA_LIST))
    for name in sorted(wrapped):
        if name.startswith("cu") and name not in cuda_names and name not in listed:
            problems.append("%s is wrapped but neither in %s nor listed" % (name, CUDA_LIST))
    if problems:
        sys.exit("%s: %s" % (path, "; ".join(problems)))
    return rows


def check_sim_map(root):
    """Exit 1 unless the simulator's 11.x library hides exactly the functions
    LINES_LIST names (both imitate a driver older than those functions). A
    check run by a ctest (tests/sim), not by the interposer's build: the
    interposer's inputs never include the simulator's files."""
    listed = set()
    for line in open(os.path.join(root, LINES_LIST)):
        line = line.strip()
        if line and not line.startswith("#"):
            listed.add(line.split()[0])
    sim_map = open(os.path.join(root, SIM_CUDA11_MAP)).read()
    local = set(re.findall(r"^\s*(cu\w+);", sim_map.split("local:", 1)[1], flags=re.M))
    if local != listed:
        sys.exit("%s hides %s, %s names %s" % (SIM_CUDA11_MAP, sorted(local), LINES_LIST, sorted(listed)))
    print("%s hides the %d functions %s names" % (SIM_CUDA11_MAP, len(local), LINES_LIST))


def variants(rows):
    """(directory name, newest version presented) of each variant but the
    full one, oldest first: cuda11 presents none of the listed functions."""
    versions = sorted({v for _, v in rows})
    return [("cuda11", (0, 0))] + [("cuda%d.%d" % v, v) for v in versions[:-1]]


def generate(root, outdir):
    wrapped = wrapped_names(root)
    cuda = [(n, v, 0, r) for n, v, r in read_list(os.path.join(root, CUDA_LIST)) if n not in wrapped]
    hip_rows = read_list(os.path.join(root, HIP_LIST))
    hip = [(n, v, 1, r) for n, v, r in hip_rows if n not in wrapped]
    rows = cuda + hip
    asm = ["/* Generated by tools/intercept/gen_passthrough.py: do not edit. */",
           "\t.text"]
    for i, (name, _, _, _) in enumerate(rows):
        asm += ["\t.globl %s" % name, "\t.type %s, @function" % name, "\t.p2align 4", "%s:" % name,
                "\tjmp *gg_icpt_pass_slots+%d(%%rip)" % (8 * i), "\t.size %s, .-%s" % (name, name)]
    for i in range(len(rows)):
        asm += [".Llazy_%d:" % i, "\tmovl $%d, %%r11d" % i, "\tjmp gg_icpt_pass_lazy"]
    # The trampolines' own addresses, by row (cuGetProcAddress hands them
    # out in place of the driver's pointers while the interposer watches).
    asm += ["\t.section .data.rel.ro,\"aw\"", "\t.p2align 3", "\t.globl gg_icpt_pass_entries",
            "\t.hidden gg_icpt_pass_entries", "gg_icpt_pass_entries:"]
    asm += ["\t.quad %s" % name for name, _, _, _ in rows]
    asm += ["\t.data", "\t.p2align 3", "\t.globl gg_icpt_pass_slots", "\t.hidden gg_icpt_pass_slots",
            "gg_icpt_pass_slots:"]
    asm += ["\t.quad .Llazy_%d" % i for i in range(len(rows))]
    asm += ["\t.section .note.GNU-stack,\"\",@progbits", ""]
    c = ["/* Generated by tools/intercept/gen_passthrough.py: do not edit. */",
         "#include \"intercept_passthrough.h\"",
         "const gg_icpt_pass_row gg_icpt_pass_rows[GG_ICPT_PASS_COUNT] = {"]
    c += ["    { \"%s\", %s, %d, %d }," % (n, "NULL" if v == "-" else "\"%s\"" % v, face, RESULT_CODES[r])
          for n, v, face, r in rows]
    c += ["};", ""]
    h = ["/* Generated by tools/intercept/gen_passthrough.py: do not edit. */",
         "#define GG_ICPT_PASS_COUNT %d" % len(rows), ""]
    # Every HIP function (wrapped or not) in its runtime's node; the CUDA
    # driver has no symbol versions: its functions go in the interposer's own.
    hip_version = {n: v for n, v, _ in hip_rows}
    nodes = {v: [] for v in HIP_NODES}
    for name in sorted(wrapped):
        if name.startswith("hip"):
            nodes[hip_version.get(name, HIP_NODES[0])].append(name)
    for name, version, _, _ in hip:
        nodes[version].append(name)
    vs = ["/* Generated by tools/intercept/gen_passthrough.py: do not edit. The HIP",
          " * runtime's version nodes (as libamdhip64.so.5 5.2.3 defines them), so that a",
          " * program linked against the real runtime finds every versioned symbol; the",
          " * CUDA driver's functions carry no version there, and bind to these. */"]
    for k, v in enumerate(HIP_NODES):
        vs.append("%s {\n  global:\n%s\n}%s;" % (v, "\n".join("    %s;" % n for n in sorted(nodes[v])),
                                                 " " + HIP_NODES[k - 1] if k else ""))
    own_node = "GPUGUARD_INTERCEPT_0.1 {\n  global:\n    cu*;\n    gg_intercept_marker;\n  local:\n%s    *;\n};\n"
    outputs = [("intercept_passthrough_table.S", asm), ("intercept_passthrough_names.c", c),
               ("intercept_passthrough_count.h", h), ("intercept.map", vs + [own_node % ""])]
    # The variants for older drivers: the same, less the wrapped functions
    # their drivers do not export (named locals win over the cu* wildcard).
    lines = read_lines(root, wrapped, {n for n, _, _ in read_list(os.path.join(root, CUDA_LIST))})
    for variant, newest in variants(lines):
        hidden = "".join("    %s;\n" % n for n, v in sorted(lines) if v > newest)
        outputs.append(("intercept-%s.map" % variant, vs + [own_node % hidden]))
    table = ["/* Generated by tools/intercept/gen_passthrough.py from %s: do not edit. */" % LINES_LIST,
             "/* The wrapped functions not every CUDA driver exports, with the version (1000 * major",
             " * + 10 * minor) whose driver first exports each. */",
             "static const struct { const char *name; int version; } gg_icpt_line_functions[] = {"]
    table += ["    { \"%s\", %d }," % (n, 1000 * v[0] + 10 * v[1]) for n, v in lines]
    table += ["};", "/* The interposer's variants, oldest first: the directory (under the full",
              " * interposer's; \"\" for the full one itself) and the newest version it presents. */",
              "static const struct { const char *dir; int version; } gg_icpt_line_variants[] = {"]
    table += ["    { \"%s\", %d }," % (d, 1000 * v[0] + 10 * v[1]) for d, v in variants(lines)]
    newest = max(v for _, v in lines)
    table += ["    { \"\", %d }," % (1000 * newest[0] + 10 * newest[1]), "};", ""]
    outputs.append(("intercept_lines.h", table))
    os.makedirs(outdir, exist_ok=True)
    for name, lines in outputs:
        text = "\n".join(lines) + "\n"
        path = os.path.join(outdir, name)
        if not os.path.exists(path) or open(path).read() != text:
            with open(path, "w") as f:
                f.write(text)


def main():
    if len(sys.argv) in (3, 4) and sys.argv[1] == "list":
        declared = declared_results(sys.argv[3]) if len(sys.argv) == 4 else None
        print("# Exported functions of %s (tools/intercept/gen_passthrough.py list): NAME VERSION RESULT"
              % os.path.basename(sys.argv[2]))
        for name, version in exported_functions(sys.argv[2]):
            print(name, version, result_of(name, declared))
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "check-sim-map":
        return check_sim_map(sys.argv[2])
    if len(sys.argv) in (4, 5) and sys.argv[1] == "check":
        rows = read_list(sys.argv[2])
        listed = {(n, v) for n, v, _ in rows}
        bad = 0
        for name, version in exported_functions(sys.argv[3]):
            if (name, version) not in listed:
                print("%s exports %s (%s), which %s does not list" % (sys.argv[3], name, version, sys.argv[2]))
                bad += 1
        if len(sys.argv) == 5:
            declared = declared_results(sys.argv[4])
            for name, _, result in rows:
                if result != result_of(name, declared):
                    print("%s: %s returns %s by the headers in %s, listed as %s"
                          % (sys.argv[2], name, result_of(name, declared), sys.argv[4], result))
                    bad += 1
        return 1 if bad else 0
    if len(sys.argv) == 3 and sys.argv[1] == "variants":
        root = sys.argv[2]
        wrapped = wrapped_names(root)
        cuda_names = {n for n, _, _ in read_list(os.path.join(root, CUDA_LIST))}
        for variant, _ in variants(read_lines(root, wrapped, cuda_names)):
            print(variant)
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "generate":
        generate(sys.argv[2], sys.argv[3])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
