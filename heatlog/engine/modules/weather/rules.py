"""Weather and road conditions (MODULES.md 20): tiles, tokens and the effect tables of one race. Pure.

The tile and the tokens are drawn at set-up (chance events); from them :func:`build_conditions` makes, once,
a table of sector effects indexed by space and a table of corner effects indexed by Corner Line. A rule then
looks up the car's space at the moment it uses an effect (# 20.7, MA5): no search, no allocation.
See docs/legends-weather.md.
"""

from __future__ import annotations

import copy
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ...cards import HEAT, STRESS
from ...module import PositionCards, copy_data, read_once
from ...react import BOOST_COST
from ...track import Track
from ..circuits import corner_groups as corner_groups  # (# 22.2: a chicane is one corner; said here too)
from .slot import NAME, WeatherSlot, slot

_SECTOR_KEYS = ("no_cooldown", "no_slipstream", "free_boost", "cooling", "slipstream")


@dataclass(frozen=True, slots=True)
class SectorEffect:
    """What a sector's road condition changes for a car in it (# 20.5, 20.9–20.12)."""

    token: str | None = None  # the token lying on the sector (None: no token)
    no_cooldown: bool = False  # # 20.9
    no_slipstream: bool = False  # # 20.12: cannot start a slipstream here
    free_boost: bool = False  # # 20.11
    cooling: int = 0  # # 20.10: extra cooldown
    slipstream: int = 0  # # 20.12: optional extra slipstream spaces

    @property
    def active(self) -> bool:
        return bool(self.no_cooldown or self.no_slipstream or self.free_boost or self.cooling or self.slipstream)

    def words(self) -> str:
        """What it does, in the board's words ("" for nothing)."""
        out = []
        if self.no_cooldown:
            out.append("no cooldown")
        if self.no_slipstream:
            out.append("no slipstream")
        if self.free_boost:
            out.append("free boost")
        if self.cooling:
            out.append(f"cooling +{self.cooling}")
        if self.slipstream:
            out.append(f"slipstream +{self.slipstream}")
        return ", ".join(out)


NO_SECTOR_EFFECT = SectorEffect()


@dataclass(frozen=True, slots=True)
class CornerEffect:
    """What a corner token changes at that Corner Line, every lap, for every car (# 20.8, 20.13)."""

    token: str | None = None
    limit: int = 0  # added to the printed limit
    overheat: int = 0  # extra Heat when Speed > limit (# 20.13, MA19)

    def words(self) -> str:
        out = []
        if self.limit:
            out.append(f"limit {self.limit:+d}")
        if self.overheat:
            out.append(f"overheat +{self.overheat}")
        return ", ".join(out)


NO_CORNER_EFFECT = CornerEffect()


@dataclass(frozen=True, slots=True)
class StartEffect:
    """# 20.3: applied to every car's deck and Engine before the starting shuffle."""

    stress: int = 0
    engine: int = 0
    engine_to_deck: int = 0
    engine_to_discard: int = 0

    def words(self) -> str:
        out = []
        if self.stress:
            out.append(f"{abs(self.stress)} Stress {'more' if self.stress > 0 else 'fewer'} in the deck")
        if self.engine:
            out.append(f"{abs(self.engine)} Heat {'more' if self.engine > 0 else 'fewer'} on the Engine")
        if self.engine_to_deck:
            out.append(f"{self.engine_to_deck} Heat from the Engine shuffled into the deck")
        if self.engine_to_discard:
            out.append(f"{self.engine_to_discard} Heat from the Engine start in the discard pile")
        return ", ".join(out)


@dataclass(frozen=True, slots=True)
class Tile:
    id: str
    name: str
    start: StartEffect
    sector: SectorEffect  # what a Weather token brings to its sector (# 20.4, 20.5)


@dataclass(frozen=True, slots=True)
class TokenType:
    id: str
    name: str
    kind: str  # "sector" or "corner"
    copies: int
    weather: bool  # the Weather token: the tile's sector effect
    sector: SectorEffect
    corner: CornerEffect


