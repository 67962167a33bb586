"""Generate docs/events.md, the event catalogue, from the schemas (``python -m heatlog.docsgen.events``).

The schemas in ``schema/events/`` are the source of truth; the test suite checks that docs/events.md equals
:func:`render_event_catalogue` so the page cannot drift from them.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from referencing import Registry

from ..engine import rules as _registers  # noqa: F401  (importing the rules registers every event type)
from ..engine.events import REGISTRY
from ..formats import schemas, validation

DOC_PATH = Path(__file__).resolve().parent.parent.parent / "docs" / "events.md"
COMMON = ("type", "v", "raw", "at")  # fields every event schema has; documented once at the top


def _resolve(schema: dict[str, Any], base: str, registry: Registry[Any]) -> tuple[dict[str, Any], str]:
    """``schema`` with its ``$ref`` followed (local keywords win) and the base URI of the result."""
    seen = 0
    while "$ref" in schema and seen < 10:
        resolved = registry.resolver(base_uri=base).lookup(schema["$ref"])
        local = {k: v for k, v in schema.items() if k != "$ref"}
        base = urljoin(base, schema["$ref"]).split("#")[0]
        schema = {**resolved.contents, **local}
        seen += 1
    return schema, base


def _code(value: object) -> str:
    if isinstance(value, str):
        return f'`"{value}"`'
    return f"`{json.dumps(value, ensure_ascii=False, allow_nan=False)}`"


def _range(low: object, high: object, unit: str = "") -> str:
    if low is not None and high is not None:
        return f"{low}–{high}{unit}"
    if low is not None:
        return f"≥ {low}{unit}"
    if high is not None:
        return f"≤ {high}{unit}"
    return ""


def _type_text(schema: dict[str, Any], base: str, registry: Registry[Any]) -> str:
    ref = schema.get("$ref", "")
    schema, base = _resolve(schema, base, registry)
    if ref.endswith("track.schema.json"):
        return "track object ([schema](../schema/track.schema.json))"
    if "const" in schema:
        return _code(schema["const"])
    if ref and schema.get("title"):  # a shared definition: name it (see "Shared definitions")
        return str(schema["title"]) + _count(schema)
    if "enum" in schema:
        return "one of " + " ".join(_code(v) for v in schema["enum"])
    kind = schema.get("type")
    if kind == "integer":
        return f"integer {_range(schema.get('minimum'), schema.get('maximum'))}".strip()
    if kind == "string":
        length = _range(schema.get("minLength"), schema.get("maxLength"), " chars")
        extra = [x for x in (length, schema.get("format")) if x]
        return f"string ({', '.join(extra)})" if extra else "string"
    if kind == "array":
        items = schema.get("items", {})
        item_text = "item"
        if isinstance(items, dict):
            is_object = _resolve(items, base, registry)[0].get("type") == "object"
            item_text = "object" if is_object else _type_text(items, base, registry)
        return f"list of {item_text}" + _count(schema)
    if kind in ("boolean", "object"):
        return str(kind)
    return "any"


def _count(schema: dict[str, Any]) -> str:
    """`` (1–7 items, unique)`` for an array schema with bounds, else ``""``."""
    if schema.get("type") != "array":
        return ""
    count = _range(schema.get("minItems"), schema.get("maxItems"), " items")
    parts = [x for x in (count, "unique" if schema.get("uniqueItems") else "") if x]
    return f" ({', '.join(parts)})" if parts else ""


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _rows(
    schema: dict[str, Any], base: str, registry: Registry[Any], prefix: str = "", skip: tuple[str, ...] = ()
) -> list[str]:
    rows: list[str] = []
    required = set(schema.get("required", ()))
    for name, prop in schema.get("properties", {}).items():
        if name in skip:
            continue
        path = f"{prefix}{name}"
        resolved, prop_base = _resolve(prop, base, registry)
        desc = prop.get("description") or resolved.get("description", "")
        rows.append(
            f"| `{path}` | {_cell(_type_text(prop, base, registry))} | {'yes' if name in required else 'no'} "
            f"| {_cell(desc)} |"
        )
        items = resolved.get("items")
        if resolved.get("type") == "array" and isinstance(items, dict):
            item, item_base = _resolve(items, prop_base, registry)
            if item.get("type") == "object" and "properties" in item:
                rows.extend(_rows(item, item_base, registry, prefix=f"{path}[]."))
    return rows


def _constraints(schema: dict[str, Any]) -> list[str]:
    notes: list[str] = []
    alternatives = schemas.required_alternatives(schema.get("oneOf"))
    if alternatives:
        notes.append("Exactly one of " + " or ".join(f"`{a}`" for a in alternatives) + " must be given.")
    cond, then = schema.get("if"), schema.get("then")
    if isinstance(cond, dict) and isinstance(then, dict):
        for field_name, rule in cond.get("properties", {}).items():
            for target, need in then.get("properties", {}).items():
                if "const" in rule and "const" in need:
                    why = f": {need['description']}" if need.get("description") else "."
                    when = f"If `{field_name}` is {_code(rule['const'])}"
                    notes.append(f"{when}, `{target}` must be {_code(need['const'])}{why}")
    return notes


def _example(example: object) -> str:
    """One line if short, else one line per top-level field."""
    flat = json.dumps(example, ensure_ascii=False, allow_nan=False)
    if len(flat) <= 100 or not isinstance(example, dict):
        return flat
    dumps = functools.partial(json.dumps, ensure_ascii=False, allow_nan=False)
    fields = [f"  {json.dumps(k, allow_nan=False)}: {dumps(v)}" for k, v in example.items()]
    return "{\n" + ",\n".join(fields) + "\n}"


def _nature(etype: str) -> str:
    """What kind of fact an event type is, as the event catalogue (heatlog.engine.events) registers it."""
    e = REGISTRY[etype]
    kind = "observed chance" if e.chance else "beside the race" if e.aside else "decision"
    return kind + (", in a car's turn" if e.turn else "") + ("" if e.module == "base" else f", {e.module} module")


def render_event_catalogue() -> str:
    """The Markdown of docs/events.md, rendered from ``schema/events/*.schema.json``."""
    registry = validation.registry()
    defs = validation.load_schema("defs")
    defs_base = defs["$id"]
    first = validation.load_schema(validation.EVENT_TYPES[0])
    out: list[str] = [
        "# Event catalogue",
        "",
        "<!-- Generated by `python -m heatlog.docsgen.events` from the event catalogue (heatlog/engine/events.py) and "
        "schema/events/*.schema.json; do not edit. -->",
        "",
        'Every event is a JSON object `{"type": ..., "v": 1, ...}` validated at the door by '
        "`heatlog.formats.validation.validate_event` against `schema/events/<type>.schema.json` "
        "(the union of all types is `schema/event.schema.json`). Events are facts from outside — decisions "
        "and observed chance; nothing derived is ever an event. No other fields are allowed. Every number "
        "is an integer, written as one: JSON Schema's `integer` takes `1.0`, but `heatlog add` refuses a number "
        "with a decimal point or an exponent, naming it (`gear: 1.0 is not an integer: write 1`), and so do "
        "`new --from-position` and `playout --position` of a number in a position file (new input, like an "
        "event typed). `heatlog import` takes an old log holding one as it was written, not normalised to `1`: "
        "a log's events are its record, hash-chained and exported byte for byte, so a rewritten event would no "
        "longer match the anchor of the file it came from, nor be known as the same log by `import` without "
        "`--again` (principle: never silently repaired); where the rules need the number (a gear, the laps) "
        "they refuse `1.0` on import as they refused it when the log was written (the entry is imported as "
        "recorded and withdrawn by a `retracted` event whose `refused` field says why; docs/store.md). "
        "Digest items (`# 7.5`) refer to the rules digest (`docs/rules.md`).",
        "",
        "## Fields of every event",
        "",
        "| field | type | required | description |",
        "|---|---|---|---|",
        "| `type` | string | yes | The event type: one of the types below. |",
        *_rows(first, first["$id"], registry, skip=tuple(k for k in first["properties"] if k not in COMMON[1:])),
        "",
        "## Shared definitions",
        "",
        "| name | type | description |",
        "|---|---|---|",
    ]
    for name in ("card", "car", "cards"):
        spec = defs["$defs"][name]
        out.append(
            f"| {spec.get('title', name)} | {_cell(_type_text(spec, defs_base, registry))} "
            f"| {_cell(spec.get('description', ''))} |"
        )
    out += ["", "## Event types", ""]
    out += [f"- [`{t}`](#{t}) — {validation.load_schema(t)['title']} ({_nature(t)})" for t in validation.EVENT_TYPES]
    for etype in validation.EVENT_TYPES:
        schema = validation.load_schema(etype)
        out += [
            "",
            f"## {etype}",
            "",
            f"**{schema['title']}.** {schema['description']}",
            "",
            f"Registered by `{REGISTRY[etype].module}` ({_nature(etype)}).",
            "",
        ]
        rows = _rows(schema, schema["$id"], registry, skip=COMMON)
        if rows:
            out += ["| field | type | required | description |", "|---|---|---|---|", *rows, ""]
        else:
            out += ["No fields beyond those of every event.", ""]
        for note in _constraints(schema):
            out += [note, ""]
        examples = schema.get("examples", [])
        out += ["Example:" if len(examples) == 1 else "Examples:", "", "```json"]
        out += [_example(e) for e in examples]
        out += ["```"]
    return "\n".join(out) + "\n"


def render_event_union() -> str:
    """schema/event.schema.json, rendered from the event catalogue: its ``type`` enum and its ``oneOf`` list every
    registered type, in the catalogue's order (a module's types land with the module, issue 26)."""
    path = validation.SCHEMA_DIR / "event.schema.json"
    union = json.loads(path.read_text(encoding="utf-8"))
    union["properties"]["type"]["enum"] = list(validation.EVENT_TYPES)
    refs = [f"events/{REGISTRY[t].schema_name}.schema.json" for t in validation.EVENT_TYPES]
    union["oneOf"] = []
    text = json.dumps(union, indent=2, ensure_ascii=False, allow_nan=False)
    one_line = ",\n".join("    " + json.dumps({"$ref": r}, allow_nan=False) for r in refs)
    return text.replace('"oneOf": []', '"oneOf": [\n' + one_line + "\n  ]") + "\n"


def main() -> None:
    DOC_PATH.write_text(render_event_catalogue(), encoding="utf-8")
    print(f"wrote {DOC_PATH}")
    union = validation.SCHEMA_DIR / "event.schema.json"
    union.write_text(render_event_union(), encoding="utf-8")
    print(f"wrote {union}")


if __name__ == "__main__":
    main()
