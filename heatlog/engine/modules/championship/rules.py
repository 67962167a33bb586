"""The Championship (MODULES.md 21) as pure functions: an event card's effect on a race's set-up, press corners
and the sponsorship cards they give, championship points, standings and the next race's grid. Pure.

The data (event cards, the points table) comes from the season, which embeds it (``heatlog.formats.championship``
reads the built-in file); nothing here reads a file. A race of a season lists the ``championship`` module in
``race_started.modules`` and holds its block under ``race_started.championship`` (:class:`ChampionshipBlock`:
the season, the race's index, its event card, the season's options), so the race's log alone says its rules.
:func:`build` turns the block into the race's Rules points (# 21.8): the set-up values (Heat, Stress, hand
size), adrenaline, slipstream gears, what may be discarded and how much, the elimination of a car that spins
out, and the Heat that leaves the game at each lap.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as _replace
from typing import TYPE_CHECKING, Any

from ...errors import IllegalEvent
from ...module import PositionCards
from ...ruleset import Rules
from ...track import Corner, Track
from ..garage import garage_slot
from ..garage.cards import Draft, Event, _illegal, _malformed, market_size
from .turn import championship_record

if TYPE_CHECKING:
    from ...state import Car, RaceState, Turn

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
        """A ``ValueError`` (or ``TypeError``) names an effect the engine does not know."""
        effects = dict(data.get("effects", {}))
        unknown = sorted(set(effects) - _EFFECTS)
        if unknown:
            raise ValueError(f"event card {number}: unknown effect {unknown[0]!r}")
        if "slipstream_gears" in effects:
            effects["slipstream_gears"] = tuple(effects["slipstream_gears"])
        return cls(
            number=int(number),
            name=str(data["name"]),
            sponsor_cards=int(data.get("sponsor_cards", 0)),
            press=tuple(data.get("press", ())),
            **effects,
        )


_EFFECTS = frozenset(EventCard.__dataclass_fields__) - {"number", "name", "sponsor_cards", "press"}


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
class Earned:
    """One sponsorship card a turn earns (# 21.7, 21.8, 21.9), and why: what the narration and the recorder say."""

    why: str
    rule: str


def cards_earned(state: RaceState, car: Car, turn: Turn, event: EventCard) -> list[Earned]:
    """The sponsorship cards ``car`` earns in ``turn``, judged at the end of step 7 (one entry per card).

    None at all if the car spun out anywhere in that turn (MA18). Press corners (# 21.6, 21.7): each press line
    the turn checked earns one card (event 11: two) at a Speed of at least its limit with the road-condition token
    + 2 (never the car's Adjust, MA4), or when the line was crossed during the slipstream at any Speed (a Draft
    move is no slipstream, MA3); event 16 turns it round: only a Speed below that limit earns, slipstream or not.
    Event 1 (# 21.9): among the first three to complete lap 1, in turn order (cars that completed it before, Legends
    included, count). Event 2: a Speed of 15 or more. Event 8 (MA22): 3 cars or more on the spaces strictly
    between the start-of-turn space and the space reached."""
    from ..weather import rules as weather  # noqa: PLC0415  (the road-condition tokens, when the weather module is in play)

    if turn.spinout:
        return []
    out: list[Earned] = []
    press = {c.after_space for c in press_lines(state.track, event)}
    slip_from = car.progress - turn.slipstream_moved if turn.slipstream else None
    for check in turn.corners:
        if check.after_space not in press:
            continue
        corner = next(c for c in state.track.corners if c.after_space == check.after_space)
        limit = corner.limit + weather.corner_at(state, corner.after_space).limit  # MA4: not Adjust
        slipped = slip_from is not None and slip_from <= check.line < car.progress
        n = press_cards_earned(speed=turn.speed, limit=limit, slipstreamed_across=slipped, spun_out=False, event=event)
        if n:
            how = (
                f"below its limit {limit}"
                if event.press_below_limit
                else "slipstreaming across"
                if slipped and turn.speed < limit + 2
                else f"at {limit} + 2 or more"
            )
            letter = corner.press or "?"
            out += [
                Earned(f"press corner {letter} (after space {corner.after_space}): speed {turn.speed}, {how}", "21.7")
            ] * n
    spaces = state.track.spaces
    if event.first_across_lap_1 and turn.laps_before == 0 and car.progress > spaces:
        before = sum(1 for c in state.cars.values() if c.name != car.name and c.progress > spaces)
        if before < event.first_across_lap_1:
            out.append(Earned(f"{_ordinal(before + 1)} across the line after lap 1 ({event.name})", "21.9"))
    if event.speed_record and turn.speed >= event.speed_record:
        out.append(Earned(f"speed {turn.speed}: {event.speed_record} or more ({event.name})", "21.8"))
    if event.passes_for_card:
        passed = sum(
            1
            for name in state.spots.values()
            if name != car.name and turn.start < state.cars[name].progress < car.progress
        )
        if passed >= event.passes_for_card:
            out.append(Earned(f"passes {passed} cars in the turn ({event.name})", "MA22"))
    return out


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")


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


DRAFT_ORDERS = ("lowest_first", "leader_first")  # MA11: BGA's, and the other way round


def draft_order(table: Sequence[Standing], order: str = "lowest_first") -> list[str]:
    """Who picks first in the upgrade draft before a race (# 21.2, MA11): the lowest-ranked driver first (BGA), or
    with ``leader_first`` the championship leader."""
    names = [s.name for s in table]
    return names[::-1] if order == "lowest_first" else names


# ---------------------------------------------------------------------------------------------- in the race


GRID_RULES = ("standings", "random")


@dataclass(frozen=True, slots=True)
class ChampionshipOptions:
    """The readings a season keeps configurable (MODULES.md: "keep configurable"), the digest's as defaults."""

    sponsors_carry_over: bool = True  # MA7: unused sponsorship cards stay in the deck for later races (BGA)
    grid: str = "standings"  # # 21.12, MA11: later grids in standings order, leader on pole; or "random" (# 1.4)
    points: tuple[int, ...] = POINTS  # # 21.10

    @classmethod
    def from_dict(cls, data: Any) -> ChampionshipOptions:
        if not isinstance(data, Mapping):
            raise ValueError("championship: options must be an object")
        grid = data.get("grid", "standings")
        if grid not in GRID_RULES:
            raise ValueError(f"championship: grid must be one of {', '.join(GRID_RULES)}")
        carry = data.get("sponsors_carry_over", True)
        points = data.get("points", list(POINTS))
        if not isinstance(carry, bool):
            raise ValueError("championship: sponsors_carry_over must be true or false")
        if not isinstance(points, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in points):
            raise ValueError("championship: points must be a list of numbers")
        return cls(carry, grid, tuple(points))

    def to_dict(self) -> dict[str, Any]:
        return {"grid": self.grid, "sponsors_carry_over": self.sponsors_carry_over, "points": list(self.points)}


@dataclass(frozen=True, slots=True)
class SeasonGarage:
    """``race_started.championship.garage``: the season's upgrade draft before this race (# 21.2, 21.11, MA11).

    ``owned``: the upgrades each driver carries from earlier races (they stay in the deck, # 21.11);
    ``deck``: what the season's Garage deck can still put in this race's market (token -> copies: the deck
    without the upgrades owned and without the cards earlier drafts left in the box, unless it is too short for a
    market, when BGA reshuffles the box in); ``picks``: who picks, in order (MA11: the lowest-ranked driver
    first); empty for the first race, whose order is the grid's, the car last on the grid first (# 21.2)."""

    owned: Mapping[str, tuple[str, ...]]
    deck: Mapping[str, int]
    picks: tuple[str, ...] = ()
    # MA11, kept configurable: who picks first (the lowest-ranked, BGA; or the leader) and whether the first
    # picker may swap (BGA: yes)
    order: str = "lowest_first"
    swap: bool = True

    @classmethod
    def from_dict(cls, data: Any) -> SeasonGarage:
        if not isinstance(data, Mapping):
            raise ValueError("championship: garage must be an object (owned, deck, picks)")
        owned = {str(k): tuple(map(str, v)) for k, v in dict(data.get("owned", {})).items()}
        deck = {str(k): int(v) for k, v in dict(data.get("deck", {})).items()}
        picks = tuple(map(str, data.get("picks", ())))
        if any(n < 0 for n in deck.values()) or len(set(picks)) != len(picks):
            raise ValueError("championship: the garage deck counts copies and the pick order names each driver once")
        order, swap = data.get("order", "lowest_first"), data.get("swap", True)
        if order not in DRAFT_ORDERS or not isinstance(swap, bool):
            raise ValueError(
                f"championship: the draft order is one of {', '.join(DRAFT_ORDERS)}; swap is true or false"
            )
        return cls(owned, deck, picks, order, swap)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"owned": {k: list(v) for k, v in self.owned.items()}, "deck": dict(self.deck)}
        if self.picks:
            out["picks"] = list(self.picks)
        out.update(order=self.order, swap=self.swap)
        return out

    def first_picks(self, grid: Sequence[str]) -> list[str]:
        """The pick order of a race with no standings yet (the first): the grid's, from the car last on it
        (# 21.2: "starting with the car last in the current order"), or from pole with ``leader_first``."""
        return list(reversed(grid)) if self.order == "lowest_first" else list(grid)


