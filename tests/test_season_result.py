"""Issue 29, build 3: a season race entered by its result. A group that played a season race without recording it
enters the finishing order and what the season needs (the draft, the sponsorship cards dealt, earned at press
corners and by the event card's condition, and used), checked by the rules before anything is written; the race
is marked "entered by result" everywhere, and the standings, the next race's set-up, the audit, export and import
treat it as the rules say (# 21.2, 21.4, 21.7, 21.10, 21.11, 21.12, MA7, MA21)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
    next_race,
    race_setup,
    season_events,
    season_view,
)
from heatlog.views.season_html import render_season_html

DRIVERS = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}, {"name": "Cy", "colour": "green"}]
# race 1 of 1961: Great Britain, event 1 (2 sponsorship cards each, # 21.4; the first three across after lap 1
# earn one, # 21.9; press corner A, # 21.6)
GOOD: dict[str, Any] = {
    "places": "Bob,Ann,Cy",
    "grid": "Ann,Bob,Cy",
    "market": "body5,body3,body1,cool6,rpm1,brakes13",
    "picks": ["Ann:body5", "Bob:body3", "Cy:body1"],
    "swap": "body1:cool6",
    "dealt": ["Ann:dramdo,lord", "Bob:fredo,fredo", "Cy:deangeli,lord"],
    "press": ["Bob:dramdo"],
    "event": ["Ann:lord"],
    "used": ["Ann:dramdo"],
}


def _garage_season(log: RaceLog) -> int:
    return new_season(log, drivers=DRIVERS, published="1961", modules={"garage": {"upgrades": "basic"}})


def test_a_garage_race_entered_by_result_gives_the_season_what_the_rules_say(tmp_path: Path) -> None:
    log = RaceLog(tmp_path / "s.db")
    season = _garage_season(log)
    index, entry = enter_result(log, season, **GOOD)
    assert (
        index == 1
        and entry["type"] == "race_result"
        and entry["draft"]["picks"]
        == {
            "Ann": "U5",
            "Bob": "U4",
            "Cy": "U6",
        }
    )
    view = season_view(log, season)
    sr = view.races[0]
    assert sr.by_result and sr.how == "result" and "entered by result" in sr.how_words() and sr.race is None
    # # 21.10: 9, 6, 4
    assert dict(sr.result.points) == {"Bob": 9, "Ann": 6, "Cy": 4} if sr.result else False
    # # 21.2: Cy picked first (last on the grid) and swapped body1 for cool6; # 21.11: the upgrades stay
    assert sr.upgrades == {"Ann": ["U5"], "Bob": ["U4"], "Cy": ["U11"]}
    # MA7: kept = dealt + earned - used; # 18.24: the card used is out of the supply
    assert sr.sponsors == {"Ann": ["P83", "P83"], "Bob": ["P80", "P81", "P81"], "Cy": ["P83", "P84"]}
    assert sr.sponsors_used == {"P80": 1}
    # the next race is set up from it: standings grid (# 21.12), the upgrades owned and the cards carried
    ev, grid = race_setup(view, 2)
    assert grid == ["Bob", "Ann", "Cy"]
    block = ev["championship"]
    assert block["garage"]["owned"] == {"Ann": ["U5"], "Bob": ["U4"], "Cy": ["U11"]}
    assert block["sponsors"]["carried"]["Bob"] == ["P80", "P81", "P81"] and block["sponsors"]["used"] == {"P80": 1}
    race = next_race(log, season)
    assert season_view(log, season).races[1].race == race
    assert audit_season(log, season) == []


def test_a_season_without_the_garage_takes_the_places_and_event_10_eliminations(tmp_path: Path) -> None:
    log = RaceLog(tmp_path / "s.db")
    season = new_season(log, drivers=DRIVERS, races=[("usa", 10), ("italy", 3)])
    with pytest.raises(HeatlogError, match="the last free place"):
        enter_result(log, season, places="Cy,Bob,Ann", eliminated="Bob")
    enter_result(log, season, places="Cy,Ann,Bob", eliminated="Bob")
    view = season_view(log, season)
    assert dict(view.races[0].result.points) == {"Cy": 9, "Ann": 6, "Bob": 0} if view.races[0].result else False
    # race 2 by result too: event 3 gives the winner 2 more (# 21.10); the standings grid is checked (# 21.12)
    with pytest.raises(HeatlogError, match="standings give the grid Cy, Ann, Bob"):
        enter_result(log, season, places="Ann,Cy,Bob", grid="Ann,Bob,Cy")
    enter_result(log, season, places="Ann,Cy,Bob", grid="Cy,Ann,Bob")
    view = season_view(log, season)
    assert view.over and [(s.name, s.points) for s in view.tables[-1]] == [("Ann", 17), ("Cy", 15), ("Bob", 4)]
    page = render_season_html(view)
    assert page.count('data-recorded="result"') == 2 and "Champion: " in page


BAD: list[tuple[dict[str, Any], str]] = [
    ({"places": "Bob,Ann"}, "Cy missing"),
    ({"places": "Bob,Ann,Ann,Cy"}, "Ann is listed twice"),
    ({"places": "Bob,Ann,Zed"}, "no car of the season is called Zed"),
    ({"places": "Bob,Ann,Cy", "eliminated": "Cy"}, "eliminates nobody"),
    ({"grid": "Ann,Bob"}, "the grid is every driver once"),
    ({"grid": None}, "give --grid"),
    ({"picks": ["Ann:body5", "Bob:body3"]}, "Cy picks next"),
    ({"picks": ["Ann:body5", "Bob:body3", "Cy:rpm3"]}, "--pick"),
    ({"picks": ["Ann:body", "Bob:body3", "Cy:body1"]}, "could be"),
    ({"picks": ["Zed:body5", "Bob:body3", "Cy:body1"]}, "no driver Zed"),
    ({"picks": ["Ann", "Bob:body3", "Cy:body1"]}, "NAME:CARD"),
    ({"swap": "body5:cool6"}, "--swap 'body5:cool6'"),
    ({"picks": ["Ann:body5", "Ann:body3", "Bob:body3", "Cy:body1"]}, "Ann picks one upgrade a race, not 2"),
    ({"swap": "cool6"}, "GIVE:TAKE"),
    ({"dealt": ["Ann:dramdo", "Bob:fredo,fredo", "Cy:deangeli,lord"]}, "Ann was dealt 1"),
    ({"press": ["Bob:dramdo,dramdo,lord"]}, "at most 2 press-corner cards"),
    ({"event": ["Ann:lord,lord"]}, "first 3 across the line"),
    ({"used": ["Cy:dramdo"]}, "Cy held no dramdo"),
    ({"dealt": ["Ann:dramdo,lord", "Bob:fredo,fredo", "Cy:deangeli,nope"]}, "no Garage card called 'nope'"),
    ({"places": "Bob,Ann,Cy\x1b[31m"}, "--places: "),
    ({"places": "x" * 5000}, "too long"),
    ({"places": ",,, ::"}, "--places: "),
    ({"pick": None, "picks": ["Ann:" + "é" * 3000]}, "too long"),
]


@pytest.mark.parametrize(("change", "said"), BAD)
def test_a_refused_result_names_what_is_wrong_and_writes_nothing(
    tmp_path: Path, change: dict[str, Any], said: str
) -> None:
    log = RaceLog(tmp_path / "s.db")
    season = _garage_season(log)
    before = season_events(log, season)
    typed = {k: v for k, v in {**GOOD, **change}.items() if v is not None and k != "pick"}
    with pytest.raises(HeatlogError) as err:
        enter_result(log, season, **typed)
    assert said in str(err.value) and "season 1 (1961), race 1 of the season (Great Britain)" in str(err.value)
    assert season_events(log, season) == before


def test_the_cli_enters_a_result_and_every_view_marks_it(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    runner = CliRunner()
    made = runner.invoke(
        app, ["season", "new", "--published", "1961", "--car", "Ann:red", "--car", "Bob:blue", "--db", str(db)]
    )
    assert made.exit_code == 0
    refused = runner.invoke(app, ["season", "result", "1", "--places", "Ann", "--db", str(db)])
    assert refused.exit_code != 0 and "Bob missing" in refused.output and "Traceback" not in refused.output
    ok = runner.invoke(app, ["season", "result", "1", "--places", "Bob,Ann", "--db", str(db)])
    assert ok.exit_code == 0 and "entered by result: Bob 9, Ann 6" in ok.output
    data = json.loads(runner.invoke(app, ["season", "show", "1", "--json", "--db", str(db)]).output)
    assert data["races"][0]["recorded"] == "result" and data["races"][0]["places"] == ["Bob", "Ann"]
    stats = json.loads(runner.invoke(app, ["stats", "--season", "1", "--json", "--db", str(db)]).output)
    assert stats["season_races_run"][0]["recorded"] == "result" and stats["standings"][0]["driver"] == "Bob"
    hostile = runner.invoke(app, ["season", "result", "1", "--places", "[red]x[/red],\x00", "--db", str(db)])
    assert hostile.exit_code != 0 and "internal error" not in hostile.output


def test_export_and_import_keep_a_result_and_check_it_again(tmp_path: Path) -> None:
    log = RaceLog(tmp_path / "s.db")
    season = _garage_season(log)
    enter_result(log, season, **GOOD)
    text = export_season(log, season)
    other = RaceLog(tmp_path / "t.db")
    copy = import_season(other, text)
    assert season_view(other, copy).races[0].sponsors == season_view(log, season).races[0].sponsors
    # a result written past the door (an upgrade nobody could pick) is refused on import, nothing written
    lines = [json.loads(line) for line in text.splitlines()]
    for line in lines:
        if line["event"].get("type") == "race_result":
            line["event"]["draft"]["picks"]["Ann"] = "U99"
    bad = "".join(json.dumps(line) + "\n" for line in lines)
    third = RaceLog(tmp_path / "u.db")
    with pytest.raises(HeatlogError):
        import_season(third, bad)