@dataclass(frozen=True, slots=True, eq=False)
class WeatherRules:
    """The weather module of one race: its tiles and token types, as embedded in ``race_started``."""

    tiles: Mapping[str, Tile]
    tokens: Mapping[str, TokenType]
    data: Mapping[str, Any] = field(default_factory=dict, repr=False)  # as embedded in race_started

    @classmethod
    def from_dict(cls, data: Any) -> WeatherRules:
        """Build from ``race_started.modules.weather``; ValueError names what is wrong. Immutable, so the rules of
        data already read are the same object (every simulated race read the same tiles anew: issue 32)."""
        return read_once(cls._read, data)

    @classmethod
    def _read(cls, data: Any) -> WeatherRules:
        if not isinstance(data, dict):
            raise ValueError("modules.weather must be an object")
        tiles: dict[str, Tile] = {}
        for i, t in enumerate(data.get("tiles") or []):
            try:
                tid = str(t["id"])
                start = StartEffect(**{k: int(v) for k, v in t.get("start", {}).items()})
                sector = SectorEffect(token="weather", **_sector_fields(t.get("sector", {})))
                tiles[tid] = Tile(tid, str(t.get("name", tid)), start, sector)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise ValueError(f"modules.weather.tiles[{i}]: {exc}") from None
        tokens: dict[str, TokenType] = {}
        for i, t in enumerate(data.get("tokens") or []):
            try:
                tid = str(t["id"])
                kind = t["kind"]
                if kind not in ("sector", "corner"):
                    raise ValueError(f"kind must be sector or corner, not {kind!r}")
                eff = dict(t.get("effect", {}))
                weather = bool(eff.pop("weather", False))
                limit, overheat = int(eff.pop("limit", 0)), int(eff.pop("overheat", 0))
                tokens[tid] = TokenType(
                    tid,
                    str(t.get("name", tid)),
                    kind,
                    int(t.get("copies", 1)),
                    weather,
                    SectorEffect(token=tid, **_sector_fields(eff)) if kind == "sector" else NO_SECTOR_EFFECT,
                    CornerEffect(tid, limit, overheat) if kind == "corner" else NO_CORNER_EFFECT,
                )
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise ValueError(f"modules.weather.tokens[{i}]: {exc}") from None
        if not tiles or not tokens:
            raise ValueError("modules.weather needs its tiles and tokens (# 20.1)")
        embedded = {"tiles": copy.deepcopy(data["tiles"]), "tokens": copy.deepcopy(data["tokens"])}
        return cls(tiles, tokens, embedded)


def _sector_fields(eff: Mapping[str, Any]) -> dict[str, Any]:
    unknown = [k for k in eff if k not in _SECTOR_KEYS]
    if unknown:
        raise ValueError(f"unknown effect {unknown[0]!r}")
    return {k: (bool(v) if k in ("no_cooldown", "no_slipstream", "free_boost") else int(v)) for k, v in eff.items()}


# ------------------------------------------------------------------------------------------------ corners


def check_tokens(track: Track, rules: WeatherRules, tokens: Any) -> str | None:
    """Why ``tokens`` (one id per corner, racing order) cannot be this race's road conditions, or None."""
    n = len(corner_groups(track))
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        return "tokens must be a list of token names"
    if len(tokens) != n:
        return f"{track.name} has {n} corners (a chicane counts once): draw exactly {n} tokens, not {len(tokens)}"
    unknown = [t for t in tokens if t not in rules.tokens]
    if unknown:
        return f"there is no road-condition token {unknown[0]!r} (tokens: {', '.join(rules.tokens)})"
    for t, k in Counter(tokens).items():
        if k > rules.tokens[t].copies:
            return f"there are only {rules.tokens[t].copies} {rules.tokens[t].name} tokens, not {k}"
    return None


@dataclass(frozen=True, slots=True, eq=False)
class Conditions:
    """One race's weather and road conditions as lookup tables (built once, shared by state copies)."""

    tile: Tile
    tokens: tuple[str, ...]  # per corner (chicane once), racing order
    groups: tuple[tuple[int, ...], ...]
    by_space: tuple[SectorEffect, ...]  # index = space 1..N (0 unused)
    by_line: tuple[CornerEffect, ...]  # index = Corner Line (track order)
    # corner number (1-based) owning the sector of each space, 0 inside a chicane
    sector_of_space: tuple[int, ...] = field(repr=False)
    by_after_space: Mapping[int, CornerEffect] = field(default_factory=dict, repr=False)
    # The effects some sector has (# 20.9–20.12: the names of ``SectorEffect``'s fields), read off ``by_space``: a
    # point whose effect lies on no sector of the race reads no sector (every React pool asks three points, every
    # gear a plan weighs two; issue 32)
    effects: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        present = set(self.by_space[1:])
        object.__setattr__(self, "effects", frozenset(k for k in _SECTOR_KEYS if any(getattr(e, k) for e in present)))

    def at(self, progress: int) -> SectorEffect:
        """The sector effect on the space of ``progress`` (# 20.6, 20.7; the track's ``space_of`` inlined)."""
        by_space = self.by_space  # spaces 1..N
        return by_space[(progress - 1) % (len(by_space) - 1) + 1]

    def sector(self, track: Track, p: int) -> SectorEffect:
        """The sector effect on the space of progress ``p`` (# 20.6, 20.7)."""
        return self.by_space[track.space_of(p)]

    def limit(self, track: Track, line: int) -> int:
        """Limit of Corner Line ``line`` (index) after its token (# 20.8)."""
        return track.corners[line].limit + self.by_line[line].limit

    def __deepcopy__(self, memo: dict[int, Any]) -> Conditions:
        return self  # immutable


