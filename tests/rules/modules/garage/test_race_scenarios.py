"""Garage races, turn by turn (# 18.1–18.27 and the readings they rely on): every symbol at its step.

The test track has 30 spaces; corner lines after spaces 10 (limit 4), 13 (3), 22 (5) and 26 (2). Car ``P`` is
parked far ahead (it plays a 1 in gear 1); car ``A`` is the one under test.
"""

from __future__ import annotations

from heatlog.engine import IllegalEvent, MalformedInput, waiting_for
from heatlog.engine.decide import decisions
from heatlog.engine.modules.garage import garage_record

from ...conftest import start_race
from .scenarios import PARK, full_deck, garage_board, garage_started, toks


def board(
    hand: str,
    *,
    gear: int = 1,
    engine: int = 6,
    deck: str = "4 1 2 3 4 1 2 3 4 1 2 3 4",
    at: int = 1,
    upgrades: str = "U1 U1 U2",
    discard: str = "",
    p_at: int = 29,
):
    return garage_board(
        {
            "P": {"at": p_at, "hand": PARK, "upgrades": "U13 U15 U16"},
            "A": {
                "at": at,
                "hand": hand,
                "gear": gear,
                "engine": engine,
                "deck": deck,
                "upgrades": upgrades,
                "discard": discard,
            },
        }
    )


def flip(race, spec: str) -> None:
    for card in spec.split():
        race.ev("card_flipped", car="A", card=card)


def play(race, a_cards: str, gear: int = 1):
    race.round(P=(1, ["1"]), A=(gear, toks(a_cards)))
    race.turns_until("A")
    return race


# ---------------------------------------------------------------------------------------------- set-up


def test_18_1_18_4_18_5_MC2_a_garage_race_is_set_up_by_events():
    race = garage_started(("A", "B"))
    race.ev("grid_set", order=["B", "A"])
    assert race.state.phase == "garage" and waiting_for(race.state).due == "upgrades_dealt"
    race.reject("deck_shuffled", car="B", order=full_deck([], []), rule=None)  # 18.4: the draft comes first
    race.ev("upgrades_dealt", car="B", cards=["U7", "U20", "H"])
    race.ev("upgrades_dealt", car="A", cards=["U1", "U1", "U42"])
    assert race.state.phase == "deal"
    b = race.car("B")
    # 18.1, MC2: 12 Basic + the three upgrades + the circuit's 3 Stress; no 0, 5 or Heat Starting Upgrade
    assert b.deck_size == 18 and b.pool["U7"] == b.pool["U20"] == 1 and b.pool["H"] == 1  # MA13
    assert b.pool["0"] == b.pool["5"] == 0 and b.pool["S"] == 3 and b.engine == 6
    race.reject("deck_shuffled", car="B", order=[*"111222333444", "0", "5", "H", "S", "S", "S"], rule="1.2")
    race.ev("deck_shuffled", car="B", order=full_deck(["U7", "U20", "H"], []))


def test_18_1_garage_events_are_refused_in_a_base_race():
    race = start_race(("A", "B"))
    race.reject("garage_market", round=1, cards=["U1"], rule="18.1")
    race.reject("heat_paid", car="A", cards=["U11"])


def test_18_5_a_draft_race_waits_for_the_market_then_picks_in_order():
    race = garage_started(("A", "B"), options={"upgrades": "basic", "draft": "draft"})
    race.ev("grid_set", order=["A", "B"])
    w = waiting_for(race.state)
    assert w.due == "garage_market" and w.chance
    race.ev("garage_market", round=1, cards=["U1", "U2", "U3", "U4", "U5"])
    assert waiting_for(race.state).cars == ["B"]  # round 1: the last car of the starting order first
    assert [d["card"] for d in decisions(race.state, "B")] == ["U1", "U2", "U3", "U4", "U5"]
    race.reject("upgrade_picked", car="A", card="U1", rule="18.5")
    race.ev("upgrade_picked", car="B", card="U3")


# ---------------------------------------------------------------------------------------------- step 3


def test_18_6_MC3_a_multi_value_card_is_worth_the_value_chosen_at_reveal():
    race = play(board("U8 2 1 1 1 1 1", upgrades="U8 U1 U1"), "U8 2", gear=2)
    w = waiting_for(race.state)
    assert w.due == "speed_chosen" and race.at("A")[0] == 1  # the car waits for the value
    assert [d["speed"] for d in decisions(race.state, "A")] == [1, 3]
    race.reject("speed_chosen", car="A", card="U8", speed=2, rule="18.6")
    race.ev("speed_chosen", car="A", card="U8", speed=3)
    assert race.turn.speed == 5 and race.at("A")[0] == 6


