"""Each contradiction between the seeds (C1–C14) and the resolution the engine follows."""

from __future__ import annotations

from heatlog.engine import IllegalEvent

from .conftest import PARKED, board, make_track, start_race


def parked(at, lane=None):
    return {"at": at, "hand": PARKED, **({"lane": lane} if lane else {})}


def test_C1_two_gear_shift_paid_from_engine_not_hand():
    # C1 (3.2, 3.3, 15.1): Engine -> discard; Heat in hand never pays.
    race = board({"A": {"at": 5, "hand": "12HH341"}, "B": {"at": 2}})
    race.gears(A=3)
    a = race.car("A")
    assert a.engine == 5 and a.discard == ["H"] and a.hand["H"] == 2 and a.hand_size == 7
    race = board({"A": {"at": 5, "hand": "12HH341", "engine": 0}, "B": {"at": 2}})
    race.reject("gear_chosen", car="A", gear=3, rule="3.3")


def test_C2_paid_heat_goes_to_discard_not_hand():
    # C2 (15.1): a boost's Heat lands on the discard pile; the hand does not grow.
    race = board({"A": parked(20), "B": {"at": 3, "hand": "1123412", "deck": "2"}})
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B").boost("B", "2")
    b = race.car("B")
    assert b.engine == 5 and b.discard == ["H"] and b.hand_size == 6 and b.hand["H"] == 0


def test_C3_basic_cards_are_1_to_4_upgrades_0_and_5_are_not_found_by_flips():
    # C3 (4.3, 14.2)
    race = start_race()
    pool = race.car("A").pool
    assert [pool[c] for c in "1234"] == [3, 3, 3, 3] and pool["0"] == 1 and pool["5"] == 1
    race = board({"A": parked(20), "B": {"at": 3, "hand": "S123412", "deck": "0 5 1"}})
    race.round(A=(1, "0"), B=(1, "S"))
    race.turns_until("B").flip("B", "0", "5", "1")
    assert race.turn.stress_found == ["1"] and race.car("B").discard == ["0", "5"]


def test_C4_heat_has_no_speed_use():
    # C4 (4.2, 13): Heat is not a 0-speed card; it is refused unless the hand is cluttered, where nothing moves.
    race = board({"A": parked(20), "B": {"at": 3, "hand": "1H23412"}})
    race.gears(A=1, B=2)
    race.reject("cards_played", car="B", cards=["1", "H"], rule="4.2")
    race = board({"A": parked(20), "B": {"at": 3, "hand": "1HHHHHH"}})
    race.round(A=(1, "0"), B=(2, "1H"))
    race.turns_until("B")
    assert race.turn.cluttered and race.car("B").progress == 3


def test_C5_heat_upgrade_starts_in_the_deck_six_heat_on_engine():
    # C5 (1.2)
    race = start_race()
    a = race.car("A")
    assert a.engine == 6 and a.pool["H"] == 1


def test_C6_boost_pays_heat_and_flips_until_basic():
    # C6 (7.5, 14.1)
    race = board({"A": parked(20), "B": {"at": 3, "hand": "1123412", "deck": "H S 3"}})
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B").boost("B", "H", "S", "3")
    assert race.car("B").engine == 5 and race.turn.boost_card == "3" and race.turn.speed == 4


def test_C7_react_symbols_from_gear_boost_in_every_gear():
    # C7 (7.2, 7.5): gear 4 has no cooldown but may boost.
    race = board({"A": parked(25), "B": {"at": 3, "gear": 4, "hand": "1234HHH", "deck": "1"}})
    race.round(A=(1, "0"), B=(4, "1234"))
    race.turns_until("B")
    race.reject("cooldown", car="B", count=1, rule="7.2")
    race.boost("B", "1")


