"""Piped output without rich (issue 10: everyday commands start at once): the board, the cars table and the
narration written as plain text, byte for byte what rich writes to a file that is not a terminal.

Importing rich's console and table costs about as much as importing typer; ``heatlog show`` and ``heatlog
replay --round N`` piped into a file or another program need neither. The views print two kinds of objects
of their own beside strings: :class:`Styled` (a line in styled pieces) and :class:`Grid` (a table). A rich
console prints them through ``__rich__`` (a ``rich.text.Text``, a ``rich.table.Table``, built as before);
:class:`PlainConsole` writes their text itself.

It does so only where the result is certain to be rich's: rich writes no colour or style (:func:`plain_width`
says when: not a terminal, no FORCE_COLOR or TTY_COMPATIBLE asking for one, a UTF-8 stream, not Windows or
Jupyter), every line fits the width rich lays out at (nothing to wrap or crop), a table fits without shrinking
a column, and every character is printable (no control character to make visible, no tab to expand: the
escaping of hostile text stays rich's, :mod:`heatlog.formats.usertext`). Anything else raises :class:`NotPlain`
before a byte is written, and :func:`write` prints the same view on a rich console instead. Tests
(tests/test_plain_output.py) compare the two over many races, names (wide characters, markup, control
characters) and widths.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from . import cell_len

__all__ = ["Grid", "NotPlain", "PlainConsole", "Styled", "plain_width", "write"]


class NotPlain(Exception):
    """Rich would lay this out differently from the text as it is (wrap, crop, escape, colour)."""


class Styled:
    """Text in pieces, each with a rich style (or None), as a ``rich.text.Text`` of base style ``style`` holds
    it. ``no_wrap``: printed as rich prints a ``Text(no_wrap=True, overflow="crop")`` (a board line);
    ``rstrip``: trailing whitespace removed first."""

    __slots__ = ("no_wrap", "parts", "rstrip", "style")

    def __init__(
        self,
        parts: Sequence[tuple[str, str | None]],
        *,
        style: str = "",
        no_wrap: bool = False,
        rstrip: bool = False,
    ) -> None:
        self.parts = list(parts)
        self.style = style
        self.no_wrap = no_wrap
        self.rstrip = rstrip

    @property
    def plain(self) -> str:
        text = "".join(chunk for chunk, _ in self.parts)
        return text.rstrip() if self.rstrip else text

    def __rich__(self) -> Any:
        from rich.text import Text

        text = Text(style=self.style, no_wrap=True, overflow="crop") if self.no_wrap else Text(style=self.style)
        for chunk, style in self.parts:
            text.append(chunk, style=style)
        if self.rstrip:
            text.rstrip()
        return text


class Grid:
    """A table as the cars table is drawn: a simple head (a rule under the header), no edges, no padding, one
    blank between columns. ``columns``: (header, justify, no_wrap, min_width); each row one cell per column,
    a string or a :class:`Styled`."""

    __slots__ = ("columns", "rows")

    def __init__(self, columns: Sequence[tuple[str, str, bool, int | None]]) -> None:
        self.columns = list(columns)
        self.rows: list[list[str | Styled]] = []

    def add_row(self, *cells: str | Styled) -> None:
        self.rows.append(list(cells))

    def __rich__(self) -> Any:
        from rich import box
        from rich.table import Table

        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=0, show_edge=False)
        for header, justify, no_wrap, min_width in self.columns:
            table.add_column(header, justify=justify, no_wrap=no_wrap, min_width=min_width)  # type: ignore[arg-type]
        for row in self.rows:
            table.add_row(*(cell if isinstance(cell, str) else cell.__rich__() for cell in row))
        return table

    def natural_width(self) -> int:
        """The width the table takes with no column shrunk: its widest cells (or headers) and one blank between
        columns."""
        texts = [[c if isinstance(c, str) else c.plain for c in row] for row in self.rows]
        widths = [
            max(cell_len(header), min_width or 0, *(cell_len(row[i]) for row in texts))
            for i, (header, _, _, min_width) in enumerate(self.columns)
        ]
        return sum(widths) + len(widths) - 1

    def plain_lines(self, width: int) -> list[str]:
        """The table's lines as rich lays them out at ``width``, when no column must shrink (else NotPlain)."""
        texts = [[c if isinstance(c, str) else c.plain for c in row] for row in self.rows]
        headers = [header for header, _, _, _ in self.columns]
        widths = []
        for i, (header, _, _, min_width) in enumerate(self.columns):
            column = [header] + [row[i] for row in texts]
            for cell in column:
                _check(cell)
                if cell != cell.strip():
                    raise NotPlain("a cell with whitespace at an end")
            widths.append(max(max(map(cell_len, column)), min_width or 0) or 1)
        if sum(widths) + len(widths) - 1 > width:
            raise NotPlain("the table does not fit")

        def line(cells: list[str]) -> str:
            out = []
            for cell, w, (_, justify, _, _) in zip(cells, widths, self.columns, strict=True):
                pad = " " * (w - cell_len(cell))
                out.append(pad + cell if justify == "right" else cell + pad)
            return " ".join(out)

        return [line(headers), "─" * (sum(widths) + len(widths) - 1)] + [line(row) for row in texts]


