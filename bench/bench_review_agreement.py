"""Do the review's labels at default settings agree with a 1,000-playouts-per-option reference? (issue 28)

For a set of Red's decision points of ``replays/usa-4cars.jsonl`` (every ``--every``-th one from ``--offset``,
at most ``--points``; ``--spread`` visits them in an order whose every prefix is spread over the race), the
review's verdict at default settings (``heatlog.review.Settings``: screening, pruning, racing) is compared with a
reference that plays **every** legal option ``--playouts`` times (default 1,000) from the same information set
with common random numbers, and judges it with the same rule: best = lowest expected place (the decision taken
wins ties), loss = the paired difference taken − best, a label when the loss is significant (95 %) and reaches a
threshold (``heatlog.review.THRESHOLDS``, on the expected score).

With ``--first K`` the reference is cheaper and gives the same verdict: every option gets K playouts, an option
other than the one taken that is clearly worse than the best at ``--prune-z`` (default 4, one chance in 30,000 for
two options of the same value) stops there, as it cannot be the reference's best, and the verdict rests on the
taken option and the best only; the rest (always the taken one and the best) are played to ``--playouts``.

**Decided or not** (docs/analysis.md, "Do the labels agree with a long reference?"): a label is a band of the
true loss (none below 0.05 expected score, an inaccuracy from 0.05, a mistake from 0.10, a blunder from 0.20).
Where the reference's own 95 % interval of the loss lies within one band, the reference *decides* the label;
where it straddles a threshold, the reference cannot say which of the two labels is right: the point is
*undecided by the reference* and counted apart, neither for nor against the review. Reported: the labels
agreeing where the reference decides (goal ≥ 95 %), the undecided points (and whether the review gave one of
the two labels the reference's interval allows), the false alarms on a best move (the review labels a decision
the reference finds best: goal none) and each disagreement.

``--out FILE`` writes one JSON line per point as it is done (the reference's places of every option, the
review's verdict); ``--reference FILE`` reads the reference from such a file instead of playing it again (the
review alone is run, e.g. after a change to the review), for the points the file holds; ``--judge FILE ...``
plays nothing and judges again what such files hold (e.g. two runs on different points, or a run stopped early;
plain or ``.gz``). ``bench/data/agreement_usa4cars_red_7d8156c.jsonl.gz`` is the fifth measurement's (46 points,
docs/analysis.md): a reference made with main ``7d8156c``'s bots, valid while the bots decide the same.

    python bench/bench_review_agreement.py [--points 12] [--every 6] [--offset 0] [--spread | --indices 3,9]
        [--playouts 1000] [--first 200] [--prune-z 4] [--workers N] [--out FILE] [--reference FILE]
        [--set max_playouts=256 ...]

``--set NAME=VALUE`` reviews with a setting other than its default (e.g. a cap or the fresh playouts to try
before adopting them), said in the report's title.

**The search evaluator** (``review --evaluator search``): ``--evaluator search`` reviews with it (``--search-rounds``
as the review's option, default 1), and ``--reference-evaluator search`` plays the reference with it too — the
search evaluator's own truth (the car's next plans searched, then the heuristic), which the heuristic's reference
is not: judged against that one, a disagreement may be the search evaluator seeing what the heuristic's
continuation misses. ``--kinds gear,react`` keeps only the decision points of those kinds and ``--rounds 3-6``
those of those rounds (a reference of the search evaluator costs 4–8 times the heuristic's). Each line --out
writes names both evaluators (``review.evaluator``, ``reference.evaluator``; a line without them is the
heuristic's, ``bots``); ``--reference FILE`` refuses a file whose reference another evaluator played, unless
``--reference-evaluator`` says that evaluator. ``--judge A --reference B`` judges A's reviews against B's
reference on the points both hold (e.g. the search evaluator's reviews against the heuristic's kept reference).
``--also bots`` reviews each point with that evaluator too (the two alternate which goes first), judged apart
against the same reference, with the same-run ratio of their wall times and playouts (``also`` in --out's lines).
``bench/data/agreement_usa4cars_red_search_8e482aa.jsonl.gz`` is the search evaluator's first measurement (14 of
Red's gear points, a reference of 200 playouts per option played by the search evaluator, main ``8e482aa``'s bots;
docs/analysis.md, "The search evaluator against a reference"), ``…_seed1_also.jsonl.gz`` the seed-1 run with
``--also bots`` on 12 of them, ``…_other.jsonl.gz`` 8 card and React points (seed 0, ``--also bots``).

    python bench/bench_review_agreement.py --evaluator search --reference-evaluator search --kinds gear
        --rounds 2-7 --every 1 --playouts 300 --first 100 --out search_ref.jsonl
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import os
import time
from typing import Any

from _common import ROOT, machine, table

from heatlog.analysis.executors import default_workers, local_executor
from heatlog.bots.search import EVALUATORS
from heatlog.review import THRESHOLDS, Settings, decision_points
from heatlog.review.evaluate import estimate_point, infoset_for, make_runner, mean_half, sides_for

#: A label as a band of the expected score lost: (name or None, from, to).
BANDS: tuple[tuple[str | None, float, float], ...] = tuple(
    (name, lo, hi)
    for name, lo, hi in zip(
        [None, *(n for n, _ in sorted(THRESHOLDS, key=lambda x: x[1]))],
        [-float("inf"), *sorted(t for _, t in THRESHOLDS)],
        [*sorted(t for _, t in THRESHOLDS), float("inf")],
        strict=True,
    )
)


def band(score: float) -> str | None:
    """The label a true loss of ``score`` expected score deserves."""
    return next(name for name, lo, hi in BANDS if lo <= score < hi)


def decided(loss: float, half: float) -> str | None | bool:
    """The label the reference decides (its 95 % interval ``loss ± half``, expected score, lies within one band),
    or False: the interval straddles a threshold, the reference cannot say which label is right."""
    lo, hi = band(loss - half), band(loss + half)
    return lo if lo == hi else False


def allowed(loss: float, half: float) -> list[str | None]:
    """The labels the reference's 95 % interval allows (two or more where it straddles a threshold)."""
    return [name for name, lo, hi in BANDS if loss - half < hi and loss + half >= lo]


