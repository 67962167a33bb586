"""heatlog stats and the derived turns table (issue 13): hand-counted golden race, openskill ratings, the
table against a fresh projection, and the CLI through its real entry point."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heatlog.engine.modules.garage import garage_slot
from heatlog.log.racelog import RaceLog
from heatlog.races.audit import audit_race
from heatlog.simulate import simulate_race
from heatlog.stats import TurnsTable, career, collect, race_facts, race_stats, rate
from heatlog.stats.facts import TURN_COLUMNS
from tests.test_cli import run

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"


def events_of(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (REPLAYS / name).read_text().splitlines() if line.strip()]


def by_car(name: str) -> dict[str, dict[str, Any]]:
    stats = race_stats(collect(events_of(name))).to_dict()
    return {c["car"]: c for c in stats["cars"]}


# ------------------------------------------------------------------------------------------------ golden race

# Counted by hand from `heatlog replay` of replays/learning-2cars.jsonl (8 rounds, see the narration):
# Red: R1 1→3 pays 1 (# 3.2); R2 adrenaline cooldown in 4th (gear cooldown 0, # 7.2) cools 1, slipstream, C1 pays 3,
# draws S S; R4 2nd cools 1 (gear), C2 pays 2; R6 C3 at the limit; R7 cools 1 (gear), slipstream, C4 pays 3,
# draws S; R8 plays 5 S S. Blue: R1 1→3 pays 1, adrenaline cools 1; R2 plays S, C1 pays 2, draws S; R3 plays S;
# R4 plays S, adrenaline cools 1, C2 pays 2; R5 adrenaline cools 1, declines slipstream, draws S; R6 4→2 pays 1,
# cools 1 (gear), C3 pays 1, draws S; R7 C4 pays 3. Leaders at the ends of rounds: B R R R R B R B.
GOLDEN = {
    "Red": {
        "place": 2,
        "heat_paid": {"corners": 8, "boosts": 0, "shifts": 1, "flooded": 0, "upgrades": 0, "total": 9},
        "heat_cooled": {"gear": 2, "adrenaline": 1, "upgrades": 0, "total": 3},
        "stress": {"played": 3, "drawn": 3, "spinouts": 0},
        "spinouts": 0,
        "slipstreams": {"taken": 2, "declined": 0, "spaces": 4},  # # 8.1: two spaces each
        "boosts": {"count": 0, "values": [], "mean": None},
        "mean_speed_by_gear": {"2": 4.33, "3": 10.75, "4": 10.0},
        "corners": {"crossed": 4, "over_limit": 3},
        "rounds_led": 5,
        "turns": 8,
    },
    "Blue": {
        "place": 1,
        "heat_paid": {"corners": 8, "boosts": 0, "shifts": 2, "flooded": 0, "upgrades": 0, "total": 10},
        "heat_cooled": {"gear": 1, "adrenaline": 3, "upgrades": 0, "total": 4},
        "stress": {"played": 3, "drawn": 3, "spinouts": 0},
        "spinouts": 0,
        "slipstreams": {"taken": 0, "declined": 1, "spaces": 0},
        "boosts": {"count": 0, "values": [], "mean": None},
        "mean_speed_by_gear": {"2": 4.5, "3": 9.75, "4": 11.5},
        "corners": {"crossed": 4, "over_limit": 4},
        "rounds_led": 3,
        "turns": 8,
    },
}


def test_golden_race_matches_the_hand_count() -> None:
    got = by_car("learning-2cars.jsonl")
    for car, expected in GOLDEN.items():
        for key, value in expected.items():
            assert got[car][key] == value, (car, key)


def test_boosts_and_spinouts_are_counted_with_their_values() -> None:
    # replays/README.md: usa-4cars has 6 boosts and 1 spinout (Blue at corner 2 in round 3).
    facts = collect(events_of("usa-4cars.jsonl"))
    spun = [t for t in facts.turns if t.spinout]
    assert [(t.car, t.round) for t in spun] == [("Blue", 3)]
    assert spun[0].spinout_stress == {1: 1, 2: 1, 3: 2, 4: 2}[spun[0].gear]  # # 10.3
    boosts = [t for t in facts.turns if t.boosted]
    assert len(boosts) == 6
    for t in boosts:
        assert t.heat_boost == 1  # # 7.5
        assert t.boost_value == (int(t.boost_card) if t.boost_card else 0)
    stats = race_stats(facts).to_dict()
    assert sum(c["boosts"]["count"] for c in stats["cars"]) == 6
    assert sum(c["spinouts"] for c in stats["cars"]) == 1


def test_table_mode_hides_stress_drawn_and_agrees_on_everything_else() -> None:
    open_ = collect(events_of("usa-4cars.jsonl")).turns
    table = collect(events_of("usa-4cars-table.jsonl")).turns
    assert len(open_) == len(table)
    hidden = {"stress_drawn"}
    for a, b in zip(open_, table, strict=True):
        assert b.stress_drawn is None or b.drawn == 0  # # 1.7: table-mode draws are counts
        for col in TURN_COLUMNS:
            if col not in hidden:
                assert getattr(a, col) == getattr(b, col), (a.round, a.car, col)
    totals = race_stats(collect(events_of("usa-4cars-table.jsonl"))).to_dict()
    assert all(c["stress"]["drawn"] is None for c in totals["cars"])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), cars=st.integers(2, 6), bots=st.sampled_from(["heuristic", "random"]))
def test_heat_paid_and_cooled_account_for_the_engine(seed: int, cars: int, bots: str) -> None:
    """Engine at the end = Engine at the start − Heat paid + Heat cooled (# 15.1, 7.3), per car, and the finishing
    place is the Hall of Fame's (# 16.8)."""
    _, events, state = simulate_race(None, track="usa", cars=cars, seed=seed, bots=bots)
    facts = collect(events)
    stats = race_stats(facts)
    assert facts.finishing_order == state.hall_of_fame
    for c in stats.cars:
        start = 5 if state.cars[c.car].handicap else 6
        assert state.cars[c.car].engine == start - c.tally.heat_paid + c.tally.heat_cooled
        assert c.tally.turns == len([t for t in facts.turns if t.car == c.car])
    # A round is led by the car first at its end; once the winner is in the Hall of Fame it leads without a turn.
    assert sum(c.tally.rounds_led for c in stats.cars) == state.finish_rounds[state.hall_of_fame[0]]


# ------------------------------------------------------------------------------------------------ ratings


def test_ratings_equal_openskills_own_result(tmp_path: Path) -> None:
    from openskill.models import PlackettLuce

    log = RaceLog(tmp_path / "r.db")
    orders = []
    for seed in range(6):
        _, _, state = simulate_race(log, cars=4, seed=seed, bots=["heuristic", "random", "heuristic", "random"])
        orders.append(list(state.hall_of_fame))
    result = career(race_facts(log, r.id) for r in log.store.races())
    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    for order in orders:
        teams = [[ratings.get(n, model.rating(name=n))] for n in order]
        for n, team in zip(order, model.rate(teams, ranks=[1, 2, 3, 4]), strict=True):
            ratings[n] = team[0]
    for d in result.drivers:
        assert d.rating is not None
        assert d.rating.mu == pytest.approx(ratings[d.driver].mu, abs=1e-12)
        assert d.rating.sigma == pytest.approx(ratings[d.driver].sigma, abs=1e-12)
        assert d.rating.ordinal == pytest.approx(ratings[d.driver].ordinal(), abs=1e-9)
        assert d.wins == sum(o[0] == d.driver for o in orders)
        assert d.mean_place == round(sum(o.index(d.driver) + 1 for o in orders) / len(orders), 2)
    ordinals = [d.rating.ordinal for d in result.drivers if d.rating]
    assert ordinals == sorted(ordinals, reverse=True)
    log.close()


def test_rate_skips_unfinished_and_single_car_orders() -> None:
    assert rate([["A"]]) == {}
    two = rate([["A", "B"]])
    assert two["A"].mu > 25 > two["B"].mu


# ------------------------------------------------------------------------------------------------ the table


def _db_with_races(tmp_path: Path, n: int = 3) -> RaceLog:
    log = RaceLog(tmp_path / "t.db")
    for seed in range(n):
        simulate_race(log, cars=3, seed=seed, bots="heuristic")
    return log


def _rows(facts: Any) -> list[dict[str, Any]]:
    return [{k: (int(v) if isinstance(v, bool) else v) for k, v in t.row().items()} for t in facts.turns]


def duckdb_with_sqlite() -> Any:
    """A DuckDB connection with its SQLite reader loaded from the extension package (no download)."""
    import duckdb
    import duckdb_extension_sqlite_scanner as ext

    path = next(Path(ext.__path__[0]).glob("extensions/*/sqlite_scanner.duckdb_extension"))
    con = duckdb.connect()
    con.execute(f"LOAD '{path}'")
    return con


def test_table_rebuilt_equals_a_fresh_projection_read_by_sqlite_utils_and_duckdb(tmp_path: Path) -> None:
    import sqlite_utils

    log = _db_with_races(tmp_path)
    ids = [r.id for r in log.store.races()]
    assert TurnsTable(log).build(ids) == (3, 0)
    assert TurnsTable(log).build(ids) == (0, 3)  # matches the log now: nothing to rebuild
    path = log.path
    log.close()
    fresh = RaceLog(path)
    expected = [row for r in ids for row in _rows(race_facts(fresh, r))]
    fresh.close()
    db = sqlite_utils.Database(path)
    got = list(db.query("select * from turns order by race, round, turn"))
    assert got == expected
    assert set(db.table_names()) >= {"turns", "derived"}
    db.close()
    con = duckdb_with_sqlite()
    rows = con.execute(
        f"select race, car, sum(heat_corners), count(*) from sqlite_scan('{path}', 'turns') group by race, car"
    ).fetchall()
    by_race_car = {(r, c): (int(h), n) for r, c, h, n in rows}
    want: dict[tuple[int, str], tuple[int, int]] = {}
    for row in expected:
        h, n = want.get((row["race"], row["car"]), (0, 0))
        want[(row["race"], row["car"])] = (h + row["heat_corners"], n + 1)
    assert by_race_car == want
    con.close()


def test_a_pool_of_workers_folds_many_races_to_the_same_facts_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many stale races are folded by a pool of processes that read the database file: the facts, their order,
    progress and the table written are those of the fold in this process."""
    import heatlog.stats.derived as derived

    log = _db_with_races(tmp_path)
    ids = [r.id for r in log.store.races()]
    alone = [race_stats(f).to_dict() for f in TurnsTable(log).facts(ids, cache=False, workers=1)]
    monkeypatch.setattr(derived, "PARALLEL_FROM", 2)
    monkeypatch.setattr(derived, "_POOL_CHUNK", 1)
    called: list[Any] = []
    real = derived._pooled
    monkeypatch.setattr(derived, "_pooled", lambda *a: called.append(a) or real(*a))
    steps: list[int] = []
    table = TurnsTable(log)
    pooled = [race_stats(f).to_dict() for f in table.facts([*ids, ids[0]], workers=2, progress=steps.append)]
    assert called and called[0][1:] == ([*ids, ids[0]], 2)  # the pool did fold them
    assert pooled == [*alone, alone[0]] and len(steps) == len(ids) + 1
    assert table.build(ids) == (0, len(ids))  # and the table it wrote matches every log


def test_table_follows_appends_retractions_and_hand_edits(tmp_path: Path) -> None:
    events = events_of("usa-4cars.jsonl")
    log = RaceLog(tmp_path / "p.db")
    race = log.new_race(events[0])
    log.store.append_many(race, events[1:200])
    table = TurnsTable(log)

    def cached() -> list[Any]:
        return next(iter(table.facts([race]))).turns

    def fresh() -> list[Any]:
        return race_facts(log, race).turns

    assert cached() == fresh()
    for ev in events[200:260]:
        log.append(race, ev)
    assert table._cached([race]) == {}  # the log moved on: the rows no longer match it
    assert cached() == fresh()
    assert race in table._cached([race])
    log.retract_last(race)
    assert cached() == fresh()
    conn = log.store.conn
    conn.execute("UPDATE derived SET facts = replace(facts, 'Blue', 'Red') WHERE race = ?", (race,))
    assert table._cached([race]) == {}  # an edit by hand of what stats read is noticed (digest) …
    assert cached() == fresh()  # … and repaired
    conn.execute("UPDATE turns SET heat_corners = heat_corners + 5 WHERE race = ?", (race,))
    assert race in table._cached([race])  # stats read their own copy, still right …
    assert table._cached([race], check_rows=True) == {}  # … and `heatlog turns` notices the edited rows
    assert table.build([race]) == (1, 0)
    rows = conn.execute("SELECT * FROM turns WHERE race = ? ORDER BY round, turn", (race,)).fetchall()
    assert [dict(zip(TURN_COLUMNS, r, strict=True)) for r in rows] == _rows(race_facts(log, race))
    log.close()


def test_door_and_audit_never_read_the_derived_table(tmp_path: Path) -> None:
    events = events_of("usa-4cars.jsonl")
    log = RaceLog(tmp_path / "d.db")
    race = log.new_race(events[0])
    log.store.append_many(race, events[1:100])
    TurnsTable(log).build([race])
    conn = log.store.conn
    conn.execute("UPDATE turns SET car = 'Nobody', speed = -99")  # nonsense in every row
    conn.execute("UPDATE derived SET summary = 'not json'")
    for ev in events[100:140]:
        log.append(race, ev)  # the door
    report = audit_race(log, race)
    assert report.clean, report.problems
    assert log.store.verify(race) == []
    conn.execute("DROP TABLE turns")  # and without it at all
    log.append(race, events[140])
    assert audit_race(log, race).clean
    assert next(iter(TurnsTable(log).facts([race]))).turns == race_facts(log, race).turns
    log.close()


def test_read_only_database_gives_stats_without_the_table(tmp_path: Path) -> None:
    log = _db_with_races(tmp_path, 1)
    path = log.path
    log.close()
    ro = RaceLog(path, create=False)
    ro.store.conn.execute("PRAGMA query_only = ON")
    table = TurnsTable(ro)
    facts = next(iter(table.facts([1])))
    assert facts.over and not table.writable
    with pytest.raises(sqlite3.OperationalError):
        ro.store.conn.execute("SELECT count(*) FROM turns")
    ro.close()


# ------------------------------------------------------------------------------------------------ the CLI


def test_cli_stats_one_race_json_csv_and_table(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    r = run("import", str(REPLAYS / "learning-2cars.jsonl"), db=db)
    assert r.returncode == 0, r.stderr
    r = run("stats", db=db)
    assert r.returncode == 0, r.stderr
    assert "Heat paid: corners" in r.stdout and "Rounds led" in r.stdout and "Blue" in r.stdout
    data = json.loads(run("stats", "--json", db=db).stdout)
    assert {c["car"]: c["heat_paid"] for c in data["cars"]} == {k: v["heat_paid"] for k, v in GOLDEN.items()}
    lines = run("stats", "--csv", db=db).stdout.splitlines()
    header = lines[0].split(",")
    assert "heat_paid_corners" in header and len(lines) == 3
    row = dict(zip(header, lines[1].split(","), strict=True))
    assert row["car"] == "Blue" and row["place"] == "1" and row["slipstreams_declined"] == "1"
    bad = run("stats", "--json", "--csv", db=db)
    assert bad.returncode != 0 and "Error:" in bad.stderr


def test_cli_stats_table_names_the_track_as_other_views_do_and_the_machine_formats_keep_its_id(
    tmp_path: Path,
) -> None:
    # the one-race table's title said "race 1: usa, 2 laps" where show says USA; --json and --csv keep the id
    # (their key), and a derived table written before the name was kept is rebuilt, not shown with the id
    db = tmp_path / "c.db"
    assert run("simulate", "--cars", "2", "--seed", "1", "--workers", "1", db=db).returncode == 0
    assert "USA" in run("show", "--race", "1", db=db).stdout
    title = run("stats", "--race", "1", db=db).stdout.splitlines()[0]
    assert title.startswith("race 1 (sim usa seed 1): USA, 2 laps, open mode"), title
    assert json.loads(run("stats", "--race", "1", "--json", db=db).stdout)["track"] == "usa"
    lines = run("stats", "--race", "1", "--csv", db=db).stdout.splitlines()
    assert dict(zip(lines[0].split(","), lines[1].split(","), strict=True))["track"] == "usa"
    conn = sqlite3.connect(db)  # a summary as the derived table held it before, its digest matching
    text, facts = conn.execute("SELECT summary, facts FROM derived WHERE race = 1").fetchone()
    summary = json.loads(text)
    assert summary.pop("track_name") == "USA"
    text = json.dumps(summary, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(f"{text}\n{facts}".encode()).hexdigest()
    conn.execute("UPDATE derived SET summary = ?, digest = ? WHERE race = 1", (text, digest))
    conn.commit()
    conn.close()
    assert run("stats", "--race", "1", db=db).stdout.splitlines()[0] == title
    track = json.loads((Path(__file__).parent / "data" / "sprint.json").read_text())
    track["name"] = "[bold]Sprint[/] ring"  # a user's track name is data, never markup
    path = tmp_path / "sprint.json"
    path.write_text(json.dumps(track), encoding="utf-8")
    assert run("simulate", "--cars", "2", "--seed", "1", "--workers", "1", "--track", str(path), db=db).returncode == 0
    assert ": [bold]Sprint[/] ring, 1 lap, open mode" in run("stats", "--race", "2", db=db).stdout


def test_cli_stats_of_a_track_names_the_track_in_the_title(tmp_path: Path) -> None:
    # stats --track X titled its table "drivers over 2 races", not saying which track they were chosen by
    db = tmp_path / "c.db"
    for track in ("usa", "italy", "usa"):
        r = run("simulate", "--cars", "2", "--seed", "1", "--workers", "1", "--track", track, db=db)
        assert r.returncode == 0, r.stderr
    assert run("stats", "--track", "USA", db=db).stdout.splitlines()[0].strip() == "drivers over 2 races on USA"
    assert run("stats", "--track", "italy", db=db).stdout.splitlines()[0].strip() == "drivers over 1 race on Italy"
    assert run("stats", "--all", db=db).stdout.splitlines()[0].strip() == "drivers over 3 races"


def test_cli_stats_csv_has_the_same_columns_whatever_the_races_hold(tmp_path: Path) -> None:
    """The columns came from the rows: a race whose first car never drove in 1st gear put
    mean_speed_by_gear_1 last, a race without turns had no speed columns, drivers without a finished race a
    single "rating" column; files of several races did not line up."""
    db = tmp_path / "c.db"
    assert run("import", str(REPLAYS / "learning-2cars.jsonl"), db=db).returncode == 0  # a finished race
    assert run("new", "--car", "Ann:red", "--car", "Bob:blue", "--seed", "1", db=db).returncode == 0  # no turns
    gears = [f"mean_speed_by_gear_{g}" for g in (1, 2, 3, 4)]  # # 3.1
    headers = [run("stats", "--race", r, "--csv", db=db).stdout.splitlines()[0].split(",") for r in ("1", "2")]
    assert headers[0] == headers[1], (headers[0], headers[1])
    at = headers[0].index(gears[0])
    assert headers[0][at : at + 4] == gears
    drivers = [run("stats", "--driver", d, "--csv", db=db).stdout.splitlines()[0].split(",") for d in ("Ann", "Blue")]
    assert drivers[0] == drivers[1] and "rating" not in drivers[0], (drivers[0], drivers[1])
    assert {"rating_mu", "rating_sigma", "rating_ordinal", *gears} <= set(drivers[0])


def test_19_10_a_legend_has_no_speed_per_gear(tmp_path: Path) -> None:
    # a Legend plays no card and has no gear (# 19.1, 19.10): its moves were counted as speeds in 1st gear
    db = tmp_path / "l.db"
    assert run("import", str(REPLAYS / "gb-solo-legends.jsonl"), db=db).returncode == 0
    data = json.loads(run("stats", "--json", db=db).stdout)
    legends = [c for c in data["cars"] if c["car"].startswith("Legend-")]
    humans = [c for c in data["cars"] if not c["car"].startswith("Legend-")]
    assert legends and humans
    assert all(c["mean_speed_by_gear"] is None for c in legends), [c["mean_speed_by_gear"] for c in legends]
    assert all(c["mean_speed_by_gear"] for c in humans)


def test_19_10_a_legends_figures_that_do_not_apply_are_a_dash_or_null_not_0(tmp_path: Path) -> None:
    # issue 29 bug 16: a Legend has no Engine, hand, gear or Stress and never reacts, slipstreams or pays at a
    # corner (# 19.1, 19.3, 19.10): it was shown with 0 Heat paid, 0 spinouts, "0 0 0 0" rounds in gear, …
    db = tmp_path / "l.db"
    assert run("import", str(REPLAYS / "gb-solo-legends.jsonl"), db=db).returncode == 0
    cars = {c["car"]: c for c in json.loads(run("stats", "--json", db=db).stdout)["cars"]}
    gray, red = cars["Legend-Gray"], cars["Red"]
    assert gray["heat_paid"] == dict.fromkeys(("corners", "boosts", "shifts", "flooded", "upgrades", "total"))
    assert gray["spinouts"] is None and gray["engine_left"] is None and gray["cards_discarded"] is None
    assert gray["boosts"] == {"count": None, "values": None, "mean": None}
    assert gray["adrenaline"] == {"rounds": None, "moves": None, "spaces": None}  # # 19.17: no benefit taken
    assert gray["rounds_in_gear"] is None
    # what a Legend does have: its place, grid, turns, the spaces it moved and the rounds it led
    assert (gray["place"], gray["start_position"], gray["turns"], gray["rounds_led"]) == (1, 5, 14, 8)
    assert gray["spaces"] > 0
    assert red["heat_paid"]["total"] == 13 and red["engine_left"] == 0  # a car's 0 stays 0
    rows = {r["car"]: r for r in csv.DictReader(io.StringIO(run("stats", "--csv", db=db).stdout))}
    assert rows["Legend-Gray"]["heat_paid_total"] == "" and rows["Legend-Gray"]["spinouts"] == ""
    assert rows["Legend-Gray"]["rounds_led"] == "8" and rows["Red"]["spinouts"] == "0"
    table = run("stats", db=db, env={"COLUMNS": "200"}).stdout
    lines = {line.split("│")[1].strip(): line.split("│")[2:-1] for line in table.splitlines() if line.count("│") > 3}
    assert [c.strip() for c in lines["Heat paid: total"]] == ["—", "13", "—", "—", "—", "—"]
    assert [c.strip() for c in lines["Spinouts"]] == ["—", "0", "—", "—", "—", "—"]
    assert [c.strip() for c in lines["Rounds led"]] == ["8", "1", "0", "5", "0", "0"]
    career = run("stats", "--all", db=db, env={"COLUMNS": "200"}).stdout
    gray_row = next(line for line in career.splitlines() if "Legend-Gray" in line).split("│")
    assert [c.strip() for c in gray_row[8:12]] == ["—"] * 4  # Spinouts, Heat paid, Boosts, Slips


def test_22_4_a_flooded_downshifts_surcharge_is_not_a_two_gear_shift() -> None:
    # issue 29 bug 16: stats counted the flooded surcharge (# 22.4) as Heat paid for a two-gear shift (# 3.2).
    # The golden Japan race's narration (tests/golden/golden_japan.txt, regenerated with its log) says each
    # flooded downshift ("shifts to 2nd (pays 1 Heat; flooded: downshift costs 1 more Heat)"): 1 Heat each
    got = by_car("../tests/golden/golden_japan.jsonl")
    told = (ROOT / "tests" / "golden" / "golden_japan.txt").read_text(encoding="utf-8").splitlines()
    flooded = {
        car: sum(1 for line in told if line.startswith(f"  {car} shifts to ") and "flooded:" in line) for car in got
    }
    assert sum(flooded.values()) > 0
    for car, c in got.items():
        paid = c["heat_paid"]
        assert paid["flooded"] == flooded[car], (car, paid)
        assert paid["shifts"] == c["two_gear_shifts"]["up"] + c["two_gear_shifts"]["down"], (car, paid)  # 1 each
        assert paid["total"] == sum(v for k, v in paid.items() if k != "total")


def test_cli_stats_across_races(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    r = run("simulate", "--races", "4", "--seed", "3", "--bots", "heuristic,random,random", "--cars", "3", db=db)
    assert r.returncode == 0, r.stderr
    data = json.loads(run("stats", "--all", "--json", db=db).stdout)
    assert data["partial"] is False and len(data["races"]) == 4
    assert sum(d["wins"] for d in data["drivers"]) == 4
    assert all(d["rating"]["sigma"] < 25 / 3 for d in data["drivers"])
    table = run("stats", "--all", db=db)
    assert table.returncode == 0 and "Rating" in table.stdout and "openskill" in table.stdout
    one = json.loads(run("stats", "--driver", "Red", "--json", db=db).stdout)
    assert [d["driver"] for d in one["drivers"]] == ["Red"]
    csv_lines = run("stats", "--track", "usa", "--csv", db=db).stdout.splitlines()
    assert csv_lines[0].startswith("driver,races,") and len(csv_lines) == 4
    nowhere = run("stats", "--track", "italy", db=db)
    assert nowhere.returncode == 1 and "no race on track 'italy'" in nowhere.stderr
    nobody = run("stats", "--driver", "Zed", db=db)
    assert nobody.returncode == 1 and "Zed" in nobody.stderr
    both = run("stats", "--race", "1", "--all", db=db)
    assert both.returncode == 1 and "choose one" in both.stderr


def test_cli_stats_of_a_season_has_its_standings_and_its_drivers(tmp_path: Path) -> None:
    """MODULES.md 21.10: ``stats --season`` reads the season's races: its standings (points per race, total,
    wins) as ``season show`` has them, and each driver's statistics and rating over those races only."""
    db = tmp_path / "s.db"
    assert run("simulate", "--season", "1961", "--seed", "3", db=db).returncode == 0
    assert run("simulate", "--cars", "3", "--seed", "9", db=db).returncode == 0  # a race outside the season
    data = json.loads(run("stats", "--season", "1", "--json", db=db).stdout)
    shown = json.loads(run("season", "show", "1", "--json", db=db).stdout)
    assert data["over"] is True and data["season_races"] == data["races_run"] == 3 and len(data["races"]) == 3
    totals = {s["driver"]: s["points"] for s in data["standings"]}
    assert sum(totals.values()) == sum(sum(p for p in s["per_race"] if p) for s in data["standings"])
    assert [s["driver"] for s in data["standings"]] == [d["driver"] for d in data["drivers"]]
    assert all(d["races"] == 3 for d in data["drivers"])  # the race outside the season is not counted
    assert sum(s["wins"] for s in data["standings"]) == sum(d["wins"] for d in data["drivers"]) == 3
    final = shown["standings"][-1]
    assert [(s["name"], s["points"], s["per_race"]) for s in final] == [
        (s["driver"], s["points"], s["per_race"]) for s in data["standings"]
    ]
    table = run("stats", "--season", "1", db=db)
    assert table.returncode == 0 and "standings" in table.stdout and "Points" in table.stdout
    csv_lines = run("stats", "--season", "1", "--csv", db=db).stdout.splitlines()
    assert csv_lines[0].startswith("season,season_position,season_points,driver,") and len(csv_lines) == 5
    missing = run("stats", "--season", "7", db=db)
    assert missing.returncode == 1 and "no season 7" in missing.stderr
    both = run("stats", "--season", "1", "--all", db=db)
    assert both.returncode == 1 and "give it alone" in both.stderr


