"""Hostile-input properties for every door, bounded for CI (issue 9): hypothesis drives the structure-aware,
near-valid mutations of bench/fuzz_doors.py (events, JSON Lines, positions, tracks, names), and each input
ends accepted-and-consistent or refused with a HeatlogError and the database's SQL dump unchanged. The long
run (>= 5,000 inputs per door) is ``python bench/fuzz_doors.py``."""

from __future__ import annotations

import json
import random
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
from fuzz_doors import NASTY, consistent, mutate  # noqa: E402

from heatlog.engine import HeatlogError, apply, state_to_position  # noqa: E402
from heatlog.formats.tracks import TRACKS_DIR  # noqa: E402
from heatlog.log.racelog import RaceLog  # noqa: E402
from heatlog.races import import_race, race_started_event, start_race  # noqa: E402
from heatlog.simulate.world import race_events, random_bot  # noqa: E402
from heatlog.store import canonical  # noqa: E402

CARS = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}, {"name": "Cy", "colour": "green"}]
BOTS = {c["name"]: random_bot for c in CARS}
EVENTS = list(race_events(race_started_event(track="usa", cars=CARS, mode="open"), BOTS, 5))
POSITIONS: list[dict[str, Any]] = []
_state = None
for _i, _ev in enumerate(EVENTS):
    _state = apply(_state, _ev, atomic=False)
    if _i % 40 == 0:
        POSITIONS.append(state_to_position(_state))
TRACK = json.loads((TRACKS_DIR / "usa.json").read_text())
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [line for line in conn.iterdump() if "snapshots" not in line]
    finally:
        conn.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[RaceLog, Path, int]:
    path = tmp_path_factory.mktemp("hostile") / "h.db"
    log = RaceLog(path)
    race = import_race(log, "".join(canonical(e).decode() + "\n" for e in EVENTS[:60]))
    return log, path, race


def outcome(log: RaceLog, path: Path, fn: Any) -> str:
    before = dump(path)
    try:
        race = fn()
    except HeatlogError:
        assert dump(path) == before, "refused, but the database changed"
        return "refused"
    if race is not None:
        consistent(log, race)  # an accepted input never makes a later command crash
    return "accepted"


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_add(world: Any, rnd: random.Random) -> None:
    log, path, race = world
    ev = mutate(rnd.choice(EVENTS[60:100]), rnd)
    outcome(log, path, lambda: log.append(race, ev) and None)


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_import(world: Any, rnd: random.Random) -> None:
    log, path, _ = world
    lines = [canonical(e).decode() for e in EVENTS[: rnd.randrange(2, 50)]]
    k = rnd.randrange(len(lines))
    lines[k] = json.dumps(mutate(json.loads(lines[k]), rnd), ensure_ascii=False) if rnd.random() < 0.8 else "[" * 9999
    outcome(log, path, lambda: import_race(log, "\n".join(lines) + "\n"))


@SETTINGS
@given(
    st.lists(st.tuples(st.sampled_from([*NASTY, "Ann", "Bob"]), st.sampled_from([*NASTY, "red", "blue"])), max_size=7),
    st.sampled_from([None, *NASTY]),
)
def test_new(world: Any, cars: list[tuple[str, str]], name: str | None) -> None:
    log, path, _ = world
    specs = [{"name": n, "colour": c} for n, c in cars]
    outcome(log, path, lambda: start_race(log, track="usa", cars=specs, name=name))


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_position_and_track_files(world: Any, tmp_path_factory: pytest.TempPathFactory, rnd: random.Random) -> None:
    log, path, _ = world
    folder = tmp_path_factory.mktemp("files")
    pos = folder / "pos.json"
    pos.write_text(json.dumps(mutate(rnd.choice(POSITIONS), rnd)), encoding="utf-8", errors="surrogatepass")
    outcome(log, path, lambda: start_race(log, track="usa", cars=[], from_position=pos))
    track = folder / "track.json"
    track.write_text(json.dumps(mutate(TRACK, rnd)), encoding="utf-8", errors="surrogatepass")
    outcome(log, path, lambda: start_race(log, track=str(track), cars=CARS[:2]))


@SETTINGS
@given(st.sampled_from(NASTY), st.sampled_from([*NASTY, "what-if"]), st.integers(-2, 40))
def test_note_and_branch(world: Any, text: str, name: str, at: int) -> None:
    log, path, race = world
    outcome(log, path, lambda: log.append(race, {"type": "note", "v": 1, "text": text}) and None)
    outcome(log, path, lambda: log.branch(race, at, name))
