"""heatlog: an event-sourced race logger and replay tool for Heat: Pedal to the Metal."""

from __future__ import annotations

import os
from pathlib import Path

__version__ = "0.1.0"
_rules_version: str | None = None

# Data that is not rules: tracks are embedded in every race_started (a log never reads the file again) and the
# bundled replays are sample logs. Every other file under heatlog/data/ counts as rules data (e.g. cards/).
NOT_RULES_DATA = ("tracks", "replays")


def rules_files(package: Path) -> list[Path]:
    """Every file the rules depend on, in a stable order: the engine package recursively (sub-packages such as
    ``engine/modules/`` included) and the rules data under ``data/`` (cards, and what modules add there)."""
    return [package / name for name in _rules_names(package)]


def _rules_names(package: Path) -> list[str]:
    """:func:`rules_files` as paths relative to ``package`` (``/``-separated), sorted: the regular files (or
    links to one) under ``engine/`` and ``data/`` outside ``__pycache__``, not descending into linked
    directories, the data that is not rules left out. ``os.walk`` rather than ``Path.rglob``: it is read at
    every start of a command that reads a race (issue 10: start-up)."""
    root = str(package)
    names: list[str] = []
    for top in ("engine", "data"):
        base = os.path.join(root, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
            parts = rel.split("/")
            for name in filenames:
                if name == "__pycache__":
                    continue
                if top == "data" and (parts[1] if len(parts) > 1 else name) in NOT_RULES_DATA:
                    continue
                if os.path.isfile(os.path.join(dirpath, name)):
                    names.append(f"{rel}/{name}")
    return sorted(names)


def fingerprint(package: Path) -> str:
    """A hash of :func:`rules_files` (names relative to ``package`` and contents)."""
    import hashlib

    digest = hashlib.sha256()
    root = str(package)
    for name in _rules_names(package):
        with open(os.path.join(root, name), "rb") as fh:
            digest.update(name.encode() + b"\0" + fh.read() + b"\0")
    return digest.hexdigest()[:16]


def rules_version() -> str:
    """A fingerprint of the rules (engine source and rules data): snapshots cached under another fingerprint are
    ignored, so a change to the rules can never serve a state the new rules would not derive (docs/store.md)."""
    global _rules_version
    if _rules_version is None:
        _rules_version = fingerprint(Path(__file__).resolve().parent)
    return _rules_version


def __getattr__(name: str) -> str:
    if name == "RULES_VERSION":  # computed on first use, so `heatlog --help` reads no engine source
        return rules_version()
    raise AttributeError(f"module 'heatlog' has no attribute {name!r}")
