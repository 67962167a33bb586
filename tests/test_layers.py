"""The house a newcomer can draw (issue 26): every package at the root of heatlog/ belongs to one layer, and an
import only ever runs to its own layer or one below (docs/design.md, "Layers"). Imports inside functions count
(a late import hides no edge); imports under ``if TYPE_CHECKING:`` do not (they run for the type checker only)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from heatlog.docsgen import house

PACKAGE = Path(__file__).resolve().parents[1] / "heatlog"

#: The layers, lowest first: the table docs/design.md draws (heatlog.docsgen.house.LAYERS).
LAYERS: dict[str, int] = house.layer_of()


def _imports(path: Path, package_dir: Path = PACKAGE) -> list[tuple[int, str]]:
    """(line, absolute module) of every import of a heatlog module in ``path``, a file under ``package_dir``."""
    rel = path.relative_to(package_dir.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    package = ".".join(parts) if path.name == "__init__.py" else ".".join(parts[:-1])
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                # each name as target.name: a module of that name if there is one (`from . import rules`), else
                # the name's own module (the checks walk up to the longest module that exists)
                found.extend((child.lineno, f"{target}.{a.name}") for a in child.names)
            elif isinstance(child, ast.Import):
                found.extend((child.lineno, a.name) for a in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return [(line, m) for line, m in found if m.startswith("heatlog.")]


def test_the_root_of_heatlog_holds_the_layers_only() -> None:
    """No loose module beside the layers: a new file goes into the package of its layer."""
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert loose == []
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(LAYERS), "a package at the root of heatlog/ must be given its layer here and in docs"


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_down_the_layers_only(path: Path) -> None:
    rel = path.relative_to(PACKAGE)
    if len(rel.parts) == 1:
        return  # heatlog/__init__.py: the version and the rules fingerprint
    mine = LAYERS[rel.parts[0]]
    up = [
        f"line {line}: {target} ({target.split('.')[1]}, layer {LAYERS[target.split('.')[1]]} > {mine})"
        for line, target in _imports(path)
        if target.split(".")[1] in LAYERS and LAYERS[target.split(".")[1]] > mine
    ]
    assert up == [], f"{rel} ({rel.parts[0]}, layer {mine}) imports a higher layer: " + "; ".join(up)


def test_the_check_sees_an_import_that_runs_up(tmp_path: Path) -> None:
    """The check itself can fail: a late, relative import from the engine into a shell is found, and one under
    ``if TYPE_CHECKING:`` is not."""
    engine = tmp_path / "heatlog" / "engine"
    engine.mkdir(parents=True)
    probe = engine / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from ..cli import app\n"
        "def f():\n"
        "    from ..views import board\n"
        "    return board\n",
        encoding="utf-8",
    )
    assert _imports(probe, tmp_path / "heatlog") == [(5, "heatlog.views.board")]


def test_design_md_lists_every_file_as_the_sources_say() -> None:
    """docs/design.md's "Every file" is what ``python -m heatlog.docsgen.house`` writes: every file of heatlog/,
    in its layer, with the first sentence of its docstring."""
    assert house.current() == house.render(), "docs/design.md is stale: run python -m heatlog.docsgen.house"
    listed = set(re.findall(r"^    (\S+\.py)", house.render(), re.M))
    files = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    assert files - listed == {"__init__.py"}


def _module(path: Path, package_dir: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


def _graph(package_dir: Path) -> dict[str, set[str]]:
    files = [p for p in package_dir.rglob("*.py") if "__pycache__" not in p.parts]
    modules = {_module(p, package_dir) for p in files}

    def resolve(target: str) -> str | None:
        while target and target not in modules:  # `from heatlog.x import name`: the module is heatlog.x
            target = target.rpartition(".")[0]
        return target or None

    graph: dict[str, set[str]] = {}
    for p in files:
        me = _module(p, package_dir)
        graph[me] = {t for _, m in _imports(p, package_dir) if (t := resolve(m)) is not None and t != me}
    return graph


def test_no_import_circles() -> None:
    """No two modules import each other, directly or round a circle (late imports count: they run too)."""
    assert _circles(_graph(PACKAGE)) == []


def test_the_circle_check_finds_a_circle(tmp_path: Path) -> None:
    package = tmp_path / "heatlog" / "views"
    package.mkdir(parents=True)
    (package / "a.py").write_text("def f():\n    from .b import g\n", encoding="utf-8")
    (package / "b.py").write_text("from .a import f\n", encoding="utf-8")
    assert _circles(_graph(tmp_path / "heatlog")) == [["heatlog.views.a", "heatlog.views.b"]]
