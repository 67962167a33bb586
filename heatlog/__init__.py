"""heatlog: an event-sourced race logger and replay tool for Heat: Pedal to the Metal."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"
_rules_version: str | None = None

# Data that is not rules: tracks are embedded in every race_started (a log never reads the file again) and the
# bundled replays are sample logs. Every other file under heatlog/data/ counts as rules data (e.g. cards/).
NOT_RULES_DATA = ("tracks", "replays")


def rules_files(package: Path) -> list[Path]:
    """Every file the rules depend on, in a stable order: the engine package recursively (sub-packages such as
    ``engine/modules/`` included) and the rules data under ``data/`` (cards, and what modules add there)."""
    files = [p for p in (package / "engine").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    data = package / "data"
    if data.is_dir():
        files += [
            p
            for p in data.rglob("*")
            if p.is_file() and p.relative_to(data).parts[0] not in NOT_RULES_DATA and "__pycache__" not in p.parts
        ]
    return sorted(files, key=lambda p: p.relative_to(package).as_posix())


def fingerprint(package: Path) -> str:
    """A hash of :func:`rules_files` (names relative to ``package`` and contents)."""
    import hashlib

    digest = hashlib.sha256()
    for path in rules_files(package):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
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
