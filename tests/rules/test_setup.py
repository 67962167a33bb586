"""Set-up: components, the 18-card deck, the grid, spaces and spots, laps, public information (# 1.x, A14)."""

from __future__ import annotations

from collections import Counter

import pytest

from heatlog.engine import IllegalEvent, MalformedInput, apply
from heatlog.engine.cards import starting_deck
from heatlog.engine.position import state_to_position

from .conftest import TRACK, board, deck, ev, make_track, race_started, rule_cited, start_race, usa


def test_1_1_per_player_components():
    # 1.1: 12 Basic (three each of 1-4), Starting Upgrades 0, 5 and Heat, 3 Stress, 6 further Heat.
    race = start_race(["A", "B", "C"])
    for car in race.state.cars.values():
        whole = Counter({c: n for c, n in car.pool.items() if n}) + Counter({"H": car.engine})
        assert whole == Counter({"1": 3, "2": 3, "3": 3, "4": 3, "0": 1, "5": 1, "H": 7, "S": 3})
        assert sum(whole.values()) == 24


def test_1_2_deck_of_18_engine_6_discard_empty_gear_1_draw_7():
    # 1.2: the 18-card deck (with the Heat upgrade inside), 6 Heat on the Engine, empty discard, gear 1, 7 drawn.
    assert Counter(starting_deck()) == Counter({"1": 3, "2": 3, "3": 3, "4": 3, "0": 1, "5": 1, "H": 1, "S": 3})
    race = start_race(decks={"A": "H S 5 0 1 2 3"})
    a = race.car("A")
    assert a.engine == 6 and a.discard == [] and a.gear == 1
    assert a.hand_size == 7 and a.deck_size == 11
    assert race.hand("A") == sorted("HS50123")
    assert race.state.phase == "race" and race.state.round == 1


def test_1_2_shuffle_order_must_be_the_18_starting_cards():
    # 1.2: a shuffle order that is not the 18-card starting deck is refused.
    state = race_started().state
    apply(state, ev("grid_set", order=["A", "B"]))
    four_fours = deck()[:-1] + ["4"]
    for bad in (deck()[:17], four_fours):
        before = state_to_position(state)
        with pytest.raises(IllegalEvent) as info:
            apply(state, ev("deck_shuffled", car="A", order=bad))
        assert rule_cited(info.value, "1.2")
        assert state_to_position(state) == before
    # drawing before the starting shuffle is refused too (# 1.2)
    with pytest.raises(IllegalEvent) as info:
        apply(state, ev("cards_drawn", car="A", cards=["1"]))
    assert rule_cited(info.value, "1.2")
    apply(state, ev("deck_shuffled", car="A", order=deck()))
    with pytest.raises(IllegalEvent) as info:  # one starting shuffle per car
        apply(state, ev("deck_shuffled", car="A", order=deck()))
    assert rule_cited(info.value, "1.2")


def test_1_2_starting_draw_names_the_top_seven():
    # 1.2: in open mode the starting draw must be the top seven cards of the recorded shuffle.
    state = race_started().state
    apply(state, ev("grid_set", order=["A", "B"]))
    d = deck("1111"[:3] + "2222"[:3] + "S")
    apply(state, ev("deck_shuffled", car="A", order=d))
    with pytest.raises(IllegalEvent):
        apply(state, ev("cards_drawn", car="A", cards=d[1:8]))
    with pytest.raises(IllegalEvent) as info:  # 8 cards: draw up to seven
        apply(state, ev("cards_drawn", car="A", cards=d[:8]))
    assert rule_cited(info.value, "12.2")
    apply(state, ev("cards_drawn", car="A", cards=d[:7]))
    assert state.cars["A"].hand_size == 7


def test_1_3_spinout_stress_comes_from_the_reserve_not_the_deck():
    # 1.3: the Stress a spinout adds comes from the reserve beside the board: the car's own cards are unchanged.
    race = board({"A": {"at": 8, "gear": 2, "engine": 0, "hand": "4411223"}, "B": {"at": 1}})
    unseen_before = dict(race.car("A").pool)
    race.round(A=(2, "44"), B=(1, "1"))
    race.go_on()  # A: speed 8 over corner 10 (limit 4) with an empty Engine: spinout
    a = race.car("A")
    assert race.last_turn("A").spinout
    assert a.stress_taken == 1
    assert a.pool["S"] == unseen_before["S"] + 1  # one more Stress than the car started with
    assert "S" not in a.discard


def test_1_4_grid_filled_from_spot_one():
    # 1.4: the (random) starting order fills grid spots from the lowest number upward.
    race = start_race(["A", "B", "C"], grid=["C", "A", "B"])
    n = TRACK["spaces"]
    assert race.at("C") == (0, 1)  # spot 1: space 30 (progress 30 - 30), lane 1
    assert race.at("A") == (0, 2)  # spot 2: space 30, lane 2
    assert race.at("B") == (-1, 1)  # spot 3: space 29
    assert race.state.track.space_of(race.car("B").progress) == n - 1
    assert race.state.order == ["C", "A", "B"]


