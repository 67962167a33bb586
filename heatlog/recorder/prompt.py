"""What the recorder asks and the event an answer makes: the pieces every question module shares.

Below ``questions`` (the base race's questions) and ``season`` (the championship's): both build a
:class:`Question` and events with :func:`make_event`, and ``questions`` asks ``season`` for its questions, so
these live here, one layer down, not in either of them (issue 26: no import circle).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .notation import Event


@dataclass(slots=True)
class Question:
    """What the session asks now. ``auto`` is set when the rules determine the answer (never asked)."""

    kind: str  # grid setup_shuffle setup_draw gear play reveal flip shuffle react slipstream discard draw over
    car: str | None
    prompt: str
    default: str | None = None  # what Enter means, if anything
    hint: str = ""
    options: tuple[str, ...] = ()  # for Tab completion
    auto: Event | None = None
    several: bool = False  # one answer holds several words, each a token (the table server's row of tokens)


def make_event(kind: str, **fields: Any) -> Event:
    return {"type": kind, "v": 1, **fields}
