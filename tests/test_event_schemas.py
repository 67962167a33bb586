"""The event catalogue as JSON Schemas (schema/events/) and validation at the door (heatlog.formats.validation)."""

from __future__ import annotations

import copy
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from heatlog.docsgen import events as docs_gen
from heatlog.engine.errors import MalformedInput
from heatlog.formats import schemas as schema_module
from heatlog.formats import validation
from heatlog.formats.validation import EVENT_TYPES, event_errors, validate_against, validate_event

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schema"
TRACK_ID = "https://heatlog.example/schema/track.schema.json"
ALL_SCHEMAS = sorted(SCHEMA_DIR.rglob("*.schema.json"))
EVENT_SCHEMAS = [SCHEMA_DIR / validation.schema_path(t).relative_to(validation.SCHEMA_DIR) for t in EVENT_TYPES]


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True, scope="module")
def registry_with_track() -> Iterator[None]:
    """schema/track.schema.json is a colleague's file; if it is not there yet, test against a permissive
    stand-in that lives only in this test registry."""
    if (SCHEMA_DIR / "track.schema.json").exists():
        yield
        return
    saved = schema_module._CACHE
    stand_in = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": TRACK_ID, "type": "object"}
    schema_module._CACHE = schema_module._build(extra={TRACK_ID: stand_in})
    try:
        yield
    finally:
        schema_module._CACHE = saved


def examples() -> list[tuple[str, dict[str, Any]]]:
    return [(p.name, ex) for p in EVENT_SCHEMAS for ex in load(p).get("examples", [])]


def example(etype: str) -> dict[str, Any]:
    return copy.deepcopy(load(validation.schema_path(etype))["examples"][0])


# --------------------------------------------------------------------------------------------------
# the schemas themselves


def test_every_catalogue_type_has_a_schema() -> None:
    """The base types of the one event catalogue (heatlog/engine/events.py; design.md no longer lists them)."""
    from heatlog.engine.events import event_types

    assert event_types() == EVENT_TYPES and len(event_types("base")) == 15
    for etype in event_types("base"):
        assert (SCHEMA_DIR / "events" / f"{etype}.schema.json").is_file(), etype
    assert "heatlog/engine/events.py" in (ROOT / "docs" / "design.md").read_text(encoding="utf-8")


def _rel(etype: str, under: str = "") -> str:
    """An event type's schema path, relative to schema/ (or a folder of it)."""
    return validation.schema_path(etype).relative_to(validation.SCHEMA_DIR / under).as_posix()


def test_no_stray_event_schemas() -> None:
    events = SCHEMA_DIR / "events"
    on_disk = {p.relative_to(events).as_posix() for p in events.rglob("*.schema.json")}
    assert on_disk == {_rel(t, "events") for t in EVENT_TYPES} | {
        "defs.schema.json",
        "garage/defs.schema.json",
    }


@pytest.mark.parametrize("path", ALL_SCHEMAS, ids=lambda p: p.relative_to(SCHEMA_DIR).as_posix())
def test_schema_is_valid_draft_2020_12(path: Path) -> None:
    schema = load(path)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "https://heatlog.example/schema/" + path.relative_to(SCHEMA_DIR).as_posix()


@pytest.mark.parametrize("path", EVENT_SCHEMAS, ids=lambda p: p.name)
def test_event_schema_shape(path: Path) -> None:
    schema = load(path)
    etype = path.name.removesuffix(".schema.json")
    assert schema["title"] and len(schema["description"]) > 40
    assert re.search(r"# \d+\.\d+|# A\d+|Not a game rule|no effect on the race state", schema["description"])
    assert schema["additionalProperties"] is False
    props = schema["properties"]
    assert props["type"]["const"] == etype
    assert {"type", "v"} <= set(schema["required"])
    assert {"type", "v", "raw", "at"} <= set(props)
    assert "raw" not in schema["required"] and "at" not in schema["required"]
    for name, prop in props.items():
        assert prop.get("description"), f"{etype}.{name} has no description"
    assert schema["examples"], "each schema carries at least one example for the docs"


