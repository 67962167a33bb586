"""Step 3, reveal and move: speed, Stress, landing spot, passing, blocking, reshuffles (# 5.x, 1.5)."""

from __future__ import annotations

from .conftest import PARKED, board


def test_5_1_speed_is_the_sum_including_stress_replacements():
    # 5.1: 3 + Stress(->2) + 4 = 9.
    race = board({"A": {"at": 14, "hand": "3S41234", "gear": 3, "deck": "2 1"}, "B": {"at": 1}})
    race.round(A=(3, "3S4"), B=(1, "1"))
    race.flip("A", "2")
    assert race.turn.speed == 9 and race.turn.stress_found == ["2"]
    assert race.at("A")[0] == 23


def test_5_2_stress_flips_until_a_basic_card_skipped_cards_discarded():
    # 5.2: Stress, Heat, 0 and 5 are skipped to the discard; the Basic card goes onto the Stress.
    race = board({"A": {"at": 14, "hand": "S123412", "deck": "SH053 1"}, "B": {"at": 1}})
    race.round(A=(1, "S"), B=(1, "1"))
    for c in "SH05":
        race.flip("A", c)
        assert race.turn.flipping == "stress" and race.at("A")[0] == 14  # no move until resolved
    race.flip("A", "3")
    a = race.car("A")
    assert a.discard == ["S", "H", "0", "5"]
    assert a.play_area == ["S", "3"]
    assert race.turn.speed == 3 and a.progress == 17


def test_5_2_each_stress_resolved_separately():
    # 5.2: two Stress, two separate flips, each finding its own Basic card.
    race = board({"A": {"at": 14, "hand": "SS12341", "deck": "H 2 0 4 1"}, "B": {"at": 1}})
    race.round(A=(2, "SS"), B=(1, "1"))
    race.flip("A", "H", "2")
    assert race.turn.stress_left == 1 and race.turn.flipping == "stress"
    race.flip("A", "0", "4")
    t = race.turn
    assert t.stress_found == ["2", "4"] and t.speed == 6
    assert race.car("A").discard == ["H", "0"]
    assert race.car("A").play_area == ["S", "S", "2", "4"]


def test_5_3_move_exactly_speed_to_the_race_line_spot():
    # 5.3: 5 spaces from space 14 (lane 2) to space 19, race-line lane 1.
    race = board({"A": {"at": 14, "lane": 2, "hand": "5123412"}, "B": {"at": 1}})
    race.round(A=(1, "5"), B=(1, "1"))
    assert race.at("A") == (19, 1)


def test_5_3_race_line_taken_changes_with_the_sector():
    # 5.3, 1.5: after the corner after space 22 the race line is lane 2, so the car lands in lane 2.
    race = board({"A": {"at": 19, "hand": "4123412"}, "B": {"at": 1}})
    race.round(A=(1, "4"), B=(1, "1"))
    race.go_on()
    assert race.at("A") == (23, 2)
    # and back to lane 1 after the corner after space 26
    race = board({"A": {"at": 24, "lane": 2, "hand": "3123412"}, "B": {"at": 1}})
    race.round(A=(1, "3"), B=(1, "1"))
    assert race.at("A") == (27, 1)


def test_5_3_other_spot_when_race_line_taken():
    # 5.3: the race-line spot of space 19 is taken by B, so A ends on the other spot.
    race = board({"A": {"at": 15, "hand": "4123412"}, "B": {"at": 19, "hand": PARKED}})
    race.round(B=(1, "0"), A=(1, "4"))
    race.refill()
    assert race.at("B") == (19, 1)
    assert race.at("A") == (19, 2)


def test_5_3_race_line_spot_when_the_other_is_taken():
    # 5.3
    race = board({"A": {"at": 15, "lane": 1, "hand": "4123412"}, "B": {"at": 19, "lane": 2, "hand": PARKED}})
    race.round(B=(1, "0"), A=(1, "4"))
    race.refill()
    assert race.at("A") == (19, 1)


def test_5_4_cars_never_block_passing_through():
    # 5.4: A passes a full space (two cars side by side) and lands beyond them.
    race = board(
        {
            "A": {"at": 15, "hand": "4123412"},
            "B": {"at": 17, "lane": 1, "hand": PARKED},
            "C": {"at": 17, "lane": 2, "hand": PARKED},
        }
    )
    race.round(B=(1, "0"), C=(1, "0"), A=(1, "4"))
    race.turns_until("A")
    assert race.at("A") == (19, 1) and race.turn.moved == 4