def play_reference(
    point,
    info,
    cars: int,
    playouts: int,
    seed: int,
    run,
    first: int = 0,
    prune_z: float = 4.0,  # noqa: ANN001
) -> dict[str, Any]:
    """Every option's places from the reference: ``playouts`` of every option that can be the best (``first``
    > 0: every option gets ``first``; one other than the taken one whose paired difference from the best's is
    above 0 at ``prune_z`` is out — not the best, so no verdict rests on it — and the others are played on to
    ``playouts`` with new worlds common to them)."""
    from heatlog.engine.game import decision_key

    span = max(1, cars - 1)
    sides = sides_for(point, info)
    taken = next(i for i, o in enumerate(point.options) if decision_key(o) == decision_key(point.taken))

    def split(got: list[list[object]]) -> list[list[int]]:
        return [[x[0] if isinstance(x, tuple) else x for x in row] for row in got]  # type: ignore[misc]

    out: list[int] = []
    if first <= 0 or first >= playouts:
        places = split(run(playouts, seed, sides))
        spent = playouts * len(sides)
    else:
        places = split(run(first, seed, sides))
        lead = min(range(len(places)), key=lambda i: (sum(places[i]), i != taken, i))
        keep = [taken, lead]
        for i in range(len(places)):
            if i in keep:
                continue
            m, h = mean_half([a - b for a, b in zip(places[i], places[lead], strict=True)], -span, span)
            if not m - h * prune_z / 1.96 > 0:
                keep.append(i)
        keep = sorted(set(keep))
        out = [i for i in range(len(places)) if i not in keep]
        more = split(run(playouts - first, seed + 1_000_003, [sides[i] for i in keep]))
        for i, row in zip(keep, more, strict=True):
            places[i] = places[i] + row
        spent = first * len(sides) + (playouts - first) * len(keep)
    return {"taken": taken, "places": places, "out": out, "spent": spent}


