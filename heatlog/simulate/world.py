"""Play whole races from a seed: the world (shuffles, flips, draws) plus bots for the decisions.

The world writes exactly the events an open-mode recorded race would have: every shuffle with its order,
every draw and flip by name. Bots decide only through :mod:`heatlog.engine.decide` and see only what their
player could see (see :mod:`heatlog.bots`).

Determinism: one ``random.Random(seed)`` draws the grid (# 1.4) and every shuffle (# 1.2, 5.6), in the
order the race needs them; a shuffle sorts the cards first, so its outcome never depends on how the
discard pile happened to be ordered in memory, and the order is written into the event. Nothing iterates
over a set or depends on hash order, so the same seed gives the same log on any machine.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..bots import Bot, Options, random_bot
from ..engine import RaceState, Waiting, apply, closing_event, go_on, waiting_for
from ..engine.chance import draw
from ..engine.events import CHANCE
from .collector import collector_paused

Event = dict[str, Any]
#: A race still running after this many rounds is stopped, unfinished. A well-driven race ends in about 20; a
#: car can be stuck for good, though, which the rules allow: e.g. an empty Engine before a corner whose limit
#: a road token lowered, a hand of Stress, a random driver (# 10.1–10.4, 20.8). Its log stays a legal race.
MAX_ROUNDS = 200

__all__ = ["MAX_ROUNDS", "Bot", "play", "race_events", "random_bot", "world_event"]


def world_event(state: RaceState, rng: random.Random, w: Waiting | None = None) -> Event | None:
    """The chance event the race waits for, if it waits for one (grid, shuffle, flip, draw); ``w`` is
    ``waiting_for(state)`` when the caller has it already."""
    if w is None:
        w = waiting_for(state)
    if w.due is None or not w.chance:
        return None
    return draw(state, rng, w)


def race_events(
    race_started: Event, bots: Mapping[str, Bot], seed: int, *, grid: list[str] | None = None
) -> Iterator[Event]:
    """Yield the whole event log of a simulated open-mode race; each event is applied before the next.
    ``grid``: the starting order (e.g. a championship's standings, # 21.12) instead of a random one."""
    state = apply(None, race_started)
    yield race_started
    yield from _drive(state, bots, random.Random(seed), grid)


def play(
    race_started: Event,
    bots: Mapping[str, Bot],
    seed: int,
    *,
    watch: Callable[[RaceState, Event], None] | None = None,
    grid: list[str] | None = None,
) -> tuple[list[Event], RaceState]:
    """Play a whole race; return its event log and its final state. ``watch(state, event)`` is called after
    every event is applied (tests use it to check invariants as the race goes).

    ``race_started`` may start from an open-mode position (``"position"``: a what-if from any point of a
    race); the simulator then plays on from there. ``grid``: the starting order instead of a random one.
    The cycle collector is paused while the race is played (:mod:`heatlog.simulate.collector`)."""
    state = apply(None, race_started)
    events = [race_started]
    with collector_paused():
        if watch is not None:
            watch(state, race_started)
            for ev in _drive(state, bots, random.Random(seed), grid):
                events.append(ev)
                watch(state, ev)
        else:
            events.extend(_drive(state, bots, random.Random(seed), grid))
    return events, state


def _drive(
    state: RaceState, bots: Mapping[str, Bot], rng: random.Random, order: list[str] | None = None
) -> Iterator[Event]:
    """The race loop: the engine says what the race waits for (``waiting_for``); the world answers the chance
    events (it knows every deck), the bots decide, and where a step may be skipped a bot may go on. ``order``:
    the grid, when it is given rather than drawn (# 21.12)."""
    ev: Event | None
    while True:
        w = waiting_for(state)
        due = w.due
        if due is None:
            return
        if state.round > MAX_ROUNDS:
            return  # stopped unfinished (see MAX_ROUNDS): the caller sees state.phase != "over"
        if not w.may_go_on and due in CHANCE:  # (w.chance, without its property call: asked at every event)
            if order is not None and due == "grid_set":
                ev = {"type": "grid_set", "v": 1, "order": list(order)}
            else:
                ev = draw(state, rng, w)  # the one world for chance (engine/chance.py)
        else:
            name = w.cars[0]
            ev = bots[name](state, name, Options(state, name, w), rng)
            if ev is None:
                if not w.may_go_on:
                    raise RuntimeError(f"the bot for {name} made no decision at step {w.step} ({w.step_name})")
                ev = closing_event(state)  # going on ends the race (MA21): the log must say so
                if ev is None:
                    go_on(state)  # derived: the next event closes these optional steps the same way on replay
                    continue
        assert ev is not None
        # No rollback copy: an event the rules refuse means a broken bot, and the race is abandoned anyway.
        apply(state, ev, atomic=False)
        yield ev