def test_18_6_the_value_may_be_chosen_after_the_stress_flip():
    race = play(board("U9 S 1 1 1 1 1", upgrades="U9 U1 U1", deck="3 4 4"), "U9 S", gear=2)
    assert waiting_for(race.state).due == "card_flipped"
    race.flip("A", "3")
    race.ev("speed_chosen", car="A", card="U9", speed=2)
    assert race.turn.speed == 5 and race.at("A")[0] == 6


def test_18_8_18_14_a_card_boost_is_that_many_free_flips_and_leaves_the_gear_boost():
    race = play(board("U2 1 1 1 1 1 1", upgrades="U2 U1 U1", deck="1 U5 2 3 4 4"), "U2")
    assert waiting_for(race.state).due == "card_flipped"
    flip(race, "1 U5 2 3")  # 18.9: the upgrade found is discarded, the flip goes on
    assert race.turn.speed == 6 and race.at("A")[0] == 7 and race.car("A").engine == 6  # 18.8: no Heat
    assert "U5" in race.car("A").discard
    assert any(d["type"] == "boost" for d in decisions(race.state, "A"))  # 18.14: the gear Boost is still there


def test_18_20_MA2_accelerate_counts_every_plus_including_a_later_boost():
    race = play(board("U47 1 1 1 1 1 1", upgrades="U47 U1 U1", deck="2 4 3"), "U47")
    race.flip("A", "2")
    assert waiting_for(race.state).due == "accelerated"
    race.ev("accelerated", car="A", card="U47", taken=True)
    assert race.turn.speed == 3 and race.at("A")[0] == 4  # 0 + 2 found + 1
    race.ev("boost", car="A")
    race.flip("A", "4")
    assert race.turn.speed == 8 and race.at("A")[0] == 9  # the boost's 4 + 1 (MA2)


def test_MC1_accelerate_may_be_declined():
    race = play(board("U47 1 1 1 1 1 1", upgrades="U47 U1 U1", deck="2 4 3"), "U47")
    race.flip("A", "2")
    race.ev("accelerated", car="A", card="U47", taken=False)
    assert race.turn.speed == 2


# ---------------------------------------------------------------------------------------------- React


def test_18_10_a_heat_cost_is_paid_in_react_and_react_cannot_end_unpaid_when_unpayable():
    race = play(board("U11 1 1 1 1 1 1", upgrades="U11 U1 U1"), "U11")
    assert race.at("A")[0] == 7 and race.car("A").engine == 6
    race.ev("heat_paid", car="A", cards=["U11"])
    assert race.car("A").engine == 5
    race.reject("heat_paid", car="A", cards=["U11"], rule="18.10")  # paid once


def test_18_10_a_payable_cost_is_paid_as_react_ends():
    race = play(board("U11 1 1 1 1 1 1", upgrades="U11 U1 U1"), "U11")
    race.go_on()
    assert race.car("A").engine == 5 and race.car("A").discard.count("H") == 1


def test_18_10_MA28_the_cards_cooldown_may_pay_its_cost_its_other_symbols_wait():
    # Body 6 (reduce 3, heat 1) with an empty Engine: nothing else of the card before its cost is paid.
    race = play(board("U18 S S H 1 1 1", upgrades="U18 U11 U1", engine=0), "U18")
    race.reject("stress_reduced", car="A", count=1, cards=["U18"], rule="18.15")
    race.cooldown("A", 1)  # gear 1 cooldown puts a Heat on the Engine (MA1: cooldown may come first)
    race.ev("heat_paid", car="A", cards=["U18"])
    race.ev("stress_reduced", car="A", count=2, cards=["U18"])
    assert race.hand("A").count("S") == 0 and race.car("A").discard.count("S") == 2


def test_18_11_MA1_MA27_an_unpayable_card_is_replaced_by_a_flip_and_the_car_moves_again():
    race = play(board("U11 1 1 1 1 1 1", upgrades="U11 U1 U1", engine=0, deck="S 2 4"), "U11")
    assert race.at("A")[0] == 7
    w = waiting_for(race.state)
    assert w.due == "heat_unpayable" and not w.may_go_on
    race.reject("heat_paid", car="A", cards=["U11"], rule="18.11")
    race.ev("heat_unpayable", car="A", cards=["U11"])
    race.flip("A", "S", "2")  # the + rule: the Stress is skipped
    assert race.turn.speed == 2 and race.at("A")[0] == 3  # back to space 1, then 2
    assert "U11" in race.car("A").discard and race.car("A").engine == 0
    race.reject("cooldown", car="A", count=1, cards=["U11"], rule="18.13")  # the card's symbols are gone


