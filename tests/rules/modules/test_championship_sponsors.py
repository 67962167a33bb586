"""Sponsorship cards earned during a turn (MODULES.md 21.6, 21.7, 21.9, MA3, MA4, MA18, MA22; events 1, 2, 8, 11,
16 of 21.8): what a turn earns, judged at the end of step 7 on real turns driven through the engine."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from heatlog.engine.modules.championship.rules import cards_earned
from heatlog.formats.championship import event_card

from ..conftest import PARKED, TRACK, Race, board, make_track

# The test track with press letters A–D on its four corners (after 10, 13, 22, 26; limits 4, 3, 5, 2).
PRESS_TRACK: dict[str, Any] = copy.deepcopy(TRACK)
for _corner, _letter in zip(PRESS_TRACK["corners"], "ABCD", strict=True):
    _corner["press"] = _letter


def earned(race: Race, name: str, event: int) -> list[str]:
    """The reasons of the cards ``name``'s last turn earns under event card ``event``."""
    return [e.why for e in cards_earned(race.state, race.car(name), race.last_turn(name), event_card(event))]


def test_21_7_a_press_corner_at_its_limit_plus_two_earns_a_card() -> None:
    # event 7 (New title sponsor): press corner A, the corner after space 10 (limit 4)
    race = board({"A": {"at": 6, "gear": 2, "hand": "3312341"}, "B": {"at": 1}}, track=PRESS_TRACK)
    race.round(A=(2, "33"), B=(1, "1"))  # 6 -> 12 at speed 6 = 4 + 2
    race.go_on()
    assert earned(race, "A", 7) == ["press corner A (after space 10): speed 6, at 4 + 2 or more"]
    assert earned(race, "A", 3) == []  # event 3's press corner is C (after 22): not crossed


def test_21_7_a_press_corner_below_the_threshold_earns_nothing() -> None:
    race = board({"A": {"at": 8, "gear": 2, "hand": "2312341"}, "B": {"at": 1}}, track=PRESS_TRACK)
    race.round(A=(2, "23"), B=(1, "1"))  # speed 5 < 6: pays 1 Heat, no card
    race.go_on()
    assert race.last_turn("A").corners[0].cost == 1
    assert earned(race, "A", 7) == []


def test_21_7_a_slipstream_across_a_press_corner_earns_at_any_speed() -> None:
    race = board({"A": {"at": 9, "hand": PARKED}, "B": {"at": 7, "gear": 2, "hand": "1212341"}}, track=PRESS_TRACK)
    race.round(A=(1, "1"), B=(2, "12"))  # A 9 -> 10; B 7 -> 10 beside it, then slipstreams 2 over the line
    race.turns_until("B").slip("B")
    assert race.car("B").progress == 12
    assert earned(race, "B", 7) == ["press corner A (after space 10): speed 3, slipstreaming across"]


def test_MA18_a_spinout_in_the_turn_cancels_every_card() -> None:
    race = board({"A": {"at": 8, "gear": 3, "engine": 0, "hand": "4441233"}, "B": {"at": 1}}, track=PRESS_TRACK)
    race.round(A=(3, "444"), B=(1, "1"))  # speed 12 >= 6, but an empty Engine: spinout
    race.go_on()
    assert race.last_turn("A").spinout
    assert earned(race, "A", 7) == [] and earned(race, "A", 2) == []  # neither the press nor the speed record


def test_MA4_the_cars_adjust_does_not_move_the_press_threshold() -> None:
    """A corner-limit change of the car's own (as Adjust symbols do, # 18.17) is not the threshold's: printed
    limit + road-condition token + 2 (MA4)."""
    race = board({"A": {"at": 8, "gear": 2, "hand": "3312341"}, "B": {"at": 1}}, track=PRESS_TRACK)
    limit = race.state.rules.corner_limit
    race.state.rules = dataclasses.replace(
        race.state.rules, corner_limit=lambda state, car, turn, corner: limit(state, car, turn, corner) + 3
    )
    race.round(A=(2, "33"), B=(1, "1"))  # speed 6: the car's limit is 7 (no Heat), the threshold still 4 + 2
    race.go_on()
    assert race.last_turn("A").corners[0].limit == 7 and race.last_turn("A").corners[0].cost == 0
    assert earned(race, "A", 7) == ["press corner A (after space 10): speed 6, at 4 + 2 or more"]


def test_21_8_event_11_going_global_two_cards_per_press_corner() -> None:
    # event 11: press corners B and C (after 13, limit 3; after 22, limit 5)
    race = board({"A": {"at": 11, "gear": 2, "hand": "3412341"}, "B": {"at": 1}}, track=PRESS_TRACK)
    race.round(A=(2, "34"), B=(1, "1"))  # 11 -> 18 over the line after 13 at speed 7 >= 5
    race.go_on()
    assert earned(race, "A", 11) == ["press corner B (after space 13): speed 7, at 3 + 2 or more"] * 2