def build_conditions(track: Track, rules: WeatherRules, tile_id: str, tokens: Sequence[str]) -> Conditions:
    """The effect tables for ``tile_id`` and ``tokens`` (already checked by :func:`check_tokens`)."""
    tile = rules.tiles[tile_id]
    groups = corner_groups(track)
    n = track.spaces
    by_line: list[CornerEffect] = [NO_CORNER_EFFECT] * len(track.corners)
    sector_by_group: list[SectorEffect] = []
    for group, tid in zip(groups, tokens, strict=True):
        tok = rules.tokens[tid]
        if tok.kind == "corner":
            for line in group:  # # 22.2: a corner token modifies both lines of a chicane
                by_line[line] = tok.corner
            sector_by_group.append(NO_SECTOR_EFFECT)
        elif tok.weather:  # # 20.4: the Weather token brings the tile's sector effect
            sector_by_group.append(SectorEffect(tid, **{k: getattr(tile.sector, k) for k in _SECTOR_KEYS}))
        else:
            sector_by_group.append(tok.sector)
    # # 20.6: a space belongs to the sector of the last Corner Line behind it (wrapping through the finish);
    # the stretch inside a chicane (behind its first line) belongs to no corner's sector (# 22.2).
    owner_of_line: dict[int, int] = {}
    for g, group in enumerate(groups):
        for j, line in enumerate(group):
            owner_of_line[line] = g + 1 if j == len(group) - 1 else 0
    by_space: list[SectorEffect] = [NO_SECTOR_EFFECT] * (n + 1)
    owner: list[int] = [0] * (n + 1)
    afters = [c.after_space for c in track.corners]
    # lines in racing order (every track): the last line behind a space by bisection
    ordered = all(afters[i] < afters[i + 1] for i in range(len(afters) - 1))
    for s in range(1, n + 1):
        if ordered:
            line = bisect_left(afters, s) - 1  # (-1: none behind, the last line's sector)
        else:
            behind = [i for i, a in enumerate(afters) if a < s]
            line = behind[-1] if behind else -1
        g = owner_of_line[line if line >= 0 else len(afters) - 1]
        owner[s] = g
        by_space[s] = sector_by_group[g - 1] if g else NO_SECTOR_EFFECT
    by_after = {c.after_space: e for c, e in zip(track.corners, by_line, strict=True) if e.token is not None}
    return Conditions(tile, tuple(tokens), tuple(groups), tuple(by_space), tuple(by_line), tuple(owner), by_after)


def corner_cost(speed: int, limit: int, overheat: int = 0) -> int:
    """# 20.13, MA19: Heat due at a Corner Line: the excess, plus the overheat only when over the limit."""
    excess = speed - limit
    return excess + overheat if excess > 0 else 0


def start_heat(effect: StartEffect, engine: int) -> tuple[int, int, int]:
    """# 20.3: (Engine after, Heat into the deck, Heat into the discard pile) for an Engine of ``engine`` Heat.
    Never more Heat moves or leaves than the Engine holds."""
    engine = max(0, engine + effect.engine)
    to_deck = min(effect.engine_to_deck, engine)
    engine -= to_deck
    to_discard = min(effect.engine_to_discard, engine)
    return engine - to_discard, to_deck, to_discard


# ------------------------------------------------------------------------------------------------ in a race


def sector_at(state: RaceState, progress: int) -> SectorEffect:
    """The sector effect on the space of ``progress`` now (# 20.7, MA5); nothing without the module."""
    own: WeatherSlot | None = state.modules.get(NAME)
    cond = None if own is None else own.conditions
    if cond is None:
        return NO_SECTOR_EFFECT
    by_space = cond.by_space  # spaces 1..N (track.space_of, inlined: every React and plan asks)
    return by_space[(progress - 1) % (len(by_space) - 1) + 1]


def corner_at(state: RaceState, after_space: int) -> CornerEffect:
    own: WeatherSlot | None = state.modules.get(NAME)
    cond = None if own is None else own.conditions
    if cond is None:
        return NO_CORNER_EFFECT
    return cond.by_after_space.get(after_space, NO_CORNER_EFFECT)