@dataclass(frozen=True, slots=True)
class ChampionshipBlock:
    """``race_started.championship``: which season and race this is and the rules it runs under."""

    season: str  # the chain hash of the season's first event: the same in every database and export
    season_name: str
    race: int  # 1-based index of the race in its season
    races: int  # races in the season
    event: EventCard
    options: ChampionshipOptions
    # # 21.4, 21.5: the race's sponsorship deck (token -> copies; empty: no sponsorship cards in this race) and
    # the cards each driver carries from earlier races (MA7), already in their decks
    sponsors: Mapping[str, int] = field(default_factory=dict)
    carried: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # the one-time cards used in earlier races, still out of the supply (# 18.24: the supply's used pile, MA7)
    used: Mapping[str, int] = field(default_factory=dict)
    # # 21.2: the season's upgrade draft before this race (with the Garage module): None when the race has none
    garage: SeasonGarage | None = None

    @classmethod
    def from_dict(cls, data: Any) -> ChampionshipBlock:
        """A ``ValueError`` says what is wrong (the door checks the schema first; an import may not have)."""
        if not isinstance(data, Mapping):
            raise ValueError("championship: the module's block (race_started.championship) is missing")
        try:
            season, event = data["season"], data["event"]
            race, races = data["race"], data["races"]
            if not isinstance(race, int) or not isinstance(races, int) or not 1 <= race <= races:
                raise ValueError("championship: race must be a number between 1 and races")
            card = EventCard.from_dict(int(event["number"]), event["card"])
            sponsors = data.get("sponsors") or {}
            deck = {str(k): int(v) for k, v in dict(sponsors.get("deck", {})).items()}
            carried = {str(k): tuple(map(str, v)) for k, v in dict(sponsors.get("carried", {})).items()}
            used = {str(k): int(v) for k, v in dict(sponsors.get("used", {})).items()}
            if any(n < 0 for n in deck.values()) or any(c not in deck for cs in carried.values() for c in cs):
                raise ValueError("championship: the sponsorship cards carried must be of the race's deck")
            held = [c for cs in carried.values() for c in cs]
            if any(n < 0 or held.count(c) + n > deck.get(c, 0) for c, n in used.items()):
                raise ValueError("championship: more sponsorship cards used and held than the deck has")
            garage = data.get("garage")
            return cls(
                str(season["id"]),
                str(season["name"]),
                race,
                races,
                card,
                ChampionshipOptions.from_dict(data.get("options", {})),
                deck,
                carried,
                used,
                SeasonGarage.from_dict(garage) if garage is not None else None,
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"championship: the block is incomplete ({exc})") from None


