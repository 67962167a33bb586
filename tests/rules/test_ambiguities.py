"""The readings chosen where the seeds leave a point open (A1–A15)."""

from __future__ import annotations

import pytest

from heatlog.engine import MalformedInput, playable_sets, react_options

from .conftest import PARKED, board, make_track, race_started


def parked(at, lane=None):
    return {"at": at, "hand": PARKED, **({"lane": lane} if lane else {})}


LAP_CORNER = make_track(corners=((1, 2, 1), (13, 3, 1)))  # a corner line right after the lap line


def test_A1_final_lap_spinout_before_the_line_has_not_finished():
    # A1: the final line was crossed (33) but the corner after 26, before it, spins the car back to 26.
    race = board({"A": {"at": 25, "gear": 2, "hand": "4412312", "engine": 0}, "B": parked(5)})
    race.round(A=(2, "44"), B=(1, "0"))
    assert race.at("A")[0] == 33
    race.go_on()
    assert race.at("A")[0] == 26
    race.refill().refill()
    assert race.state.hall_of_fame == [] and not race.car("A").finished


def test_A1_intermediate_lap_counts_only_if_the_car_stays_past_the_line():
    # A1: spinning at the corner just after the lap line leaves the car on space 1 of lap 2 (lap done) or,
    # when space 1 is full, on space 30 of lap 1 (lap not done).
    race = board(
        {"A": {"at": 28, "gear": 2, "hand": "4412312", "engine": 0}, "B": parked(10)}, track=LAP_CORNER, laps=2
    )
    race.round(A=(2, "44"), B=(1, "0"))
    race.go_on()
    assert race.at("A")[0] == 31 and race.state.laps_done(race.car("A")) == 1
    race = board(
        {
            "C": parked(31, 1),
            "D": parked(31, 2),
            "A": {"at": 28, "gear": 2, "hand": "4412312", "engine": 0},
            "B": parked(10),
        },
        track=LAP_CORNER,
        laps=2,
    )
    race.round(C=(1, "0"), D=(1, "0"), A=(2, "44"), B=(1, "0"))
    race.turns_until("A").go_on()
    assert race.at("A")[0] == 30 and race.state.laps_done(race.car("A")) == 0


def test_A2_spinout_landing_walks_back_like_blocking():
    # A2: spaces 10 and 9 are full; 8 has the race line free: the car lands on 8, lane 1.
    race = board(
        {
            "C": parked(10, 1),
            "D": parked(10, 2),
            "E": parked(9, 1),
            "F": parked(9, 2),
            "A": {"at": 7, "gear": 2, "hand": "4412312", "engine": 0},
            "B": parked(2),
        }
    )
    race.round(C=(1, "0"), D=(1, "0"), E=(1, "0"), F=(1, "0"), A=(2, "44"), B=(1, "0"))
    race.turns_until("A").go_on()
    assert race.turn.spinout and race.at("A") == (8, 1)


def test_A3_no_react_after_slipstream():
    # A3: after the slipstream, boost and adrenaline are gone.
    race = board({"A": parked(6), "B": {"at": 3, "hand": "2123412", "deck": "3"}})
    race.round(A=(1, "0"), B=(1, "2"))
    race.turns_until("B").slip("B")
    race.reject("boost", car="B", rule="7.5")
    race.reject("adrenaline", car="B", bonus="move", rule="6.3")
    assert react_options(race.state, race.car("B"), race.turn) == []


def test_A4_adrenaline_and_boost_either_order_same_speed():
    # A4: without blocking, both orders end on the same space with the same Speed.
    for order in (("adrenaline", "boost"), ("boost", "adrenaline")):
        race = board({"A": parked(20), "B": {"at": 3, "hand": "1123412", "deck": "3"}})
        race.round(A=(1, "0"), B=(1, "1"))
        race.turns_until("B")
        for what in order:
            if what == "boost":
                race.boost("B", "3")
            else:
                race.adrenaline("B", "move")
        assert race.at("B")[0] == 8 and race.turn.speed == 5


def test_A5_spinout_on_the_would_be_finishing_turn_usual_penalties():
    # A5: gear 3 -> 2 Stress, gear 1, back before the corner, not finished.
    race = board({"A": {"at": 24, "gear": 3, "hand": "4431212", "engine": 0}, "B": parked(5)})
    race.round(A=(3, "443"), B=(1, "0"))
    assert race.at("A")[0] == 35
    race.go_on()
    t = race.turn
    assert t.spinout and t.spinout_stress == 2 and race.car("A").gear == 1 and race.at("A")[0] == 26
    assert [c.after_space for c in t.corners] == [26]


def test_A6_a_later_move_that_passes_the_line_crosses_it():
    # A6: blocked before the line at step 3 (spaces 11 and 12 full), the boost then carries B past it: the corner
    # is crossed and checked at the full Speed.
    race = board(
        {
            "C": parked(11, 1),
            "D": parked(11, 2),
            "E": parked(12, 1),
            "F": parked(12, 2),
            "B": {"at": 6, "hand": "5123412", "deck": "4"},
        }
    )
    race.round(C=(1, "0"), D=(1, "0"), E=(1, "0"), F=(1, "0"), B=(1, "5"))
    race.turns_until("B")
    assert race.at("B")[0] == 10
    race.boost("B", "4")
    assert race.at("B")[0] == 14
    race.go_on()
    t = race.last_turn("B")  # spun out with 7 cards: the turn is over (# 12.2)
    assert [(c.after_space, c.speed, c.cost) for c in t.corners] == [(10, 9, 5), (13, 9, 6)]
    assert t.spinout and race.at("B")[0] == 13  # 5 paid at the first, 1 left for the second


