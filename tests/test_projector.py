"""The projector: jumps to a round from snapshots, the lean log read, branches and retractions.

A jump to round N must give exactly the state a full replay has at the start of round N, whether it comes from
a snapshot or not, and a snapshot must never be used once a retraction reaches back to it.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from heatlog import RULES_VERSION
from heatlog.engine import IllegalEvent, apply
from heatlog.engine.position import state_to_position
from heatlog.log.racelog import RaceLog, effective_log
from heatlog.races import race_started_event
from heatlog.simulate.world import race_events, random_bot

Event = dict[str, Any]


@cache
def simulated(n_cars: int = 3, seed: int = 5) -> tuple[Event, ...]:
    colours = ("red", "blue", "green", "yellow", "black", "white")
    cars = [{"name": f"Car{i}", "colour": colours[i]} for i in range(n_cars)]
    started = race_started_event(track="usa", cars=cars, mode="open")
    return tuple(race_events(started, {c["name"]: random_bot for c in cars}, seed))


def round_starts(events: list[Event] | tuple[Event, ...]) -> dict[int, tuple[int, dict[str, Any]]]:
    """round -> (number of events folded, position) at the start of every round, by a plain fold."""
    starts: dict[int, tuple[int, dict[str, Any]]] = {}
    state = None
    for i, ev in enumerate(events, start=1):
        state = apply(state, ev, atomic=False)
        if state.round and state.round not in starts and state.step == 1 and state.turn is None:
            starts[state.round] = (i, state_to_position(state))
    return starts


@pytest.fixture
def log(tmp_path: Path) -> Any:
    with RaceLog(tmp_path / "race.db") as opened:
        yield opened


def record(log: RaceLog, events: list[Event] | tuple[Event, ...]) -> int:
    race = log.new_race(events[0])
    proj = log.project(race)
    for ev in events[1:]:
        _, proj = log.append(race, ev, proj)
    return race


def count_reads(log: RaceLog, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the log reads the store is asked for: "events"/"log_from" (whole log) or "tail" (after a seq)."""
    calls: list[str] = []
    for name in ("events", "log_from"):
        original = getattr(log.store, name)

        def spy(*args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
            whole = _name == "events" or (len(args) < 2 and not kwargs.get("after"))
            calls.append(_name if whole else "tail")
            return _original(*args, **kwargs)

        monkeypatch.setattr(log.store, name, spy)
    return calls


# ---- jump to a round


def test_jump_to_every_round_equals_a_full_replay(log: RaceLog, monkeypatch: pytest.MonkeyPatch) -> None:
    events = simulated()
    race = record(log, events)
    expected = round_starts(events)
    assert len(expected) >= 5

    # first jump: no snapshot yet, the race is folded once and every round start is cached
    assert log.store.get_snapshot(race, RULES_VERSION, round=1) is None
    first = log.project(race, round=1)
    assert state_to_position(first.state) == expected[1][1]

    reads = count_reads(log, monkeypatch)
    for rnd, (n, position) in expected.items():
        proj = log.project(race, round=rnd)
        assert state_to_position(proj.state) == position, rnd
        assert reads == [], "a jump with a valid snapshot reads no events"
        # the lazily read effective log says the same as the full path
        assert proj.seq == n
        assert proj.upto == n
        assert len(proj.effective.entries) == len(events)
        reads.clear()


def test_jump_without_snapshots_equals_a_full_replay(log: RaceLog) -> None:
    events = simulated()
    race = record(log, events)
    for rnd, (n, position) in round_starts(events).items():
        log.store.clear_snapshots(race)
        proj = log.project(race, round=rnd)
        assert state_to_position(proj.state) == position
        assert proj.upto == n and proj.seq == n


def test_jump_to_a_round_that_does_not_exist(log: RaceLog) -> None:
    events = simulated()
    race = record(log, events)
    last = max(round_starts(events))
    log.project(race, round=1)
    with pytest.raises(Exception, match=f"race {race}: no round {last + 1}"):
        log.project(race, round=last + 1)


def test_append_after_a_jump_projection(log: RaceLog) -> None:
    """A projection from a jump behaves as before when handed back to append (its log is read on demand)."""
    events = simulated()
    race = record(log, events)
    log.project(race, round=2)
    proj = log.project(race, round=2)
    assert proj.effective.length == len(events)
    seq, after = log.append(race, {"type": "note", "v": 1, "text": "checked"}, log.project(race))
    assert seq == len(events) + 1 and after.seq == seq and after.upto == len(events) + 1


def test_full_replay_equals_fold_of_stored_events(log: RaceLog) -> None:
    events = simulated()
    race = record(log, events)
    log.store.clear_snapshots(race)
    proj = log.project(race)
    state = None
    for ev in events:
        state = apply(state, ev, atomic=False)
    assert state is not None
    assert state_to_position(proj.state) == state_to_position(state)
    # the lean read gives the same events as the full one
    assert log.store.log_from(race) == [(s.seq, s.event) for s in log.store.events(race)]
    assert log.store.log_from(race, 10, 20) == [(s.seq, s.event) for s in log.store.events(race)[10:20]]


# ---- retractions and snapshots


def test_retraction_after_the_snapshot_keeps_it(log: RaceLog, monkeypatch: pytest.MonkeyPatch) -> None:
    """An undo of a later event does not touch earlier rounds: their jumps stay cheap and right."""
    events = simulated()
    race = record(log, events[:-3])
    log.retract_last(race, "typo")
    expected = round_starts(events[:-4])
    log.project(race, round=1)  # rebuild the cache
    reads = count_reads(log, monkeypatch)
    for rnd, (_, position) in expected.items():
        if rnd == max(expected):
            continue
        proj = log.project(race, round=rnd)
        assert state_to_position(proj.state) == position
    assert reads == []  # the undo is checked by counting rows, not by reading the events after a snapshot


@pytest.mark.parametrize("clear", [True, False], ids=["cache-cleared", "stale-cache"])
def test_retraction_reaching_back_invalidates_snapshots(log: RaceLog, clear: bool) -> None:
    """Undo back into round 2: snapshots from there on no longer hold (also if clearing them was missed)."""
    events = simulated()
    starts = round_starts(events)
    n2 = starts[2][0]
    race = record(log, events[: n2 + 5])
    log.project(race, round=2)  # snapshots of rounds 1 and 2
    assert log.store.get_snapshot(race, RULES_VERSION, round=2) is not None
    for _ in range(6):  # undo the 5 events of round 2 and the event that started it
        if clear:
            log.retract_last(race)
        else:  # as if the process died between the append and the cache clear
            eff = log.effective(race)
            log.store.append(race, {"type": "retracted", "v": 1, "seq": eff.entries[-1].seq})
    assert log.project(race).upto == n2 - 1
    with pytest.raises(Exception, match="no round 2"):
        log.project(race, round=2)
    assert state_to_position(log.project(race, round=1).state) == starts[1][1]
    # re-recording round 2 after the undo gives it again, with a new seq
    proj = log.project(race)
    for ev in events[n2 - 1 : n2 + 3]:
        _, proj = log.append(race, ev, proj)
    jumped = log.project(race, round=2)
    assert state_to_position(jumped.state) == starts[2][1]
    assert jumped.seq == n2 + 5 + 6 + 1


def test_snapshot_of_a_retracted_event_is_not_used(log: RaceLog) -> None:
    """A cache row that names a seq no longer in force (or a retraction itself) is a miss, not a state."""
    events = simulated()
    starts = round_starts(events)
    race = record(log, events)
    log.project(race, round=1)
    snap = log.store.get_snapshot(race, RULES_VERSION, round=5)
    assert snap is not None
    wrong = dict(snap.state)  # a real position, but not round 3's
    log.store.put_snapshot(race, 3, RULES_VERSION, len(events) + 50, wrong)  # beyond the log
    assert state_to_position(log.project(race, round=3).state) == starts[3][1]
    log.store.append(race, {"type": "note", "v": 1, "text": "x"})
    log.store.append(race, {"type": "retracted", "v": 1, "seq": len(events) + 1})
    log.store.put_snapshot(race, 3, RULES_VERSION, len(events) + 2, wrong)  # on the retraction
    assert state_to_position(log.project(race, round=3).state) == starts[3][1]


def test_malformed_retraction_after_a_snapshot_is_reported(log: RaceLog) -> None:
    """A retraction written around the door that does not withdraw the latest entry fails as before."""
    events = simulated()
    race = record(log, events)
    log.project(race, round=1)
    log.store.append(race, {"type": "retracted", "v": 1, "seq": len(events) - 3})
    with pytest.raises(IllegalEvent, match="withdraws the latest entry in force"):
        log.project(race, round=2)


def test_effective_log_of_a_stored_race(log: RaceLog) -> None:
    events = simulated()
    race = record(log, events[:30])
    log.retract_last(race)
    eff = log.effective(race)
    assert eff == effective_log((s.seq, s.event) for s in log.store.events(race))
    assert len(eff.entries) == 29 and eff.length == 31 and eff.retractions[0].target == 30


# ---- branches


def test_branch_reads_equal_parent_prefix_plus_own_events(log: RaceLog) -> None:
    events = simulated()
    starts = round_starts(events)
    race = record(log, events)
    parent = log.store.log_from(race)

    branch = log.branch(race, 3, "what if")
    fork = starts[3][0]
    own = [{"type": "note", "v": 1, "text": f"b{i}"} for i in range(3)]
    for ev in own:
        log.store.append(branch, ev)
    got = log.store.log_from(branch)
    assert got == parent[:fork] + [(fork + 1 + i, ev) for i, ev in enumerate(own)]
    assert got == [(s.seq, s.event) for s in log.store.events(branch)]
    # every window of the branch's log reads the same as the slice of the whole
    for after, upto in ((0, 5), (fork - 2, fork + 2), (fork, None), (fork + 1, fork + 2), (3, fork)):
        window = [(s, e) for s, e in got if s > after and (upto is None or s <= upto)]
        assert log.store.log_from(branch, after, upto) == window

    # a branch of the branch, forked inside the grandparent's part of its log
    twig = log.store.create_branch(branch, fork - 10, "twig")
    log.store.append(twig, {"type": "note", "v": 1, "text": "t"})
    assert log.store.log_from(twig) == parent[: fork - 10] + [(fork - 9, {"type": "note", "v": 1, "text": "t"})]
    # retractions are found in whichever segment stores them
    log.store.append(branch, {"type": "retracted", "v": 1, "seq": fork + 3})
    assert log.store.retractions_since(branch, 1) == [(fork + 4, {"type": "retracted", "v": 1, "seq": fork + 3})]
    assert log.store.retractions_since(branch, fork + 5) == []
    assert log.store.retractions_since(race, 1) == []


def test_branch_jumps_equal_replay(log: RaceLog) -> None:
    events = simulated()
    starts = round_starts(events)
    race = record(log, events)
    branch = log.branch(race, 4, "b")
    fork = starts[4][0]
    proj = log.project(branch)
    for ev in events[fork:]:  # the branch re-records the same race: same states, its own rows
        _, proj = log.append(branch, ev, proj)
    for _ in range(2):  # the first pass builds the branch's snapshots, the second uses them
        for rnd, (n, position) in starts.items():
            jumped = log.project(branch, round=rnd)
            assert state_to_position(jumped.state) == position
            assert jumped.seq == n


def outcome(log: RaceLog, race: int, rnd: int) -> tuple[Any, ...]:
    try:
        proj = log.project(race, round=rnd)
    except Exception as err:  # noqa: BLE001 - the error itself is what is compared
        return ("error", type(err).__name__, str(err))
    return ("state", proj.seq, state_to_position(proj.state))


def corrections(log: RaceLog, race: int, rng: random.Random, *, undo: float) -> None:
    """1 to 8 notes and retractions written around the door: each retraction withdraws the latest entry in force
    with probability ``undo``, else any event of the log (also one that no undo could withdraw)."""
    for _ in range(rng.randint(1, 8)):
        length = log.store.length(race)
        if rng.random() < 0.4:
            log.store.append(race, {"type": "note", "v": 1, "text": "n"})
            continue
        try:
            latest = log.effective(race).entries[-1].seq
        except IllegalEvent:
            latest = length
        target = latest if rng.random() < undo else rng.randint(1, length)
        log.store.append(race, {"type": "retracted", "v": 1, "seq": target})


@pytest.mark.parametrize("seed", range(30))
def test_jump_agrees_with_replay_after_any_corrections(tmp_path: Path, seed: int) -> None:
    """Notes and retractions (well-formed or not, written around the door) after the snapshots were taken:
    a jump from the (possibly stale) cache gives what a replay without the cache gives, state or error."""
    rng = random.Random(seed)
    events = simulated()
    starts = round_starts(events)
    with RaceLog(tmp_path / f"r{seed}.db") as log:
        race = record(log, events[: starts[4][0] + 3])
        log.project(race, round=1)  # snapshots of rounds 1-4
        cache = {r: log.store.get_snapshot(race, RULES_VERSION, round=r) for r in range(1, 5)}
        corrections(log, race, rng, undo=0.6)
        for rnd in range(1, 6):
            for r, snap in cache.items():  # the cache as it was before the corrections
                assert snap is not None
                log.store.put_snapshot(race, r, RULES_VERSION, snap.seq, snap.state)
            jumped = outcome(log, race, rnd)
            log.store.clear_snapshots(race)
            assert jumped == outcome(log, race, rnd), (seed, rnd)


def test_snapshots_of_other_rules_are_never_served(log: RaceLog) -> None:
    """The cache is keyed by a fingerprint of the engine's source: a snapshot cached by other rules (here a
    wrong state under an old fingerprint) is ignored, and the jump replays the log."""
    events = simulated()
    race = record(log, events)
    starts = round_starts(events)
    wrong = dict(starts[2][1], round=99)
    log.store.put_snapshot(race, 3, "old-rules", starts[3][0], wrong)
    assert state_to_position(log.project(race, round=3).state) == starts[3][1]
    assert len(RULES_VERSION) == 16 and RULES_VERSION != "old-rules"


# ---- the end of the log from the latest snapshot (heatlog undo, issue 32)


def assert_end_is_the_full_projection(log: RaceLog, race: int) -> None:
    end = log.end(race)
    full = log.project(race)
    assert state_to_position(end.projection.state) == state_to_position(full.state)
    assert end.last == full.effective.entries[-1]
    assert end.length == full.effective.length
    assert end.projection.seq == full.seq
    assert end.projection.effective == full.effective  # read on demand, the same log


def test_undo_reads_the_log_from_the_latest_round_start_only(log: RaceLog, monkeypatch: pytest.MonkeyPatch) -> None:
    """heatlog undo was a whole read and fold of the log (twice): 75× slower at 6,144 events than at 227. Now it
    reads from the latest snapshot that holds, and gives what a full replay gives, across round starts."""
    events = simulated()
    starts = round_starts(events)
    race = record(log, events)
    log.project(race, round=1)  # snapshots of every round start
    reads = count_reads(log, monkeypatch)
    for _ in range(starts[max(starts)][0] - starts[max(starts) - 2][0] + 3):  # back over two round starts
        log.retract_last(race, "undo")
        assert reads and set(reads) == {"tail"}, reads
        reads.clear()
        assert_end_is_the_full_projection(log, race)
        reads.clear()
    assert log.project(race).state.round == max(starts) - 2


def test_undo_of_a_log_without_snapshots_reads_it_once_and_caches_round_starts(log: RaceLog) -> None:
    events = simulated()
    race = log.new_race(events[0])
    log.store.append_many(race, list(events[1:]))  # around the door: no snapshot, as an old import
    assert log.end(race).whole
    log.retract_last(race)
    after = log.end(race)
    assert not after.whole
    assert_end_is_the_full_projection(log, race)


def test_undo_down_to_the_set_up_and_on_a_branch(log: RaceLog) -> None:
    events = simulated()
    starts = round_starts(events)
    race = record(log, events[: starts[2][0] + 4])
    log.project(race, round=1)
    bid = log.branch(race, 2, "b")
    _, proj = log.append(bid, events[starts[2][0]])
    for rid in (bid, race):
        while log.end(rid).last.seq > 1:
            log.retract_last(rid)
            assert_end_is_the_full_projection(log, rid)
        with pytest.raises(IllegalEvent, match="nothing to undo"):
            log.retract_last(rid)


@pytest.mark.parametrize("seed", range(12))
def test_end_agrees_with_a_full_projection_after_any_corrections(tmp_path: Path, seed: int) -> None:
    """Notes and retractions written around the door after the snapshots, some of them not undos at all: the end
    from a snapshot is the full projection's, or both refuse the log."""
    rng = random.Random(seed)
    with RaceLog(tmp_path / "race.db") as log:
        events = simulated()
        race = record(log, events[: rng.randint(40, len(events))])
        log.project(race, round=1)
        corrections(log, race, rng, undo=0.7)
        try:
            full = log.project(race)
        except IllegalEvent:
            with pytest.raises(IllegalEvent):
                log.end(race)
            return
        end = log.end(race)
        assert state_to_position(end.projection.state) == state_to_position(full.state)
        assert end.last == full.effective.entries[-1]
