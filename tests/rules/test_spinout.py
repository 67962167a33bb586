"""Spinouts (# 10.x, 12.2, A2, 1.3). Test track corners: after 10 (limit 4), 13 (3), 22 (5), 26 (2)."""

from __future__ import annotations

from .conftest import PARKED, board


def parked(at, lane=None):
    return {"at": at, "hand": PARKED, **({"lane": lane} if lane else {})}


def test_10_1_pay_all_remaining_heat_then_spin():
    # 10.1: Speed 8 over limit 4 costs 4; with 2 Heat both are paid and the car spins out.
    race = board({"A": parked(25), "B": {"at": 8, "gear": 2, "hand": "4412312", "engine": 2}})
    race.round(A=(1, "0"), B=(2, "44"))
    race.turns_until("B").go_on()
    [c] = race.turn.corners
    assert (c.cost, c.paid, c.spinout) == (4, 2, True)
    b = race.car("B")
    assert b.engine == 0 and b.discard == ["H", "H"]


def test_10_2_back_to_the_space_before_the_corner_line_race_line_spot():
    # 10.2: the car goes back to space 10 (just before the line after 10), race-line spot (lane 1).
    race = board({"A": parked(25), "B": {"at": 8, "gear": 2, "hand": "4412312", "engine": 0}})
    race.round(A=(1, "0"), B=(2, "44"))
    race.turns_until("B")
    assert race.at("B")[0] == 16
    race.go_on()
    assert race.at("B") == (10, 1)
    assert race.state.spots[(10, 1)] == "B" and (16, 1) not in race.state.spots


def test_10_2_other_spot_when_the_race_line_spot_is_taken():
    # 10.2
    race = board({"A": parked(10, 1), "B": {"at": 8, "gear": 2, "hand": "4412312", "engine": 0}})
    race.round(A=(1, "0"), B=(2, "44"))
    race.turns_until("B").go_on()
    assert race.at("B") == (10, 2)


def test_10_2_A2_full_space_before_the_line_goes_further_back():
    # A2: space 10 is full; space 9 has its race-line spot taken: the car ends on 9, other spot.
    race = board(
        {
            "A": parked(10, 1),
            "C": parked(10, 2),
            "D": parked(9, 1),
            "B": {"at": 7, "gear": 2, "hand": "4412312", "engine": 0},
        }
    )
    race.round(A=(1, "0"), C=(1, "0"), D=(1, "0"), B=(2, "44"))
    race.turns_until("B").go_on()
    assert race.turn.spinout and race.at("B") == (9, 2)


def test_A2_own_vacated_spot_counts_as_free():
    # A2: B started on space 10, other spot, beside A; it spins back to where it started.
    race = board({"A": parked(10, 1), "B": {"at": 10, "lane": 2, "gear": 2, "hand": "4412312", "engine": 0}})
    race.round(A=(1, "0"), B=(2, "44"))
    race.turns_until("B")
    assert race.at("B")[0] == 18
    race.go_on()
    assert race.at("B") == (10, 2)


def test_10_3_gear_1_or_2_one_stress_gear_3_or_4_two():
    # 10.3 (1.3): Stress from the reserve into the hand.
    for gear, play, stress in ((1, "5", 1), (2, "44", 1), (3, "443", 2), (4, "4432", 2)):
        hand = (play + "1111111")[:7]
        race = board({"A": parked(25), "B": {"at": 8, "gear": gear, "hand": hand, "engine": 0}})
        race.round(A=(1, "0"), B=(gear, play))
        race.turns_until("B").go_on()
        t = race.last_turn("B")  # in gear 1 the turn is already over (# 12.2)
        assert t.spinout and t.spinout_stress == stress, gear
        assert race.hand("B").count("S") == stress
        assert race.car("B").hand_size == 7 - gear + stress
        assert race.car("B").stress_taken == stress


