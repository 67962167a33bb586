"""``heatlog replay`` in the terminal: print rounds, or step through them with keys when a person is there.

Keys: ``n``, ``→``, space: next round; ``p``, ``←``: previous; ``g``/Home, ``G``/End: first/last; a number then
Enter: jump to that round; ``q``, Esc or Ctrl-C: quit.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Callable
from typing import Any

from . import counted
from .board import render_car_round, render_round
from .replay import Replay

HELP = "n/→ next · p/← previous · number+Enter jump · g/G first/last · q quit"


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
    while True:
        console.clear()
        render_round(console, rp.round(n), race=rp.race, name=rp.name, of=rp.last, car=car)
        console.print(f"\n{HELP}   {message}" + (f"   round: {typed}_" if typed else ""), markup=False, style="dim")
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
                n = wanted
            else:
                message = f"no round {wanted} (rounds {rp.first}–{rp.last})"
            continue
        if key in ("\x7f", "\b") and typed:
            typed = typed[:-1]
            continue
        typed = ""
        if key in ("n", " ", "right", "down", "l", "j", "\r", "\n"):
            n = min(rp.last, n + 1)
        elif key in ("p", "left", "up", "h", "k"):
            n = max(rp.first, n - 1)
        elif key in ("g", "home"):
            n = rp.first
        elif key in ("G", "end"):
            n = rp.last


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
