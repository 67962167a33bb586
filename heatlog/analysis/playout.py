"""Playouts: bots play a race on from what was known, K times (docs/analysis.md).

>>> info = information_set(events)                      # public information after these events
>>> result = playouts(info, 200, seed=1)                 # all local cores
>>> result.sides[0].cars["Red"].mean_place

Each playout ``i`` draws a full world from the information set (:meth:`InfoSet.sample`, its own seeded
generator), applies each side's events (a comparison: the events where two branches differ), and lets the
bots play every side to the end with a second seeded generator for later shuffles and random bots.
**Common random numbers**: all sides of playout ``i`` start from the same world and use the same
generator seed, so a difference between sides is the difference of their events, not of luck. A world in
which some side's events are impossible (a reveal of cards the sampled hand lacks) is drawn again, for all
sides: the sample is then conditioned on every side being possible. Sides whose events leave the drawn world
in the same state are played once (with common random numbers they would play the same race).

Seeds are derived from ``(seed, i)`` by SHA-256, chunks have a fixed size and results come back in index
order: the same seed gives the same result on any executor, with any number of workers. Playouts are never
written to a race's log.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import pickle
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from ..bots import Options, get_bot
from ..engine import HeatlogError, MalformedInput, RaceState, chance
from ..engine.decide import playable_sets
from ..engine.errors import IllegalEvent
from ..engine.game import GO_ON, MAX_ROUNDS, apply_decision, apply_event, canonical, play_out, to_move
from ..engine.module import unplayable
from ..engine.steps import GEARS, PLAY
from ..simulate.collector import collector_paused
from .infoset import InfoSet

Event = dict[str, Any]
CHUNK = 16  # playouts per task: fixed, so that results never depend on the number of workers
WINDOW = 16  # chunks in flight at least (more with many workers)
MAX_TRIES = 200  # worlds drawn for one playout before its sides' events are declared impossible


def playout_seed(seed: int, index: int, stream: str) -> int:
    """The seed of one generator of playout ``index``: a hash, the same on every machine."""
    digest = hashlib.sha256(f"heatlog-playout/{seed}/{index}/{stream}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True, slots=True)
class TurnFacts:
    """What the watched car's turn of the round the playout starts in did (a review's reason, issue 28)."""

    spun: bool  # a spinout (# 10.1)
    corner: int | None  # the corner it spun at (its ``after_space``), or the last corner it crossed
    limit: int | None  # that corner's speed limit
    speed: int | None  # its speed there
    owed: int  # Heat the corners asked for this turn (# 9.3)
    paid: int  # Heat it paid for them
    moved: int  # spaces moved this turn (step 3, React moves, slipstream)
    stress_flips: tuple[str, ...]  # the cards its Stress flips found (# 5.2)
    later: LaterFacts | None = None  # what followed, in the next rounds (a play-out that settles one car's place)


#: Rounds after the decision's own that :class:`LaterFacts` follow the watched car through.
LATER_ROUNDS = 2
MAX_TRACK = 40  # rounds of the watched car's progress kept (``LaterFacts.track``)


@dataclass(frozen=True, slots=True)
class LaterFacts:
    """What the watched car's decision led to after its round (a review's reason: a decision that moves further
    now can lose later). ``rounds``: the rounds after the decision's own that the sums follow, at most
    :data:`LATER_ROUNDS` (fewer once the car's place is settled, or at the race's end)."""

    stress_hand: int  # Stress cards in its hand at the end of the decision's round (the hand of the next, # 12.2)
    heat_hand: int  # Heat cards in that hand
    engine_next: int  # Heat in its Engine at the end of the decision's round
    rounds: int
    moved: int  # spaces moved in those rounds
    spins: int  # spinouts in those rounds (# 10.1)
    spin_corner: int | None  # the corner (``after_space``) of the first of them
    paid: int  # Heat paid at corners in those rounds (# 9.3)
    engine: int  # Heat in its Engine at the end of the last of them
    finish: int  # the round it finished in (or the round its place was settled in, or the play-out's cap)
    # its progress at the end of each round, from the decision's own until its place was settled (at most
    # MAX_TRACK rounds): every side starts from the same world, so side against side is ahead or behind
    track: tuple[int, ...]
    # the single-use cards (a sponsorship card's one-time symbol, # 18.24) it still owns at the end of the
    # decision's round, in its deck, hand or discard pile, sorted: one played there has left the game
    single_use: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """One side of one playout: finishing places (1 = first) and the round each car finished in; with a
    watched car (``Job.watch``), what its turn of the first round did."""

    places: dict[str, int]
    rounds: dict[str, int]
    turn: TurnFacts | None = None


def turn_facts(turn: Any) -> TurnFacts:
    """The facts of a completed turn (the engine's record)."""
    spin = next((c for c in turn.corners if c.spinout), None)
    last = spin if spin is not None else (turn.corners[-1] if turn.corners else None)
    return TurnFacts(
        spun=bool(turn.spinout),
        corner=last.after_space if last is not None else None,
        limit=last.limit if last is not None else None,
        speed=last.speed if last is not None else None,
        owed=sum(c.cost for c in turn.corners),
        paid=sum(c.paid for c in turn.corners),
        moved=max(0, turn.end - turn.start),
        stress_flips=tuple(turn.stress_found),
    )


@dataclass(slots=True)
class Job:
    """Everything a worker needs: picklable plain data, no open database.

    A run sends the same job with every chunk: its information set is pickled once per job (not once per
    chunk) and unpickled once per worker process (:func:`_job_from`, a small cache by the pickle's digest);
    the same numbers either way, as nothing changes an information set."""

    info: InfoSet
    sides: list[list[Event]]
    bots: dict[str, str]  # car -> bot name
    seed: int
    crn: bool = True
    watch: str | None = None  # a car whose turn of the first round is described in each outcome (TurnFacts)
    settle: str | None = None  # only this car's place is wanted: each play-out stops once it is settled
    _shipped: tuple[bytes, bytes] | None = field(default=None, repr=False, compare=False)  # (digest, pickle)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        if self._shipped is None:
            blob = pickle.dumps(self.info, protocol=pickle.HIGHEST_PROTOCOL)
            self._shipped = (hashlib.sha256(blob).digest(), blob)
        digest, blob = self._shipped
        return _job_from, (digest, blob, self.sides, self.bots, self.seed, self.crn, self.watch, self.settle)


_INFOSETS: dict[bytes, InfoSet] = {}  # a worker's information sets by their pickle's digest (a few, newest last)
_KEEP_INFOSETS = 8
_INFOSETS_LOCK = threading.Lock()  # a Dask worker unpickles in several threads


def _job_from(digest: bytes, blob: bytes, *rest: Any) -> Job:
    """A job as a worker process unpickles it: its information set from the worker's cache when it has it."""
    with _INFOSETS_LOCK:
        info = _INFOSETS.pop(digest, None)
        if info is None:
            info = pickle.loads(blob)
            while len(_INFOSETS) >= _KEEP_INFOSETS:
                del _INFOSETS[next(iter(_INFOSETS))]
        _INFOSETS[digest] = info
    return Job(info, *rest)


def make_bots(names: Mapping[str, str]) -> dict[str, Any]:
    """The bots by car: the process's own bot of each name (a heuristic bot's caches hold values of pure
    functions of their keys, so sharing them across playouts and chunks changes no decision)."""
    return {car: get_bot(name) for car, name in names.items()}


def _apply_to_world(world: RaceState, ev: Event, rng: random.Random) -> None:
    """Apply a recorded event to a sampled open-mode world: a table-mode draw (a count) takes the known top
    cards, a shuffle without order is drawn; everything else goes to the engine as it is."""
    kind = ev.get("type")
    if kind == "cards_drawn" and "count" in ev:  # (the one world for chance: engine/chance.py)
        car = world.cars[ev["car"]]
        ev = {"type": "cards_drawn", "v": 1, "car": car.name, "cards": chance.top_cards(car, int(ev["count"]))}
    elif kind == "deck_shuffled" and "order" not in ev:
        ev = {**ev, "order": chance.shuffled(world.cars[ev["car"]], rng)}  # set-up: not the cards dealt (# 21.4)
    if kind == "cards_played" and world.phase == "race" and not (world.turn is None and world.step == PLAY):
        lay_face_down(world, ev)
        return
    if kind in (
        "gear_chosen",
        "cards_played",
        "cards_revealed",
        "cooldown",
        "boost",
        "adrenaline",
        "slipstream",
        "cards_discarded",
        GO_ON,
    ):  # GO_ON: a side may leave an optional step (decision review)
        apply_decision(world, ev)
    else:
        apply_event(world, ev)


def lay_face_down(world: RaceState, ev: Event) -> None:
    """A car's cards played at step 2 in a world that is not at step 2. The other cars' gears of the round were
    hidden from it (# 2.1, every car shifts and plays at the same time), so the world is back at step 1 and the
    bots choose those gears again; or the world comes from a table-mode projection, which has no step 2 (its
    cars reveal at step 3). The cards are laid face down (``Car.committed``): played for the car when the world
    reaches step 2 (:func:`committed_play`), never chosen again by its bot, or revealed at its turn — at once
    if the world waits for its reveal (the information set's ``committed`` does the same). Refused, as the
    engine refuses a play, when the car's hand in this world cannot play them (# 4.1, 13.1): the world is then
    drawn again."""
    name = ev.get("car")
    car = world.cars.get(name) if isinstance(name, str) else None
    if car is None:
        raise IllegalEvent(f"no car named {name!r}", input=ev)
    if world.turn is None and world.step == GEARS and car.name in world.pending:
        raise IllegalEvent(f"{car.name} plays at step 2, after choosing its gear", car=car.name, input=ev)
    cards = canonical(ev).get("cards")
    legal = (canonical({"cards": s})["cards"] for s in playable_sets(car, car.gear))
    if not isinstance(cards, list) or cards not in legal:
        raise IllegalEvent(f"{car.name}'s hand cannot play {cards} in gear {car.gear} (# 4.1)", car=car.name, input=ev)
    node = to_move(world)
    if node.kind == "decision" and node.car == car.name and "cards_revealed" in node.kinds:
        apply_decision(world, {"type": "cards_revealed", "v": 1, "car": car.name, "cards": list(cards)})
    else:
        car.committed = list(cards)


def committed_play(state: RaceState, name: str) -> Event | None:
    """The play of a car asked at step 2 whose cards were laid face down before its world reached step 2
    (:func:`lay_face_down`, or the information set's ``committed``): a real race never asks a car that has
    played (a gear chosen clears ``committed``), so these cards are the car's play and no bot chooses another."""
    car = state.cars[name]
    if car.committed is not None and state.turn is None and state.step == PLAY:
        return {"type": "cards_played", "v": 1, "car": name, "cards": list(car.committed)}
    return None


class _FirstUse:
    """A car's generator for its bot's choices, made when the bot first draws from it: the heuristic bot never
    does, and seeding one generator per car per side of every playout is work for nothing. The generator is
    the same whenever it is made (its seed is the playout's), so every draw is the same."""

    __slots__ = ("_make", "_rng")

    def __init__(self, make: Callable[[], random.Random]) -> None:
        self._make = make
        self._rng: random.Random | None = None

    def __getattr__(self, attr: str) -> Any:
        rng = self._rng
        if rng is None:
            rng = self._rng = self._make()
        return getattr(rng, attr)


def settled_place(state: RaceState, name: str) -> int | None:
    """``name``'s final place if nothing still to come can change it, else None (asked between rounds): it has
    finished (the Hall of Fame only grows behind it, # 16.8), or it is off the track (MA21: each car eliminated
    later takes a place ahead of it, a car that finishes too), or it is the only car still racing (every other one
    has finished or is off the track: it finishes next, or is the last to leave). Then its place in the standings
    now is its place at the end of the race, whatever the other cars do."""
    if state.phase == "over":
        return state.standings().index(name) + 1
    racing = 0
    for c in state.cars.values():
        racing += c.name not in state.hall_of_fame and c.name not in state.eliminated
    if name in state.hall_of_fame or name in state.eliminated or racing == 1:
        return state.standings().index(name) + 1
    return None


def play_until_settled(
    w: RaceState,
    name: str,
    decide: Callable[[RaceState, str], Event | None],
    rng: random.Random,
    each_round: Callable[[RaceState], None] | None = None,
    **kw: Any,
) -> int:
    """Play ``w`` on round by round (the same play-out as one call, stopped and resumed between rounds: nothing is
    drawn again) until ``name``'s place is settled (:func:`settled_place`), or the play-out's round cap; its place.
    A review needs one car's place: the rounds the other cars still race after it has finished, or after they all
    have, change nothing it reads. ``each_round(w)`` is called after every round played (it reads, never
    changes)."""
    while True:
        place = settled_place(w, name)
        if place is not None:
            return place
        if w.round > MAX_ROUNDS:  # stopped unfinished, as play_out stops: ranked as it stands
            return w.standings().index(name) + 1
        play_out(w, decide, rng, max_rounds=w.round, **kw)
        if each_round is not None:
            each_round(w)


class _Later:
    """:class:`LaterFacts` gathered round by round (``play_until_settled``'s ``each_round``, which reads, never
    changes) from the end of the decision's round ``first``."""

    __slots__ = (
        "name",
        "first",
        "hand",
        "engine_next",
        "rounds",
        "moved",
        "spins",
        "corner",
        "paid",
        "engine",
        "track",
        "single_use",
    )

    def __init__(self, w: RaceState, name: str, first: int) -> None:
        car = w.cars[name]
        hand = car.hand or {}
        self.name, self.first = name, first
        self.hand = (hand.get("S", 0), hand.get("H", 0))
        once = single_use_tokens(w.cards)
        self.single_use: tuple[str, ...] = ()
        if once:  # (a race with sponsorship cards: a championship's)
            owned = [c for c, n in car.pool.items() if c in once for _ in range(n)]
            owned += [c for c in (*car.discard, *car.play_area) if c in once]
            self.single_use = tuple(sorted(owned))
        self.engine_next = self.engine = car.engine
        self.rounds = self.moved = self.spins = self.paid = 0
        self.corner: int | None = None
        self.track = [car.progress]

    def __call__(self, w: RaceState) -> None:
        done = w.round if w.phase == "over" else w.round - 1  # the round just played
        car = w.cars[self.name]
        if done == self.first + len(self.track) and len(self.track) < MAX_TRACK:
            self.track.append(car.progress)
        if done > self.first + LATER_ROUNDS or done <= self.first + self.rounds:
            return
        self.rounds = done - self.first
        self.engine = car.engine
        turn = w.last_turns.get(self.name)
        if turn is not None and turn.round == done:
            self.moved += max(0, turn.end - turn.start)
            self.paid += sum(c.paid for c in turn.corners)
            if turn.spinout:
                self.spins += 1
                if self.corner is None:
                    spin = next((c for c in turn.corners if c.spinout), None)
                    self.corner = spin.after_space if spin is not None else None

    def facts(self, finish: int) -> LaterFacts:
        return LaterFacts(
            *self.hand, self.engine_next, self.rounds, self.moved, self.spins, self.corner, self.paid, self.engine,
            finish, tuple(self.track), self.single_use,
        )  # fmt: skip


# single_use_tokens's answers by catalogue (immutable, shared by every copy of a race's state)
_SINGLE_USE: dict[int, tuple[Any, frozenset[str]]] = {}


def single_use_tokens(cards: Any) -> frozenset[str]:
    """The tokens of a race's cards that leave the game once played (the one-time symbol of the sponsorship
    cards, # 18.24, 21.5); empty in a race without them."""
    hit = _SINGLE_USE.get(id(cards))
    if hit is not None and hit[0] is cards:
        return hit[1]
    found = frozenset(c.token for c in cards.cards if c.symbol("one_time"))
    if len(_SINGLE_USE) >= 16:
        _SINGLE_USE.clear()
    _SINGLE_USE[id(cards)] = (cards, found)
    return found


def run_playout(job: Job, index: int, bots: Mapping[str, Any] | None = None) -> list[Outcome]:
    """Playout ``index`` of ``job``: one outcome per side."""
    drivers = bots if bots is not None else make_bots(job.bots)
    worlds: list[RaceState] | None = None
    refusal: HeatlogError | None = None
    for attempt in range(MAX_TRIES):
        world = job.info.sample(random.Random(playout_seed(job.seed, index, f"world/{attempt}")))
        fix = random.Random(playout_seed(job.seed, index, f"sides/{attempt}"))
        candidates: list[RaceState] = []
        try:
            last = len(job.sides) - 1
            for k, events in enumerate(job.sides):
                w = world.copy() if k < last else world  # the last side plays the drawn world itself
                state = fix.getstate()
                for ev in events:
                    _apply_to_world(w, ev, fix)
                fix.setstate(state)  # every side's shuffles from the same numbers
                candidates.append(w)
        except HeatlogError as err:
            refusal = err
            continue
        worlds = candidates
        break
    if worlds is None:
        raise MalformedInput(
            f"no world drawn from what was known allows every side's events ({MAX_TRIES} tries): "
            f"they cannot all be possible; the last refusal: {refusal}"
        )
    # Sides whose events left the world in the same state (e.g. declining a slipstream and going on) would play
    # the same race: with common random numbers their outcome is the same, so it is played once.
    same_as: list[int | None] = [None] * len(worlds)
    if job.crn:
        for k in range(1, len(worlds)):
            same_as[k] = next((j for j in range(k) if same_as[j] is None and worlds[j] == worlds[k]), None)
    out: list[Outcome] = []
    for k, w in enumerate(worlds):
        twin = same_as[k]
        if twin is not None:
            out.append(out[twin])
            continue
        stream = "play" if job.crn else f"play/{k}"
        # One generator per car for its reshuffles and one for its bot's choices: with common random numbers a
        # car's k-th reshuffle and k-th random choice use the same numbers on every side, whenever they come.
        gens: dict[tuple[str, str], random.Random] = {}

        def gen(name: str, what: str, stream: str = stream, gens: Any = gens) -> random.Random:
            g = gens.get((what, name))
            if g is None:
                g = gens[(what, name)] = random.Random(playout_seed(job.seed, index, f"{stream}/{what}/{name}"))
            return g

        choices = {name: _FirstUse(partial(gen, name, "bot")) for name in w.cars}

        def decide(state: RaceState, name: str, choices: Any = choices) -> Event | None:
            if state.cars[name].committed is not None:  # (asked at every decision: most find no cards laid)
                laid = committed_play(state, name)  # cards laid face down before step 2 (a side's play, # 2.1)
                if laid is not None:
                    return laid
            return drivers[name](state, name, Options(state, name), choices[name])

        def shuffles(name: str, gen: Any = gen) -> random.Random:
            return gen(name, "shuffle")

        rng = random.Random(playout_seed(job.seed, index, stream))
        facts: TurnFacts | None = None
        first = w.round
        if job.watch is not None:
            # To the end of this round first (the same play-out, stopped and resumed: nothing is drawn again),
            # to read the watched car's turn of it.
            play_out(w, decide, rng, shuffles=shuffles, max_rounds=first)
            turn = w.last_turns.get(job.watch)
            if turn is not None and turn.round == first:
                facts = turn_facts(turn)
        if job.settle is not None:
            later = _Later(w, job.watch, first) if facts is not None and job.watch is not None else None
            place = play_until_settled(w, job.settle, decide, rng, later, shuffles=shuffles)
            finish = w.finish_rounds.get(job.settle, w.round)
            if later is not None and facts is not None:
                facts = replace(facts, later=later.facts(w.finish_rounds.get(later.name, w.round)))
            out.append(Outcome({job.settle: place}, {job.settle: finish}, facts))
            continue
        play_out(w, decide, rng, shuffles=shuffles)
        standings = w.standings()
        rounds = {n: w.finish_rounds.get(n, w.round) for n in standings}  # a car stopped unfinished: the cap
        out.append(Outcome({n: i + 1 for i, n in enumerate(standings)}, rounds, facts))
    return out


def run_chunk(job: Job, start: int, stop: int) -> list[list[Outcome]]:
    """Playouts ``start`` to ``stop - 1`` (a worker's task), with the cycle collector paused: a playout, like a
    simulated race, makes no reference cycles (:mod:`heatlog.simulate.collector`)."""
    drivers = make_bots(job.bots)
    with collector_paused():
        return [run_playout(job, i, drivers) for i in range(start, stop)]


# ------------------------------------------------------------------------------------------------ summaries


@dataclass(slots=True)
class CarSummary:
    car: str
    n: int
    mean_place: float
    place_interval: tuple[float, float]  # 95 % interval of the mean place (normal approximation)
    win: float  # share of playouts won
    places: dict[int, float]  # place -> share
    mean_round: float  # round the car finishes in, on average
    rounds_to_finish: float  # rounds from the start of the playouts to the car's finish, on average

    def to_dict(self) -> dict[str, Any]:
        return {
            "car": self.car,
            "playouts": self.n,
            "mean_place": round(self.mean_place, 4),
            "place_95": [round(self.place_interval[0], 4), round(self.place_interval[1], 4)],
            "win": round(self.win, 4),
            "places": {str(k): round(v, 4) for k, v in sorted(self.places.items())},
            "mean_finish_round": round(self.mean_round, 3),
            "rounds_to_finish": round(self.rounds_to_finish, 3),
        }


def _mean_sd(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    m = math.fsum(xs) / n
    if n < 2:
        return m, math.nan
    return m, math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (n - 1))


def summarise(outcomes: Sequence[Outcome], cars: Sequence[str], start_round: int) -> dict[str, CarSummary]:
    out: dict[str, CarSummary] = {}
    n = len(outcomes)
    for car in cars:
        places = [o.places[car] for o in outcomes]
        rounds = [o.rounds.get(car, 0) for o in outcomes]
        m, sd = _mean_sd(places)
        half = 1.96 * sd / math.sqrt(n) if n > 1 else math.nan
        dist: dict[int, float] = {}
        for p in places:
            dist[p] = dist.get(p, 0.0) + 1 / n
        mr, _ = _mean_sd(rounds)
        start = max(start_round, 1)
        out[car] = CarSummary(
            car, n, m, (m - half, m + half), places.count(1) / n if n else math.nan, dist, mr, mr - start + 1
        )
    return out


@dataclass(slots=True)
class Difference:
    """Side 0 minus side 1, per car, from paired playouts (common random numbers)."""

    car: str
    mean: float
    interval: tuple[float, float]
    var_paired: float  # variance of the paired difference (with common random numbers)
    var_independent: float  # var(A) + var(B): the variance of a difference of independent playouts

    @property
    def reduction(self) -> float:
        """How many times smaller the variance of the difference is with common random numbers."""
        if self.var_paired == 0:
            return math.inf if self.var_independent > 0 else 1.0
        return self.var_independent / self.var_paired

    def needed(self, half_width: float = 0.1, paired: bool = True) -> int:
        """Playouts needed for a 95 % interval of ± ``half_width`` places on the difference."""
        var = self.var_paired if paired else self.var_independent
        return math.ceil((1.96 / half_width) ** 2 * var)

    def to_dict(self) -> dict[str, Any]:
        red = self.reduction
        return {
            "car": self.car,
            "difference": round(self.mean, 4),
            "difference_95": [round(self.interval[0], 4), round(self.interval[1], 4)],
            "variance_crn": round(self.var_paired, 5),
            "variance_independent": round(self.var_independent, 5),
            "variance_reduction": None if math.isinf(red) else round(red, 3),
            "playouts_for_0.1": {"crn": self.needed(0.1, True), "independent": self.needed(0.1, False)},
        }


def differences(a: Sequence[Outcome], b: Sequence[Outcome], cars: Sequence[str]) -> dict[str, Difference]:
    out: dict[str, Difference] = {}
    n = len(a)
    for car in cars:
        xa = [o.places[car] for o in a]
        xb = [o.places[car] for o in b]
        d = [x - y for x, y in zip(xa, xb, strict=True)]
        m, sd = _mean_sd(d)
        _, sa = _mean_sd(xa)
        _, sb = _mean_sd(xb)
        half = 1.96 * sd / math.sqrt(n) if n > 1 else math.nan
        out[car] = Difference(car, m, (m - half, m + half), sd**2, sa**2 + sb**2)
    return out


@dataclass(slots=True)
class PlayoutResult:
    """The outcomes of every side (in playout order), their summaries, and whether the run was cut short."""

    requested: int
    outcomes: list[list[Outcome]]  # outcomes[side][i]
    cars: list[str]
    start_round: int
    seed: int
    partial: bool = False
    sides: list[dict[str, CarSummary]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sides = [summarise(o, self.cars, self.start_round) for o in self.outcomes]

    @property
    def done(self) -> int:
        return len(self.outcomes[0]) if self.outcomes else 0

    def difference(self) -> dict[str, Difference]:
        if len(self.outcomes) != 2:
            raise MalformedInput("a difference needs exactly two sides")
        return differences(self.outcomes[0], self.outcomes[1], self.cars)


Progress = Callable[[int], None]


def refuse_to_play_on(state: Any) -> None:
    """Where a race cannot be played on (playout, compare, play-on): over; no grid yet (nothing knows the cars'
    places: a playout crashed, KeyError); still in a module's set-up phase a play-out cannot start from
    (``Module.unplayable``: the Garage draft, # 18.5: the bots would pick, but a play-out does not draw the draft's
    markets, the table reveals them, so it stopped with "the race waits for nothing the game can draw"). Said
    plainly instead."""
    if state.phase == "over":
        raise MalformedInput("the race is over: there is nothing to play on")
    if state.phase == "grid":
        raise MalformedInput("the race has no grid yet: simulate it instead")
    said = unplayable(state.phase)
    if said is not None:
        what, why, rule = said
        raise MalformedInput(f"the race is in its {what} (# {rule}): {why}; record it first (heatlog record)")


def playouts(
    info: InfoSet,
    n: int,
    *,
    seed: int = 0,
    bots: str | Mapping[str, str] = "heuristic",
    sides: Sequence[Sequence[Event]] = ((),),
    executor: Executor | None = None,
    crn: bool = True,
    progress: Progress | None = None,
    watch: str | None = None,
    settle: str | None = None,
) -> PlayoutResult:
    """Play ``n`` playouts of every side from ``info``; see the module's docstring.

    ``bots``: a bot name for every car, or car -> bot name. ``sides``: the events each side applies to the
    sampled world before the bots take over (one empty side: a plain playout). ``executor``: any
    ``concurrent.futures.Executor`` (default: this process). ``crn=False`` gives each side its own numbers
    (to measure what common random numbers save). ``progress(k)`` is called as chunks of ``k`` playouts
    finish. Ctrl-C stops the run: the playouts finished so far come back, marked ``partial``.
    ``watch``: a car whose turn of the first round each outcome describes (:class:`TurnFacts`). ``settle``: a
    car whose place alone is wanted (a review): each play-out stops once that place is settled
    (:func:`settled_place`), and the outcomes and summaries hold that car only; its places are exactly those of
    play-outs to the end.
    """
    if n < 1:
        raise MalformedInput(f"{n} playouts: play at least one")
    refuse_to_play_on(info.public)
    cars = list(info.public.cars)
    names = {c: bots for c in cars} if isinstance(bots, str) else dict(bots)
    missing = [c for c in cars if c not in names]
    if missing:
        raise MalformedInput(f"no bot for {', '.join(missing)}")
    for bot_name in sorted(set(names.values())):
        get_bot(bot_name)  # an unknown bot name is refused before any work starts
    if settle is not None and settle not in cars:
        raise MalformedInput(f"no car named {settle!r} to settle the place of")
    job = Job(info, [list(s) for s in sides], names, seed, crn, watch, settle)
    count = -(-n // CHUNK)  # chunk k plays playouts k*CHUNK up to n: worked out when sent, never listed (a
    # list of every chunk of --playouts 10**20 took gigabytes before the first playout)

    def chunk(k: int) -> tuple[int, int]:
        return k * CHUNK, min(k * CHUNK + CHUNK, n)

    done: dict[int, list[list[Outcome]]] = {}
    partial = False
    if executor is None:
        from .executors import InlineExecutor

        executor = InlineExecutor()
    # A bounded window of chunks in flight (a few per worker): Ctrl-C then has little to cancel, and the
    # chunks still running are a few seconds of work at most.
    window = max(2, 2 * int(getattr(executor, "_max_workers", 0) or 0), WINDOW)
    futures: dict[Future[list[list[Outcome]]], int] = {}
    todo = iter(range(count))
    try:
        for k in itertools.islice(todo, window):
            futures[executor.submit(run_chunk, job, *chunk(k))] = k
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                k = futures.pop(fut)  # only the chunks in flight are kept: a long run holds its results once
                done[k] = fut.result()
                if progress is not None:
                    first, last = chunk(k)
                    progress(last - first)
                nxt = next(todo, None)
                if nxt is not None:
                    new = executor.submit(run_chunk, job, *chunk(nxt))
                    futures[new] = nxt
                    pending.add(new)
    except KeyboardInterrupt:
        partial = True
        for fut, k in futures.items():
            if not fut.cancel() and fut.done() and fut.exception() is None and k not in done:
                done[k] = fut.result()  # finished before the stop: kept
    # Keep the longest run of finished chunks from the start: a partial result is a prefix of the full one.
    rows: list[list[Outcome]] = []
    for k in range(count):
        if k not in done:
            partial = True
            break
        rows.extend(done[k])
    per_side = [[row[s] for row in rows] for s in range(len(job.sides))]
    kept = [settle] if settle is not None else cars
    return PlayoutResult(n, per_side, kept, info.public.round, seed, partial=partial)


__all__ = [
    "CHUNK",
    "CarSummary",
    "Difference",
    "Job",
    "Outcome",
    "TurnFacts",
    "turn_facts",
    "LATER_ROUNDS",
    "LaterFacts",
    "single_use_tokens",
    "committed_play",
    "lay_face_down",
    "PlayoutResult",
    "differences",
    "make_bots",
    "playout_seed",
    "play_until_settled",
    "playouts",
    "run_chunk",
    "settled_place",
    "run_playout",
    "summarise",
]
