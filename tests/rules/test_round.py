"""Round structure: simultaneous steps 1–2, then whole turns front to back in a fixed order (# 2.x, 12.4)."""

from __future__ import annotations

from .conftest import board


def three_cars():
    return board(
        {
            "A": {"at": 3, "hand": "1111222"[:3] + "2334"},
            "B": {"at": 5},
            "C": {"at": 5, "lane": 2, "hand": "4432211"},
        }
    )


def test_2_1_steps_1_and_2_simultaneous_in_any_order():
    # 2.1: every car shifts (step 1), then every car plays (step 2), in any order.
    race = three_cars()
    assert race.state.step == 1 and sorted(race.state.pending) == ["A", "B", "C"]
    race.gears(C=2, A=1, B=1)
    assert race.state.step == 2
    race.play(B="1", C="44", A="1")
    assert race.state.step == 3


def test_2_1_no_playing_before_every_gear_is_chosen():
    # 2.1
    race = three_cars()
    race.gears(A=1)
    race.reject("cards_played", car="A", cards=["1"], rule="2.1")


def test_2_1_turn_events_wait_for_steps_1_and_2():
    # 2.1: a boost (step 5) before every car has played is out of step.
    race = three_cars()
    race.gears(A=1, B=1, C=1)
    err = race.reject("boost", car="B", rule="2.1")
    assert "waiting for" in str(err)


def test_2_1_then_steps_3_to_9_car_by_car_from_the_front():
    # 2.1, 2.4, 12.4: B (race line, space 5) first, then C beside it, then A.
    race = three_cars()
    race.round(A=(1, "1"), B=(1, "1"), C=(2, "44"))
    assert race.turn.car == "B"
    race.refill()
    assert race.turn.car == "C"  # # 12.4: after B's refill, the next car of the order
    race.refill()
    assert race.turn.car == "A"
    race.refill()
    assert [t.car for t in race.history] == ["B", "C", "A"]
    assert race.state.round == 2


def test_2_2_order_fixed_at_round_start_even_after_overtaking():
    # 2.2: C passes B during its turn; the round's order does not change.
    race = three_cars()
    race.round(A=(1, "1"), B=(1, "1"), C=(2, "44"))
    race.refill()  # B: 5 -> 6; C's turn starts and its cards are revealed: 5 -> 13
    assert race.car("C").progress == 13 and race.car("B").progress == 6
    race.refill()
    assert race.state.order == ["B", "C", "A"]
    assert race.turn.car == "A"
    race.refill()
    assert race.state.order[0] == "C"  # the next round is ordered afresh


def test_2_2_later_lap_is_ahead_of_earlier_lap():
    # 2.2: a car on lap 2 on space 2 is ahead of a car on lap 1 on space 29.
    race = board({"A": {"at": 29}, "B": {"at": 32}}, laps=2)
    assert race.state.track.space_of(32) == 2
    assert race.state.order == ["B", "A"]


def test_2_2_side_by_side_ranked_by_the_race_line_of_that_space():
    # 2.2, 1.5: on space 24 the race line is lane 2.
    race = board({"A": {"at": 24, "lane": 1}, "B": {"at": 24, "lane": 2}})
    assert race.race_lane(24) == 2
    assert race.state.order == ["B", "A"]


def test_2_3_nine_steps_compulsory_and_situational():
    # 2.3: after the reveal and move (step 3, compulsory) React (5), Slipstream (6) and Discard (8) may be
    # skipped; the refill (9) may not: the turn waits for the draw.
    from heatlog.engine import waiting_for

    race = three_cars()
    race.round(A=(1, "1"), B=(1, "1"), C=(1, "4"))
    w = waiting_for(race.state)
    assert w.step == 5 and w.cars == ["B"]
    assert {"boost", "cards_discarded"} <= set(w.optional)
    # only what is open now: cooldown needs Heat in hand (# 7.3), adrenaline belongs to the last car (# 6.1)
    assert ("cooldown" in w.optional) == (race.state.cars["B"].hand["H"] > 0)
    assert "adrenaline" not in w.optional
    assert "cards_drawn" in w.kinds and "cards_drawn" not in w.optional
    race.go_on()  # skip React and Slipstream: corners are checked
    assert race.turn.sub == 8
    race.go_on()  # skip Discard
    assert race.turn.sub == 9 and race.turn.car == "B"  # the refill is compulsory


def test_2_3_a_later_step_closes_the_optional_ones():
    # 2.3: once a car discards (step 8), React (step 5) is over for it.
    race = three_cars()
    race.round(A=(1, "1"), B=(1, "1"), C=(1, "4"))
    race.discard("B", "2")
    race.reject("boost", car="B", rule="7.5")
    race.reject("cooldown", car="B", count=1, rule="7.2")


def test_2_4_one_car_completes_its_turn_before_the_next():
    # 2.4: C cannot act while B's turn is under way; the refused event changes nothing.
    race = three_cars()
    race.round(A=(1, "1"), B=(1, "1"), C=(2, "44"))
    assert race.turn.car == "B" and race.turn.sub == 5
    race.reject("boost", car="C", rule="2.4")
    race.reject("cards_discarded", car="A", cards=["1"], rule="2.4")
    assert race.turn.car == "B" and race.turn.sub == 5  # B may still react
    race.boost("B", "4")
    assert race.car("B").progress == 10


def test_2_4_other_cars_cards_stay_face_down_until_their_turn():
    # 2.4: in open mode C's played cards are committed, not revealed, until its turn comes.
    race = three_cars()
    race.round(A=(1, "1"), B=(1, "1"), C=(2, "44"))
    c = race.car("C")
    assert c.committed == ["4", "4"] and c.play_area == []
    race.refill()
    assert c.committed is None and c.play_area == ["4", "4"]


def test_12_4_next_car_after_replenish_and_new_round_after_last():
    # 12.4
    race = board({"A": {"at": 3}, "B": {"at": 1}})
    race.round(A=(1, "1"), B=(1, "2"))
    assert race.turn.car == "A"
    race.refill()
    assert race.turn.car == "B"
    race.refill()
    assert race.state.round == 2 and race.state.step == 1 and race.state.turn is None


def test_2_2_round_order_and_adrenaline_from_the_board():
    # 2.2, 6.1: front to back, the race line first on a shared space; the last car gets adrenaline.
    from heatlog.engine import round_order

    race = three_cars()
    assert round_order(race.state) == (["B", "C", "A"], ["A"])
    assert (race.state.order, race.state.adrenaline) == (["B", "C", "A"], ["A"])
    race.car("A").progress = 9  # a board changed by hand: the order a round would start with
    assert round_order(race.state)[0][0] == "A"


def test_12_4_last_turn_outlives_the_round():
    # 12.4: the round ends with A's refill; its turn is still the car's last finished turn in round 2.
    race = three_cars()
    assert race.state.last_turn("A") is None
    race.round(A=(1, "1"), B=(1, "1"), C=(2, "44"))
    race.refill().refill().refill()
    assert race.state.round == 2 and race.state.turns == []
    last = race.state.last_turn("A")
    assert last is not None and (last.round, last.car, last.played) == (1, "A", ["1"])
    assert race.state.copy().last_turn("C") is race.state.last_turn("C")
