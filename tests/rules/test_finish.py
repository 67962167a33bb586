"""Finish, ranking and Hall of Fame (# 16.x, 1.6, C10, A1, A5, A9). Test track: 30 spaces; the corner after
space 26 has limit 2."""

from __future__ import annotations

from .conftest import PARKED, board, make_track


def parked(at, lane=None):
    return {"at": at, "hand": PARKED, **({"lane": lane} if lane else {})}


def test_16_1_first_crossing_of_two_laps_races_on():
    # 16.1, 1.6: crossing at the end of lap one keeps the car racing normally.
    race = board({"A": {"at": 28, "hand": "4123412"}, "B": parked(10)}, laps=2)
    race.round(A=(1, "4"), B=(1, "0"))
    race.refill().refill()
    a = race.car("A")
    assert a.progress == 32 and not a.finished and race.state.hall_of_fame == []
    assert race.state.order[0] == "A" and race.state.round == 2


def test_16_1_final_crossing_finishes():
    # 16.1
    race = board({"A": {"at": 58, "hand": "4123412"}, "B": parked(10)}, laps=2)
    race.round(A=(1, "4"), B=(1, "0"))
    race.refill()
    assert race.last_turn("A").finished and race.state.finished_round == ["A"]


def test_16_2_finisher_completes_its_turn_and_the_round_goes_on():
    # 16.2, 16.5: A crosses, then still boosts; B, behind, still takes its turn in this round.
    race = board({"A": {"at": 28, "hand": "4123412", "deck": "3"}, "B": parked(5)})
    race.round(A=(1, "4"), B=(1, "0"))
    assert race.at("A")[0] == 32 and race.state.hall_of_fame == []
    race.boost("A", "3")  # 16.5: boost still available after crossing
    assert race.at("A")[0] == 35
    race.refill()
    assert race.state.finished_round == ["A"] and race.state.hall_of_fame == []
    assert race.turn.car == "B"  # the round is finished by the other cars (# 16.2)
    race.refill()
    assert race.state.hall_of_fame == ["A"] and race.state.round == 2


def test_16_2_A9_adrenaline_move_after_the_final_crossing():
    # 16.2, A9: the adrenaline +1 is legal movement after crossing.
    race = board({"A": parked(29), "B": {"at": 27, "hand": "4123412"}})
    assert race.state.adrenaline == ["B"]
    race.round(A=(1, "0"), B=(1, "4"))
    race.turns_until("B")
    assert race.at("B")[0] == 31
    race.adrenaline("B", "move")
    assert race.at("B")[0] == 32 and race.turn.speed == 5
    race.refill()
    assert race.state.hall_of_fame == ["B"]


def test_16_3_pre_finish_corner_is_paid_on_the_finishing_turn():
    # 16.3: Speed 8 over the corner after 26 (limit 2) costs 6: paid in full, the car finishes.
    race = board({"A": {"at": 25, "gear": 2, "hand": "4412312", "engine": 6}, "B": parked(5)})
    race.round(A=(2, "44"), B=(1, "0"))
    race.go_on()
    assert [(c.after_space, c.cost, c.spinout) for c in race.turn.corners] == [(26, 6, False)]
    race.refill()
    assert race.last_turn("A").finished and race.car("A").engine == 0


def test_16_3_A5_spinout_at_a_pre_finish_corner_has_not_finished():
    # 16.3, A5, A1: same move with 5 Heat: spinout, back to space 26, 1 Stress, gear 1, not finished.
    race = board({"A": {"at": 25, "gear": 2, "hand": "4412312", "engine": 5}, "B": parked(5)})
    race.round(A=(2, "44"), B=(1, "0"))
    assert race.at("A")[0] == 33
    race.go_on()
    t = race.turn
    assert t.spinout and race.at("A") == (26, 2) and race.car("A").gear == 1 and t.spinout_stress == 1
    race.refill()
    assert not race.last_turn("A").finished and not race.car("A").finished
    race.refill()
    assert race.state.hall_of_fame == [] and "A" in race.state.order


def test_16_4_corners_beyond_the_final_line_are_ignored():
    # 16.4: from 28 at Speed 16 the car reaches 44, past the lines after 10 and 13 of a next lap: no checks.
    race = board({"A": {"at": 28, "gear": 4, "hand": "4435123"}, "B": parked(5)})
    race.round(A=(4, "4435"), B=(1, "0"))
    assert race.at("A")[0] == 44
    race.go_on()
    assert race.turn.corners == [] and race.car("A").engine == 6


def test_16_5_boost_after_crossing_needs_heat_and_is_once():
    # 16.5
    race = board({"A": {"at": 28, "hand": "4123412", "deck": "2 2", "engine": 1}, "B": parked(5)})
    race.round(A=(1, "4"), B=(1, "0"))
    race.boost("A", "2")
    race.reject("boost", car="A", rule="7.5")
    race = board({"A": {"at": 28, "hand": "4123412", "engine": 0}, "B": parked(5)})
    race.round(A=(1, "4"), B=(1, "0"))
    race.reject("boost", car="A", rule="7.6")


def test_16_6_no_slipstream_across_or_after_the_final_line():
    # 16.6 (8.6)
    from heatlog.engine import slipstream_status

    race = board({"A": parked(30), "B": {"at": 24, "hand": "5123412"}})
    race.round(A=(1, "0"), B=(1, "5"))
    race.turns_until("B")
    assert race.at("B")[0] == 29 and not slipstream_status(race.state, race.car("B"))[0]
    race.reject("slipstream", car="B", taken=True, rule="8.6")  # the final lap (# 8.6), not # 8.1


