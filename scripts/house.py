"""The house: arbiter's rooms (packages, and the coordinator's own packages and loose modules) and
the imports between them, read from the code with :mod:`ast`, each room on a floor above every room
it imports; drawn as docs/images/house.png.

    .venv/bin/python scripts/house.py [--out docs/images/house.png]

It prints the floors, any circle of rooms (rooms that import each other, directly or around) and
every import from the coordinator into ``worker`` (the coordinator runs worker code in its own
process only where docs/architecture.md says so). tests/coordinator_tests/test_house.py holds the
rules of the house against the same graph.
"""

from __future__ import annotations

import argparse
import ast
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The top-level packages, from the command line down.
PACKAGES = ("coordinator", "worker", "wire", "engine")
#: A kind's modules that the registry loads (``coordinator/KIND/kind.py`` and ``drive.py``): one
#: room for all kinds, above the reports and the runs they put together.
KIND_MODULES = ("kind", "drive")
#: Imports that run up on purpose, each inside a function, left out of the floors: the server's web
#: forms build a run by the CLI's own command, so that a form and a command never differ.
UPWARD = {("coordinator.server.web_forms", "coordinator.cli.remote")}


@dataclass(frozen=True)
class Import:
    """One import of one module of the project by another."""

    importer: str  # dotted module name
    imported: str  # dotted module name (or package)
    line: int
    lazy: bool  # inside a function: loaded when called, not when imported


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every Python module of the project's packages, by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imports(root: Path = ROOT) -> list[Import]:
    """Every import of a project module by another (absolute and relative), once per line."""
    return sorted(set(_imports(root)), key=lambda i: (i.importer, i.line, i.imported))


def _imports(root: Path) -> Iterator[Import]:
    known = modules(root)
    for name, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node, lazy in _walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets = [f"{base}.{alias.name}" for alias in node.names]
                targets = [t if t in known else base for t in targets]
            for target in targets:
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target.split(".")[0] in PACKAGES and target != name:
                    yield Import(name, target, node.lineno, lazy)


def _walk(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """The import statements of a module, each with whether it sits inside a function."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, lazy = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, lazy
        inside = lazy or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        # `if TYPE_CHECKING:` imports are for the type checker only
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        stack.extend((child, inside) for child in ast.iter_child_nodes(node))


def room(module: str) -> str:
    """A module's room: its top-level package, or for the coordinator its package or loose module
    (``coordinator.sprt``, ``coordinator.runs``); ``coordinator`` itself is the package's root."""
    parts = module.split(".")
    if parts[0] != "coordinator" or len(parts) == 1:
        return parts[0]
    if len(parts) == 3 and parts[2] in KIND_MODULES:
        return "coordinator.*.kind"
    return ".".join(parts[:2])


def room_arrows(found: list[Import], lazy: bool = True) -> dict[tuple[str, str], list[Import]]:
    """The imports between two different rooms, by (importer's room, imported room); with
    ``lazy`` False, only the imports made when a module is loaded."""
    arrows: dict[tuple[str, str], list[Import]] = defaultdict(list)
    for i in found:
        a, b = room(i.importer), room(i.imported)
        if (i.importer, i.imported) in UPWARD:
            continue
        if a != b and (lazy or not i.lazy) and b != "coordinator":
            arrows[(a, b)].append(i)
    return dict(arrows)


def circles(arrows: dict[tuple[str, str], list[Import]]) -> list[list[str]]:
    """The rooms that import each other, directly or around (strongly connected, two or more)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in arrows:
        graph[a].add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def floors(arrows: dict[tuple[str, str], list[Import]]) -> dict[str, int]:
    """Each room's floor: one above the highest room it imports (0: imports no room). Rooms of a
    circle share a floor (the circle is one room for this)."""
    together = {r: "+".join(c) for c in circles(arrows) for r in c}
    below: dict[str, set[str]] = defaultdict(set)
    for a, b in arrows:
        ca, cb = together.get(a, a), together.get(b, b)
        below.setdefault(cb, set())  # a room that imports nothing has a floor too
        if ca != cb:
            below[ca].add(cb)
    level: dict[str, int] = {}

    def floor(r: str) -> int:
        if r not in level:
            level[r] = 0
            level[r] = 1 + max((floor(b) for b in below[r]), default=-1)
        return level[r]

    return {r: floor(together.get(r, r)) for a, b in arrows for r in (a, b)}


def draw(arrows: dict[tuple[str, str], list[Import]], out: Path) -> None:
    """The rooms on their floors, an arrow from each importer to what it imports (load-time
    imports solid, lazy ones dashed; circles in red)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    level = floors(arrows)
    circled = {r for c in circles(arrows) for r in c}
    by_floor: dict[int, list[str]] = defaultdict(list)
    for r in sorted(level):
        by_floor[level[r]].append(r)
    where: dict[str, tuple[float, float]] = {}
    for f, rooms in by_floor.items():
        for i, r in enumerate(rooms):
            where[r] = ((i + 0.5) / len(rooms), f)
    top = max(by_floor)
    fig, ax = plt.subplots(figsize=(16, 1.1 * (top + 1) + 1))
    for (a, b), found in sorted(arrows.items()):
        (xa, ya), (xb, yb) = where[a], where[b]
        lazy = all(i.lazy for i in found)
        color = "#c0392b" if a in circled and b in circled else "#7f8c8d"
        ax.annotate(
            "",
            xy=(xb, yb + 0.18),
            xytext=(xa, ya - 0.18),
            arrowprops={
                "arrowstyle": "->",
                "color": color,
                "alpha": 0.35,
                "linestyle": "--" if lazy else "-",
                "linewidth": 0.8,
            },
        )
    for r, (x, y) in where.items():
        name = r.removeprefix("coordinator.")
        face = "#fde2e1" if r in circled else ("#e8f1fb" if r.startswith("coordinator") else "#e9f7ef")
        ax.text(
            x,
            y,
            name,
            ha="center",
            va="center",
            fontsize=8,
            bbox={"boxstyle": "round,pad=0.3", "facecolor": face, "edgecolor": "#34495e", "linewidth": 0.6},
        )
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.6, top + 0.6)
    ax.set_yticks(range(top + 1), [f"floor {f}" for f in range(top + 1)], fontsize=8)
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_title(
        "arbiter's rooms (blue: coordinator's packages and modules; green: top-level packages), "
        "each above what it imports (solid: at load, dashed: inside functions)",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)
    from PIL import Image

    with Image.open(out) as drawn:  # a few colours: a palette image is a fraction of the size
        drawn.convert("RGB").quantize(32).save(out, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "house.png")
    args = parser.parse_args()
    found = imports()
    arrows = room_arrows(found)
    level = floors(arrows)
    for f in sorted(set(level.values()), reverse=True):
        print(f"floor {f}: {' '.join(sorted(r for r in level if level[r] == f))}")
    for c in circles(arrows):
        print(f"circle: {' <-> '.join(c)}")
        for a in c:
            for b in c:
                for i in arrows.get((a, b), []):
                    print(
                        f"  {i.importer}:{i.line} imports {i.imported}{' (in a function)' if i.lazy else ''}"
                    )
    for i in found:
        if (i.importer, i.imported) in UPWARD:
            print(f"up on purpose: {i.importer}:{i.line} imports {i.imported}")
    print("the coordinator's imports of worker:")
    for i in found:
        if room(i.importer).startswith("coordinator") and room(i.imported) == "worker":
            print(f"  {i.importer}:{i.line} {i.imported}")
    draw(arrows, args.out)
    print(f"drawn: {args.out}")


if __name__ == "__main__":
    main()
