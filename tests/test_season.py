"""Championship seasons (MODULES.md 21): a season stream beside its races, races set up from the season's state,
points and standings, the audit, export/import as one file (all or nothing, byte-identical round trip), a whole
simulated 1961 season as a golden, and the ``heatlog season`` commands through the real entry point."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from test_cli import HEATLOG, run

from heatlog.engine.errors import HeatlogError, IllegalEvent, MalformedInput, StoreError
from heatlog.log.racelog import RaceLog
from heatlog.season import (
    audit_season,
    enter_race,
    export_season,
    import_season,
    new_season,
    next_race,
    season_events,
    season_view,
    seasons,
    simulate_season,
)

GOLDEN = Path(__file__).parent / "golden" / "season_1961_seed7.txt"
GOLDEN_1963 = Path(__file__).parent / "golden" / "season_1963_seed7.txt"
MIXED = ["heuristic", "heuristic", "random", "random"]
DRIVERS = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}, {"name": "Cy", "colour": "green"}]


@pytest.fixture
def log(tmp_path: Path) -> RaceLog:
    return RaceLog(tmp_path / "s.db")


def standings_text(log: RaceLog, season: int) -> str:
    """The standings after each race, one line per driver (the golden's format)."""
    view = season_view(log, season)
    out = [f"season {view.name}: {len(view.races)} races, drivers {', '.join(d['name'] for d in view.drivers)}"]
    for sr, table in zip(view.races, view.tables, strict=False):
        assert sr.result is not None
        gone = sr.result.eliminated
        out.append(
            f"race {sr.index}: {sr.track['name']}, event {sr.event.number} {sr.event.name}; "
            f"finish {' '.join(p + (' (eliminated)' if p in gone else '') for p in sr.result.places)}"
        )
        for pos, s in enumerate(table, start=1):
            per = " ".join("-" if p is None else str(p) for p in s.per_race)
            out.append(f"  {pos}. {s.name:<7} {s.points:>3}  ({per})  wins {s.wins}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------- set-up


def test_21_1_a_published_season_copies_its_races(log: RaceLog) -> None:
    season = new_season(log, drivers=DRIVERS, published="1961")
    view = season_view(log, season)
    assert [(r.track["id"], r.event.number) for r in view.races] == [
        ("great-britain", 1),
        ("usa", 2),
        ("italy", 3),
    ]
    assert view.options == {"grid": "standings", "sponsors_carry_over": True, "points": [9, 6, 4, 3, 2, 1]}
    (start,) = season_events(log, season)
    assert start["type"] == "season_started" and start["races"][0]["track"]["spaces"] == 63  # self-contained
    assert seasons(log)[0][:2] == (season, "1961")


def test_a_custom_season_and_bad_set_ups(log: RaceLog) -> None:
    season = new_season(log, drivers=DRIVERS, races=[("japan", 11), ("spain", 17)], name="wet and dark")
    assert [r.track["id"] for r in season_view(log, season).races] == ["japan", "spain"]
    with pytest.raises(MalformedInput, match="not both"):
        new_season(log, drivers=DRIVERS, published="1961", races=[("usa", 1)])
    with pytest.raises(MalformedInput, match="2 to 6 drivers"):
        new_season(log, drivers=DRIVERS[:1], published="1961")
    with pytest.raises(MalformedInput, match="unknown event card 40"):
        new_season(log, drivers=DRIVERS, races=[("usa", 40)])
    with pytest.raises(MalformedInput, match="unknown track"):
        new_season(log, drivers=DRIVERS, races=[("monaco", 1)])
    assert len(seasons(log)) == 1  # nothing written by the refused ones


def test_21_8_22_9_race_set_up_comes_from_the_season(log: RaceLog) -> None:
    """Race 3 of 1961 is Italy with Drivers' strike: one lap fewer (3 − 1 = 2)."""
    season = simulate_season(log, races=[("usa", 7), ("italy", 3)], cars=3, seed=3)
    view = season_view(log, season)
    italy = log.project(view.races[1].race).state  # type: ignore[arg-type]
    assert (italy.track.id, italy.laps) == ("italy", 2)
    usa = log.project(view.races[0].race).state  # type: ignore[arg-type]
    assert usa.laps == 2


def test_21_12_MA11_later_grids_follow_the_standings(log: RaceLog) -> None:
    season = simulate_season(log, published="1961", cars=4, seed=11)
    view = season_view(log, season)
    for k in (2, 3):
        race = log.project(view.races[k - 1].race).state  # type: ignore[arg-type]
        assert race.grid == [s.name for s in view.tables[k - 2]]  # leader on pole


def test_21_12_MA11_random_grid_is_an_option(log: RaceLog) -> None:
    season = simulate_season(log, races=[("usa", 7), ("france", 7)], cars=4, seed=5, grid="random")
    assert season_view(log, season).options["grid"] == "random"
    assert audit_season(log, season) == []


def test_next_race_waits_for_the_previous_one(log: RaceLog) -> None:
    season = new_season(log, drivers=DRIVERS, published="1961", mode="table")
    race = next_race(log, season, seed=2)
    state = log.project(race).state
    assert state.track.id == "great-britain" and state.mode == "table" and state.phase != "grid"
    with pytest.raises(IllegalEvent, match=r"race 1 .* is not over yet.*21\.12"):
        next_race(log, season)
    assert season_view(log, season).races[0].race == race


def test_every_race_started_means_no_next(log: RaceLog) -> None:
    season = simulate_season(log, races=[("usa", 7)], cars=2, seed=1)
    assert season_view(log, season).over
    with pytest.raises(IllegalEvent, match="every race has been started"):
        next_race(log, season)


# ---------------------------------------------------------------------------------------------- points


def test_21_10_points_and_the_event_bonuses(log: RaceLog) -> None:
    season = simulate_season(log, published="1961", cars=4, seed=7)
    view = season_view(log, season)
    strike = view.races[2]  # Drivers' strike: winner +2
    assert strike.result is not None
    winner = strike.result.places[0]
    assert strike.result.points[winner] == 11
    assert sorted(strike.result.points.values(), reverse=True) == [11, 6, 4, 3]
    final = view.tables[-1]
    assert [s.points for s in final] == sorted((s.points for s in final), reverse=True)
    assert sum(s.points for s in final) == (9 + 6 + 4 + 3) * 3 + 2


def test_golden_simulated_1961_season(log: RaceLog) -> None:
    """A whole simulated 1961 season (4 heuristic bots, seed 7): the standings after every race. Rewrite with
    ``python tests/golden/regen_season.py`` after a deliberate change, and read the diff."""
    season = simulate_season(log, published="1961", cars=4, seed=7)
    assert standings_text(log, season) == GOLDEN.read_text(encoding="utf-8")


def test_golden_simulated_1963_season_with_eliminations(log: RaceLog) -> None:
    """1963 (events 7–10) with two heuristic and two random bots, seed 7: event 9's smaller hand, Heat and Stress,
    event 10's eliminations scoring 0 (MA12, MA21). Rewrite with ``python tests/golden/regen_season.py``."""
    season = simulate_season(log, published="1963", cars=4, seed=7, bots=MIXED)
    text = standings_text(log, season)
    assert text == GOLDEN_1963.read_text(encoding="utf-8")
    assert "(eliminated)" in text


# ---------------------------------------------------------------------------------------------- the audit


def test_enter_race_refuses_a_race_the_season_did_not_set_up(log: RaceLog) -> None:
    from heatlog.races import start_race

    season = new_season(log, drivers=DRIVERS, published="1961")
    wrong = start_race(log, track="usa", cars=DRIVERS, seed=1)  # race 1 is Great Britain
    with pytest.raises(IllegalEvent, match="not race 1 of season.*circuit is 'USA'"):
        enter_race(log, season, 1, wrong)
    laps = start_race(log, track="great-britain", cars=DRIVERS, laps=3, seed=1)
    with pytest.raises(IllegalEvent, match="3 laps, the season says 2"):
        enter_race(log, season, 1, laps)
    with pytest.raises(IllegalEvent, match="the next race is 1, not 2"):
        enter_race(log, season, 2, laps)


def test_audit_detects_a_race_whose_set_up_disagrees(log: RaceLog) -> None:
    """A season whose stream links a race the season did not set up (written behind heatlog's back) is found."""
    from heatlog.races import start_race
    from heatlog.store import SEASON_STREAM

    season = simulate_season(log, races=[("usa", 7)], cars=3, seed=4)
    assert audit_season(log, season) == []
    other = new_season(log, drivers=DRIVERS, published="1962")
    rogue = start_race(log, track="usa", cars=DRIVERS, seed=1)  # 1962 race 1 is Italy
    link = log.store.events(rogue)[0].hash
    log.store.append_stream(SEASON_STREAM, other, [{"type": "race_entered", "v": 1, "index": 1, "race": link}])
    problems = audit_season(log, other)
    assert any("race 1" in p and "circuit is 'USA'" in p and "'Italy'" in p for p in problems), problems


def test_21_12_audit_reads_the_grid_in_force_not_one_taken_back(log: RaceLog) -> None:
    """Race 2's grid undone and recorded again in another order: the audit read the first grid_set stored (the
    retracted one, which was right) and said the season was fine. (The door now refuses such a grid, below: it is
    written here past the door, as a damaged or older database may hold it.)"""
    season = simulate_season(log, races=[("usa", 7), ("usa", 7)], cars=3, seed=4)
    view = season_view(log, season)
    race = view.races[1].race
    assert race is not None and audit_season(log, season) == []
    proj = log.project(race)
    _, proj = log.retract_entries(race, len(proj.effective.entries) - 1, proj, "grid typed wrongly")
    want = [s.name for s in view.tables[0]]  # # 21.12: the standings, leader on pole
    log.store.append(race, {"type": "grid_set", "v": 1, "order": want[::-1]}, expected_seq=proj.effective.length + 1)
    problems = audit_season(log, season)
    assert any("race 2" in p and "the standings give" in p and "21.12" in p for p in problems), problems


def test_21_12_the_door_refuses_a_season_grid_entered_again_out_of_the_standings(log: RaceLog) -> None:
    """Race 2's grid undone: entered again, it must be the standings order (leader on pole), and nothing is
    written otherwise; the standings order itself is taken. A race of a random-grid season takes any order."""
    season = simulate_season(log, races=[("usa", 7), ("usa", 7)], cars=3, seed=4)
    view = season_view(log, season)
    race = view.races[1].race
    assert race is not None
    proj = log.project(race)
    _, proj = log.retract_entries(race, len(proj.effective.entries) - 1, proj, "grid typed wrongly")
    want = [s.name for s in view.tables[0]]
    length = log.effective(race).length
    with pytest.raises(IllegalEvent, match=r"race 2 of the season starts in the standings order.*# 21\.12") as err:
        log.append(race, {"type": "grid_set", "v": 1, "order": want[::-1]}, proj)
    assert " > ".join(want) in str(err.value) and f"race {race}" in str(err.value)
    assert log.effective(race).length == length  # nothing written
    with pytest.raises(MalformedInput, match="grid order must name every car once"):  # the rules' own words
        log.append(race, {"type": "grid_set", "v": 1, "order": want[:2]}, log.project(race))
    log.append(race, {"type": "grid_set", "v": 1, "order": want}, log.project(race))
    assert audit_season(log, season) == []

    other = simulate_season(log, races=[("usa", 7), ("usa", 7)], cars=3, seed=5, grid="random")
    race = season_view(log, other).races[1].race
    assert race is not None
    proj = log.project(race)
    _, proj = log.retract_entries(race, len(proj.effective.entries) - 1, proj, "grid typed wrongly")
    order = list(proj.state.cars)[::-1]
    log.append(race, {"type": "grid_set", "v": 1, "order": order}, proj)


def test_21_12_the_door_asks_the_module_whether_its_season_gives_the_grid(
    log: RaceLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The door's grid check is the descriptor's (``Module.grid_given``, issue 26: log/racelog.py names no
    module): with the championship's hook saying no, a season race's grid is the table's again; the door's
    source names no registered module."""
    import dataclasses

    from heatlog.engine import module as registry
    from heatlog.log import racelog

    season = simulate_season(log, races=[("usa", 7), ("usa", 7)], cars=3, seed=4)
    race = season_view(log, season).races[1].race
    assert race is not None
    proj = log.project(race)
    _, proj = log.retract_entries(race, len(proj.effective.entries) - 1, proj, "grid typed wrongly")
    order = list(proj.state.cars)
    given = registry.MODULES["championship"]
    assert given.grid_given is not None and given.grid_given(proj.effective.entries[0].event["championship"])
    monkeypatch.setitem(registry.MODULES, "championship", dataclasses.replace(given, grid_given=None))
    for tried in ([*order[1:], order[0]], order[::-1]):  # one of them is not the standings order
        log.append(race, {"type": "grid_set", "v": 1, "order": tried}, proj)
        _, proj = log.retract_entries(race, 1, log.project(race), "again")
    source = Path(racelog.__file__).read_text(encoding="utf-8")
    assert not [name for name in registry.MODULES if f'"{name}"' in source]


def test_season_stream_is_append_only_and_chained(log: RaceLog) -> None:
    season = new_season(log, drivers=DRIVERS, published="1961")
    conn = log.store.conn
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE season_events SET payload = '{}' WHERE season = ?", (season,))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM season_events WHERE season = ?", (season,))
    assert audit_season(log, season) == []


def test_unknown_season(log: RaceLog) -> None:
    new_season(log, drivers=DRIVERS, published="1961")
    with pytest.raises(StoreError, match="no season 9"):
        season_view(log, 9)


# ---------------------------------------------------------------------------------------------- files


def test_export_import_round_trip_is_byte_identical(log: RaceLog, tmp_path: Path) -> None:
    season = simulate_season(log, published="1961", cars=3, seed=9)
    text = export_season(log, season)
    other = RaceLog(tmp_path / "other.db")
    imported = import_season(other, text, source="season.jsonl")
    assert export_season(other, imported) == text
    assert audit_season(other, imported) == []
    assert standings_text(other, imported) == standings_text(log, season)
    for sr in season_view(other, imported).races:
        assert other.store.verify(sr.race) == []  # type: ignore[arg-type]  # the races' chains are the store's


@pytest.mark.parametrize(
    ("damage", "complaint"),
    [
        (lambda lines: lines[:-1] + ["{not json"], "not valid JSON"),
        (lambda lines: [lines[0].replace('"1961"', '""', 1), *lines[1:]], "season_started"),
        (lambda lines: [ln for ln in lines if '"race_entered"' not in ln or '"index":3' not in ln], "enters races"),
        (lambda lines: [ln.replace('"gear":2', '"gear":9') for ln in lines], "gear"),
        (lambda lines: [lines[0], *lines[1:][::-1]], "race"),
        # a race entered twice (its race_entered line again at the end) was read as entered once
        (lambda lines: [*lines, lines[1]], "entered once each and in order"),
        (lambda lines: [lines[0], lines[2], lines[1], *lines[3:]], "entered once each and in order"),
    ],
)
def test_import_is_all_or_nothing(log: RaceLog, tmp_path: Path, damage: object, complaint: str) -> None:
    season = simulate_season(log, published="1961", cars=3, seed=9)
    lines = export_season(log, season).splitlines()
    other = RaceLog(tmp_path / "other.db")
    before_races = len(other.store.races())
    with pytest.raises(HeatlogError, match=complaint):
        import_season(other, "\n".join(damage(lines)) + "\n")  # type: ignore[operator]
    assert seasons(other) == [] and len(other.store.races()) == before_races


def test_audit_finds_a_race_entered_twice(log: RaceLog) -> None:
    """A stream that enters a race twice (written behind heatlog's back, or by an import before it was checked):
    the view read it as one entry and the audit said ok."""
    from heatlog.store import SEASON_STREAM

    season = simulate_season(log, races=[("usa", 7), ("italy", 3)], cars=2, seed=9)
    assert audit_season(log, season) == []
    again = season_events(log, season)[1]
    log.store.append_stream(SEASON_STREAM, season, [again])
    problems = audit_season(log, season)
    assert any("entered once each and in order (1 to 2): the stream enters 1, 2, 1" in p for p in problems), problems


def test_import_refuses_a_race_that_is_not_the_seasons(log: RaceLog, tmp_path: Path) -> None:
    season = simulate_season(log, races=[("usa", 7), ("italy", 3)], cars=3, seed=9)
    lines = export_season(log, season).splitlines()
    swapped = [
        ln.replace('"laps":2', '"laps":3', 1) if '"race_started"' in ln and '"italy"' in ln else ln for ln in lines
    ]
    other = RaceLog(tmp_path / "other.db")
    with pytest.raises(MalformedInput, match="not the race the season entered"):
        import_season(other, "\n".join(swapped) + "\n")
    assert seasons(other) == []


# ---------------------------------------------------------------------------------------------- the commands


def test_season_commands_through_the_entry_point(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    r = run("season", "new", "--published", "1961", "--car", "Ann:red", "--car", "Bob:blue", "--mode", "open", db=db)
    assert r.returncode == 0, r.stderr
    season = int(r.stdout.strip().splitlines()[-1])
    assert "Great Britain (New grandstand inauguration)" in r.stdout
    r = run("season", "next", str(season), "--seed", "3", db=db)
    assert r.returncode == 0, r.stderr
    assert "race 1 of 1961, Great Britain, 2 laps, event 1 New grandstand inauguration" in r.stdout
    assert "not applied by heatlog yet" in r.stdout and "press corner A (# 21.6" in r.stdout
    r = run("season", "next", str(season), db=db)
    assert r.returncode == 1 and "is not over yet" in r.stderr and "Traceback" not in r.stderr
    shown = json.loads(run("season", "show", str(season), "--json", db=db).stdout)
    assert shown["next"] == 2 and shown["races"][0]["race"] is not None and shown["standings"] == []
    r = run("season", "audit", str(season), db=db)
    assert r.returncode == 0 and "ok" in r.stdout
    r = run("season", "show", "99", db=db)
    assert r.returncode == 1 and "no season 99" in r.stderr


def test_simulate_a_season_export_and_import_through_the_entry_point(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    r = run("simulate", "--season", "1961", "--cars", "3", "--seed", "7", "--json", db=db)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["over"] and len(data["standings"]) == 3 and data["seed"] == 7
    out = tmp_path / "season.jsonl"
    assert run("season", "export", str(data["season"]), "--out", str(out), db=db).returncode == 0
    other = tmp_path / "other.db"
    r = run("season", "import", str(out), db=other)
    assert r.returncode == 0, r.stderr
    again = json.loads(run("season", "show", r.stdout.strip(), "--json", db=other).stdout)
    assert again["standings"] == data["standings"]
    shown = run("season", "show", str(data["season"]), db=db)
    assert "standings after race 3" in shown.stdout and "points" in shown.stdout
    assert "race 1: a sponsorship card for the first 3" in shown.stdout.replace("\n", " ")


def test_simulate_a_season_refuses_what_the_season_sets_up(tmp_path: Path) -> None:
    # # 21.1, 21.8: each race's circuit, laps and grid come from the season; --track, --laps, --variant,
    # --handicap and --races were dropped without a word (one season on its own circuits was played instead)
    db = tmp_path / "h.db"
    for extra, named in (
        (("--track", "italy"), "--track"),
        (("--track", "usa"), "--track"),  # the default, given on purpose, is no different
        (("--laps", "1"), "--laps"),
        (("--variant", "one-lap"), "--variant"),
        (("--handicap", "Red"), "--handicap"),
        (("--races", "3"), "--races"),
    ):
        r = run("simulate", "--season", "1961", "--cars", "2", "--seed", "1", *extra, db=db)
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert f"Error: not understood: {named}: a season's races are set up from the season" in r.stderr, r.stderr
    assert not db.exists() or json.loads(run("season", "list", "--json", db=db).stdout) == []
    r = run("simulate", "--season", "1961", "--cars", "2", "--seed", "1", "--races", "1", "--json", db=db)
    assert r.returncode == 0, r.stderr


def test_season_text_is_never_markup(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    cars = ("--car", "Ann:red", "--car", "Bob:blue")
    r = run("season", "new", "--published", "1961", *cars, "--name", "[bold]x[/]", db=db)
    assert r.returncode == 0, r.stderr
    r = run("season", "show", "1", db=db)
    assert r.returncode == 0 and "[bold]x[/]" in r.stdout, r.stdout
    r = run("season", "new", "--published", "1961", "--car", "A,B:red", "--car", "Bob:blue", db=db)
    assert r.returncode == 1 and "car names are one word" in r.stderr


# ---------------------------------------------------------------------------------------------- the season page


def test_season_page_chart_links_and_chromium(log: RaceLog, tmp_path: Path) -> None:
    import browser
    from test_replay_html import Elements

    from heatlog.views.season_html import write_season_html

    season = simulate_season(log, published="1961", cars=4, seed=7)
    view = season_view(log, season)
    page = tmp_path / "season.html"
    files = write_season_html(log, view, page)
    assert [f.name for f in files] == ["season.html", "season-race-1.html", "season-race-2.html", "season-race-3.html"]
    els = Elements(page.read_text(encoding="utf-8"))
    lines = {a["data-driver"]: a["data-points"] for t, a in els.found if t == "polyline"}
    running = {d["name"]: [0] for d in view.drivers}
    for table in view.tables:
        for s in table:
            running[s.name].append(s.points)
    assert lines == {name: ",".join(map(str, pts)) for name, pts in running.items()}
    links = [a for t, a in els.found if t == "a" and "replay" in a.get("class", "")]
    assert [a["href"] for a in links] == ["season-race-1.html", "season-race-2.html", "season-race-3.html"]
    assert [a["data-driver"] for t, a in els.found if t == "tr" and "data-driver" in a] == [
        s.name for s in view.tables[-1]
    ]
    race_page = Elements(browser.dump_dom((tmp_path / "season-race-2.html").as_uri()))
    root = next(a for t, a in race_page.found if t == "html")
    assert root["data-errors"] == "" and root["data-ready"] == "true"
    png = browser.screenshot(page.as_uri(), tmp_path / "season.png", 1100, 1000)
    assert browser.colour_count(png) > 100


def test_season_page_through_the_entry_point(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    r = run("season", "new", "--published", "1961", "--car", "Ann:red", "--car", "Bob:blue", db=db)
    r = run("season", "show", "1", "--html", str(tmp_path / "none.html"), db=db)  # no race run yet: one page
    assert r.returncode == 0 and "1 page written" in r.stdout and "1 pages" not in r.stdout, r.stdout
    db = tmp_path / "h2.db"
    assert run("simulate", "--season", "1962", "--cars", "3", "--seed", "2", db=db).returncode == 0
    r = run("season", "show", "1", "--html", str(tmp_path / "s.html"), db=db)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "s.html").exists() and (tmp_path / "s-race-3.html").exists()
    assert "Season 1962" in (tmp_path / "s.html").read_text(encoding="utf-8")
    # All the pages or none: a season page that cannot be written (a directory of that name) leaves no race
    # pages behind, and neither does one of the race pages that cannot be
    for blocked, ask in (("t.html", "t.html"), ("u-race-2.html", "u.html")):
        (tmp_path / blocked).mkdir()
        before = sorted(p.name for p in tmp_path.iterdir())
        r = run("season", "show", "1", "--html", str(tmp_path / ask), db=db)
        assert r.returncode == 1 and f"Error: Is a directory: {tmp_path / blocked}" in r.stderr, r.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == before
    r = run("season", "show", "1", "--html", str(tmp_path / "missing" / "s.html"), db=db)
    assert r.returncode == 1 and f"No such file or directory: {tmp_path / 'missing' / 's.html'}" in r.stderr


def test_21_the_recorder_guides_a_season_race(tmp_path: Path) -> None:
    """``heatlog record --new --season ID`` starts the season's next race from the season and asks its first
    round at once, in a real terminal."""
    import os
    import shutil
    import sys

    pexpect = pytest.importorskip("pexpect")
    db = tmp_path / "h.db"
    r = run("season", "new", "--published", "1964", "--car", "Ann:red", "--car", "Bob:blue", db=db)
    assert r.returncode == 0, r.stderr
    exe = shutil.which("heatlog")
    cmd = [exe] if exe else [sys.executable, "-m", "heatlog.cli"]
    env = {k: v for k, v in os.environ.items() if k != "HEATLOG_DB"}
    env.update(NO_COLOR="1", TERM="xterm")
    child = pexpect.spawn(
        cmd[0],
        [*cmd[1:], "record", "--new", "--season", "1", "--db", str(db)],
        env=env,
        encoding="utf-8",
        dimensions=(60, 200),
        timeout=60,
    )
    child.expect("race 1 of season 1964, Japan, event Going global")
    child.expect("not applied by heatlog yet")
    child.expect(r"gear \(now 1\)")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    shown = json.loads(run("season", "show", "1", "--json", db=db).stdout)
    assert shown["races"][0]["race"] == 1 and shown["next"] == 2
    r = run("record", "--season", "1", db=db)
    assert r.returncode == 1 and "--new" in r.stderr


# ---------------------------------------------------------------------------------------------- the championship block


def test_21_8_each_race_starts_with_the_championship_module_and_its_block(log: RaceLog) -> None:
    """The race's log alone says its rules: the module, the season's id (the hash of season_started) and name,
    the race's index, its event card and the season's options."""
    season = new_season(log, drivers=DRIVERS, published="1962", mode="open")
    race = next_race(log, season, seed=3)
    start = log.store.events(race)[0].event
    view = season_view(log, season)
    assert start["modules"] == ["championship"]
    block = start["championship"]
    assert block["season"] == {"id": view.link, "name": "1962"} and len(view.link) == 64
    assert (block["race"], block["races"], block["event"]["number"]) == (1, 3, 4)
    assert block["options"] == {"grid": "standings", "sponsors_carry_over": True, "points": [9, 6, 4, 3, 2, 1]}
    state = log.project(race).state
    assert all(c.engine == 7 for c in state.cars.values())  # event 4: +1 Heat on the Engine (# 21.8)


def test_21_8_audit_finds_a_race_whose_block_is_not_the_seasons(log: RaceLog) -> None:
    from heatlog.races import start_race
    from heatlog.season import championship_block
    from heatlog.store import SEASON_STREAM

    season = new_season(log, drivers=DRIVERS, published="1962")
    view = season_view(log, season)
    block = championship_block(view, 1)
    block["event"] = {"number": 7, "card": view.races[0].card | {"name": "New title sponsor"}}
    rogue = start_race(log, track="italy", cars=DRIVERS, seed=1)
    # the same circuit, laps and drivers, but another event card written into the block behind heatlog's back
    events = [e.event for e in log.store.events(rogue)]
    events[0] = {**events[0], "modules": ["championship"], "championship": block}
    other = log.new_race(events[0], grid=next(e["order"] for e in events if e["type"] == "grid_set"))
    link = log.store.events(other)[0].hash
    log.store.append_stream(SEASON_STREAM, season, [{"type": "race_entered", "v": 1, "index": 1, "race": link}])
    problems = audit_season(log, season)
    assert any("championship block differs from the season's in event" in p for p in problems), problems


def test_21_8_a_v1_season_keeps_loading_and_auditing(log: RaceLog, monkeypatch: pytest.MonkeyPatch) -> None:
    """A season made before the championship module (season_started v1): its races have no block, apply the
    laps and points only, and the audit expects exactly that (old logs keep loading)."""
    import heatlog.season as season_mod

    monkeypatch.setattr(season_mod, "SEASON_VERSION", 1)
    season = simulate_season(log, published="1961", cars=3, seed=2)
    monkeypatch.undo()
    view = season_view(log, season)
    assert view.version == 1 and view.over
    assert audit_season(log, season) == []
    first = log.store.events(view.races[0].race or 0)[0].event
    assert "modules" not in first and "championship" not in first
    from heatlog.season import unapplied_effects

    assert "Engine Heat +1" in unapplied_effects(
        view.races[0].event.__class__.from_dict(4, {"name": "x", "effects": {"heat": 1}}), 1
    )
    assert unapplied_effects(view.races[0].event.__class__.from_dict(4, {"name": "x", "effects": {"heat": 1}})) == []


def test_MA12_21_10_an_eliminated_car_scores_0(log: RaceLog) -> None:
    """Event 10 (MA21): a car eliminated by a spinout takes the last place and scores 0 (MA12)."""
    from heatlog.engine.modules.championship.rules import RaceResult

    season = simulate_season(
        log, races=[("italy", 10)], cars=4, seed=1, bots=["heuristic", "heuristic", "random", "random"]
    )
    view = season_view(log, season)
    state = log.project(view.races[0].race or 0).state  # the stored log, replayed
    result = view.races[0].result
    assert isinstance(result, RaceResult) and state.phase == "over"
    assert state.eliminated == ["Green", "Yellow"] and result.places == ("Blue", "Red", "Yellow", "Green")
    assert result.eliminated == frozenset(state.eliminated)
    assert result.points == {"Blue": 9, "Red": 6, "Yellow": 0, "Green": 0}
    for name in state.eliminated:
        assert result.points[name] == 0 and result.places.index(name) >= len(result.places) - len(state.eliminated)


def test_MA21_a_race_that_ends_with_an_elimination_says_so_in_its_log(log: RaceLog) -> None:
    """The last car racing is eliminated when it goes on from React: no later event would close its turn, so
    the simulator records its declined slipstream (``closing_event``) and the stored log replays to the end."""
    season = simulate_season(log, races=[("italy", 10)], cars=4, seed=1, bots="random")
    view = season_view(log, season)
    events = [e.event for e in log.store.events(view.races[0].race or 0)]
    assert events[-1]["type"] == "slipstream" and events[-1]["taken"] is False
    state = log.project(view.races[0].race or 0).state
    assert state.phase == "over" and len(state.eliminated) == 4 and view.over


def test_21_14_17_2_the_base_handicap_may_be_agreed_for_a_season_race(log: RaceLog) -> None:
    """No championship handicap exists (# 21.14); the experienced-driver handicap (# 17.2) is per race."""
    season = new_season(log, drivers=DRIVERS, published="1962", mode="open")
    with pytest.raises(MalformedInput, match="handicap names no driver of the season: Zed"):
        next_race(log, season, seed=1, handicap=["Zed"])
    race = next_race(log, season, seed=1, handicap=["Ann"])
    state = log.project(race).state
    assert state.cars["Ann"].engine == 6 and state.cars["Bob"].engine == 7  # event 4: +1; the handicap: −1
    assert audit_season(log, season) == []


def test_season_new_without_a_season_asks_for_one(tmp_path: Path) -> None:
    # neither --published nor --race was refused with "..., not both"
    db = tmp_path / "s.db"
    r = run("season", "new", "--car", "Ann:red", "--car", "Bob:blue", db=db)
    said = " ".join(r.stderr.split())
    assert r.returncode == 1 and "give one (--published YEAR or --race TRACK:EVENT)" in said, said
    assert "not both" not in said
    both = run("season", "new", "--published", "1961", "--race", "usa:1", "--car", "A:red", "--car", "B:blue", db=db)
    assert both.returncode == 1 and "not both" in both.stderr


def test_season_import_reads_its_file_as_import_does_and_a_refusal_leaves_no_database(tmp_path: Path) -> None:
    # a binary file or a database given as the season file crashed (UnicodeDecodeError, "internal error"); a
    # refused season import or season new left a new, empty database file behind
    db = tmp_path / "new.db"
    binary = tmp_path / "season.jsonl"
    binary.write_bytes(b"\x00\xff\xfe not text")
    r = run("season", "import", str(binary), db=db)
    assert r.returncode == 1 and f"season file {binary}: line 1, column 2: not UTF-8 text" in r.stderr, r.stderr
    other = tmp_path / "other.db"
    assert run("new", "--car", "Ann:red", "--car", "Bob:blue", db=other).returncode == 0
    r = run("season", "import", str(other), db=db)
    assert r.returncode == 1 and "this is a SQLite database, not a JSON file" in r.stderr, r.stderr
    r = run("season", "import", str(tmp_path), db=db)
    assert r.returncode == 1 and "is a directory, not a file" in r.stderr, r.stderr
    assert run("season", "new", "--car", "Ann:red", db=db).returncode == 1
    assert not db.exists()


def test_a_season_of_one_race_is_counted_in_the_singular(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    made = run("season", "new", "--race", "usa:1", "--car", "Ann:red", "--car", "Bob:blue", db=db)
    assert made.returncode == 0 and "1 race: USA" in made.stdout, made.stdout
    shown = run("season", "show", "1", db=db)
    assert shown.returncode == 0 and "— 0 of 1 race run" in shown.stdout and "1 races" not in shown.stdout


def test_record_a_season_race_refuses_weather_it_would_drop(tmp_path: Path) -> None:
    # record --new --season 1 --weather started the season's race without the weather, silently
    db = tmp_path / "s.db"
    assert run("season", "new", "--race", "usa:1", "--car", "Ann:red", "--car", "Bob:blue", db=db).returncode == 0
    r = run("record", "--new", "--season", "1", "--weather", db=db, input="")
    assert r.returncode == 1 and "--weather: a season's race is set up from the season" in r.stderr, r.stderr
    assert json.loads(run("season", "show", "1", "--json", db=db).stdout)["races"][0]["race"] is None


def test_season_import_refuses_a_season_the_database_holds(tmp_path: Path) -> None:
    # the same season file imported twice made a second season of the same id (the chain hash of its
    # season_started) and a copy of every race; heatlog import refuses a log the database holds, and so does this
    db = tmp_path / "s.db"
    assert run("simulate", "--season", "1961", "--cars", "2", "--seed", "5", db=db).returncode == 0
    out = tmp_path / "season.jsonl"
    assert run("season", "export", "1", "--out", str(out), db=db).returncode == 0
    before = run("races", "--all", "--json", db=db).stdout
    r = run("season", "import", str(out), db=db)
    assert r.returncode == 1 and "season 1 already holds this season: nothing imported" in r.stderr, r.stderr
    assert run("season", "list", db=db).stdout.count("\n") == 2  # the header and the one season
    assert run("races", "--all", "--json", db=db).stdout == before


def test_season_import_reads_standard_input(tmp_path: Path) -> None:
    # season export writes to standard output; season import - read no standard input ("season file -")
    db, other = tmp_path / "s.db", tmp_path / "o.db"
    assert run("simulate", "--season", "1961", "--cars", "2", "--seed", "5", db=db).returncode == 0
    text = run("season", "export", "1", db=db).stdout
    r = run("season", "import", "-", db=other, input=text)
    assert r.returncode == 0 and r.stdout.strip() == "1", r
    assert run("season", "export", "1", db=other).stdout == text


def test_season_list_of_none_says_so(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    assert run("new", "--car", "Ann:red", "--car", "Bob:blue", db=db).returncode == 0
    r = run("season", "list", db=db)  # it printed nothing at all
    assert r.returncode == 0 and r.stdout == "" and f"no seasons in {db}" in r.stderr, r


def test_season_list_says_how_far_each_season_is_and_who_leads(tmp_path: Path) -> None:
    """season list printed id, name and date only: now the races run of all, over or not, and the leader (the
    champion once over) with points, # 21.10; piped under a header as heatlog races, --json for scripts."""
    import pexpect

    db = tmp_path / "s.db"
    assert run("simulate", "--season", "1961", "--cars", "2", "--seed", "5", db=db).returncode == 0
    r = run("season", "new", "--published", "1962", "--car", "Ann:red", "--car", "Bob:blue", "--name", "Fri", db=db)
    assert r.returncode == 0, r
    data = json.loads(run("season", "list", "--json", db=db).stdout)
    first, second = data
    assert (first["races"], first["run"], first["over"]) == (3, 3, True) and first["damaged_race"] is None
    with RaceLog(db) as log:
        table = season_view(log, 1).tables[-1]
    assert first["leader"] == {"name": table[0].name, "points": table[0].points}
    assert (second["name"], second["run"], second["over"], second["leader"]) == ("Fri", 0, False, None)
    lines = run("season", "list", db=db).stdout.splitlines()
    assert lines[0] == "id\tname\traces\tleader\tcreated"
    champion = f"champion {table[0].name} ({table[0].points} points)"
    assert lines[1].split("\t")[:4] == ["1", "1961", "3 races: over", champion], lines
    assert lines[2].split("\t")[:4] == ["2", "Fri", "0 of 3 races run", ""], lines
    child = pexpect.spawn(
        HEATLOG or "heatlog",
        ["season", "list", "--db", str(db)],
        encoding="utf-8",
        env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1"},
        timeout=60,
    )
    child.expect(pexpect.EOF)
    shown = child.before.replace("\r", "")
    assert f"seasons in {db}" in shown and "races" in shown and champion in shown and "0 of 3 races run" in shown
