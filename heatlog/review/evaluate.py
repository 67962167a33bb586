"""How good each decision was: playouts of every legal decision over what the car knew (docs/analysis.md,
"Decision review").

For one decision point (:mod:`heatlog.review.points`):

1. **What the car knew**: its information set just before the decision
   (:func:`heatlog.analysis.information_set`): everything public plus its own hand; never another car's
   hand, never a recorded deck order.
2. **Screening** (the cheap evaluation): every legal decision is played out ``screen`` times with common
   random numbers (playout ``i`` of every decision starts from the same sampled world and uses the same
   random numbers) and ranked by expected place (then win share).
3. **Play-out until the label is settled**: the ``keep`` best of the screening plus the decision taken get
   batches of more playouts (new worlds, still common to them) until the label cannot change within the
   paired loss's interval (:func:`label_needs`: every loss against another kept decision below the first
   threshold, or the best's inside one label's band and within ``± target``, at ``settle_z``), or each has
   ``max_playouts`` (the label is then what the evidence supports, its loss above 0 at ``cap_z``, 99 %: it was
   looked at after every batch; ``settled`` False). The screening's
   playouts of these decisions count too, but never settle a label alone: the screening chose the kept
   decisions (the one taken ranked first by luck as often as not), so at least ``fresh`` new playouts come
   first. A batch is what the intervals still need (a half-width shrinks as 1/√n), in multiples of ``step``,
   at most ``batch``. **Racing**: after each batch, a kept decision other
   than the one taken and the best so far is dropped once the paired difference of its places from the
   best's is above 0 at ``drop_z`` (99 %, on the playouts beyond the screening and those): it is clearly not
   the best, and is listed with the wider interval of the playouts it had.
4. **Verdict**: the best decision is the played-out one with the lowest expected place; the loss is the
   expected place of the decision taken minus the best's, from the paired playouts, with its 95 % interval.

Every number carries the playouts it rests on and a 95 % half-width (normal approximation). Seeds are
derived from the review's seed and the decision's place in the log by SHA-256, and playouts give the same
results on any executor with any number of workers, so a review is the same for a seed wherever it runs.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..analysis import information_set
from ..analysis.playout import CHUNK, playouts
from .points import DecisionPoint, NotReviewed, card_words, describe

Event = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Settings:
    """What a review spends (the defaults: docs/analysis.md, "Decision review")."""

    screen: int = 16  # playouts per legal decision in the screening (one chunk)
    keep: int = 2  # best decisions of the screening played out besides the one taken
    target: float = 0.05  # ± of a settled label's loss (at settle_z), expected score (cars − place) / (cars − 1)
    batch: int = 32  # playouts per kept decision per round of the play-out, at most
    max_playouts: int = 256  # per kept decision (a paired loss of sd 0.5 to ± 0.061 at 95 %, ± 0.080 at cap_z)
    drop_z: float = 2.576  # a kept decision clearly worse than the best (paired, 99 %) stops being played out
    step: int = 8  # the last round of the play-out asks for the playouts still needed, in multiples of this
    settle_z: float = 1.0  # the label is settled once the loss's interval at this z lies within one label's band
    fresh: int = 16  # playouts beyond the screening (which chose the kept decisions) before a label can settle
    cap_z: float = 2.576  # a label not settled by the cap needs its loss above 0 at this z (looked at every batch)
    bots: str = "heuristic"
    seed: int = 0
    # who plays the reviewed car on: "bots" (the bots above, every car), or "search" (its gear and cards searched
    # for the rest of the decision's round and ``search_rounds`` more, the heuristic after: heatlog/bots/search.py)
    evaluator: str = "bots"
    search_rounds: int = 1


class Interrupted(Exception):
    """Ctrl-C during a review: the decisions reviewed so far stand, the rest are missing."""


@dataclass(slots=True)
class Estimate:
    """One decision's playouts: its expected place and win share, each with a 95 % half-width."""

    decision: Event
    words: str
    playouts: int
    mean_place: float
    place_half: float
    win: float
    win_half: float
    screen_rank: int  # rank in the screening (1 = best)
    kept: bool  # played out beyond the screening until the label settled (or to the most playouts)
    dropped: bool = False  # played out beyond the screening, then dropped: clearly worse than the best
    # what followed its round, the means over its playouts (:func:`later_summary`; docs/analysis.md, "Later
    # facts in --json"), or None without those facts (a runner that gives none)
    later: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "decision": {k: v for k, v in self.decision.items() if k != "car"},
            "words": self.words,
            "playouts": self.playouts,
            "expected_place": finite(self.mean_place),
            "expected_place_95": finite(self.place_half),
            "win": finite(self.win),
            "win_95": finite(self.win_half),
            "screen_rank": self.screen_rank,
            "played_out": self.kept,
            "dropped": self.dropped,
            "later": self.later,
        }


