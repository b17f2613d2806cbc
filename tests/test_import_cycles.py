"""No import cycle in the Python packages: the graph of suite, sweepkit, analysis and findings, module to module."""

# A module is a file, a package's __init__ one too (named as its package); an edge is an import of it anywhere in
# the file (a lazy one inside a function too), relative imports resolved, `from P import name` to P.name when that
# is a module, else to P. import-linter's contracts (pyproject.toml) see layers between packages; this sees a
# circle inside one package, e.g. a registry imported by the modules its members use, or an __init__ that imports
# a module which imports it back. Each knot (a strongly connected part) is named by a shortest circle through it.

import ast
from collections import deque
from pathlib import Path

from sweep_helpers import REPO

PACKAGES = ("suite", "sweepkit", "analysis", "findings")


def modules(root: Path, packages) -> dict[str, tuple[Path, bool]]:
    """Each module's dotted name → its file and whether it is a package's __init__."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def graph(root: Path, packages) -> dict[str, set[str]]:
    """Each module → the modules of `packages` it imports."""
    known = modules(root, packages)

    def module_of(name: str) -> str | None:  # the longest known module a dotted name starts with
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    edges = {}
    for name, (path, is_package) in known.items():
        here = name.split(".") if is_package else name.split(".")[:-1]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets |= {module_of(alias.name) for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(here[:len(here) - node.level + 1]) if node.level else ""
                source = ".".join(part for part in (base, node.module) if part)
                targets |= {f"{source}.{a.name}" if f"{source}.{a.name}" in known else module_of(source)
                            for a in node.names}
        edges[name] = {t for t in targets if t and t != name}
    return edges


def knots(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of two modules or more (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while not part or part[-1] != v:
                part.append(stack.pop())
                on_stack.discard(part[-1])
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def circle(edges: dict[str, set[str]], knot: list[str]) -> list[str]:
    """A shortest circle from the knot's first module back to it (breadth first, inside the knot)."""
    start, inside = knot[0], set(knot)
    came_from, todo = {start: None}, deque([start])
    while todo:
        v = todo.popleft()
        for w in sorted(edges[v] & inside):
            if w == start:
                path = [v]
                while came_from[path[-1]] is not None:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if w not in came_from:
                came_from[w] = v
                todo.append(w)
    raise AssertionError(f"{knot} is not a knot")


def cycles(root: Path, packages) -> list[str]:
    """One line per knot: a circle through it, and how many modules it ties."""
    edges = graph(root, packages)
    return [" → ".join(circle(edges, knot)) + (f"  (a knot of {len(knot)} modules: {', '.join(knot)})"
                                               if len(knot) > 2 else "") for knot in knots(edges)]


def test_no_import_cycle_in_the_packages():
    found = cycles(REPO, PACKAGES)
    print(f"{len(found)} cycles among {len(graph(REPO, PACKAGES))} modules", *found, sep="\n  ")
    assert found == []


def test_a_planted_cycle_is_found_and_named(tmp_path):
    files = {
        "kit/__init__.py": "from . import figures\n",  # an __init__ holding names its own figures import
        "kit/figures.py": "from . import NAMES\n",
        "kit/a.py": "from .b import x\n",
        "kit/b.py": "def f():\n    import kit.sub.c\n",  # a lazy import is an import
        "kit/sub/__init__.py": "",
        "kit/sub/c.py": "from .. import a\n",
        "kit/sub/d.py": "from ..a import y\nimport os\n",  # below a knot, in none
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert cycles(tmp_path, ["kit"]) == [
        "kit → kit.figures → kit",
        "kit.a → kit.b → kit.sub.c → kit.a  (a knot of 3 modules: kit.a, kit.b, kit.sub.c)"]
