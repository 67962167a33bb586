"""Statistics of a race per car, and of many races per driver name, with ratings (docs/stats.md).

Everything is a sum or a mean over the per-turn facts (:mod:`heatlog.stats.facts`) and the finishing orders;
the ratings are computed by the ``openskill`` library (Plackett–Luce model, its defaults) from the finishing
orders of finished races, in the order the races were created.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import sub
from typing import Any

from .facts import TURN_COLUMNS, HeatTotals, RaceFacts, TurnFacts


@dataclass(slots=True)
class Tally(HeatTotals):
    """Sums over a set of turns of one car (one race, or every race of a driver)."""

    turns: int = 0
    heat_shift: int = 0
    heat_flooded: int = 0
    heat_boost: int = 0
    heat_corners: int = 0
    heat_upgrades: int = 0
    cooled_gear: int = 0
    cooled_adrenaline: int = 0
    cooled_upgrades: int = 0
    stress_played: int = 0
    stress_drawn: int | None = 0  # None once any draw of these turns was hidden (table mode)
    stress_spinouts: int = 0
    spinouts: int = 0
    slipstreams_taken: int = 0
    slipstreams_declined: int = 0
    boosts: int = 0
    boost_values: list[int] = field(default_factory=list)
    corners: int = 0
    corners_over: int = 0
    cluttered: int = 0
    rounds_led: int = 0
    spaces: int = 0
    speed_by_gear: dict[int, list[int]] = field(default_factory=dict)  # gear -> [sum of speeds, turns]
    # BGA's end-of-race list (issue 28, item 7)
    rounds_in_gear: dict[int, int] = field(default_factory=dict)  # gear in force (# A10) -> turns
    adrenaline_rounds: int = 0  # rounds the car held adrenaline (# 6.1)
    adrenaline_moves: int = 0  # of those, the +1 move taken (# 6.2)
    adrenaline_spaces: int = 0  # spaces the +1 moves added (# 6.2)
    slipstream_spaces: int = 0  # spaces moved by slipstream (# 8.1)
    shifts_up_2: int = 0  # two-gear shifts up (1 Heat each, # 3.2)
    shifts_down_2: int = 0  # two-gear shifts down
    cards_discarded: int = 0  # cards discarded at step 8 (# 11.1)
    # a Legend's turns only (# 19.1, 19.10): no Engine, hand, gear, Stress, React, slipstream or corner payment,
    # so every figure of those is "does not apply" (None in to_dict), not 0; a driver who was a car in some race
    # of a selection is not (the figures of their cars' turns apply)
    legend: bool = False

    def add(self, t: TurnFacts) -> None:
        self.add_turns((t,))

    def add_turns(self, turns: Sequence[TurnFacts]) -> None:
        """Add ``turns`` (one car's), read column by column: each a tuple of the turns' values (``zip``, in C), summed
        or counted in C, not a call per turn reading each field (issue 31)."""
        if not turns:
            return
        c = dict(zip(TURN_COLUMNS, zip(*turns, strict=True), strict=True))  # column name -> the turns' values
        self.turns += len(turns)
        self.heat_shift += sum(c["heat_shift"])
        self.heat_flooded += sum(c["heat_flooded"])
        self.heat_boost += sum(c["heat_boost"])
        self.heat_corners += sum(c["heat_corners"])
        self.heat_upgrades += sum(c["heat_upgrades"])
        self.cooled_gear += sum(c["cooled_gear"])
        self.cooled_adrenaline += sum(c["cooled_adrenaline"])
        self.cooled_upgrades += sum(c["cooled_upgrades"])
        self.stress_played += sum(c["stress_played"])
        if self.stress_drawn is not None:
            drawn = c["stress_drawn"]
            self.stress_drawn = None if None in drawn else self.stress_drawn + sum(drawn)
        self.stress_spinouts += sum(c["spinout_stress"])
        self.spinouts += sum(c["spinout"])
        self.slipstreams_taken += sum(c["slipstream_taken"])
        offered = zip(c["slipstream_offered"], c["slipstream_taken"], strict=True)
        self.slipstreams_declined += sum(o and not t for o, t in offered)
        values = list(compress(c["boost_value"], c["boosted"]))
        self.boosts += len(values)
        self.boost_values.extend(values)
        self.corners += sum(c["corners"])
        self.corners_over += sum(c["corners_over"])
        self.cluttered += sum(c["cluttered"])
        self.rounds_led += sum(c["led"])
        self.spaces += sum(c["end"]) - sum(c["start"])
        gears, played = c["gear"], c["played"]
        in_gear = self.rounds_in_gear
        for g in compress(gears, played):  # a Legend has no gear (# 19.10)
            in_gear[g] = in_gear.get(g, 0) + 1
        self.adrenaline_rounds += sum(c["adrenaline"])
        self.adrenaline_moves += sum(c["adrenaline_move"])
        self.adrenaline_spaces += sum(c["adrenaline_spaces"])
        self.slipstream_spaces += sum(c["slipstream_spaces"])
        shifts = list(map(sub, gears, c["from_gear"]))
        self.shifts_up_2 += shifts.count(2)
        self.shifts_down_2 += shifts.count(-2)
        self.cards_discarded += len(" ".join(c["discarded"]).split())  # (the turns' cards, each split by spaces)
        # A cluttered hand does not move: no speed to average (# 13.2); a Legend plays no card and has no gear
        # (# 19.1, 19.10), so its moves are no car's speed in 1st gear
        by_gear = self.speed_by_gear
        for g, speed, cluttered, cards in zip(gears, c["speed"], c["cluttered"], played, strict=True):
            if not cluttered and cards:
                acc = by_gear.setdefault(g, [0, 0])
                acc[0] += speed
                acc[1] += 1

    def merge(self, other: Tally) -> None:
        self.legend = other.legend if not self.turns else self.legend and (other.legend or not other.turns)
        for name in (
            "turns",
            "heat_shift",
            "heat_flooded",
            "heat_boost",
            "heat_corners",
            "heat_upgrades",
            "cooled_gear",
            "cooled_adrenaline",
            "cooled_upgrades",
            "stress_played",
            "stress_spinouts",
            "spinouts",
            "slipstreams_taken",
            "slipstreams_declined",
            "boosts",
            "corners",
            "corners_over",
            "cluttered",
            "rounds_led",
            "spaces",
            "adrenaline_rounds",
            "adrenaline_moves",
            "adrenaline_spaces",
            "slipstream_spaces",
            "shifts_up_2",
            "shifts_down_2",
            "cards_discarded",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if self.stress_drawn is not None:
            self.stress_drawn = None if other.stress_drawn is None else self.stress_drawn + other.stress_drawn
        self.boost_values.extend(other.boost_values)
        for gear, n in other.rounds_in_gear.items():
            self.rounds_in_gear[gear] = self.rounds_in_gear.get(gear, 0) + n
        for gear, (total, n) in other.speed_by_gear.items():
            acc = self.speed_by_gear.setdefault(gear, [0, 0])
            acc[0] += total
            acc[1] += n

    def mean_speed(self) -> dict[int, float]:
        return {g: round(s / n, 2) for g, (s, n) in sorted(self.speed_by_gear.items()) if n}

    def to_dict(self) -> dict[str, Any]:
        values = self.boost_values
        if self.legend:
            return self._legend_dict()
        return {
            "turns": self.turns,
            "heat_paid": {
                "corners": self.heat_corners,
                "boosts": self.heat_boost,
                "shifts": self.heat_shift,
                "flooded": self.heat_flooded,
                "upgrades": self.heat_upgrades,
                "total": self.heat_paid,
            },
            "heat_cooled": {
                "gear": self.cooled_gear,
                "adrenaline": self.cooled_adrenaline,
                "upgrades": self.cooled_upgrades,
                "total": self.heat_cooled,
            },
            "stress": {"played": self.stress_played, "drawn": self.stress_drawn, "spinouts": self.stress_spinouts},
            "spinouts": self.spinouts,
            "slipstreams": {
                "taken": self.slipstreams_taken,
                "declined": self.slipstreams_declined,
                "spaces": self.slipstream_spaces,
            },
            "boosts": {
                "count": self.boosts,
                "values": sorted(values),
                "mean": round(sum(values) / len(values), 2) if values else None,
            },
            "mean_speed_by_gear": {str(g): v for g, v in self.mean_speed().items()},
            "corners": {"crossed": self.corners, "over_limit": self.corners_over},
            "cluttered": self.cluttered,
            "rounds_led": self.rounds_led,
            "spaces": self.spaces,
            "rounds_in_gear": {str(g): self.rounds_in_gear.get(g, 0) for g in (1, 2, 3, 4)},
            "adrenaline": {
                "rounds": self.adrenaline_rounds,
                "moves": self.adrenaline_moves,
                "spaces": self.adrenaline_spaces,
            },
            "two_gear_shifts": {"up": self.shifts_up_2, "down": self.shifts_down_2},
            "cards_discarded": self.cards_discarded,
        }

    #: What a Legend's figures are (# 19.1, 19.10, 19.17): the spaces it moved, the rounds it led and its turns;
    #: every other key of :meth:`to_dict` does not apply to it and is None (its sub-keys too: the columns of a
    #: flat row are those of any car).
    LEGEND_KEYS = ("turns", "rounds_led", "spaces")

    def _legend_dict(self) -> dict[str, Any]:
        full = Tally(legend=False)
        out: dict[str, Any] = {}
        for key, value in full.to_dict().items():
            if key in self.LEGEND_KEYS:
                out[key] = getattr(self, key)
            elif isinstance(value, dict) and key not in FIXED_SUBS:
                out[key] = dict.fromkeys(value)
            else:
                out[key] = None
        return out


@dataclass(slots=True)
class CarStats:
    car: str
    colour: str
    place: int
    finished: bool
    finish_round: int | None
    tally: Tally
    start_position: int | None = None  # place in the first round's turn order: the grid (# 1.4, 2.2)
    engine_left: int | None = None  # Heat on the Engine after its last turn

    def to_dict(self) -> dict[str, Any]:
        return {
            "car": self.car,
            "colour": self.colour,
            "place": self.place,
            "finished": self.finished,
            "finish_round": self.finish_round,
            "start_position": self.start_position,
            "engine_left": self.engine_left,
            **self.tally.to_dict(),
        }

    def flat_values(self) -> tuple[Any, ...]:
        """``flat_row(self.to_dict())``'s values, in its order, made straight from the figures (issue 31: a corpus
        makes a row per car, and the nested dict flattened again cost ~160,000 instructions a car). The columns are
        :data:`CAR_FLAT_KEYS`, checked against ``flat_row`` at import; tests/test_study_tables.py checks the values
        equal ``flat_row(to_dict())``'s for the cars of every module, Legends and hidden draws included."""
        t = self.tally
        head: tuple[Any, ...] = (self.car, self.colour, self.place, self.finished, self.finish_round)
        head += (self.start_position, self.engine_left)
        if t.legend:  # (every figure but three is None: # 19.1, 19.10; rare, and to_dict says which)
            return (*head, *flat_row(t.to_dict()).values())
        values = sorted(t.boost_values)
        speed = t.speed_by_gear
        in_gear = t.rounds_in_gear
        mean: list[float | None] = [None, None, None, None]
        for g, (total, n) in speed.items():
            if n and type(g) is int and 1 <= g <= 4:  # (mean_speed's, for the gears a row has: # 3.1)
                mean[g - 1] = round(total / n, 2)
        return (
            *head,
            t.turns,
            t.heat_corners,  # heat_paid_corners
            t.heat_boost,  # heat_paid_boosts
            t.heat_shift,  # heat_paid_shifts
            t.heat_flooded,  # heat_paid_flooded
            t.heat_upgrades,  # heat_paid_upgrades
            t.heat_paid,  # heat_paid_total
            t.cooled_gear,  # heat_cooled_gear
            t.cooled_adrenaline,  # heat_cooled_adrenaline
            t.cooled_upgrades,  # heat_cooled_upgrades
            t.heat_cooled,  # heat_cooled_total
            t.stress_played,  # stress_played
            t.stress_drawn,  # stress_drawn
            t.stress_spinouts,  # stress_spinouts
            t.spinouts,  # spinouts
            t.slipstreams_taken,  # slipstreams_taken
            t.slipstreams_declined,  # slipstreams_declined
            t.slipstream_spaces,  # slipstreams_spaces
            t.boosts,  # boosts_count
            " ".join(map(str, values)),  # boosts_values
            round(sum(values) / len(values), 2) if values else None,  # boosts_mean
            *mean,  # mean_speed_by_gear_1 .. _4
            t.corners,  # corners_crossed
            t.corners_over,  # corners_over_limit
            t.cluttered,  # cluttered
            t.rounds_led,  # rounds_led
            t.spaces,  # spaces
            in_gear.get(1, 0),  # rounds_in_gear_1
            in_gear.get(2, 0),  # rounds_in_gear_2
            in_gear.get(3, 0),  # rounds_in_gear_3
            in_gear.get(4, 0),  # rounds_in_gear_4
            t.adrenaline_rounds,  # adrenaline_rounds
            t.adrenaline_moves,  # adrenaline_moves
            t.adrenaline_spaces,  # adrenaline_spaces
            t.shifts_up_2,  # two_gear_shifts_up
            t.shifts_down_2,  # two_gear_shifts_down
            t.cards_discarded,  # cards_discarded
        )