def start_stress(effect: StartEffect, stress: int) -> int:
    """# 20.3: the Stress cards the start adds to a deck holding ``stress`` (negative: removes; never fewer than
    none)."""
    return max(-stress, effect.stress)


def owned_after_start(effect: StartEffect, stress: int, engine: int) -> tuple[int, int]:
    """# 20.3: the Stress a car owns and the Heat of its Engine's start after the tile's start effect, from the
    ``stress`` it owned and the ``engine`` Heat it started with (what :func:`apply_start_effect` leaves: Heat
    moved to the deck or discard pile is still the car's). For the position check (# 1.2)."""
    return stress + start_stress(effect, stress), sum(start_heat(effect, engine))


def position_cards(state: RaceState) -> PositionCards | None:
    """# 20.3: once the tile is drawn, a car of a position owns its Stress and Engine's Heat after the tile's start
    effect (``Module.position_cards``, for the position check)."""
    own = slot(state)
    if own is None or own.tile is None:
        return None
    effect = own.rules.tiles[own.tile].start
    return PositionCards(start=lambda stress, engine: owned_after_start(effect, stress, engine))


def check_data(data: Any) -> None:
    """``heatlog/data/weather.json`` read as a race reads its block (``Module.data_check``, # 20.1)."""
    WeatherRules.from_dict(data)


def apply_start_effect(state: RaceState, tile: Tile) -> None:
    """# 20.3: every player's deck and Engine, before the starting shuffle (Legends have neither)."""
    eff = tile.start
    for car in state.cars.values():
        if car.legend:
            continue
        stress = start_stress(eff, car.pool[STRESS])
        car.pool[STRESS] += stress
        car.deck_size += stress
        engine, to_deck, to_discard = start_heat(eff, car.engine)
        car.engine = engine
        car.pool[HEAT] += to_deck
        car.deck_size += to_deck
        car.discard.extend([HEAT] * to_discard)
        if car.deck_max is not None:  # table mode: the deck is exactly what was built
            car.deck_max = dict(car.pool)


# ------------------------------------------------------------------------------------------------ the Rules points


def build(rules: Rules, options: Any) -> Rules:
    """The weather module's place in a race's rules (``register_module("weather", build)``): a set-up phase
    for the tile and the tokens (# 20.2), and every effect as a policy point, read where the car is at the
    moment it uses the effect (# 20.7, MA5). Each point wraps the one it is given, so modules compose."""
    corner_limit, corner_cost, boost_cost = rules.corner_limit, rules.corner_cost, rules.boost_cost
    cooldown_block, cooldown_bonus = rules.cooldown_block, rules.cooldown_bonus
    slipstream_block, slipstream_bonus = rules.slipstream_block, rules.slipstream_bonus
    # A React point it wraps that is still the base function (``Rules.unchanged``) is not called: its answer is
    # known (no block, no bonus, a boost's 1 Heat, as react.py reads them). Every React pool and every plan asks
    # these points (issue 32: a weather race's extra calls).
    plain = rules.unchanged
    block_plain, bonus_plain, boost_plain = plain.cooldown_block, plain.cooldown_bonus, plain.boost_cost
    slip_block_plain, slip_bonus_plain = plain.slipstream_block, plain.slipstream_bonus

    def limit(state: RaceState, car: Car, turn: Turn, corner: Corner) -> int:
        return corner_limit(state, car, turn, corner) + corner_at(state, corner.after_space).limit  # # 20.8

    def cost(state: RaceState, car: Car, corner: Corner, speed: int, lim: int) -> int:
        owed = corner_cost(state, car, corner, speed, lim)
        overheat = corner_at(state, corner.after_space).overheat
        return owed + overheat if overheat and speed > lim else owed  # # 20.13, MA19: only over the limit

    # Each reads the sector where the car is now (every React pool asks three of them and every gear a plan weighs
    # two, issue 32), only in a race where some sector has its effect; a race whose tokens are not drawn yet has none.
    def barred(effect: str, why: str, wrapped: Callable[[RaceState, Car], str | None], plain: bool) -> Any:
        """A block point: ``why`` (its token in the words) where the car's sector has ``effect``, else the wrapped
        point's answer."""

        def point(state: RaceState, car: Car) -> str | None:
            own: WeatherSlot | None = state.modules.get(NAME)
            if own is not None and (cond := own.conditions) is not None and effect in cond.effects:
                sector = cond.at(car.progress)
                if getattr(sector, effect):
                    return why.format(sector.token)
            return None if plain else wrapped(state, car)

        return point

    def added(effect: str, wrapped: Callable[[RaceState, Car], int], plain: bool) -> Any:
        """A bonus point: the car's sector's ``effect`` plus the wrapped point's answer."""

        def point(state: RaceState, car: Car) -> int:
            own: WeatherSlot | None = state.modules.get(NAME)
            extra = 0
            if own is not None and (cond := own.conditions) is not None and effect in cond.effects:
                extra = getattr(cond.at(car.progress), effect)
            return extra if plain else wrapped(state, car) + extra

        return point

    def boost(state: RaceState, car: Car) -> int:
        own: WeatherSlot | None = state.modules.get(NAME)
        cond = None if own is None else own.conditions
        if cond is not None and "free_boost" in cond.effects and cond.at(car.progress).free_boost:  # # 20.11, MA20
            return 0
        return BOOST_COST if boost_plain else boost_cost(state, car)

    no_cooldown = barred("no_cooldown", "no cooldown in this sector (road condition: {})", cooldown_block, block_plain)
    cooling = added("cooling", cooldown_bonus, bonus_plain)  # # 20.10 (# 20.9 above)
    no_slipstream = barred(  # # 20.12: not from this sector (into it is allowed)
        "no_slipstream",
        "no slipstream from this sector (road condition: {}) (# 20.12)",
        slipstream_block,
        slip_block_plain,
    )
    bonus = added("slipstream", slipstream_bonus, slip_bonus_plain)  # # 20.12

    phase_waiting = rules.phase_waiting

    def waiting(state: RaceState) -> tuple[str, list[str]] | None:
        if state.phase == "weather":  # # 20.2: the tile, then one token per corner
            own = slot(state)
            return ("weather_drawn" if own is None or own.tile is None else "road_conditions_drawn"), []
        return phase_waiting(state)

    phases = tuple(p for p in rules.setup_phases if p != "deal") + ("weather", "deal")  # # 20.2: before the decks
    return replace(
        rules,
        setup_phases=phases,
        phase_waiting=waiting,
        corner_limit=limit,
        corner_cost=cost,
        boost_cost=boost,
        cooldown_block=no_cooldown,
        cooldown_bonus=cooling,
        slipstream_block=no_slipstream,
        slipstream_bonus=bonus,
    )