def spinout_eliminates(state: RaceState) -> bool:
    """Whether a spinout eliminates the car in this race (event 10, MA21): what a bot weighs a spinout by."""
    if "championship" not in state.rules.modules:
        return False
    block = state.rules.options.get("championship") or {}
    return bool(block.get("event", {}).get("card", {}).get("effects", {}).get("spinout_eliminates"))


def eliminate(state: RaceState, car: Car) -> None:
    """MA21: the car leaves the track at once (it no longer blocks and cannot be slipstreamed), is done for the
    round order and takes the last free Hall-of-Fame place (the rules add it when the race is over)."""
    key = (state.track.space_of(car.progress), car.lane)
    if state.spots.get(key) == car.name:
        del state.spots[key]
    car.finished = True
    state.eliminated.append(car.name)


def lap_heat_source(state: RaceState, car: Car) -> str | None:
    """Event 18 (MA23): where the Heat card that leaves the game comes from: the Engine, else the hand, else
    the discard pile, else the deck; None when the car has no Heat card left anywhere. In table mode with an
    empty Engine the hand may or may not hold one: ``"unknown"`` (the table says, ``heat_removed``)."""
    from ...cards import HEAT  # noqa: PLC0415  (cards is light; kept local beside the one use)
    from ...knowledge import Knowledge  # noqa: PLC0415

    if car.engine > 0:
        return "engine"
    if car.hand is not None:
        in_hand = car.hand[HEAT]
        in_deck = car.pool[HEAT] - in_hand
        return "hand" if in_hand else "discard" if HEAT in car.discard else "deck" if in_deck else None
    know = Knowledge.of(car)
    if know.hand_min(HEAT) > 0:
        return "hand"
    if know.hand_max(HEAT) > 0:
        return "unknown"
    if HEAT in car.discard:
        return "discard"
    return "deck" if car.pool[HEAT] > 0 else None


def remove_lap_heat(state: RaceState, car: Car, source: str) -> None:
    """Take one Heat card out of the game from ``source`` (event 18, MA23): not a discard (tunnels allow it)."""
    from ...cards import HEAT  # noqa: PLC0415

    if source == "engine":
        car.engine -= 1
    elif source == "hand":
        car.pool[HEAT] -= 1
        if car.hand is not None:
            car.hand[HEAT] -= 1
        if car.deck_max is not None:  # the deck's bound cannot exceed what deck ∪ hand holds
            car.deck_max[HEAT] = min(car.deck_max[HEAT], car.pool[HEAT])
        car.hand_size -= 1
    elif source == "discard":
        car.discard.remove(HEAT)
    elif source == "deck":
        car.pool[HEAT] -= 1
        car.deck_size -= 1
        if car.deck is not None:  # the top-most Heat of a known deck
            del car.deck[len(car.deck) - 1 - car.deck[::-1].index(HEAT)]
        if HEAT in car.deck_top:  # the top-most Heat, when it is one of the cards known on top (# 18.21)
            i = len(car.deck_top) - 1 - car.deck_top[::-1].index(HEAT)
            car.deck_top = car.deck_top[:i] + car.deck_top[i + 1 :]
        if car.deck_max is not None and car.deck_max[HEAT] > 0:
            car.deck_max[HEAT] -= 1
    else:
        raise ValueError(f"no Heat source {source!r}")


def laps_completed(state: RaceState, car: Car, turn: Turn) -> int:
    """Laps ``car`` completed in ``turn`` that are not the race's final lap (event 18: the final one removes
    nothing)."""
    done = state.laps_done(car)
    return max(0, min(done, state.laps - 1) - turn.laps_before)


