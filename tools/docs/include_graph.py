#!/usr/bin/python3
"""The layers of src/ as the code's #include lines draw them, and the rules
the layers keep.

    include_graph.py --write   rewrites the picture in docs/ARCHITECTURE.md
    include_graph.py --check   fails when the committed picture is not what
                               the code draws now (and says how to update it)
    include_graph.py --no-intercept-to-sim
                               fails when src/intercept depends on src/sim:
                               a file of src/intercept that includes one of
                               src/sim, directly or through other headers, or
                               src/intercept/CMakeLists.txt naming a path of
                               src/sim (an include directory, a generator's
                               input)
    include_graph.py --common-acyclic
                               fails when src/common has an include circle
                               spanning several files: among its headers
                               (file level), or among its modules (x.c and
                               x.h are one module; a module depends on
                               another when one of its files includes the
                               other's header)
    include_graph.py --print   prints the picture

Every option takes --root ROOT (default: this repository). A layer is a
folder: each file of src/ belongs to the folder it is in (src/sim/ptx is a
layer of its own), and the public headers to include/gpuguard. An arrow
A --> B says that a file of A includes a file of B. An include is resolved
as the compiler would: the including file's folder first, then the folders
its CMakeLists.txt puts on the include path, then src/ and include/;
what none of them holds (system headers, files generated into the build
tree) is not drawn.
"""
import os
import re
import sys

BEGIN = "<!-- include-graph: begin (tools/docs/include_graph.py --write) -->"
END = "<!-- include-graph: end -->"
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
SOURCES = (".c", ".h", ".S")
# A path of the source tree in a CMakeLists.txt.
CMAKE_PATH = re.compile(r"\$\{(PROJECT_SOURCE_DIR|CMAKE_CURRENT_SOURCE_DIR|CMAKE_SOURCE_DIR)\}(/[A-Za-z0-9_./-]*)?")


def repository_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def source_files(root):
    """Every C source, header and assembly file under src/ and include/,
    as paths relative to root."""
    files = []
    for top in ("src", "include"):
        for folder, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                if name.endswith(SOURCES):
                    files.append(os.path.relpath(os.path.join(folder, name), root))
    return files


def include_dirs_of(root, folder):
    """The source folders that folder's CMakeLists.txt (or the nearest one
    above it inside src/) puts on target include paths, relative to root."""
    probe = folder
    while probe.startswith("src") and not os.path.isfile(os.path.join(root, probe, "CMakeLists.txt")):
        probe = os.path.dirname(probe)
    path = os.path.join(root, probe, "CMakeLists.txt")
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    dirs = []
    for call in re.finditer(r"target_include_directories\s*\((.*?)\)", text, re.DOTALL):
        for var, rest in CMAKE_PATH.findall(call.group(1)):
            base = probe if var == "CMAKE_CURRENT_SOURCE_DIR" else ""
            rel = os.path.normpath(os.path.join(base, (rest or "").lstrip("/")))
            if os.path.isdir(os.path.join(root, rel)) and rel not in dirs:
                dirs.append(rel)
    return dirs


def include_edges(root):
    """{file: [included file, ...]} over source_files, includes resolved."""
    files = source_files(root)
    known = set(files)
    search_cache = {}
    edges = {}
    for path in files:
        folder = os.path.dirname(path)
        if folder not in search_cache:
            search_cache[folder] = [folder] + include_dirs_of(root, folder) + ["src", "include"]
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        targets = []
        for name in INCLUDE.findall(text):
            for base in search_cache[folder]:
                candidate = os.path.normpath(os.path.join(base, name))
                if candidate in known:
                    if candidate not in targets and candidate != path:
                        targets.append(candidate)
                    break
        edges[path] = targets
    return edges


def layer_of(path):
    return os.path.dirname(path)


def layer_edges(edges):
    """Sorted (from layer, to layer) pairs, self-arrows left out."""
    pairs = set()
    for source, targets in edges.items():
        for target in targets:
            if layer_of(source) != layer_of(target):
                pairs.add((layer_of(source), layer_of(target)))
    return sorted(pairs)


def node_id(layer):
    return re.sub(r"[^A-Za-z0-9]", "_", layer)


def picture(edges):
    """The Mermaid flowchart of the layers, as committed in ARCHITECTURE.md."""
    layers = sorted(set(layer_of(p) for p in edges))
    lines = ["```mermaid", "flowchart TD"]
    for layer in layers:
        lines.append('    %s["%s"]' % (node_id(layer), layer))
    for source, target in layer_edges(edges):
        lines.append("    %s --> %s" % (node_id(source), node_id(target)))
    lines.append("```")
    return "\n".join(lines) + "\n"


def doc_path(root):
    return os.path.join(root, "docs", "ARCHITECTURE.md")


def committed_picture(text):
    start = text.find(BEGIN)
    end = text.find(END)
    if start < 0 or end < start:
        return None
    return text[start + len(BEGIN):end].strip("\n") + "\n"


