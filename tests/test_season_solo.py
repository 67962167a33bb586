"""Issue 29, build 4: a solo championship against Legends (# 19.16): one driver, Legends filling the grid, in
``season new`` and ``simulate --season``. The Legends race and score (# 21.10), stand in the standings and so on
the next grid (# 21.12), and never draft nor take sponsorship cards (# 19.10, 19.12)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heatlog.cli import app
from heatlog.engine.errors import HeatlogError
from heatlog.log.racelog import RaceLog
from heatlog.season import (
    audit_season,
    enter_result,
    export_season,
    import_season,
    new_season,
    season_view,
    simulate_season,
)
from heatlog.views.season_html import render_season_html

ANN = [{"name": "Ann", "colour": "red"}]


def test_a_simulated_solo_garage_season_against_legends(tmp_path: Path) -> None:
    log = RaceLog(tmp_path / "s.db")
    season = simulate_season(
        log,
        races=[("usa", 1), ("italy", 11)],
        cars=1,
        modules={"garage": {"upgrades": "basic"}, "legends": {"cars": 3}},
        seed=4,
    )
    view = season_view(log, season)
    legends = [c["name"] for c in view.module_cars]
    assert len(legends) == 3 and view.over and audit_season(log, season) == []
    # # 21.10: every car scores, the Legends too, and stands in the standings
    assert sorted(s.name for s in view.tables[-1]) == sorted(["Red", *legends])
    assert sum(s.points for s in view.tables[0]) == 9 + 6 + 4 + 3
    # # 19.12: only the driver drafts: one upgrade a race (# 21.2); no Legend owns a card (# 19.10)
    assert view.races[-1].upgrades.keys() == {"Red"} and len(view.races[-1].upgrades["Red"]) == 2
    # # 21.12: the next grid is the standings, Legends included
    race2 = view.races[1].race
    assert race2 is not None
    grid = next(e.event["order"] for e in log.effective(race2).entries if e.event["type"] == "grid_set")
    assert grid == [s.name for s in view.tables[0]] and grid != ["Red", *legends]
    page = render_season_html(view)
    assert "1 driver against 3 Legends" in page and all(f'data-driver="{n}"' in page for n in legends)
    copy = import_season(RaceLog(tmp_path / "t.db"), export_season(log, season))
    assert season_view(RaceLog(tmp_path / "t.db"), copy).tables[-1] == view.tables[-1]


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"drivers": ANN}, "one driver: add --legends N"),
        ({"drivers": ANN, "modules": {"legends": {"cars": 6}}}, "0 to 5 Legend cars"),
        (
            {
                "drivers": ANN * 0 + [{"name": f"D{i}", "colour": c} for i, c in enumerate(["red", "blue", "green"])],
                "modules": {"legends": {"cars": 4}},
            },
            "at most 6 cars",
        ),
        ({"drivers": ANN, "modules": {"legends": {"pro": 2}}}, "add --legends N"),
        ({"drivers": ANN, "modules": {"legends": {"cars": 1, "pro": 9}}}, "--pro"),
        ({"drivers": ANN, "modules": {"legends": {"cars": True}}}, "--legends"),
        (
            {"drivers": [{"name": "Legend-Black", "colour": "red"}], "modules": {"legends": {"cars": 1}}},
            "name of a Legend",
        ),
    ],
)
def test_season_new_refuses_what_no_solo_season_is(tmp_path: Path, kwargs: dict, said: str) -> None:
    log = RaceLog(tmp_path / "s.db")
    with pytest.raises(HeatlogError, match=None) as err:
        new_season(log, published="1961", **kwargs)
    assert said in str(err.value)


def test_a_solo_race_entered_by_result_places_the_legends_too(tmp_path: Path) -> None:
    log = RaceLog(tmp_path / "s.db")
    season = new_season(log, drivers=ANN, races=[("usa", 7)], modules={"legends": {"cars": 2}})
    legends = [c["name"] for c in season_view(log, season).module_cars]
    with pytest.raises(HeatlogError, match="missing"):
        enter_result(log, season, places="Ann")
    enter_result(log, season, places=",".join([legends[0], "Ann", legends[1]]))
    view = season_view(log, season)
    assert view.over and view.tables[-1][0].name == legends[0] and view.tables[-1][1].points == 6


def test_the_cli_makes_and_simulates_a_solo_season(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    runner = CliRunner()
    made = runner.invoke(
        app, ["season", "new", "--published", "1961", "--car", "Ann:red", "--legends", "5", "--db", str(db)]
    )
    assert made.exit_code == 0, made.output
    data = json.loads(runner.invoke(app, ["season", "show", "1", "--json", "--db", str(db)]).output)
    assert len(data["options"]["legends"]["cars"]) == 5
    refused = runner.invoke(app, ["season", "new", "--published", "1961", "--car", "Ann:red", "--db", str(db)])
    assert refused.exit_code != 0 and "--legends" in refused.output
    sim = runner.invoke(
        app,
        [
            "simulate",
            "--season",
            "1961",
            "--cars",
            "1",
            "--legends",
            "5",
            "--seed",
            "2",
            "--json",
            "--db",
            str(tmp_path / "sim.db"),
        ],
    )
    assert sim.exit_code == 0, sim.output
    out = json.loads(sim.output)
    assert out["over"] and len(out["standings"][-1]) == 6
