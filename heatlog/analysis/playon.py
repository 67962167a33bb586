"""Play a race or branch on with bots, into its log: a recorded what-if (``heatlog branch --play-on``).

- An **open-mode** race is played on as recorded: every hand is in the log, and the decks keep the orders
  their shuffles recorded (the branch is "the same cards, another decision"); later reshuffles are drawn
  with the seed. A deck whose order the log does not know is put in a random order of its known cards.
- A **table-mode** race knows no hand: a world is drawn from the public information
  (:func:`heatlog.analysis.infoset.information_set`, the exact sampler), the bots play it to the end, and the
  events are written as the table would have recorded them (:func:`heatlog.engine.redact.open_to_table`:
  draws as counts, shuffles without order, played cards as reveals).

Every event goes through the door (schema and rules, against the race's own projection) before any is
written; all of them are then appended in one transaction. The play-on is a pure function of the log and
the seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..bots import Options
from ..engine import HeatlogError, MalformedInput, RaceState, apply, state_to_position
from ..engine.game import play_out
from ..engine.redact import open_to_table
from ..engine.state import expand
from ..log.played_by import bots_note
from ..log.racelog import RaceLog
from .infoset import information_set
from .playout import make_bots, playout_seed, refuse_to_play_on

Event = dict[str, Any]


@dataclass(slots=True)
class PlayedOn:
    race: int
    events: int  # events appended
    first_seq: int
    state: RaceState  # the race's state at the end (as its log now folds)


def continuation(events: list[Event], bots: Mapping[str, str], seed: int) -> list[Event]:
    """The events that play the race of ``events`` (an effective log) to its end, as its log would record
    them. Pure: nothing is written."""
    if not events:
        raise MalformedInput("an empty log has no race")
    state: RaceState | None = None
    for ev in events:
        state = apply(state, ev, atomic=False)
    assert state is not None
    refuse_to_play_on(state)
    rng = random.Random(playout_seed(seed, 0, "play-on/world"))
    if state.mode == "open":
        world = state.copy()
        for car in world.cars.values():
            if car.deck is None and car.hand is not None and not car.needs_shuffle:
                deck = {c: car.pool[c] - car.hand[c] for c in car.pool}
                for c in car.deck_top:  # the cards a Refresh put on top stay there (# 18.21)
                    deck[c] -= 1
                order = expand(deck)
                rng.shuffle(order)
                car.deck = order + list(car.deck_top)
    else:
        world = information_set(events).sample(rng)
    start = state_to_position(world)
    drivers = make_bots(bots)
    play = random.Random(playout_seed(seed, 0, "play-on"))
    out: list[Event] = []

    def decide(s: RaceState, name: str) -> Event | None:
        return drivers[name](s, name, Options(s, name), play)

    play_out(world, decide, play, record=out.append)
    if state.mode == "open":
        return out
    synthetic = [{**events[0], "mode": "open", "position": start}, *out]
    return open_to_table(synthetic)[1:]


def play_on(log: RaceLog, race: int, *, bots: Mapping[str, str], seed: int) -> PlayedOn:
    """Play ``race`` (a race or branch) on to its finish with ``bots`` and append the events to its log."""
    eff = log.effective(race)
    events = [e.event for e in eff.entries]
    try:
        new = continuation(events, bots, seed)
    except HeatlogError as err:  # "the race is over", "no grid yet": said of this race
        raise err.located(race=race) from None
    proj = log.project(race)
    if new:  # issue 29: who played the rest is a fact of the race (heatlog.log.played_by), marked before it
        new = [bots_note(proj.state.round, {car: bots[car] for car in proj.state.cars if car in bots}, seed), *new]
    for ev in new:
        log.check(race, ev, proj)  # the door: schema and rules, against the race's own projection
    stored = log.store.append_many(race, new, expected_seq=eff.length + 1)
    return PlayedOn(race, len(stored), stored[0].seq if stored else eff.length, proj.state)


__all__ = ["PlayedOn", "continuation", "play_on"]
