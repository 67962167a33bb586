"""BGA's end-of-race list per car in ``stats`` (issue 28, item 7): start position, rounds in each gear,
adrenaline rounds and +1 moves, two-gear shifts up and down, cards discarded, Heat left in the Engine."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from heatlog.engine import apply, replay
from tests.test_cli import run


def test_stats_gives_the_end_of_race_list_in_json_csv_and_the_table(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert run("simulate", "--cars", "4", "--seed", "7", "--workers", "1", db=db).returncode == 0
    data = json.loads(run("stats", "--race", "1", "--json", db=db).stdout)
    events = [json.loads(x) for x in run("export", "--race", "1", db=db).stdout.splitlines()]
    final = replay(events)
    grid = next(ev for ev in events if ev["type"] == "grid_set")["order"]  # # 1.4
    for c in data["cars"]:
        assert sum(c["rounds_in_gear"].values()) == c["turns"]
        assert 0 <= c["adrenaline"]["moves"] <= c["adrenaline"]["rounds"] <= c["turns"]
        assert c["engine_left"] == final.cars[c["car"]].engine
        assert c["heat_paid"]["shifts"] == c["two_gear_shifts"]["up"] + c["two_gear_shifts"]["down"]  # # 3.2
        discarded = sum(len(ev["cards"]) for ev in events if ev["type"] == "cards_discarded" and ev["car"] == c["car"])
        assert c["cards_discarded"] == discarded
    assert sorted(c["start_position"] for c in data["cars"]) == [1, 2, 3, 4]
    assert [c["car"] for c in sorted(data["cars"], key=lambda c: c["start_position"])] == grid
    rows = list(csv.DictReader(io.StringIO(run("stats", "--race", "1", "--csv", db=db).stdout)))
    assert {
        "start_position",
        "engine_left",
        "rounds_in_gear_1",
        "rounds_in_gear_4",
        "adrenaline_rounds",
        "two_gear_shifts_up",
        "cards_discarded",
    } <= set(rows[0])
    text = run("stats", "--race", "1", db=db).stdout
    for label in (
        "Start position",
        "Rounds in gear",
        "Adrenaline rounds",
        "2-gear shifts",
        "Cards discarded",
        "Heat left in",
    ):  # (a label may wrap in its cell)
        assert label in text


def test_adrenaline_and_slipstream_spaces_are_what_those_moves_added(tmp_path: Path) -> None:
    """# 6.2: the adrenaline move adds one space; # 8.1: a slipstream two (more with a sector's bonus, MODULES.md
    20.12; fewer where the spaces ahead are full) — in the derived ``turns`` rows, checked against the car's
    progress before and after each such event (turns without a spinout: the corner check that closes the step
    puts a spinning car back, # 10.1), and summed in the stats (JSON, CSV, the table)."""
    import sqlite3

    db = tmp_path / "s.db"
    assert run("simulate", "--cars", "4", "--seed", "11", "--races", "2", "--workers", "1", db=db).returncode == 0
    assert run("turns", "--all", db=db).returncode == 0
    con = sqlite3.connect(db)
    checked = {"slipstream": 0, "adrenaline": 0}
    for race in (1, 2):
        events = [json.loads(x) for x in run("export", "--race", str(race), db=db).stdout.splitlines()]
        moved: dict[tuple[int, str], dict[str, int]] = {}
        state = None
        for ev in events:
            car = ev.get("car")
            before = state.cars[car].progress if state is not None and car in state.cars else 0
            state = apply(state, ev)
            kind = ev["type"]
            if (kind == "slipstream" and ev["taken"]) or (kind == "adrenaline" and ev["bonus"] == "move"):
                m = moved.setdefault((state.round, car), {"slipstream": 0, "adrenaline": 0})
                m[kind] += state.cars[car].progress - before
        assert state is not None and state.phase == "over"
        rows = con.execute(
            "select round, car, spinout, slipstream_taken, slipstream_spaces, adrenaline_move, adrenaline_spaces "
            "from turns where race = ?",
            (race,),
        ).fetchall()
        for rnd, car, spinout, taken, slip, adr_move, adr in rows:
            got = moved.get((rnd, car), {"slipstream": 0, "adrenaline": 0})
            assert (slip > 0) <= bool(taken) and (adr > 0) <= bool(adr_move)
            if not spinout:
                assert (slip, adr) == (got["slipstream"], got["adrenaline"]), (rnd, car)
                checked["slipstream"] += slip
                checked["adrenaline"] += adr
        data = json.loads(run("stats", "--race", str(race), "--json", db=db).stdout)
        for c in data["cars"]:
            mine = [r for r in rows if r[1] == c["car"]]
            assert c["slipstreams"]["spaces"] == sum(r[4] for r in mine)
            assert c["adrenaline"]["spaces"] == sum(r[6] for r in mine)
        header = next(csv.reader(io.StringIO(run("stats", "--race", str(race), "--csv", db=db).stdout)))
        assert {"slipstreams_spaces", "adrenaline_spaces"} <= set(header)
    assert checked["slipstream"] > 0 and checked["adrenaline"] > 0
    text = run("stats", "--race", "1", db=db).stdout
    assert "Slipstream spaces" in text and "Adrenaline spaces" in text
