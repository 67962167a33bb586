"""What the race waits for, and what a car may decide now.

The recorder, the simulator, the bots and what-if analysis all ask these questions; none of them
re-implements a rule. Chance events (flips, draws, shuffles) are not decisions: ``waiting_for`` names them,
``decisions`` never lists them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from .cards import DISCARDABLE, GEAR_COOLDOWN, HAND_SIZE, HEAT, PLAYABLE
from .errors import STEP_NAMES
from .rules import slipstream_block
from .state import Car, RaceState, Turn, expand

Event = dict[str, Any]


@dataclass(slots=True)
class Waiting:
    """What the race needs next: the step, the cars that may act and the event types that fit."""

    step: int
    cars: list[str]
    kinds: list[str]
    text: str
    optional: list[str] = field(default_factory=list)  # kinds that may be skipped by a later event

    @property
    def step_name(self) -> str:
        return STEP_NAMES.get(self.step, "")


def waiting_for(state: RaceState | None) -> Waiting:
    if state is None:
        return Waiting(0, [], ["race_started"], "the race set-up")
    if state.phase == "grid":
        return Waiting(0, [], ["grid_set"], "the grid order (# 1.4)")
    if state.phase == "deal":
        for car in (state.cars[n] for n in state.grid):
            if car.needs_shuffle:
                return Waiting(0, [car.name], ["deck_shuffled"], f"{car.name}'s starting shuffle (# 1.2)")
            if car.hand_size < HAND_SIZE:
                return Waiting(0, [car.name], ["cards_drawn"], f"{car.name} draws {HAND_SIZE - car.hand_size} (# 1.2)")
    if state.phase == "over":
        return Waiting(0, [], [], "nothing: the race is over")
    turn = state.turn
    if turn is None:
        if state.step == 1:
            return Waiting(1, list(state.pending), ["gear_chosen"], "gears (# 3.1)")
        return Waiting(2, list(state.pending), ["cards_played"], "played cards (# 4.1)")
    car = state.cars[turn.car]
    if turn.flipping is not None:
        if car.deck_size == 0:
            return Waiting(turn.sub, [car.name], ["deck_shuffled"], f"{car.name} reshuffles the discard pile (# 5.6)")
        return Waiting(turn.sub, [car.name], ["card_flipped"], f"{car.name} flips for the {turn.flipping} (# 14.1)")
    if turn.sub == 3:
        return Waiting(3, [car.name], ["cards_revealed"], f"{car.name} reveals {turn.gear} cards (# 5.1)")
    optional: list[str] = []
    if turn.sub == 5:
        for kind in dict.fromkeys(o["type"] for o in react_options(state, car, turn)):
            optional.append(kind)  # only what is open now: no adrenaline for other cars (# 6.1) …
    if turn.sub <= 6 and slipstream_block(state, car, turn) is None:
        optional.append("slipstream")
    if turn.sub <= 8 and not turn.cluttered and not (turn.sub == 8 and turn.discarded):
        optional.append("cards_discarded")
    need = ["deck_shuffled"] if car.deck_size == 0 and car.discard else ["cards_drawn"]
    step = turn.sub
    words = ", ".join(_WORDS.get(k, k) for k in optional + need)
    return Waiting(step, [car.name], optional + need, f"{car.name}: {words}", optional=optional)


_WORDS = {
    "cards_discarded": "discard",
    "cards_drawn": "draw",
    "deck_shuffled": "reshuffle (# 5.6)",
    "slipstream": "slipstream",
}


def legal_gears(state: RaceState, car: Car) -> list[int]:
    """# 3.1–3.4."""
    out = []
    for g in range(1, 5):
        shift = abs(g - car.gear)
        if shift == 3 or (shift == 2 and car.engine < 1):
            continue
        out.append(g)
    return out


def playable_sets(car: Car, gear: int) -> list[list[str]]:
    """Distinct card choices for ``gear`` from a known hand (# 4.1, 4.2), or the forced cluttered play (# 13.1)."""
    if car.hand is None:
        return []
    playable = [c for c in expand(car.hand) if c in PLAYABLE]
    if len(playable) < gear:
        return [playable + [HEAT] * (gear - len(playable))]
    seen: set[tuple[str, ...]] = set()
    out = []
    for combo in combinations(playable, gear):
        if combo not in seen:
            seen.add(combo)
            out.append(list(combo))
    return out