@dataclass(slots=True)
class PointReview:
    point: DecisionPoint
    cars: int  # cars in the race (for the expected score)
    taken: Estimate
    best: Estimate
    estimates: list[Estimate]  # the kept ones by expected place, then the screened-only ones by screening rank
    loss: float  # expected places lost against the best (>= 0)
    loss_half: float  # 95 % half-width of the paired difference
    playouts: int  # playouts spent on this decision (every side counted)
    label: str | None = None
    partial: bool = False
    settled: bool = True  # the label settled before the cap (else: what the evidence at the cap supports)
    reason: str | None = None  # why, in words and numbers from the playouts (a labelled decision)
    facts: dict[str, list[Any]] = field(default_factory=dict)  # TurnFacts per playout of "taken" and "best"
    # the chance events (the registry's chance types) in the log since the car's previous decision point: what
    # moved its expected place between two decisions besides the other cars (the HTML graph marks them)
    chance_before: tuple[str, ...] = ()
    # the z the label rests on: 1.96 (95 %) for a label the play-out settled, ``Settings.cap_z`` (99 %) for one at
    # the cap, whose loss was looked at after every batch (``label``)
    label_z: float = 1.96

    @property
    def score_loss(self) -> float:
        """The loss as a share of the place range: expected score (n − place) / (n − 1) lost."""
        return self.loss / (self.cars - 1) if self.cars > 1 else 0.0

    @property
    def significant(self) -> bool:
        """The loss is above 0 at the confidence the label rests on (:attr:`confidence`): 95 % for a label the
        play-out settled, 99 % at the cap. A label needs it; a loss that is not is within the noise."""
        return self.loss - self.loss_half * max(self.label_z, 1.96) / 1.96 > 0

    @property
    def confidence(self) -> float:
        """The two-sided confidence of :attr:`significant`: 0.95, or 0.99 at the cap (``label_z`` 2.576)."""
        return math.erf(max(self.label_z, 1.96) / math.sqrt(2))


def finite(x: float, digits: int = 4) -> float | None:
    """``x`` rounded for JSON, or None where it is not a number (JSON has no Infinity or NaN)."""
    return round(x, digits) if math.isfinite(x) else None


def _seed(seed: int, point: DecisionPoint, phase: str) -> int:
    at = f"{point.index}+{len(point.prelude)}" if point.prelude else str(point.index)  # a discard after going on
    text = f"heatlog-review/{seed}/{point.car}/{at}/{phase}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def mean_half(xs: Sequence[float], lo: float, hi: float) -> tuple[float, float]:
    """The mean of ``xs`` and the 95 % half-width of it (normal approximation), the variance taken with one
    pseudo-observation at each end of the range ``lo``–``hi``: playouts that all agree (16 wins of 16) give a
    narrow interval, never ±0, and a single playout a finite one. The mean is the playouts' own."""
    n = len(xs)
    if n == 0:
        return math.nan, math.inf
    m = math.fsum(xs) / n
    ys = [*xs, lo, hi]
    my = math.fsum(ys) / len(ys)
    var = math.fsum((y - my) ** 2 for y in ys) / (len(ys) - 1)
    return m, 1.96 * math.sqrt(var / n)


def _win_half(wins: int, n: int) -> float:
    """95 % half-width of a win share, with one pseudo-win and one pseudo-loss (never ±0)."""
    if n <= 0:
        return math.inf
    p = (wins + 1) / (n + 2)
    return 1.96 * math.sqrt(p * (1 - p) / n)


Side = tuple[Any, list[Event]]  # (information set, events applied to each sampled world before the bots play on)
# ``run(n, seed, sides)``: per side, per playout, the car's place, or (place, TurnFacts | None)
Runner = Callable[[int, int, list[Side]], list[list[Any]]]


def make_runner(
    executor: Executor | None,
    car: str,
    bots: str,
    parallel: int,
    stop: threading.Event | None = None,
    *,
    evaluator: str = "bots",
    search_rounds: int = 1,
) -> Runner:
    """``run(n, seed, sides)`` -> the car's places, per side, per playout.

    Sides that share an information set are one :func:`playouts` call; sides with different ones (a card
    play at step 2 is the car's cards laid face down in its information set) are separate calls with the same
    seed, which draw the same worlds and random numbers: common random numbers hold across calls. Calls run
    side by side (``parallel`` of them) when one call would not keep the workers busy. Once ``stop`` is set
    (Ctrl-C in the review), a run raises :class:`Interrupted` instead of starting. ``evaluator``: who plays
    ``car`` on (:data:`heatlog.bots.search.EVALUATORS`): the ``bots`` like every car, or the search bot for the
    rest of the round its information set stands in and ``search_rounds`` more."""
    from ..bots.search import evaluator_name

    def one(info: Any, n: int, seed: int, sides: list[list[Event]]) -> list[list[Any]]:
        who: str | dict[str, str] = bots
        if evaluator != "bots":
            own = evaluator_name(evaluator, bots, info.public.round, search_rounds)
            who = {**{c: bots for c in info.public.cars}, car: own}
        result = playouts(info, n, seed=seed, bots=who, sides=sides, executor=executor, watch=car, settle=car)
        if result.partial:
            raise Interrupted
        return [[(o.places[car], o.turn) for o in side] for side in result.outcomes]

    def run(n: int, seed: int, sides: list[Side]) -> list[list[Any]]:
        if stop is not None and stop.is_set():
            raise Interrupted
        groups: list[tuple[Any, list[list[Event]]]] = []
        for info, events in sides:
            if groups and groups[-1][0] is info:
                groups[-1][1].append(events)
            else:
                groups.append((info, [events]))
        if len(groups) == 1 and n <= CHUNK and parallel > 1 and len(sides) > 1:
            info, evs = groups[0]
            size = math.ceil(len(evs) / parallel)
            groups = [(info, evs[i : i + size]) for i in range(0, len(evs), size)]
        if len(groups) == 1 or parallel <= 1:
            return [places for info, evs in groups for places in one(info, n, seed, evs)]
        with ThreadPoolExecutor(max_workers=min(parallel, len(groups))) as threads:
            done = list(threads.map(lambda g: one(g[0], n, seed, g[1]), groups))
        return [places for part in done for places in part]

    return run


