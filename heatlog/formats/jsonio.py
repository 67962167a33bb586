"""The one JSON reader of every door: ``heatlog add``, ``import``, ``new --track/--from-position``, track and
position files read by the Python API.

Whatever the bytes, it either returns plain JSON data (dicts, lists, str, int, float, bool, None) or raises
:class:`~heatlog.engine.errors.MalformedInput` with one message saying what was read, where (file, line,
column, JSON path) and why. It never lets ``RecursionError``, ``UnicodeDecodeError`` or ``MemoryError``-sized
input through:

- text must be UTF-8 (a byte-order mark is skipped); a SQLite file is named as such;
- nesting deeper than :data:`MAX_DEPTH` is refused (a printed board needs less than 10 levels);
- ``NaN``/``Infinity`` and numbers that overflow to infinity are refused (they are not JSON);
- a string holding a lone surrogate (``"\\ud800"``) is refused: it cannot be stored as UTF-8;
- integers longer than Python's limit (4,300 digits) are refused;
- no door reads more than its limit (:data:`MAX_FILE_BYTES` for a log or a season, :data:`MAX_SMALL_BYTES` for a
  track, a position, an anchor file or one event) plus one byte, whatever the source claims of its size: a
  device (``/dev/zero``, ``/dev/urandom``), a FIFO, a ``/proc`` file (all of size 0 to ``stat``) and endless
  standard input are read in chunks and refused as soon as they pass the limit, hold a byte that is not UTF-8,
  or a NUL byte (no JSON text holds one).

JSON Lines split on ``\\n`` only (a ``\\r`` before it is dropped): U+2028, U+2029 and U+0085 inside a note are
characters, not line breaks, so every exported file imports again.
"""

from __future__ import annotations

import codecs
import json
import math
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from ..engine.errors import CANT_READ, NOT_FOUND, MalformedInput

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_SMALL_BYTES",
    "check_json_value",
    "decimal_problem",
    "first_decimal",
    "json_lines",
    "joined_line_values",
    "loads",
    "read_bounded",
    "read_file_bytes",
    "read_json_file",
    "read_stdin",
    "read_text_file",
]

#: Deepest nesting of arrays and objects accepted (an event or a position needs at most ~8).
MAX_DEPTH = 64
#: Largest file any door reads (a 2,000-race export is ~200 MB; a track or position file is a few kB).
MAX_FILE_BYTES = 512 * 1024 * 1024
#: Largest track file, position file, anchor file or single event any door reads (a track is ~30 kB).
MAX_SMALL_BYTES = 16 * 1024 * 1024
#: Bytes read at a time from a file or a stream whose size is not known.
_CHUNK = 1 << 20

_SQLITE_MAGIC = b"SQLite format 3\x00"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in JSON")


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


# Integers longer than sys.get_int_max_str_digits() (4300) raise ValueError in the C scanner itself.
_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_parse_float)
#: The decoder's C scanner: (value, end) of the JSON value at an index (the same hooks: constants, floats).
_SCAN: Any = _DECODER.scan_once  # type: ignore[attr-defined]


def _where(where: str) -> str:
    return f"{where}: " if where else ""


