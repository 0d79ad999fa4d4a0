"""The import contract of volta/: no import cycle between modules or packages, no import from a lower layer up to
a higher one, z3 imported only by the Z3 bridge, no import hidden inside a function to dodge a cycle.

Read from the source with `ast` (nothing is imported). An import is a dependency wherever it stands: at module
level, inside a function, or a call `import_module("volta....")` with the name written out; and
`from volta.pkg import name` depends on `volta.pkg` (its __init__ runs first) as well as on `volta.pkg.name` where
that is a module (as /work/tools/imports.py counts), so a module imports a sibling by its own path
(`import volta.report.text as text`) where the package's __init__ imports the siblings. An import kept inside a
function only for start-up time (the CLI's command table, a driver that reports import without running it)
carries the comment `# start-up` on its line: it still counts for cycles and layers, only not as hidden.

The exceptions are the two faces (FACES): every import of a submodule runs volta/__init__ first, so it sits at the
bottom, and loads volta.api and volta.kernelbench by name on first attribute use (PEP 562);
volta/kernelbench/__init__ is the callable `volta.kernelbench(...)` and loads its api on the first call.
The layers, lowest first (a package may import its own layer and any lower one):
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "volta"

LAYERS = (
    ("volta", "errors", "config"),        # the root package holds only __version__ and a start-up face for api
    ("ptx", "cuda"),                      # PTX text -> AST; nvcc as a leaf utility
    ("ir",),                              # lowering
    ("numerics", "symbolic"),             # number formats; expressions, normal forms, the Z3 bridge
    ("semantics", "launch"),              # instruction semantics per value domain; the launch-spec language
                                          # (grids, buffers, arguments: struct fields take semantics' float bits)
    ("exec",),                            # the machine
    ("equiv",),                           # decisions
    ("session",),                         # typed requests -> one result per command
    ("report",),                          # presentation of results
    ("api",),                             # the Python face of session
    ("batch", "kernelbench", "triton", "triton_jit", "pytest_plugin"),   # front doors built on the API
    ("cli",),
    ("__main__",),
)
RANK = {package: rank for rank, packages in enumerate(LAYERS) for package in packages}
# volta/exec inside, lowest first: its two leaf modules, the race detector's state, the machine's state, the
# instruction handlers, the fast paths, the Machine, and the drivers that run machines for a command
EXEC_LAYERS = (("findings", "limits"), ("races",), ("state",), ("handlers",), ("fast",), ("machine",), ("drivers",))
EXEC_RANK = {part: rank for rank, parts in enumerate(EXEC_LAYERS) for part in parts}
Z3_BRIDGE = "volta.symbolic.z3bridge"
GRAPH_MARK = "<!-- package graph: python tests/test_imports.py --graph -->"
# the faces: a package every import of a submodule runs, that loads its API on first use (PEP 562 / a callable
# module), so it sits below what it loads: volta/__init__'s __getattr__, volta/kernelbench/__init__'s __call__
FACES = {("volta", "volta.api"), ("volta", "volta.kernelbench"), ("volta.kernelbench", "volta.kernelbench.api")}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _imports(module: str, path: Path, modules: set) -> list:
    """(target module, line, inside a function) for each import of a volta module or of z3 in one file."""
    source = path.read_text()
    lines = source.splitlines()
    found = []

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    def add(name: str, line: int, inner: bool):
        if name == "z3" or name.startswith("z3."):
            found.append(("z3", line, inner))
        elif name.startswith("volta"):
            target = resolve(name)
            if target and target != module:
                found.append((target, line, inner and "# start-up" not in lines[line - 1]))

    def visit(node, in_function: bool):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    add(alias.name, child.lineno, inner)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                    package = package[:len(package) - child.level + 1]
                    base = ".".join(package + ([child.module] if child.module else []))
                add(base, child.lineno, inner)
                for alias in child.names:
                    if f"{base}.{alias.name}" in modules:
                        add(f"{base}.{alias.name}", child.lineno, inner)
            elif (isinstance(child, ast.Call) and getattr(child.func, "id", getattr(child.func, "attr", "")).endswith(
                    "import_module") and child.args and isinstance(child.args[0], ast.Constant)):
                add(str(child.args[0].value), child.lineno, inner)
            visit(child, inner)

    visit(ast.parse(source), False)
    return found


@functools.cache   # read once per process (~2 CPU s of parsing): the tests below only read it
def _graph() -> dict:
    """module -> its imports, the faces (named above) left out."""
    paths = {_module_name(p): p for p in ROOT.rglob("*.py")}
    return {m: [i for i in _imports(m, p, set(paths)) if (m, i[0]) not in FACES] for m, p in paths.items()}


def _cycles(graph: dict) -> list:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    edges = {m: sorted({t for t, _, _ in imports if t in graph}) for m, imports in graph.items()}
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = counter[0]; counter[0] += 1
        stack.append(start); on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]; counter[0] += 1
                    stack.append(child); on_stack.add(child)
                    work.append((child, iter(edges[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        m = stack.pop(); on_stack.discard(m); component.append(m)
                        if m == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def upward_imports(graph: dict) -> list:
    return [f"{m}:{line} imports {t} ({_package(m)} is below {_package(t)})"
            for m, imports in sorted(graph.items()) for t, line, _ in imports
            if t != "z3" and RANK[_package(m)] < RANK[_package(t)]]


def _exec_part(module: str) -> str | None:
    """The sub-package (or top-level module) of volta/exec a module is in; None outside exec and for its __init__."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "exec" else None