def build(rules: Rules, options: Any) -> Rules:
    """The race's Rules with the event card's effects (# 21.8; 21.13: nothing else changes). Laps are the
    race's own (``race_started.laps``, set by the season from # 21.8 and 22.9); points are the season's."""
    from ...cards import HEAT, STRESS  # noqa: PLC0415

    block = ChampionshipBlock.from_dict(options)
    card = block.event
    changes: dict[str, Any] = {}
    if card.stress:  # events 9, 10: Stress in the deck
        deck = rules.starting_deck

        def starting_deck(state: RaceState, car: Car) -> list[str]:
            cards = deck(state, car)
            if card.stress > 0:
                return cards + [STRESS] * card.stress
            for _ in range(min(-card.stress, cards.count(STRESS))):
                cards.remove(STRESS)
            return cards

        changes["starting_deck"] = starting_deck
    if card.heat:  # events 4, 9: Heat on the Engine
        heat = rules.engine_heat
        changes["engine_heat"] = lambda state, car: max(0, heat(state, car) + card.heat)
    if card.hand_size != HAND_SIZE:  # events 5, 9 (MA26: the spinout threshold of # 12.2 follows it)
        changes["hand_size"] = lambda state, car: card.hand_size
    if card.no_adrenaline:  # event 14
        changes["adrenaline_cars"] = lambda state, order: []
    if card.slipstream_gears != (1, 2, 3, 4):  # event 12
        gears = card.slipstream_gears
        blocked = rules.slipstream_block

        def slipstream_block(state: RaceState, car: Car) -> str | None:
            if car.gear not in gears:  # the gear in force this turn (no spinout before step 6)
                words = " or ".join(map(str, gears))
                return f"{card.name}: slipstream only in gear {words} (event {card.number}, # 21.8)"
            return blocked(state, car)

        changes["slipstream_block"] = slipstream_block
    if card.discard_heat or card.discard_stress:  # events 13, 17 (tunnels still win, # 21.13, 22.6)
        allowed = {HEAT} if card.discard_heat else set()
        allowed |= {STRESS} if card.discard_stress else set()
        can = rules.can_discard
        changes["can_discard"] = lambda state, car, c: c in allowed or can(state, car, c)
    if card.max_discard is not None:  # event 15
        cap = card.max_discard
        limit = rules.discard_limit

        def discard_limit(state: RaceState, car: Car) -> int | None:
            before = limit(state, car)
            return cap if before is None else min(cap, before)

        changes["discard_limit"] = discard_limit
    if card.spinout_eliminates or card.lap_heat_removed:
        after = rules.after_corners

        def after_corners(state: RaceState, car: Car, turn: Turn) -> None:
            after(state, car, turn)
            if card.spinout_eliminates and turn.spinout:  # event 10, MA21
                eliminate(state, car)
                turn.eliminated = True
                return
            if card.lap_heat_removed:  # event 18, MA23: on entering step 8 (no discard can change its source)
                for _ in range(laps_completed(state, car, turn)):
                    source = lap_heat_source(state, car)
                    if source == "unknown":
                        turn.owed = [*turn.owed, "heat_removed"]  # (new lists: the defaults are shared)
                    elif source is not None:
                        remove_lap_heat(state, car, source)
                        own = championship_record(turn)
                        own.heat_removed = [*own.heat_removed, source]

        changes["after_corners"] = after_corners
    if block.garage is not None:
        changes.update(_draft_points(rules, block.garage))
    if block.sponsors:
        changes.update(_sponsor_points(rules, changes, block))
    return _replace(rules, **changes)


def _draft_points(rules: Rules, setup: SeasonGarage) -> dict[str, Any]:
    """The season's upgrade draft as the race's Garage phase (# 21.2, MA11): one round with a market of players
    + 3, the pick order the season gives (race 1: the car last on the grid first), the first picker's swap; the
    upgrades of earlier races are owned from the start (# 21.11), so each deck ends with one more. After the grid
    (# 18.4) and before the weather (# 21.3), as the Garage's own phase."""
    if "garage" not in rules.modules or rules.modules.index("garage") > rules.modules.index("championship"):
        raise ValueError("championship: a race with the season's upgrade draft lists the garage module before it")
    enter, decide = rules.enter_phase, rules.phase_decisions

    def enter_phase(state: RaceState, phase: str) -> None:
        garage = garage_slot(state)
        if phase != "garage" or garage is None:
            enter(state, phase)
            return
        drafting = [n for n in state.grid if not state.cars[n].legend]
        picks = list(setup.picks) or setup.first_picks(drafting)  # # 21.2: the car last in the order first
        if sorted(picks) != sorted(drafting) or set(setup.owned) - set(drafting):
            who = ", ".join(sorted(set(picks) | set(setup.owned)))
            raise IllegalEvent(
                f"the season's upgrade draft is for {who}, the race's cars are {', '.join(drafting)}", rule="21.2"
            )
        garage.draft = ChampionshipDraft.begin(drafting, picks, setup.deck, setup.owned, swap=setup.swap)

    def phase_decisions(state: RaceState, name: str) -> list[Event]:
        g = garage_slot(state)
        draft = g.draft if g is not None else None
        swapping = isinstance(draft, ChampionshipDraft) and draft.waiting() == ("upgrade_swapped", (name,))
        if state.phase == "garage" and swapping:
            assert isinstance(draft, ChampionshipDraft)
            return draft.swap_options()
        return decide(state, name)

    return {"enter_phase": enter_phase, "phase_decisions": phase_decisions}


def dealing(state: RaceState, block: ChampionshipBlock) -> str | None:
    """The car still to be dealt a sponsorship card at set-up (# 21.4: the event's number each, grid order),
    or None when every car has them (or the deck has nothing left to deal)."""
    deck = sponsor_deck(state)
    if deck is None or not deck.left():
        return None
    for name in state.grid:
        car = state.cars[name]
        if not car.legend and deck.dealt.get(name, 0) < block.event.sponsor_cards:
            return name
    return None