def test_18_12_MA6_scrap_is_mandatory_and_reshuffles_an_empty_deck():
    race = play(board("U21 1 1 1 1 1 1", upgrades="U21 U1 U1", deck="3", discard="2 4"), "U21")
    race.reject("slipstream", car="A", taken=False, rule="18.25")
    race.go_on()
    assert waiting_for(race.state).due == "card_scrapped"
    race.ev("card_scrapped", car="A", card="3")
    assert waiting_for(race.state).due == "deck_shuffled"
    race.ev("deck_shuffled", car="A", order=["4", "2", "3"])
    race.ev("card_scrapped", car="A", card="4")
    assert race.car("A").discard == ["2", "4"] or race.car("A").discard[-1] == "4"
    assert garage_record(race.turn).scrapped == ["3", "4"]


def test_18_13_MA32_a_card_cooldown_is_one_use_spent_whole():
    race = play(board("U12 H H H 1 1 1", upgrades="U12 U1 U1", gear=3, engine=3), "U12 1 1", gear=3)
    race.reject("cooldown", car="A", count=1, rule="7.2")  # gear 3 has no cooldown of its own
    race.ev("cooldown", car="A", count=1, cards=["U12"])  # Cooling system 1 (cooldown 2), used for 1
    race.reject("cooldown", car="A", count=1, cards=["U12"], rule="18.13")  # MA32: spent whole
    assert race.car("A").engine == 4


def test_18_15_reduce_stress_moves_stress_from_hand_to_discard():
    race = play(board("U4 S S S 1 1 1", upgrades="U4 U1 U1"), "U4")
    race.reject("stress_reduced", car="A", count=3, cards=["U4"], rule="18.15")  # Body 3 reduces up to 2
    race.ev("stress_reduced", car="A", count=2, cards=["U4"])
    assert race.hand("A").count("S") == 1


# ---------------------------------------------------------------------------------------------- steps 6, 7, 9


def test_18_16_MA17_slipstream_bonus_is_optional_and_adds_to_the_two_spaces():
    race = play(board("U14 1 1 1 1 1 1", upgrades="U14 U1 U1", p_at=2), "U14")  # R.P.M. 1, slipstream +2
    assert race.at("A")[0] == 2  # behind P, now on 3
    race.ev("slipstream", car="A", taken=True, bonuses=["U14"])
    assert race.at("A")[0] == 6


def test_18_16_slipstream_bonuses_need_the_card():
    race = play(board("U14 1 1 1 1 1 1", upgrades="U14 U1 U1", p_at=2), "1")
    race.reject("slipstream", car="A", taken=True, bonuses=["U14"], rule="18.16")


def test_18_17_adjust_changes_every_corner_limit_this_turn():
    # Wings 4 (heat 1, scrap 2, adjust +2) + 4 in gear 2 from space 5: speed 8 over the corner after 10 (limit 4)
    race = play(board("U44 4 1 1 1 1 1", upgrades="U44 U1 U1", at=5), "U44 4", gear=2)
    race.go_on()  # pays the card's Heat (derived), starts the Scrap
    race.ev("card_scrapped", car="A", card="4")
    race.ev("card_scrapped", car="A", card="1")
    race.go_on()  # no slipstream (step 6, still open after the Scrap: # 8.1): the corners are checked
    check = race.last_turn("A").corners[0]
    assert check.limit == 6 and check.cost == 2  # 4 + 2; 8 - 6


def test_18_21_MA15_refresh_puts_the_card_back_on_top_of_the_deck():
    race = play(board("U34 1 1 1 1 1 1", upgrades="U34 U1 U1", deck="2 3 4"), "U34")
    race.ev("refreshed", car="A", card="U34")
    race.refill()
    assert "U34" in race.hand("A") and "U34" not in race.car("A").discard  # drawn first


def test_18_26_upgrades_count_as_playable_for_the_clutter_test():
    race = board("U5 H H H H H H", upgrades="U5 U1 U1", gear=2)
    race.gears(P=1, A=2)
    race.reject("cards_played", car="A", cards=["H", "H"], rule="13.1")  # U5 is playable: play it first
    race.play(P=["1"], A=["U5", "H"])
    race.turns_until("A")
    assert race.last_turn("A").cluttered and race.at("A")[0] == 1
    assert race.car("A").gear == 1