def test_1_4_grid_is_set_once_and_names_every_car():
    # 1.4
    state = race_started().state
    with pytest.raises(MalformedInput):
        apply(state, ev("grid_set", order=["A", "A"]))
    apply(state, ev("grid_set", order=["B", "A"]))
    with pytest.raises(IllegalEvent) as info:
        apply(state, ev("grid_set", order=["A", "B"]))
    assert rule_cited(info.value, "1.4")


def test_1_5_lane_change_adds_no_distance():
    # 1.5: a car outside the race line moving 3 spaces ends 3 spaces on, on the race-line spot.
    race = board({"A": {"at": 2, "lane": 2, "hand": "3111222"}, "B": {"at": 20}})
    assert race.race_lane(2) == 1
    race.round(A=(1, "3"), B=(1, "1"))
    race.turns_until("A")
    assert race.at("A") == (5, 1)


def test_1_5_race_line_spot_is_ahead_in_the_same_space():
    # 1.5 (and C9): side by side, the car on the printed race-line spot is ahead "for all purposes".
    race = board({"A": {"at": 5, "lane": 2}, "B": {"at": 5, "lane": 1}})
    assert race.state.order == ["B", "A"]
    # on spaces 11-13 the race line is lane 2: there the lane-2 car is ahead
    race = board({"A": {"at": 12, "lane": 2}, "B": {"at": 12, "lane": 1}})
    assert race.race_lane(12) == 2
    assert race.state.order == ["A", "B"]


def test_1_6_usa_is_two_laps_first_crossing_is_a_lap():
    # 1.6: USA = 2 laps; crossing the line once completes lap one only.
    data = usa()
    assert data["laps"] == 2
    race = board(
        {"A": {"at": 66, "hand": "4411223", "gear": 2}, "B": {"at": 60}},
        track=data,
        laps=2,
    )
    race.round(A=(2, "44"), B=(1, "1"))
    race.turns_until("B")
    a = race.car("A")
    assert a.progress == 74 and race.state.laps_done(a) == 1 and race.state.lap_of(a) == 2
    assert not a.finished and not race.last_turn("A").finished
    assert race.state.track.space_of(a.progress) == 5


def test_1_6_second_crossing_completes_the_race():
    # 1.6
    race = board({"A": {"at": 135, "hand": "4411223", "gear": 2}, "B": {"at": 100}}, track=usa(), laps=2)
    race.round(A=(2, "44"), B=(1, "1"))
    race.turns_until("B").refill()
    assert race.car("A").finished and race.state.hall_of_fame == ["A"]


def test_1_7_table_mode_hands_and_decks_are_hidden_engine_is_public():
    # 1.7: hands are concealed (table mode keeps no hand), Engine counts are public.
    race = start_race(mode="table")
    pos = race.position()
    for car in pos["cars"]:
        assert car["hand"] is None and car["deck"] is None
        assert car["engine"] == 6 and car["hand_size"] == 7
    assert "hand of A" in pos["unknown"]


def test_1_7_table_mode_refuses_named_draws_and_shuffle_orders():
    # 1.7: in table mode nobody knows what was drawn or how a deck was shuffled.
    state = race_started(mode="table").state
    apply(state, ev("grid_set", order=["A", "B"]))
    with pytest.raises(IllegalEvent) as info:
        apply(state, ev("deck_shuffled", car="A", order=deck()))
    assert rule_cited(info.value, "1.7")
    apply(state, ev("deck_shuffled", car="A"))
    with pytest.raises(IllegalEvent) as info:
        apply(state, ev("cards_drawn", car="A", cards=list("1234123")))
    assert rule_cited(info.value, "1.7")


def test_1_7_discard_pile_is_public_as_a_record_of_public_cards():
    # 1.7: only the top of a discard pile is public at the table; every card reaching it was seen when it got
    # there (played, flipped, discarded, paid), so the log's discard pile is exactly those cards, in order.
    race = board({"A": {"at": 2, "hand": "S123412", "deck": "H0 3 4"}, "B": {"at": 20}})
    race.round(A=(1, "S"), B=(1, "1"))
    race.turns_until("A").flip("A", "H", "0", "3")
    assert race.car("A").discard == ["H", "0"]
    assert race.car("A").discard[-1] == "0"  # the public top card


def test_A14_a_base_race_has_two_to_six_cars():
    # A14: solo play is not a base race; at least 2 cars (and the grid holds at most 6).
    for n in (1, 7):
        with pytest.raises(MalformedInput):
            apply(
                None,
                ev(
                    "race_started",
                    track=make_track(grid=8),
                    laps=1,
                    cars=[{"name": f"C{i}", "colour": "red"} for i in range(n)],
                    variant="standard",
                    handicap=[],
                    mode="open",
                ),
            )
    start_race(["A", "B"])
    start_race(["A", "B", "C", "D", "E", "F"])
