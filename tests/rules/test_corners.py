"""Step 7, check corners (# 9.x, A6, C13). Test track corners: after 10 (limit 4), 13 (3), 22 (5), 26 (2)."""

from __future__ import annotations

from .conftest import PARKED, board, usa


def parked(at, lane=None):
    return {"at": at, "hand": PARKED, **({"lane": lane} if lane else {})}


def checks(turn):
    return [(c.after_space, c.limit, c.speed, c.cost, c.paid, c.spinout) for c in turn.corners]


def test_9_1_every_corner_crossed_is_checked_in_track_order():
    # 9.1, 9.3: from space 9 at Speed 5 over the corners after 10 (limit 4) and 13 (limit 3): 1 + 2 Heat.
    race = board({"A": parked(25), "B": {"at": 9, "gear": 2, "hand": "3212341"}})
    race.round(A=(1, "0"), B=(2, "32"))
    race.turns_until("B").go_on()
    assert checks(race.turn) == [(10, 4, 5, 1, 1, False), (13, 3, 5, 2, 2, False)]
    b = race.car("B")
    assert b.engine == 3 and b.discard == ["H", "H", "H"]


def test_9_1_C13_speed_is_played_plus_stress_plus_boost_plus_adrenaline():
    # 9.1, C13: 2 + Stress (1) + boost (1) + adrenaline 1 = 5 at the corner after space 10.
    race = board({"A": parked(25), "B": {"at": 6, "gear": 2, "hand": "2S12341", "deck": "1 1"}})
    race.round(A=(1, "0"), B=(2, "2S"))
    race.turns_until("B").flip("B", "1")
    race.boost("B", "1").adrenaline("B", "move")
    assert race.at("B")[0] == 11
    race.go_on()
    assert checks(race.turn) == [(10, 4, 5, 1, 1, False)]
    assert sorted(race.car("B").play_area) == ["1", "1", "2", "S"]  # the Stress itself adds nothing


def test_9_2_speed_used_even_when_blocking_shortened_the_move():
    # 9.2: B aims for space 12 (full), stops on 11 after the corner: checked at Speed 5.
    race = board({"A": parked(12, 1), "C": parked(12, 2), "B": {"at": 7, "hand": "5123412"}})
    race.round(A=(1, "0"), C=(1, "0"), B=(1, "5"))
    race.turns_until("B")
    assert race.at("B")[0] == 11 and race.turn.moved == 4
    race.go_on()
    assert checks(race.turn) == [(10, 4, 5, 1, 1, False)]


def test_9_2_slipstream_distance_never_added():
    # 9.2, 8.5
    race = board({"A": parked(10), "B": {"at": 5, "hand": "4123412"}})
    race.round(A=(1, "0"), B=(1, "4"))
    race.turns_until("B").slip("B").go_on()
    assert race.at("B")[0] == 11
    assert checks(race.turn) == [(10, 4, 4, 0, 0, False)]
    assert race.car("B").engine == 6


def test_9_3_seven_over_a_limit_of_five_costs_two():
    # 9.3: corner after space 22, limit 5, Speed 7.
    race = board({"A": parked(2), "B": {"at": 17, "gear": 2, "hand": "4312341"}})
    race.round(B=(2, "43"), A=(1, "0"))
    race.go_on()
    assert checks(race.turn) == [(22, 5, 7, 2, 2, False)]
    assert race.car("B").engine == 4


def test_9_3_at_or_below_the_limit_costs_nothing():
    # 9.3
    race = board({"A": parked(2), "B": {"at": 20, "hand": "5123412"}})
    race.round(B=(1, "5"), A=(1, "0"))
    race.go_on()
    assert checks(race.turn) == [(22, 5, 5, 0, 0, False)]
    assert race.car("B").discard == []


def test_9_3_each_corner_paid_separately_first_crossed_first():
    # 9.3, 10.1, 10.5: Speed 6 over 10 (limit 4: 2 Heat) and 13 (limit 3: 3 Heat) with 4 Heat: the first is
    # paid in full, the second cannot be: spinout at the second.
    race = board({"A": parked(25), "B": {"at": 8, "gear": 2, "hand": "4212341", "engine": 4}})
    race.round(A=(1, "0"), B=(2, "42"))
    race.turns_until("B").go_on()
    assert checks(race.turn) == [(10, 4, 6, 2, 2, False), (13, 3, 6, 3, 2, True)]
    assert race.car("B").engine == 0


def test_9_4_paying_down_to_an_empty_engine_is_legal():
    # 9.4: exactly enough Heat: no spinout.
    race = board({"A": parked(25), "B": {"at": 8, "gear": 2, "hand": "4212341", "engine": 5}})
    race.round(A=(1, "0"), B=(2, "42"))
    race.turns_until("B").go_on()
    assert not race.turn.spinout and race.car("B").engine == 0 and race.at("B")[0] == 14


def test_9_4_an_empty_engine_alone_is_never_a_spinout():
    # 9.4: with 0 Heat, crossing a corner at or under its limit is fine.
    race = board({"A": parked(25), "B": {"at": 8, "hand": "4123412", "engine": 0}})
    race.round(A=(1, "0"), B=(1, "4"))
    race.turns_until("B").go_on()
    assert checks(race.turn) == [(10, 4, 4, 0, 0, False)]
    assert not race.turn.spinout


def test_9_1_corners_on_the_second_lap():
    # 9.1 on USA: corner 1 (after space 12, limit 7) on lap 2 is the line at 12 + 69.
    race = board({"A": {"at": 78, "gear": 2, "hand": "4412312"}, "B": {"at": 40}}, track=usa(), laps=2)
    race.round(A=(2, "44"), B=(1, "1"))
    race.go_on()
    assert checks(race.turn) == [(12, 7, 8, 1, 1, False)]
    assert race.turn.corners[0].line == 81


def test_A6_blocked_before_the_corner_line_crosses_nothing():
    # A6: B aims for space 12 (past the line after 10) but spaces 11 and 12 are full: it stops on 10, before
    # the line, and pays nothing although its Speed (6) is over the limit (4).
    race = board(
        {
            "A": parked(11, 1),
            "C": parked(11, 2),
            "D": parked(12, 1),
            "E": parked(12, 2),
            "B": {"at": 6, "gear": 2, "hand": "4212341"},
        }
    )
    race.round(A=(1, "0"), C=(1, "0"), D=(1, "0"), E=(1, "0"), B=(2, "42"))
    race.turns_until("B")
    assert race.at("B")[0] == 10 and race.turn.speed == 6
    race.go_on()
    assert race.turn.corners == [] and race.car("B").engine == 6