def upward_exec_imports(graph: dict) -> list:
    return [f"{m}:{line} imports {t} ({_exec_part(m)} is below {_exec_part(t)})"
            for m, imports in sorted(graph.items()) if _exec_part(m) for t, line, _ in imports
            if _exec_part(t) and EXEC_RANK[_exec_part(m)] < EXEC_RANK[_exec_part(t)]]


def package_graph(graph: dict) -> dict:
    """package -> the packages it imports, from the module graph."""
    edges = {_package(m): set() for m in graph}
    for m, imports in graph.items():
        edges[_package(m)] |= {_package(t) for t, _, _ in imports
                               if t != "z3" and _package(t) != _package(m)}
    return edges


def graph_text(graph: dict) -> str:
    """The package graph in layer order, one line per package: what docs/ARCHITECTURE.md shows."""
    packages = package_graph(graph)
    order = [p for layer in LAYERS for p in layer if p in packages]
    width = max(len(p) for p in order)
    return "\n".join(f"{p:<{width}}  -> {', '.join(sorted(packages[p], key=lambda q: (RANK[q], q))) or '-'}".rstrip()
                     for p in order)


def test_every_package_has_a_layer():
    assert sorted({_package(m) for m in _graph()} - set(RANK)) == []


def test_no_import_cycle():
    assert _cycles(_graph()) == []


def test_no_upward_import():
    assert upward_imports(_graph()) == []


def test_every_exec_part_has_a_layer():
    assert sorted({_exec_part(m) for m in _graph()} - {None} - set(EXEC_RANK)) == []


def test_no_upward_import_inside_exec():
    """The machine's sub-packages import only lower ones: handlers never the machine, the machine never a driver."""
    assert upward_exec_imports(_graph()) == []


def test_no_package_cycle():
    """Two packages of one layer (semantics and launch, say) may each import the other only if nothing closes a
    circle; across layers the upward test already forbids it."""
    packages = package_graph(_graph())
    assert _cycles({p: [(t, 0, False) for t in sorted(ts)] for p, ts in packages.items()}) == []


def test_the_architecture_page_shows_the_graph_as_it_is():
    """docs/ARCHITECTURE.md's package graph is this one (regenerate it with `python tests/test_imports.py --graph`)."""
    page = (ROOT.parent / "docs" / "ARCHITECTURE.md").read_text()
    start = page.index(GRAPH_MARK) + len(GRAPH_MARK)
    shown = page[start:].split("```text\n", 1)[1].split("```", 1)[0]
    assert shown.rstrip("\n") == graph_text(_graph())


def test_only_the_bridge_imports_z3():
    graph = _graph()
    assert [m for m, imports in sorted(graph.items()) if any(t == "z3" for t, _, _ in imports)] == [Z3_BRIDGE]


@pytest.mark.xfail(reason="issue 29: 258 imports inside functions at the start, 85 left (38 in api.py, 36 in "
                          "cli/, batch.py, pytest_plugin.py: start-up ones to mark)", strict=True)
def test_no_import_inside_a_function():
    graph = _graph()
    hidden = [f"{m}:{line} {t}" for m, imports in sorted(graph.items()) for t, line, inner in imports if inner]
    assert hidden == []


def test_the_contract_sees_a_cycle_and_an_upward_arrow():
    """The checks can fail: a made-up graph with a cycle and an upward import is caught."""
    graph = {"volta.exec.a": [("volta.equiv.b", 1, False)], "volta.equiv.b": [("volta.exec.a", 2, True)]}
    assert _cycles(graph) == [["volta.equiv.b", "volta.exec.a"]]
    assert upward_imports(graph) == ["volta.exec.a:1 imports volta.equiv.b (exec is below equiv)"]
    inside = {"volta.exec.handlers.h": [("volta.exec.machine", 3, False)], "volta.exec.machine": []}
    assert upward_exec_imports(inside) == ["volta.exec.handlers.h:3 imports volta.exec.machine (handlers is below "
                                           "machine)"]


if __name__ == "__main__":   # the counts, for a commit message: python tests/test_imports.py [--graph]
    import sys

    g = _graph()
    if "--graph" in sys.argv:
        print(graph_text(g))
        raise SystemExit
    print("cycles:", [len(c) for c in _cycles(g)], "upward:", len(upward_imports(g)),
          "in-function:", sum(inner for imports in g.values() for _, _, inner in imports))
    for line in upward_imports(g) + upward_exec_imports(g):
        print(" ", line)
