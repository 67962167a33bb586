"""Step 6, slipstream (# 8.x, C14, A7)."""

from __future__ import annotations

from heatlog.engine import MalformedInput, slipstream_status, waiting_for

from .conftest import PARKED, board

P = {"hand": PARKED}


def mover(at, hand, **kw):
    return {"at": at, "hand": hand, **kw}


def parked(at, lane=None):
    return {"at": at, "hand": PARKED, **({"lane": lane} if lane else {})}


def test_8_1_beside_another_car_may_slipstream():
    # 8.1: B ends on space 8 beside A: 2 more spaces.
    race = board({"A": parked(8), "B": mover(3, "5123412")})
    race.round(A=(1, "0"), B=(1, "5"))
    race.turns_until("B")
    assert race.at("B") == (8, 2)
    assert slipstream_status(race.state, race.car("B"))[0]
    race.slip("B")
    assert race.at("B") == (10, 1) and race.turn.slipstream_moved == 2


def test_8_1_directly_behind_a_car_may_slipstream():
    # 8.1
    race = board({"A": parked(8), "B": mover(3, "4123412")})
    race.round(A=(1, "0"), B=(1, "4"))
    race.turns_until("B")
    assert race.at("B")[0] == 7
    race.slip("B")
    assert race.at("B") == (9, 1)


def test_8_1_two_spaces_behind_may_not():
    # 8.1
    race = board({"A": parked(8), "B": mover(3, "3123412")})
    race.round(A=(1, "0"), B=(1, "3"))
    race.turns_until("B")
    ok, why = slipstream_status(race.state, race.car("B"))
    assert not ok and "# 8.1" in why
    assert "slipstream" not in waiting_for(race.state).optional
    race.reject("slipstream", car="B", taken=True, rule="8.1")
    race.slip("B", False)  # declining is always possible


def test_8_1_slipstream_comes_after_react():
    # 8.1: "after all React effects": React closes when the car slipstreams.
    race = board({"A": parked(8), "B": mover(3, "4HHH123")})
    race.round(A=(1, "0"), B=(1, "4"))
    race.turns_until("B")
    race.slip("B")
    race.reject("cooldown", car="B", count=1, rule="7.2")


def test_8_2_exactly_two_spaces_or_none():
    # 8.2: the event says taken or not; there is no 1-space slipstream by choice.
    race = board({"A": parked(8), "B": mover(3, "4123412")})
    race.round(A=(1, "0"), B=(1, "4"))
    race.turns_until("B")
    race.reject("slipstream", car="B", taken=1, error=MalformedInput)
    race.reject("slipstream", car="B", taken="1", error=MalformedInput)
    race.slip("B")
    assert race.turn.slipstream_moved == 2


def test_8_3_slipstream_only_once_never_chains():
    # 8.3 (C14): after slipstreaming to space 8, B is directly behind C on 9 but cannot slipstream again.
    race = board({"A": parked(7), "C": parked(9), "B": mover(3, "3123412")})
    race.round(A=(1, "0"), C=(1, "0"), B=(1, "3"))
    race.turns_until("B")
    race.slip("B")
    assert race.at("B")[0] == 8
    race.reject("slipstream", car="B", taken=True, rule="8.3")
    assert not slipstream_status(race.state, race.car("B"))[0]


def test_8_4_blocked_slipstream_can_give_one_space():
    # 8.4: space 8 is full: the slipstream gives 1 space (7, other spot beside A).
    race = board({"A": parked(7, 1), "C": parked(8, 1), "D": parked(8, 2), "B": mover(3, "3123412")})
    race.round(A=(1, "0"), C=(1, "0"), D=(1, "0"), B=(1, "3"))
    race.turns_until("B")
    race.slip("B")
    assert race.at("B") == (7, 2) and race.turn.slipstream_moved == 1


def test_8_4_A7_blocked_slipstream_can_be_nullified():
    # 8.4, A7: spaces 7 and 8 are full: B stays on its own spot (which counts as free).
    race = board({"A": parked(7, 1), "E": parked(7, 2), "C": parked(8, 1), "D": parked(8, 2), "B": mover(3, "3123412")})
    race.round(A=(1, "0"), E=(1, "0"), C=(1, "0"), D=(1, "0"), B=(1, "3"))
    race.turns_until("B")
    assert race.at("B") == (6, 1)
    race.slip("B")
    assert race.at("B") == (6, 1) and race.turn.slipstream_moved == 0 and race.turn.slipstream is True


