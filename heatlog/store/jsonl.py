"""JSON Lines: the events of an exported log, read by the one safe reader (and a fast reader that proves each line
reads alone as its value).
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from heatlog.engine.errors import MalformedInput

from .records import canonical_text

#: The first words of a refusal of lines that are not events (``MalformedInput.words``).
NOT_A_LOG = "not a race log"
SAID_LINES = 5  # the bad lines whose problem a refusal says


def parse_jsonl(text: str, anchors: list[tuple[int, dict[str, Any]]] | None = None) -> list[tuple[int, dict[str, Any]]]:
    """Parse JSON Lines into (line number, event) pairs; blank lines are skipped.

    Lines split on ``\\n`` only and every line is read by the one safe reader (:func:`heatlog.formats.jsonio.loads`).
    Raises MalformedInput naming EVERY bad line (not JSON, too deep, not an object, no "type"). Anchor lines
    (``{"heatlog_anchor": ...}``, written at the end of an export) are not events: they go to ``anchors``.
    """
    from ..formats.jsonio import json_line_values

    out: list[tuple[int, dict[str, Any]]] = []
    bad: list[str] = []
    season_lines = 0  # lines of a season file ({"stream", "event"}): the wrong door, said once rather than per line
    for number, value in json_line_values(text):
        if isinstance(value, MalformedInput):
            bad.append(f"line {number}: {value.message}")
            continue
        if not isinstance(value, dict):
            bad.append(f"line {number}: not a JSON object (got {type(value).__name__})")
            continue
        if "heatlog_anchor" in value and "type" not in value:
            if anchors is not None:
                anchors.append((number, value))
            continue
        if not isinstance(value.get("type"), str) or not value["type"]:
            bad.append(f'line {number}: the event has no "type"')
            season_lines += "type" not in value and "stream" in value and "event" in value
            continue
        out.append((number, value))
    if bad and season_lines == len(bad):
        raise MalformedInput(
            "a season file (heatlog season export), not a race's log: import it with `heatlog season import`",
            words=NOT_A_LOG,
        )
    if bad:
        lines = ", ".join(b.split(":", 1)[0].removeprefix("line ") for b in bad[:10])
        more = f" and {len(bad) - 10} more" if len(bad) > 10 else ""
        # every bad line is numbered, the first few said (a file that is no log at all: five, not a page of them)
        said = "; ".join(bad[:SAID_LINES]) + (f"; and {len(bad) - SAID_LINES} more" if len(bad) > SAID_LINES else "")
        raise MalformedInput(f"{len(bad)} bad line(s) ({lines}{more}): {said}", words=NOT_A_LOG)
    return out


def read_jsonl(
    text: str, anchors: list[tuple[int, dict[str, Any]]] | None = None
) -> tuple[list[tuple[int, dict[str, Any]]], list[str] | None]:
    """:func:`parse_jsonl`'s events (same values, same refusals) and, when the fast reader read the text, the
    canonical text of each event (else None), which the import stores and hashes instead of encoding again.

    The fast reader (:func:`heatlog.formats.jsonio.joined_line_values`) reads the lines joined, a thousand at a time;
    its values are taken only when every line is proven to read alone as its value: the line is the value's
    canonical text (an export's lines are), holds no ``\\u`` escape (whose surrogates the line reader checks)
    and has at most MAX_DEPTH openings; or else the line reader reads it as that value. Anything else (a value
    that is not an object, no "type", a line that does not read alone) and the text is read line by line by
    :func:`parse_jsonl`, which words every refusal as before. The common work runs in C, over whole lists."""
    fast = _read_joined(text)
    if fast is None:
        return parse_jsonl(text, anchors), None
    events, found, texts = fast
    if anchors is not None:
        anchors.extend(found)
    return events, texts


def _read_joined(
    text: str,
) -> tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, dict[str, Any]]], list[str]] | None:
    """(events, anchors, canonical texts) by the fast reader of :func:`read_jsonl`, or None."""
    from ..formats.jsonio import joined_line_values, loads

    joined = joined_line_values(text)
    if joined is None:
        return None
    lines, values, deep = joined
    # A line that reads alone reads as the same value wherever it stands, so one proof serves every copy of it:
    # the proofs (and the canonical texts) are made once per distinct line, and an event log repeats most of
    # its lines (the same flips, gears, boosts: ~70 % of a simulated race's lines are copies).
    distinct = dict(zip(lines, values, strict=True))
    try:
        canonical_of = dict(zip(distinct, map(canonical_text, distinct.values()), strict=True))
        kinds = list(map(dict.get, values, repeat("type")))  # TypeError: a value is not an object
    except (TypeError, ValueError, RecursionError):
        return None
    # The lines to read alone: not their value's canonical text, holding a \u escape, or deep.
    check = {lines[i] for i in deep}
    if list(canonical_of) != list(canonical_of.values()):
        check.update(line for line, canon in canonical_of.items() if line != canon)
    if "\\u" in text:
        check.update(line for line in distinct if "\\u" in line)
    for line in check:
        try:
            alone = loads(line, encodable=True)  # the text encodes: no raw lone surrogate
        except MalformedInput:
            return None
        if alone != distinct[line]:
            return None
    texts = list(map(canonical_of.__getitem__, lines))  # copies of a line share one text
    events = list(zip(range(1, len(values) + 1), values, strict=True))
    if set(map(type, kinds)) == {str} and "" not in kinds:  # every value an event with a "type"
        return events, [], texts
    found: list[tuple[int, dict[str, Any]]] = []
    others: set[int] = set()
    for i, (kind, value) in enumerate(zip(kinds, values, strict=True)):
        if isinstance(kind, str) and kind:
            continue
        if "heatlog_anchor" not in value or "type" in value:
            return None  # parse_jsonl words it
        found.append(events[i])
        others.add(i)
    keep = [i for i in range(len(values)) if i not in others]
    return [events[i] for i in keep], found, [texts[i] for i in keep]
