"""Validation at the door: JSON Schema checks of events, tracks and positions (docs/design.md).

Every event entering heatlog (CLI, import, API) is checked here against ``schema/events/<type>.schema.json``
before it reaches the engine; replay of a stored log does not validate again. The schemas are the event
catalogue (``docs/events.md`` is generated from them by :mod:`heatlog.docs_gen`).

Validation is cheap per event: the registry and one ``Draft202012Validator`` per schema are built once,
lazily, and an event is checked against its own type's schema (dispatch on ``event["type"]``), never against
the big ``oneOf`` of ``schema/event.schema.json``.

Messages name the event type, the JSON path of the problem (``cards[2]``) and what is wrong in plain words::

    malformed: {"car": "Red", ...}: cards_revealed: cards[2]: '7' is not a card (one of 1 2 3 4 0 5 H S)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from .engine.errors import MalformedInput

SCHEMA_DIR = Path(__file__).parent / "schema"  # heatlog/schema is a symlink to the top-level schema/
SCHEMA_BASE = "https://heatlog.example/schema/"
SUFFIX = ".schema.json"

# The event catalogue of docs/design.md, in its order. Each has schema/events/<type>.schema.json.
EVENT_TYPES: tuple[str, ...] = (
    "race_started",
    "grid_set",
    "deck_shuffled",
    "cards_drawn",
    "gear_chosen",
    "cards_played",
    "cards_revealed",
    "card_flipped",
    "cooldown",
    "boost",
    "adrenaline",
    "slipstream",
    "cards_discarded",
    "retracted",
    "note",
)
_EVENT_TYPE_SET = frozenset(EVENT_TYPES)


def schema_path(name: str) -> Path:
    """Where the schema called ``name`` lives: ``"boost"`` (or ``"events/boost"``), ``"track"``, ``"event"``.

    Event types and ``defs`` live in ``schema/events/``, everything else in ``schema/``. The file need not
    exist.
    """
    name = name.removesuffix(SUFFIX)
    if name.startswith("events/"):
        return SCHEMA_DIR / "events" / f"{name.removeprefix('events/')}{SUFFIX}"
    if name in _EVENT_TYPE_SET or name == "defs":
        return SCHEMA_DIR / "events" / f"{name}{SUFFIX}"
    return SCHEMA_DIR / f"{name}{SUFFIX}"


@dataclass
class _Schemas:
    """All schemas under one folder, their registry and (lazily) one validator per schema."""

    contents: dict[Path, dict[str, Any]]
    registry: Registry[Any]
    validators: dict[Path, Draft202012Validator] = field(default_factory=dict)

    def validator(self, path: Path) -> Draft202012Validator:
        found = self.validators.get(path)
        if found is None:
            try:
                schema = self.contents[path]
            except KeyError:
                raise FileNotFoundError(f"no schema {path}") from None
            found = Draft202012Validator(schema, registry=self.registry)
            self.validators[path] = found
        return found


def _build(root: Path = SCHEMA_DIR, extra: Mapping[str, Mapping[str, Any]] | None = None) -> _Schemas:
    """Load every ``*.schema.json`` under ``root`` into a registry keyed by ``$id``.

    ``extra`` adds resources by URI (tests use it for stand-ins of schemas not written yet).
    """
    contents: dict[Path, dict[str, Any]] = {}
    resources: list[tuple[str, Resource[Any]]] = []
    for path in sorted(root.rglob(f"*{SUFFIX}")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        uri = schema.get("$id") or SCHEMA_BASE + path.relative_to(root).as_posix()
        contents[path] = schema
        resources.append((uri, Resource.from_contents(schema, default_specification=DRAFT202012)))
    for uri, schema in (extra or {}).items():
        resources.append((uri, Resource.from_contents(dict(schema), default_specification=DRAFT202012)))
    registry: Registry[Any] = Registry().with_resources(resources).crawl()
    return _Schemas(contents=contents, registry=registry)


_CACHE: _Schemas | None = None


def _schemas() -> _Schemas:
    global _CACHE
    if _CACHE is None:
        _CACHE = _build()
    return _CACHE


def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema ``name`` (see :func:`schema_path`)."""
    path = schema_path(name)
    try:
        return _schemas().contents[path]
    except KeyError:
        raise FileNotFoundError(f"no schema {path}") from None


