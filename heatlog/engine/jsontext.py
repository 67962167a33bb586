"""JSON text read and written on the start-up path of every command that reads a race, without importing ``json``.

Importing the ``json`` package compiles seven regular expressions (``json.decoder``, ``json.scanner``,
``json.encoder``), ~5 M instructions of every ``heatlog show`` and ``replay --round N`` (issue 32 item 4: start-up);
the work itself is done by the C module ``_json`` underneath, which needs none of them. :func:`loads` and
:func:`dumps` give exactly what ``json.loads`` and ``json.dumps`` give for the arguments they take, by the same C
scanner and encoder those use, and hand anything else to ``json`` itself (imported then): text that holds no
value or more than one, bytes, options they do not take, a Python without ``_json``. tests/test_jsontext.py
compares them with ``json`` on valid, malformed and hostile inputs.

Pure, like the rest of the engine (no I/O): the store, the rules fingerprint and the views use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    import _json
except ImportError:  # (another Python: json's own pure-Python scanner and encoder)
    _json = None  # type: ignore[assignment]


class _Decoder:
    """What the C scanner reads of a decoder: ``json.JSONDecoder()``'s defaults (strict, no hooks, ``float``,
    ``int``, and NaN/Infinity/-Infinity as json.decoder reads them)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


def _json_scan() -> Callable[[str, int], tuple[Any, int]]:
    import json

    return json.JSONDecoder().scan_once  # type: ignore[attr-defined]


#: ``json.JSONDecoder().scan_once``: (the JSON value that starts at an index of a text, the index after it); raises
#: StopIteration where no value starts, ``json.JSONDecodeError`` (a ``ValueError``) for a malformed one.
scan: Callable[[str, int], tuple[Any, int]] = (
    _json.make_scanner(_Decoder())  # type: ignore[arg-type]
    if _json is not None and hasattr(_json, "make_scanner")
    else _json_scan()
)


_SPACE = " \t\n\r"


def loads(text: Any) -> Any:
    """``json.loads(text)``: the value, or the same refusal (``json.JSONDecodeError``, a ``ValueError``)."""
    if type(text) is str:
        start = len(text) - len(text.lstrip(_SPACE))  # json's whitespace before and after the value: [ \t\n\r]*
        try:
            value, end = scan(text, start)
        except StopIteration:
            pass
        else:
            if end == len(text) or len(text.rstrip(_SPACE)) == end:  # (a value never ends with whitespace)
                return value
    import json  # no value, data after it, not a str: json says what it is

    return json.loads(text)


def _not_json(o: Any) -> Any:
    """``json.JSONEncoder.default``: the refusal of a value that has no JSON text."""
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def dumps(
    value: Any,
    *,
    sort_keys: bool = False,
    separators: tuple[str, str] | None = None,
    ensure_ascii: bool = True,
    allow_nan: bool = True,
) -> str:
    """``json.dumps(value, sort_keys=, separators=, ensure_ascii=, allow_nan=)`` (no indent, cycles refused as
    json refuses them), by the C encoder ``json.dumps`` uses."""
    make = getattr(_json, "make_encoder", None) if _json is not None else None
    if make is None:
        import json

        return json.dumps(
            value, sort_keys=sort_keys, separators=separators, ensure_ascii=ensure_ascii, allow_nan=allow_nan
        )
    quote = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    if isinstance(value, str):
        return quote(value)
    item, key = separators if separators is not None else (", ", ": ")
    encode = make({}, _not_json, quote, None, key, item, sort_keys, False, allow_nan)
    return "".join(encode(value, 0))


def quoted(text: str, *, ensure_ascii: bool = True) -> str:
    """``json.dumps(text, ensure_ascii=ensure_ascii)`` of a ``str``: its JSON string."""
    return dumps(text, ensure_ascii=ensure_ascii)


def kept_encoder(
    *, sort_keys: bool, separators: tuple[str, str], ensure_ascii: bool, allow_nan: bool
) -> Callable[[Any], str]:
    """``json.dumps(value, sort_keys=, separators=, ensure_ascii=, allow_nan=)`` as one encoder made once: the C
    encoder json.dumps makes anew at every call, without its cycle dict (a value that holds itself ends in
    RecursionError where json.dumps says ValueError: the store's events are JSON texts read back, which cannot)."""
    make = getattr(_json, "make_encoder", None) if _json is not None else None
    if make is None:
        import json

        return json.JSONEncoder(
            sort_keys=sort_keys, separators=separators, ensure_ascii=ensure_ascii, allow_nan=allow_nan
        ).encode
    quote = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    item, key = separators
    encode = make(None, _not_json, quote, None, key, item, sort_keys, False, allow_nan)
    join = "".join

    def text(value: Any) -> str:
        return join(encode(value, 0))

    return text