def test_cli_stats_track_takes_the_names_new_takes(tmp_path: Path) -> None:
    # new --track gb starts a race on great-britain; stats --track gb said "no race on track 'gb'"
    db = tmp_path / "t.db"
    assert run("new", "--track", "gb", "--car", "Ann:red", "--car", "Bob:blue", db=db).returncode == 0
    for name in ("gb", "Great-Britain", "great-britain"):
        r = run("stats", "--track", name, "--json", db=db)
        assert r.returncode == 0 and json.loads(r.stdout)["selected"] == 1, (name, r.stderr)


def test_cli_stats_csv_without_a_race_is_the_header_alone(tmp_path: Path) -> None:
    """A season with no race run (and --all over no race) printed an empty line: the header alone now, the
    columns a row would have, as the CSV of a season with races has them."""
    db = tmp_path / "s.db"
    assert run("season", "new", "--published", "1961", "--car", "Ann:red", "--car", "Bob:blue", db=db).returncode == 0
    empty = run("stats", "--season", "1", "--csv", db=db)
    assert empty.returncode == 0 and empty.stdout.count("\n") == 1, repr(empty.stdout)
    assert empty.stdout.startswith("season,season_position,season_points,driver,races,")
    drivers = run("stats", "--all", "--csv", db=db)
    assert drivers.returncode == 0 and drivers.stdout == empty.stdout.split(",", 3)[3], repr(drivers.stdout)
    full = tmp_path / "full.db"
    assert run("simulate", "--season", "1961", "--seed", "3", db=full).returncode == 0
    assert run("stats", "--season", "1", "--csv", db=full).stdout.splitlines()[0] == empty.stdout.strip()


