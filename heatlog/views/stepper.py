"""``heatlog replay`` in the terminal: print rounds, or step through them with keys when a person is there.

Keys: ``n``, ``→``, space: next round; ``p``, ``←``: previous; ``g``/Home, ``G``/End: first/last; a number then
Enter: jump to that round; ``q``, Esc or Ctrl-C: quit.
"""

from __future__ import annotations

import os
import re
import select
import sys
from collections.abc import Callable
from typing import Any

from rich.cells import cell_len

from . import counted
from .board import render_car_round, render_round, render_round_board, render_round_head, render_round_rest
from .replay import Replay

HELP = "n/→ next · p/← previous · number+Enter jump · g/G first/last · m more · q quit"


def print_rounds(console: Any, rp: Replay, *, round: int | None = None, car: str | None = None) -> None:
    """Print one round (``round``) or every round, one after the other (piped output, ``--round``)."""
    rp.check_car(car)
    if round is None and not rp.rounds:  # piped, it printed nothing at all
        name = f" ({rp.name})" if rp.name else ""
        console.print(f"race {rp.race}{name} has not started its first round yet", markup=False, highlight=False)
        return
    numbers = [round] if round is not None else [rv.number for rv in rp.rounds]
    if car is not None and round is None:  # one car's race: a few lines a round, not every full board
        name = f" ({rp.name})" if rp.name else ""
        head = f"race {rp.race}{name}: {car}'s race, {counted(len(numbers), 'round')}"
        console.print(head, style="bold", markup=False, highlight=False)
        for n in numbers:
            console.print()
            render_car_round(console, rp.round(n), car, of=rp.last)
        return
    for i, n in enumerate(numbers):
        if i:
            console.rule(style="dim")
        render_round(console, rp.round(n), race=rp.race, name=rp.name, of=rp.last, car=car)


def step_rounds(
    console: Any,
    rp: Replay,
    *,
    start: int | None = None,
    car: str | None = None,
    read_key: Callable[[], str] | None = None,
) -> None:
    """Interactive stepping: one round on screen at a time, keys move between rounds."""
    rp.check_car(car)
    if not rp.rounds:
        print_rounds(console, rp, car=car)
        return
    n = rp.first if start is None else rp.round(start).number
    if read_key is None:
        with _KeyReader() as keys:
            _loop(console, rp, n, car, keys.read)
    else:
        _loop(console, rp, n, car, read_key)


def _loop(console: Any, rp: Replay, n: int, car: str | None, reader: Callable[[], str]) -> None:
    typed = ""
    message = ""
    page = 0  # the page of the round's screen shown (a round taller than the terminal is read a page at a time)
    while True:
        screen = _Screen(console, rp, n, car)
        page = min(page, len(screen.pages) - 1)
        screen.draw(page, message + (f"   round: {typed}_" if typed else ""))
        message = ""
        key = reader()
        if key in ("q", "Q", "esc", "\x03", "\x04", ""):
            return
        if key.isdecimal():
            typed += key
            continue
        if key in ("\r", "\n") and typed:
            wanted, typed = int(typed), ""
            if rp.first <= wanted <= rp.last:
                n, page = wanted, 0
            else:
                message = f"no round {wanted} (rounds {rp.first}–{rp.last})"
            continue
        if key in ("\x7f", "\b") and typed:
            typed = typed[:-1]
            continue
        typed = ""
        if key in MORE:
            page = (page + 1) % len(screen.pages)  # past the last page: back to the board
            continue
        if key in BACK:
            page = max(0, page - 1)
            continue
        was = n
        if key in ("n", " ", "right", "down", "l", "j", "\r", "\n"):
            n = min(rp.last, n + 1)
        elif key in ("p", "left", "up", "h", "k"):
            n = max(rp.first, n - 1)
        elif key in ("g", "home"):
            n = rp.first
        elif key in ("G", "end"):
            n = rp.last
        if n != was:
            page = 0  # another round opens on its board


MORE = ("m", "pgdn", "\t")  # the round's next page (m for more, as in a pager)
BACK = ("b", "pgup")