def _sponsor_points(rules: Rules, changes: dict[str, Any], block: ChampionshipBlock) -> dict[str, Any]:
    """The sponsorship cards of a championship race (# 21.4, 21.5, 21.7, 21.9, MA7, MC7) as Rules points."""
    out: dict[str, Any] = {}
    deck_point = changes.get("starting_deck", rules.starting_deck)
    if block.carried:  # MA7: the cards kept from earlier races are in the deck from the start

        def starting_deck(state: RaceState, car: Car) -> list[str]:
            return [*deck_point(state, car), *block.carried.get(car.name, ())]

        out["starting_deck"] = starting_deck
    if block.event.sponsor_cards:  # # 21.4: dealt into the starting hand before the deal fills it
        phases = rules.setup_phases
        i = phases.index("deal")
        out["setup_phases"] = (*phases[:i], "sponsors", *phases[i:])
    enter, waiting = changes.get("enter_phase", rules.enter_phase), rules.phase_waiting

    def enter_phase(state: RaceState, phase: str) -> None:
        enter(state, phase)
        if sponsor_deck(state) is None:  # the first set-up phase after the grid: the deck, without the cards held
            held = [c for cs in block.carried.values() for c in cs]
            state.modules[NAME] = SponsorDeck.of(block.sponsors, held, block.used)
        if phase == "sponsors" and dealing(state, block) is None:
            state.phase = state.rules.phase_after("sponsors")
            state.rules.enter_phase(state, state.phase)

    def phase_waiting(state: RaceState) -> tuple[str, list[str]] | None:
        if state.phase == "sponsors":
            name = dealing(state, block)
            return ("sponsor_drawn", [name]) if name is not None else None
        return waiting(state)

    after = changes.get("after_corners", rules.after_corners)

    def after_corners(state: RaceState, car: Car, turn: Turn) -> None:
        after(state, car, turn)
        deck = sponsor_deck(state)
        if turn.eliminated or deck is None:
            return
        earned = cards_earned(state, car, turn, block.event)[: deck.left()]  # an empty deck gives nothing
        if earned:
            championship_record(turn).earned = [e.why for e in earned]
        turn.owed = [*turn.owed, *["sponsor_drawn"] * len(earned)]  # MA30: which card, a chance outcome the log records

    clear = rules.clear_play_area

    def clear_play_area(state: RaceState, car: Car, turn: Turn) -> None:
        deck = sponsor_deck(state)
        if deck is not None and not turn.cluttered:  # # 18.24, MC7: at step 9; # 18.26: a cluttered turn discards
            cards = state.cards
            for c in [c for c in car.play_area if c in cards.token_set and cards[c].symbol("one_time")]:
                car.play_area.remove(c)
                deck.used_up(c)
                own = championship_record(turn)
                own.sponsors_used = [*own.sponsors_used, c]  # (a new list: the default is shared)
        clear(state, car, turn)

    out.update(
        enter_phase=enter_phase,
        phase_waiting=phase_waiting,
        after_corners=after_corners,
        clear_play_area=clear_play_area,
    )
    return out


# ---------------------------------------------------------------------------------------------- the draft between races


