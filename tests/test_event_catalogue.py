"""Contract of the one event catalogue (heatlog/engine/events.py, issue 11): every registered type has a schema,
a handler, a docs entry and a place in the union schema; the door, dispatch and docs all derive from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heatlog.docsgen import events as docs_gen
from heatlog.engine import apply
from heatlog.engine.events import REGISTRY, EventType, event_types, register
from heatlog.engine.rules import slipstream_block  # noqa: F401  (the base types are registered by the rules)
from heatlog.engine.ruleset import MODULES
from heatlog.formats import validation

ROOT = Path(__file__).resolve().parents[1]


def test_the_door_lists_exactly_the_registered_types() -> None:
    assert validation.EVENT_TYPES == event_types() == tuple(REGISTRY)
    assert event_types("base")[0] == "race_started"


@pytest.mark.parametrize("etype", event_types())
def test_every_type_has_a_schema_a_handler_and_a_docs_entry(etype: str) -> None:
    entry = REGISTRY[etype]
    path = validation.schema_path(etype)
    assert path.is_file(), f"{etype}: no schema at {path}"
    schema = json.loads(path.read_text())
    assert schema["properties"]["type"]["const"] == etype
    assert callable(entry.handler)
    docs = (ROOT / "docs" / "events.md").read_text()
    assert f"\n## {etype}\n" in docs and f"Registered by `{entry.module}`" in docs
    union = json.loads((ROOT / "schema" / "event.schema.json").read_text())
    assert etype in union["properties"]["type"]["enum"]
    assert {"$ref": f"events/{entry.schema_name}.schema.json"} in union["oneOf"]


def test_a_type_is_registered_once() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        register(EventType("boost", lambda state, ev: None))


def test_dispatch_reads_the_catalogue() -> None:
    """apply() refuses a type the catalogue does not hold, naming it."""
    from heatlog.engine import MalformedInput

    start = {"type": "race_started", "v": 1, "track": validation.load_schema("defs") and _track(), "cars": _cars()}
    state = apply(None, start)
    with pytest.raises(MalformedInput, match="unknown event type 'turbo'"):
        apply(state, {"type": "turbo", "v": 1})
    for kind in ([], {}, None, 3):  # hostile input is refused the same way, never a TypeError (principle 7)
        with pytest.raises(MalformedInput, match="unknown event type"):
            apply(state, {"type": kind, "v": 1})


def test_docs_list_each_type_with_its_nature() -> None:
    text = docs_gen.render_event_catalogue()
    assert "(observed chance, in a car's turn)" in text  # card_flipped
    assert "- [`gear_chosen`](#gear_chosen) — " in text and "(decision)" in text


def _track() -> dict:
    from heatlog.formats.tracks import load_track_data

    return load_track_data("usa")


def _cars() -> list[dict]:
    return [{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}]


@pytest.mark.parametrize(
    "first",
    [
        "from heatlog.formats.validation import EVENT_TYPES",
        "import heatlog.docsgen.events",
        "from heatlog.engine import state_from_position",
        "from heatlog.engine import RaceState",
        "from heatlog.log.racelog import RaceLog; from heatlog.engine import Track",
    ],
)
def test_the_catalogue_is_whole_whichever_name_is_loaded_first(first: str) -> None:
    """heatlog.engine loads its names lazily (issue 10: start-up): the first name asked for, or the schema
    checks, still register every event type and module before anything reads the registries."""
    import subprocess
    import sys

    code = (
        f"{first}\n"
        "from heatlog.engine.events import REGISTRY\n"
        "from heatlog.engine.ruleset import MODULES\n"
        "print(len(REGISTRY), sorted(MODULES))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    count, modules = r.stdout.split(" ", 1)
    assert int(count) == len(REGISTRY) and int(count) > 30
    assert modules.strip() == str(sorted(MODULES))  # every module, as a process that loaded the engine has them