def judge(ref: dict[str, Any], cars: int) -> tuple[int, float, float, str | None]:
    """(best option, loss in expected score, its 95 % half-width, label by the review's rule) of a reference."""
    span = max(1, cars - 1)
    taken, places, out = ref["taken"], ref["places"], set(ref["out"])
    means = [sum(p) / len(p) if i not in out else float(cars) for i, p in enumerate(places)]
    best = min(range(len(means)), key=lambda i: (means[i], -places[i].count(1), i != taken, i))
    if best == taken:
        return best, 0.0, 0.0, None
    loss, half = mean_half([a - b for a, b in zip(places[taken], places[best], strict=True)], -span, span)
    lab = None
    if loss - half > 0:
        lab = next((name for name, t in THRESHOLDS if loss / span >= t), None)
    return best, loss / span, half / span, lab


def _open(name: str) -> Any:
    """A file --out wrote, plain or gzipped (``.gz``)."""
    return gzip.open(name, "rt", encoding="utf-8") if name.endswith(".gz") else open(name, encoding="utf-8")  # noqa: SIM115


def _verdict(rv: Any, evaluator: str, wall: float, cars: int) -> dict[str, Any]:
    """A review's verdict as --out writes it (its loss in expected score)."""
    return {
        "label": rv.label,
        "loss": rv.score_loss,
        "half": rv.loss_half / max(1, cars - 1),
        "best": rv.best.words,
        "settled": rv.settled,
        "playouts": rv.playouts,
        "evaluator": evaluator,
        "wall": round(wall, 2),
    }


def _rounds(text: str) -> set[int]:
    """``3-6`` or ``2,5,7`` (or both, ``2,4-6``) as a set of rounds."""
    out: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def spread(n: int) -> list[int]:
    """0..n-1 in bit-reversed order: every prefix is spread over the range."""
    bits = max(1, (n - 1).bit_length())
    order = sorted(range(1 << bits), key=lambda i: int(f"{i:0{bits}b}"[::-1], 2))
    return [i for i in order if i < n]


