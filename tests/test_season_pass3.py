"""Seasons, third pass (issue 29): the season page says what a Garage season applies, who is champion and how a
tie on points is broken; ``season new`` refuses a Legend as a driver."""

from __future__ import annotations

from pathlib import Path

import pytest

from heatlog.engine import MalformedInput
from heatlog.log.racelog import RaceLog
from heatlog.season import new_season, season_view, simulate_season
from heatlog.views.season_html import render_season_html


def test_the_season_page_of_a_garage_season_lists_sponsors_as_applied_and_names_the_champion(tmp_path: Path) -> None:
    # issue 29 bug 13 (# 21.4-21.10): a Garage season applies the sponsorship cards and press corners; the finished
    # season's page names the champion and says how a tie on points is broken
    log = RaceLog(tmp_path / "s.db")
    season = simulate_season(
        log, races=[("usa", 1), ("italy", 2)], cars=3, seed=2, modules={"garage": {"upgrades": "basic"}}
    )
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


LONG_COLOUR = "r" * 200
SEVEN_COLOURS = ["red", "blue", "green", "yellow", "black", "gray", "pink"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--published", "1999", "--car", "A:red", "--car", "B:blue"], "--published 1999: not a published season"),
        (["--race", "usa:99", "--car", "A:red", "--car", "B:blue"], "--race usa:99: unknown event card 99"),
        (["--race", "usa:1", "--race", "mars:1", "--car", "A:red", "--car", "B:blue"], "--race mars:1: unknown track"),
        (["--published", "1961", "--car", "A:red", "--car", "a:blue"], "--car a:blue: 'a' differs from 'A' only"),
        (["--published", "1961", "--car", "A:red", "--car", "A:blue"], "--car A:blue: 'A' is the name of another"),
        (["--published", "1961", "--car", "A:red", "--car", "B:RED"], "--car B:RED: 'RED' is the colour of 'A'"),
        (["--published", "1961", "--car", "A:red", "--car", f"B:{LONG_COLOUR}"], f"--car B:{LONG_COLOUR}: the colour"),
        (["--published", "1961", "--car", "A b:red", "--car", "B:blue"], "--car A b:red: the name 'A b' holds a space"),
        (["--published", "1961", "--car", "A:red", "--car", "B:blue", "--name", ""], "--name '' is empty"),
        (
            ["--published", "1961", "--car", "A:red", "--car", "B:blue", "--legends", "5"],
            "--legends 5: 2 drivers and 5 Legends; at most 6 cars race",
        ),
        (
            ["--published", "1961", "--car", "A:red", "--car", "B:blue", "--garage", "basic", "--draft-order", "x"],
            "--draft-order x: choose lowest_first or leader_first",
        ),
        (
            ["--published", "1961", *(f"--car={n}:{c}" for n, c in zip("ABCDEFG", SEVEN_COLOURS, strict=True))],
            "--car G:pink: a season has at most 6 drivers",
        ),
    ],
)
def test_season_new_refusals_name_the_option_as_typed(tmp_path: Path, args: list[str], said: str) -> None:
    # issue 29 bug 16: season new named the season's fields ("unknown season '1999'", "draft order 'x'",
    # "season_started: … drivers[1].colour: …") where record --new and new name the option typed; two drivers
    # of one colour made a season whose every race was then refused (race_started: each car its own colour)
    from typer.testing import CliRunner

    from heatlog.cli import app

    db = tmp_path / "s.db"
    result = CliRunner().invoke(app, ["season", "new", *args, "--db", str(db)])
    assert result.exit_code == 1
    assert f"Error: not understood: {said}" in result.output.replace("\n", ""), result.output
    assert "season_started" not in result.output and "drivers[" not in result.output
    assert not db.exists()  # nothing written


def test_simulate_season_refusals_name_its_own_options(tmp_path: Path) -> None:
    # the same checks, named as simulate takes them: --season NAME and --cars N (not season new's --car)
    from typer.testing import CliRunner

    from heatlog.cli import app

    runner = CliRunner()
    db = tmp_path / "s.db"
    unknown = runner.invoke(app, ["simulate", "--season", "1999", "--cars", "2", "--db", str(db)])
    assert "--season 1999: not a published season" in unknown.output and "--published" not in unknown.output
    alone = runner.invoke(app, ["simulate", "--season", "1961", "--cars", "1", "--db", str(db)])
    assert "--cars 1: a season has 2 to 6 drivers" in alone.output and "--car NAME" not in alone.output
    assert not db.exists()


def test_21_2_a_season_drafts_picks_may_be_typed_at_once_in_pick_order() -> None:
    # issue 29 (a season race <= 130 answers): one answer for the round's picks left, the first picker's first;
    # more cards than picks left are refused naming who picks; a Garage race's own draft still asks one by one
    from heatlog.engine.modules.championship.rules import ChampionshipDraft
    from heatlog.formats.garage_cards import garage_cards
    from heatlog.recorder.garage import draft_events, draft_prompt

    Draft = ChampionshipDraft.__bases__[0]  # the Garage race's own draft

    cards = {c["id"]: c for c in garage_cards()}
    deck = {t: 2 for t in ("U1", "U4", "U5", "U7", "U9", "U12")}
    draft = ChampionshipDraft.begin(("Ann", "Bob", "Cy"), ("Cy", "Bob", "Ann"), deck, {})
    draft.apply({"type": "garage_market", "v": 1, "round": 1, "cards": list(deck)})
    prompt, car, _ = draft_prompt(draft, cards)
    assert car == "Cy" and prompt.endswith("(then Bob Ann: their picks may follow, in order)")
    events = draft_events(draft, cards, "4wd4 body3", "Cy")
    assert [(e["car"], e["card"]) for e in events] == [("Cy", "U1"), ("Bob", "U4")]
    with pytest.raises(ValueError, match=r"^3 picks are left \(Cy, Bob, Ann\), not 4$"):
        draft_events(draft, cards, "4wd4 body3 body5 brakes1234", "Cy")
    garage = Draft.start("draft", ("Ann", "Bob"), deck)
    garage.apply({"type": "garage_market", "v": 1, "round": 1, "cards": list(deck)[:5]})
    assert "then" not in draft_prompt(garage, cards)[0]
    with pytest.raises(ValueError, match="name one card"):
        draft_events(garage, cards, "4wd4 body3", "Ann")


def test_season_show_of_a_finished_season_names_the_champion_and_any_tie(tmp_path: Path) -> None:
    # issue 29 bug 13, checked by hand: the season page named the champion, season show in the terminal did not
    from typer.testing import CliRunner

    from heatlog.cli import app

    db = tmp_path / "s.db"
    log = RaceLog(db)
    season = simulate_season(log, races=[("usa", 1)], cars=3, seed=2)
    first = season_view(log, season).tables[-1][0]
    log.close()
    shown = CliRunner().invoke(app, ["season", "show", str(season), "--db", str(db)], env={"COLUMNS": "120"})
    assert f"Champion: {first.name} with {first.points} points (# 21.10)" in shown.output, shown.output