@dataclass(slots=True)
class ChampionshipDraft(Draft):
    """The upgrade draft before a championship race (# 21.2, MA11; the weather is revealed only afterwards,
    # 21.3): one round, a market of players + 3 cards, picks in ``picks`` order (the lowest-ranked driver
    first), then the first picker may swap one of their upgrades (those of earlier races included) for one left
    in the market; the rest of the market leaves the game. ``owned`` starts with the upgrades the drivers carry
    from earlier races (# 21.2, 21.11), so a driver ends with one upgrade more.

    Its events are the Garage draft's (``garage_market``, ``upgrade_picked``) and ``upgrade_swapped`` {car,
    give, take} (neither: no swap); a market recorded by its size only leaves the swap unchecked against it."""

    picks: tuple[str, ...] = ()
    swap: bool = True  # MA11: whether the first picker may swap (the season's option)
    swap_with: str | None = None  # the first picker, once every pick is made, until they answer
    left: dict[str, int] | None = None  # the market after the picks (None: not seen)
    swapped: tuple[str, str] | None = None

    @classmethod
    def begin(
        cls,
        order: Sequence[str],
        picks: Sequence[str],
        deck: Mapping[str, int],
        carried: Mapping[str, Sequence[str]],
        *,
        swap: bool = True,
    ) -> ChampionshipDraft:
        if sorted(picks) != sorted(order):
            raise ValueError("the pick order must name every drafting car once")
        draft = cls(method="draft", order=tuple(order), deck=dict(deck), picks=tuple(picks), swap=swap)
        draft.owned = {name: list(carried.get(name, ())) for name in order}
        return draft

    def picks_together(self) -> bool:
        return True  # # 21.2: one round, its picks typed on one answer (issue 29)

    def copy(self) -> ChampionshipDraft:
        base = Draft.copy(self)
        new = ChampionshipDraft(**{f: getattr(base, f) for f in Draft.__dataclass_fields__})
        new.picks, new.swap, new.swap_with, new.swapped = self.picks, self.swap, self.swap_with, self.swapped
        new.left = dict(self.left) if self.left is not None else None
        return new

    def extra_to_dict(self) -> dict[str, Any]:
        """The season draft's own state, for a position (# 21.2, MA11): the pick order, whether the first picker
        may swap, who is to answer the swap, the market left after the picks, the swap made."""
        return {
            "picks": list(self.picks),
            "swap": self.swap,
            "swap_with": self.swap_with,
            "left": dict(self.left) if self.left is not None else None,
            "swapped": list(self.swapped) if self.swapped is not None else None,
        }

    @classmethod
    def from_draft(cls, base: Draft, extra: Mapping[str, Any]) -> ChampionshipDraft:
        """A season draft from a position: the Garage draft's fields and :meth:`extra_to_dict`'s."""
        new = cls(**{f: getattr(base, f) for f in Draft.__dataclass_fields__})
        new.picks = tuple(str(n) for n in extra["picks"])
        new.swap = bool(extra["swap"])
        new.swap_with = None if extra.get("swap_with") is None else str(extra["swap_with"])
        left = extra.get("left")
        new.left = {str(k): int(v) for k, v in left.items()} if left is not None else None
        swapped = extra.get("swapped")
        new.swapped = (str(swapped[0]), str(swapped[1])) if swapped is not None else None
        if sorted(new.picks) != sorted(new.order) or (new.swap_with is not None and new.swap_with not in new.order):
            raise ValueError("the season draft's pick order must name every drafting car once")
        return new

    def waiting(self) -> tuple[str, tuple[str, ...]]:
        if self.queue:
            return "upgrade_picked", (self.queue[0],)
        if self.round < 1:
            return "garage_market", ()
        if self.swap_with is not None:
            return "upgrade_swapped", (self.swap_with,)
        return "done", ()

    def next_market_size(self) -> int:
        return min(market_size("draft", len(self.order)), sum(self.deck.values()))  # # 21.2: players + 3

    def apply(self, ev: Event, named: Callable[[str], str] = str) -> None:
        kind = ev.get("type")
        expected, _ = self.waiting()
        if kind == "upgrade_swapped" and expected == kind:
            self._swap(ev, named)
            return
        Draft.apply(self, ev, named)  # the market and the picks are the Garage draft's (or its refusal)
        if kind == "garage_market":
            self.queue = list(self.picks)  # # 21.2, MA11: the lowest-ranked driver first
            self.left = dict(self.market) if self.market is not None else None
        elif kind == "upgrade_picked":
            if self.left is not None:
                self.left[str(ev["card"])] -= 1
            if not self.queue and self.swap:  # every pick is made: the first picker's swap (# 21.2)
                self.swap_with = self.picks[0]
            elif not self.queue:
                self.left = None  # MA11 without the swap: the market's rest leaves the game at once

    def swap_options(self) -> list[Event]:
        """The first picker's choices (# 21.2): no swap, or one owned upgrade for one left in the market (every
        pair, when the market's cards are known)."""
        name = self.swap_with
        if name is None:
            return []
        out: list[Event] = [{"type": "upgrade_swapped", "v": 1, "car": name}]
        left = [c for c, n in (self.left or {}).items() if n]
        for give in dict.fromkeys(self.owned[name]):
            out += [
                {"type": "upgrade_swapped", "v": 1, "car": name, "give": give, "take": take}
                for take in left
                if take != give
            ]
        return out

    def _swap(self, ev: Event, named: Callable[[str], str]) -> None:
        name = self._car(ev)
        if name != self.swap_with:
            raise _illegal(ev, f"only {self.swap_with}, who picked first, may swap an upgrade", "21.2", car=name)
        give, take = ev.get("give"), ev.get("take")
        if (give is None) != (take is None):
            raise _malformed(ev, "a swap names the upgrade given back and the one taken from the market, or neither")
        if give is not None:
            give, take = self._token(ev, give), self._token(ev, take)
            if give not in self.owned[name]:
                held = ", ".join(map(named, self.owned[name])) or "nothing"
                raise _illegal(ev, f"{name} has no {named(give)}: it holds {held}", "21.2", car=name)
            if self.left is not None and not self.left.get(take):
                shown = ", ".join(named(c) for c, n in self.left.items() for _ in range(n)) or "nothing"
                raise _illegal(ev, f"{named(take)} is not left in the market (it holds {shown})", "21.2", car=name)
            self.owned[name].remove(give)
            self.owned[name].append(take)
            self.removed.append(give)
            self.swapped = (give, take)
        self.left = None  # # 18.5: what is left of the market leaves the game
        self.swap_with = None


# ---------------------------------------------------------------------------------------------- sponsorship cards