def test_cli_turns_builds_and_drops_the_table(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert run("simulate", "--races", "2", "--seed", "5", db=db).returncode == 0
    r = run("turns", "--all", db=db)
    assert r.returncode == 0, r.stderr
    assert "2 races rebuilt" in r.stdout
    r = run("turns", "--all", db=db)
    assert "0 races rebuilt" in r.stdout and "2 already matched" in r.stdout
    with sqlite3.connect(db) as conn:
        n = conn.execute("select count(*) from turns").fetchone()[0]
    assert f"{n} rows" in r.stdout
    # --drop removes every race's tables and --all is every race: a --race beside them is refused, not dropped
    for args, words in (
        (("--drop", "--race", "1"), "--drop removes the derived tables of every race"),
        (("--drop", "--rebuild"), "--drop removes the derived tables of every race"),
        (("--all", "--race", "1"), "--race is one race and --all every race"),
    ):
        r = run("turns", *args, db=db)
        assert r.returncode == 1 and words in r.stderr, (args, r.stderr)
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from turns").fetchone()[0] == n
    r = run("audit", "--all", "--race", "1", db=db)
    assert r.returncode == 2 and "--race is one race and --all every race" in r.stderr, r.stderr  # 1: problems
    assert run("turns", "--drop", db=db).returncode == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from sqlite_master where name = 'turns'").fetchone()[0] == 0
    assert run("audit", db=db).returncode == 0


@pytest.mark.parametrize(
    "path",
    [REPLAYS / "usa-garage-4cars.jsonl", Path(__file__).parent / "golden" / "golden_usa_garage_table.jsonl"],
    ids=["open", "table"],
)
def test_garage_symbol_uses_are_in_the_per_turn_facts(path: Path) -> None:
    """Issue 14 (analysis covers Garage races): each turn's facts name the Garage symbols used (# 18.7–18.24)
    and the Heat paid for upgrades' costs (# 18.10), which the Heat paid adds up. The oracle is the Engine itself:
    what each ``heat_paid`` event took from it."""
    from heatlog.engine import apply

    events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    # The oracle: the Heat cost printed on each upgrade a car revealed (the catalogue's symbols), less the cards
    # it declared unpayable (# 18.11: replaced by a flip, never paid).
    paid: dict[str, int] = {}
    garage_turns: set[tuple[int, str]] = set()
    state = None
    for ev in events:
        state = apply(state, ev, atomic=False)
        g, car = garage_slot(state), ev.get("car")
        if ev["type"] in ("cards_played", "cards_revealed") and g is not None:
            paid[car] = paid.get(car, 0) + sum(g.n(c, "heat") for c in ev["cards"])
        if ev["type"] == "heat_unpayable" and g is not None:
            paid[car] -= sum(g.n(c, "heat") for c in ev["cards"])
        if ev["type"] in ("heat_paid", "card_scrapped", "stress_reduced", "refreshed", "salvaged", "direct_played"):
            assert state.turn is not None
            garage_turns.add((state.turn.round, car))
    facts = collect(events)
    assert sum(paid.values()) > 0, "the race pays an upgrade's Heat cost"
    for car, heat in paid.items():
        assert sum(t.heat_upgrades for t in facts.turns if t.car == car) == heat, car
    assert garage_turns
    for t in facts.turns:
        assert bool(t.uses) or (t.round, t.car) not in garage_turns
        assert t.heat_paid == t.heat_shift + t.heat_boost + t.heat_corners + t.heat_upgrades
    stats = race_stats(facts)
    for c in stats.cars:
        assert c.tally.to_dict()["heat_paid"]["upgrades"] == paid.get(c.car, 0)


def test_piped_tables_are_printed_whole(tmp_path: Path) -> None:
    """Piped without COLUMNS (`heatlog stats --all > drivers.txt`), rich cut the drivers table to 80 columns:
    "Dri…", "Yel…", "Me… pl…". Printed at its natural width now; COLUMNS, when given, is still the width."""
    import os
    import subprocess

    from tests.test_cli import HEATLOG

    db = tmp_path / "h.db"
    assert run("simulate", "--races", "2", "--cars", "6", "--seed", "3", "--workers", "1", db=db).returncode == 0
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["NO_COLOR"] = "1"
    cmd = [HEATLOG or "heatlog", "stats", "--all", "--db", str(db)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60).stdout
    lines = out.splitlines()
    table = [line for line in lines if line[:1] in "┏┃┡│└"]
    assert table and "…" not in "".join(table), out
    assert "Mean place" in out and "Heat paid" in out and all(f"│ {c} " in out for c in ("Yellow", "Black", "White"))
    assert max(map(len, table)) > 80  # wider than rich's default: nothing was cut to fit
    assert all(len(line) <= 80 for line in lines if line not in table and not line.startswith("drivers over"))
    narrow = subprocess.run(cmd, capture_output=True, text=True, env={**env, "COLUMNS": "60"}, timeout=60).stdout
    assert max(map(len, narrow.splitlines())) <= 60  # COLUMNS is the width asked for


def test_turn_facts_arguments_are_in_the_order_of_the_columns() -> None:
    """turn_values lists a turn's values positionally, in a list display (a TurnFacts is a tuple of them, issue 31):
    each line names its field (the modules' columns, from their ``turn_facts``, as one line), and the names run in
    TURN_COLUMNS' order, so a field added or moved shows up here."""
    import inspect
    import re

    from heatlog.stats.facts import MODULE_TURN_COLUMNS, turn_values

    source = inspect.getsource(turn_values)
    call = source[source.index("return [") :]
    named = re.findall(r",  # (\w+)", call)
    at = named.index("MODULE_TURN_COLUMNS")
    named[at : at + 1] = [c.name for c in MODULE_TURN_COLUMNS]
    assert tuple(named) == TURN_COLUMNS
    assert [c.name for c in MODULE_TURN_COLUMNS] == [
        "heat_upgrades",
        "uses",
        "cooled_upgrades",
    ]  # the Garage's (# 18.10, 18.7, 18.13)


@pytest.mark.parametrize(
    "name", ["usa-4cars.jsonl", "usa-4cars-table.jsonl", "gb-solo-legends.jsonl", "usa-garage-legends-weather.jsonl"]
)
def test_turn_facts_are_their_row(name: str) -> None:
    """A TurnFacts is a tuple of its columns in TURN_COLUMNS' order (issue 31: the ``turns`` table's INSERT, the
    ``derived`` JSON and a corpus's columns take it as it is), named, pickled and written to JSON as that row."""
    import pickle

    facts = collect(events_of(name))
    assert facts.turns
    for t in facts.turns:
        assert isinstance(t, tuple) and tuple(t) == tuple(getattr(t, c) for c in TURN_COLUMNS)
        assert list(t.row()) == list(TURN_COLUMNS) and t.heat_paid == sum(
            getattr(t, c) for c in ("heat_shift", "heat_flooded", "heat_boost", "heat_corners", "heat_upgrades")
        )
        assert pickle.loads(pickle.dumps(t)) == t and type(pickle.loads(pickle.dumps(t))) is type(t)
        assert json.dumps(t) == json.dumps(list(t))
    assert all(t.place is not None for t in facts.turns)  # every round closed: its standings in its turns (# 16.8)


@pytest.mark.parametrize("name", ["usa-4cars.jsonl", "usa-4cars-table.jsonl", "usa-garage-legends-weather.jsonl"])
def test_tally_of_a_car_s_turns_at_once_is_the_sum_turn_by_turn(name: str) -> None:
    """``Tally.add_turns`` reads the turns column by column (issue 31); a tally made one turn at a time, or in two
    parts merged, says the same (table mode: a hidden draw makes ``stress drawn`` None, # 1.7)."""
    from heatlog.stats import Tally

    facts = collect(events_of(name))
    legends = {c.name: c.legend for c in facts.cars}
    for car, legend in legends.items():
        mine = [t for t in facts.turns if t.car == car]
        whole, one_by_one, halves = Tally(legend=legend), Tally(legend=legend), Tally(legend=legend)
        whole.add_turns(mine)
        for t in mine:
            one_by_one.add(t)
        second = Tally(legend=legend)
        halves.add_turns(mine[: len(mine) // 2])
        second.add_turns(mine[len(mine) // 2 :])
        halves.merge(second)
        assert whole.to_dict() == one_by_one.to_dict() == halves.to_dict()
        assert whole.turns == len(mine) and whole.spaces == sum(t.end - t.start for t in mine)
