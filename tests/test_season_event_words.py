"""Issue 29, build 5: the event card and the press corners in words, on the board (``heatlog show``, the HTML
replay) and on the season page: which corners are press corners this race (# 21.6: the card's letters; a
chicane's letter on its second line), what earns a card there (# 21.7; MA4: the limit with the road token) and
what the event card asks (# 21.8), each with its item."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heatlog.cli import app
from heatlog.engine.modules.championship.rules import press_lines
from heatlog.engine.modules.championship.words import asks, event_card_lines
from heatlog.formats.championship import event_card
from heatlog.formats.tracks import load_track
from heatlog.log.racelog import RaceLog
from heatlog.season import new_season, next_race, season_view, simulate_season
from heatlog.views.replay import load_replay
from heatlog.views.replay_html import render_html
from heatlog.views.season_html import render_season_html


@pytest.mark.parametrize("number", range(1, 19))
def test_every_event_card_is_said_with_its_items(number: int) -> None:
    card = event_card(number)
    said = asks(card)
    assert said and all(re.search(r"\(# [0-9A-Z.]+", line) for line in said)
    lines = event_card_lines(card, load_track("japan"))
    assert lines[0].startswith(f"event card {number}: {card.name} (# 21.8)")


def test_press_corner_words_follow_the_card() -> None:
    usa = load_track("usa")
    plain = event_card_lines(event_card(7), usa)  # event 7 (# 21.8): no special rule
    presses = press_lines(usa, event_card(7))
    assert len(plain) == 1 + len(presses)
    first = presses[0]
    assert f"press corner {first.press}" in plain[1] and f"Speed of {first.limit + 2} or more" in plain[1]
    below = event_card_lines(event_card(16), usa)  # event 16: only below the limit
    assert any("at a Speed below" in line for line in below[1:])
    two = event_card_lines(event_card(11), usa)  # event 11: two cards
    assert all("2 sponsorship cards at" in line for line in two[1:])


def test_the_board_the_replay_and_the_season_page_say_them(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    log = RaceLog(db)
    season = simulate_season(log, races=[("usa", 16)], cars=2, seed=1, modules={"garage": {"upgrades": "basic"}})
    view = season_view(log, season)
    race = view.races[0].race
    assert race is not None
    shown = CliRunner().invoke(app, ["show", "--race", str(race), "--db", str(db)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0 and "event card 16: Smile and wave" in shown.output
    assert "at a Speed below" in shown.output
    page = render_html(load_replay(log, race))
    lines = {c.after_space for c in press_lines(load_track("usa"), event_card(16))}
    marked = {int(m) for m in re.findall(r'data-after-space="(\d+)" data-limit="\d+"[^>]*data-press', page)}
    assert marked == lines and '<ul class="event-key">' in page
    season_page = render_season_html(view)
    assert 'data-race-event="1"' in season_page and "press corner" in season_page
    assert "event card 16: Smile and wave" in season_page


def test_only_a_championship_race_shows_its_event_card(tmp_path: Path) -> None:
    log = RaceLog(tmp_path / "s.db")
    season = new_season(
        log, drivers=[{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}], races=[("usa", 7)]
    )
    race = next_race(log, season, seed=1)
    page = render_html(load_replay(log, race))
    assert "event card 7" in page  # a v2 season's race is a championship race, Garage or not
    from heatlog.simulate import simulate_race

    other, _, _ = simulate_race(log, track="usa", cars=2, seed=1)
    assert '<ul class="event-key">' not in render_html(load_replay(log, other))