@dataclass(slots=True)
class SponsorDeck:
    """The face-down sponsorship deck of one race (# 21.4, 21.7, MA30): what it can still give, and the one-time
    cards played (# 18.24, MC7: they leave the game at step 9) that go back into it when it runs out (# 21.7:
    "its used cards are reshuffled"). ``dealt``: the cards each car has been dealt at set-up so far (# 21.4)."""

    supply: dict[str, int]
    used: dict[str, int] = field(default_factory=dict)
    dealt: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(
        cls, deck: Mapping[str, int], held: Sequence[str] = (), used: Mapping[str, int] | None = None
    ) -> SponsorDeck:
        """The deck of ``deck`` (token -> copies) without the cards the drivers already hold (MA7) and with the
        one-time cards used in earlier races of the season in its used pile (# 18.24: they come back only when
        the supply runs out, # 21.7)."""
        supply = dict(deck)
        for card in held:
            if supply.get(card, 0) > 0:
                supply[card] -= 1
        gone = {c: min(n, supply.get(c, 0)) for c, n in (used or {}).items() if n > 0}
        for card, n in gone.items():
            supply[card] -= n
        return cls(supply, {c: n for c, n in gone.items() if n})

    def copy(self) -> SponsorDeck:
        return SponsorDeck(dict(self.supply), dict(self.used), dict(self.dealt))

    def left(self) -> int:
        """Cards that can still be drawn (the supply, or the used cards once it is empty)."""
        return sum(self.supply.values()) + sum(self.used.values())

    def available(self) -> dict[str, int]:
        """What the next draw can find: the supply, or (once it is empty) the reshuffled used cards."""
        pile = self.supply if any(self.supply.values()) else self.used
        return {c: n for c, n in pile.items() if n > 0}

    def why_not(self, card: Any) -> str | None:
        pile = self.available()
        if not pile:
            return "the sponsorship deck is empty (every card is in a hand or a deck)"
        if card not in pile:
            return f"{card!r} cannot come from the sponsorship deck now (it holds {' '.join(sorted(pile))})"
        return None

    def draw(self, card: str) -> None:
        if not any(self.supply.values()):  # # 21.7: the used cards are reshuffled into a new supply
            self.supply, self.used = self.used, {}
        self.supply[card] -= 1

    def used_up(self, card: str) -> None:
        """A one-time card played leaves the game (# 18.24, MC7): back beside the supply."""
        self.used[card] = self.used.get(card, 0) + 1

    def to_dict(self) -> dict[str, Any]:
        return {"supply": dict(self.supply), "used": dict(self.used), "dealt": dict(self.dealt)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SponsorDeck:
        return cls(dict(data["supply"]), dict(data.get("used", {})), dict(data.get("dealt", {})))


def sponsors_held(state: RaceState, car: Car) -> list[str]:
    """The sponsorship cards ``car`` still owns at the end of a race, in its deck, hand, discard pile or Play Area
    (not those used, which left the game, # 18.24): what it keeps for the next race when the season carries
    them over (MA7, BGA's reading; ``sponsors_carry_over``). Sorted, so it never depends on where they lay."""
    sponsor = {c.token for c in state.cards.cards if c.kind == "sponsor"}
    if not sponsor:
        return []
    held = [c for c, n in car.pool.items() if c in sponsor for _ in range(n)]
    held += [c for c in (*car.discard, *car.play_area) if c in sponsor]
    return sorted(held)


NAME = "championship"  # (its name, the key of its slot in ``state.modules``; the descriptor's NAME)


def sponsor_deck(state: RaceState) -> SponsorDeck | None:
    """The race's sponsorship deck (# 21.4, 21.7): the championship's slot in ``state.modules``, made when the
    set-up after the grid begins in a race whose block holds one; None before (and in any other race). Copied
    with the state."""
    deck: SponsorDeck | None = state.modules.get(NAME)
    return deck


def position_cards(state: RaceState) -> PositionCards | None:
    """What a position of a championship race may hold beyond a car's own starting cards (``Module.position_cards``,
    for the position check in heatlog/formats/positions.py): where the race's own history, which a position does
    not carry, decides it. The sponsorship cards (# 21.4, 21.7, MA30), once the race's sponsorship deck is made:
    dealt at set-up and earned in the race, one-time cards gone to its used pile (MC7); which car drew which is
    history, so they are checked over the race: every copy is in a car's cards, the supply or the used pile. Event
    18 (MA23): one Heat card leaves the game at step 8 of the turn a car completes a non-final lap, when the car
    has one anywhere; so a car holds its own Heat less at most one per such lap. None in any other race."""
    if "championship" not in state.rules.modules:
        return None
    block = ChampionshipBlock.from_dict(state.rules.options.get("championship"))
    deck = sponsor_deck(state)
    sponsors = dict(block.sponsors) if deck is not None else {}
    return PositionCards(
        floating=sponsors,
        floating_problems=_sponsor_problems if sponsors else None,
        heat_less=_heat_less if block.event.lap_heat_removed else None,
    )


def _sponsor_problems(state: RaceState, held: Mapping[str, int]) -> list[tuple[str, str]]:
    """# 21.4, 21.7, MC7: every copy of a sponsorship card is in a car's cards, the supply or the used pile."""
    block = ChampionshipBlock.from_dict(state.rules.options.get("championship"))
    deck = sponsor_deck(state)
    assert deck is not None  # (asked only once the deck is made: PositionCards.floating)
    out: list[tuple[str, str]] = []
    for c, copies in block.sponsors.items():
        supply, used = deck.supply.get(c, 0), deck.used.get(c, 0)
        if held.get(c, 0) + supply + used != copies:
            out.append(
                (
                    "sponsor_deck",
                    f"the race's sponsorship deck has {copies} × {c}, but the cars hold {held.get(c, 0)}, its supply "
                    f"{supply} and its used pile {used} (# 21.4, 21.7)",
                )
            )
    return out


def _heat_less(state: RaceState, car: Car) -> tuple[int, str]:
    return heat_removable(state, car), "removed by event 18, MA23"


def heat_removable(state: RaceState, car: Car) -> int:
    """Event 18 (MA23): the most Heat cards ``car`` can have lost to the event so far (one per non-final lap
    completed)."""
    return min(state.laps_done(car), state.laps - 1)


def draft_leftovers(events: Sequence[Event]) -> dict[str, int] | None:
    """The Garage cards a season race's draft put in the box (# 18.5: what is left of the market, and the upgrade
    the first picker gave back, # 21.2), from the race's draft events; None when a market was recorded by its
    size only (the table did not say which cards it showed)."""
    box: dict[str, int] = {}
    for ev in events:
        kind = ev.get("type")
        if kind == "garage_market":
            if ev.get("cards") is None:
                return None
            for c in ev["cards"]:
                box[c] = box.get(c, 0) + 1
        elif kind == "upgrade_picked":
            box[ev["card"]] = box.get(ev["card"], 0) - 1
        elif kind == "upgrade_swapped" and ev.get("take") is not None:
            box[ev["take"]] = box.get(ev["take"], 0) - 1
            box[ev["give"]] = box.get(ev["give"], 0) + 1
    return {c: n for c, n in sorted(box.items()) if n > 0}


# ---------------------------------------------------------------------------------------------- its chance events


def sponsor_drawn(state: RaceState, ev: Event) -> None:
    """# 21.4, 21.7, 21.9, MA30: a sponsorship card from the race's sponsorship deck into a car's hand: dealt at
    set-up (the ``sponsors`` phase, grid order, the event card's number each) or earned in its turn (step 7);
    which card it is, is a chance outcome the log records (table mode too: the card is shown)."""
    from ...handlers import add_to_hand, event_car, illegal, malformed, step_machine  # noqa: PLC0415
    from ...steps import DISCARD, REACT  # noqa: PLC0415

    car = event_car(state, ev)
    deck = sponsor_deck(state)
    if deck is None:
        raise illegal(state, ev, "this race has no sponsorship cards (a championship race's block gives them)", "21.4")
    card = ev.get("card")
    if not isinstance(card, str) or card not in state.cards.token_set or state.cards[card].kind != "sponsor":
        names = " ".join(c.token for c in state.cards.cards if c.kind == "sponsor")
        raise malformed(state, ev, f"card must be a sponsorship card ({names})")
    turn = state.turn
    if state.phase != "race":
        due = state.rules.phase_waiting(state)
        if due is None or due[0] != "sponsor_drawn":
            raise illegal(state, ev, "sponsorship cards are dealt at set-up, before the deal (# 21.4)", "21.4")
        if car.name not in due[1]:
            raise illegal(state, ev, f"the next sponsorship card is dealt to {', '.join(due[1])}", "21.4")
    else:
        if turn is not None and turn.car == car.name and REACT <= turn.sub < DISCARD and not turn.owed:
            # the card is earned at step 7: React and slipstream close
            step_machine.close_until(state, car, turn, DISCARD, ev)
        if turn is None or turn.car != car.name or not turn.owed or turn.owed[0] != "sponsor_drawn":
            raise illegal(state, ev, f"{car.name} has earned no sponsorship card now", "21.7")
    why = deck.why_not(card)
    if why:
        raise illegal(state, ev, why, "MA30")
    deck.draw(card)
    add_to_hand(car, card)
    if state.phase != "race":
        deck.dealt[car.name] = deck.dealt.get(car.name, 0) + 1
        if state.rules.phase_waiting(state) is None:  # every car has its cards: on to the deal
            state.phase = state.rules.phase_after("sponsors")
            state.rules.enter_phase(state, state.phase)
        return
    assert turn is not None
    turn.owed.pop(0)
    own = championship_record(turn)
    own.sponsors_drawn = [*own.sponsors_drawn, card]  # (a new list: the default is shared, state.NO_CARDS)
    step_machine.advance(state, car, turn, DISCARD)


def heat_removed(state: RaceState, ev: Event) -> None:
    """Event 18 (MA23): the table says where the Heat card that leaves the game came from, when the log cannot
    know (table mode, empty Engine, a hand that may hold Heat)."""
    from ...cards import HEAT  # noqa: PLC0415
    from ...handlers import illegal, malformed, step_machine, turn_car  # noqa: PLC0415
    from ...knowledge import Knowledge  # noqa: PLC0415
    from ...steps import DISCARD, REACT  # noqa: PLC0415

    car, turn = turn_car(state, ev, "removing a Heat card")
    if REACT <= turn.sub < DISCARD and not turn.owed:
        # the card leaves on entering step 8: React and slipstream close
        step_machine.close_until(state, car, turn, DISCARD, ev)
    if not turn.owed or turn.owed[0] != "heat_removed":
        raise illegal(state, ev, f"{car.name} owes no Heat card to the game now", "MA23")
    source = ev.get("from")
    if source not in ("hand", "discard", "deck"):
        raise malformed(state, ev, "from must be hand, discard or deck (the Engine is empty)")
    know = Knowledge.of(car)
    if source == "hand" and know.hand_max(HEAT) == 0:
        raise illegal(state, ev, f"{car.name}'s hand cannot hold a Heat card", "MA23")
    if source != "hand" and know.hand_min(HEAT) > 0:
        raise illegal(state, ev, f"{car.name}'s hand holds a Heat card: it comes from the hand first", "MA23")
    if source == "discard" and HEAT not in car.discard:
        raise illegal(state, ev, f"{car.name}'s discard pile holds no Heat card", "MA23")
    if source == "deck":
        if HEAT in car.discard:
            raise illegal(state, ev, "the discard pile holds a Heat card: it comes from there first", "MA23")
        if know.deck_max(HEAT) == 0:
            raise illegal(state, ev, f"{car.name}'s deck cannot hold a Heat card", "MA23")
    remove_lap_heat(state, car, source)
    own = championship_record(turn)
    own.heat_removed = [*own.heat_removed, source]  # (a new list: the default is shared, state.NO_CARDS)
    turn.owed.pop(0)
    while turn.owed and turn.owed[0] == "heat_removed":  # a later lap of the same turn: known now?
        nxt = lap_heat_source(state, car)
        if nxt == "unknown":
            break
        turn.owed.pop(0)
        if nxt is not None:
            remove_lap_heat(state, car, nxt)
            own.heat_removed = [*own.heat_removed, nxt]
    step_machine.advance(state, car, turn, DISCARD)