_WORD = r"\s*\S+\s*"  # rich._wrap.re_word: a word and the whitespace after it
_TRAILING = r"\s+$"  # (compiled at the first wrap, and then from re's cache: most boards wrap nothing)


def wrap_words(text: str, width: int) -> list[str]:
    """``text`` (one line, printable) cut into lines as rich wraps a ``Text`` at ``width`` (``rich._wrap.
    divide_line``, then ``Text.rstrip_end``), when every word fits a line; NotPlain if one would be folded or
    a line cropped."""
    word_at = re.compile(_WORD).match
    breaks: list[int] = []
    offset = 0
    match = word_at(text, 0)
    while match is not None:
        start, end = match.span()
        word = match.group(0)
        length = cell_len(word.rstrip())
        if width - offset >= length:
            offset += cell_len(word)
        elif length > width:
            raise NotPlain("a word longer than the line")
        elif offset and start:
            breaks.append(start)
            offset = cell_len(word)
        match = word_at(text, end)
    out = []
    for a, b in zip([0, *breaks], [*breaks, len(text)], strict=True):
        line = text[a:b]
        if len(line) > width:  # Text.rstrip_end: whitespace beyond the width goes (counted in characters)
            found = re.search(_TRAILING, line)
            if found is not None:
                line = line[: len(line) - min(len(found.group(0)), len(line) - width)]
        if cell_len(line) > width:
            raise NotPlain("a line rich would crop")
        out.append(line)
    return out


def _check(text: str) -> None:
    if not text.isprintable():  # a control or invisible character (or a tab): rich makes it visible
        raise NotPlain("a character rich would escape")


class PlainConsole:
    """The part of a rich console the board views use (``print``, ``rule``, ``width``), writing what rich would
    write to a file that is not a terminal into a buffer (:meth:`text`), or raising :class:`NotPlain`."""

    def __init__(self, width: int) -> None:
        self.width = width
        self._out: list[str] = []

    def text(self) -> str:
        return "".join(self._out)

    def print(
        self,
        *objects: Any,
        style: Any = None,
        markup: bool | None = None,
        highlight: bool | None = None,
        soft_wrap: bool | None = None,
    ) -> None:
        # style, markup and highlight change nothing here: no styles are written and the consoles of
        # heatlog.formats.usertext never read markup
        if not objects:
            self._out.append("\n")
            return
        if len(objects) != 1:
            raise NotPlain("several objects")
        obj = objects[0]
        if isinstance(obj, str):
            lines = obj.split("\n")
            wrap = not soft_wrap
        elif isinstance(obj, Styled):
            lines = obj.plain.split("\n")
            wrap = not soft_wrap and not obj.no_wrap
        elif isinstance(obj, Grid):
            lines = obj.plain_lines(self.width)
            soft_wrap, wrap = True, False  # laid out to fit
        else:
            raise NotPlain(f"a {type(obj).__name__}")
        out = []
        for text in lines:
            _check(text)
            if soft_wrap or cell_len(text) <= self.width:
                out.append(text)
            elif wrap:
                out += wrap_words(text, self.width)
            else:
                raise NotPlain("a line rich would crop")
        self._out.append("\n".join(out) + "\n")

    def rule(self, style: Any = None) -> None:
        self._out.append("─" * self.width + "\n")


def plain_width(stream: TextIO | None = None) -> int | None:
    """The width rich's console would lay out ``stream`` (default: standard output) at, if it would write it
    without colour or style (as rich 13–15 decide it: ``Console.is_terminal`` false, ``Console.size``); None
    if rich would write a terminal's escape codes, or in a case this does not follow (Windows, Jupyter, an
    encoding rich would write ASCII boxes for)."""
    stream = sys.stdout if stream is None else stream
    if stream is None or sys.platform == "win32":
        return None
    import builtins

    if hasattr(builtins, "get_ipython"):
        return None
    env = os.environ
    compatible = env.get("TTY_COMPATIBLE", "")
    if compatible == "1":
        return None
    if compatible != "0":
        force = env.get("FORCE_COLOR")
        if force is not None:
            if force != "":
                return None
        else:
            try:
                if stream.isatty():
                    return None
            except (AttributeError, ValueError):
                pass
    if not (getattr(stream, "encoding", "utf-8") or "utf-8").lower().startswith("utf"):
        return None
    columns = env.get("COLUMNS")
    if columns is not None and columns.isdigit():
        width = int(columns)
    else:
        width = 0
        for fd in (0, 1, 2):
            try:
                width = os.get_terminal_size(fd).columns
            except (AttributeError, ValueError, OSError):
                continue
            break
        width = width or 80
    return width if width >= 1 else None


def write(draw: Callable[[Any], None], console: Callable[[], Any]) -> None:
    """``draw(console)`` on a :class:`PlainConsole` when rich would write standard output as plain text and
    the view is plain (one write at the end); else (or if the view raises anything) on ``console()``, the
    rich console."""
    width = plain_width()
    if width is not None:
        out = PlainConsole(width)
        try:
            draw(out)
        except Exception:  # NotPlain, or an error the rich console shall raise (after what it printed)
            pass
        else:
            sys.stdout.write(out.text())
            sys.stdout.flush()
            return
    draw(console())