def test_A7_blocked_back_to_own_space_stays():
    # A7: spaces 7 and 8 are full; B (space 6, race line) stays on its own spot.
    race = board(
        {"C": parked(7, 1), "D": parked(7, 2), "E": parked(8, 1), "F": parked(8, 2), "B": {"at": 6, "hand": "2123412"}}
    )
    race.round(C=(1, "0"), D=(1, "0"), E=(1, "0"), F=(1, "0"), B=(1, "2"))
    race.turns_until("B")
    assert race.at("B") == (6, 1) and race.turn.moved == 0 and race.turn.speed == 2


def test_A7_blocked_back_to_own_space_takes_its_free_race_line_spot():
    # A7 with 5.5 ("Race Line preferred"): B sits on the other spot of space 6, whose race-line spot is free; the
    # nearest space with a free spot is its own, and there it takes the race line.
    race = board(
        {
            "C": parked(7, 1),
            "D": parked(7, 2),
            "E": parked(8, 1),
            "F": parked(8, 2),
            "B": {"at": 6, "lane": 2, "hand": "2123412"},
        }
    )
    race.round(C=(1, "0"), D=(1, "0"), E=(1, "0"), F=(1, "0"), B=(1, "2"))
    race.turns_until("B")
    assert race.at("B") == (6, 1) and race.turn.moved == 0


def test_A8_mid_flip_reshuffle_holds_the_skipped_cards_and_the_boost_heat():
    # A8: skipped H and 0 and the Heat paid for the boost are in the discard pile when the deck runs out.
    race = board({"A": parked(20), "B": {"at": 3, "hand": "1123412", "deck": "H 0", "discard": ""}})
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B").boost("B", "H", "0")
    b = race.car("B")
    assert b.deck_size == 0 and sorted(b.discard) == ["0", "H", "H"]
    race.reject("deck_shuffled", car="B", order=["H", "0"], rule="5.6")
    # no Basic card in the deck or discard pile: our reading ends the flip with nothing found (see test_flips)


def test_A8_mid_flip_reshuffle_then_find():
    # A8: with a Basic card in the discard pile the reshuffled deck (skipped cards included) is flipped on.
    race = board({"A": parked(20), "B": {"at": 3, "hand": "1123412", "deck": "H", "discard": "2"}})
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B").boost("B", "H")
    race.ev("deck_shuffled", car="B", order=["H", "H", "2"])
    race.flip("B", "H", "H", "2")
    assert race.turn.boost_card == "2" and race.car("B").discard == ["H", "H"]


def test_A9_adrenaline_by_fixed_order_not_physical_position():
    # A9: B, last at round start, passes A; A (now physically last) gets nothing.
    race = board({"A": {"at": 6, "hand": PARKED}, "B": {"at": 3, "hand": "5123412"}})
    race.round(A=(1, "0"), B=(1, "5"))
    assert race.state.adrenaline == ["B"]
    race.turns_until("B")
    assert race.at("B")[0] == 8
    race.adrenaline("B", "move")
    assert race.at("B")[0] == 9


def test_A10_spinout_stress_uses_the_gear_in_force():
    # A10: shifted 4 -> 2 this turn: 1 Stress (not 2).
    race = board({"A": parked(25), "B": {"at": 8, "gear": 4, "hand": "4412312", "engine": 1}})
    race.round(A=(1, "0"), B=(2, "44"))
    race.turns_until("B")
    assert race.turn.cooldown_allowance == 1
    race.go_on()
    assert race.turn.spinout and race.turn.spinout_stress == 1


def test_A11_blocked_adrenaline_still_adds_one_speed():
    # A11
    race = board({"C": parked(5, 1), "D": parked(5, 2), "B": {"at": 3, "hand": "1123412"}})
    race.round(C=(1, "0"), D=(1, "0"), B=(1, "1"))
    race.turns_until("B")
    race.adrenaline("B", "move")
    assert race.at("B")[0] == 4 and race.turn.speed == 2


def test_A12_cluttered_checked_with_the_gear_after_step_1():
    # A12: 0 and 5 and Stress are playable; S 5 H H H H H is cluttered in gear 3 but not in gear 2.
    race = board({"A": parked(20), "B": {"at": 3, "hand": "S5HHHHH", "gear": 3, "deck": "2"}})
    assert playable_sets(race.car("B"), 3) == [["5", "S", "H"]]
    race.round(A=(1, "0"), B=(2, "S5"))
    race.turns_until("B").flip("B", "2")
    assert not race.turn.cluttered and race.turn.speed == 7


def test_A13_no_voluntary_discard_after_a_cluttered_turn():
    # A13
    race = board({"A": parked(20), "B": {"at": 3, "hand": "1HHHHHH"}})
    race.round(A=(1, "0"), B=(2, "1H"))
    race.turns_until("B")
    race.reject("cards_discarded", car="B", cards=["1"], rule="13.3")


def test_A14_solo_is_not_a_base_race():
    # A14
    with pytest.raises(MalformedInput):
        race_started(["Solo"])


def test_A15_a_car_that_moves_0_spaces_keeps_its_spot():
    # A15: B sits on the outer spot of space 6 and plays the 0; the race-line spot of space 6 is free, yet B stays
    # where it is (a spot changes only by moving, # 13.2).
    race = board({"C": parked(12), "B": {"at": 6, "lane": 2, "hand": "0123412"}})
    assert race.state.track.race_lane(6) == 1
    race.round(C=(1, "0"), B=(1, "0"))
    race.turns_until("B")
    assert race.turn.moved == 0 and race.at("B") == (6, 2)
