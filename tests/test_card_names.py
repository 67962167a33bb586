"""People read card names, never the catalogue's codes (issue 29 bug 3): a turn's narration names every upgrade it
turned over or salvaged (``scraps 4 (2 Air intake 4 4 3)``, not ``(2 U26 4 3)``)."""

from __future__ import annotations

import re

import pytest
from recorder_races import explicit, outcome_lines

from heatlog.races import race_started_event
from heatlog.simulate.world import race_events, random_bot

CODE = re.compile(r"\b[UP]\d+\b")  # an upgrade's or a sponsorship card's token (# 18.2, 21.4)


@pytest.mark.parametrize("seed", [30, 33, 35])
def test_the_narration_of_a_garage_race_names_the_cards(seed: int) -> None:
    cars = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}]
    garage = {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}
    start = race_started_event(track="usa", cars=cars, variant="one-lap", mode="open", garage=garage)
    events = list(race_events(start, {c["name"]: explicit(random_bot) for c in cars}, seed))
    lines = outcome_lines(events)
    assert any("scraps" in x for x in lines)  # (the seeds turn upgrades over by a Scrap, # 18.12)
    assert [x for x in lines if CODE.search(x)] == []
