"""heatlog: an event-sourced race logger and replay tool for Heat: Pedal to the Metal."""

from __future__ import annotations

import os
import stat
import sys
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
    directories, the data that is not rules left out."""
    return [name for name, _ in _rules_scan(package)]


def _rules_scan(package: Path) -> list[tuple[str, os.stat_result]]:
    """:func:`_rules_names` with each file's ``os.stat`` (links followed), in one pass of ``os.scandir``: it is
    read at every start of a command that reads a race (issue 10, issue 32: start-up; ``os.walk`` then a
    ``stat`` per file for the name and another for the stamp took twice the calls)."""
    found: list[tuple[str, os.stat_result]] = []

    def scan(path: str, rel: str, data_root: bool) -> None:
        try:
            entries = os.scandir(path)
        except OSError:
            return
        with entries:
            for entry in entries:
                name = entry.name
                if name == "__pycache__" or (data_root and name in NOT_RULES_DATA):
                    continue
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if is_dir:
                    if not entry.is_symlink():  # (os.walk's default: a linked directory is not entered)
                        scan(entry.path, f"{rel}/{name}", False)
                    continue
                try:
                    st = entry.stat()
                except OSError:  # a dangling link
                    continue
                if stat.S_ISREG(st.st_mode):
                    found.append((f"{rel}/{name}", st))

    root = str(package)
    scan(os.path.join(root, "engine"), "engine", False)
    scan(os.path.join(root, "data"), "data", True)
    found.sort(key=lambda item: item[0])
    return found


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
        _rules_version = kept_fingerprint(Path(__file__).resolve().parent)
    return _rules_version


#: The cache of :func:`kept_fingerprint`, a file in the package's bytecode directory.
KEPT = "heatlog-rules-version.json"


def kept_fingerprint(package: Path) -> str:
    """:func:`fingerprint`, kept between starts (issue 10: hashing 0.4 MB and loading OpenSSL for it cost a few
    ms at every start of a command that reads a race).

    Kept where Python keeps the package's bytecode (``__pycache__``, or under ``sys.pycache_prefix``; not
    written under ``PYTHONDONTWRITEBYTECODE``), with the name, size, modification time, change time and inode
    of every rules file hashed. While the files are the same list with the same five values, the kept value
    is the hash of the same bytes: a file's contents cannot change without its change time changing (the
    kernel sets it on every write, and it cannot be set back), which is more than Python asks of a source
    before it runs its cached bytecode. Anything else (no cache, an unreadable or foreign one, a file that came
    or went) hashes the files again."""
    import json  # here, not at the top: ``heatlog --help`` needs no JSON (its import compiles seven patterns)

    stamp = [[n, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino] for n, st in _rules_scan(package)]
    where = _kept_path(package)
    if where is not None:
        try:
            with open(where, encoding="utf-8") as fh:
                kept = json.load(fh)
            if kept.get("files") == stamp and isinstance(kept.get("fingerprint"), str):
                return str(kept["fingerprint"])
        except (OSError, ValueError, AttributeError):
            pass
    value = fingerprint(package)  # the stamp was taken first: a file changed since is seen at the next start
    if where is not None and not sys.dont_write_bytecode:
        try:
            os.makedirs(os.path.dirname(where), exist_ok=True)
            part = f"{where}.{os.getpid()}"
            with open(part, "w", encoding="utf-8") as fh:
                json.dump({"fingerprint": value, "files": stamp}, fh, allow_nan=False)
            os.replace(part, where)
        except OSError:
            pass
    return value


def _kept_path(package: Path) -> str | None:
    """Where :func:`kept_fingerprint` keeps its value: beside the package's own bytecode."""
    import importlib.util

    try:
        pyc = importlib.util.cache_from_source(os.path.join(str(package), "__init__.py"))
    except (NotImplementedError, ValueError):
        return None
    return os.path.join(os.path.dirname(pyc), KEPT)


def __getattr__(name: str) -> str:
    if name == "RULES_VERSION":  # computed on first use, so `heatlog --help` reads no engine source
        return rules_version()
    raise AttributeError(f"module 'heatlog' has no attribute {name!r}")