def test_5_5_blocked_destination_stops_at_nearest_earlier_free_space():
    # 5.5: space 19 is full: A stops on space 18, race line first; no pushing, no jumping past.
    race = board(
        {
            "A": {"at": 15, "hand": "4123412"},
            "B": {"at": 19, "lane": 1, "hand": PARKED},
            "C": {"at": 19, "lane": 2, "hand": PARKED},
        }
    )
    race.round(B=(1, "0"), C=(1, "0"), A=(1, "4"))
    race.turns_until("A")
    assert race.at("A") == (18, 1)
    assert race.at("B") == (19, 1) and race.at("C") == (19, 2)
    assert race.turn.speed == 4 and race.turn.moved == 3


def test_5_5_blocked_over_several_spaces_and_half_full_space():
    # 5.5: spaces 19 and 18 are full and 17 has its race-line spot taken: A ends on 17, other spot.
    race = board(
        {
            "A": {"at": 14, "lane": 2, "hand": "5123412"},
            "B": {"at": 19, "lane": 1, "hand": PARKED},
            "C": {"at": 19, "lane": 2, "hand": PARKED},
            "D": {"at": 18, "lane": 1, "hand": PARKED},
            "E": {"at": 18, "lane": 2, "hand": PARKED},
            "F": {"at": 17, "lane": 1, "hand": PARKED},
        }
    )
    race.round(B=(1, "0"), C=(1, "0"), D=(1, "0"), E=(1, "0"), F=(1, "0"), A=(1, "5"))
    race.turns_until("A")
    assert race.at("A") == (17, 2)
    assert race.turn.moved == 3 and race.turn.speed == 5


def test_5_5_blocked_landing_uses_the_race_line_of_that_space():
    # 5.5, 1.5: space 12 is full; space 11 is after the corner line after space 10, where the race line is
    # lane 2.
    race = board(
        {
            "A": {"at": 8, "hand": "4123412"},
            "B": {"at": 12, "lane": 1, "hand": PARKED},
            "C": {"at": 12, "lane": 2, "hand": PARKED},
        }
    )
    race.round(B=(1, "0"), C=(1, "0"), A=(1, "4"))
    race.turns_until("A")
    assert race.race_lane(11) == 2
    assert race.at("A") == (11, 2)


def test_5_6_reshuffle_only_when_a_flip_needs_a_card_play_area_stays_out():
    # 5.6 (C8, A8, 14.3): the deck runs out during a Stress flip; only the discard pile (with the Heat just
    # skipped) becomes the new deck; the Stress in the Play Area stays out.
    race = board({"A": {"at": 2, "hand": "S123412", "deck": "H", "discard": "2 4"}, "B": {"at": 20}})
    race.round(B=(1, "1"), A=(1, "S"))
    race.turns_until("A")
    race.flip("A", "H")
    a = race.car("A")
    assert a.deck_size == 0 and a.discard == ["2", "4", "H"]
    race.reject("card_flipped", car="A", card="4", rule="5.6")  # shuffle first
    race.reject("deck_shuffled", car="A", order=["S", "4", "H", "2"], rule="5.6")  # Play Area stays out
    race.ev("deck_shuffled", car="A", order=["4", "H", "2"])
    a = race.car("A")  # a rejected event restores a copy: look the car up again
    assert a.discard == [] and a.deck_size == 3 and a.play_area == ["S"]
    race.flip("A", "4")
    assert race.turn.speed == 4 and a.progress == 6 and a.play_area == ["S", "4"]


def test_5_6_no_reshuffle_while_the_deck_holds_cards():
    # 5.6: reshuffling is refused while the deck still has cards.
    race = board({"A": {"at": 2, "hand": "S123412", "deck": "H 3", "discard": "2"}, "B": {"at": 20}})
    race.round(B=(1, "1"), A=(1, "S"))
    race.turns_until("A")
    race.reject("deck_shuffled", car="A", order=["2"], rule="5.6")


def test_5_6_deck_emptied_by_a_flip_waits_until_a_card_is_needed():
    # 5.6, 12.1, 12.3 (C8): the last deck card is found by the Stress flip; no reshuffle then. At the refill the
    # Play Area is discarded first, so the new deck holds this turn's cards too.
    race = board({"A": {"at": 2, "hand": "S123412", "deck": "3", "discard": "4 4"}, "B": {"at": 20}})
    race.round(B=(1, "1"), A=(1, "S"))
    race.turns_until("A")
    race.flip("A", "3")
    a = race.car("A")
    assert a.deck_size == 0 and a.discard == ["4", "4"] and race.turn.sub == 5
    race.go_on().go_on()
    assert a.discard == ["4", "4", "S", "3"] and a.play_area == []
    race.reject("deck_shuffled", car="A", order=["4", "4"], rule="5.6")
    race.ev("deck_shuffled", car="A", order=["3", "S", "4", "4"])
    race.ev("cards_drawn", car="A", cards=["3"])
    a = race.car("A")
    assert race.state.turn is None or race.state.turn.car != "A"
    assert a.hand_size == 7 and a.deck_size == 3