def test_8_4_blocked_into_the_slipstream_position_still_qualifies():
    # 8.4: B aims for space 9, which is full, stops on 8 directly behind it, and may slipstream past to 10.
    race = board({"A": parked(9, 1), "C": parked(9, 2), "B": mover(3, "4212341", gear=2)})
    race.round(A=(1, "0"), C=(1, "0"), B=(2, "42"))
    race.turns_until("B")
    assert race.at("B")[0] == 8
    race.slip("B")
    assert race.at("B") == (10, 1)


def test_8_5_slipstream_is_not_speed_but_its_corner_is_checked():
    # 8.5, 9.1, 9.2: B moves 5 to space 9, slipstreams over the corner after space 10 (limit 4): checked at
    # Speed 5 (1 Heat), not 7.
    race = board({"A": parked(10), "B": mover(4, "5123412")})
    race.round(A=(1, "0"), B=(1, "5"))
    race.turns_until("B")
    race.slip("B")
    assert race.at("B")[0] == 11 and race.turn.speed == 5
    race.go_on()
    [check] = race.turn.corners
    assert (check.after_space, check.speed, check.cost) == (10, 5, 1)


def test_8_6_no_slipstream_across_the_final_finish_line():
    # 8.6 (16.6): one-lap race on 30 spaces: from space 29 a slipstream would cross the line.
    race = board({"A": parked(30), "B": mover(25, "4123412")})
    race.round(A=(1, "0"), B=(1, "4"))
    race.turns_until("B")
    assert race.at("B")[0] == 29
    ok, why = slipstream_status(race.state, race.car("B"))
    assert not ok and "# 8.6" in why
    err = race.reject("slipstream", car="B", taken=True, rule="8.6")
    assert err.rule == "8.6" and str(err).count("# ") == 1  # the final lap's rule, cited once (not # 8.1)


def test_8_6_slipstream_up_to_the_last_space_before_the_line_is_fine():
    # 8.6: ending exactly on the last space (30) does not cross the line.
    race = board({"A": parked(29), "B": mover(24, "4123412")})
    race.round(A=(1, "0"), B=(1, "4"))
    race.turns_until("B")
    race.slip("B")
    assert race.at("B")[0] == 30 and not race.car("B").finished


def test_8_6_no_slipstream_after_crossing_the_final_line():
    # 8.6: A and B both finish this round; B ends directly behind A beyond the line: no slipstream.
    race = board({"A": mover(28, "4123412"), "B": mover(27, "4123412")})
    race.round(A=(1, "4"), B=(1, "4"))
    race.turns_until("B")
    assert race.at("A")[0] == 32 and race.at("B")[0] == 31
    ok, why = slipstream_status(race.state, race.car("B"))
    assert not ok and "crossed the finish line" in why


def test_8_6_slipstream_across_the_line_on_an_earlier_lap_is_allowed():
    # 8.6: in a two-lap race the first crossing is not the finish.
    race = board({"A": parked(30), "B": mover(25, "4123412")}, laps=2)
    race.round(A=(1, "0"), B=(1, "4"))
    race.turns_until("B")
    race.slip("B")
    assert race.at("B")[0] == 31 and race.state.laps_done(race.car("B")) == 1


def test_8_7_spun_out_car_is_a_normal_car_for_slipstream():
    # 8.7: A spins out at the corner after space 10 and is put back on space 10; B, behind it, slipstreams.
    race = board({"A": mover(8, "4412312", gear=2, engine=0), "B": mover(5, "4123412")})
    race.round(A=(2, "44"), B=(1, "4"))
    race.go_on()
    assert race.turn.spinout and race.at("A") == (10, 1)
    race.refill()
    assert race.turn.car == "B" and race.at("B")[0] == 9
    race.slip("B")
    assert race.at("B") == (11, 2)


def test_slipstream_open_is_slipstream_status_without_the_words():
    # 8.1–8.7, 20.12: the bots' quick question answers as slipstream_status does, at every event of whole
    # simulated races (base, weather, Legends), for every car (the turn's car and the others)
    from heatlog.engine.decide import slipstream_open
    from heatlog.simulate import simulate_race

    asked = opened = 0

    def watch(state, _event):
        nonlocal asked, opened
        for car in state.cars.values():
            want = slipstream_status(state, car)[0]
            assert slipstream_open(state, car) is want
            asked += 1
            opened += want

    weather, legends = {"modules": {"weather": {}}, "track": "japan"}, {"modules": {"legends": {"cars": 2}}, "cars": 3}
    for seed, kw in ((1, {}), (2, weather), (3, legends)):
        simulate_race(None, seed=seed, watch=watch, **kw)
    assert asked > 1000 and opened > 10  # both answers were seen
