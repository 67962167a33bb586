"""The rules fingerprint (snapshot cache key) sees every file the rules depend on (issue 11, H8)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import heatlog
from heatlog import fingerprint, rules_files

PACKAGE = Path(heatlog.__file__).resolve().parent


def _copy(tmp_path: Path) -> Path:
    pkg = tmp_path / "heatlog"
    shutil.copytree(PACKAGE / "engine", pkg / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(PACKAGE / "data", pkg / "data")
    return pkg


def test_fingerprint_is_the_live_one() -> None:
    assert heatlog.rules_version() == fingerprint(PACKAGE) == heatlog.RULES_VERSION


def test_a_file_in_an_engine_sub_package_changes_it(tmp_path: Path) -> None:
    pkg = _copy(tmp_path)
    before = fingerprint(pkg)
    (pkg / "engine" / "modules").mkdir(exist_ok=True)
    (pkg / "engine" / "modules" / "rain.py").write_text("LIMIT_DELTA = 1\n")
    after = fingerprint(pkg)
    assert after != before
    (pkg / "engine" / "modules" / "rain.py").write_text("LIMIT_DELTA = 2\n")
    assert fingerprint(pkg) not in (before, after)


def test_a_rules_data_file_changes_it(tmp_path: Path) -> None:
    pkg = _copy(tmp_path)
    before = fingerprint(pkg)
    cards = pkg / "data" / "cards"
    cards.mkdir(exist_ok=True)
    target = next(iter(sorted(cards.glob("*.json"))), cards / "extra.json")
    target.write_text(target.read_text() + " " if target.exists() else "{}")
    assert fingerprint(pkg) != before


def test_tracks_and_sample_replays_are_not_rules(tmp_path: Path) -> None:
    """A race embeds its track, so editing a track file cannot change an old race's replay."""
    pkg = _copy(tmp_path)
    before = fingerprint(pkg)
    track = pkg / "data" / "tracks" / "usa.json"
    track.write_text(track.read_text() + "\n")
    assert fingerprint(pkg) == before
    names = {p.relative_to(pkg).parts[:2] for p in rules_files(pkg)}
    assert ("data", "tracks") not in names and ("data", "replays") not in names
    assert ("engine", "rules.py") in {p.relative_to(pkg).parts for p in rules_files(pkg)}


def _by_pathlib(package: Path) -> list[Path]:
    """The definition rules_files had (Path.rglob): the faster walk must list the same files in the same order."""
    files = [p for p in (package / "engine").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    data = package / "data"
    if data.is_dir():
        files += [
            p
            for p in data.rglob("*")
            if p.is_file()
            and p.relative_to(data).parts[0] not in heatlog.NOT_RULES_DATA
            and "__pycache__" not in p.parts
        ]
    return sorted(files, key=lambda p: p.relative_to(package).as_posix())


def test_the_walk_lists_what_rglob_lists(tmp_path: Path) -> None:
    assert rules_files(PACKAGE) == _by_pathlib(PACKAGE)
    pkg = _copy(tmp_path)
    (pkg / "engine" / "modules" / "__pycache__").mkdir(exist_ok=True)
    (pkg / "engine" / "modules" / "__pycache__" / "x.pyc").write_bytes(b"x")
    (pkg / "engine" / ".hidden").write_text("h")
    (pkg / "data" / "top.json").write_text("{}")
    (pkg / "data" / "tracks" / "deep").mkdir()
    (pkg / "data" / "tracks" / "deep" / "a.json").write_text("{}")
    (pkg / "data" / "cards" / "linked").symlink_to(pkg / "data" / "tracks", target_is_directory=True)
    (pkg / "data" / "cards" / "dangling.json").symlink_to(pkg / "nowhere.json")
    (pkg / "data" / "cards" / "alias.json").symlink_to(pkg / "data" / "top.json")
    assert rules_files(pkg) == _by_pathlib(pkg)
    assert pkg / "data" / "cards" / "alias.json" in rules_files(pkg)


def test_the_kept_fingerprint_follows_every_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kept_fingerprint keeps the value between starts (issue 10) and hashes again as soon as any rules file
    changes, even when its size and modification time are put back (its change time is not)."""
    import os

    pkg = _copy(tmp_path)
    (pkg / "__init__.py").write_text("")
    monkeypatch.setattr("sys.pycache_prefix", None)
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    first = heatlog.kept_fingerprint(pkg)
    assert first == fingerprint(pkg)
    kept = pkg / "__pycache__" / heatlog.KEPT
    assert kept.is_file()

    calls = []
    real = heatlog.fingerprint
    monkeypatch.setattr(heatlog, "fingerprint", lambda p: calls.append(p) or real(p))
    assert heatlog.kept_fingerprint(pkg) == first and calls == []  # kept: nothing hashed

    rules = pkg / "engine" / "rules.py"
    st = rules.stat()
    text = rules.read_text()
    rules.write_text(text.replace("def ", "def ", 1)[:-1] + ("\n" if not text.endswith("\n") else " "))
    os.utime(rules, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size and mtime, new contents
    assert rules.stat().st_size == st.st_size and rules.stat().st_mtime_ns == st.st_mtime_ns
    second = heatlog.kept_fingerprint(pkg)
    assert second == real(pkg) != first and len(calls) == 1

    (pkg / "engine" / "modules" / "rain.py").write_text("X = 1\n")  # a file that came
    assert heatlog.kept_fingerprint(pkg) == real(pkg) != second
    kept.write_text("{not json")
    assert heatlog.kept_fingerprint(pkg) == real(pkg)
    kept.write_text('{"fingerprint": "0000", "files": []}')
    assert heatlog.kept_fingerprint(pkg) == real(pkg)

    monkeypatch.setattr("sys.dont_write_bytecode", True)  # PYTHONDONTWRITEBYTECODE: read, never written
    kept.unlink()
    assert heatlog.kept_fingerprint(pkg) == real(pkg) and not kept.exists()


def test_the_store_hashes_as_hashlib_does() -> None:
    import hashlib
    import random

    from heatlog.formats.hashing import sha256

    rng = random.Random(5)
    for n in (0, 1, 55, 56, 63, 64, 65, 119, 1000, 70_000):
        data = bytes(rng.randrange(256) for _ in range(n))
        assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert sha256(b"ab" + b"c").hexdigest() == hashlib.sha256(b"abc").hexdigest()
