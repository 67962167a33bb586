"""Simulated races: every race ends, audits clean and keeps its cards; the log is a pure function of the seed.

Digest items: card conservation follows # 1.1, 1.2, 10.3 and 17.2 (24 cards per car, plus the Stress taken at
spinouts, minus the handicap Heat); the grid and shuffles are chance recorded in events (# 1.4, 5.6).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from heatlog.engine import RaceState, replay
from heatlog.log.racelog import RaceLog
from heatlog.races.audit import audit_race
from heatlog.simulate import TurnLog, default_cars, simulate_race, simulate_races
from heatlog.simulate.world import MAX_ROUNDS

Event = dict[str, Any]
TRACKS = ("usa", "great-britain", "france", "italy")


def check_cards(state: RaceState, event: Event) -> None:
    """# 1.2, 10.3, 17.2: deck + hand + Play Area + discard + Engine = 24 + Stress taken − handicap Heat."""
    if state.phase == "grid":
        return  # the decks are dealt with the grid
    for car in state.cars.values():
        total = car.deck_size + car.hand_size + len(car.play_area) + len(car.discard) + car.engine
        expected = 24 + car.stress_taken - (1 if car.handicap else 0)
        assert total == expected, (state.round, car.name, event)
        if car.deck is not None and car.hand is not None:  # open mode: every card is where the books say
            assert len(car.deck) == car.deck_size
            assert Counter(car.deck) + Counter({c: n for c, n in car.hand.items() if n}) == Counter(
                {c: n for c, n in car.pool.items() if n}
            )
            assert sum(car.hand.values()) == car.hand_size


# (track, cars, variant, handicapped cars, bots): every circuit with 2–6 cars, both variants, the handicap and
# both bots (and a mixed field) on each.
MATRIX = [
    (track, n, "one-lap" if n in (2, 5) else None, ["Red", "Blue"][: (n % 3)], bots)
    for track in TRACKS
    for n, bots in ((2, "random"), (3, "heuristic"), (4, "random"), (5, "heuristic"), (6, "mixed"))
]


@pytest.fixture(scope="module")
def matrix_log(tmp_path_factory: pytest.TempPathFactory) -> RaceLog:
    return RaceLog(tmp_path_factory.mktemp("sim") / "matrix.db")


@pytest.mark.parametrize(("track", "n", "variant", "handicap", "bots"), MATRIX)
def test_every_race_ends_audits_clean_and_keeps_its_cards(
    matrix_log: RaceLog, track: str, n: int, variant: str | None, handicap: list[str], bots: str
) -> None:
    seed = 1000 + 17 * n + TRACKS.index(track)
    race, events, state = simulate_race(
        matrix_log,
        track=track,
        cars=n,
        variant=variant,
        handicap=handicap,
        seed=seed,
        bots=(["heuristic", "random"] * 3)[:n] if bots == "mixed" else bots,
        watch=check_cards,
    )
    assert state.phase == "over" and state.round <= MAX_ROUNDS
    assert sorted(state.hall_of_fame) == sorted(c["name"] for c in default_cars(n))
    assert race is not None
    report = audit_race(matrix_log, race)
    assert report.clean, [p.message for p in report.problems]
    assert report.finished and report.rounds == state.round
    assert matrix_log.store.export_jsonl(race) == "".join(_line(e) for e in events)


