"""Decision review: how good each decision of a car was, judged by playouts over what it knew
(docs/analysis.md, "Decision review").

>>> review = review_race(events, ["Red"], settings=Settings(seed=1))
>>> review.cars[0].summary()["accuracy"]
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from ..engine import MalformedInput, replay
from ..engine.errors import NOT_FOUND
from .evaluate import (
    ACCURACY_HALF,
    LATER_VERSION,
    THRESHOLDS,
    CarReview,
    Estimate,
    Interrupted,
    PointReview,
    Settings,
    accuracy,
    estimate_point,
    infoset_for,
    make_runner,
    point_dict,
)
from .points import DecisionPoint, NotReviewed, decision_points, describe

Event = dict[str, Any]

__all__ = [
    "ACCURACY_HALF",
    "THRESHOLDS",
    "CarReview",
    "DecisionPoint",
    "Estimate",
    "NotReviewed",
    "PointReview",
    "Review",
    "Settings",
    "accuracy",
    "check_evaluator",
    "decision_points",
    "describe",
    "evaluator_words",
    "review_race",
]


@dataclass(slots=True)
class Review:
    race: int | None
    name: str | None
    track: str
    mode: str
    n_cars: int
    settings: Settings
    cars: list[CarReview] = field(default_factory=list)
    partial: bool = False
    seconds: float = 0.0
    track_name: str = ""  # what the terminal shows, as show does (--json keeps the id, ``track``)

    def car(self, name: str) -> CarReview:
        for c in self.cars:
            if c.car == name:
                return c
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        s = self.settings
        return {
            "race": self.race,
            "name": self.name,
            "track": self.track,
            "mode": self.mode,
            "cars_in_race": self.n_cars,
            "partial": self.partial,
            "later_version": LATER_VERSION,  # the shape of each option's "later" block (docs/analysis.md)
            "seconds": round(self.seconds, 2),
            "settings": {
                "seed": s.seed,
                "bots": s.bots,
                "evaluator": s.evaluator,
                "search_rounds": s.search_rounds if s.evaluator == "search" else None,
                "screen_playouts": s.screen,
                "keep": s.keep,
                "target_95_score": s.target,
                "batch": s.batch,
                "step": s.step,
                "drop_z": s.drop_z,
                "settle_z": s.settle_z,
                "max_playouts": s.max_playouts,
                "thresholds_score": dict(THRESHOLDS),
                "accuracy_half_score": ACCURACY_HALF,
            },
            "cars": [
                {
                    "car": c.car,
                    "legend": c.legend,
                    "summary": c.summary(),
                    "graph": c.graph(),
                    "place": c.place,
                    "decisions": [{**point_dict(p), "actual_cost_places": _round(c.actual_cost(p))} for p in c.points],
                    "not_reviewed": [x.to_dict() for x in c.not_reviewed],
                }
                for c in self.cars
            ],
        }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def chance_between(
    events: Sequence[Event], points: Sequence[DecisionPoint]
) -> dict[tuple[str, int, int], tuple[str, ...]]:
    """For each point (by car, index, prelude), the types of the chance events (the registry's) in the log since
    the same car's previous point: the draws, flips, shuffles and module draws between two of its decisions."""
    from ..engine.events import REGISTRY

    out: dict[tuple[str, int, int], tuple[str, ...]] = {}
    last: dict[str, int] = {}
    for p in sorted(points, key=lambda p: (p.index, len(p.prelude))):
        start = last.get(p.car, p.index)
        kinds = []
        for ev in events[start : p.index]:
            entry = REGISTRY.get(str(ev.get("type")))
            if entry is not None and entry.chance:
                kinds.append(str(ev["type"]))
        out[(p.car, p.index, len(p.prelude))] = tuple(dict.fromkeys(kinds))
        last[p.car] = p.index
    return out


def evaluator_words(settings: Settings) -> str:
    """Who played the reviewed car on, in words (the terminal's and the HTML page's head)."""
    if settings.evaluator == "search":
        more = settings.search_rounds
        return f"search (the car's gear and cards searched this round and {more} more, then the heuristic)"
    return f"bots (the {settings.bots} bot plays every car on)"


def check_evaluator(settings: Settings) -> None:
    """Refuse an evaluator the review does not know, or the search evaluator over bots it does not play on with
    (the search's rollouts and the car's play after its search rounds are the heuristic's)."""
    from ..bots.search import EVALUATORS

    if settings.evaluator not in EVALUATORS:
        raise MalformedInput(f"unknown evaluator {settings.evaluator!r} (choose {', '.join(EVALUATORS)})")
    if settings.evaluator == "search":
        if settings.bots != "heuristic":
            raise MalformedInput(
                f"the search evaluator plays on with the heuristic bot (its rollouts too): use it with --bots "
                f"heuristic, not {settings.bots!r}"
            )
        if not 1 <= settings.search_rounds <= 20:  # (0 searches nothing: the decision's own plan is the option)
            raise MalformedInput(f"--search-rounds {settings.search_rounds}: 1 to 20 rounds after the decision's")


def review_race(
    events: Sequence[Event],
    cars: Sequence[str] | None = None,
    *,
    settings: Settings | None = None,
    executor: Executor | None = None,
    parallel: int = 1,
    progress: Callable[[int, int], None] | None = None,
    seqs: Sequence[int] | None = None,
    rounds: set[int] | None = None,
    only: Callable[[DecisionPoint], bool] | None = None,
    race: int | None = None,
    name: str | None = None,
) -> Review:
    """Review every decision point of ``cars`` (default: all) in the effective log ``events``.

    ``executor``: where playouts and information sets are computed (any ``concurrent.futures.Executor``;
    default: this process); ``parallel``: its workers, to keep them busy. ``progress(done, total)`` after
    each decision; ``rounds`` or ``only(point)`` limit the decisions reviewed. Ctrl-C stops: the decisions
    reviewed so far come back, marked ``partial``.
    """
    settings = settings or Settings()
    check_evaluator(settings)
    if not events:
        raise MalformedInput("the race has no events")
    final = replay(events)
    if settings.evaluator == "search":
        from ..bots import race_policies

        if not all(p.searched for p in race_policies(final)[0]):  # (a Garage race: BotPolicy.searched)
            raise MalformedInput(
                "the search bot leaves this race's modules to the heuristic (a Garage race), so --evaluator search "
                "would be the heuristic's review: use --evaluator bots",
                race=race,
            )
    names = list(dict.fromkeys(cars)) if cars else list(final.cars)  # a car named twice is reviewed once
    for n in names:
        if n not in final.cars:
            in_race = ", ".join(final.cars)
            raise MalformedInput(f"no car named {n!r} in this race (cars: {in_race})", words=NOT_FOUND)
    first = max(1, replay(events[:1]).round)  # a race from a position begins at its round
    for r in sorted(rounds or ()):
        if not first <= r <= final.round:  # else it would review nothing, as if the round had no decision
            have = f"rounds {first}–{final.round}" if final.round >= first else "no round has started yet"
            raise MalformedInput(f"no round {r} ({have})", race=race, words=NOT_FOUND)
    started = time.perf_counter()
    out = Review(race, name, final.track.id, final.mode, len(final.cars), settings, track_name=final.track.name)
    points: list[DecisionPoint] = []
    standing = {c: i + 1 for i, c in enumerate(final.standings())}
    for n in names:
        if final.cars[n].legend:  # # 19.1: moved by the Legend cards; no decision of its own to look for
            out.cars.append(CarReview(n, legend=True))
            continue
        skipped: list[NotReviewed] = []
        mine = [
            p for p in decision_points(events, n, seqs=seqs, rounds=rounds, skipped=skipped) if only is None or only(p)
        ]
        out.cars.append(
            CarReview(n, expected=len(mine), not_reviewed=skipped if only is None else [], place=standing[n])
        )
        points.extend(mine)
    order = {n: i for i, n in enumerate(names)}
    points.sort(key=lambda p: (p.index, order[p.car]))
    by_car = {c.car: c for c in out.cars}
    stop = threading.Event()
    runners = {
        n: make_runner(
            executor,
            n,
            settings.bots,
            parallel,
            stop,
            evaluator=settings.evaluator,
            search_rounds=settings.search_rounds,
        )
        for n in names
    }
    n_cars = len(final.cars)

    chance = chance_between(events, points)

    def review_one(p: DecisionPoint, fut: Future[Any] | None) -> PointReview:
        info = fut.result() if fut is not None else infoset_for(p.known(events), p.car)
        review = estimate_point(p, info, n_cars, settings, runners[p.car])
        review.chance_before = chance.get((p.car, p.index, len(p.prelude)), ())
        return review

    # With a pool of workers, several decisions are reviewed at once (each in a thread of this process that
    # hands its playouts to the pool): while one waits for the last chunks of a batch, the next one's chunks
    # keep the workers busy. ``at_once`` decisions are under way at any time, whichever finish first: a long
    # decision (one played out to the cap) no longer holds back the next ones until it is taken, which left
    # one worker idle at the end of each of its batches. Each decision's playouts have their own seeds, so the
    # results are the same as one at a time; they are taken in the log's order.
    at_once = parallel + 1 if executor is not None and parallel > 1 else 1
    threads = ThreadPoolExecutor(max_workers=at_once) if at_once > 1 else None
    ahead = max(2, 2 * parallel)
    infosets: deque[tuple[DecisionPoint, Future[Any] | None]] = deque()
    reviews: deque[Future[PointReview]] = deque()  # in the log's order, finished or not
    queue = iter(points)

    def refill() -> None:
        running = sum(not f.done() for f in reviews)
        while True:
            while len(infosets) + running < ahead + at_once:
                p = next(queue, None)
                if p is None:
                    break
                fut = executor.submit(infoset_for, p.known(events), p.car) if executor is not None else None
                infosets.append((p, fut))
            if threads is None or not infosets or running >= at_once:
                return
            reviews.append(threads.submit(review_one, *infosets.popleft()))
            running += 1

    done = 0
    try:
        refill()
        while reviews or infosets:
            if reviews and not reviews[0].done():
                wait([f for f in reviews if not f.done()], return_when=FIRST_COMPLETED)
                refill()  # a decision behind the first one finished: the next one starts
                continue
            review = reviews.popleft().result() if reviews else review_one(*infosets.popleft())
            refill()
            by_car[review.point.car].points.append(review)
            done += 1
            if progress is not None:
                progress(done, len(points))
    except (KeyboardInterrupt, Interrupted):
        out.partial = True
        for fut in reviews:
            fut.cancel()
        for _, info_fut in infosets:
            if info_fut is not None:
                info_fut.cancel()
    finally:
        stop.set()  # decisions still under way in a thread stop at their next batch
        if threads is not None:
            threads.shutdown(wait=False, cancel_futures=True)
    out.seconds = time.perf_counter() - started
    return out
