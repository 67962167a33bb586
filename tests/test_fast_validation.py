"""The compiled fast check of event schemas (heatlog.formats.schemas._Compiler) agrees with jsonschema.

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

from heatlog.formats import schemas as schema_module
from heatlog.formats import validation
from heatlog.formats.validation import EVENT_TYPES, schema_path, validate_event
from heatlog.simulate.world import race_events, random_bot

ROOT = Path(__file__).resolve().parent.parent


def jsonschema_ok(event: dict[str, Any]) -> bool:
    validator = schema_module.catalogue().validator(schema_path(event["type"]))
    return next(validator.iter_errors(event), None) is None


def fast(etype: str) -> Any:
    schemas = schema_module.catalogue()
    for _ in range(schema_module._DEFERRED.get(etype, 0) + 1):  # a set-up's check is compiled at its 4th use
        check = schemas.fast_check(etype)
    return check


def test_a_set_up_is_compiled_only_after_three() -> None:
    """A one-race command checks its race_started with jsonschema (cheaper than compiling that check); from
    the fourth in a process (an import or audit of many races) the compiled check answers."""
    schemas = schema_module._build()
    assert [schemas.fast_check("race_started") is None for _ in range(4)] == [True, True, True, False]
    assert schemas.fast_check("cards_drawn") is not None  # every other type at once


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


@cache
def set_ups() -> list[dict[str, Any]]:
    """race_started events of every kind the sample logs hold (Garage, Legends, weather, 6 cars, one-lap, table
    mode), the schema's examples, and races started from a position taken in the middle of each."""
    from heatlog.engine import apply
    from heatlog.engine.position import state_to_position

    out = [e for e in examples() if e["type"] == "race_started"]
    for path in sorted((ROOT / "replays").glob("*.jsonl")):
        events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        out.append(events[0])
        state = None
        for i, ev in enumerate(events[:-1], start=1):  # a position where a race may start: steps 1-2 (# 2.1)
            state = apply(state, ev)
            if i > len(events) // 2 and state.phase == "race" and state.step == 2:
                out.append({**events[0], "position": state_to_position(state)})
                break
    return out


def test_every_event_type_is_compiled() -> None:
    """Every event type has a compiled check, race_started too (its if/then, prefixItems, propertyNames,
    maxProperties and the oneOfs of the position it may carry are compiled: issue 9, speed of import)."""
    compiled = {t for t in EVENT_TYPES if fast(t) is not None}
    assert compiled == set(EVENT_TYPES)


def test_fast_check_accepts_recorded_races_and_examples() -> None:
    events = race_logs() + examples() + set_ups()
    assert {e["type"] for e in events} >= set(EVENT_TYPES) - {"cards_revealed"}
    assert any("position" in e for e in events) and any(e.get("variant") == "one-lap" for e in events)
    for ev in events:
        assert jsonschema_ok(ev), ev
        assert fast(ev["type"])(ev), ev


def test_if_then_of_a_one_lap_race_is_compiled() -> None:
    """# 17.1: a one-lap race has exactly one lap (the schema's if/then); a standard race may have more."""
    one_lap = next(e for e in set_ups() if e.get("variant") == "one-lap" and "position" not in e)
    check = fast("race_started")
    assert check(one_lap) and jsonschema_ok(one_lap)
    two = {**one_lap, "laps": 2}
    assert not check(two) and not jsonschema_ok(two)
    assert check({**two, "variant": "standard"}) and jsonschema_ok({**two, "variant": "standard"})
    no_variant = {k: v for k, v in two.items() if k != "variant"}  # "if" needs the variant: no branch
    assert check(no_variant) == jsonschema_ok(no_variant)


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


def _mutate(draw: st.DrawFn, event: dict[str, Any], keys: list[str], *, keep_type: bool) -> bool:
    """Replace, delete or add one value anywhere in ``event`` (added keys from ``keys``); False if it has no
    value to change. With ``keep_type`` its type stays (else a deleted type is replaced by an odd value)."""
    where = draw(st.sampled_from(paths(event)[1:] or [()]))
    if not where:
        return False
    parent: Any = event
    for step in where[:-1]:
        parent = parent[step]
    last = where[-1]
    action = draw(st.sampled_from(["replace", "delete", "add"]))
    if keep_type and last == "type":
        return True
    if action == "replace" or (action == "delete" and last == "type"):
        parent[last] = copy.deepcopy(draw(values))
    elif action == "delete":
        del parent[last]
    elif isinstance(parent, dict):
        parent[draw(st.sampled_from(keys))] = copy.deepcopy(draw(values))
    else:
        parent.append(copy.deepcopy(draw(values)))
    return True


@st.composite
def mutated_events(draw: st.DrawFn) -> dict[str, Any]:
    base = draw(st.sampled_from([e for e in race_logs()[:400] + examples() if e["type"] != "race_started"]))
    event = copy.deepcopy(base)
    keys = ["extra", "cards", "count", "car", "raw", "at", "round"]
    for _ in range(draw(st.integers(1, 3))):
        if not _mutate(draw, event, keys, keep_type=False):
            break
    if not isinstance(event.get("type"), str) or event["type"] not in EVENT_TYPES:
        event["type"] = base["type"]
    return event


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_events())
def test_fast_check_never_accepts_what_jsonschema_refuses(event: dict[str, Any]) -> None:
    check = fast(event["type"])
    if check(event):
        assert jsonschema_ok(event), event


@st.composite
def mutated_set_ups(draw: st.DrawFn) -> dict[str, Any]:
    """A race_started of the samples with one to three values replaced, deleted or added anywhere in it (its
    track, cards, modules and position included)."""
    event = copy.deepcopy(draw(st.sampled_from(set_ups())))
    for _ in range(draw(st.integers(1, 3))):
        _mutate(draw, event, ["extra", "laps", "variant", "cars", "position", "0", "x1"], keep_type=True)
    return event


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_set_ups())
def test_fast_check_of_a_set_up_never_accepts_what_jsonschema_refuses(event: dict[str, Any]) -> None:
    if fast("race_started")(event):
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
    from heatlog.formats.schemas import _Matches

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


def test_every_lazy_part_of_the_set_up_check_compiles() -> None:
    """The parts of race_started's check compiled at their first call (_Lazy: a season's championship block,
    weather, a position ...) are valid Python even where no sample race has reached them yet (else the first
    such race would end in a traceback, not a verdict)."""
    check = fast("race_started")
    lazies = [v for v in check.__globals__.values() if isinstance(v, schema_module._Lazy)]
    assert len(lazies) >= 5
    for lazy in lazies:
        compile(lazy.source, "<heatlog compiled schema>", "exec")
        assert lazy({}) in (True, False) and lazy(None) in (True, False)  # runs on any value
