"""Validation at the door: every event is checked against its JSON schema, and a set-up also against its track
and position (docs/design.md). The schemas themselves, their fast check and the plain words are heatlog.formats.schemas.

Every event entering heatlog (CLI, import, API) is checked here against ``schema/events/<type>.schema.json``
before it reaches the engine; replay of a stored log does not validate again. The schemas are the event
catalogue (``docs/events.md`` is generated from them by :mod:`heatlog.docsgen.events`).

Validation is cheap per event: the registry and one ``Draft202012Validator`` per schema are built once,
lazily, and an event is checked against its own type's schema (dispatch on ``event["type"]``), never against
the big ``oneOf`` of ``schema/event.schema.json``.

Messages name the event type, the JSON path of the problem (``cards[2]``) and what is wrong in plain words::

    malformed: {"car": "Red", ...}: cards_revealed: cards[2]: '7' is not a card (one of 1 2 3 4 0 5 H S)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..engine.errors import MalformedInput
from .positions import position_problems
from .schemas import (
    EVENT_TYPES,
    SCHEMA_DIR,
    TYPE_WORDS,
    all_problems,
    catalogue,
    compiled_check,
    first_problem,
    json_path,
    json_type,
    load_schema,
    problem_message,
    registry,
    schema_path,
    show,
    validate_against,
)
from .tracks import track_problems
from .usertext import name_problem

__all__ = [
    "EVENT_TYPES",
    "SCHEMA_DIR",
    "event_errors",
    "json_path",
    "load_schema",
    "registry",
    "schema_path",
    "validate_against",
    "validate_event",
]

_EVENT_TYPE_SET = frozenset(EVENT_TYPES)


# --------------------------------------------------------------------------------------------------
# events


def validate_event(event: object) -> dict[str, Any]:
    """Return ``event`` if it is a well-formed event; else raise :class:`MalformedInput` (first problem).

    An event the compiled fast check accepts is valid (see :class:`_Compiler`); every other event is
    checked by jsonschema itself, which gives the verdict and the message.
    """
    etype = _event_type(event)
    assert isinstance(event, dict)  # _event_type raised otherwise
    schemas = catalogue()
    fast = schemas.fast_check(etype)
    if fast is None or not fast(event):
        validator = schemas.validator(schema_path(etype))
        error = next(validator.iter_errors(event), None)
        if error is not None:
            path, what = first_problem(error)
            raise MalformedInput(problem_message(etype, path, what), input=event)
    if etype == "race_started":
        problem = next(_race_started_checks(event), None)
        if problem is not None:
            raise MalformedInput(problem_message(etype, *problem), input=event)
    return event


def event_errors(event: object) -> list[str]:
    """Every problem of ``event`` (empty if it is well-formed), one message each, for audits and imports.

    The compiled fast check answers first; jsonschema runs only for an event it does not accept, to find and
    word every problem (tests/test_fast_validation.py: the fast check never accepts what jsonschema refuses).
    """
    if type(event) is dict:  # the common case first: a compiled check made already says ok
        etype = event.get("type")
        if type(etype) is str and etype != "race_started":
            check = compiled_check(etype)
            if check is not None and check(event):
                return []
    try:
        etype = _event_type(event)
    except MalformedInput as err:
        return [err.message]
    assert isinstance(event, dict)
    schemas = catalogue()
    fast = schemas.fast_check(etype)
    if fast is not None and fast(event):  # sound: jsonschema would find nothing; it runs only to explain
        problems: list[tuple[str, str]] = []
    else:
        problems = list(all_problems(schemas.validator(schema_path(etype)).iter_errors(event)))
    if etype == "race_started" and not problems:
        problems.extend(_race_started_checks(event))
    return [problem_message(etype, path, what) for path, what in problems]


def _event_type(event: object) -> str:
    if not isinstance(event, dict):
        raise MalformedInput(
            f"an event must be a JSON object, not {TYPE_WORDS.get(json_type(event), 'that')}", input=event
        )
    etype = event.get("type")
    if isinstance(etype, str) and etype in _EVENT_TYPE_SET:
        return etype
    known = ", ".join(EVENT_TYPES)  # only for the message (an import or an audit asks once per event)
    if etype is None:
        raise MalformedInput(f"event has no type (known types: {known})", input=event)
    raise MalformedInput(f"unknown event type {show(etype)} (known types: {known})", input=event)


def _race_started_checks(event: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """What the schema cannot say: car names are unique (ignoring case) and typable (heatlog.formats.usertext), colours
    differ (ignoring case); handicapped drivers are cars of the race."""
    names: list[str] = []
    folded: dict[str, str] = {}
    colours: dict[str, str] = {}  # folded colour -> the car that has it, as a user knows it
    for i, car in enumerate(event.get("cars") or ()):
        name = car.get("name") if isinstance(car, dict) else None
        if isinstance(name, str):
            problem = name_problem(name, car=True)
            if problem:
                yield f"cars[{i}].name", f"{show(name)} {problem}"
            if name in names:
                yield f"cars[{i}].name", f"{show(name)} is used by another car (names must be unique)"
            elif name.casefold() in folded:
                other = folded[name.casefold()]
                yield f"cars[{i}].name", f"{show(name)} differs from {show(other)} only in case (names must differ)"
            names.append(name)
            folded.setdefault(name.casefold(), name)
        colour = car.get("colour") if isinstance(car, dict) else None
        if isinstance(colour, str):
            problem = name_problem(colour)
            if problem:
                yield f"cars[{i}].colour", f"{show(colour)} {problem}"
            key = colour.strip().casefold()
            if key in colours:
                yield f"cars[{i}].colour", f"{show(colour)} is the colour of {colours[key]} (each car its own)"
            colours.setdefault(key, show(name) if isinstance(name, str) else f"cars[{i}]")
    for i, name in enumerate(event.get("handicap") or ()):
        if isinstance(name, str) and name not in names:
            yield f"handicap[{i}]", f"{show(name)} is not one of the cars ({', '.join(names)})"
    track = event.get("track")
    if isinstance(track, dict):
        for path, what in track_problems(track):
            yield json_path(["track", *path]), what
    position = event.get("position")
    if isinstance(position, dict):
        yield from _position_checks(event, position, names)


def _position_checks(event: Mapping[str, Any], position: dict[str, Any], names: list[str]) -> Iterator[tuple[str, str]]:
    """A race started from a position: the position is consistent (heatlog.formats.positions) and it is the event's."""
    in_position = [c.get("name") for c in position.get("cars", [])]
    if in_position != names:
        yield "position.cars", f"the position's cars ({', '.join(map(str, in_position))}) are not the event's cars"
        return
    for key in ("track", "laps", "mode"):
        if position.get(key) != event.get(key):
            yield f"position.{key}", f"the position's {key} is not the event's"
            return
    for path, what in position_problems(position):
        yield "position" + ("." + path if path else ""), what