def test_malformed_garage_turn_events():
    race = play(board("U8 2 1 1 1 1 1", upgrades="U8 U1 U1"), "U8 2", gear=2)
    race.reject("speed_chosen", car="A", card="U9", speed=2, rule="18.7")
    race.reject("accelerated", car="A", card="U8", taken=True, rule="18.20")
    race.ev("speed_chosen", car="A", card="U8", speed=1)
    race.reject("heat_paid", car="A", cards="U8", error=MalformedInput)
    assert isinstance(race.reject("stress_reduced", car="A", count=1, cards=["U8"]), IllegalEvent)


# ---------------------------------------------------------------------------------------------- advanced symbols


def test_18_18_MC5_MA25_salvage_shuffles_chosen_discards_into_the_deck():
    race = play(board("U22 1 1 1 1 1 1", upgrades="U22 U1 U1", deck="2 2", discard="4 H 3"), "U22")  # Fuel 2
    race.reject("salvaged", car="A", sources=["U22"], cards=["4", "4"], rule="18.18")  # one 4 in the discard
    race.ev("salvaged", car="A", sources=["U22"], cards=["4", "3"])
    assert waiting_for(race.state).due == "deck_shuffled" and race.car("A").discard == ["H"]
    race.reject("deck_shuffled", car="A", order=["4", "3"], rule="18.18")  # the whole draw deck
    race.ev("deck_shuffled", car="A", order=["3", "2", "4", "2"])
    race.reject("salvaged", car="A", sources=["U22"], cards=[], rule="18.18")  # spent


def test_MA25_salvage_of_nothing_shuffles_nothing():
    race = play(board("U22 1 1 1 1 1 1", upgrades="U22 U1 U1", discard="4"), "U22")
    race.ev("salvaged", car="A", sources=["U22"], cards=[])
    assert waiting_for(race.state).due != "deck_shuffled" and race.car("A").discard == ["4"]


def test_18_22_super_cool_takes_heat_from_the_discard_pile_not_the_hand():
    race = play(board("U53 H 1 1 1 1 1", upgrades="U53 U1 U1", engine=2, discard="H H 3"), "U53")  # Air intake 4
    race.reject("super_cooled", car="A", sources=["U53"], count=2, rule="18.22")  # super cool 1
    race.ev("super_cooled", car="A", sources=["U53"], count=1)
    assert race.car("A").engine == 3 and race.car("A").discard == ["H", "3"] and "H" in race.hand("A")


def test_18_23_MA29_a_draft_moves_up_behind_the_next_car_through_empty_spaces():
    # Front Wing 0 (+, draft 3): A from 1 flips a 1 -> 2; P is on 6 after its move: the draft lands on 5.
    race = play(board("U55 1 1 1 1 1 1", upgrades="U55 U1 U1", deck="1 4", p_at=5), "U55")
    race.ev("card_flipped", car="A", card="1")
    assert race.at("A")[0] == 2
    race.ev("drafted", car="A", sources=["U55"])
    assert race.at("A")[0] == 5 and race.turn.speed == 1  # not Speed
    race.reject("drafted", car="A", sources=["U55"], rule="18.23")


def test_MA29_no_draft_with_nothing_ahead():
    race = play(board("U55 1 1 1 1 1 1", upgrades="U55 U1 U1", deck="1 4", at=20, p_at=2), "U55")
    race.ev("card_flipped", car="A", card="1")
    race.reject("drafted", car="A", sources=["U55"], rule="18.23")


def test_18_19_MA14_MA24_direct_play_moves_at_once_and_its_cost_is_due():
    race = play(board("1 U27 H 1 1 1 1", upgrades="U27 U1 U1", engine=0), "1")  # Gas pedal 4 (heat 1, cooldown 1)
    assert race.at("A")[0] == 2
    race.ev("direct_played", car="A", card="U27")
    assert race.at("A")[0] == 6 and race.turn.speed == 5
    assert waiting_for(race.state).due == "heat_unpayable" or race.car("A").engine == 0
    race.ev("cooldown", car="A", count=1, cards=["U27"])  # MA28: its own cooldown first
    race.ev("heat_paid", car="A", cards=["U27"])
    assert race.car("A").engine == 0
    race.reject("direct_played", car="A", card="U27", rule="18.19")  # no second copy in the hand


def test_18_7_18_25_mandatory_symbols_cannot_be_declined():
    race = play(board("U21 1 1 1 1 1 1", upgrades="U21 U1 U1"), "U21")  # scrap 2 is mandatory
    opts = {d["type"] for d in decisions(race.state, "A")}
    assert "slipstream" not in opts and "cards_discarded" not in opts  # React ends with the Scrap first
    race.reject("cards_discarded", car="A", cards=["1"], rule="18.25")