def _line(ev: Event) -> str:
    return json.dumps(ev, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def test_the_log_is_exactly_an_open_mode_recording() -> None:
    """Every chance outcome is in the log (# 1.4, 5.6): the shuffles carry their order, draws and flips their
    cards, and replaying the log gives the state the simulator ended in."""
    _, events, state = simulate_race(None, track="usa", cars=4, seed=3)
    kinds = Counter(e["type"] for e in events)
    assert kinds["race_started"] == 1 and kinds["grid_set"] == 1
    assert all("order" in e for e in events if e["type"] == "deck_shuffled")
    assert all("cards" in e for e in events if e["type"] == "cards_drawn")
    assert kinds["gear_chosen"] == kinds["cards_played"] > 0
    assert events[0]["mode"] == "open" and events[0]["seed"] == 3
    final = replay(events)
    assert final.hall_of_fame == state.hall_of_fame and final.round == state.round


MIXED5 = ["heuristic", "random", "heuristic", "random", "random"]


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    runs = []
    for k in range(2):
        with RaceLog(tmp_path / f"{k}.db") as log:
            race, _, _ = simulate_race(
                log, track="france", cars=5, seed=11, bots=["heuristic", "random"] * 2 + ["random"]
            )
            assert race is not None
            runs.append(log.store.export_jsonl(race))
    assert runs[0] == runs[1]
    _, other, _ = simulate_race(None, track="france", cars=5, seed=12, bots=MIXED5)
    assert "".join(_line(e) for e in other) != runs[0]


SCRIPT = """
import hashlib, json, sys
from heatlog.simulate import simulate_race
_, events, _ = simulate_race(None, track="italy", cars=6, seed=5, bots=["heuristic", "random"] * 3)
text = "".join(json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\\n" for e in events)
print(hashlib.sha256(text.encode()).hexdigest())
"""


def test_same_seed_same_bytes_whatever_the_hash_seed() -> None:
    """No set or hash order leaks into the log: other processes with other hash seeds write the same bytes."""
    _, events, _ = simulate_race(None, track="italy", cars=6, seed=5, bots=["heuristic", "random"] * 3)
    here = hashlib.sha256("".join(_line(e) for e in events).encode()).hexdigest()
    for hash_seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == here


def test_simulate_races_uses_consecutive_seeds() -> None:
    many = [events for _, events, _ in simulate_races(None, 3, seed=40, cars=2, track="usa", variant="one-lap")]
    one = simulate_race(None, seed=41, cars=2, track="usa", variant="one-lap")[1]
    assert many[1] == one and many[0] != many[1]


def test_turn_log_keeps_every_turn() -> None:
    watch = TurnLog()
    _, _, state = simulate_race(None, track="italy", cars=3, seed=2, watch=watch)
    turns = watch.turns()
    assert len(turns) == sum(len(r) for r in watch.rounds) + len(state.turns)
    per_round = Counter(t.round for t in turns)
    assert sorted(per_round) == list(range(1, state.round + 1))
    assert per_round[1] == 3  # every car takes a turn in round 1


def test_bad_arguments_are_refused_before_anything_is_played() -> None:
    from heatlog.engine import HeatlogError

    with pytest.raises(HeatlogError, match="2 to 6 cars"):
        simulate_race(None, cars=7)
    with pytest.raises(HeatlogError, match="unknown bot"):
        simulate_race(None, cars=2, bots="clever")
    with pytest.raises(HeatlogError, match="2 bots for 3 cars"):
        simulate_race(None, cars=3, bots=["random", "random"])
    with pytest.raises(HeatlogError, match="handicap"):
        simulate_race(None, cars=2, handicap=["Nobody"])


# ------------------------------------------------------------------------------------------------ CLI

HEATLOG = shutil.which("heatlog")


def run(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    cmd = [HEATLOG or sys.executable, *([] if HEATLOG else ["-m", "heatlog.cli"]), *args, "--db", str(db)]
    env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1"}
    env.pop("HEATLOG_DB", None)
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


def test_cli_simulate_one_race(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    r = run("simulate", "--track", "usa", "--cars", "3", "--seed", "9", db=db)
    assert r.returncode == 0, r.stderr
    assert "seed 9" in r.stdout and "Red" in r.stdout and "heuristic" in r.stdout
    r = run("simulate", "--track", "usa", "--cars", "3", "--seed", "9", "--json", db=db)
    data = json.loads(r.stdout)
    assert data["race"] == 2 and [row["place"] for row in data["order"]] == [1, 2, 3]
    e1, e2 = run("export", "--race", "1", db=db).stdout, run("export", "--race", "2", db=db).stdout
    assert e1 == e2  # same seed, same log
    assert run("audit", "--all", db=db).returncode == 0


def test_cli_simulate_many_races_with_bots_per_car(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    r = run(
        "simulate", "--cars", "2", "--variant", "one-lap", "--bots", "heuristic,random", "--races", "3",
        "--seed", "1", "--handicap", "Red", "--json", db=db,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert [d["seed"] for d in data] == [1, 2, 3]
    assert {row["bot"] for d in data for row in d["order"]} == {"heuristic", "random"}
    r = run("simulate", "--races", "2", "--cars", "2", "--seed", "5", "--bot", "random", db=db)
    assert r.returncode == 0 and "2 races" in r.stdout and "mean race length" in r.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--bot", "random", "--bots", "random,random,random,random"), "not both"),
        (("--bot", "genius"), "unknown bot"),
        (("--cars", "9"), "2 to 6 cars"),
        (("--variant", "sprint"), "unknown variant"),
        (("--races", "0"), "at least one race"),
    ],
)
def test_cli_simulate_refuses_bad_options(tmp_path: Path, args: tuple[str, ...], words: str) -> None:
    r = run("simulate", *args, db=tmp_path / "h.db")
    assert r.returncode != 0 and r.stderr.startswith("Error: ") and words in r.stderr
    assert "Traceback" not in r.stderr


def test_a_race_started_from_a_position_is_played_to_the_end() -> None:
    """What-if: the position at the start of round 6 of a simulated race, played on by other bots."""
    from heatlog.engine import apply, state_to_position
    from heatlog.simulate import bot_names
    from heatlog.simulate.world import play

    _, events, _ = simulate_race(None, track="great-britain", cars=3, seed=8)
    state = None
    for ev in events:
        state = apply(state, ev, atomic=False)
        if state.round == 6 and state.step == 1 and state.turn is None:
            break
    assert state is not None and state.round == 6
    start = {**events[0], "position": state_to_position(state)}
    log, final = play(start, bot_names("random", list(state.cars)), 1, watch=check_cards)
    assert final.phase == "over" and log[0] is start and log[1]["type"] == "gear_chosen"
    assert replay(log).hall_of_fame == final.hall_of_fame


@pytest.mark.parametrize(
    "options",
    [
        {"bots": "heuristic"},
        {"bots": "random"},
        {"bots": "heuristic", "modules": {"legends": {"cars": 2}, "weather": {}}},
        {"bots": "random", "modules": {"garage": {"upgrades": "all", "draft": "snake"}}},
        {"bots": "heuristic", "modules": {"garage": {"upgrades": "all", "draft": "snake"}, "weather": {}}},
    ],
)
def test_a_race_makes_no_reference_cycles_and_the_collector_is_restored(options: dict[str, Any]) -> None:
    """``world.play`` pauses the cycle collector while it plays (``collector_paused``): that is only free if a
    race leaves no cyclic garbage behind, which the collector, run with nothing else to find, confirms."""
    import gc

    from heatlog.simulate.collector import collector_paused

    simulate_race(None, seed=9, track="usa", cars=4, **options)  # first use: the modules imported (classes are cyclic)
    gc.collect()
    gc.disable()
    try:
        for seed in range(3):
            simulate_race(None, seed=seed, track="usa", cars=4, **options)
        assert gc.collect() == 0  # nothing unreachable: every object the races dropped was freed by its count
        assert not gc.isenabled()  # a collector already off is left off
    finally:
        gc.enable()
    simulate_race(None, seed=5, track="usa", cars=3, bots=options["bots"])
    assert gc.isenabled()  # and one that was on is on again
    with pytest.raises(ValueError), collector_paused():
        assert not gc.isenabled()
        raise ValueError("a race that fails")
    assert gc.isenabled()  # even when the race fails


def test_after_a_paused_race_every_object_is_still_collectable_and_frozen_ones_stay_frozen() -> None:
    """The race's survivors join the oldest generation when the pause ends (``collector_paused``): a cycle made
    before the race is still garbage the next full collection finds, the count of young allocations starts
    again, and objects the program froze itself are left frozen."""
    import gc
    import weakref

    from heatlog.simulate.collector import collector_paused

    class Node:
        pass

    def cycle() -> weakref.ref[Node]:
        a, b = Node(), Node()
        a.other, b.other = b, a  # type: ignore[attr-defined]
        return weakref.ref(a)

    gc.collect()
    before = cycle()  # unreachable already, not yet collected
    with collector_paused():
        simulate_race(None, seed=3, track="usa", cars=3, bots="heuristic")
        during = cycle()
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert gc.get_count()[0] < 50  # no young collection is owed for what the race left alive
    assert before() is not None and during() is not None
    gc.collect()
    assert before() is None and during() is None  # both found by the full collection

    kept = [Node()]
    gc.freeze()  # a program that froze its own objects (e.g. before forking workers)
    try:
        frozen = gc.get_freeze_count()
        with collector_paused():
            after = cycle()
        assert gc.get_freeze_count() == frozen  # left frozen, not unfrozen by the pause
        del after
    finally:
        gc.unfreeze()
    assert kept


def test_a_huge_number_of_races_starts_at_once_and_stops_cleanly() -> None:
    # simulate --races 10**20 listed every chunk's seeds before the first race (gigabytes in seconds); each
    # chunk's seeds are worked out as it is sent, so the run starts at once and Ctrl-C keeps the races played.
    from concurrent.futures import Future

    from heatlog.simulate.parallel import CHUNK, WINDOW, play_races, simulate_many

    class Interrupting:
        """Plays the first chunk, holds the rest of the window, and is stopped by Ctrl-C at the next one."""

        calls = 0

        def submit(self, fn: Any, /, *args: Any) -> Future[Any]:
            self.calls += 1
            if self.calls > WINDOW:
                raise KeyboardInterrupt
            fut: Future[Any] = Future()
            if self.calls == 1:
                fut.set_result(fn(*args))
            return fut

    kwargs = {"track": "usa", "cars": 2, "bots": "random"}
    played, cut = simulate_many(10**20, 7, kwargs, Interrupting())  # type: ignore[arg-type]
    races = list(played)
    assert cut() and [p.seed for p in races] == list(range(7, 7 + CHUNK))
    assert [p.events for p in races] == [p.events for p in play_races(list(range(7, 7 + CHUNK)), kwargs)]
