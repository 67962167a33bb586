"""How an event is laid out in a row of the ``events`` table: the two formats of the file (docs/store.md).

Format 1 (heatlog before issue 32) stores every row as written: the canonical text of the event, the time of
recording as ISO text, the hash and the previous hash as 64 hex characters each. Format 2 (new files) stores the
same facts in about half the space, and gives back exactly the same text, hashes and times:

- ``hash`` is the 32 bytes of the SHA-256, not its 64 hex characters;
- there is no ``prev_hash``: it is the hash of the row before in the race's effective log (the chain rule itself,
  heatlog/store), so a read takes it from there;
- ``payload`` leaves out what the row's columns already say: when the event's ``"type"`` and integer ``"v"`` are
  its last two members (as in nearly every event: its other keys sort before them) the text stored is the
  canonical text of the rest, and the ``v`` column is not NULL; :func:`payload_text` puts them back. Any other
  event (no integer ``v``, or a key sorting after ``"type"``, as ``"weather"``) is stored whole, ``v`` NULL;
- ``recorded`` is the time as microseconds since 1970 (UTC) when that gives back its text exactly, else the text.

This module is the whole encoding (pure functions, no I/O): heatlog/store asks it for the columns of a new row and for
the text of a stored one, so the rest of the store reads and writes events the same way in both formats.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["COMPACT", "hash_column", "hash_hex", "payload_column", "payload_text", "recorded_column", "recorded_text"]

#: The file format whose events table is laid out compactly (store.FORMAT_VERSION of new files).
COMPACT = 2

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)
_QUOTED: dict[str, str] = {}  # type -> '"type":' and its JSON text (a few dozen types: made once each)


def payload_column(type_: str, v: int | None, text: str) -> tuple[int | None, str]:
    """(``v`` column, ``payload`` column) of an event of type ``type_`` whose canonical text is ``text`` and whose
    integer version (the format-1 ``v`` column) is ``v``: the text without its last two members when they are
    ``"type"`` and ``"v"`` (cut as text: in canonical JSON the rest is then the canonical text of the event without
    them), else the whole text with ``v`` NULL. :func:`payload_text` gives ``text`` back."""
    if v is None:
        return None, text
    suffix = f'{_quoted(type_)},"v":{v}}}'
    if len(text) > len(suffix) and text.endswith(suffix) and text[-len(suffix) - 1] == ",":
        return v, text[: -len(suffix) - 1] + "}"
    if text == "{" + suffix:
        return v, "{}"
    return None, text


def payload_text(type_: Any, v: Any, body: Any) -> Any:
    """The event's canonical text from a format-2 row's ``type``, ``v`` and ``payload`` columns (``body`` itself when
    ``v`` is NULL; a row damaged into other types is given back as it is, for the checks to report)."""
    if v is None or type(body) is not str or type(type_) is not str or len(body) < 2:
        return body
    if len(body) == 2:  # "{}": the event had only its type and v
        return f'{{{_quoted(type_)},"v":{v}}}'
    return f'{body[:-1]},{_quoted(type_)},"v":{v}}}'


def _quoted(type_: str) -> str:
    """``"type":`` and the type as canonical JSON text (json's own string encoder, as the canonical text has it)."""
    quoted = _QUOTED.get(type_)
    if quoted is None:
        from json import dumps

        quoted = '"type":' + dumps(type_, ensure_ascii=False)
        if len(_QUOTED) < 256:  # the event types of the rules are a few dozen; a hostile file's are not kept
            _QUOTED[type_] = quoted
    return quoted


def hash_column(digest: str) -> bytes:
    """The stored form of a hex SHA-256."""
    return bytes.fromhex(digest)


def hash_hex(value: Any) -> Any:
    """The hex text of a stored hash (a value that is not bytes, from a damaged row, as it is)."""
    return value.hex() if type(value) is bytes else value


def recorded_column(recorded: str) -> int | str:
    """Microseconds since 1970 UTC if :func:`recorded_text` gives ``recorded`` back exactly, else the text."""
    try:
        at = datetime.fromisoformat(recorded.replace("Z", "+00:00"))
    except ValueError:
        return recorded
    if at.tzinfo is None:
        return recorded
    micros = (at - _EPOCH) // _MICRO
    return micros if recorded_text(micros) == recorded else recorded


def recorded_text(value: Any) -> Any:
    """The ISO text (``2026-12-04T20:15:32.123456Z``) of a stored time; text as it is."""
    if type(value) is not int:
        return value
    try:
        return (_EPOCH + value * _MICRO).isoformat(timespec="microseconds").replace("+00:00", "Z")
    except OverflowError:
        return str(value)