def test_10_3_stress_uses_the_gear_in_force_this_turn():
    # 10.3, A10: gear 2 shifted to 3 this turn: 2 Stress.
    race = board({"A": parked(25), "B": {"at": 8, "gear": 2, "hand": "4431112", "engine": 1}})
    race.round(A=(1, "0"), B=(3, "443"))
    race.turns_until("B").go_on()  # the shift took the only Heat; cost 7 cannot be paid
    assert race.turn.spinout_stress == 2


def test_10_4_gear_becomes_1():
    # 10.4: and next round a two-gear shift from 1 to 3 needs Engine Heat it no longer has (# 3.3).
    race = board({"A": parked(25), "B": {"at": 8, "gear": 3, "hand": "4431112", "engine": 0}})
    race.round(A=(1, "0"), B=(3, "443"))
    race.turns_until("B").go_on()
    assert race.car("B").gear == 1 and race.turn.gear == 3
    race.refill()
    race.gears(A=1)
    race.reject("gear_chosen", car="B", gear=3, rule="3.3")
    race.gears(B=2)


def test_10_5_no_further_corner_checks_after_a_spinout():
    # 10.5: spin at the line after 10; the line after 13, also crossed, is not checked (and costs nothing).
    race = board({"A": parked(25), "B": {"at": 8, "gear": 2, "hand": "4412312", "engine": 3}})
    race.round(A=(1, "0"), B=(2, "44"))
    race.turns_until("B").go_on()
    assert [(c.after_space, c.spinout) for c in race.turn.corners] == [(10, True)]
    assert race.car("B").engine == 0 and race.car("B").discard == ["H", "H", "H"]


def test_10_5_then_discard_and_refill():
    # 10.5: after the spinout the car goes on to discard and refill (hand 5 + 1 Stress = 6: draw 1).
    race = board({"A": parked(25), "B": {"at": 8, "gear": 2, "hand": "4412312", "engine": 0, "deck": "3 2 1"}})
    race.round(A=(1, "0"), B=(2, "44"))
    race.turns_until("B").go_on()
    assert race.turn.sub == 8
    race.discard("B", "1")
    race.ev("cards_drawn", car="B", cards=["3", "2"])
    assert race.car("B").hand_size == 7 and race.state.round == 2


def test_12_2_spinout_leaving_seven_cards_draws_and_discards_nothing():
    # 12.2: gear 1 plays 1 card (6 left) and the spinout adds 1 Stress: 7. The turn ends by itself.
    race = board({"A": parked(25), "B": {"at": 9, "hand": "5123412", "engine": 0}})
    race.round(A=(1, "0"), B=(1, "5"))
    race.turns_until("B")
    assert race.at("B")[0] == 14
    race.go_on()  # corner after 10: limit 4, Speed 5, no Heat
    t = race.last_turn("B")
    assert t.spinout and t.drawn == 0 and t.discarded == [] and t.sub == 10
    b = race.car("B")
    assert b.hand_size == 7 and b.discard == ["5"]  # the Play Area still goes to discard (# 12.1)
    assert race.state.round == 2
    race.reject("cards_discarded", car="B", cards=["1"], rule="2.1")


def test_12_2_spinout_with_seven_cards_closed_by_the_next_cars_event():
    # 12.2, 2.4: A's optional steps are closed by B's boost; the corner check spins A out with 7 cards, so A's
    # turn ends without a draw and B's boost applies in B's turn.
    race = board({"A": {"at": 9, "hand": "5123412", "engine": 0}, "B": {"at": 3, "hand": "1123412", "deck": "2"}})
    race.round(A=(1, "5"), B=(1, "1"))
    assert race.turn.car == "A" and race.at("A")[0] == 14
    race.boost("B", "2")
    a = race.last_turn("A")
    assert a.spinout and a.drawn == 0 and race.at("A") == (10, 1)
    assert race.turn.car == "B" and race.at("B")[0] == 6 and race.car("B").engine == 5