def cooldown_left(turn: Turn) -> int:
    return turn.cooldown_allowance - turn.cooled


def react_options(state: RaceState, car: Car, turn: Turn) -> list[Event]:
    """React decisions open now (# 6.2, 7.1–7.6), each a ready-to-append event."""
    if turn.sub != 5 or turn.flipping is not None or turn.cluttered:
        return []
    out: list[Event] = []
    heat_in_hand = car.hand[HEAT] if car.hand is not None else min(car.pool[HEAT], car.hand_size)
    for n in range(1, min(cooldown_left(turn), heat_in_hand) + 1):
        out.append({"type": "cooldown", "v": 1, "car": car.name, "count": n})
    if not turn.boosted and car.engine >= 1:
        out.append({"type": "boost", "v": 1, "car": car.name})
    if turn.adrenaline:
        if not turn.adrenaline_move:
            out.append({"type": "adrenaline", "v": 1, "car": car.name, "bonus": "move"})
        if not turn.adrenaline_cooldown:
            out.append({"type": "adrenaline", "v": 1, "car": car.name, "bonus": "cooldown"})
    return out


def slipstream_status(state: RaceState, car: Car) -> tuple[bool, str]:
    """(open, reason): whether slipstream is open to ``car`` now and, if not, why (# 8.1–8.7)."""
    turn = state.turn
    if turn is None or turn.car != car.name:
        return False, "it is not this car's turn"
    if turn.sub < 5 or turn.flipping is not None:
        return False, "the car has not moved yet"
    if turn.sub > 6:
        return False, "step 6 is over"
    why = slipstream_block(state, car, turn)
    return (why is None), (why or "open: 2 more spaces (# 8.1)")


def discard_options(car: Car) -> list[list[str]]:
    """Distinct voluntary discards from a known hand (# 11.1): never Heat or Stress."""
    if car.hand is None:
        return []
    pool = [c for c in expand(car.hand) if c in DISCARDABLE]
    seen: set[tuple[str, ...]] = set()
    out: list[list[str]] = []
    for k in range(1, len(pool) + 1):
        for combo in combinations(pool, k):
            if combo not in seen:
                seen.add(combo)
                out.append(list(combo))
    return out


def decisions(state: RaceState, name: str) -> list[Event]:
    """Every decision event ``name`` may append now (open information; chance events excluded).

    In steps 5–8 the car may also simply go on: the next draw closes the optional steps; that choice is
    not an event and is not listed.
    """
    car = state.cars[name]
    w = waiting_for(state)
    if name not in w.cars:
        return []
    if "gear_chosen" in w.kinds:
        return [{"type": "gear_chosen", "v": 1, "car": name, "gear": g} for g in legal_gears(state, car)]
    if "cards_played" in w.kinds:
        return [{"type": "cards_played", "v": 1, "car": name, "cards": s} for s in playable_sets(car, car.gear)]
    turn = state.turn
    if turn is None or turn.flipping is not None:
        return []
    if turn.sub == 3:
        return [{"type": "cards_revealed", "v": 1, "car": name, "cards": s} for s in playable_sets(car, car.gear)]
    out = react_options(state, car, turn)
    if "slipstream" in w.optional:
        out += [
            {"type": "slipstream", "v": 1, "car": name, "taken": True},
            {"type": "slipstream", "v": 1, "car": name, "taken": False},
        ]
    if turn.sub == 8 and "cards_discarded" in w.optional:  # discards are decided after the corners
        out += [{"type": "cards_discarded", "v": 1, "car": name, "cards": d} for d in discard_options(car)]
    return out


__all__ = [
    "GEAR_COOLDOWN",
    "Waiting",
    "cooldown_left",
    "decisions",
    "discard_options",
    "legal_gears",
    "playable_sets",
    "react_options",
    "slipstream_status",
    "waiting_for",
]
