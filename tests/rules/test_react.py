"""Step 5, React: cooldown, boost and the adrenaline bonuses (# 7.x, A3, A4, A10, C6, C7)."""

from __future__ import annotations

from .conftest import PARKED, board


def react_board(hand="1HHH123", gear=1, engine=6, deck="4123412341234", at=3, discard=""):
    """A alone in front (parked on space 20), B behind with the given hand: B is the adrenaline holder."""
    return board(
        {
            "A": {"at": 20, "hand": PARKED},
            "B": {"at": at, "hand": hand, "gear": gear, "engine": engine, "deck": deck, "discard": discard},
        }
    )


def test_7_1_effects_in_any_order_each_completed_before_the_next():
    # 7.1: B boosts (flip completes) before it cools down; the boost flip blocks other React effects meanwhile.
    race = react_board(hand="1HH1234", deck="H 3")
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B")
    race.ev("boost", car="B")
    race.reject("cooldown", car="B", count=1, rule="7.1")  # finish the flip first
    race.flip("B", "H", "3")
    race.cooldown("B", 2)
    assert [h[:2] for h in race.turn.happenings[1:]] == [("boost", "engine"), ("cooldown", "gear")]
    assert race.at("B")[0] == 7 and race.car("B").engine == 7


def test_7_1_A4_adrenaline_and_boost_are_two_moves_order_changes_the_space_not_speed():
    # 7.1, A4, 7.9: space 6 is full. Adrenaline first: 4 -> 5, boost 2 -> 7. Boost first: 4 -> (6 full) 5, then
    # adrenaline (6 full) stays on 5. Speed is 4 either way.
    def setup():
        race = board(
            {
                "A": {"at": 6, "lane": 1, "hand": PARKED},
                "C": {"at": 6, "lane": 2, "hand": PARKED},
                "B": {"at": 3, "hand": "1123412", "deck": "2 4"},
            }
        )
        race.round(A=(1, "0"), C=(1, "0"), B=(1, "1"))
        race.turns_until("B")
        assert race.at("B")[0] == 4
        return race

    first = setup()
    first.adrenaline("B", "move").boost("B", "2")
    assert first.at("B")[0] == 7 and first.turn.speed == 4
    assert first.turn.happenings[1:] == [("adrenaline", "move", 1, 1), ("boost", "engine", 2, 2)]

    second = setup()
    second.boost("B", "2").adrenaline("B", "move")
    assert second.at("B")[0] == 5 and second.turn.speed == 4
    assert second.turn.boost_moved == 1 and second.turn.adrenaline_moved == 0
    assert second.turn.happenings[1:] == [("boost", "engine", 2, 1), ("adrenaline", "move", 1, 0)]


def test_7_2_cooldown_by_gear_3_1_0_0():
    # 7.2
    for gear, allowed in ((1, 3), (2, 1), (3, 0), (4, 0)):
        plays = "1234"[:gear]
        race = board({"A": {"at": 20, "hand": PARKED}, "B": {"at": 21, "gear": gear, "hand": plays + "HHH"}})
        race.round(B=(gear, plays), A=(1, "0"))
        assert race.turn.car == "B" and race.turn.cooldown_allowance == allowed
        if allowed < 3:
            race.reject("cooldown", car="B", count=allowed + 1, rule="7.2")
        if allowed:
            race.cooldown("B", allowed)
            assert race.car("B").engine == 6 + allowed


def test_7_3_cooldown_takes_heat_from_the_hand_never_the_discard():
    # 7.3: Heat in the discard pile does not cool down.
    race = react_board(hand="1H12341", engine=3, discard="HHH")
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B")
    err = race.reject("cooldown", car="B", count=2, rule="7.3")
    assert "hand" in str(err)
    race.cooldown("B", 1)
    b = race.car("B")
    assert b.engine == 4 and b.discard == ["H", "H", "H"] and "H" not in race.hand("B")


def test_7_4_adrenaline_cooldown_adds_to_gear_cooldown():
    # 7.4: gear 2 (1) + adrenaline (1) = 2.
    race = react_board(hand="12HHH12", gear=2)
    race.round(A=(1, "0"), B=(2, "12"))
    race.turns_until("B")
    race.adrenaline("B", "cooldown").cooldown("B", 2)
    assert race.car("B").engine == 8


def test_7_5_boost_pays_one_heat_flips_to_a_basic_card_and_moves():
    # 7.5, 14.1 (C6): 1 Heat Engine -> discard, flips skip H, 0 and S, the 3 is added to speed and moved.
    race = react_board(hand="2123412", deck="H 0 S 3 1")
    race.round(A=(1, "0"), B=(1, "2"))
    race.turns_until("B")
    race.boost("B", "H", "0", "S", "3")
    b, t = race.car("B"), race.turn
    assert b.engine == 5 and b.discard == ["H", "H", "0", "S"]
    assert t.boost_card == "3" and t.speed == 5 and t.boost_moved == 3 and b.progress == 8
    assert b.play_area == ["2", "3"]


