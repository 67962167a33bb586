"""User text is data, never markup: the one place that prepares a user's string for a screen or a page, and
the one statement of which characters a name may hold.

Every string a user gave (car and race names, colours, notes, branch names, ``raw`` text, track names) goes
through here on its way out:

- terminal (rich): :func:`visible` turns control and invisible formatting characters into visible escapes
  (ESC becomes ``\\x1b``, U+2028 becomes ``\\u2028``), so nothing a user typed can move the cursor, retitle the
  window or clear the screen; :func:`rich_text` wraps that in a :class:`rich.text.Text`, which rich never
  parses as markup; :func:`markup_escape` is for the rare place that builds a markup string. The consoles of
  the CLI are made with markup and emoji codes off (:func:`console`), so a string printed directly is literal
  too.
- HTML: :func:`html_text` escapes for element text and attribute values; :func:`embed_json` serialises data for
  a ``<script>`` block so that no string can end the block, open a comment or break the JavaScript parser
  (``<``, ``>``, ``&``, U+2028 and U+2029 are written as ``\\u`` escapes).

What a name may hold (refused at the door, see :func:`name_problem`): letters, digits, marks, punctuation and
symbols of assigned Unicode characters; never control characters (C0, DEL, C1), invisible formatting
characters (zero-width spaces and joiners, bidirectional overrides, soft hyphen, BOM), line or paragraph
separators, private-use or unassigned code points, lone surrogates, or whitespace at either end. Car names
also have no whitespace, comma or colon at all (the recorder splits answers on them and ``--car`` reads
``NAME:COLOUR``) and are not one of the recorder's words (:data:`RESERVED_CAR_NAMES`). Free text (notes,
``raw``) may hold anything but a lone surrogate; it is shown with :func:`visible`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

__all__ = [
    "INVISIBLE_CATEGORIES",
    "MAX_LABEL",
    "RESERVED_CAR_NAMES",
    "check_label",
    "console",
    "embed_json",
    "sheet_cell",
    "html_text",
    "markup_escape",
    "name_problem",
    "rich_text",
    "visible",
]

#: Unicode general categories that never belong in a name and are escaped on screen: control, format,
#: surrogate, private use, unassigned, line separator, paragraph separator.
INVISIBLE_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))

#: Words the recorder reads at its prompts (commands, and ``random`` for the grid): not car names.
RESERVED_CAR_NAMES = frozenset(("undo", "note", "board", "help", "quit", "random"))

_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if ch in _SHORT:
        return _SHORT[ch]
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _hidden(ch: str) -> bool:
    return unicodedata.category(ch) in INVISIBLE_CATEGORIES


def visible(text: Any) -> str:
    """``text`` with every control or invisible formatting character written as a visible escape."""
    s = text if isinstance(text, str) else str(text)
    if s.isprintable() and not any(0xD800 <= ord(c) <= 0xDFFF for c in s):
        # str.isprintable() is False for every Cc/Cf/Cs/Co/Cn/Zl/Zp character (and for Zs other than space,
        # which are shown as they are)
        return s
    return "".join(_escape_char(c) if _hidden(c) else c for c in s)


def rich_text(text: Any, style: str = "") -> Any:
    """A :class:`rich.text.Text` of the visible ``text``: rich shows it as it is, never as markup."""
    from rich.text import Text

    return Text(visible(text), style=style)


def markup_escape(text: Any) -> str:
    """The visible ``text`` escaped for use inside a rich markup string."""
    from rich.markup import escape

    return escape(visible(text))


def _visible_lines(text: str) -> str:
    """:func:`visible`, keeping the line breaks rich itself puts between lines."""
    if "\n" not in text:
        return visible(text)
    return "\n".join(visible(part) for part in text.split("\n"))


_CONSOLE_CLASS: Any = None


def _console_class() -> Any:
    global _CONSOLE_CLASS
    if _CONSOLE_CLASS is None:
        from rich.console import Console
        from rich.segment import Segment

        class LiteralConsole(Console):
            """A console whose output never carries a control character it did not make itself.

            Strings are read without markup or emoji codes, and with :func:`visible` applied before layout;
            every segment rendered (tables, :class:`~rich.text.Text` built by a view, progress bars) is passed
            through :func:`visible` too, except rich's own control segments. This is the one place user text
            meets the terminal, so no view can forget it.
            """

            def render_str(self, text: str, **kwargs: Any) -> Any:
                kwargs["markup"] = False
                kwargs["emoji"] = False
                return super().render_str(_visible_lines(text), **kwargs)

            def render(self, renderable: Any, options: Any = None) -> Any:
                for seg in super().render(renderable, options):
                    text = seg.text
                    if seg.control or text.isprintable() or text == "\n":
                        yield seg
                    else:
                        yield Segment(_visible_lines(text), seg.style, seg.control)

        _CONSOLE_CLASS = LiteralConsole
    return _CONSOLE_CLASS


def console(*, stderr: bool = False, **options: Any) -> Any:
    """A rich console that shows every string literally (see :func:`_console_class`): no markup, no emoji
    codes, no highlighting, control characters made visible."""
    options.setdefault("highlight", False)
    return _console_class()(stderr=stderr, markup=False, emoji=False, **options)


def html_text(text: Any) -> str:
    """The visible ``text`` escaped for HTML element text or a quoted attribute value."""
    import html  # only pages need it (html.entities is large: issue 10, start-up)

    return html.escape(visible(text), quote=True)


_JSON_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


#: First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection"): = + - @, tab,
#: carriage return, and their full-width forms, which some spreadsheets take for them.
_FORMULA_START = frozenset("=+-@\t\r\uff1d\uff0b\uff0d\uff20")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def sheet_cell(value: Any) -> Any:
    """A value for a CSV or TSV cell: text a spreadsheet would take for a formula (a car named ``=SUM(1+1)``,
    ``+1+1``, ``@SUM(1)``, ``=cmd|'/Ccalc'!A0``) gets a leading ``'``, as OWASP advises, so it is shown as the
    text it is and never evaluated; numbers (``-3``, also as text) and every other value are left as they are."""
    if not isinstance(value, str) or not value or value[0] not in _FORMULA_START or _PLAIN_NUMBER.fullmatch(value):
        return value
    return "'" + value


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside an HTML ``<script>`` element (and a JavaScript literal)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False, allow_nan=False)
    return text.translate(_JSON_ESCAPES)


def name_problem(name: Any, *, car: bool = False) -> str | None:
    """Why ``name`` cannot be a name (a car's if ``car``), or None if it can. See the module text."""
    if not isinstance(name, str):
        return "must be text"
    if not name:
        return "is empty"
    if name != name.strip():
        return "has whitespace at the start or end"
    for ch in name:
        if _hidden(ch):
            return f"holds {_describe(ch)}, which cannot be typed or shown"
        if ch.isspace() and ch != " ":
            return f"holds {_describe(ch)}; use a plain space"
        if car and (ch.isspace() or ch in ",:"):
            what = "a space" if ch == " " else repr(ch)
            return f"holds {what}; car names are one word without spaces, commas or colons (e.g. Ann, Red-2)"
    if car and name.casefold() in RESERVED_CAR_NAMES:
        return f"is a word the recorder reads ({', '.join(sorted(RESERVED_CAR_NAMES))})"
    return None


#: Longest race or branch name.
MAX_LABEL = 100


def check_label(name: str | None, what: str = "race name") -> str | None:
    """``name`` if it may name a race or branch (None stays None); else MalformedInput saying why."""
    from ..engine.errors import MalformedInput

    if name is None:
        return None
    problem = name_problem(name)
    if problem is None and len(name) > MAX_LABEL:
        problem = f"is {len(name)} characters long (at most {MAX_LABEL})"
    if problem:
        raise MalformedInput(f"{what} {name!r} {problem}")
    return name


def _describe(ch: str) -> str:
    name = unicodedata.name(ch, "") if not 0xD800 <= ord(ch) <= 0xDFFF else "lone surrogate"
    return f"U+{ord(ch):04X}" + (f" ({name.lower()})" if name else "")
