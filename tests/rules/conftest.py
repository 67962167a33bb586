"""Builders for rules scenarios (digest items are cited as ``# N.M`` in the test files).

Two ways to get a race:

* ``start_race(...)`` sets a race up exactly as a log would (``race_started``, ``grid_set``, one
  ``deck_shuffled`` per car with an explicit order, ``cards_drawn``), so every card is under control;
* ``board({...})`` does the same and then puts the cars where the scenario needs them (progress, lane, gear,
  hand, deck, discard, Engine) and starts round 1 again with the engine's own round start, so the round
  order and the adrenaline holders are the engine's (# 2.2, 6.1).

Cards are written as strings, one character per card (``"12S H"``: spaces are ignored); decks are written
top first. The default test track (``TRACK``) has 30 spaces and four corners; its race line is in lane 1
except on spaces 11–13 and 23–26 (lane 2), so lane changes at corners are exercised everywhere.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest

from heatlog.engine import HeatlogError, IllegalEvent, RaceState, Turn, apply, go_on, start_round, state_to_position
from heatlog.engine.cards import HAND_SIZE, starting_deck
from heatlog.engine.state import Car, counts
from heatlog.formats.tracks import load_track_data, validate_track_data

Event = dict[str, Any]
Cards = str | Iterable[str]

# (after_space, limit, race_line_lane_after)
TRACK_CORNERS = ((10, 4, 2), (13, 3, 1), (22, 5, 2), (26, 2, 1))


def cards(spec: Cards) -> list[str]:
    """``"12 S"`` -> ``["1", "2", "S"]``; lists pass through."""
    if isinstance(spec, str):
        return [c for c in spec if not c.isspace()]
    return list(spec)


def make_track(
    spaces: int = 30,
    corners: Iterable[tuple[int, int, int]] = TRACK_CORNERS,
    from_finish: int = 1,
    laps: int = 1,
    grid: int = 6,
    id: str = "test",
) -> dict[str, Any]:
    """A schema-valid track dict; grid spot g sits on space ``spaces - (g-1)//2``, lane 1 for odd g."""
    data = {
        "schema_version": 1,
        "id": id,
        "name": f"Test track {id}",
        "spaces": spaces,
        "laps": laps,
        "heat": 6,
        "stress": 3,
        "race_line_lane_from_finish": from_finish,
        "corners": [{"after_space": a, "limit": lim, "race_line_lane_after": lane} for a, lim, lane in corners],
        "grid": [{"spot": g, "space": spaces - (g - 1) // 2, "lane": 1 if g % 2 else 2} for g in range(1, grid + 1)],
    }
    return validate_track_data(data)


TRACK = make_track()


def usa() -> dict[str, Any]:
    return load_track_data("usa")


def deck(top: Cards = "") -> list[str]:
    """An 18-card starting deck order (# 1.2), top first: ``top`` then the rest in a fixed order."""
    head = cards(top)
    rest = Counter(starting_deck())
    rest.subtract(head)
    assert all(v >= 0 for v in rest.values()), f"{head} is not part of a starting deck"
    tail: list[str] = []
    order = ["1", "2", "3", "4"]
    while any(rest[c] for c in order):
        for c in order:
            if rest[c]:
                tail.append(c)
                rest[c] -= 1
    for c in ("0", "5", "H", "S"):
        tail += [c] * rest[c]
    return head + tail


def ev(kind: str, **fields: Any) -> Event:
    return {"type": kind, "v": 1, **fields}


def rule_cited(err: BaseException, rule: str) -> bool:
    """The message names the digest item as ``(# N.M)``."""
    return re.search(r"# " + re.escape(rule) + r"\)", str(err)) is not None


class Race:
    """A race under test: applies events, remembers every completed turn, checks rejections."""

    def __init__(self, state: RaceState) -> None:
        self.state = state
        self.history: list[Turn] = []
        self.log: list[Event] = []

    # ------------------------------------------------------------------ events

    def ev(self, kind: str, **fields: Any) -> Race:
        event = ev(kind, **fields)
        old = self.state.turns
        apply(self.state, event)
        self.log.append(event)
        self._collect(old)
        return self

    def _collect(self, old: list[Turn]) -> None:
        seen = {id(t) for t in self.history}
        for t in [*old, *self.state.turns]:
            if id(t) not in seen:
                self.history.append(t)
                seen.add(id(t))

    def reject(self, kind: str, *, rule: str | None = None, error: type[HeatlogError] = IllegalEvent, **fields: Any):
        """The event is refused with ``error`` naming ``rule``, and the state is exactly as before.

        The engine restores a copy after some refused events: look cars up again (``race.car``) afterwards."""
        before = state_to_position(self.state)
        with pytest.raises(HeatlogError) as info:
            apply(self.state, ev(kind, **fields))
        assert type(info.value) is error, f"expected {error.__name__}, got {info.value!r}"
        assert state_to_position(self.state) == before, "a rejected event changed the state"
        if rule is not None:
            assert rule_cited(info.value, rule), f"message does not cite # {rule}: {info.value}"
        return info.value

    # ------------------------------------------------------------------ steps

    def gears(self, **gears: int) -> Race:
        for name, gear in gears.items():
            self.ev("gear_chosen", car=name, gear=gear)
        return self

    def play(self, **plays: Cards) -> Race:
        for name, cs in plays.items():
            self.ev("cards_played", car=name, cards=cards(cs))
        return self

    def round(self, **spec: tuple[int, Cards]) -> Race:
        """Steps 1–2 for every car: ``race.round(A=(2, "34"), B=(1, "1"))`` (gears first, then plays)."""
        self.gears(**{n: g for n, (g, _) in spec.items()})
        if self.state.mode == "open":
            self.play(**{n: cs for n, (_, cs) in spec.items()})
        return self

    def reveal(self, name: str, cs: Cards) -> Race:
        return self.ev("cards_revealed", car=name, cards=cards(cs))

    def flip(self, name: str, *flipped: str) -> Race:
        for card in flipped:
            for c in cards(card):
                self.ev("card_flipped", car=name, card=c)
        return self

    def boost(self, name: str, *flipped: str) -> Race:
        self.ev("boost", car=name)
        return self.flip(name, *flipped)

    def cooldown(self, name: str, n: int) -> Race:
        return self.ev("cooldown", car=name, count=n)

    def adrenaline(self, name: str, bonus: str) -> Race:
        return self.ev("adrenaline", car=name, bonus=bonus)

    def slip(self, name: str, taken: bool = True) -> Race:
        return self.ev("slipstream", car=name, taken=taken)

    def discard(self, name: str, cs: Cards) -> Race:
        return self.ev("cards_discarded", car=name, cards=cards(cs))

    def go_on(self) -> Race:
        """Close the optional steps without a decision (React/Slipstream -> corners, or Discard)."""
        old = self.state.turns
        go_on(self.state)
        self._collect(old)
        return self

    def refill(self, name: str | None = None) -> Race:
        """Step 9 for the car whose turn it is: draw from the top of its deck (reshuffling the discard pile
        in its current order when the deck runs out) until its turn is over."""
        turn = self.state.turn
        if turn is None:
            return self
        name = name or turn.car
        assert turn.car == name, f"it is {turn.car}'s turn, not {name}'s"
        while self.state.turn is turn and 5 <= turn.sub <= 8 and turn.flipping is None:
            self.go_on()  # the Play Area goes to discard before a reshuffle for the draw (# 12.1)
        while self.state.turn is turn:
            car = self.car(name)
            if car.deck_size == 0:
                if self.state.mode == "open":
                    self.ev("deck_shuffled", car=name, order=list(car.discard))
                else:
                    self.ev("deck_shuffled", car=name)
                continue
            n = min(HAND_SIZE - car.hand_size, car.deck_size)
            if self.state.mode == "open":
                assert car.deck is not None
                self.ev("cards_drawn", car=name, cards=list(reversed(car.deck[-n:])))
            else:
                self.ev("cards_drawn", car=name, count=n)
        return self

    def turns_until(self, name: str) -> Race:
        """Let every car before ``name`` go on and refill (no React, no Slipstream, no discard)."""
        while self.state.turn is not None and self.state.turn.car != name:
            self.refill()
        return self

    # ------------------------------------------------------------------ looking

    def car(self, name: str) -> Car:
        return self.state.cars[name]

    @property
    def turn(self) -> Turn:
        assert self.state.turn is not None
        return self.state.turn

    def last_turn(self, name: str) -> Turn:
        """The car's turn under way, else its latest completed turn."""
        if self.state.turn is not None and self.state.turn.car == name:
            return self.state.turn
        for t in reversed(self.history):
            if t.car == name:
                return t
        raise AssertionError(f"{name} has had no turn")

    def at(self, name: str) -> tuple[int, int]:
        c = self.car(name)
        return c.progress, c.lane

    def hand(self, name: str) -> list[str]:
        c = self.car(name)
        assert c.hand is not None
        return sorted(card for card, n in c.hand.items() for _ in range(n))

    def race_lane(self, progress: int) -> int:
        return self.state.track.race_lane(progress)

    def position(self) -> dict[str, Any]:
        return state_to_position(self.state)


def race_started(
    cars: Iterable[str] = ("A", "B"),
    *,
    track: dict[str, Any] | None = None,
    laps: int = 1,
    mode: str = "open",
    handicap: Iterable[str] = (),
    variant: str = "standard",
) -> Race:
    """Only the ``race_started`` event: the grid and the set-up shuffles and draws are still to come."""
    names = list(cars)
    return Race(
        apply(
            None,
            ev(
                "race_started",
                track=track or TRACK,
                laps=laps,
                cars=[{"name": n, "colour": f"c{i}"} for i, n in enumerate(names)],
                variant=variant,
                handicap=list(handicap),
                mode=mode,
            ),
        )
    )


def start_race(
    cars: Iterable[str] = ("A", "B"),
    *,
    track: dict[str, Any] | None = None,
    decks: dict[str, Cards] | None = None,
    laps: int = 1,
    mode: str = "open",
    handicap: Iterable[str] = (),
    variant: str = "standard",
    grid: Iterable[str] | None = None,
) -> Race:
    """A race set up by events; ``decks`` gives each car's shuffle order top first (completed by ``deck``)."""
    names = list(cars)
    race = race_started(names, track=track, laps=laps, mode=mode, handicap=handicap, variant=variant)
    order = list(grid) if grid is not None else names
    race.ev("grid_set", order=order)
    decks = decks or {}
    for name in order:
        if mode == "open":
            d = deck(decks.get(name, ""))
            race.ev("deck_shuffled", car=name, order=d)
            race.ev("cards_drawn", car=name, cards=d[:HAND_SIZE])
        else:
            race.ev("deck_shuffled", car=name)
            race.ev("cards_drawn", car=name, count=HAND_SIZE)
    return race


def deal_cards(
    c: Car,
    spec: dict[str, Any],
    mode: str,
    hand: list[str],
    deck_top_first: list[str],
    parse: Any,
    tokens: tuple[str, ...] | None = None,
) -> None:
    """Give a built board's car ``spec``'s cards: the hand, the deck (top first), the discard pile (``parse``d),
    gear (1) and Engine (6); ``tokens``: the race's card tokens (the base cards by default). In table mode the
    hand and the deck's order are unknown; a built board has no memory of past reshuffles (table mode bounds only
    the pool)."""
    known = counts if tokens is None else (lambda xs: counts(xs, tokens))
    c.gear = spec.get("gear", 1)
    c.engine = spec.get("engine", 6)
    c.pool = known(hand + deck_top_first)
    c.hand = known(hand) if mode == "open" else None
    c.hand_size = len(hand)
    c.deck = list(reversed(deck_top_first)) if mode == "open" else None
    c.deck_max = None
    c.deck_size = len(deck_top_first)
    c.discard = parse(spec.get("discard", ""))
    c.play_area = []
    c.committed = None


DEFAULT_HAND = "1234123"
PARKED = "0123412"  # a hand holding the 0: a car that plays "0" in gear 1 stays where it is (# 4.3)
DEFAULT_DECK = "4123412341234"


def board(
    cars: dict[str, dict[str, Any]],
    *,
    track: dict[str, Any] | None = None,
    laps: int = 1,
    mode: str = "open",
    started: int | None = None,
    round: int = 1,
    variant: str = "standard",
) -> Race:
    """A race with the cars placed as described, at step 1 of round ``round``.

    Each car: ``at`` progress (on lap 1 the space number; grid spots are <= 0), ``lane`` (default: the race
    line of that space), ``gear`` (1), ``hand`` (7 cards), ``deck`` (top first), ``discard`` (bottom first),
    ``engine`` (6), ``finished`` (False: a finished car is in the Hall of Fame, off the track).
    """
    race = start_race(list(cars), track=track, laps=laps, mode=mode, variant=variant)
    st = race.state
    st.spots.clear()
    for name, spec in cars.items():
        c = st.cars[name]
        deal_cards(c, spec, mode, cards(spec.get("hand", DEFAULT_HAND)), cards(spec.get("deck", DEFAULT_DECK)), cards)
        c.progress = spec["at"]
        c.lane = spec.get("lane") or st.track.race_lane(c.progress)
        c.finished = bool(spec.get("finished", False))
        if c.finished:
            st.hall_of_fame.append(name)
            st.finish_rounds[name] = 0
            continue
        key = (st.track.space_of(c.progress), c.lane)
        assert key not in st.spots, f"{name} and {st.spots[key]} both on space {key[0]} lane {key[1]}"
        st.spots[key] = name
    st.started = started or len(st.cars)
    st.round = round - 1
    start_round(st)
    return race


__all__ = [
    "DEFAULT_DECK",
    "DEFAULT_HAND",
    "PARKED",
    "TRACK",
    "Race",
    "board",
    "cards",
    "deck",
    "ev",
    "make_track",
    "race_started",
    "rule_cited",
    "start_race",
    "usa",
]
