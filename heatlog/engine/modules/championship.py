"""The Championship (MODULES.md 21) as pure functions: an event card's effect on a race's set-up, press corners
and the sponsorship cards they give, championship points, standings and the next race's grid. Pure.

The data (event cards, the points table) comes from the season, which embeds it (``heatlog.championship``
reads the built-in file); nothing here reads a file. The in-race effects of the event cards (hand size,
adrenaline, slipstream gears, discards, eliminations, sponsorship cards earned during a turn) are points of
the per-race rules; :func:`press_cards_earned` and the :class:`EventCard` fields are what those points ask.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..track import Corner, Track

HAND_SIZE = 7  # # 12.1: the hand size an event card may change (# 21.8)
POINTS = (9, 6, 4, 3, 2, 1)  # # 21.10: places 1-6; every other place scores 0 (MA12)


@dataclass(frozen=True, slots=True)
class EventCard:
    """One event card (# 21.8), with what it changes; a field at its default changes nothing."""

    number: int
    name: str
    sponsor_cards: int = 0  # # 21.4: dealt to every driver at the start
    press: tuple[str, ...] = ()  # # 21.6: press-corner letters
    laps: int = 0  # laps added to the circuit's (# 22.9)
    heat: int = 0  # Engine Heat added
    stress: int = 0  # Stress added to the deck
    hand_size: int = HAND_SIZE
    winner_bonus: int = 0  # event 3
    podium_bonus: int = 0  # event 6
    first_across_lap_1: int = 0  # event 1 (# 21.9)
    speed_record: int = 0  # event 2
    passes_for_card: int = 0  # event 8 (MA22)
    spinout_eliminates: bool = False  # event 10 (MA21)
    press_cards: int = 1  # event 11
    slipstream_gears: tuple[int, ...] = (1, 2, 3, 4)  # event 12
    discard_heat: bool = False  # event 13
    no_adrenaline: bool = False  # event 14
    max_discard: int | None = None  # event 15
    press_below_limit: bool = False  # event 16
    discard_stress: bool = False  # event 17
    lap_heat_removed: bool = False  # event 18 (MA23)

    @classmethod
    def from_dict(cls, number: int, data: Mapping[str, Any]) -> EventCard:
        effects = dict(data.get("effects", {}))
        if "slipstream_gears" in effects:
            effects["slipstream_gears"] = tuple(effects["slipstream_gears"])
        return cls(
            number=int(number),
            name=str(data["name"]),
            sponsor_cards=int(data.get("sponsor_cards", 0)),
            press=tuple(data.get("press", ())),
            **effects,
        )


@dataclass(frozen=True, slots=True)
class RaceValues:
    """What an event card makes of a circuit's values (# 21.8, 22.9)."""

    laps: int
    heat: int
    stress: int
    hand_size: int


def race_values(track: Track, event: EventCard) -> RaceValues:
    """Laps, Engine Heat, Stress and hand size of a championship race on ``track`` with ``event``: the circuit's
    values (# 22.9) changed by the card (# 21.8: strike −1 lap, record crowds +1 lap and hand 8, engine
    restrictions lifted +1 Heat, safety regulations −2 Heat −1 Stress and hand 6, sponsor withdraws +1 Stress,
    pressure cooker +1 lap). Never below 1 lap, 0 Heat, 0 Stress."""
    return RaceValues(
        laps=max(1, track.laps + event.laps),
        heat=max(0, track.heat + event.heat),
        stress=max(0, track.stress + event.stress),
        hand_size=event.hand_size,
    )


def press_lines(track: Track, event: EventCard) -> list[Corner]:
    """The Corner Lines that are press corners in this race, in race order (# 21.6: the event's letters,
    wrapped beyond the circuit's lettered corners; a chicane's letter is on its second line, # 22.3)."""
    lettered = [c for c in track.corners if c.press]
    if not lettered:
        return []
    chosen = {lettered[(ord(letter) - ord("A")) % len(lettered)].after_space for letter in event.press}
    return [c for c in track.corners if c.after_space in chosen]


def press_cards_earned(
    *,
    speed: int,
    limit: int,
    slipstreamed_across: bool,
    spun_out: bool,
    event: EventCard,
) -> int:
    """Sponsorship cards a car draws for crossing a press corner's line (# 21.7).

    ``limit`` is the printed limit with the road-condition token (never the car's Adjust symbols, MA4);
    ``slipstreamed_across``: the line was crossed during the car's slipstream (a Draft move is not, MA3).
    Earned by a Speed of at least limit + 2, or by the slipstream at any Speed; one card per press corner per
    crossing even if both hold; none if the car spun out anywhere in that turn (MA18). Event 16 (Smile and
    wave) turns the test round: only a Speed below the limit earns, slipstream or not; event 11 (Going global)
    gives 2 cards instead of 1."""
    if spun_out:
        return 0
    earned = (speed < limit) if event.press_below_limit else (speed >= limit + 2 or slipstreamed_across)
    return event.press_cards if earned else 0


@dataclass(frozen=True, slots=True)
class RaceResult:
    """One race of a season, as the season reads it: the finishing order and the eliminated cars."""

    places: tuple[str, ...]  # Hall of Fame order (eliminated cars take the last places, MA21)
    eliminated: frozenset[str] = frozenset()
    points: Mapping[str, int] = field(default_factory=dict)


def race_points(
    places: Sequence[str],
    event: EventCard,
    eliminated: frozenset[str] = frozenset(),
    table: Sequence[int] = POINTS,
) -> dict[str, int]:
    """Championship points of one race (# 21.10): 9, 6, 4, 3, 2, 1 for places 1–6, 0 below (MA12); an
    eliminated car scores 0 (event 10, MA12); event 3 gives the winner 2 more, event 6 the top three 1 more
    each. Legends score like cars (# 21.10)."""
    out: dict[str, int] = {}
    for i, name in enumerate(places):
        if name in eliminated:
            out[name] = 0
            continue
        points = table[i] if i < len(table) else 0
        if i == 0:
            points += event.winner_bonus
        if i < 3:
            points += event.podium_bonus
        out[name] = points
    return out


@dataclass(frozen=True, slots=True)
class Standing:
    name: str
    points: int
    per_race: tuple[int | None, ...]  # points of each race run so far (None: did not take part)
    wins: int
    last_place: int | None  # place in the last race run (the tie-break, # 21.10)


def standings(drivers: Sequence[str], results: Sequence[RaceResult]) -> list[Standing]:
    """The championship table after ``results`` (# 21.10): most points first; a tie is broken by the place in
    the last race (BGA ``setScoreAux``); still tied (nobody raced yet): the drivers' order."""
    rows = []
    for order, name in enumerate(drivers):
        per_race = tuple(r.points.get(name) if name in r.places else None for r in results)
        last = None
        if results and name in results[-1].places:
            last = results[-1].places.index(name) + 1
        wins = sum(1 for r in results if r.places and r.places[0] == name and name not in r.eliminated)
        rows.append((Standing(name, sum(p or 0 for p in per_race), per_race, wins, last), order))
    rows.sort(key=lambda row: (-row[0].points, row[0].last_place or 99, row[1]))
    return [row[0] for row in rows]


def next_grid(table: Sequence[Standing], rule: str = "standings") -> list[str] | None:
    """The grid of the next race (# 21.12, MA11): ``"standings"`` puts the championship leader on pole and the
    rest in standings order; ``"random"`` (# 1.4) leaves it to the race's own random grid (None)."""
    if rule == "random":
        return None
    if rule != "standings":
        raise ValueError(f"unknown grid rule {rule!r} (standings, random)")
    return [s.name for s in table]


def draft_order(table: Sequence[Standing]) -> list[str]:
    """Who picks first in the upgrade draft before a race (# 21.2, MA11): the lowest-ranked driver first."""
    return [s.name for s in reversed(table)]