def registry() -> Registry[Any]:
    """The registry of every schema under ``schema/`` (for resolving ``$ref`` elsewhere, e.g. docs)."""
    return _schemas().registry


# --------------------------------------------------------------------------------------------------
# events


def validate_event(event: object) -> dict[str, Any]:
    """Return ``event`` if it is a well-formed event; else raise :class:`MalformedInput` (first problem)."""
    etype = _event_type(event)
    assert isinstance(event, dict)  # _event_type raised otherwise
    validator = _schemas().validator(schema_path(etype))
    error = next(validator.iter_errors(event), None)
    if error is not None:
        path, what = _first(error)
        raise MalformedInput(_message(etype, path, what), input=event)
    if etype == "race_started":
        problem = next(_race_started_checks(event), None)
        if problem is not None:
            raise MalformedInput(_message(etype, *problem), input=event)
    return event


def event_errors(event: object) -> list[str]:
    """Every problem of ``event`` (empty if it is well-formed), one message each, for audits."""
    try:
        etype = _event_type(event)
    except MalformedInput as err:
        return [err.message]
    assert isinstance(event, dict)
    validator = _schemas().validator(schema_path(etype))
    problems = list(_all_problems(validator.iter_errors(event)))
    if etype == "race_started" and not problems:
        problems.extend(_race_started_checks(event))
    return [_message(etype, path, what) for path, what in problems]


def _event_type(event: object) -> str:
    known = ", ".join(EVENT_TYPES)
    if not isinstance(event, dict):
        raise MalformedInput(
            f"an event must be a JSON object, not {_TYPE_WORDS.get(_json_type(event), 'that')}", input=event
        )
    etype = event.get("type")
    if etype is None:
        raise MalformedInput(f"event has no type (known types: {known})", input=event)
    if not isinstance(etype, str) or etype not in _EVENT_TYPE_SET:
        raise MalformedInput(f"unknown event type {_show(etype)} (known types: {known})", input=event)
    return etype


