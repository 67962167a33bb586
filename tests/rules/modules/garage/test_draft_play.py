"""Whole drafts played by the world and the bots (# 18.5): every draft method, seeded, ends with three upgrades
each drawn from the Garage deck; the same seed gives the same draft."""

from __future__ import annotations

import random

import pytest

from heatlog.engine.cards import HEAT
from heatlog.engine.modules.garage.bots import best_pick, upgrade_value, worst_card
from heatlog.engine.modules.garage.cards import Draft, GarageOptions, garage_deck
from heatlog.formats.garage_cards import garage_cards, race_block
from heatlog.simulate.garage import garage_chance

CARS = ("Red", "Blue", "Green", "Yellow")


def play_draft(method: str, upgrades: str, seed: int) -> tuple[Draft, list[dict]]:
    options = GarageOptions(upgrades=upgrades, draft=method)
    cards = race_block(options)
    draft = Draft.start(method, CARS, garage_deck(garage_cards(), options))
    rng = random.Random(seed)
    log = []
    while not draft.done:
        ev = garage_chance(draft, rng)
        if ev is None:
            due, cars = draft.waiting()
            car = cars[0]
            if due == "upgrade_picked":
                assert draft.market is not None
                choices = [c for c, n in draft.market.items() if n]
                ev = {"type": due, "v": 1, "car": car, "card": best_pick(choices, cards, draft.owned[car])}
            else:
                ev = {"type": due, "v": 1, "car": car, "card": worst_card(draft.owned[car], cards)}
        draft.apply(ev)
        log.append(ev)
    return draft, log


@pytest.mark.parametrize("method", ["random", "draft", "snake"])
@pytest.mark.parametrize("upgrades", ["basic", "advanced", "all"])
def test_18_5_a_whole_draft_gives_three_upgrades_each(method, upgrades):
    draft, log = play_draft(method, upgrades, seed=11)
    assert all(len(v) == 3 for v in draft.owned.values())
    full = garage_deck(garage_cards(), GarageOptions(upgrades=upgrades))
    taken = [c for v in draft.owned.values() for c in v] + draft.removed
    for card in set(taken):
        assert taken.count(card) <= full[card]  # 18.3: never more than the deck's copies
    markets = [e for e in log if e["type"] == "garage_market"]
    assert len(markets) == {"random": 0, "draft": 3, "snake": 2}[method]
    assert play_draft(method, upgrades, seed=11)[1] == log  # deterministic
    assert play_draft(method, upgrades, seed=12)[1] != log


def test_the_heuristic_values_cards_sensibly():
    cards = race_block(GarageOptions(upgrades="all"))
    assert upgrade_value(None) < upgrade_value(cards["U12"])  # a Heat card is worth less than any upgrade
    assert upgrade_value(cards["U42"]) > upgrade_value(cards["U13"])  # Turbo 7 (heat 2, cool 3) > Cooling 3
    assert best_pick(["U8", "U11", HEAT], cards) == "U11"  # Cooling system 6 over Brakes 1/3
    assert best_pick([HEAT, HEAT], cards) == HEAT
    assert worst_card(["U1", HEAT, "U5"], cards) == HEAT
