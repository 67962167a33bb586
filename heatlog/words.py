"""Counts in words, for every layer that says one (services and views alike): below the views, so a service
that words a refusal ("2 press corners") imports no shell."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless one: "1 lap", "2 laps", "0 rounds"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
