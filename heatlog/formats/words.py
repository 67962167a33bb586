"""Counts in words, for every layer that says one (services and views alike): below the views, so a service
that words a refusal ("2 press corners") imports no shell. The engine's own (engine/words.py: its modules word
their rules too), kept importable from here; signed figures (:func:`signed`)."""

from __future__ import annotations

from ..engine.words import counted as counted

__all__ = ["counted", "fixed", "signed"]


def signed(x: float, places: int = 3) -> str:
    """``x`` to ``places`` decimals with its sign; a value that is zero but for rounding is +0.000, never -0.000
    (a luck that sums to zero, a difference of two equal means, a cost of nothing)."""
    return f"{round(x, places) + 0.0:+.{places}f}"


def fixed(x: float, places: int = 2) -> str:
    """``x`` to ``places`` decimals, a minus only before a figure that is not zero once rounded: 0.00, never
    -0.00 (a loss of -0.001 places, a mean a hair below zero)."""
    return f"{round(x, places) + 0.0:.{places}f}"