def test_18_9_a_boost_flip_discards_an_upgrade_with_a_speed_value():
    race = play(board("1 1 1 1 1 1 1", deck="U42 3"), "1")
    race.ev("boost", car="A")
    flip(race, "U42 3")
    assert race.car("A").discard[-1] == "U42" and race.turn.speed == 4


def test_18_13_cooldown_sources_combine_with_the_gear():
    race = play(board("U13 H H H H 1 1", upgrades="U13 U1 U1", engine=2), "U13")  # gear 1 (3) + card (1)
    race.ev("cooldown", car="A", count=4, cards=["U13"])
    assert race.car("A").engine == 6 and race.hand("A").count("H") == 0


def test_18_14_the_gear_boost_is_still_once_a_turn():
    race = play(board("U2 1 1 1 1 1 1", upgrades="U2 U1 U1", deck="1 1 1 2 3"), "U2")
    flip(race, "1 1 1")
    race.boost("A", "2")
    race.reject("boost", car="A", rule="7.5")


def test_18_12_18_25_2_1_8_1_a_car_that_scrapped_may_still_slipstream():
    """Scrap is a React symbol (# 18.7, 18.12, 18.25) and slipstream is step 6, after React (# 2.1, 8.1): the
    scrapped cards end React, not the slipstream. Gas pedal 2 (speed 2, direct, scrap 2) on gear 1 from space
    1 lands on 3, right behind P (which moved 3 → 4)."""
    race = play(board("U25 1 1 1 1 1 1", upgrades="U25 U1 U1", p_at=3), "U25")
    assert race.at("A")[0] == 3 and race.at("P")[0] == 4
    race.reject("slipstream", car="A", taken=True, rule="18.25")  # the Scrap is due first
    race.ev("card_scrapped", car="A", card="4")
    race.ev("card_scrapped", car="A", card="1")
    w = waiting_for(race.state)
    assert "slipstream" in w.optional and w.may_go_on  # React is over, step 6 is open
    assert {"type": "slipstream", "v": 1, "car": "A", "taken": True} in decisions(race.state, "A")
    race.ev("slipstream", car="A", taken=True)
    assert race.at("A")[0] == 5 and garage_record(race.turn).scrapped == ["4", "1"]


def test_18_12_after_the_scrap_going_on_closes_the_slipstream_and_checks_the_corners():
    race = play(board("U25 1 1 1 1 1 1", upgrades="U25 U1 U1", p_at=3), "U25")
    race.ev("card_scrapped", car="A", card="4")
    race.ev("card_scrapped", car="A", card="1")
    race.go_on()
    assert race.turn.sub == 8 and race.turn.slipstream is None and race.at("A")[0] == 3
    race.reject("slipstream", car="A", taken=True, rule="8.3")  # step 6 is over now


def test_MA27_a_payable_heat_cost_is_never_left_unpaid_ending_react_pays_it():
    """MA27 (as it now reads): a cost still unpaid when React ends is paid then if the Engine covers it, however
    React ends: going on, a slipstream (step 6) or a discard (step 8). Cooling system 6 (cooldown 1, Heat 1)."""
    # going on
    race = play(board("U11 1 1 1 1 1 1", upgrades="U11 U1 U1"), "U11")
    race.go_on()
    assert race.car("A").engine == 5 and garage_record(race.turn).paid == [0]
    # a slipstream: A lands on 7, right behind P (parked on 7, it moved to 8 first)
    race = play(board("U11 1 1 1 1 1 1", upgrades="U11 U1 U1", p_at=7), "U11")
    assert race.at("A")[0] == 7 and "slipstream" in waiting_for(race.state).optional
    race.ev("slipstream", car="A", taken=True)
    assert race.car("A").engine == 5 and race.at("A")[0] == 9
    # a discard
    race = play(board("U11 1 1 1 1 1 1", upgrades="U11 U1 U1"), "U11")
    race.ev("cards_discarded", car="A", cards=["1"])
    assert race.car("A").engine == 5 and race.car("A").discard.count("H") == 1


def test_MA27_an_unpayable_cost_is_not_paid_as_react_ends_the_card_is_replaced():
    """MA27: with the Engine short, React cannot just end: which card is replaced is recorded first (# 18.11)."""
    race = play(board("U11 1 1 1 1 1 1", upgrades="U11 U1 U1", engine=0, deck="S 2 4"), "U11")
    race.reject("slipstream", car="A", taken=False, rule="18.25")  # the Heat cost is a mandatory use
    race.reject("cards_discarded", car="A", cards=["1"], rule="18.25")
    assert race.car("A").engine == 0