def loads(text: str, where: str = "", *, encodable: bool = False) -> Any:
    """Parse one JSON text. ``where`` ("track file x.json", "line 12") prefixes the message of a refusal.
    ``encodable``: the caller knows ``text`` holds no raw lone surrogate (:func:`heatlog.store.parse_jsonl`
    knows it of a whole ASCII file at once), so only ``\\u`` escapes can make one."""
    if not isinstance(text, str):
        raise MalformedInput(f"{_where(where)}not JSON text")
    try:
        try:  # the C scanner alone, without JSONDecoder.decode's per-call work (an import reads thousands)
            value, end = _SCAN(text, 0)
        except StopIteration:
            end = -1
        if end != len(text):  # leading or trailing space, several values, not JSON: the full decoder says which
            value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno}, column {exc.colno}" if "\n" in text else f"column {exc.colno}"
        # "Unterminated string starting at", "Invalid control character at": the place ends the sentence
        why = f"{exc.msg} {at}" if exc.msg.endswith(" at") else f"{at}: {exc.msg}"
        raise MalformedInput(f"{_where(where)}not valid JSON: {why}") from None
    except RecursionError:
        raise MalformedInput(f"{_where(where)}nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # constants, infinite and overlong numbers
        why = "a number has too many digits" if "digits" in str(exc) else str(exc)[:200]
        raise MalformedInput(f"{_where(where)}not valid JSON: {why}") from None
    deep = text.count("[") + text.count("{") > MAX_DEPTH  # else the nesting cannot exceed MAX_DEPTH
    # a lone surrogate is escaped, or came raw from argv
    surrogates = "\\u" in text or (not encodable and _has_surrogate(text))
    if deep or surrogates:
        check_json_value(value, where, surrogates=surrogates)
    return value


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def json_path(parts: Iterable[str | int]) -> str:
    """``cars[2].name`` style location of a JSON value ("" for the top level)."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _path(parts: list[str | int]) -> str:
    return json_path(parts) or "(top level)"


def check_json_value(value: Any, where: str = "", *, surrogates: bool = True) -> None:
    """Refuse data no JSON door should accept: nesting deeper than MAX_DEPTH, lone surrogates in strings
    (when ``surrogates``), non-finite floats, non-JSON types. Iterative: any depth is safe to check."""
    stack: list[tuple[Any, int, list[str | int]]] = [(value, 1, [])]
    while stack:
        item, depth, path = stack.pop()
        if isinstance(item, dict):
            if depth > MAX_DEPTH:
                raise MalformedInput(f"{_where(where)}{_path(path)}: nested deeper than {MAX_DEPTH} levels")
            for key, sub in item.items():
                if not isinstance(key, str):
                    raise MalformedInput(f"{_where(where)}{_path(path)}: an object key must be a string")
                if surrogates and _has_surrogate(key):
                    raise MalformedInput(f"{_where(where)}{_path([*path, key])}: a key holds a lone surrogate")
                if isinstance(sub, dict | list | str | float) or not _scalar(sub):
                    stack.append((sub, depth + 1, [*path, key]))
        elif isinstance(item, list):
            if depth > MAX_DEPTH:
                raise MalformedInput(f"{_where(where)}{_path(path)}: nested deeper than {MAX_DEPTH} levels")
            for i, sub in enumerate(item):
                if isinstance(sub, dict | list | str | float) or not _scalar(sub):
                    stack.append((sub, depth + 1, [*path, i]))
        elif isinstance(item, str):
            if surrogates and _has_surrogate(item):
                bad = next(f"U+{ord(c):04X}" for c in item if 0xD800 <= ord(c) <= 0xDFFF)
                raise MalformedInput(
                    f"{_where(where)}{_path(path)}: the text holds a lone surrogate ({bad}), which is not a character"
                )
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise MalformedInput(f"{_where(where)}{_path(path)}: {item} is not a JSON number")
        elif not _scalar(item):
            raise MalformedInput(f"{_where(where)}{_path(path)}: {type(item).__name__} is not JSON data")


def first_decimal(value: Any) -> tuple[str, float] | None:
    """The JSON path and value of the first number in ``value`` written with a decimal point or an exponent
    (``1.0``, ``1e0``: a float once read), in document order; None if there is none. JSON Schema's
    ``integer`` takes ``1.0``, so a door whose data holds only integers asks this to refuse one."""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, float):
            return _path(path), item
        if isinstance(item, dict):
            stack.extend((sub, [*path, key]) for key, sub in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((sub, [*path, i]) for i, sub in reversed(list(enumerate(item))))
    return None


def decimal_problem(value: Any) -> str | None:
    """What a door says of the first number of ``value`` written with a decimal point or an exponent (see
    :func:`first_decimal`), in the words every door uses; None if every number is written as an integer."""
    found = first_decimal(value)
    if found is None:
        return None
    path, number = found
    write = f"write {int(number)}, without a decimal point" if number.is_integer() else "write a whole number"
    return f"{path}: {number!r} is not an integer: {write}"


def _scalar(x: Any) -> bool:
    return x is None or isinstance(x, bool | int)


# ---- files


def read_text_file(path: str | Path, what: str = "file", *, limit: int | None = None) -> str:
    """The text of a UTF-8 file, or MalformedInput naming the file and the first undecodable byte. At most
    ``limit`` bytes (default :data:`MAX_FILE_BYTES`) are accepted and at most one more read, whatever the file
    is: a device, a FIFO or a ``/proc`` file says its size is 0."""
    p = Path(path)
    label = f"{what} {p}"
    return decode_text(read_file_bytes(p, label, limit=limit), label)


def read_file_bytes(path: Path, label: str, *, limit: int | None = None) -> bytes:
    """The bytes of a file, bounded as :func:`read_bounded` reads (refusals name ``label``): a device, a FIFO
    or a ``/proc`` file too, whatever size it claims."""
    bound = MAX_FILE_BYTES if limit is None else limit
    try:
        info = os.stat(path)
        if info.st_size > bound:  # a regular file says its size: refused before it is read
            raise MalformedInput(
                f"{label}: {info.st_size} bytes is larger than heatlog reads here ({bound} bytes)", words=CANT_READ
            )
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(path)
        with open(path, "rb", buffering=0) as fh:  # a FIFO waits for its writer, as standard input does
            return _read_checked(fh, label, bound)
    except FileNotFoundError:
        raise MalformedInput(f"{label}: no such file", words=NOT_FOUND) from None
    except IsADirectoryError:
        raise MalformedInput(f"{label}: is a directory, not a file", words=CANT_READ) from None
    except OSError as exc:
        raise MalformedInput(f"{label}: cannot be read ({exc.strerror or exc})", words=CANT_READ) from None


def read_bounded(stream: BinaryIO, label: str = "input", *, limit: int | None = None) -> str:
    """The UTF-8 text of a binary stream (standard input), read in chunks: refused (MalformedInput naming
    ``label``) past ``limit`` bytes (default :data:`MAX_FILE_BYTES`; at most one more byte is read), at the
    first byte that is not UTF-8 or at a NUL byte, as soon as it arrives: endless input is never held."""
    bound = MAX_FILE_BYTES if limit is None else limit
    try:
        data = _read_checked(stream, label, bound)
    except OSError as exc:
        raise MalformedInput(f"{label}: cannot be read ({exc.strerror or exc})") from None
    return decode_text(data, label)


def read_stdin(label: str = "standard input", *, limit: int | None = None) -> str:
    """Standard input as text, read as :func:`read_bounded` reads."""
    import sys

    return read_bounded(sys.stdin.buffer, label, limit=limit)


def _read_checked(stream: Any, label: str, limit: int) -> bytes:
    """Read at most ``limit`` + 1 bytes of ``stream``; refuse more, a byte that is not UTF-8 or a NUL as each
    chunk arrives (decode_text words the UTF-8 refusal, with line and column)."""
    parts: list[bytes] = []
    total = 0
    utf8 = codecs.getincrementaldecoder("utf-8")()
    while True:
        chunk = stream.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            break
        if total == 0 and chunk.startswith(_SQLITE_MAGIC):
            decode_text(chunk, label)  # names a database as such
        parts.append(chunk)
        try:
            utf8.decode(chunk)
        except UnicodeDecodeError:
            decode_text(b"".join(parts), label)  # raises, naming line, column and byte
            raise  # pragma: no cover - decode_text refused what the decoder refused
        nul = chunk.find(b"\x00")
        if nul >= 0:
            data = b"".join(parts)
            at = total + nul
            line = data.count(b"\n", 0, at) + 1
            column = at - (data.rfind(b"\n", 0, at) + 1) + 1
            raise MalformedInput(
                f"{label}: line {line}, column {column}: not JSON text (byte 0x00 at offset {at}: "
                "a device or a binary file?)"
            )
        total += len(chunk)
        if total > limit:
            raise MalformedInput(f"{label}: more than {limit} bytes: larger than heatlog reads here")
    return b"".join(parts)


def decode_text(data: bytes, label: str = "input") -> str:
    """UTF-8 bytes to text (a leading byte-order mark is dropped), or MalformedInput at the first bad byte."""
    if data.startswith(_SQLITE_MAGIC):
        raise MalformedInput(f"{label}: this is a SQLite database, not a JSON file (use --db to open a database)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise MalformedInput(
            f"{label}: line {line}, column {column}: not UTF-8 text "
            f"(byte 0x{data[exc.start]:02x} at offset {exc.start}: {exc.reason})"
        ) from None


def read_json_file(path: str | Path, what: str = "file", *, limit: int | None = MAX_SMALL_BYTES) -> Any:
    """Parse a JSON file with :func:`loads`; messages name ``what`` and the file; at most ``limit`` bytes."""
    text = read_text_file(path, what, limit=limit)
    return loads(text, f"{what} {Path(path)}")


def json_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of JSON Lines text, split on ``\\n`` only; a ``\\r`` before it is dropped.

    U+2028, U+2029, U+0085, form feeds and other characters that :meth:`str.splitlines` would break on are
    part of the line (JSON allows them raw inside strings).
    """
    for number, line in enumerate(text.split("\n"), start=1):
        yield number, line[:-1] if line.endswith("\r") else line


def json_line_values(text: str) -> Iterator[tuple[int, Any]]:
    """(line number, value) of every non-blank line of JSON Lines text (split as :func:`json_lines` does), each
    read as :func:`loads` reads it; a refused line gives its :class:`MalformedInput` as the value, so that a
    caller can name every bad line.

    A line of an ASCII text (an export, unless a name has an accent) with no ``\\u`` escape and no more than
    MAX_DEPTH brackets is read by the C scanner alone when it is exactly one value: nothing :func:`loads` would
    check of such a line can fail (no raw or escaped surrogate, no deep nesting), and an import reads thousands.
    """
    encodable = text.isascii()  # str knows whether it is ASCII: asking costs nothing
    scan = _SCAN
    for number, line in enumerate(text.split("\n"), start=1):
        if line.endswith("\r"):
            line = line[:-1]
        if not line or line.isspace():
            continue
        if encodable and "\\u" not in line and line.count("[") + line.count("{") <= MAX_DEPTH:
            try:
                value, end = scan(line, 0)
            except (StopIteration, ValueError, RecursionError):  # loads words each of these
                end = -1
            if end == len(line):
                yield number, value
                continue
        try:
            yield number, loads(line, encodable=encodable)
        except MalformedInput as exc:
            yield number, exc


#: Every byte but the openings of arrays and objects and the line break (``bytes.translate`` deletes these).
_NOT_OPENING = bytes(b for b in range(256) if b not in b"[{\n")
#: Lines read by one call of the C scanner in :func:`joined_line_values`.
_JOINED = 1024


def joined_line_values(text: str) -> tuple[list[str], list[Any], set[int]] | None:
    """The lines of JSON Lines text, a value for each, read by the C scanner a thousand lines at a time (the
    lines joined as one array: a call per line costs ~40 % more, mostly in the key strings it makes again for
    every line), and the indexes of the lines with more than MAX_DEPTH openings (``[``, ``{``), which only
    :func:`loads` can clear; or None when the text is not plain: a ``\\r``, a lone surrogate, a blank line,
    anything the scanner refuses (nesting it cannot follow too), or not one value per line.

    **The values are the lines' only when the caller proves that each line reads alone** (for instance: the
    line is its value's canonical text and not deep, or :func:`loads` reads it as the value): joined,
    ``{"a":[1`` and ``2]}`` read as one value though neither line is JSON. When every line reads alone as one
    value, the joined array reads as exactly those values (JSON's grammar has one reading; the scanner and its
    hooks are :func:`loads`'), so then they are what :func:`json_line_values` gives, line for line."""
    if "\r" in text:
        return None
    try:
        data = text.encode("utf-8")  # no raw lone surrogate anywhere
    except UnicodeEncodeError:
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines:
        return None
    openings = list(map(len, data.translate(None, _NOT_OPENING).split(b"\n")))
    deep = {i for i, n in enumerate(openings) if n > MAX_DEPTH} if max(openings) > MAX_DEPTH else set()
    values: list[Any] = []
    scan = _SCAN
    for start in range(0, len(lines), _JOINED):
        part = lines[start : start + _JOINED]
        joined = "[" + ",".join(part) + "]"
        try:
            got, end = scan(joined, 0)
        except (StopIteration, ValueError, RecursionError):
            return None
        if end != len(joined) or len(got) != len(part):
            return None
        values += got
    return lines, values, deep
