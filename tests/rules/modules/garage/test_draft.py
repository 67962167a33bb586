"""The Garage set-up (# 18.1, 18.3, 18.4, 18.5, MC2, MA13): options, the market, picks in order, the snake
draft's removal, random deals, and the decks built from the chosen upgrades."""

from __future__ import annotations

import pytest

from heatlog.engine import IllegalEvent, MalformedInput
from heatlog.engine.cards import HEAT, STRESS
from heatlog.engine.modules.garage.cards import (
    Draft,
    GarageOptions,
    draft_rounds,
    engine_heat,
    garage_deck,
    market_size,
    pick_order,
    starting_deck,
)
from heatlog.formats.garage_cards import garage_cards

GRID = ("Red", "Blue", "Green")  # starting order, pole first


def deck(upgrades: str = "basic") -> dict[str, int]:
    return garage_deck(garage_cards(), GarageOptions(upgrades=upgrades))


def market(n: int, start: int = 1) -> list[str]:
    return [f"U{t}" for t in range(start, start + n)]


def test_options_default_and_errors():
    assert GarageOptions.from_dict({}) == GarageOptions("basic", "draft", ())
    opts = GarageOptions.from_dict({"upgrades": "all", "draft": "snake", "expansions": ["tunnel-vision", "heavy-rain"]})
    assert opts.to_dict() == {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}
    for bad, words in (
        ({"upgrades": "pro"}, "upgrades must be"),
        ({"draft": "auction"}, "draft must be"),
        ({"expansions": ["rocky-road"]}, "expansions"),
        ({"expansions": ["heavy-rain", "heavy-rain"]}, "twice"),
        ({"speed": 1}, "unknown garage option"),
        ([], "must be an object"),
    ):
        with pytest.raises(ValueError, match=words):
            GarageOptions.from_dict(bad)


def test_18_5_market_sizes_and_rounds():
    # [004]: "4 cards each draft round" with one player; players + 3 in general; snake 2 x players + 3.
    assert [market_size("draft", n) for n in (1, 2, 6)] == [4, 5, 9]
    assert [market_size("snake", n) for n in (1, 2, 6)] == [5, 7, 15]
    assert (draft_rounds("random"), draft_rounds("draft"), draft_rounds("snake")) == (0, 3, 2)
    with pytest.raises(ValueError):
        market_size("random", 3)


def test_18_5_pick_orders():
    assert pick_order(GRID, "draft", 1) == ["Green", "Blue", "Red"]  # last car first
    assert pick_order(GRID, "draft", 2) == ["Red", "Blue", "Green"]  # first car first
    assert pick_order(GRID, "draft", 3) == ["Green", "Blue", "Red"]
    assert pick_order(GRID, "snake", 1) == ["Green", "Blue", "Red", "Red", "Blue", "Green"]
    assert pick_order(GRID, "snake", 2) == ["Red", "Blue", "Green", "Green", "Blue", "Red"]


def run(draft: Draft, events: list[dict]) -> Draft:
    for e in events:
        draft.apply(e)
    return draft


def test_18_5_a_full_draft():
    d = Draft.start("draft", GRID, deck())
    assert d.waiting() == ("garage_market", ())
    d.apply({"type": "garage_market", "round": 1, "cards": market(6)})
    assert d.waiting() == ("upgrade_picked", ("Green",))
    for car, card in (("Green", "U1"), ("Blue", "U2"), ("Red", "U3")):
        d.apply({"type": "upgrade_picked", "car": car, "card": card})
    assert d.waiting() == ("garage_market", ())
    d.apply({"type": "garage_market", "round": 2, "cards": market(6, 4)})
    assert d.waiting() == ("upgrade_picked", ("Red",))
    for car, card in (("Red", "U4"), ("Blue", "U5"), ("Green", "U6")):
        d.apply({"type": "upgrade_picked", "car": car, "card": card})
    # round 3: the leftovers of rounds 1 and 2 are out of the game; the deck still holds a second copy
    d.apply({"type": "garage_market", "round": 3, "cards": ["U1", "U2", "U3", "U10", "U11", "H"]})
    for car, card in (("Green", "H"), ("Blue", "U10"), ("Red", "U1")):
        d.apply({"type": "upgrade_picked", "car": car, "card": card})
    assert d.done
    assert d.owned == {"Red": ["U3", "U4", "U1"], "Blue": ["U2", "U5", "U10"], "Green": ["U1", "U6", HEAT]}
    with pytest.raises(IllegalEvent, match="draft is over"):
        d.apply({"type": "upgrade_picked", "car": "Red", "card": "U8"})