# ------------------------------------------------------------------------------------------------ its events


def weather_drawn(state: RaceState, ev: dict[str, Any]) -> None:
    """# 20.2, 20.3: the weather tile, drawn once after the grid and before the decks; its start effect at once."""
    from ...handlers import illegal, malformed

    own = slot(state)
    if own is None:
        raise illegal(state, ev, "the weather module is not in this race", "20.1")
    rules = own.rules
    if state.phase != "weather" or own.tile is not None:
        raise illegal(state, ev, "the weather tile is drawn once, after the grid and before the decks", "20.2")
    tile = ev.get("tile")
    if not isinstance(tile, str) or tile not in rules.tiles:
        raise malformed(state, ev, f"there is no weather tile {tile!r} (tiles: {', '.join(rules.tiles)})")
    state.modules[NAME] = WeatherSlot(rules, tile)
    apply_start_effect(state, rules.tiles[tile])  # # 20.3


def road_conditions_drawn(state: RaceState, ev: dict[str, Any]) -> None:
    """# 20.2: one road-condition token per corner, right after the tile; the race's conditions tables."""
    from ...handlers import illegal

    own = slot(state)
    if own is None:
        raise illegal(state, ev, "the weather module is not in this race", "20.1")
    rules = own.rules
    if state.phase != "weather" or own.tile is None:
        raise illegal(state, ev, "the road-condition tokens are drawn once, right after the weather tile", "20.2")
    tokens = ev.get("tokens")
    why = check_tokens(state.track, rules, tokens)
    if why:
        raise illegal(state, ev, why, "20.2")
    assert isinstance(tokens, list)
    state.modules[NAME] = WeatherSlot(rules, own.tile, build_conditions(state.track, rules, own.tile, tokens))
    state.phase = state.rules.phase_after("weather")
    state.rules.enter_phase(state, state.phase)


if TYPE_CHECKING:  # at the end: state imports this module
    from ...ruleset import Rules
    from ...state import Car, RaceState, Turn
    from ...track import Corner


def options_block(data: Mapping[str, Any]) -> dict[str, Any]:
    """``race_started.weather``: a copy of the weather file's tiles and token types (# 20.1)."""
    return {"tiles": copy_data(data["tiles"]), "tokens": copy_data(data["tokens"])}
