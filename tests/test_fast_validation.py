"""The compiled fast check of event schemas (heatlog.validation._Compiler) agrees with jsonschema.

The door trusts the fast check's "valid"; so it must never say valid where jsonschema finds an error. It may
say "not sure" (False) for a valid event, but not for the events races are made of (or it would not be fast).
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from heatlog import validation
from heatlog.simulate.world import race_events, random_bot
from heatlog.validation import EVENT_TYPES, schema_path, validate_event

ROOT = Path(__file__).resolve().parent.parent


def jsonschema_ok(event: dict[str, Any]) -> bool:
    validator = validation._schemas().validator(schema_path(event["type"]))
    return next(validator.iter_errors(event), None) is None


def fast(etype: str) -> Any:
    return validation._schemas().fast_check(etype)


@cache
def race_logs() -> list[dict[str, Any]]:
    from heatlog.races import race_started_event

    out: list[dict[str, Any]] = []
    for seed, n in ((1, 2), (2, 4), (3, 6)):
        cars = [
            {"name": f"Car-{i}", "colour": c}
            for i, c in enumerate(("red", "blue", "green", "yellow", "black", "white")[:n])
        ]
        started = race_started_event(track="usa", cars=cars, mode="open")
        out.extend(race_events(started, {c["name"]: random_bot for c in cars}, seed))
    return out


def examples() -> list[dict[str, Any]]:
    out = []
    for etype in EVENT_TYPES:
        schema = json.loads(schema_path(etype).read_text(encoding="utf-8"))
        out.extend(schema.get("examples", []))
    return out


def test_every_event_type_but_the_set_up_is_compiled() -> None:
    """race_started (once per race) uses if/then and stays with jsonschema; every other type is compiled."""
    compiled = {t for t in EVENT_TYPES if fast(t) is not None}
    assert compiled == set(EVENT_TYPES) - {"race_started"}


def test_fast_check_accepts_recorded_races_and_examples() -> None:
    events = [e for e in race_logs() + examples() if e["type"] != "race_started"]
    assert {e["type"] for e in events} >= set(EVENT_TYPES) - {"race_started", "cards_revealed"}
    for ev in events:
        assert jsonschema_ok(ev), ev
        assert fast(ev["type"])(ev), ev


ODD_VALUES = [
    None,
    True,
    False,
    0,
    1,
    2,
    4,
    5,
    7,
    8,
    -1,
    1.0,
    2.0,
    2.5,
    Decimal(3),
    "",
    " ",
    "Red",
    "Red ",
    "\x00",
    "H",
    "S",
    "7",
    "1",
    [],
    ["1"],
    ["1", "1"],
    ["1", 2],
    ["Red", "Red"],
    [True],
    {},
    {"a": 1},
    "x" * 41,
    "é" * 40,
    float("nan"),
]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 9) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=10,
)
values = st.sampled_from(ODD_VALUES) | json_values


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(paths(v, (*prefix, i)))
    return out


@st.composite
def mutated_events(draw: st.DrawFn) -> dict[str, Any]:
    base = draw(st.sampled_from([e for e in race_logs()[:400] + examples() if e["type"] != "race_started"]))
    event = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(paths(event)[1:] or [()]))
        if not where:
            break
        parent: Any = event
        for step in where[:-1]:
            parent = parent[step]
        last = where[-1]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace" or (action == "delete" and last == "type"):
            parent[last] = copy.deepcopy(draw(values))
        elif action == "delete":
            del parent[last]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "cards", "count", "car", "raw", "at", "round"]))] = copy.deepcopy(
                draw(values)
            )
        else:
            parent.append(copy.deepcopy(draw(values)))
    if not isinstance(event.get("type"), str) or event["type"] not in EVENT_TYPES:
        event["type"] = base["type"]
    return event


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_events())
def test_fast_check_never_accepts_what_jsonschema_refuses(event: dict[str, Any]) -> None:
    check = fast(event["type"])
    if check(event):
        assert jsonschema_ok(event), event


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_events())
def test_validate_event_verdict_is_jsonschemas(event: dict[str, Any]) -> None:
    """The door's verdict is exactly jsonschema's (for JSON values: a Decimal cannot even be shown in a message)."""
    try:
        json.dumps(event, allow_nan=False)
    except (TypeError, ValueError):
        assume(False)
    try:
        validate_event(event)
        accepted = True
    except validation.MalformedInput:
        accepted = False
    assert accepted == jsonschema_ok(event)


def test_a_pattern_remembers_only_what_matched_and_only_so_many() -> None:
    """The compiled ``pattern`` keeps the strings seen to match (issue 9, speed: a log repeats its names and
    cards): a refusal is never remembered, a remembered match is one the regex gave, and the memory is bounded
    whatever a hostile file holds."""
    from heatlog.validation import _Matches

    m = _Matches("^[A-Z][a-z]*$")
    assert m.match("Ann") and "Ann" in m.good
    assert not m.match("ann") and "ann" not in m.good
    assert not m.match("Ann ") and m.good == {"Ann"}
    for i in range(2 * _Matches.LIMIT):
        assert m.match("A" + "a" * (i % 50) + "b" * (i // 50))
    assert len(m.good) == _Matches.LIMIT
    ok = {"type": "boost", "v": 1, "car": "Ann"}
    bad = {"type": "boost", "v": 1, "car": "Ann\u2028"}  # a line separator: not a typable name
    for _ in range(3):  # the same verdicts once the name is remembered
        assert validation.event_errors(ok) == []
        assert validation.event_errors(bad) != []