def _race_started_checks(event: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """What the schema cannot say: car names are unique; handicapped drivers are cars of the race."""
    names: list[str] = []
    for i, car in enumerate(event.get("cars") or ()):
        name = car.get("name") if isinstance(car, dict) else None
        if isinstance(name, str):
            if name in names:
                yield f"cars[{i}].name", f"{_show(name)} is used by another car (names must be unique)"
            names.append(name)
    for i, name in enumerate(event.get("handicap") or ()):
        if isinstance(name, str) and name not in names:
            yield f"handicap[{i}]", f"{_show(name)} is not one of the cars ({', '.join(names)})"


def _message(etype: str, path: str, what: str) -> str:
    return f"{etype}: {path}: {what}" if path else f"{etype}: {what}"


# --------------------------------------------------------------------------------------------------
# other schemas


def validate_against(schema_name: str, instance: object) -> None:
    """Check ``instance`` against ``schema/<schema_name>.schema.json`` (e.g. ``"track"``, ``"position"``).

    Raises :class:`MalformedInput` naming the schema, the JSON path of the first problem and what is wrong.
    """
    validator = _schemas().validator(schema_path(schema_name))
    error = next(validator.iter_errors(instance), None)
    if error is not None:
        path, what = _first(error)
        raise MalformedInput(_message(schema_name, path, what), input=instance)


# --------------------------------------------------------------------------------------------------
# plain-words messages


_TYPE_WORDS = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _show(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def _article(noun: str) -> str:
    vowel = noun[:1].lower() in "aeiou" and not noun.lower().startswith(("one", "uni", "use"))
    return ("an " if vowel else "a ") + noun


def _plain(value: object) -> str:
    """A value inside an explanation: strings bare (``H``), everything else as JSON."""
    return value if isinstance(value, str) else _show(value)


def _json_path(parts: Iterable[str | int]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _all_problems(errors: Iterable[ValidationError]) -> Iterator[tuple[str, str]]:
    seen: set[tuple[str, str]] = set()
    for error in errors:
        for problem in _describe(error):
            if problem not in seen:
                seen.add(problem)
                yield problem


def _first(error: ValidationError) -> tuple[str, str]:
    return next(_describe(error), (_json_path(error.absolute_path), error.message))


def _describe(error: ValidationError) -> Iterator[tuple[str, str]]:
    """(JSON path, plain words) for one jsonschema error; one per name for required/additionalProperties."""
    parts = list(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    value = error.instance
    kind = error.validator
    title = schema.get("title")

    if kind == "required" and isinstance(value, dict):
        for name in error.validator_value:
            if name not in value:
                yield _json_path([*parts, name]), "missing (required)"
        return
    if kind == "additionalProperties" and isinstance(value, dict):
        allowed = list(schema.get("properties", {}))
        patterns = list(schema.get("patternProperties", {}))
        for name in value:
            if name not in allowed and not any(re.search(p, name) for p in patterns):
                yield _json_path([*parts, name]), f"unknown field (allowed: {', '.join(allowed)})"
        return

    path = _json_path(parts)
    shown = _show(value)
    if kind == "enum":
        options = " ".join(_plain(o) for o in error.validator_value)
        what = f"{shown} is not {_article(title)} (one of {options})" if title else f"{shown} is not one of {options}"
    elif kind == "const":
        must = _show(error.validator_value)
        what = f"{shown} is not {_article(title)} (must be {must})" if title else f"must be {must}, not {shown}"
    elif kind == "type":
        given = error.validator_value
        wanted = [str(t) for t in (given if isinstance(given, list) else [given])]
        what = f"{shown} is not " + " or ".join(_TYPE_WORDS.get(t, t) for t in wanted)
    elif kind in ("minimum", "maximum"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            what = f"{shown} is out of range ({low} to {high})"
        elif kind == "minimum":
            what = f"{shown} is less than {low}"
        else:
            what = f"{shown} is more than {high}"
    elif kind == "minItems":
        what = f"has {_items(len(value))}; at least {error.validator_value} needed"
    elif kind == "maxItems":
        what = f"has {_items(len(value))}; at most {error.validator_value} allowed"
    elif kind == "minLength":
        what = "is empty" if not value else f"{shown} is shorter than {error.validator_value} characters"
    elif kind == "maxLength":
        what = f"is {len(value)} characters long; at most {error.validator_value} allowed"
    elif kind == "pattern":
        if title:
            what = f"{shown} is not a valid {title}"
            if schema.get("description"):
                what += f" ({_lower_first(schema['description']).rstrip('.')})"
        else:
            what = f"{shown} does not match the pattern {error.validator_value}"
    elif kind == "uniqueItems":
        dups = [v for i, v in enumerate(value) if v in value[:i]]
        what = f"{_show(dups[0])} appears more than once" if dups else "items must be unique"
    elif kind == "oneOf" and _required_alternatives(error.validator_value):
        names = _required_alternatives(error.validator_value)
        present = [n for n in names if isinstance(value, dict) and n in value]
        choice = " or ".join(names)
        what = f"give exactly one of {choice}, not both" if present else f"give {choice} (one is required)"
    elif kind in ("oneOf", "anyOf") and error.context:
        # Not one of the allowed forms: report the problem of the closest alternative.
        best = min(error.context, key=lambda e: (-len(e.absolute_path), len(e.context or ())))
        yield from _describe(best)
        return
    else:
        what = error.message
    yield path, what


def _required_alternatives(branches: object) -> list[str]:
    """``["cards", "count"]`` if ``branches`` is a oneOf of bare ``{"required": [name]}`` forms, else []."""
    if not isinstance(branches, list):
        return []
    names: list[str] = []
    for branch in branches:
        if not (isinstance(branch, dict) and set(branch) == {"required"} and len(branch["required"]) == 1):
            return []
        names.append(branch["required"][0])
    return names


def _items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]