def test_16_7_C10_same_round_furthest_beyond_the_line_ranks_first():
    # 16.7, C10: A crosses first (to 31) but B, moving later, goes further (33): B ranks first.
    race = board({"A": {"at": 27, "hand": "4123412"}, "B": {"at": 26, "gear": 2, "hand": "4312341"}})
    race.round(A=(1, "4"), B=(2, "43"))
    race.refill()
    race.go_on().go_on().refill()
    assert race.state.hall_of_fame == ["B", "A"]


def test_16_7_side_by_side_finishers_race_line_first():
    # 16.7: both end on space 2 beyond the line (race line lane 1); no shared place.
    race = board({"A": {"at": 28, "hand": "4123412"}, "B": {"at": 27, "hand": "5123412"}})
    race.round(A=(1, "4"), B=(1, "5"))
    race.refill().refill()
    assert race.state.hall_of_fame == ["A", "B"]
    assert race.race_lane(32) == 1


def test_16_7_side_by_side_on_a_lane_2_race_line():
    # 16.7, C9: where the race line beyond the finish is lane 2 (the printed line, whatever side it is on),
    # A takes lane 2 on space 2 and B the spot beside it, lane 1: the lane-2 car ranks first.
    track = make_track(corners=((10, 4, 1), (26, 5, 2)), from_finish=2)
    race = board({"A": {"at": 28, "hand": "4123412"}, "B": {"at": 27, "hand": "5123412"}}, track=track)
    race.round(A=(1, "4"), B=(1, "5"))
    assert race.at("A") == (32, 2)
    race.refill()
    assert race.at("B") == (32, 1)
    race.refill()
    assert race.state.hall_of_fame == ["A", "B"]


def test_16_8_finishers_leave_the_track_earlier_rounds_rank_ahead():
    # 16.8: A finishes in round 1 just past the line; B finishes in round 2 far beyond: A stays ahead. The race
    # goes on until every car has finished.
    race = board(
        {
            "A": {"at": 29, "hand": "2123412"},
            "B": {"at": 27, "hand": "1412341", "gear": 2, "deck": "4 4"},
            "C": parked(3),
        }
    )
    race.round(A=(1, "2"), B=(1, "1"), C=(1, "0"))
    race.refill().refill().refill()
    assert race.state.hall_of_fame == ["A"] and race.state.finish_rounds["A"] == 1
    assert (1, 1) not in race.state.spots and "A" not in race.state.order  # left the track
    race.reject("gear_chosen", car="A", gear=2, rule="16.8")
    race.round(B=(2, "44"), C=(1, "1"))
    race.refill()
    assert race.car("B").progress == 36
    race.refill()
    assert race.state.hall_of_fame == ["A", "B"] and race.state.phase == "race"
    assert race.state.order == ["C"]


def test_16_8_race_is_over_when_every_car_has_finished():
    # 16.8
    race = board({"A": {"at": 29, "hand": "2123412"}, "B": {"at": 28, "hand": "4123412"}})
    race.round(A=(1, "2"), B=(1, "4"))
    race.refill().refill()
    assert race.state.phase == "over" and race.state.hall_of_fame == ["B", "A"]
    race.reject("gear_chosen", car="A", gear=2)


def test_16_9_no_running_points_only_the_order():
    # 16.9: the standings are the Hall of Fame, then cars still racing front to back; nothing else is scored.
    race = board({"A": {"at": 29, "hand": "2123412"}, "B": parked(10), "C": parked(12)})
    race.round(A=(1, "2"), B=(1, "0"), C=(1, "0"))
    race.refill().refill().refill()
    assert race.state.standings() == ["A", "C", "B"]
    pos = race.position()
    assert not any("point" in k for k in pos) and not any("point" in k for k in pos["cars"][0])


def test_A1_spinout_after_the_lap_line_keeps_the_lap_if_past_it():
    # A1: a corner just after the lap line (after space 1, limit 2); spinning there puts the car on space 1 of
    # lap 2: the lap counts.
    track = make_track(corners=((1, 2, 1), (13, 3, 1)))
    race = board({"A": {"at": 28, "gear": 2, "hand": "4412312", "engine": 0}, "B": parked(10)}, track=track, laps=2)
    race.round(A=(2, "44"), B=(1, "0"))
    race.go_on()
    assert race.turn.spinout and race.at("A") == (31, 1)
    assert race.state.laps_done(race.car("A")) == 1


def test_A1_spinout_pushed_back_behind_the_lap_line_loses_the_lap():
    # A1 (edge left open; our reading): space 1 is full, so the nearest free space before the corner is space
    # 30, before the lap line: the lap is not completed.
    track = make_track(corners=((1, 2, 1), (13, 3, 1)))
    race = board(
        {
            "C": parked(31, 1),
            "D": parked(31, 2),
            "A": {"at": 28, "gear": 2, "hand": "4412312", "engine": 0},
            "B": parked(10),
        },
        track=track,
        laps=2,
    )
    race.round(C=(1, "0"), D=(1, "0"), A=(2, "44"), B=(1, "0"))
    race.turns_until("A").go_on()
    assert race.turn.spinout and race.at("A") == (30, 1)
    assert race.state.laps_done(race.car("A")) == 0 and race.state.lap_of(race.car("A")) == 1
