"""The rules fingerprint (snapshot cache key) sees every file the rules depend on (issue 11, H8)."""

from __future__ import annotations

import shutil
from pathlib import Path

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