def test_21_8_event_16_smile_and_wave_only_below_the_limit() -> None:
    # event 16: press corner C (after 22, limit 5)
    slow = board({"A": {"at": 20, "gear": 2, "hand": "1212341"}, "B": {"at": 1}}, track=PRESS_TRACK)
    slow.round(A=(2, "12"), B=(1, "1"))  # speed 3 < 5
    slow.go_on()
    assert earned(slow, "A", 16) == ["press corner C (after space 22): speed 3, below its limit 5"]
    fast = board({"A": {"at": 20, "gear": 2, "hand": "3412341"}, "B": {"at": 1}}, track=PRESS_TRACK)
    fast.round(A=(2, "34"), B=(1, "1"))  # speed 7 >= 5 + 2: nothing under event 16
    fast.go_on()
    assert earned(fast, "A", 16) == [] and earned(fast, "A", 7) == []  # (event 7's press corner is A)


def test_21_8_event_16_a_slipstream_crossing_needs_the_low_speed_too() -> None:
    """Under event 16 a slipstream across the press line earns only below the limit, like any crossing."""
    race = board({"A": {"at": 9, "hand": PARKED}, "B": {"at": 7, "gear": 2, "hand": "1212341"}}, track=PRESS_TRACK)
    race.round(A=(1, "1"), B=(2, "12"))  # B slipstreams over the line after 10 (limit 4) at speed 3
    race.turns_until("B").slip("B")
    assert earned(race, "B", 16) == []  # event 16's press corner is C: not crossed
    smile = dataclasses.replace(event_card(16), press=("A",))
    got = [e.why for e in cards_earned(race.state, race.car("B"), race.last_turn("B"), smile)]
    assert got == ["press corner A (after space 10): speed 3, below its limit 4"]
    fast = board({"A": {"at": 11, "hand": PARKED}, "B": {"at": 5, "gear": 2, "hand": "2412341"}}, track=PRESS_TRACK)
    fast.round(A=(1, "1"), B=(2, "24"))  # B 5 -> 11 at speed 6 (>= 4), then slipstreams 2
    fast.turns_until("B").slip("B")
    assert cards_earned(fast.state, fast.car("B"), fast.last_turn("B"), smile) == []


def test_21_9_21_8_event_1_the_first_three_across_the_line_after_lap_1() -> None:
    """New grandstand inauguration: cards for the first three to complete lap 1, in turn order (# 21.9)."""
    cars = {
        "A": {"at": 29, "gear": 1, "hand": "4123412"},
        "B": {"at": 28, "gear": 1, "hand": "4123412"},
        "C": {"at": 27, "gear": 1, "hand": "4123412"},
        "D": {"at": 26, "gear": 2, "hand": "4412312"},
    }
    race = board(cars, track=PRESS_TRACK, laps=2)
    race.round(A=(1, "4"), B=(1, "4"), C=(1, "4"), D=(2, "44"))  # all four cross the line (30) this round
    why = {}
    for name in "ABCD":
        race.turns_until(name)
        race.go_on()
        why[name] = [w for w in earned(race, name, 1) if "lap 1" in w]
    assert why == {
        "A": ["first across the line after lap 1 (New grandstand inauguration)"],
        "B": ["second across the line after lap 1 (New grandstand inauguration)"],
        "C": ["third across the line after lap 1 (New grandstand inauguration)"],
        "D": [],
    }


def test_21_8_event_2_a_speed_of_15_or_more() -> None:
    straight = make_track(spaces=40, corners=((5, 4, 2),), id="straight")  # one corner: 6 .. 40 is straight
    race = board({"A": {"at": 10, "gear": 4, "hand": "4443123"}, "B": {"at": 1}}, track=straight)
    race.round(A=(4, "4443"), B=(1, "1"))  # speed 15
    race.go_on()
    assert earned(race, "A", 2) == ["speed 15: 15 or more (New speed record!)"]
    race = board({"A": {"at": 10, "gear": 4, "hand": "4433123"}, "B": {"at": 1}}, track=straight)
    race.round(A=(4, "4433"), B=(1, "1"))  # speed 14
    race.go_on()
    assert earned(race, "A", 2) == []


def test_MA22_21_8_event_8_passing_three_cars_in_a_turn() -> None:
    """Cars on the spaces strictly between the start-of-turn space and the space reached count (both spots)."""
    parked = {"hand": PARKED}
    cars = {"B": {"at": 15, "lane": 1, **parked}, "C": {"at": 15, "lane": 2, **parked}, "D": {"at": 17, **parked}}
    race = board({**cars, "A": {"at": 13, "gear": 3, "hand": "3331234"}}, track=PRESS_TRACK)
    race.round(B=(1, "0"), C=(1, "0"), D=(1, "0"), A=(3, "333"))  # A 13 -> 22: passes B, C (15) and D (17)
    race.turns_until("A").go_on()
    assert race.car("A").progress == 22
    assert "passes 3 cars in the turn (First live televised race)" in earned(race, "A", 8)
    two = board(
        {"B": {"at": 15, **parked}, "D": {"at": 22, **parked}, "A": {"at": 13, "gear": 3, "hand": "3331234"}},
        track=PRESS_TRACK,
    )
    two.round(B=(1, "0"), D=(1, "0"), A=(3, "333"))  # D on the space reached does not count
    two.turns_until("A").go_on()
    assert not [w for w in earned(two, "A", 8) if "passes" in w]