@dataclass(slots=True)
class RaceStats:
    race: int
    name: str | None
    track: str
    mode: str
    laps: int
    over: bool
    rounds: int
    cars: list[CarStats]
    track_name: str = ""  # what the table shows (--json and --csv keep the id, ``track``: the key)

    def race_dict(self) -> dict[str, Any]:
        """:meth:`to_dict`'s race keys, without the cars (a corpus's ``races`` row: issue 31)."""
        return {
            "race": self.race,
            "name": self.name,
            "track": self.track,
            "mode": self.mode,
            "laps": self.laps,
            "over": self.over,
            "rounds": self.rounds,
        }

    def to_dict(self) -> dict[str, Any]:
        return {**self.race_dict(), "cars": [c.to_dict() for c in self.cars]}


def race_stats(facts: RaceFacts) -> RaceStats:
    """Per car, in finishing order (standings now while the race is under way)."""
    by_car: dict[str, list[TurnFacts]] = {c.name: [] for c in facts.cars}
    for t in facts.turns:
        by_car[t.car].append(t)
    tallies = {}
    for c in facts.cars:
        tallies[c.name] = tally = Tally(legend=c.legend)
        tally.add_turns(by_car[c.name])  # (by column: issue 31)
    first = min((t.round for t in facts.turns), default=None)
    start = {t.car: t.turn for t in facts.turns if t.round == first}
    engine: dict[str, int] = {}
    for t in facts.turns:
        engine[t.car] = t.engine
    cars = [
        CarStats(
            c.name,
            c.colour,
            c.place,
            c.finished,
            c.finish_round,
            tallies[c.name],
            start.get(c.name),
            None if c.legend else engine.get(c.name),
        )  # a Legend has no Engine (# 19.3)
        for c in facts.cars
    ]
    return RaceStats(
        facts.race, facts.name, facts.track, facts.mode, facts.laps, facts.over, facts.rounds, cars, facts.track_name
    )


