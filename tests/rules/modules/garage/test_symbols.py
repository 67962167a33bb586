"""The Garage symbol rules as pure functions (# 18.6–18.25, MA1, MA2, MA17, MA28, MA29): what each answers.

These pin the rule questions the step machine asks; the scenario tests of whole Garage turns sit beside them.
"""

from __future__ import annotations

import pytest

from heatlog.engine import AmbiguousInput, MalformedInput
from heatlog.engine.cards import HEAT
from heatlog.engine.modules.garage.cards import (
    GarageOptions,
    Use,
    accelerate_bonus,
    adjusted_limit,
    bonus_subsets,
    card_named,
    completions,
    describe,
    draft_distance,
    legal_slipstream_totals,
    payable_choices,
    payable_count,
    plus_symbols,
    react_uses,
    slipstream_totals,
    speed_choices,
    speeds,
)
from heatlog.formats.garage_cards import race_block

ALL = race_block(GarageOptions(upgrades="all", expansions=("heavy-rain", "tunnel-vision")))


def test_18_6_MC3_a_multi_value_card_is_worth_exactly_one_printed_value():
    assert speeds(ALL["U7"]) == (1, 2, 3, 4) and speeds(ALL["U42"]) == (7,)
    assert speed_choices([ALL["U8"], ALL["U9"]]) == [(1, 2), (1, 4), (3, 2), (3, 4)]
    assert speed_choices([ALL["U1"]]) == [(4,)]


def test_18_8_a_numbered_boost_is_that_many_flips():
    assert [plus_symbols(ALL[t]) for t in ("U1", "U2", "U41", "U42")] == [1, 3, 2, 0]


def test_18_16_slipstream_bonuses_are_optional_and_separate():
    assert slipstream_totals([]) == [2]
    assert slipstream_totals([2]) == [2, 4]
    assert slipstream_totals([2, 1]) == [2, 3, 4, 5]
    assert slipstream_totals([3, 3]) == [2, 5, 8]
    assert bonus_subsets([2, 1], 4) == [(0,)] and bonus_subsets([1, 1], 3) == [(0,), (1,)]
    assert bonus_subsets([2], 3) == []


def test_MA17_the_final_lap_ban_is_on_the_chosen_total():
    # 8.6 on the total: a car 3 spaces before the final line may take 2 or 3, not 4 or 5.
    assert legal_slipstream_totals(progress=97, final_line=100, bonuses=[2, 1]) == [2, 3]
    assert legal_slipstream_totals(progress=99, final_line=100, bonuses=[2]) == []


def test_18_17_adjust_sums_with_road_tokens_and_has_no_floor():
    assert adjusted_limit(4, [ALL["U44"]["symbols"]["adjust"], ALL["U37"]["symbols"]["adjust"]]) == 7
    assert adjusted_limit(2, [-1], road_token=-1) == 0
    assert adjusted_limit(1, [-1, -1], road_token=-1) == -2


def test_18_20_MA2_accelerate_counts_every_plus_for_each_card():
    assert accelerate_bonus(plus_used=3, accelerators=1) == 3
    assert accelerate_bonus(plus_used=3, accelerators=2) == 6
    assert accelerate_bonus(plus_used=0, accelerators=1) == 0


def test_18_23_MA29_the_draft_landing_is_forced():
    # car on 10; next car ahead on 14: lands on 13 (d = 3) if the values allow 3 or more.
    assert draft_distance(10, [14, 20], values=3) == 3
    assert draft_distance(10, [14, 20], values=2) is None  # 18.23: up to N, and the landing is forced
    assert draft_distance(10, [11], values=3) is None  # d = 0: already behind a car
    assert draft_distance(10, [5, 10], values=5) is None  # MA29: nothing ahead
    assert draft_distance(10, [10, 12], values=1) == 1  # the car beside does not count


def test_18_11_MA1_pay_for_as_many_cards_as_the_engine_covers_cheapest_first():
    assert payable_count([1, 2], engine=2) == 1
    assert payable_choices([1, 2], engine=2) == [(0,), (1,)]  # the player chooses which
    assert payable_choices([2, 2, 1], engine=3) == [(0, 2), (1, 2)]
    assert payable_count([1, 1], engine=0) == 0 and payable_choices([1, 1], engine=0) == [()]
    assert payable_choices([1, 2], engine=5) == [(0, 1)]


def test_18_10_18_25_MA28_react_uses_of_the_play_area():
    play = ["3", "U42", "U19", "S"]  # Turbo charger 7 (heat 2, cooldown 3); Body 2 (reduce 1, cooldown 1, scrap 2)
    uses = react_uses(play, ALL)
    assert uses == [
        Use(1, "U42", "heat", 2, True),
        Use(1, "U42", "cooldown", 3, False),  # MA28: the card's cooldown may come before its cost
        Use(2, "U19", "scrap", 2, True),  # 18.12, 18.25: mandatory
        Use(2, "U19", "cooldown", 1, False),
        Use(2, "U19", "reduce", 1, False),
    ]
    # MA28: the other symbols of a Heat-cost card wait for its payment
    wings = react_uses(["U44"], ALL)
    assert [u.symbol for u in wings] == ["heat"]
    assert [u.symbol for u in react_uses(["U44"], ALL, paid=[0])] == ["scrap"]
    # 18.19: Direct Play is offered from the hand, never from the Play Area
    assert [u.symbol for u in react_uses(["U24"], ALL)] == ["scrap"]
    assert react_uses(["1", "2", HEAT], ALL) == []


def test_card_names_for_the_recorder():
    assert card_named("U7", ALL) == "U7" and card_named("brakes1234", ALL) == "U7"
    assert card_named("turbo8", ALL) == "U43" and card_named("Heat", ALL) == HEAT
    assert card_named("fuel0", ALL) == "U23"
    with pytest.raises(AmbiguousInput, match="brakes1234, brakes13"):
        card_named("brakes1", ALL)
    with pytest.raises(MalformedInput):
        card_named("spoiler", ALL)
    assert completions("tur", ALL) == ["turbo7", "turbo8"]
    assert "heat" in completions("", ALL)


def test_narration_names():
    assert describe(ALL["U7"]) == "Brakes (speed 1/2/3/4; heat 1)"
    assert describe(ALL["U36"]) == "Tires (speed 2; cooldown 3, adjust -1)"
    assert describe(ALL["U2"]) == "4 wheel drive (speed 0; +++)"
    assert describe(ALL["U9"]) == "Brakes (speed 2/4)"


def test_a_description_does_not_depend_on_the_order_symbols_are_stored_in():
    # A log stores its JSON with sorted keys: the narration must read the same from it (18.2).
    card = dict(ALL["U40"])
    stored = {**card, "symbols": dict(sorted(card["symbols"].items()))}
    assert describe(stored) == describe(card) == "Tires (speed 0; +, cooldown 1, slipstream 1, adjust +1)"
