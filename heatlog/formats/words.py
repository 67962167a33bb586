"""Counts in words, for every layer that says one (services and views alike): below the views, so a service
that words a refusal ("2 press corners") imports no shell. The engine's own (engine/words.py: its modules word
their rules too), kept importable from here."""

from __future__ import annotations

from ..engine.words import counted as counted

__all__ = ["counted"]