# ------------------------------------------------------------------------------------------------ many races


@dataclass(slots=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative estimate μ − 3σ (openskill's ``ordinal()``): what tables sort by."""
        return self.mu - 3 * self.sigma


@dataclass(slots=True)
class DriverStats:
    driver: str
    races: int = 0  # races entered (the selection's races this driver drove in)
    finished: int = 0  # of those, races that are over (places count only there)
    wins: int = 0
    podiums: int = 0
    places: list[int] = field(default_factory=list)
    rating: Rating | None = None
    tally: Tally = field(default_factory=Tally)

    @property
    def mean_place(self) -> float | None:
        return round(sum(self.places) / len(self.places), 2) if self.places else None

    def to_dict(self) -> dict[str, Any]:
        r = self.rating
        return {
            "driver": self.driver,
            "races": self.races,
            "finished": self.finished,
            "wins": self.wins,
            "podiums": self.podiums,
            "mean_place": self.mean_place,
            "rating": None if r is None else {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal},
            **self.tally.to_dict(),
        }


@dataclass(slots=True)
class Career:
    """Statistics of many races, per driver name; ``partial`` when the work was interrupted."""

    races: list[int]
    drivers: list[DriverStats]
    partial: bool = False
    total: int = 0  # races selected (``races`` holds those read, fewer when partial)
    damaged: list[int] = field(default_factory=list)  # races selected but left out: their logs are damaged

    def to_dict(self) -> dict[str, Any]:
        return {
            "races": self.races,
            "selected": self.total,
            "partial": self.partial,
            "damaged": self.damaged,
            "rating_model": "openskill PlackettLuce (library defaults: mu 25, sigma 25/3); ordinal = mu - 3 sigma",
            "drivers": [d.to_dict() for d in self.drivers],
        }


def rate(orders: Iterable[Sequence[str]]) -> dict[str, Rating]:
    """openskill Plackett–Luce ratings from finishing orders (first = winner), applied in order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    for order in orders:
        if len(order) < 2:
            continue
        teams = [[ratings.get(name) or model.rating(name=name)] for name in order]
        new = model.rate(teams, ranks=list(range(1, len(order) + 1)))
        for name, team in zip(order, new, strict=True):
            ratings[name] = team[0]
    return {name: Rating(r.mu, r.sigma) for name, r in ratings.items()}


def career(facts: Iterable[RaceFacts], *, total: int = 0, partial: bool = False) -> Career:
    """Per driver name over ``facts`` (in race order): places, wins and ratings from finished races only."""
    drivers: dict[str, DriverStats] = {}
    orders: list[list[str]] = []
    ids: list[int] = []
    for rf in facts:
        ids.append(rf.race)
        stats = race_stats(rf)
        for c in stats.cars:
            d = drivers.setdefault(c.car, DriverStats(c.car))
            d.races += 1
            d.tally.merge(c.tally)
            if rf.over:
                d.finished += 1
                d.places.append(c.place)
                d.wins += c.place == 1
                d.podiums += c.place <= 3
        if rf.over:
            orders.append(rf.finishing_order)
    ratings = rate(orders)
    for name, d in drivers.items():
        d.rating = ratings.get(name)
    ranked = sorted(
        drivers.values(),
        key=lambda d: (-(d.rating.ordinal if d.rating else float("-inf")), d.mean_place or 99, d.driver),
    )
    return Career(ids, ranked, partial=partial, total=total or len(ids))


#: The sub-columns a flat row always has, whatever the statistics hold (# 3.1: gears 1 to 4; a rating's three
#: numbers): a race whose cars never drove in 1st gear, or drivers without a finished race, have the same
#: columns, in the same order, as any other, so that files of several races line up (CSV, Parquet).
#: The sub-columns a CSV always has, whatever the rows hold (# 3.1: gears 1 to 4; a rating's three numbers):
#: a race whose cars never drove in 1st gear, or drivers without a finished race, have the same columns, in the
#: same order, as any other, so that files of several races line up.
FIXED_SUBS = {
    "mean_speed_by_gear": ("1", "2", "3", "4"),
    "rounds_in_gear": ("1", "2", "3", "4"),
    "rating": ("mu", "sigma", "ordinal"),
}


def flat_row(stats: dict[str, Any]) -> dict[str, Any]:
    """A car's or driver's statistics dict (``to_dict``) as flat columns: ``heat_paid_corners``, …, a list as
    its values joined by spaces (``stats --csv``, the Parquet ``car_races`` table)."""
    out: dict[str, Any] = {}
    for key, value in stats.items():
        if key in FIXED_SUBS and (value is None or isinstance(value, dict)):
            for sub in FIXED_SUBS[key]:
                out[f"{key}_{sub}"] = (value or {}).get(sub)
        elif isinstance(value, dict):
            for sub, v in value.items():
                out[f"{key}_{sub}"] = " ".join(map(str, v)) if isinstance(v, list) else v
        else:
            out[key] = value
    return out


#: :meth:`CarStats.flat_values`' columns: ``flat_row(CarStats.to_dict())``'s keys, in order (a car's row in
#: ``stats --csv`` and a corpus's ``car_races``).
CAR_FLAT_KEYS: tuple[str, ...] = tuple(flat_row(CarStats("", "", 0, False, None, Tally()).to_dict()))
if len(CAR_FLAT_KEYS) != len(CarStats("", "", 0, False, None, Tally()).flat_values()):
    raise TypeError("CarStats.flat_values does not list flat_row's columns")  # (a key added to to_dict only)
