"""Sponsorship cards in a championship race (MODULES.md 21.4, 21.5, 21.7, MA18, MA30, MC7): dealt into the
starting hand before the deal, earned in a turn and drawn at once, used once and out of the game at step 9.
Races are set up by events exactly as a log would be."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from heatlog.engine import MalformedInput, apply
from heatlog.engine.decide import waiting_for
from heatlog.engine.modules.championship.rules import sponsor_deck
from heatlog.formats.garage_cards import sponsor_cards

from ..conftest import TRACK, Race, deck, ev
from .test_championship_events import block

BASE_SPONSORS = {c["id"]: c for c in sponsor_cards() if c["set"] == "base"}  # P80 … P84, 7 copies each
PRESS_TRACK: dict[str, Any] = copy.deepcopy(TRACK)
for _corner, _letter in zip(PRESS_TRACK["corners"], "ABCD", strict=True):
    _corner["press"] = _letter


def sponsor_block(number: int, carried: dict[str, list[str]] | None = None) -> dict[str, Any]:
    b = block(number)
    b["sponsors"] = {"deck": {t: 7 for t in BASE_SPONSORS}, "carried": carried or {}}
    return b


def sponsored(number: int, *, mode: str = "open", carried: dict[str, list[str]] | None = None) -> Race:
    start = ev(
        "race_started",
        track=PRESS_TRACK,
        laps=1,
        cars=[{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}],
        variant="standard",
        handicap=[],
        mode=mode,
        cards={t: {k: v for k, v in c.items() if k != "bga_type"} for t, c in BASE_SPONSORS.items()},
        modules=["championship"],
        championship=sponsor_block(number, carried),
    )
    race = Race(apply(None, start))
    race.log.append(start)
    race.ev("grid_set", order=["A", "B"])
    return race


def test_21_4_the_events_sponsorship_cards_are_dealt_before_the_deal() -> None:
    race = sponsored(1)  # event 1: 2 sponsorship cards each
    assert race.state.phase == "sponsors"
    w = waiting_for(race.state)
    assert (w.due, w.cars) == ("sponsor_drawn", ["A"]) and w.chance
    race.reject("sponsor_drawn", car="B", card="P80", rule="21.4")
    race.reject("sponsor_drawn", car="A", card="P86", error=MalformedInput)
    for name, card in (("A", "P80"), ("A", "P81"), ("B", "P81"), ("B", "P83")):
        race.ev("sponsor_drawn", car=name, card=card)
    assert race.state.phase == "deal"
    a = race.car("A")
    assert a.hand is not None and a.hand["P80"] == 1 and a.hand["P81"] == 1 and a.hand_size == 2
    order = deck()
    race.ev("deck_shuffled", car="A", order=order)
    race.reject("cards_drawn", car="A", cards=order[:7], rule="12.2")  # the hand is filled to 7, not 7 more
    race.ev("cards_drawn", car="A", cards=order[:5])
    assert sponsor_deck(race.state).supply["P81"] == 5


def test_21_4_event_10_deals_none_and_the_race_goes_straight_to_the_deal() -> None:
    race = sponsored(10)  # no sponsorship cards dealt (# 21.4: 0 for event 10)
    assert race.state.phase == "deal" and sponsor_deck(race.state) is not None


def test_MA7_cards_carried_from_earlier_races_are_in_the_deck_and_out_of_the_supply() -> None:
    race = sponsored(10, carried={"A": ["P82", "P82"]})
    a = race.car("A")
    assert a.pool["P82"] == 2 and a.deck_size == 21  # 18 + event 10's Stress + the 2 carried
    assert sponsor_deck(race.state).supply["P82"] == 5


def test_21_4_a_sponsored_race_without_the_garage_round_trips_its_position_and_plays_on() -> None:
    """A championship race with sponsorship cards and no Garage: its position carries the race's card definitions
    (as race_started.cards), reads back to itself, and a sponsorship card drawn after it is applied (it once
    failed with KeyError('P80'))."""
    import json

    from heatlog.engine import HeatlogError, state_from_position, state_to_position
    from heatlog.formats.positions import position_problems

    race = sponsored(1)
    race.ev("sponsor_drawn", car="A", card="P80")
    pos = json.loads(json.dumps(state_to_position(race.state)))
    assert list(position_problems(pos)) == []
    back = state_from_position(pos)
    assert json.loads(json.dumps(state_to_position(back))) == pos
    assert back.cars["A"].hand is not None and back.cars["A"].hand["P80"] == 1
    for st in (race.state, back):
        apply(st, ev("sponsor_drawn", car="A", card="P81"))
    assert state_to_position(back) == state_to_position(race.state)
    with pytest.raises(HeatlogError, match="sponsorship card"):  # refused, named: never a raw KeyError
        apply(back, ev("sponsor_drawn", car="B", card="P99"))


def test_21_4_a_race_started_from_a_sponsored_position_keeps_its_cards() -> None:
    """race_started.position of such a race, with or without its modules named: the sponsorship cards are the
    position's, a card drawn is applied; a cards block that defines other cards is refused, named."""
    import json

    from heatlog.engine import MalformedInput, state_to_position

    race = sponsored(1)
    race.ev("sponsor_drawn", car="A", card="P80")
    pos = json.loads(json.dumps(state_to_position(race.state)))
    start = race.log[0]
    same = {"track": start["track"], "laps": 1, "cars": start["cars"], "variant": "standard", "handicap": []}
    named = {"modules": ["championship"], "championship": start["championship"]}
    for extra in ({}, named):
        st = apply(None, ev("race_started", **same, mode="open", position=pos, **extra))
        apply(st, ev("sponsor_drawn", car="A", card="P81"))
        assert st.cars["A"].hand is not None and st.cards.tokens == race.state.cards.tokens
    other = {"P80": start["cards"]["P80"]}
    try:
        apply(None, ev("race_started", **same, mode="open", position=pos, cards=other, **named))
    except MalformedInput as err:
        assert "position's cards" in str(err)
    else:
        raise AssertionError("a cards block that does not match the position's cards was accepted")