class Tally:
    """The figures of a comparison: agreement where the reference decides, the undecided, the false alarms."""

    def __init__(self) -> None:
        self.rows: list[list[str]] = []
        self.agree = self.decided = self.undecided = self.within = self.false_alarms = self.spent = 0
        self.same = 0  # the review's label equal to the reference's own (the earlier measurements' count)
        self.labelled: dict[str | None, int] = {}  # the decided points by the reference's label

    def add(self, row: dict[str, Any], cars: int) -> list[str]:
        """Judge one point (a line --out writes) and count it; the table's row."""
        ref, rv = row["reference"], row["review"]
        self.spent += ref["spent"]
        best, loss, half, lab = judge(ref, cars)
        truth = decided(loss, half)
        taken_best = best == ref["taken"]
        alarm = rv["label"] is not None and taken_best
        self.false_alarms += alarm
        self.same += rv["label"] == lab
        if truth is False:
            self.undecided += 1
            ok = rv["label"] in allowed(loss, half)
            self.within += ok
            verdict = "undecided" + ("" if ok else " (review outside the interval)")
        else:
            self.decided += 1
            self.labelled[truth] = self.labelled.get(truth, 0) + 1
            self.agree += rv["label"] == truth
            verdict = "yes" if rv["label"] == truth else "NO"
        if alarm:
            verdict += " (false alarm on a best move)"
        out = [
            f"#{row['index']} round {row['round']} {row['kind']}",
            str(row["options"]),
            row["taken"],
            f"{rv['label'] or '-'} ({rv['loss']:.3f} ± {rv['half']:.3f}{'' if rv['settled'] else ', cap'})",
            f"{lab or '-'} ({loss:.3f} ± {half:.3f}; best {'taken' if taken_best else 'another'})",
            verdict,
        ]
        self.rows.append(out)
        return out

    def report(self, title: str) -> None:
        n = len(self.rows)
        table(
            title,
            ["decision", "options", "taken", "review (score lost ± 95 %)", "reference (score lost ± 95 %)", "agree"],
            self.rows,
        )
        if self.decided:
            print(
                f"\nlabels agreeing where the reference decides: {self.agree} of {self.decided} "
                f"({self.agree / self.decided:.0%}; goal ≥ 95 %); the decided labels: "
                + ", ".join(f"{k or 'none'} {v}" for k, v in sorted(self.labelled.items(), key=lambda x: str(x[0])))
            )
        print(
            f"undecided by the reference (its 95 % interval straddles a threshold): {self.undecided} of {n}; "
            f"the review's label one of those it allows: {self.within} of {self.undecided}"
        )
        print(f"false alarms on a best move (labelled, the reference's best): {self.false_alarms}")
        if n:
            print(
                f"every point counted, the review's label against the reference's own (the earlier measurements' "
                f"count): {self.same} of {n} ({self.same / n:.0%})"
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--car", default="Red")
    ap.add_argument("--points", type=int, default=12, help="decision points compared (default 12)")
    ap.add_argument("--every", type=int, default=6, help="take every k-th decision point (default 6)")
    ap.add_argument("--offset", type=int, default=0, help="the first decision point taken (default 0)")
    ap.add_argument("--spread", action="store_true", help="visit the points so that every prefix is spread")
    ap.add_argument("--indices", default=None, help="these decision points (comma-separated), in this order")
    ap.add_argument("--playouts", type=int, default=1000, help="reference playouts per option (default 1000)")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--first",
        type=int,
        default=0,
        help="reference playouts of every option before those clearly out (--prune-z) stop (default 0: none stop)",
    )
    ap.add_argument("--prune-z", type=float, default=4.0)
    ap.add_argument("--out", default=None, help="write each point's reference and verdicts here (JSON lines)")
    ap.add_argument("--reference", default=None, help="read the reference from a file --out wrote")
    ap.add_argument("--judge", nargs="+", default=None, help="only judge again what --out files hold (no playout)")
    ap.add_argument("--evaluator", choices=EVALUATORS, default="bots", help="the review's evaluator (default bots)")
    ap.add_argument(
        "--reference-evaluator",
        choices=EVALUATORS,
        default="bots",
        help="who plays the reference on (default bots: the heuristic; search: the search evaluator's own truth)",
    )
    ap.add_argument(
        "--also",
        choices=EVALUATORS,
        default=None,
        help="review every point with this evaluator too, alternating, judged apart (same-run wall and playouts)",
    )
    ap.add_argument("--search-rounds", type=int, default=1, help="the search evaluator's rounds (default 1)")
    ap.add_argument("--kinds", default=None, help="only decision points of these kinds (comma-separated: gear,cards)")
    ap.add_argument("--rounds", default=None, help="only decision points of these rounds (e.g. 3-6 or 2,5)")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a review setting other than its default (heatlog.review.Settings), e.g. --set max_playouts=256",
    )
    args = ap.parse_args()
    events = [json.loads(line) for line in (ROOT / "replays" / "usa-4cars.jsonl").read_text().splitlines()]
    cars = len({e["name"] for e in events[0]["cars"]})
    if args.judge:
        tally = Tally()
        got: dict[int, dict[str, Any]] = {}
        for name in args.judge:
            with _open(name) as f:
                for line in f:
                    row = json.loads(line)
                    got[row["index"]] = row
        if args.reference:  # the reviews of --judge's files against another file's reference (points in both)
            with _open(args.reference) as f:
                other = {row["index"]: row["reference"] for row in map(json.loads, f)}
            got = {i: {**row, "reference": other[i]} for i, row in got.items() if i in other}
        tally_also = Tally()
        for index in sorted(got):
            tally.add(got[index], cars)
            if "also" in got[index]:
                tally_also.add({**got[index], "review": got[index]["also"]}, cars)
        said = sorted({r["review"].get("evaluator", "bots") for r in got.values()})
        made = sorted({r["reference"].get("evaluator", "bots") for r in got.values()})
        tally.report(
            f"review labels (default settings, evaluator {'/'.join(said)}) against the saved reference "
            f"(evaluator {'/'.join(made)}): {args.car}, usa-4cars, {len(got)} decision points, "
            f"{tally.spent:,} reference playouts"
        )
        if tally_also.rows:
            also = sorted({r["also"]["evaluator"] for r in got.values() if "also" in r})
            tally_also.report(f"the same points reviewed with evaluator {'/'.join(also)} (--also)")
        return
    every = decision_points(events, args.car)
    kinds = set(args.kinds.split(",")) if args.kinds else None
    try:
        rounds = _rounds(args.rounds) if args.rounds else None
    except ValueError:
        ap.error(f"--rounds {args.rounds!r}: rounds as 3-6 or 2,5,7")
    eligible = [
        i for i, p in enumerate(every) if (kinds is None or p.kind in kinds) and (rounds is None or p.round in rounds)
    ]
    known: dict[int, dict[str, Any]] = {}
    if args.reference:
        with _open(args.reference) as f:
            for line in f:
                row = json.loads(line)
                made = row["reference"].get("evaluator", "bots")
                if made != args.reference_evaluator:
                    ap.error(
                        f"--reference {args.reference}: point {row['index']}'s reference was played by the {made} "
                        f"evaluator, not {args.reference_evaluator} (say --reference-evaluator {made})"
                    )
                known[row["index"]] = row["reference"]
        wanted = set(eligible)
        chosen = [i for i in sorted(known) if i in wanted][args.offset :: args.every][: args.points]
    else:
        chosen = eligible[args.offset :: args.every][: args.points]
    if args.spread:
        chosen = [chosen[i] for i in spread(len(chosen))]
    if args.indices:
        chosen = [int(x) for x in args.indices.split(",") if 0 <= int(x) < len(every)]
    workers = args.workers or default_workers()
    fields = {f.name: f.type for f in dataclasses.fields(Settings)}
    changed: dict[str, Any] = {}
    for item in args.set:
        name, _, value = item.partition("=")
        if name not in fields or name in ("seed", "bots"):
            ap.error(f"--set {item}: not a numeric review setting ({', '.join(sorted(fields))})")
        changed[name] = float(value) if "float" in str(fields[name]) else int(value)
    if not 1 <= args.search_rounds <= 20:
        ap.error(f"--search-rounds {args.search_rounds}: 1 to 20")
    settings = Settings(seed=args.seed, evaluator=args.evaluator, search_rounds=args.search_rounds, **changed)
    also_settings = dataclasses.replace(settings, evaluator=args.also) if args.also else None
    tally, tally_also = Tally(), Tally()
    spent_review = spent_also = 0
    review_wall = also_wall = 0.0
    load = os.getloadavg()[0]
    started = time.perf_counter()
    sink = open(args.out, "a", encoding="utf-8") if args.out else None  # noqa: SIM115
    with local_executor(workers) as ex:
        run = make_runner(
            ex, args.car, settings.bots, workers, evaluator=args.evaluator, search_rounds=args.search_rounds
        )
        run_ref = (
            run
            if args.reference_evaluator == args.evaluator
            else make_runner(
                ex,
                args.car,
                settings.bots,
                workers,
                evaluator=args.reference_evaluator,
                search_rounds=args.search_rounds,
            )
        )
        run_also = (
            make_runner(ex, args.car, settings.bots, workers, evaluator=args.also, search_rounds=args.search_rounds)
            if args.also
            else None
        )
        for k, index in enumerate(chosen):
            p = every[index]
            info = infoset_for(p.known(events), p.car)
            other_review: dict[str, Any] | None = None
            for turn in (0, 1) if k % 2 == 0 else (1, 0):  # --also: the two evaluators alternate which goes first
                t_point = time.perf_counter()
                if turn == 1:
                    if also_settings is None or run_also is None:
                        continue
                    ra = estimate_point(p, info, cars, also_settings, run_also)
                    t_also = time.perf_counter() - t_point
                    spent_also += ra.playouts
                    also_wall += t_also
                    other_review = _verdict(ra, args.also, t_also, cars)
                else:
                    rv = estimate_point(p, info, cars, settings, run)
                    spent_review += rv.playouts
                    t_review = time.perf_counter() - t_point
            ref = known.get(index) or {
                **play_reference(
                    p, info, cars, args.playouts, 10_000 + index, run_ref, first=args.first, prune_z=args.prune_z
                ),
                "evaluator": args.reference_evaluator,
            }
            best, loss, half, lab = judge(ref, cars)
            row = {
                "index": index,
                "round": p.round,
                "kind": p.kind,
                "options": len(p.options),
                "taken": rv.taken.words,
                "seed": args.seed,
                "review": _verdict(rv, args.evaluator, t_review, cars),
                "verdict": {"best": best, "loss": loss, "half": half, "label": lab},
                "reference": ref,
            }
            if other_review is not None:
                row["also"] = other_review
            review_wall += t_review
            print(f"  {k + 1}/{len(chosen)} {tally.add(row, cars)} (review {t_review:.1f} s)", flush=True)
            if other_review is not None:
                print(
                    f"      {args.also}: {tally_also.add({**row, 'review': other_review}, cars)} "
                    f"(review {other_review['wall']:.1f} s)",
                    flush=True,
                )
            if sink is not None:
                sink.write(json.dumps(row) + "\n")
                sink.flush()
    wall = time.perf_counter() - started
    print(f"{machine()}; load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; {wall:.0f} s")
    tally.report(
        f"review labels (default settings, evaluator {args.evaluator}) against "
        + (f"the reference in {args.reference}" if args.reference else f"{args.playouts:,} playouts per option")
        + f" (evaluator {args.reference_evaluator}): {args.car}, usa-4cars, {len(chosen)} decision points, "
        f"{tally.spent:,} reference playouts"
        + (f"; search rounds {args.search_rounds}" if "search" in (args.evaluator, args.reference_evaluator) else "")
        + (f"; settings changed: {changed}" if changed else "")
    )
    rate = f", {spent_review / review_wall:.1f} playouts/s" if review_wall > 0 else ""
    print(
        f"the review's playouts: {spent_review:,}; its wall time {review_wall:.0f} s{rate}, "
        f"{review_wall / max(1, len(chosen)):.1f} s a decision"
    )
    if args.also:
        tally_also.report(f"the same points reviewed with evaluator {args.also}, alternating with the first")
        print(
            f"evaluator {args.also}'s playouts: {spent_also:,}; its wall time {also_wall:.0f} s"
            + (f", {spent_also / also_wall:.1f} playouts/s" if also_wall > 0 else "")
            + f", {also_wall / max(1, len(chosen)):.1f} s a decision"
        )
        if also_wall > 0 and spent_also:
            print(
                f"same run, {args.evaluator} / {args.also}: wall {review_wall / also_wall:.2f}×, playouts "
                f"{spent_review / spent_also:.2f}×, wall per playout "
                f"{(review_wall / max(1, spent_review)) / (also_wall / spent_also):.2f}×"
            )


if __name__ == "__main__":
    main()