def test_union_lists_every_event_type() -> None:
    union = load(SCHEMA_DIR / "event.schema.json")
    refs = [branch["$ref"] for branch in union["oneOf"]]
    assert refs == [_rel(t) for t in EVENT_TYPES]


@pytest.mark.parametrize(("name", "event"), examples(), ids=lambda x: x if isinstance(x, str) else "")
def test_examples_validate(name: str, event: dict[str, Any]) -> None:
    assert validate_event(event) is event
    assert event_errors(event) == []
    validate_against("event", event)  # the union agrees


def test_card_tokens_match_the_engine() -> None:
    from heatlog.engine.cards import CARDS

    card = load(SCHEMA_DIR / "events" / "defs.schema.json")["$defs"]["card"]
    assert "enum" not in card  # the form of a token; which cards a race has is its catalogue's (test_cards.py)
    assert all(re.fullmatch(card["pattern"], c) for c in CARDS)


# --------------------------------------------------------------------------------------------------
# bad events: MalformedInput naming type, path and what is wrong


def with_(etype: str, **changes: Any) -> dict[str, Any]:
    event = example(etype)
    for key, value in changes.items():
        if value is ...:
            del event[key]
        else:
            event[key] = value
    return event


BAD: list[tuple[str, object, list[str]]] = [
    ("unknown type", {"type": "pit_stop", "v": 1, "car": "Red"}, ["unknown event type 'pit_stop'", "boost"]),
    ("missing type", {"v": 1, "car": "Red"}, ["no type", "race_started", "note"]),
    ("not an object", ["boost", "Red"], ["JSON object", "list"]),
    ("missing car", {"type": "boost", "v": 1}, ["boost: car: missing"]),
    (  # the form of a card token; whether the race has the card is its catalogue's (tests/rules/test_cards.py)
        "card 7!",
        {"type": "cards_revealed", "v": 1, "car": "Red", "cards": ["1", "2", "7!"]},
        ["cards_revealed: cards[2]: '7!' is not a valid card (a card token of the race's catalogue: the base cards"],
    ),
    ("gear 5", {"type": "gear_chosen", "v": 1, "car": "Red", "gear": 5}, ["gear_chosen: gear: 5", "1 to 4"]),
    ("gear 0", {"type": "gear_chosen", "v": 1, "car": "Red", "gear": 0}, ["gear_chosen: gear: 0"]),
    (
        "gear as text",
        {"type": "gear_chosen", "v": 1, "car": "Red", "gear": "2"},
        ["gear: '2' is not a whole"],
    ),
    (
        "cards and count",
        {"type": "cards_drawn", "v": 1, "car": "Red", "cards": ["1"], "count": 1},
        ["cards_drawn: ", "exactly one of cards or count"],
    ),
    (
        "neither cards nor count",
        {"type": "cards_drawn", "v": 1, "car": "Red"},
        ["cards_drawn: give cards or count"],
    ),
    (
        "9 cards drawn",  # the hand is 7, or 8 with a championship event card (# 21.8)
        {"type": "cards_drawn", "v": 1, "car": "R", "cards": ["1"] * 9},
        ["cards: has 9 items"],
    ),
    ("count 0", {"type": "cards_drawn", "v": 1, "car": "Red", "count": 0}, ["count: 0"]),
    ("extra property", {"type": "boost", "v": 1, "car": "Red", "heat": 1}, ["boost: heat: unknown field"]),
    ("v 2", {"type": "boost", "v": 2, "car": "Red"}, ["boost: v: 2 is not a supported event version"]),
    ("missing v", {"type": "boost", "car": "Red"}, ["boost: v: missing"]),
    (
        "car with spaces",
        {"type": "boost", "v": 1, "car": " Red"},
        ["boost: car: ' Red' is not a valid car name"],
    ),
    (
        "car newline",
        {"type": "boost", "v": 1, "car": "Red\n"},
        ["boost: car: 'Red\\n' is not a valid car name"],
    ),
    ("empty car", {"type": "boost", "v": 1, "car": ""}, ["boost: car: is empty"]),
    ("long car", {"type": "boost", "v": 1, "car": "x" * 41}, ["boost: car: is 41 characters long"]),
    ("raw not text", {"type": "boost", "v": 1, "car": "Red", "raw": 5}, ["boost: raw: 5 is not a string"]),
    (
        "flip card list",
        {"type": "card_flipped", "v": 1, "car": "Red", "card": ["3"]},
        ["card_flipped: card:"],
    ),
    ("cooldown 13", {"type": "cooldown", "v": 1, "car": "Red", "count": 13}, ["cooldown: count: 13"]),
    (
        "bonus",
        {"type": "adrenaline", "v": 1, "car": "A", "bonus": "boost"},
        ["bonus: 'boost' is not", "move"],
    ),
    (
        "taken text",
        {"type": "slipstream", "v": 1, "car": "A", "taken": "yes"},
        ["taken: 'yes' is not true or"],
    ),
    ("no cards played", {"type": "cards_played", "v": 1, "car": "A", "cards": []}, ["cards: has 0 items"]),
    (
        "5 cards played",
        {"type": "cards_played", "v": 1, "car": "A", "cards": ["1"] * 5},
        ["cards: has 5 items"],
    ),
    (
        "discard 8",
        {"type": "cards_discarded", "v": 1, "car": "A", "cards": ["1"] * 8},
        ["cards_discarded: cards"],
    ),
    ("deck 201", {"type": "deck_shuffled", "v": 1, "car": "A", "order": ["1"] * 201}, ["deck_shuffled: order"]),
    (
        "deck card",
        {"type": "deck_shuffled", "v": 1, "car": "A", "order": ["1", "x"]},
        ["order[1]: 'x' is not a valid card"],
    ),
    ("seq 0", {"type": "retracted", "v": 1, "seq": 0}, ["retracted: seq: 0 is less than 1"]),
    ("retract car", {"type": "retracted", "v": 1, "seq": 3, "car": "A"}, ["retracted: car: unknown field"]),
    ("empty note", {"type": "note", "v": 1, "text": ""}, ["note: text: is empty"]),
    ("long note", {"type": "note", "v": 1, "text": "x" * 2001}, ["note: text: is 2001 characters long"]),
    (
        "grid twice",
        {"type": "grid_set", "v": 1, "order": ["A", "A"]},
        ["grid_set: order: 'A' appears more than once"],
    ),
    ("laps 0", with_("race_started", laps=0), ["race_started: laps: 0"]),
    ("laps 11", with_("race_started", laps=11), ["race_started: laps: 11"]),
    (
        "one car",
        with_("race_started", cars=[{"name": "A", "colour": "red"}]),
        ["race_started: cars: has 1 item;"],
    ),
    (
        "7 cars",
        with_("race_started", cars=[{"name": f"C{i}", "colour": "red"} for i in range(7)]),
        ["race_started: cars: has 7 items"],
    ),
    (
        "car without colour",
        with_("race_started", cars=[{"name": "A", "colour": "red"}, {"name": "B"}]),
        ["race_started: cars[1].colour: missing"],
    ),
    (
        "duplicate car names",
        with_(
            "race_started",
            cars=[{"name": "A", "colour": "red"}, {"name": "A", "colour": "blue"}],
            handicap=[],
        ),
        ["race_started: cars[1].name: 'A' is used by another car"],
    ),
    (
        "unknown handicap",
        with_("race_started", handicap=["Zed"]),
        ["race_started: handicap[0]: 'Zed' is not one"],
    ),
    (
        "variant",
        with_("race_started", variant="two-lap"),
        ["race_started: variant: 'two-lap' is not", "one-lap"],
    ),
    (
        "one-lap laps",
        with_("race_started", variant="one-lap", laps=2),
        ["race_started: laps: 2", "must be 1"],
    ),
    ("mode", with_("race_started", mode="online"), ["race_started: mode: 'online' is not", "table open"]),
    ("no handicap", with_("race_started", handicap=...), ["race_started: handicap: missing"]),
    ("no track", with_("race_started", track=...), ["race_started: track: missing"]),
    ("track not object", with_("race_started", track="usa"), ["race_started: track: 'usa' is not an object"]),
    ("seed text", with_("race_started", seed="42"), ["race_started: seed: '42' is not a whole number"]),
    ("position list", with_("race_started", position=[]), ["race_started: position: [] is not an object"]),
]


