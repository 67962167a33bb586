"""Issue 29, bug 15: a season race finished by bots (``heatlog play-on``) counts in the standings as the rules say
(# 21.10: its Hall of Fame is its result) and is marked everywhere it is shown: ``races``, ``season show`` (text
and JSON), the season page and ``stats --season``. Fails without the fix: nothing in the race's log said who
played it, and nothing marked it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heatlog.analysis.playon import play_on
from heatlog.cli import app
from heatlog.engine import MalformedInput
from heatlog.log.played_by import played_on
from heatlog.log.racelog import RaceLog
from heatlog.season import new_season, next_race, season_view
from heatlog.views.season_html import render_season_html

DRIVERS = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}]


def _season_with_a_race_played_on(db: Path) -> tuple[int, int]:
    log = RaceLog(db)
    season = new_season(log, drivers=DRIVERS, races=[("usa", 7), ("italy", 2)], mode="open")
    race = next_race(log, season, seed=1)
    play_on(log, race, bots={"Ann": "heuristic", "Bob": "random"}, seed=3)
    return season, race


def test_play_on_marks_the_race_in_its_own_log(tmp_path: Path) -> None:
    season, race = _season_with_a_race_played_on(tmp_path / "s.db")
    log = RaceLog(tmp_path / "s.db")
    mark = played_on(e.event for e in log.effective(race).entries)
    assert mark is not None and mark.bots == {"Ann": "heuristic", "Bob": "random"} and mark.round == 0
    view = season_view(log, season)
    sr = view.races[0]
    # # 21.10: it counts, as its Hall of Fame says
    assert sr.result is not None and view.tables and sr.how == "bots" and "bots" in sr.how_words()
    assert sum(s.points for s in view.tables[-1]) == 9 + 6


def test_every_view_of_the_season_marks_the_race_played_on(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    season, race = _season_with_a_race_played_on(db)
    runner = CliRunner()
    text = runner.invoke(app, ["season", "show", str(season), "--db", str(db)])
    assert text.exit_code == 0 and "played by bots" in text.output and "race 1: played by bots" in text.output
    data = json.loads(runner.invoke(app, ["season", "show", str(season), "--json", "--db", str(db)]).output)
    assert data["races"][0]["recorded"] == "bots" and data["races"][0]["played_on"]["bots"]["Bob"] == "random"
    assert data["races"][1]["recorded"] is None
    stats = json.loads(runner.invoke(app, ["stats", "--season", str(season), "--json", "--db", str(db)]).output)
    assert stats["season_races_run"] == [{"index": 1, "race": race, "recorded": "bots", "mark": "played by bots"}]
    shown = runner.invoke(app, ["stats", "--season", str(season), "--db", str(db)])
    assert "R1: played by bots" in shown.output
    listed = json.loads(runner.invoke(app, ["races", "--json", "--db", str(db)]).output)
    assert [r["played_on"] for r in listed if r["id"] == race] == [0]
    page = render_season_html(season_view(RaceLog(db), season))
    assert 'data-race="1" data-recorded="bots"' in page and "race 1 (USA): played by bots" in page


def test_a_race_recorded_at_the_table_has_no_mark(tmp_path: Path) -> None:
    from heatlog.season import simulate_season

    log = RaceLog(tmp_path / "s.db")
    season = simulate_season(log, races=[("usa", 7)], cars=2, seed=1)
    view = season_view(log, season)
    assert view.races[0].how == "table" and view.races[0].how_words() == ""
    assert 'class="marks"' not in render_season_html(view)


@pytest.mark.parametrize("bots", [{"Zed": "heuristic"}, {"Ann ": "x"}, {"Ann": ""}, {}])
def test_a_bots_note_naming_no_car_of_the_race_is_refused_at_the_door(tmp_path: Path, bots: dict[str, str]) -> None:
    from heatlog.engine.errors import HeatlogError

    log = RaceLog(tmp_path / "s.db")
    season = new_season(log, drivers=DRIVERS, races=[("usa", 7)], mode="open")
    race = next_race(log, season, seed=1)
    before = len(log.store.events(race))
    with pytest.raises((MalformedInput, HeatlogError)):
        log.append(race, {"type": "note", "v": 1, "text": "bots", "round": 0, "bots": bots})
    assert len(log.store.events(race)) == before