def write(root, edges):
    path = doc_path(root)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        print("%s has no markers %s ... %s" % (path, BEGIN, END))
        return 1
    text = text[:start + len(BEGIN)] + "\n" + picture(edges) + text[end:]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote the layer picture into %s" % os.path.relpath(path, root))
    return 0


def check(root, edges):
    path = doc_path(root)
    with open(path, encoding="utf-8") as f:
        committed = committed_picture(f.read())
    if committed is None:
        print("%s has no markers %s ... %s" % (path, BEGIN, END))
        return 1
    now = picture(edges)
    if committed != now:
        old, new = set(committed.splitlines()), set(now.splitlines())
        for line in sorted(old - new):
            print("  only in the committed picture: %s" % line.strip())
        for line in sorted(new - old):
            print("  only in the code's picture:    %s" % line.strip())
        print("docs/ARCHITECTURE.md's layer picture is stale; update it with:\n"
              "    /usr/bin/python3 tools/docs/include_graph.py --write")
        return 1
    print("docs/ARCHITECTURE.md's layer picture is the code's (%d layers, %d arrows)"
          % (len(set(layer_of(p) for p in edges)), len(layer_edges(edges))))
    return 0


def chain_to(edges, start, goal):
    """A shortest include chain from start to a file for which goal(file)
    holds, as a list of files, or None."""
    previous = {start: None}
    queue = [start]
    while queue:
        current = queue.pop(0)
        if current != start and goal(current):
            chain = []
            while current is not None:
                chain.append(current)
                current = previous[current]
            return chain[::-1]
        for target in edges.get(current, []):
            if target not in previous:
                previous[target] = current
                queue.append(target)
    return None


def in_folder(path, folder):
    return path == folder or path.startswith(folder + "/")


def no_intercept_to_sim(root, edges):
    problems = []
    for source in sorted(edges):
        if not in_folder(source, "src/intercept"):
            continue
        direct = [t for t in edges[source] if in_folder(t, "src/sim")]
        for target in direct:
            problems.append("%s includes %s" % (source, target))
        chain = None if direct else chain_to(edges, source, lambda p: in_folder(p, "src/sim"))
        if chain:
            how = "includes" if len(chain) == 2 else "includes, through %s," % " -> ".join(chain[1:-1])
            problems.append("%s %s %s" % (source, how, chain[-1]))
    cmake = os.path.join(root, "src", "intercept", "CMakeLists.txt")
    if os.path.isfile(cmake):
        with open(cmake, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for var, rest in CMAKE_PATH.findall(line):
                    rel = os.path.normpath(os.path.join(
                        "src/intercept" if var == "CMAKE_CURRENT_SOURCE_DIR" else "", (rest or "").lstrip("/")))
                    if in_folder(rel, "src/sim"):
                        problems.append("src/intercept/CMakeLists.txt:%d names %s" % (number, rel))
    for problem in problems:
        print(problem)
    if problems:
        print("src/intercept depends on src/sim in %d place(s)" % len(problems))
        return 1
    print("src/intercept includes nothing of src/sim and its CMakeLists.txt names none of it")
    return 0


def strongly_connected(nodes, edges):
    """Tarjan's strongly connected components of the graph, each sorted."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            components.append(sorted(component))

    sys.setrecursionlimit(max(1000, 4 * len(nodes) + 100))
    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return sorted(components)


def common_acyclic(root, edges):
    common = [p for p in edges if layer_of(p) == "src/common"]
    headers = [p for p in common if p.endswith(".h")]
    header_edges = {h: [t for t in edges[h] if t in headers] for h in headers}
    module = lambda p: os.path.splitext(p)[0]
    modules = sorted(set(module(p) for p in common))
    module_edges = {}
    for path in common:
        for target in edges[path]:
            if target.endswith(".h") and layer_of(target) == "src/common" and module(target) != module(path):
                module_edges.setdefault(module(path), set()).add(module(target))
    failed = 0
    for what, nodes, graph, name in (("headers", headers, header_edges, os.path.basename),
                                     ("modules", modules, module_edges, lambda m: os.path.basename(m) + ".{c,h}")):
        for component in strongly_connected(nodes, graph):
            if len(component) > 1:
                failed += 1
                print("src/common: an include circle of %d %s: %s"
                      % (len(component), what, ", ".join(name(m) for m in component)))
    if failed:
        return 1
    print("src/common has no include circle: %d headers, %d modules" % (len(headers), len(modules)))
    return 0


def main(argv):
    args = argv[1:]
    root = repository_root()
    if "--root" in args:
        at = args.index("--root")
        root = args[at + 1]
        del args[at:at + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    edges = include_edges(root)
    action = args[0]
    if action == "--write":
        return write(root, edges)
    if action == "--check":
        return check(root, edges)
    if action == "--print":
        sys.stdout.write(picture(edges))
        return 0
    if action == "--no-intercept-to-sim":
        return no_intercept_to_sim(root, edges)
    if action == "--common-acyclic":
        return common_acyclic(root, edges)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
