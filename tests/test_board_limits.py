"""The terminal board draws the corner limits this race's rules set, not the printed ones (a road-condition token
changes a corner's limit by 1, MODULES.md # 20.4, 20.8), marked ``*``, and the header names the race's modules.
Through the real entry point (``heatlog simulate --weather``, ``heatlog show``, ``heatlog new``) and the recorder's
round header, which draws the same strip."""

from __future__ import annotations

import re
from pathlib import Path

from test_cli import run

from heatlog.engine.state import Turn
from heatlog.log.racelog import RaceLog
from heatlog.races import start_race
from heatlog.recorder import Session
from heatlog.views import cell_len

CARS = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}]
SIGN = re.compile(r"-?\d+\*?")


def engine_limits(db: Path, race: int) -> list[tuple[int, int]]:
    """(limit the race's Rules give, printed limit) of each corner line, in track order (# 9.3, 20.8)."""
    log = RaceLog(db)
    try:
        state = log.project(race).state
    finally:
        log.close()
    car = next(iter(state.cars.values()))
    turn = Turn(car.name, state.round, car.gear, car.gear)  # nothing in a Play Area: no Adjust (# 18.17)
    return [(state.rules.corner_limit(state, car, turn, c), c.limit) for c in state.track.corners]


def drawn_signs(out: str) -> list[str]:
    return [sign for line in out.splitlines() if line.startswith("corner  ") for sign in SIGN.findall(line)]


def test_show_draws_the_weather_races_limits_not_the_printed_ones(tmp_path: Path) -> None:
    # the board drew the printed 7 where the race's limit is 8 (token limit+1), while the cars' lines said
    # "limit 8": the board must never disagree with the rules (# 20.8)
    db = tmp_path / "h.db"
    r = run("simulate", "--track", "usa", "--weather", "--seed", "7", "--cars", "2", db=db)
    assert r.returncode == 0, r.stderr
    limits = engine_limits(db, 1)
    assert any(n != printed for n, printed in limits), limits  # the seed's tokens change a limit
    r = run("show", "--race", "1", db=db, env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    want = [f"{n}*" if n != printed else str(n) for n, printed in limits]
    assert drawn_signs(r.stdout) == want, r.stdout
    assert "* limit changed in this race (road conditions, # 20.8)" in r.stdout.splitlines(), r.stdout
    strip = [line for line in r.stdout.splitlines() if line.startswith(("corner  ", "space  ", "lane "))]
    assert strip and all(cell_len(line) <= 80 for line in strip), strip
    # the header names the module and its draw (the registry's words for it: Module.summary_words)
    head = r.stdout.splitlines()[0]
    assert head.startswith("race 1: USA, 2 laps, open mode, weather "), head


def test_show_of_a_base_race_draws_the_printed_limits_with_no_mark(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    r = run("simulate", "--track", "usa", "--seed", "7", "--cars", "2", db=db)
    assert r.returncode == 0, r.stderr
    r = run("show", "--race", "1", db=db, env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    assert drawn_signs(r.stdout) == ["7", "3", "3", "2"], r.stdout  # USA's printed limits (# 9.3)
    assert "*" not in r.stdout and r.stdout.splitlines()[0].startswith("race 1: USA, 2 laps, open mode — "), r.stdout


def test_new_names_the_modules_of_the_race(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    two = ["--car", "Ann:red", "--car", "Bob:blue"]
    r = run("new", *two, "--weather", "--tile", "sun", "--road", "overheat,limit+1,limit-1,weather", db=db)
    assert r.returncode == 0, r.stderr
    assert "race 1: USA, 2 laps, table mode, weather sun, roads overheat limit+1 limit-1 weather" in r.stdout
    r = run("new", *two, "--garage", "advanced", "--draft", "snake", db=db)
    assert r.returncode == 0, r.stderr
    assert "race 2: USA, 2 laps, table mode, Garage advanced upgrades (snake)" in r.stdout, r.stdout
    r = run("new", *two, db=db)
    assert r.returncode == 0 and r.stdout.splitlines()[0] == "race 3: USA, 2 laps, table mode", r.stdout


def test_the_recorders_round_header_draws_the_limit_of_the_token(tmp_path: Path) -> None:
    # Japan's chicane (lines after 10 and 12, printed 4) takes limit-1 on both lines (# 20.2, 22.2): 3*, 3*
    log = RaceLog(tmp_path / "h.db")
    try:
        rid = start_race(log, track="japan", cars=CARS, modules={"weather": {}}, grid=["Ann", "Bob"])
        s = Session(log, rid, fresh=True)
        s.answer("cloud")
        said = [line.text for line in s.answer("limit-1 overheat limit+1 heat-control")]
        signs = [sign for line in said if line.startswith("corner  ") for sign in SIGN.findall(line)]
        printed = [c.limit for c in s.view.track.corners]
        assert printed[:2] == [4, 4] and signs[:2] == ["3*", "3*"], said
        assert "* limit changed in this race (road conditions, # 20.8)" in said, said
    finally:
        log.close()
