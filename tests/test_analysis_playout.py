"""Playouts: deterministic whatever the executor and the number of workers, common random numbers across
sides, and a clean stop with a partial result (issue 12)."""

from __future__ import annotations

import math
import random
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

import pytest

from heatlog.analysis import information_set
from heatlog.analysis.executors import InlineExecutor, local_executor
from heatlog.analysis.playout import CHUNK, Job, Outcome, differences, playout_seed, playouts, run_playout
from heatlog.engine import HeatlogError
from heatlog.simulate import simulate_race

Event = dict[str, Any]


@pytest.fixture(scope="module")
def race() -> list[Event]:
    return simulate_race(None, track="usa", cars=3, seed=21)[1]


@pytest.fixture(scope="module")
def info(race: list[Event]) -> Any:
    return information_set(race[: len(race) // 2])


def test_the_same_seed_gives_the_same_playouts_on_any_executor(info: Any) -> None:
    n = CHUNK * 2 + 5  # chunks of different sizes
    inline = playouts(info, n, seed=3)
    with local_executor(2) as pool:
        two = playouts(info, n, seed=3, executor=pool)
    with ThreadPoolExecutor(3) as threads:
        three = playouts(info, n, seed=3, executor=threads)
    assert inline.outcomes == two.outcomes == three.outcomes
    assert inline.done == n and not inline.partial
    other = playouts(info, n, seed=4)
    assert other.outcomes != inline.outcomes


def test_summaries_describe_the_outcomes(info: Any) -> None:
    r = playouts(info, 40, seed=1)
    cars = list(info.public.cars)
    for car in cars:
        s = r.sides[0][car]
        places = [o.places[car] for o in r.outcomes[0]]
        assert s.mean_place == pytest.approx(sum(places) / 40)
        assert s.win == places.count(1) / 40
        assert sum(s.places.values()) == pytest.approx(1.0)
        lo, hi = s.place_interval
        assert lo < s.mean_place < hi
        assert s.mean_round > info.public.round
    assert sum(r.sides[0][c].win for c in cars) == pytest.approx(1.0)  # one winner per playout


def test_playouts_make_no_reference_cycles_and_restore_the_collector(info: Any) -> None:
    """``run_chunk`` pauses the cycle collector (``heatlog.simulate.collector``): only free if a playout leaves no
    cyclic garbage, which the collector, run with nothing else to find, confirms; it is on again afterwards."""
    import gc

    playouts(info, 2, seed=9)  # first use: modules imported
    gc.collect()
    gc.disable()
    try:
        playouts(info, CHUNK + 3, seed=5, sides=((), ()))
        assert gc.collect() == 0  # nothing unreachable: every object the playouts dropped was freed by its count
        assert not gc.isenabled()  # a collector already off is left off
    finally:
        gc.enable()
    playouts(info, 3, seed=6)
    assert gc.isenabled()


def test_seeds_are_hashes_of_seed_and_index() -> None:
    assert playout_seed(1, 2, "play") == playout_seed(1, 2, "play")
    assert len({playout_seed(1, i, "play") for i in range(100)}) == 100
    assert playout_seed(1, 2, "play") != playout_seed(2, 1, "play")


def test_common_random_numbers_make_identical_sides_identical(info: Any) -> None:
    """Two sides with the same events: with common random numbers every paired difference is 0; without,
    the sides differ by luck alone."""
    crn = playouts(info, 24, seed=2, sides=[[], []])
    assert crn.outcomes[0] == crn.outcomes[1]
    d = crn.difference()
    assert all(x.mean == 0 and x.var_paired == 0 for x in d.values())
    indep = playouts(info, 24, seed=2, sides=[[], []], crn=False)
    assert indep.outcomes[0] != indep.outcomes[1]


def test_sides_that_leave_the_same_world_are_played_once_with_the_same_outcome(
    info: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sides whose events leave the drawn world in the same state are one race under common random
    numbers: it is played once, and its outcome is the one playing both gives."""
    import heatlog.analysis.playout as playout_module
    from heatlog.engine.state import RaceState

    calls: list[int] = []
    real = playout_module.play_out

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(playout_module, "play_out", counting)
    once = playouts(info, 8, seed=4, sides=[[], [], []])
    assert len(calls) == 8  # one race per playout for the three sides
    calls.clear()
    playouts(info, 8, seed=4, sides=[[], []], crn=False)  # own numbers per side: never merged
    assert len(calls) == 16
    calls.clear()
    monkeypatch.setattr(RaceState, "__eq__", lambda a, b: False)  # no two worlds alike: every side played
    calls.clear()
    every = playouts(info, 8, seed=4, sides=[[], [], []])
    assert len(calls) == 24
    assert once.outcomes == every.outcomes


def test_common_random_numbers_reduce_the_variance_of_a_real_difference(race: list[Event]) -> None:
    """A different gear for one car at step 1: the paired difference has a smaller variance than the
    difference of independent playouts (measured on the same playouts: var(A) + var(B) against var(A − B))."""
    cut = next(i for i in range(len(race) // 3, len(race)) if race[i]["type"] == "gear_chosen")
    info = information_set(race[:cut])
    ev = race[cut]
    alt = {**ev, "gear": max(1, ev["gear"] - 1)} if ev["gear"] > 1 else {**ev, "gear": 2}
    r = playouts(info, 64, seed=5, sides=[[ev], [alt]])
    diff = r.difference()[ev["car"]]
    assert diff.var_paired < diff.var_independent
    assert diff.needed(0.1, paired=True) < diff.needed(0.1, paired=False)
    lo, hi = diff.interval
    assert lo <= diff.mean <= hi


def test_impossible_side_events_are_refused(info: Any) -> None:
    car = next(iter(info.public.cars))
    bad = {"type": "gear_chosen", "v": 1, "car": car, "gear": 9}
    with pytest.raises(HeatlogError, match="cannot all be possible"):
        playouts(info, 2, seed=1, sides=[[bad]])


class _Interrupting(Executor):
    """Runs the first chunks, then behaves as if Ctrl-C was pressed while waiting."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.calls = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.calls += 1
        fut: Future[Any] = Future()
        if self.calls <= self.after:
            fut.set_result(fn(*args, **kwargs))
        elif self.calls == self.after + 1:
            raise KeyboardInterrupt
        return fut


def test_ctrl_c_keeps_the_finished_playouts_marked_partial(info: Any) -> None:
    full = playouts(info, CHUNK * 3, seed=8)
    part = playouts(info, CHUNK * 3, seed=8, executor=_Interrupting(after=1))
    assert part.partial and part.done == CHUNK and part.requested == CHUNK * 3
    assert part.outcomes[0] == full.outcomes[0][:CHUNK]  # a prefix of the full result


def test_a_huge_number_of_playouts_starts_at_once_and_stops_cleanly(info: Any) -> None:
    # --playouts 10**20 listed every chunk before the first playout (gigabytes in seconds); the chunks are
    # worked out as they are sent, so the run starts at once and Ctrl-C keeps what was played.
    part = playouts(info, 10**20, seed=8, executor=_Interrupting(after=1))
    assert part.partial and part.done == CHUNK and part.requested == 10**20
    assert part.outcomes[0] == playouts(info, CHUNK, seed=8).outcomes[0]


def test_a_playout_is_a_pure_function_of_its_index(info: Any) -> None:
    job = Job(info, [[]], {c: "heuristic" for c in info.public.cars}, 11)
    assert run_playout(job, 5) == run_playout(job, 5)
    assert isinstance(run_playout(job, 5)[0], Outcome)


def test_differences_of_known_numbers() -> None:
    a = [Outcome({"X": p}, {}) for p in (1, 2, 1, 2)]
    b = [Outcome({"X": p}, {}) for p in (2, 2, 1, 1)]
    d = differences(a, b, ["X"])["X"]
    assert d.mean == 0
    assert d.var_paired == pytest.approx(2 / 3)  # differences -1 0 0 1
    assert d.var_independent == pytest.approx(1 / 3 + 1 / 3)
    assert d.needed(0.1) == math.ceil(19.6**2 * 2 / 3)


def test_inline_executor_hands_errors_back_through_the_future() -> None:
    fut = InlineExecutor().submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        fut.result()


def test_random_bots_draw_from_the_playouts_numbers(info: Any) -> None:
    a = playouts(info, 8, seed=1, bots="random")
    b = playouts(info, 8, seed=1, bots="random")
    assert a.outcomes == b.outcomes
    assert random.Random(0).random() == random.Random(0).random()


@pytest.mark.parametrize("at", [0.5, 0.8])
def test_a_settled_place_is_the_place_at_the_end(race: list[Event], at: float) -> None:
    """``settle=car`` stops each play-out once the car's place is settled (finished, off the track, or the only
    car racing: # 16.8, MA21): the car's places are exactly those of play-outs to the end, playout by playout,
    for every car of the race; the outcomes hold that car only."""
    info = information_set(race[: int(len(race) * at)], "Red")
    full = playouts(info, 24, seed=5)
    for car in info.public.cars:
        settled = playouts(info, 24, seed=5, settle=car)
        assert [o.places for o in settled.outcomes[0]] == [{car: o.places[car]} for o in full.outcomes[0]]
        assert list(settled.sides[0]) == [car]


@pytest.mark.parametrize("at", [0.3, 0.8])
def test_what_followed_a_decision_is_read_without_changing_the_playout(race: list[Event], at: float) -> None:
    """A review's playouts (``watch`` and ``settle`` the car) carry what followed the car's round
    (``LaterFacts``): read between rounds, so the places are those of play-outs that read nothing, playout by
    playout; and the facts agree with one another — the first round's progress is the turn's move, the next
    rounds' moves are the progress they made, the track runs from the decision's round to the settled place."""
    from heatlog.analysis.playout import LATER_ROUNDS

    cut = next(j for j in range(int(len(race) * at), len(race)) if race[j]["type"] == "gear_chosen")
    info = information_set(race[:cut], "Red")  # step 1 of a round: no car has moved in it yet
    start = info.public.cars["Red"].progress
    plain = playouts(info, 16, seed=3, settle="Red")
    watched = playouts(info, 16, seed=3, settle="Red", watch="Red")
    assert [o.places for o in watched.outcomes[0]] == [o.places for o in plain.outcomes[0]]
    assert [o.rounds for o in watched.outcomes[0]] == [o.rounds for o in plain.outcomes[0]]
    seen = 0
    for o in watched.outcomes[0]:
        turn = o.turn
        assert turn is not None and turn.later is not None
        later = turn.later
        seen += later.rounds
        assert later.track[0] - start == turn.moved
        assert later.track[later.rounds] - later.track[0] == later.moved
        assert 0 <= later.rounds <= LATER_ROUNDS and later.rounds <= len(later.track) - 1
        assert later.finish == o.rounds["Red"] and len(later.track) == later.finish - info.public.round + 1
        assert 0 <= later.spins <= later.rounds and (later.spin_corner is not None) == (later.spins > 0)
    assert seen > 0  # the race went on after the decision's round


def test_a_job_ships_its_information_set_once(info: Any) -> None:
    """A job pickles its information set once, whatever the chunks sent, and a worker unpickles it once (its
    cache by the pickle's digest): the same outcomes as the job itself."""
    import pickle

    job = Job(info, [[]], {c: "heuristic" for c in info.public.cars}, 7)
    first, second = pickle.loads(pickle.dumps(job)), pickle.loads(pickle.dumps(job))
    assert first.info is second.info  # one unpickled information set per process
    assert [o.places for o in run_playout(first, 3)] == [o.places for o in run_playout(job, 3)]
