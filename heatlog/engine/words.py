"""Counts in words, for every layer that says one (the engine's modules word their rules, services their refusals,
views everything): in the engine, the lowest layer, so every other one imports it from here
(heatlog/formats/words.py)."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless one: "1 lap", "2 laps", "0 rounds"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
