"""heatlog.engine.jsontext gives exactly what ``json`` gives (issue 32 item 4: the read path starts without importing
``json``): the same values and the same refusals for valid, malformed and hostile texts, the same text for every
value the store, the rules and the views write, and ``heatlog show`` imports no ``json`` at all."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from heatlog.engine import jsontext

TEXTS = [
    '{"type":"gear_chosen","car":"Red","gear":2,"v":1}',
    '{"a":[1,2.5,-3e2,true,false,null,"x"],"b":{"c":{}}}',
    "[]",
    "{}",
    '"just a string"',
    "12",
    "-0.0",
    "1e400",
    "NaN",
    "[Infinity,-Infinity]",
    '{"a":1,"a":2}',
    '"\\u00e9\\ud83d\\ude00 \\"q\\" \\\\ /"',
    '"é😀"',
    " \t\n{} \r\n",
    "\n[1]\n",
    "",
    "   ",
    "{",
    '{"a":}',
    "[1,]",
    "[1] [2]",
    "{} x",
    "nul",
    '"unterminated',
    '"bad \\x escape"',
    '"ctrl \x01 char"',
    "01",
    "\ufeff{}",
    "\u00a0{}",
    "[" * 100 + "]" * 100,
    '{"deep":' * 50 + "1" + "}" * 50,
]


def outcome(fn: Any, text: Any) -> tuple[str, Any]:
    try:
        value = fn(text)
    except (ValueError, TypeError, RecursionError) as exc:
        return type(exc).__name__, str(exc)
    if isinstance(value, str):
        return "value", value
    return "value", json.dumps(value, sort_keys=True) if not _has_nan(value) else repr(value)


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    return False


@pytest.mark.parametrize("text", TEXTS)
def test_loads_is_json_loads(text: str) -> None:
    assert outcome(jsontext.loads, text) == outcome(json.loads, text)


def test_loads_takes_bytes_and_refuses_other_types_as_json_does() -> None:
    for given in (b'{"a": 1}', bytearray(b"[1]"), 3, None, ["[]"]):
        assert outcome(jsontext.loads, given) == outcome(json.loads, given)


def test_the_scanner_is_jsons() -> None:
    text = '{"a":[1,"b"]} tail'
    assert jsontext.scan(text, 0) == json.JSONDecoder().scan_once(text, 0)  # type: ignore[attr-defined]
    with pytest.raises(StopIteration):
        jsontext.scan(" {}", 0)


VALUES: list[Any] = [
    {"b": 1, "a": [1, 2.5, -0.0, 1e300, True, False, None, "é😀\u2028</script>"]},
    ["x", {"z": {"y": []}}, 10**30],
    "a string \n with \"quotes\" and é",
    3.14,
    {1: "int key", "s": "str key"},
    {"t": (1, 2)},
]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": False, "allow_nan": False},
        {"separators": (",", ":"), "ensure_ascii": False, "allow_nan": False},
        {"sort_keys": True, "allow_nan": False},
        {"ensure_ascii": False},
    ],
)
def test_dumps_is_json_dumps(value: Any, options: dict[str, Any]) -> None:
    assert outcome(lambda v: jsontext.dumps(v, **options), value) == outcome(lambda v: json.dumps(v, **options), value)
    assert jsontext.quoted("é\"\n", ensure_ascii=False) == json.dumps("é\"\n", ensure_ascii=False)


def test_dumps_refuses_what_json_refuses() -> None:
    cycle: list[Any] = []
    cycle.append(cycle)
    for value, options in (
        (float("nan"), {"allow_nan": False}),
        ({"a": object()}, {}),
        ({(1, 2): 3}, {}),
        (cycle, {}),
        ({"s": {1, 2}}, {"sort_keys": True}),
    ):
        with pytest.raises((ValueError, TypeError)) as ours:
            jsontext.dumps(value, **options)
        with pytest.raises((ValueError, TypeError)) as theirs:
            json.dumps(value, **options)
        assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))
    assert jsontext.dumps(float("nan")) == json.dumps(float("nan")) == "NaN"


def test_the_kept_encoder_is_json_dumps() -> None:
    text = jsontext.kept_encoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    for value in VALUES:
        canonical = outcome(lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False), value)
        assert outcome(text, value) == canonical
    with pytest.raises(ValueError):
        text(float("inf"))


def test_show_and_replay_import_no_json(tmp_path: Path) -> None:
    """The read path of ``show`` and ``replay --round N`` on a finished race (its BG Stats link included) reads and
    writes its JSON through jsontext: importing ``json`` would compile its seven regular expressions at every
    start (~4 M instructions of ~365 M)."""
    db = tmp_path / "h.db"
    sample = Path(__file__).resolve().parents[1] / "replays" / "usa-4cars.jsonl"
    run = [sys.executable, "-m", "heatlog.cli"]
    done = subprocess.run([*run, "import", str(sample), "--db", str(db)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    code = (
        "import sys, atexit\n"
        "atexit.register(lambda: print('json' in sys.modules, file=sys.stderr))\n"
        "from heatlog.cli import main\n"
        "main()\n"
    )
    for args in (("show",), ("show",), ("replay", "--round", "3")):  # (the second show: from the cached round start)
        cmd = [sys.executable, "-c", code, *args, "--db", str(db)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert r.stderr.split()[-1] == "False", (args, r.stderr)
        assert "BG Stats" in r.stdout or args[0] == "replay"