def test_7_5_boost_once_per_turn_in_any_gear():
    # 7.5 (C7, C14): boost in gear 4 too, but only once a turn.
    race = react_board(hand="1234123", gear=3, deck="2 2")
    race.round(A=(1, "0"), B=(4, "1234"))
    race.turns_until("B")
    race.boost("B", "2")
    race.reject("boost", car="B", rule="7.5")


def test_7_6_no_boost_with_an_empty_engine():
    # 7.6: Heat in the hand does not pay.
    race = react_board(hand="1HHH123", engine=0)
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B")
    err = race.reject("boost", car="B", rule="7.6")
    assert "Engine" in str(err) and "round 1" in str(err) and "car B" in str(err)


def test_7_7_boost_value_counts_as_speed_for_corners():
    # 7.7, 9.1: 3 + boost 4 = 7 at the corner after space 10 (limit 4): 3 Heat, plus the boost's 1.
    race = react_board(hand="3123412", at=5, deck="4")
    race.round(A=(1, "0"), B=(1, "3"))
    race.turns_until("B")
    race.boost("B", "4")
    assert race.at("B")[0] == 12
    race.go_on()
    [check] = race.turn.corners
    assert (check.speed, check.limit, check.cost, check.paid) == (7, 4, 3, 3)
    assert race.car("B").engine == 2


def test_7_8_cooling_first_funds_a_boost():
    # 7.8
    race = react_board(hand="1H12341", engine=0, deck="2")
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B")
    race.reject("boost", car="B", rule="7.6")
    race.cooldown("B", 1).boost("B", "2")
    assert race.car("B").engine == 0 and race.at("B")[0] == 6


def test_7_8_cooling_first_funds_a_corner_payment():
    # 7.8, 9.3: B cools 2 Heat, then pays them at the corner after space 10 instead of spinning out.
    race = react_board(hand="4HH1231", engine=0, at=6, deck="2")
    race.round(A=(1, "0"), B=(1, "4"))
    race.turns_until("B")
    race.adrenaline("B", "move")  # speed 5: 1 over the limit
    race.cooldown("B", 1)
    race.go_on()
    t = race.turn
    assert not t.spinout and t.corners[0].cost == 1 and race.car("B").engine == 0


def test_7_9_boost_move_is_blocked_like_normal_movement():
    # 7.9: space 8 is full; a boost of 4 from space 4 stops on space 7.
    race = board(
        {
            "A": {"at": 8, "lane": 1, "hand": PARKED},
            "C": {"at": 8, "lane": 2, "hand": PARKED},
            "B": {"at": 3, "hand": "1123412", "deck": "4"},
        }
    )
    race.round(A=(1, "0"), C=(1, "0"), B=(1, "1"))
    race.turns_until("B")
    race.boost("B", "4")
    assert race.at("B")[0] == 7 and race.turn.boost_moved == 3 and race.turn.speed == 5


def test_A10_cooldown_uses_the_gear_after_the_shift():
    # A10: 4 -> 2 (paid) gives cooldown 1; 3 -> 1 gives 3.
    race = react_board(hand="12HHH12", gear=4)
    race.round(A=(1, "0"), B=(2, "12"))
    race.turns_until("B")
    assert race.turn.cooldown_allowance == 1
    race = react_board(hand="1HHH123", gear=3)
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B")
    race.cooldown("B", 3)
    assert race.car("B").engine == 5 + 3  # 6, minus the two-gear shift, plus 3


def test_A3_no_boost_after_slipstream():
    # A3: slipstream (step 6) comes after every React effect; a boost afterwards is refused.
    race = board({"A": {"at": 6, "hand": PARKED}, "B": {"at": 3, "hand": "2123412", "deck": "3"}})
    race.round(A=(1, "0"), B=(1, "2"))
    race.turns_until("B")
    race.slip("B")
    race.reject("boost", car="B", rule="7.5")
    race.reject("cooldown", car="B", count=1, rule="7.2")


def test_C7_react_symbols_come_from_the_gear_not_the_cards():
    # C7: in gear 3 there is no cooldown whatever was played; boost is open in every gear.
    from heatlog.engine import react_options

    race = react_board(hand="123HHH4", gear=3)
    race.round(A=(1, "0"), B=(3, "123"))
    race.turns_until("B")
    kinds = {o["type"] for o in react_options(race.state, race.car("B"), race.turn)}
    assert "cooldown" not in kinds and "boost" in kinds


def test_7_4_adrenaline_cooldown_in_gear_3_gives_exactly_one():
    # 7.4, 7.2: gears 3-4 cool nothing, but the adrenaline cooldown still gives 1.
    race = react_board(hand="123HHH4", gear=3)
    race.round(A=(1, "0"), B=(3, "123"))
    race.turns_until("B")
    race.reject("cooldown", car="B", count=1, rule="7.2")
    race.adrenaline("B", "cooldown")
    race.reject("cooldown", car="B", count=2, rule="7.2")
    race.cooldown("B", 1)
    assert race.car("B").engine == 7
