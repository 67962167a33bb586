"""Step 4, adrenaline: who gets it and what it gives (# 6.x, C11, A9, A11)."""

from __future__ import annotations

from heatlog.engine import MalformedInput, react_options

from .conftest import PARKED, board, start_race


def test_6_1_last_car_of_the_round_order_gets_adrenaline():
    # 6.1: with 2 to 4 starters, only the last car.
    race = board({"A": {"at": 5}, "B": {"at": 3}, "C": {"at": 4}})
    assert race.state.order == ["A", "C", "B"] and race.state.adrenaline == ["B"]
    race.round(A=(1, "1"), B=(1, "1"), C=(1, "1"))
    assert not race.turn.adrenaline
    race.reject("adrenaline", car="A", bonus="move", rule="6.1")


def test_6_1_five_or_six_starters_last_two_get_it():
    # 6.1 (C11): a race that started with five or six cars gives adrenaline to the last two.
    race = board({n: {"at": i + 1} for i, n in enumerate("ABCDE")})
    assert race.state.order == ["E", "D", "C", "B", "A"]
    assert race.state.adrenaline == ["B", "A"]
    race = board({n: {"at": i + 1} for i, n in enumerate("ABCDEF")})
    assert race.state.adrenaline == ["B", "A"]
    race = board({n: {"at": i + 1} for i, n in enumerate("ABCD")})
    assert race.state.adrenaline == ["A"]


def test_6_1_grid_start_gives_adrenaline_to_the_back_of_the_grid():
    # 6.1, 2.2: at the start the order is the grid order.
    race = start_race(["A", "B", "C", "D", "E"])
    assert race.state.order == ["A", "B", "C", "D", "E"]
    assert race.state.adrenaline == ["D", "E"]


def test_6_2_adrenaline_move_adds_one_space_and_one_speed():
    # 6.2
    race = board({"A": {"at": 10}, "B": {"at": 3, "hand": "2123412"}})
    race.round(A=(1, "1"), B=(1, "2"))
    race.turns_until("B")
    assert race.at("B")[0] == 5 and race.turn.speed == 2
    race.adrenaline("B", "move")
    assert race.at("B")[0] == 6 and race.turn.speed == 3 and race.turn.adrenaline_moved == 1


def test_6_2_adrenaline_cooldown_adds_one_and_both_may_be_used():
    # 6.2, 7.4: gear 1 cools 3; adrenaline makes it 4; the move is still there too.
    race = board({"A": {"at": 10}, "B": {"at": 3, "hand": "2HHHH11", "engine": 2}})
    race.round(A=(1, "1"), B=(1, "2"))
    race.turns_until("B")
    race.reject("cooldown", car="B", count=4, rule="7.2")
    race.adrenaline("B", "cooldown")
    race.cooldown("B", 4)
    race.adrenaline("B", "move")
    b = race.car("B")
    assert b.engine == 6 and race.hand("B") == ["1", "1"] and b.progress == 6


def test_6_2_each_bonus_once_and_no_trading():
    # 6.2: each bonus once; skipping the move does not buy a second cooldown.
    race = board({"A": {"at": 10}, "B": {"at": 3, "gear": 2, "hand": "21HHH11"}})
    race.round(A=(2, "11"), B=(2, "21"))
    race.turns_until("B")
    race.adrenaline("B", "cooldown")
    race.reject("adrenaline", car="B", bonus="cooldown", rule="6.2")
    race.cooldown("B", 2)  # gear 2 gives 1, adrenaline 1
    race.reject("cooldown", car="B", count=1, rule="7.2")
    race.adrenaline("B", "move")
    race.reject("adrenaline", car="B", bonus="move", rule="6.2")
    race.reject("adrenaline", car="B", bonus="boost", error=MalformedInput)


def test_6_2_neither_bonus_is_fine():
    # 6.2
    race = board({"A": {"at": 10}, "B": {"at": 3}})
    race.round(A=(1, "1"), B=(1, "1"))
    race.turns_until("B").refill()
    t = race.last_turn("B")
    assert t.adrenaline and not t.adrenaline_move and not t.adrenaline_cooldown and t.speed == 1