def test_C8_reshuffle_only_when_a_card_is_needed_play_area_out():
    # C8 (5.6): the deck empties during the turn; nothing happens until a card is needed; then only the discard
    # pile (which by then holds the discarded Play Area, # 12.1) is shuffled.
    race = board({"A": parked(20), "B": {"at": 3, "hand": "S123412", "deck": "2", "discard": "4"}})
    race.round(A=(1, "0"), B=(1, "S"))
    race.turns_until("B").flip("B", "2")
    b = race.car("B")
    assert b.deck_size == 0 and b.discard == ["4"] and race.turn.sub == 5  # no immediate reshuffle
    race.reject("deck_shuffled", car="B", order=["4"], rule="5.6")  # refill: the Play Area is now discarded
    race.ev("deck_shuffled", car="B", order=["2", "S", "4"])
    assert race.car("B").deck_size == 3


def test_C9_printed_race_line_not_the_inside_edge():
    # C9 (1.5): on spaces 11-13 of the test track the race line is lane 2.
    race = board({"A": {"at": 12, "lane": 1}, "B": {"at": 12, "lane": 2}})
    assert race.state.order == ["B", "A"]
    track = make_track(corners=((10, 4, 1), (26, 5, 2)), from_finish=2)
    race = board({"A": {"at": 5, "lane": 1}, "B": {"at": 5, "lane": 2}}, track=track)
    assert race.state.order == ["B", "A"]


def test_C10_winner_is_not_first_to_resolve_a_turn():
    # C10 (16.7, 16.8): A crosses first in turn order; B goes further in the same round and wins.
    race = board({"A": {"at": 28, "hand": "3123412"}, "B": {"at": 27, "hand": "5123412"}})
    race.round(A=(1, "3"), B=(1, "5"))
    race.refill().refill()
    assert race.state.hall_of_fame == ["B", "A"]


def test_C11_adrenaline_counts_cars_that_started():
    # C11 (6.1, 6.4): five cars started -> two holders, even with three left.
    race = board(
        {
            "A": {"at": 5},
            "B": {"at": 4},
            "C": {"at": 3},
            "D": {"at": 31, "finished": True},
            "E": {"at": 32, "finished": True},
        }
    )
    assert race.state.started == 5 and race.state.adrenaline == ["B", "C"]


def test_C12_cluttered_hand_is_the_single_exception_for_heat():
    # C12 (13.5): Heat is played only when the hand cannot supply the gear's playable cards.
    race = board({"A": parked(20), "B": {"at": 3, "hand": "12HHHHH", "gear": 2}})
    race.gears(A=1, B=3)
    race.play(B="12H")
    race = board({"A": parked(20), "B": {"at": 3, "hand": "12HHHHH", "gear": 2}})
    race.gears(A=1, B=2)
    race.reject("cards_played", car="B", cards=["1", "H"], rule="4.2")


def test_C13_corner_speed_is_the_play_area_plus_adrenaline():
    # C13 (9.1): Stress (replaced by a 2) + 3 + boost 1 + adrenaline 1 = 7 at the corner after 22 (limit 5).
    race = board({"A": parked(28), "B": {"at": 16, "gear": 2, "hand": "S312341", "deck": "2 1"}})
    race.round(A=(1, "0"), B=(2, "S3"))
    race.turns_until("B").flip("B", "2").boost("B", "1").adrenaline("B", "move")
    race.go_on()
    [c] = race.turn.corners
    assert (c.after_space, c.speed, c.cost) == (22, 7, 2)


def test_C14_omissions_of_the_short_summary():
    # C14: slipstream blocked/finish-restricted (8.4, 8.6), 12.2 exception, boost once (7.5), Stress keeps
    # flipping (5.2).
    race = board({"A": parked(30), "B": {"at": 25, "hand": "4123412", "deck": "S H 2 1"}})
    race.round(A=(1, "0"), B=(1, "4"))
    race.turns_until("B")
    race.reject("slipstream", car="B", taken=True, rule="8.6")  # would cross the final line
    race.boost("B", "S", "H", "2")
    assert race.turn.boost_card == "2"
    race.reject("boost", car="B", rule="7.5")
    race = board({"A": parked(25), "B": {"at": 9, "hand": "5123412", "engine": 0}})
    race.round(A=(1, "0"), B=(1, "5"))
    race.turns_until("B").go_on()
    assert race.last_turn("B").spinout and race.last_turn("B").drawn == 0  # 12.2
    assert isinstance(race.reject("cards_drawn", car="B", cards=["4"]), IllegalEvent)
