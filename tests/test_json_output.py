"""No output of heatlog holds a number JSON does not have (issue 30, item 7): ``NaN``, ``Infinity`` and
``-Infinity`` are what Python's json writes by default for non-finite floats, and a browser's or another
program's JSON parser refuses them (the review page's script died on one). Every ``json.dump``/``json.dumps``
of the package passes ``allow_nan=False``, so a non-finite number is an error where it is written instead of
output nobody can read; the commands that write JSON are run and their output read by a strict parser."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from test_cli import run

import heatlog
from heatlog.formats.usertext import embed_json

PACKAGE = Path(heatlog.__file__).parent
REPLAYS = Path(__file__).parent.parent / "replays"


def _json_calls(tree: ast.AST) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("dump", "dumps")
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "json"
    ]


def test_every_json_writer_of_the_package_refuses_non_finite_numbers() -> None:
    # the engine's own error messages (heatlog/engine, whose events cannot hold NaN: canonical() refuses it) aside
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "engine" in path.relative_to(PACKAGE).parts:
            continue
        for call in _json_calls(ast.parse(path.read_text(encoding="utf-8"))):
            if not any(
                k.arg == "allow_nan" and isinstance(k.value, ast.Constant) and k.value.value is False
                for k in call.keywords
            ):
                missing.append(f"{path.relative_to(PACKAGE)}:{call.lineno}")
    assert missing == [], missing


def test_a_page_never_embeds_infinity() -> None:
    # the review page's script died on `Infinity` (a decision played out once has an infinite interval)
    with pytest.raises(ValueError, match="not JSON compliant"):
        embed_json({"half": float("inf")})


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in JSON output")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("json") / "j.db"
    for name in ("learning-2cars", "usa-4cars"):
        assert run("import", str(REPLAYS / f"{name}.jsonl"), db=path).returncode == 0
    return path


COMMANDS = [
    ["races", "--json"],
    ["show", "--race", "2", "--json"],
    ["show", "--race", "2", "--round", "3", "--json"],
    ["position", "--race", "2", "--round", "3"],
    ["audit", "--all", "--json"],
    ["stats", "--all", "--json"],
    ["anchor"],
    ["season", "list", "--json"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a) for a in COMMANDS])
def test_json_written_by_commands_is_read_by_a_strict_parser(db: Path, args: list[str]) -> None:
    r = run(*args, db=db)
    assert r.returncode == 0, r.stderr
    text = r.stdout
    if args[0] == "anchor":
        for line in text.splitlines():
            _strict(line)
    else:
        _strict(text)