def test_18_5_picks_are_refused_out_of_order_or_off_the_market():
    d = Draft.start("draft", GRID, deck())
    d.apply({"type": "garage_market", "round": 1, "cards": market(6)})
    with pytest.raises(IllegalEvent, match="Green's pick") as err:
        d.apply({"type": "upgrade_picked", "car": "Red", "card": "U1"})
    assert err.value.rule == "18.5"
    with pytest.raises(IllegalEvent, match="not in the market"):
        d.apply({"type": "upgrade_picked", "car": "Green", "card": "U9"})
    with pytest.raises(MalformedInput, match="not a Garage card"):
        d.apply({"type": "upgrade_picked", "car": "Green", "card": "4"})
    with pytest.raises(IllegalEvent, match="waits for upgrade picked"):
        d.apply({"type": "garage_market", "round": 2, "cards": market(6)})
    d.apply({"type": "upgrade_picked", "car": "Green", "card": "U1"})
    assert d.owned["Green"] == ["U1"] and d.market == {f"U{t}": 1 for t in range(2, 7)} | {"U1": 0}


def test_18_3_18_5_markets_come_from_the_garage_deck():
    d = Draft.start("draft", GRID, deck())
    with pytest.raises(IllegalEvent, match="shows 6 cards, not 5"):
        d.apply({"type": "garage_market", "round": 1, "cards": market(5)})
    with pytest.raises(IllegalEvent, match="U20 is not in this race's Garage deck"):  # advanced, basic race
        d.apply({"type": "garage_market", "round": 1, "cards": market(5) + ["U20"]})
    with pytest.raises(IllegalEvent, match="U1 has only 2 left"):  # 18.3: two copies of each type
        d.apply({"type": "garage_market", "round": 1, "cards": ["U1", "U1", "U1", "U2", "U3", "U4"]})
    with pytest.raises(IllegalEvent, match="round 1, not 2"):
        d.apply({"type": "garage_market", "round": 2, "cards": market(6)})
    assert d.round == 0 and sum(d.deck.values()) == 34  # nothing changed


def test_18_5_a_market_recorded_by_size_only_leaves_an_upper_bound():
    d = Draft.start("draft", ("Red",), deck())
    d.apply({"type": "garage_market", "round": 1})
    assert not d.exact and d.market is None
    d.apply({"type": "upgrade_picked", "car": "Red", "card": "U9"})
    d.apply({"type": "garage_market", "round": 2})
    d.apply({"type": "upgrade_picked", "car": "Red", "card": "U9"})
    d.apply({"type": "garage_market", "round": 3})
    with pytest.raises(IllegalEvent, match="U9 has only 0 left"):
        d.apply({"type": "upgrade_picked", "car": "Red", "card": "U9"})


