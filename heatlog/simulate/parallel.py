"""Many simulated races on any ``concurrent.futures.Executor`` (``heatlog simulate --races N --workers W``).

Workers play races (a pure function of the arguments and the seed) and hand back their logs; the caller
stores them with one writer, in seed order. Chunks of :data:`CHUNK` races, a bounded window of chunks in
flight, results in seed order: the same seeds give the same races and the same race ids whatever the
number of workers or the executor.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from typing import Any

from .. import rules_version
from ..engine.module import summary as module_summary
from ..log.racelist import summary_of
from . import TurnLog, bot_label, bot_names, finishing_table, simulate_race, validate_played

Event = dict[str, Any]
CHUNK = 4  # races per task: fixed, so results never depend on the number of workers
WINDOW = 8  # chunks in flight


@dataclass(slots=True)
class Played:
    """One race as a worker hands it back: its log and its finishing table."""

    seed: int
    events: list[Event]
    track: str
    laps: int
    rounds: int
    order: list[dict[str, Any]]
    conditions: dict[str, Any]  # the modules' facts (Module.summary: the weather's tile and tokens, # 20.2)
    rules: str  # the rules fingerprint of the worker that played and validated it
    over: bool = True  # False: stopped unfinished after MAX_ROUNDS rounds (a car stuck for good)
    summary: dict[str, Any] = field(default_factory=dict)  # for `heatlog races` (racelist.summary_of)

    @property
    def validated(self) -> bool:
        """Its events passed the door in a worker under this process's rules: the writer only stores them."""
        return self.rules == rules_version()


def play_races(seeds: Sequence[int], kwargs: dict[str, Any]) -> list[Played]:
    """A worker's task: the races of ``seeds`` (``kwargs`` as :func:`simulate_race` takes them; bots by name)."""
    out: list[Played] = []
    names = [c["name"] if isinstance(c, dict) else c for c in kwargs.get("car_names", [])]
    args = {k: v for k, v in kwargs.items() if k != "car_names"}
    for seed in seeds:
        watch = TurnLog()
        _, events, state = simulate_race(None, seed=seed, watch=watch, **args)
        drivers = bot_names(args.get("bots", "heuristic"), names or list(state.cars))
        labels = {n: bot_label(b) for n, b in drivers.items()}
        rows = finishing_table(state, watch.turns(), labels)
        validate_played(events)  # the door's check, here in the worker: the one writer only stores
        facts = module_summary(state)  # the modules' facts (Module.summary: the weather's tile and tokens)
        over = state.phase == "over"
        rounds = state.round if over else state.round - 1  # stopped at the start of round MAX_ROUNDS + 1
        out.append(
            Played(
                seed,
                events,
                state.track.name,
                state.laps,
                rounds,
                rows,
                facts,
                rules_version(),
                over,
                summary=summary_of(state),
            )
        )
    return out


def simulate_many(
    count: int,
    first_seed: int,
    kwargs: dict[str, Any],
    executor: Executor,
    *,
    progress: Callable[[int], None] | None = None,
) -> tuple[Iterator[Played], Callable[[], bool]]:
    """Races with seeds ``first_seed`` … ``first_seed + count - 1``, yielded in seed order as they are ready.
    Returns the iterator and a function telling, once the iterator is exhausted, whether Ctrl-C cut it short
    (the races yielded are then a prefix of the full run)."""
    chunks = -(-count // CHUNK)  # chunk k's seeds, worked out when it is sent (listing them all first took
    # gigabytes for --races 10**20 before the first race)

    def seeds(k: int) -> list[int]:
        return list(range(first_seed + k * CHUNK, first_seed + min(k * CHUNK + CHUNK, count)))

    state = {"partial": False}

    def gen() -> Iterator[Played]:
        futures: dict[Future[list[Played]], int] = {}
        done: dict[int, list[Played]] = {}
        todo = iter(range(chunks))
        nxt_out = 0
        try:
            for k in itertools.islice(todo, WINDOW):
                futures[executor.submit(play_races, seeds(k), kwargs)] = k
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    k = futures.pop(fut)
                    done[k] = fut.result()
                    if progress is not None:
                        progress(min(CHUNK, count - k * CHUNK))
                    n = next(todo, None)
                    if n is not None:
                        new = executor.submit(play_races, seeds(n), kwargs)
                        futures[new] = n
                        pending.add(new)
                while nxt_out in done:
                    yield from done.pop(nxt_out)
                    nxt_out += 1
        except KeyboardInterrupt:
            state["partial"] = True
            for fut in futures:
                fut.cancel()
        while nxt_out in done:  # finished before the stop, in order
            yield from done.pop(nxt_out)
            nxt_out += 1
        if nxt_out < chunks:
            state["partial"] = True

    return gen(), lambda: state["partial"]


__all__ = ["CHUNK", "Played", "play_races", "simulate_many"]