def sides_for(point: DecisionPoint, info: Any) -> list[Side]:
    """How each legal decision is put into a sampled world: as an event applied to it. A card play at step 2 is
    made in a world still at step 1 (the other cars' gears of the round are hidden, # 2.1): it is laid face
    down there and played for the car when the world reaches step 2
    (:func:`heatlog.analysis.playout.lay_face_down`), so every option's playouts play that option."""
    return [(info, [*point.prelude, o]) for o in point.options]


def estimate_point(
    point: DecisionPoint,
    info: Any,
    cars: int,
    settings: Settings,
    run: Runner,
) -> PointReview:
    """Screen every legal decision, play the best and the taken one out, and give the verdict (module doc)."""
    from ..engine.game import decision_key

    options = point.options
    public = getattr(info, "public", None)  # (the information set's public state; a runner may be given none)
    named = card_words(public) if public is not None else None  # a Garage upgrade by its short name, not U22
    taken_key = decision_key(point.taken)
    sides = sides_for(point, info)
    screen, screen_facts = _split(run(settings.screen, _seed(settings.seed, point, "screen"), sides))
    spent = settings.screen * len(options)
    taken_i = next(i for i, o in enumerate(options) if decision_key(o) == taken_key)
    span = max(1, cars - 1)  # places from first to last: a place loss / span is the expected score lost

    def key(i: int) -> tuple[float, float, bool, int]:  # the decision taken first among equals (it wins ties)
        places = screen[i]
        return (sum(places) / len(places), -places.count(1) / len(places), i != taken_i, i)

    order = sorted(range(len(options)), key=key)
    rank = {i: r for r, i in enumerate(order, start=1)}
    kept = list(dict.fromkeys([*order[: settings.keep], taken_i]))
    if len(kept) < 2 and len(options) > 1:  # the taken one alone (it led the screening with --keep 1, or --keep 0):
        kept.append(next(i for i in order if i != taken_i))  # "no label" rests on an alternative played out too
    samples = {i: list(screen[i]) for i in kept}
    facts = {i: list(screen_facts[i]) for i in range(len(options))}
    active = list(kept)  # still played out: the taken one always; the others until clearly worse than the best
    floor = min(settings.max_playouts, settings.screen + max(0, settings.fresh))  # the fewest a label settles on
    batch = 0
    while True:
        n = len(samples[active[0]])
        lead = min(active, key=lambda i: (sum(samples[i]), -samples[i].count(1), i != taken_i, rank[i]))
        if n > settings.screen:  # racing: only on playouts beyond the screening (which chose these)
            for i in [i for i in active if i not in (taken_i, lead)]:
                diffs = [a - b for a, b in zip(samples[i], samples[lead], strict=True)]
                m, h = mean_half(diffs, -span, span)
                if m - h * settings.drop_z / 1.96 > 0:
                    active.remove(i)
        # The loss of the decision taken against each other one still played out, in expected score, from the
        # paired playouts (the same worlds): the label rests on these, not on each estimate's own interval.
        losses = {i: paired_loss(samples[taken_i], samples[i], span) for i in active if i != taken_i}
        need = label_needs(losses, None if lead == taken_i else lead, n, settings.target, settings.settle_z)
        if (need <= n and n >= floor) or n >= settings.max_playouts:
            settled = need <= n
            break
        # The playouts the label still needs (a half-width shrinks as 1/sqrt(n)), in steps of ``step``, at most
        # ``batch``: the play-out stops close to where the label settles instead of a batch beyond it. Never on the
        # screening alone: the playouts that ranked the decisions (the one taken first, by luck as often as not)
        # do not also settle their label — at least ``fresh`` new ones first (``floor``).
        more = min(settings.batch, max(settings.step, -(-(max(need, floor) - n) // settings.step) * settings.step))
        more = min(more, settings.max_playouts - n)
        batch += 1
        got, got_facts = _split(run(more, _seed(settings.seed, point, f"batch{batch}"), [sides[i] for i in active]))
        spent += more * len(active)
        for i, places, fs in zip(active, got, got_facts, strict=True):
            samples[i].extend(places)
            facts[i].extend(fs)

    def est(i: int) -> Estimate:
        places = samples.get(i, screen[i])
        m, h = mean_half(places, 1, cars)
        wins = places.count(1)
        return Estimate(
            options[i],
            describe(options[i], point.go_on_kind, named),
            len(places),
            m,
            h,
            wins / len(places),
            _win_half(wins, len(places)),
            rank[i],
            i in active,
            i in samples and i not in active,
            later_summary(facts[i], point.round, single_use),
        )

    single_use = single_use_cards(public)
    estimates = {i: est(i) for i in range(len(options))}
    # The decision taken wins ties: "best found" is another decision only when its estimate is better.
    best_i = min(active, key=lambda i: (estimates[i].mean_place, -estimates[i].win, i != taken_i, rank[i]))
    diffs = [a - b for a, b in zip(samples[taken_i], samples[best_i], strict=True)]
    loss, loss_half = mean_half(diffs, -span, span) if best_i != taken_i else (0.0, 0.0)
    dropped = sorted((i for i in samples if i not in active), key=lambda i: (estimates[i].mean_place, rank[i]))
    listed = sorted(active, key=lambda i: (estimates[i].mean_place, rank[i])) + dropped
    listed += [i for i in order if i not in samples]
    review = PointReview(
        point=point,
        cars=cars,
        taken=estimates[taken_i],
        best=estimates[best_i],
        estimates=[estimates[i] for i in listed],
        loss=max(0.0, loss),
        loss_half=loss_half,
        playouts=spent,
        settled=settled,
    )
    review.label_z = 1.96 if settled else settings.cap_z
    review.label = label(review, review.label_z)
    review.facts = {"taken": facts[taken_i], "best": facts[best_i]}
    if review.label is not None:
        review.reason = reason(review, info)
    return review


def paired_loss(taken: Sequence[int], other: Sequence[int], span: int) -> tuple[float, float]:
    """The expected score the decision taken loses against another, and its 95 % half-width, from their paired
    places (playout ``i`` of both is the same world): (taken − other) / span, span = cars − 1."""
    m, h = mean_half([a - b for a, b in zip(taken, other, strict=True)], -span, span)
    return m / span, h / span


def label_needs(
    losses: dict[int, tuple[float, float]], lead: int | None, n: int, target: float, z: float = 1.96
) -> int:
    """The playouts per side at which the label is **settled**, given ``n`` so far: ``losses[j]`` is the
    mean and 95 % half-width (expected score) of the paired loss taken − ``j`` for every other decision still
    played out, ``lead`` the best so far (None: the decision taken). At most ``n`` once the label would not
    change with the true losses anywhere in their intervals at ``z`` (the half-widths × z / 1.96):

    - *no label*: every other decision's loss interval ends below the first threshold (none is an inaccuracy
      better than the decision taken), or none is left;
    - *a label*: the best's loss interval lies within that label's band (from its threshold to the next one
      up) and is at most ``± target`` (at ``z``; in the bands below a blunder's the band's width already bounds
      it), and every other decision's interval ends below the band's top (none makes the loss a worse label).

    Otherwise more than ``n``: the playouts at which the intervals would settle if their means stayed (a
    half-width shrinks as 1/√n)."""
    if not losses:
        return 0
    edges = sorted(t for _, t in THRESHOLDS)
    big = 1 << 30
    k = z / 1.96

    def grow(h: float, room: float) -> float:  # playouts for a half-width ``h`` at n to shrink within ``room``
        return n * (h / room) ** 2 if room > 0 else big

    def below(top: float) -> float:  # every loss interval ends below ``top``
        return max(grow(h * k, top - m) if m + h * k >= top else n for m, h in losses.values())

    need = below(edges[0])  # no label
    if lead is not None and losses[lead][0] >= edges[0]:  # the best so far is a label's worth better
        m, h = losses[lead]
        lo = max(t for t in edges if t <= m)
        hi = min((t for t in edges if t > m), default=math.inf)
        room = min(m - lo, target)
        own = grow(h * k, room) if h * k >= room else n
        need = max(own, below(hi)) if math.isfinite(hi) else own
    return min(big, math.ceil(need))


def _split(rows: list[list[Any]]) -> tuple[list[list[int]], list[list[Any]]]:
    """A runner's rows as (places, facts): a runner may give places alone (no facts)."""
    places: list[list[int]] = []
    facts: list[list[Any]] = []
    for row in rows:
        if row and isinstance(row[0], tuple):
            places.append([x[0] for x in row])
            facts.append([x[1] for x in row])
        else:
            places.append(list(row))
            facts.append([None] * len(row))
    return places, facts


# ------------------------------------------------------------------------------------------------ verdicts

#: Thresholds on the expected score lost, score = (cars − place) / (cars − 1): 1 for a win, 0 for last
#: (docs/analysis.md, "Labels"). In a 4-car race: 0.15, 0.3 and 0.6 expected places.
THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.05))
#: The expected-score loss that halves a decision's accuracy (a mistake's threshold).
ACCURACY_HALF = 0.10


def label(review: PointReview, z: float = 1.96) -> str | None:
    """The worst label whose threshold the loss reaches, if the loss is significant (its 95 % interval
    excludes zero; at ``z`` when that is stricter: a label the play-out did not settle before the cap, whose
    loss was looked at after every batch, ``Settings.cap_z``): a decision within the noise of the best is never
    labelled."""
    if not review.loss - review.loss_half * max(z, 1.96) / 1.96 > 0:
        return None
    for name, threshold in THRESHOLDS:
        if review.score_loss >= threshold:
            return name
    return None


def accuracy(review: PointReview) -> float:
    """100 for the best decision, halved for each ``ACCURACY_HALF`` of expected score lost."""
    return 100.0 * 2.0 ** (-review.score_loss / ACCURACY_HALF)


@dataclass(slots=True)
class CarReview:
    car: str
    points: list[PointReview] = field(default_factory=list)
    expected: int = 0  # decision points found (more than were reviewed when the review was interrupted)
    legend: bool = False  # a Legend (# 19.1): the Legend cards move it, it has no decision to review
    not_reviewed: list[NotReviewed] = field(default_factory=list)  # the car's decisions not judged, with why
    place: int | None = None  # where the car finished in this race (the standings at the log's end, # 16.8)

    def actual_cost(self, p: PointReview) -> float | None:
        """What a decision cost in this race, in places: where the car finished less the best decision's
        expected place there (the luck and the decisions that followed included), beside its expected cost
        (``p.loss``, the taken decision's expected place less the best's)."""
        if self.place is None or not math.isfinite(p.best.mean_place):
            return None
        return self.place - p.best.mean_place

    def summary(self) -> dict[str, Any]:
        pts = self.points
        counts = {name: sum(p.label == name for p in pts) for name, _ in THRESHOLDS}
        return {
            "decisions": len(pts),
            "decision_points": self.expected,
            "mean_loss_places": round(math.fsum(p.loss for p in pts) / len(pts), 4) if pts else None,
            "mean_loss_score": round(math.fsum(p.score_loss for p in pts) / len(pts), 4) if pts else None,
            "accuracy": round(math.fsum(accuracy(p) for p in pts) / len(pts), 1) if pts else None,
            **counts,
            "not_reviewed": len(self.not_reviewed),
            "playouts": sum(p.playouts for p in pts),
        }

    def reasons(self) -> dict[str, int]:
        """The decisions not reviewed, counted by reason (in the order first met)."""
        out: dict[str, int] = {}
        for x in self.not_reviewed:
            out[x.reason] = out.get(x.reason, 0) + 1
        return out

    def graph(self) -> list[dict[str, Any]]:
        """Expected place by round: the decision taken at the car's first reviewed decision of each round."""
        out: list[dict[str, Any]] = []
        seen: set[int] = set()
        for p in self.points:
            if p.point.round in seen:
                continue
            seen.add(p.point.round)
            out.append(
                {
                    "round": p.point.round,
                    "expected_place": finite(p.taken.mean_place),
                    "expected_place_95": finite(p.taken.place_half),
                    "win": finite(p.taken.win),
                    "playouts": p.taken.playouts,
                    "at": p.point.kind,
                }
            )
        return out


def point_dict(p: PointReview) -> dict[str, Any]:
    return {
        "round": p.point.round,
        "seq": p.point.seq,
        "kind": p.point.kind,
        "options": len(p.point.options),
        "taken": p.taken.to_dict(),
        "best": p.best.to_dict(),
        "loss_places": finite(p.loss),
        "loss_places_95": finite(p.loss_half),
        "loss_score": finite(p.score_loss),
        "significant": p.significant,  # at the confidence the label rests on: 95 %, or 99 % at the cap
        "significant_at": round(p.confidence, 3),
        "label": p.label,
        "settled": p.settled,
        "accuracy": round(accuracy(p), 1),
        "reason": p.reason,
        "playouts": p.playouts,
        "chance_before": list(p.chance_before),
        "alternatives": [e.to_dict() for e in p.estimates],
    }


def infoset_for(events: Sequence[Event], car: str) -> Any:
    """The car's information set before ``events`` end (a worker's task: plain data in, plain data out)."""
    return information_set(list(events), car)


# ------------------------------------------------------------------------------------------------ reasons


def _share(xs: Sequence[bool]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _mean(xs: Sequence[float]) -> float:
    return math.fsum(xs) / len(xs) if xs else 0.0


def _limit_words(public: Any, after_space: int | None, limit: int) -> str:
    """A corner's speed limit in this race, and the board's where the race's modules change it (the weather's road
    conditions, # 20.5): "limit 2: 3 on the board, -1 this race"."""
    try:
        printed = next(int(c["limit"]) for c in public.track.data["corners"] if c["after_space"] == after_space)
    except (AttributeError, KeyError, TypeError, ValueError, StopIteration):
        return f"limit {limit}"
    if printed == limit:
        return f"limit {limit}"
    return f"limit {limit}: {printed} on the board, {limit - printed:+d} this race"


def _react_words(review: PointReview, public: Any) -> str | None:
    """At a React or slipstream decision, what the race's modules say of the car's place (``Module.react_hint``:
    the weather's sector, cooling +1 or no cooldown, # 20.7), else None."""
    if public is None or review.point.step not in ("react", "slipstream"):
        return None
    from ..engine.module import react_hint

    car = public.cars.get(review.point.car) if hasattr(public.cars, "get") else None
    if car is None:
        return None
    try:
        said = react_hint(public, car).strip().rstrip(";").strip()
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    return f"where it reacts, {said}" if said else None


def _corner_number(public: Any, after_space: int | None) -> str:
    """ "corner 2" by the track's order of corners, or the space it is after."""
    if after_space is None:
        return "a corner"
    try:
        spaces = [int(c["after_space"]) for c in public.track.data["corners"]]
        return f"corner {spaces.index(after_space) + 1}"
    except (AttributeError, KeyError, TypeError, ValueError):
        return f"the corner after space {after_space}"


def deck_words(info: Any, car: str) -> str | None:
    """What a Stress flip finds in the car's deck (# 5.2: the deck's cards, not its order), from what it knew:
    its pool less its own hand. A flip finds only a Basic card (# 5.2, 14.1, 14.2: the 0, the 5, Heat, Stress and
    every upgrade are flipped past), so the mean and the highest are of the deck's Basic cards; the deck is
    listed card by card, as the review lists a play ("1 1 4 S"), a card beyond the base by its short name
    (``card_words``: never an upgrade's code). None where the hand is not known (another car's, table mode)."""
    public = getattr(info, "public", None)
    known = getattr(info, "known", {})
    if public is None or car not in known:
        return None
    tokens = info.beliefs[car].tokens
    hand = dict(zip(tokens, known[car], strict=True))
    pool = public.cars[car].pool
    deck = {c: pool.get(c, 0) - hand.get(c, 0) for c in pool if pool.get(c, 0) - hand.get(c, 0) > 0}
    head = "its deck holds"
    if not deck:  # a flip shuffles the discard pile into a new deck first (# 5.6, 14.3): its cards are public
        discard: dict[str, int] = {}
        for c in public.cars[car].discard:
            discard[c] = discard.get(c, 0) + 1
        if not discard:
            return "its deck is empty: the discard pile is shuffled into it first (# 5.6)"
        deck, head = discard, "its deck is empty: a flip shuffles its discard pile first (# 5.6), which holds"
    catalogue = public.cards
    name = card_words(public) or str
    order = {t: k for k, t in enumerate(catalogue.tokens)}
    listed = " ".join(name(c) for c in sorted(deck, key=lambda t: order.get(t, len(order))) for _ in range(deck[c]))
    speed = [(catalogue.value[c], n) for c, n in deck.items() if c in catalogue.basic and c in catalogue.value]
    cards = sum(n for _, n in speed)
    if not cards:
        return (
            f"{head} {listed}, no Basic card: a Stress flip goes through it to the discard pile, shuffled (# 14.3, 5.6)"
        )
    mean = sum(v * n for v, n in speed) / cards
    high = max(v for v, _ in speed)
    cheap = " only low cards: a Stress flip costs little here" if high <= 2 else ""
    return f"{head} {listed}: a Stress flip finds {mean:.1f} on average (at most {high});{cheap}".rstrip(";")


def _gaps(pairs: Sequence[tuple[Any, Any]]) -> list[float]:
    """The mean of the paired gaps in progress (taken − best) at the end of each round from the decision's,
    each side held at its last round once its place is settled (its progress no longer changes what it gets)."""
    longest = max(max(len(a.track), len(b.track)) for a, b in pairs)
    n = len(pairs)
    return [
        math.fsum(a.track[min(k, len(a.track) - 1)] - b.track[min(k, len(b.track) - 1)] for a, b in pairs) / n
        for k in range(longest)
    ]


def _spaces(gap: float, other: str) -> str:
    """ "1.4 spaces ahead of play 4 S", "0.8 spaces behind it", "level with it"."""
    if abs(gap) < GAP:
        return f"level with {other}"
    return f"{abs(gap):.1f} spaces {'ahead of' if gap > 0 else 'behind'} {other}"


#: Spaces of mean gap below which two decisions' cars are said level (the reasons' resolution).
GAP = 0.25


#: The version of the ``later`` block of each option in ``review --json`` (docs/analysis.md, "Later facts in
#: --json"): a new key is added without a new version; a key renamed, removed or meaning otherwise makes a new one.
LATER_VERSION = 1


def single_use_cards(public: Any) -> frozenset[str]:
    """The race's cards that leave the game once played (# 18.24: the sponsorship cards), from what the car knew."""
    from ..analysis.playout import single_use_tokens

    cards = getattr(public, "cards", None)
    return single_use_tokens(cards) if cards is not None else frozenset()


def _most_spun(later: Sequence[Any]) -> int | None:
    """The corner (``after_space``) most of the spinouts of ``later`` are at (the reason's "mostly at")."""
    corners = [f.spin_corner for f in later if f.spins]
    return max(set(corners), key=lambda c: (corners.count(c), -1 if c is None else c)) if corners else None


def later_summary(facts: Sequence[Any], round_: int, single_use: frozenset[str] = frozenset()) -> dict[str, Any] | None:
    """An option's :class:`~heatlog.analysis.playout.LaterFacts`, the means over its playouts: the ``later``
    block of ``review --json`` (version :data:`LATER_VERSION`; docs/analysis.md, "Later facts in --json"), the
    numbers the reason's words are made of (:func:`later_words`). None without those facts."""
    later = [f.later for f in facts if f is not None and f.later is not None]
    if not later:
        return None
    n = len(later)

    def mean(get: Callable[[Any], float]) -> float | None:
        return finite(math.fsum(get(f) for f in later) / n)

    longest = max(len(f.track) for f in later)
    progress = [finite(math.fsum(f.track[min(k, len(f.track) - 1)] for f in later) / n) for k in range(longest)]
    kept = {c: finite(math.fsum(f.single_use.count(c) for f in later) / n) for c in sorted(single_use)}
    return {
        "playouts": n,
        "round": round_,
        "progress": progress,
        "stress_in_hand": mean(lambda f: f.stress_hand),
        "heat_in_hand": mean(lambda f: f.heat_hand),
        "engine_end_of_round": mean(lambda f: f.engine_next),
        "rounds_after": max(f.rounds for f in later),
        "spinout_share": mean(lambda f: f.spins > 0),
        "spinout_after_space": _most_spun(later),
        "heat_paid": mean(lambda f: f.paid),
        "spaces_moved": mean(lambda f: f.moved),
        "engine_after": mean(lambda f: f.engine),
        "finish_round": mean(lambda f: f.finish),
        "single_use_kept": {c: k for c, k in kept.items() if k},
    }


def single_use_words(review: PointReview, public: Any) -> str | None:
    """A card lost for good: where the decision taken and the best found differ in a single-use card (a
    sponsorship card, # 18.24: played, it leaves the game at step 9; discarded, it comes back through the deck)
    the car still owns at the end of the round, which spends it and which keeps it, with the share of their
    playouts (a cluttered turn, # 18.26, or an unpaid Heat cost, # 18.11, sends a played one to the discard
    pile instead). None where they do not differ."""
    once = single_use_cards(public)
    pairs = [
        (t.later, b.later)
        for t, b in zip(review.facts.get("taken", []), review.facts.get("best", []), strict=False)
        if t is not None and b is not None and t.later is not None and b.later is not None
    ]
    if not once or not pairs or review.taken.decision == review.best.decision:
        return None
    name = card_words(public) or str
    tw, bw = review.taken.words, review.best.words
    r = review.point.round
    n = len(pairs)
    out = []
    for c in sorted(once):
        kept = [math.fsum(side.single_use.count(c) for side in sides) / n for sides in zip(*pairs, strict=True)]
        if abs(kept[0] - kept[1]) < 0.1:
            continue
        spender = 0 if kept[0] < kept[1] else 1
        words = (tw, bw)
        lost = sum(p[spender].single_use.count(c) < p[1 - spender].single_use.count(c) for p in pairs)
        if c not in ((review.taken, review.best)[spender].decision.get("cards") or ()):  # (not its play's: a
            out.append(  # press corner's card earned by the other, # 21.7, or one played at a later step)
                f"{name(c)}, a single-use card (# 18.24), held at the end of round {r}: {kept[0]:.1f} by {tw}, "
                f"{kept[1]:.1f} by {bw}"
            )
            continue
        out.append(
            f"{words[spender]} spends {name(c)}, a single-use card (it leaves the game once played, # 18.24), in "
            f"{lost / n:.0%} of playouts; {words[1 - spender]} keeps it for a later round: {name(c)} held at the end "
            f"of round {r} {kept[0]:.1f}, against {kept[1]:.1f}"
        )
    return "; ".join(out) or None


def later_words(review: PointReview, public: Any) -> str | None:
    """What the decision taken led to after its round, against the best found, from their paired playouts
    (:class:`~heatlog.analysis.playout.LaterFacts`): the gap in spaces at the end of the decision's round and the
    round from which the car taken is behind (the most it is behind, and when), then each difference that makes
    it — the Stress and Heat cards left in its hand for the next round (# 12.2), the Heat in its Engine (# 15.1),
    spinouts (# 10.1), Heat paid at corners (# 9.3) and spaces moved in the two rounds after, the round it
    finishes in. A decision that moves further now and loses later is told by these. None without those facts
    (a runner that gives none)."""
    pairs = [
        (t.later, b.later)
        for t, b in zip(review.facts.get("taken", []), review.facts.get("best", []), strict=False)
        if t is not None and b is not None and t.later is not None and b.later is not None
    ]
    if not pairs or review.taken.decision == review.best.decision:
        return None
    tw, bw = review.taken.words, review.best.words
    n = len(pairs)

    def both(get: Callable[[Any], float]) -> tuple[float, float]:
        return math.fsum(get(a) for a, _ in pairs) / n, math.fsum(get(b) for _, b in pairs) / n

    r = review.point.round
    gaps = _gaps(pairs)
    head = f"at the end of round {r} {tw} is {_spaces(gaps[0], bw)}"
    worst = min(range(len(gaps)), key=lambda k: (gaps[k], k))
    behind = next((k for k, g in enumerate(gaps) if g <= -GAP), None)
    if behind is not None and behind > 0:
        head += f", behind it from round {r + behind} ({-gaps[worst]:.1f} spaces at most, round {r + worst})"
    elif behind == 0 and worst > 0 and gaps[worst] < gaps[0] - GAP:
        head += f", {-gaps[worst]:.1f} spaces behind at most (round {r + worst})"
    elif behind is None and len(gaps) > 1:
        head += f", and never behind it on average (round {r + len(gaps) - 1}: {_spaces(gaps[-1], 'it')})"
    out: list[str] = []
    hand_s, hand_h = both(lambda f: f.stress_hand), both(lambda f: f.heat_hand)
    if abs(hand_s[0] - hand_s[1]) >= 0.3 or abs(hand_h[0] - hand_h[1]) >= 0.3:
        out.append(
            f"it leaves {hand_s[0]:.1f} Stress and {hand_h[0]:.1f} Heat cards in its hand for round {r + 1}, "
            f"against {hand_s[1]:.1f} and {hand_h[1]:.1f}"
        )
    engine = both(lambda f: f.engine_next)
    if abs(engine[0] - engine[1]) >= 0.5:
        out.append(f"Engine {engine[0]:.1f} Heat at the end of round {r}, against {engine[1]:.1f}")
    rounds = max(a.rounds for a, _ in pairs)
    if rounds >= 1:
        span = f"round {r + 1}" if rounds == 1 else f"rounds {r + 1}–{r + rounds}"
        spins = both(lambda f: f.spins > 0)
        if abs(spins[0] - spins[1]) >= 0.1:
            worse = 0 if spins[0] > spins[1] else 1
            where = _most_spun([p[worse] for p in pairs])
            out.append(
                f"{(tw, bw)[worse]} spins out in {span} in {spins[worse]:.0%} of playouts (mostly at "
                f"{_corner_number(public, where)}), {(bw, tw)[worse]} in {spins[1 - worse]:.0%}"
            )
        paid = both(lambda f: f.paid)
        if abs(paid[0] - paid[1]) >= 0.5:
            out.append(f"it pays {paid[0]:.1f} Heat at corners in {span}, against {paid[1]:.1f}")
        moved = both(lambda f: f.moved)
        if abs(moved[0] - moved[1]) >= 0.5:
            out.append(f"it moves {moved[0]:.1f} spaces in {span}, against {moved[1]:.1f}")
        last = both(lambda f: f.engine)
        if abs(last[0] - last[1]) >= 0.5:
            out.append(f"Engine {last[0]:.1f} Heat at the end of round {r + rounds}, against {last[1]:.1f}")
    finish = both(lambda f: f.finish)
    if abs(finish[0] - finish[1]) >= 0.1:
        out.append(f"it finishes in round {finish[0]:.1f}, against {finish[1]:.1f}")
    return head + (": " + "; ".join(out) if out else "")


def reason(review: PointReview, info: Any) -> str:
    """Why the decision taken lost against the best found, in words and numbers from their paired playouts:
    the spinouts of this round's turn (where, how much Heat owed and paid, the Engine), the spaces moved,
    what a Stress flip finds in the deck when Stress is in play, and the expected place and win share."""
    car = review.point.car
    public = getattr(info, "public", None)
    taken = [f for f in review.facts.get("taken", []) if f is not None]
    best = [f for f in review.facts.get("best", []) if f is not None]
    tw, bw = review.taken.words, review.best.words
    parts: list[str] = []
    stress = any("S" in (e.decision.get("cards") or []) for e in (review.taken, review.best))
    if taken and best:
        ts, bs = _share([f.spun for f in taken]), _share([f.spun for f in best])
        if abs(ts - bs) >= 0.1:
            worse, w_f, w_s, other, o_s = (tw, taken, ts, bw, bs) if ts > bs else (bw, best, bs, tw, ts)
            spun = [f for f in w_f if f.spun]
            where = max(set(f.corner for f in spun), key=lambda c: sum(f.corner == c for f in spun))
            at = [f for f in spun if f.corner == where]
            limit = at[0].limit if at else None
            engine = public.cars[car].engine if public is not None else None
            parts.append(
                f"{worse} spins out at {_corner_number(public, where)}"
                + (
                    f" ({_limit_words(public, where, limit)}, speed {_mean([f.speed or 0 for f in at]):.1f})"
                    if limit is not None
                    else ""
                )
                + f" in {w_s:.0%} of playouts, owing {_mean([f.owed for f in at]):.1f} Heat and paying "
                f"{_mean([f.paid for f in at]):.1f}"
                + (f" (Engine {engine} at the decision)" if engine is not None else "")
                + f"; {other}: {o_s:.0%}"
            )
            stress = True  # a spinout's Stress (# 10.3) is flipped later
        else:
            tm, bm = _mean([f.moved for f in taken]), _mean([f.moved for f in best])
            if abs(tm - bm) >= 0.5:
                parts.append(f"{tw} moves {tm:.1f} spaces this round, {bw} {bm:.1f}")
            tp, bp = _mean([f.paid for f in taken]), _mean([f.paid for f in best])
            if abs(tp - bp) >= 0.5:
                parts.append(f"{tw} pays {tp:.1f} Heat at corners this round, {bw} {bp:.1f}")
    spent = single_use_words(review, public)
    if spent is not None:
        parts.append(spent)
    later = later_words(review, public)
    if later is not None:
        parts.append(later)
    if stress:
        deck = deck_words(info, car)
        if deck is not None:
            parts.append(deck)
    where = _react_words(review, public)
    if where is not None:
        parts.append(where)
    parts.append(
        f"expected place {review.taken.mean_place:.2f} against {review.best.mean_place:.2f} "
        f"(win {review.taken.win:.0%} against {review.best.win:.0%}; {review.score_loss:.2f} expected score lost, "
        f"n={review.taken.playouts})"
    )
    return "; ".join(parts)