@pytest.mark.parametrize(("case", "event", "expected"), BAD, ids=[b[0] for b in BAD])
def test_bad_event_raises_malformed_input(case: str, event: object, expected: list[str]) -> None:
    with pytest.raises(MalformedInput) as info:
        validate_event(event)
    err = info.value
    for fragment in expected:
        assert fragment in err.message, f"{fragment!r} not in {err.message!r}"
    assert err.input == event
    assert str(err).startswith("malformed: ")
    assert "\n" not in str(err)  # one line a player understands
    problems = event_errors(event)
    assert problems and problems[0] == err.message


def test_event_errors_reports_everything() -> None:
    event = {"type": "cards_drawn", "v": 3, "car": "", "cards": ["9!", "1", "x"], "spare": True}
    problems = event_errors(event)
    text = "\n".join(problems)
    for fragment in ("v: 3", "car: is empty", "cards[0]: '9!'", "cards[2]: 'x'", "spare: unknown field"):
        assert fragment in text
    assert all(p.startswith("cards_drawn: ") for p in problems)


def test_track_problem_is_reported_with_its_path() -> None:
    if not (SCHEMA_DIR / "track.schema.json").exists():
        pytest.skip("track schema not written yet")
    event = example("race_started")
    event["track"]["corners"][1]["limit"] = -1
    with pytest.raises(MalformedInput, match=r"race_started: track\.corners\[1\]\.limit: -1"):
        validate_event(event)


