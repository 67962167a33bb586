"""Seasons, third pass (issue 29): the season page says what a Garage season applies, who is champion and how a
tie on points is broken; ``season new`` refuses a Legend as a driver."""

from __future__ import annotations

from pathlib import Path

import pytest

from heatlog.engine import MalformedInput
from heatlog.racelog import RaceLog
from heatlog.season import new_season, season_view, simulate_season
from heatlog.views.season_html import render_season_html


def test_the_season_page_of_a_garage_season_lists_sponsors_as_applied_and_names_the_champion(tmp_path: Path) -> None:
    # issue 29 bug 13 (# 21.4-21.10): a Garage season applies the sponsorship cards and press corners; the finished
    # season's page names the champion and says how a tie on points is broken
    log = RaceLog(tmp_path / "s.db")
    season = simulate_season(log, races=[("usa", 1), ("italy", 2)], cars=3, seed=2, garage={"upgrades": "basic"})
    view = season_view(log, season)
    page = render_season_html(view)
    notes = page[page.index("Not applied by heatlog yet") :]
    assert "sponsorship card" not in notes and "press corner" not in notes
    first = view.tables[-1][0]
    assert '<p class="champion">Champion: ' in page and f"{first.name}</p>" not in page
    assert f"</span>{first.name} with {first.points} point" in page
    level = [s for s in view.tables[-1] if sum(t.points == s.points for t in view.tables[-1]) > 1]
    assert ("the place in the last race run breaks the tie (# 21.10)" in page) == bool(level)
    # the tie-break rule is said whether or not anybody is level (issue 29, bug 13)
    assert "drivers level on points are ordered by their place in the last race run (# 21.10, MA12)" in page


def test_a_season_without_the_garage_still_lists_the_sponsorship_cards_it_does_not_apply(tmp_path: Path) -> None:
    log = RaceLog(tmp_path / "s.db")
    season = simulate_season(log, races=[("usa", 1)], cars=2, seed=1)
    page = render_season_html(season_view(log, season))
    assert "sponsorship card" in page[page.index("Not applied by heatlog yet") :]


@pytest.mark.parametrize("car", ["legend:black", "Legend:Black"])
def test_season_new_refuses_a_legend_as_a_driver(tmp_path: Path, car: str) -> None:
    # issue 29 bug 14 (# 19.1): "legend:black" is the recorder's way to add a Legend to a race; a season's drivers
    # are people (a solo season against Legends is its own option), so it is refused naming the option typed
    from typer.testing import CliRunner

    from heatlog.cli import app

    db = tmp_path / "s.db"
    result = CliRunner().invoke(
        app, ["season", "new", "--published", "1961", "--car", "Ann:red", "--car", car, "--db", str(db)]
    )
    assert result.exit_code != 0
    assert f"--car {car}" in result.output and "Legend" in result.output
    log = RaceLog(db)
    with pytest.raises(MalformedInput):
        new_season(log, drivers=[{"name": "Ann", "colour": "red"}, {"name": "legend", "colour": "black"}])