def test_6_3_adrenaline_is_used_in_react_and_not_saved():
    # 6.3: after React is over (here: slipstream decided) adrenaline is gone; next round goes by the new order.
    race = board({"A": {"at": 6, "hand": PARKED}, "B": {"at": 3, "hand": "2123412"}})
    race.round(A=(1, "0"), B=(1, "2"))
    race.turns_until("B")
    race.slip("B", True)
    assert race.at("B")[0] == 7
    race.reject("adrenaline", car="B", bonus="move", rule="6.3")
    race.refill()
    assert race.state.round == 2 and race.state.order == ["B", "A"] and race.state.adrenaline == ["A"]


def test_6_4_allowance_counts_starters_after_finishers_leave():
    # 6.4 (C11): 5 cars started; two finish in round 1; in round 2 the last two of the three left get it.
    race = board(
        {
            "A": {"at": 28, "gear": 2, "hand": "4412312"},
            "B": {"at": 27, "gear": 2, "hand": "4412312"},
            "C": {"at": 10},
            "D": {"at": 8},
            "E": {"at": 6},
        }
    )
    race.round(A=(2, "44"), B=(2, "44"), C=(1, "1"), D=(1, "1"), E=(1, "1"))
    for _ in range(5):
        race.refill()
    assert race.state.hall_of_fame == ["A", "B"]
    assert race.state.round == 2 and race.state.order == ["C", "D", "E"]
    assert race.state.adrenaline == ["D", "E"]


def test_6_4_last_remaining_car_of_a_big_race_gets_it():
    # 6.4: 6 started, 5 finished: the one car left gets adrenaline (it is the last "two" on its own).
    race = board(
        {
            "A": {"at": 1},
            **{n: {"at": 31, "finished": True} for n in "BCDEF"},
        },
        started=6,
    )
    assert race.state.order == ["A"] and race.state.adrenaline == ["A"]


def test_6_4_four_starters_with_finishers_still_one_holder():
    # 6.4: 4 started, 1 finished: of the three left only the last gets it.
    race = board({"A": {"at": 5}, "B": {"at": 4}, "C": {"at": 3}, "D": {"at": 31, "finished": True}})
    assert race.state.started == 4 and race.state.adrenaline == ["C"]


def test_A9_holder_keeps_adrenaline_after_overtaking():
    # A9: B passes A during its turn; adrenaline stays with B (the order fixed at round start), not A.
    race = board({"A": {"at": 6}, "B": {"at": 3, "hand": "4123412"}, "C": {"at": 20}})
    race.round(A=(1, "1"), B=(1, "4"), C=(1, "1"))
    race.refill()  # C
    race.refill()  # A: 6 -> 7
    assert race.turn.car == "B" and race.at("B")[0] == 7 and race.at("A")[0] == 7
    race.adrenaline("B", "move")
    assert race.at("B")[0] == 8
    assert race.state.adrenaline == ["B"]


def test_A9_overtaken_fixed_last_car_keeps_it_even_when_no_longer_physically_last():
    # A9: B was last at round start and still holds adrenaline after A (in front at the start) falls behind.
    race = board({"A": {"at": 6, "hand": PARKED}, "B": {"at": 3, "hand": "4123412"}})
    race.round(A=(1, "0"), B=(1, "4"))
    race.turns_until("B")
    assert race.at("B")[0] == 7 > race.at("A")[0]
    assert any(o["type"] == "adrenaline" for o in react_options(race.state, race.car("B"), race.turn))


def test_A11_blocked_adrenaline_move_still_adds_speed():
    # A11, 9.2: the +1 space is blocked (space 12 full) but Speed is 5 at the corner after space 10 (limit 4).
    race = board(
        {
            "A": {"at": 12, "lane": 1, "hand": PARKED},
            "C": {"at": 12, "lane": 2, "hand": PARKED},
            "B": {"at": 7, "hand": "4123412"},
        }
    )
    race.round(A=(1, "0"), C=(1, "0"), B=(1, "4"))
    race.turns_until("B")
    assert race.at("B") == (11, 2)
    race.adrenaline("B", "move")
    assert race.at("B") == (11, 2) and race.turn.adrenaline_moved == 0 and race.turn.speed == 5
    race.go_on()
    [check] = race.turn.corners
    assert (check.after_space, check.speed, check.cost) == (10, 5, 1)
    assert race.car("B").engine == 5