def test_18_5_snake_draft_picks_twice_a_round_then_each_car_gives_one_back():
    d = Draft.start("snake", ("Red", "Blue"), deck())
    d.apply({"type": "garage_market", "round": 1, "cards": market(7)})
    for car, card in zip(pick_order(("Red", "Blue"), "snake", 1), ("U1", "U2", "U3", "U4"), strict=True):
        d.apply({"type": "upgrade_picked", "car": car, "card": card})
    d.apply({"type": "garage_market", "round": 2, "cards": market(7, 8)})
    assert d.waiting() == ("upgrade_picked", ("Red",))
    for car, card in zip(("Red", "Blue", "Blue", "Red"), ("U8", "U9", "U10", "U11"), strict=True):
        d.apply({"type": "upgrade_picked", "car": car, "card": card})
    assert d.owned == {"Red": ["U2", "U3", "U8", "U11"], "Blue": ["U1", "U4", "U9", "U10"]}
    assert d.waiting() == ("upgrade_removed", ("Red", "Blue"))
    with pytest.raises(IllegalEvent, match="has no U1"):
        d.apply({"type": "upgrade_removed", "car": "Red", "card": "U1"})
    d.apply({"type": "upgrade_removed", "car": "Blue", "card": "U4"})  # any order: simultaneous
    with pytest.raises(IllegalEvent, match="already given back"):
        d.apply({"type": "upgrade_removed", "car": "Blue", "card": "U1"})
    d.apply({"type": "upgrade_removed", "car": "Red", "card": "U3"})
    assert d.done and d.owned == {"Red": ["U2", "U8", "U11"], "Blue": ["U1", "U9", "U10"]}
    assert d.removed == ["U4", "U3"]


def test_18_5_random_deal_three_each():
    d = Draft.start("random", GRID, deck())
    assert d.waiting() == ("upgrades_dealt", GRID)
    d.apply({"type": "upgrades_dealt", "car": "Blue", "cards": ["U1", "U1", "H"]})
    with pytest.raises(IllegalEvent, match="U1 has only 0 left"):
        d.apply({"type": "upgrades_dealt", "car": "Red", "cards": ["U1", "U2", "U3"]})
    with pytest.raises(IllegalEvent, match="3 upgrades"):
        d.apply({"type": "upgrades_dealt", "car": "Red", "cards": ["U2", "U3"]})
    with pytest.raises(IllegalEvent, match="already has"):
        d.apply({"type": "upgrades_dealt", "car": "Blue", "cards": ["U2", "U3", "U4"]})
    with pytest.raises(MalformedInput, match="no drafting car"):
        d.apply({"type": "upgrades_dealt", "car": "Pink", "cards": ["U2", "U3", "U4"]})
    d.apply({"type": "upgrades_dealt", "car": "Red", "cards": ["U2", "U3", "U4"]})
    d.apply({"type": "upgrades_dealt", "car": "Green", "cards": ["U5", "U6", "U7"]})
    assert d.done and d.owned["Blue"] == ["U1", "U1", HEAT]


def test_18_5_a_short_garage_deck_fills_the_market_with_what_is_left():
    d = Draft.start("draft", ("Red",), {"U1": 2, "U2": 2, "U3": 1})
    d.apply({"type": "garage_market", "round": 1, "cards": ["U1", "U1", "U2", "U3"]})
    d.apply({"type": "upgrade_picked", "car": "Red", "card": "U1"})
    assert d.next_market_size() == 1
    d.apply({"type": "garage_market", "round": 2, "cards": ["U2"]})


def test_18_4_the_draft_copy_is_independent():
    d = Draft.start("draft", GRID, deck())
    e = d.copy()
    e.apply({"type": "garage_market", "round": 1, "cards": market(6)})
    assert d.round == 0 and d.deck == deck()


def test_18_1_MC2_MA13_decks_from_the_drafted_upgrades():
    # 18.1, MC2: no 0, 5 or Heat Starting Upgrade; 12 Basic + upgrades + the circuit's Stress.
    built = starting_deck(["U7", "U20", HEAT], stress=3)
    assert len(built) == 18 and built.count(STRESS) == 3 and built.count(HEAT) == 1  # MA13: a drafted Heat card
    assert "0" not in built and "5" not in built
    assert sorted(c for c in built if c in "1234") == sorted("111222333444")
    assert engine_heat(6, handicap=False) == 6 and engine_heat(5, handicap=True) == 4
