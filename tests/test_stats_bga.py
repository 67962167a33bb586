"""BGA's end-of-race list per car in ``stats`` (issue 28, item 7): start position, rounds in each gear,
adrenaline rounds and +1 moves, two-gear shifts up and down, cards discarded, Heat left in the Engine."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from heatlog.engine import replay
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
    assert {"start_position", "engine_left", "rounds_in_gear_1", "rounds_in_gear_4", "adrenaline_rounds",
            "two_gear_shifts_up", "cards_discarded"} <= set(rows[0])
    text = run("stats", "--race", "1", db=db).stdout
    for label in ("Start position", "Rounds in gear", "Adrenaline rounds", "2-gear shifts", "Cards discarded",
                  "Heat left in"):  # (a label may wrap in its cell)
        assert label in text
