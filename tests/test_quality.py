"""The code stays ruff- and mypy-clean (versions pinned in the test extra, so a new release cannot fail CI)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is installed by the test extra")
def test_ruff_clean() -> None:
    r = subprocess.run(["ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_clean() -> None:
    pytest.importorskip("mypy")
    r = subprocess.run([sys.executable, "-m", "mypy", "heatlog"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def _engine_module(module: str | None, level: int, path: Path) -> str | None:
    """The absolute module an ImportFrom names, when it is heatlog.engine or inside it."""
    if level:
        package = path.relative_to(ROOT).with_suffix("").parts[:-1]
        base = package[: len(package) - level + 1]
        module = ".".join([*base, module] if module else base)
    if module and (module == "heatlog.engine" or module.startswith("heatlog.engine.")):
        return module
    return None


def test_nothing_outside_the_engine_imports_a_private_engine_name() -> None:
    """The engine's public API (heatlog.engine) is what shells and tests use (issue 11, H10)."""
    import ast

    engine = ROOT / "heatlog" / "engine"
    bad: list[str] = []
    files = [p for d in ("heatlog", "tests", "bench", "docs", "replays") for p in (ROOT / d).rglob("*.py")]
    for path in files:
        if engine in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom):
                module = _engine_module(node.module, node.level, path)
                if module is None:
                    continue
                names = [module, *(f"{module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith("heatlog.engine")]
            for name in names:
                if any(part.startswith("_") and part != "__init__" for part in name.split(".")):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert not bad, "private engine names imported outside the engine:\n" + "\n".join(bad)


def test_the_private_import_check_can_fail(tmp_path: Path) -> None:
    """The resolution of relative imports sees ``from ..engine.rules import _x`` from a sub-package."""
    path = ROOT / "heatlog" / "views" / "board.py"
    assert _engine_module("engine.rules", 2, path) == "heatlog.engine.rules"
    assert _engine_module("engine", 1, ROOT / "heatlog" / "bots.py") == "heatlog.engine"
    assert _engine_module("store", 1, ROOT / "heatlog" / "bots.py") is None


def test_the_step_is_read_outside_the_engine_only_through_waiting() -> None:
    """No shell reads ``Turn.sub`` (the encoding of the step): they ask ``waiting_for`` (issue 11, H3)."""
    import re

    engine = ROOT / "heatlog" / "engine"
    pattern = re.compile(r"\.sub\b(?!\s*\()")
    bad = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in (ROOT / "heatlog").rglob("*.py")
        if engine not in path.parents
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if pattern.search(line)
    ]
    assert not bad, "step read outside the engine:\n" + "\n".join(bad)