def test_validate_against_other_schemas() -> None:
    with pytest.raises(MalformedInput, match=r"event: type: 'nope' is not one of"):
        validate_against("event", {"type": "nope", "v": 1})
    with pytest.raises(FileNotFoundError):
        validate_against("no_such_schema", {})
    if (SCHEMA_DIR / "track.schema.json").exists():
        validate_against("track", example("race_started")["track"])
        with pytest.raises(MalformedInput, match=r"^malformed: .*track: spaces: missing"):
            validate_against("track", {k: v for k, v in example("race_started")["track"].items() if k != "spaces"})


def test_schema_path() -> None:
    assert validation.schema_path("boost") == SCHEMA_DIR.parent / "heatlog" / "schema" / "events" / "boost.schema.json"
    assert validation.schema_path("events/boost") == validation.schema_path("boost")
    assert validation.schema_path("track").name == "track.schema.json"
    assert validation.schema_path("track").parent.name == "schema"
    assert validation.schema_path("boost").resolve() == (SCHEMA_DIR / "events" / "boost.schema.json").resolve()


def test_validation_is_cheap() -> None:
    """Dispatch on type to a cached validator: thousands of events per second (a loose bound for CI)."""
    events = [ex for _, ex in examples() if ex["type"] != "race_started"]
    for e in events:
        validate_event(e)  # warm the cache
    n = 0
    start = time.perf_counter()
    while n < 3000:
        for e in events:
            validate_event(e)
        n += len(events)
    rate = n / (time.perf_counter() - start)
    assert rate > 1000, f"{rate:.0f} validations per second"


# --------------------------------------------------------------------------------------------------
# the generated catalogue


def test_docs_events_md_is_generated_from_the_schemas() -> None:
    on_disk = (ROOT / "docs" / "events.md").read_text(encoding="utf-8")
    assert on_disk == docs_gen.render_event_catalogue(), "run: python -m heatlog.docsgen.events"


def test_the_union_schema_is_generated_from_the_catalogue() -> None:
    """schema/event.schema.json lists every registered type (a module's types land with it, issue 26)."""
    on_disk = (ROOT / "schema" / "event.schema.json").read_text(encoding="utf-8")
    assert on_disk == docs_gen.render_event_union(), "run: python -m heatlog.docsgen.events"


def test_catalogue_covers_every_type_with_an_example() -> None:
    text = docs_gen.render_event_catalogue()
    for etype in EVENT_TYPES:
        section = text.split(f"\n## {etype}\n", 1)[1].split("\n## ", 1)[0]
        assert "```json" in section and f'"type": "{etype}"' in section