class _Screen:
    """One round as the terminal shows it: the round's head (race, round, turn order) kept at the top, the rest
    cut into pages that fit under it with the two key lines at the bottom — the board first (its blank lines
    left out when it does not fit whole), then the cars tables and the narration, a turn or a table never cut in
    two when it fits on a page. The screen is drawn from its top each time (cleared, never
    appended) and is never taller than the terminal: a board and narration taller than it scrolled the round's
    head and the board off the top (an 80×24 terminal showed 22 of a round's ~50 lines)."""

    def __init__(self, console: Any, rp: Replay, n: int, car: str | None) -> None:
        self.console = console
        rv = rp.round(n)
        self.head = _captured(console, lambda: render_round_head(console, rv, race=rp.race, name=rp.name, of=rp.last))
        board = _captured(console, lambda: render_round_board(console, rv))
        rest = _captured(console, lambda: render_round_rest(console, rv, car=car))
        room = max(1, console.height - len(self.head) - 3)  # a blank line under the head, two key lines
        if self.rows(board + rest) <= room:
            self.pages = [board + rest]  # it fits: the screen is the printed round
            return
        if self.rows(board) > room:  # compact: the strip's rows without the blank lines between them
            board = [line for line in board if _visible(line).strip()]
        self.pages = [page for page in _pages(board + rest, self.row_counts(board + rest), room) if page] or [[]]

    def row_counts(self, lines: list[str]) -> list[int]:
        """The terminal rows each line takes (a line wider than the terminal wraps)."""
        width = max(1, self.console.width)
        return [max(1, -(-cell_len(_visible(line)) // width)) for line in lines]

    def rows(self, lines: list[str]) -> int:
        return sum(self.row_counts(lines))

    def draw(self, page: int, status: str) -> None:
        console = self.console
        lines = self.pages[page]
        total = len(self.pages)
        if total > 1:
            more = "m more" if page + 1 < total else "m back to the board"
            status = f"page {page + 1} of {total} of this round: {more}, b back   {status}".rstrip()
        console.clear()
        console.file.write("\n".join([*self.head, "", *lines]) + "\n")
        below = console.height - len(self.head) - 1 - self.rows(lines)
        console.file.write("\n" * max(0, below - 2))  # the key lines at the bottom, where they always are
        console.print(_cut(status, console.width), markup=False, style="dim", highlight=False)
        console.print(_cut(HELP, console.width), markup=False, style="dim", highlight=False, end="")
        console.file.flush()


def _captured(console: Any, render: Callable[[], None]) -> list[str]:
    """The lines ``render`` prints on ``console``, as the terminal would show them (colours kept)."""
    with console.capture() as cap:
        render()
    return cap.get().splitlines()


def _pages(lines: list[str], rows: list[int], room: int) -> list[list[str]]:
    """``lines`` (taking ``rows`` terminal rows each) cut into pages of at most ``room`` rows, at a blank line,
    a table's head or a turn's number when what follows fits on a page (a table or a turn is not cut in two)."""
    units: list[list[int]] = []  # indexes of lines kept together
    for i, line in enumerate(lines):
        text = _visible(line)
        starts = not units or not text.strip() or _visible(lines[i - 1]).strip() == "" or _UNIT.match(text)
        if starts:
            units.append([])
        units[-1].append(i)
    pages: list[list[str]] = [[]]
    used = 0
    for unit in units:
        size = sum(rows[i] for i in unit)
        if pages[-1] and used + size > room and size <= room:
            pages.append([])
            used = 0
        for i in unit:
            if pages[-1] and used + rows[i] > room:  # a unit taller than a page: cut where the page ends
                pages.append([])
                used = 0
            if not pages[-1] and not _visible(lines[i]).strip():
                continue  # a page does not start with a blank line
            pages[-1].append(lines[i])
            used += rows[i]
    return pages


_UNIT = re.compile(r"\s*(\d+\. |car\s|note|Hall of Fame)")  # a turn's sentence, a table's head, a note


def _visible(line: str) -> str:
    """A captured line without its colour escapes (what takes room on the screen)."""
    return _ESCAPE.sub("", line)


def _cut(text: str, width: int) -> str:
    return text if cell_len(text) < width else text[: max(1, width - 2)] + "…"


_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


class _KeyReader:
    """Single keys from the terminal, arrows decoded; the terminal is in cbreak mode (no echo, no line
    buffering) while the reader is open, and restored after."""

    ESCAPES = {
        "[C": "right",
        "[D": "left",
        "[A": "up",
        "[B": "down",
        "[H": "home",
        "[F": "end",
        "OH": "home",
        "OF": "end",
        "[1~": "home",
        "[4~": "end",
        "[5~": "pgup",
        "[6~": "pgdn",
    }

    def __enter__(self) -> _KeyReader:
        import termios
        import tty

        self.fd = sys.stdin.fileno()
        self.saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd, termios.TCSANOW)  # TCSANOW: keep keys typed ahead
        return self

    def __exit__(self, *exc: object) -> None:
        import termios

        termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)

    def read(self) -> str:
        ch = os.read(self.fd, 1).decode(errors="replace")
        if ch != "\x1b":
            return ch
        seq = ""
        while len(seq) < 3 and select.select([self.fd], [], [], 0.05)[0]:
            seq += os.read(self.fd, 1).decode(errors="replace")
            if seq in self.ESCAPES:
                return self.ESCAPES[seq]
        return seq or "esc"
