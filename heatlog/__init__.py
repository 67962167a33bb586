"""heatlog: an event-sourced race logger and replay tool for Heat: Pedal to the Metal."""

from __future__ import annotations

__version__ = "0.1.0"
_rules_version: str | None = None


def rules_version() -> str:
    """A fingerprint of the rules engine's source: snapshots cached under another fingerprint are ignored, so a
    change to the rules can never serve a state the new rules would not derive (docs/store.md)."""
    global _rules_version
    if _rules_version is None:
        import hashlib
        from pathlib import Path

        digest = hashlib.sha256()
        for path in sorted((Path(__file__).resolve().parent / "engine").glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        _rules_version = digest.hexdigest()[:16]
    return _rules_version


def __getattr__(name: str) -> str:
    if name == "RULES_VERSION":  # computed on first use, so `heatlog --help` reads no engine source
        return rules_version()
    raise AttributeError(f"module 'heatlog' has no attribute {name!r}")
