"""symbolic is a leaf of the import graph (below it only errors and config), and z3bridge is the only module
importing z3."""
import ast
import pathlib

PKG = pathlib.Path(__file__).resolve().parents[2] / "volta" / "symbolic"


def _imports(path: pathlib.Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_only_z3bridge_imports_z3_and_symbolic_is_a_leaf():
    for path in PKG.glob("*.py"):
        mods = _imports(path)
        assert ("z3" in mods) == (path.name == "z3bridge.py"), path.name
        internal = {m for m in mods if m.startswith("volta.")}
        assert all(m.startswith("volta.symbolic") or m in ("volta.errors", "volta.config") for m in internal), path.name
