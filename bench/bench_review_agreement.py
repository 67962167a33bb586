"""Do the review's labels at default settings agree with a 1,000-playouts-per-option reference? (issue 28)

For a set of Red's decision points of ``replays/usa-4cars.jsonl`` (every ``--every``-th one, at most
``--points``), the review's verdict at default settings (``heatlog.review.Settings``: screening, pruning,
racing) is compared with a reference that plays **every** legal option ``--playouts`` times (default 1,000)
from the same information set with common random numbers, and judges it with the same rule: best = lowest
expected place (the decision taken wins ties), loss = the paired difference taken − best, a label when the
loss is significant (95 %) and reaches a threshold (``heatlog.review.THRESHOLDS``, on the expected score).

With ``--first K`` the reference is cheaper and gives the same verdict: every option gets K playouts, an option
other than the one taken that is clearly worse than the best at ``--prune-z`` (default 4, one chance in 30,000 for
two options of the same value) stops there, as it cannot be the reference's best, and the verdict rests on the
taken option and the best only; the rest (always the taken one and the best) are played to ``--playouts``.

Reported: the share of labels that agree (goal ≥ 95 %), the false alarms on a best move (the review labels a
decision the reference finds best: goal none), and each disagreement.

    python bench/bench_review_agreement.py [--points 12] [--every 6] [--offset 0] [--playouts 1000]
        [--first 200] [--prune-z 4] [--workers N]
"""

from __future__ import annotations

import argparse
import json
import os
import time

from _common import ROOT, machine, table

from heatlog.analysis.executors import default_workers, local_executor
from heatlog.review import THRESHOLDS, Settings, decision_points
from heatlog.review.evaluate import estimate_point, infoset_for, make_runner, mean_half, sides_for


def reference(
    point, info, cars: int, playouts: int, seed: int, run, first: int = 0, prune_z: float = 4.0  # noqa: ANN001
) -> tuple[int, float, float, str | None, int]:
    """(best option, loss in places, its 95 % half-width, label, playouts spent) from ``playouts`` playouts of
    every option that can be the best.

    ``first`` > 0: every option gets ``first`` playouts; an option other than the one taken whose paired
    difference from the best's is above 0 at ``prune_z`` (4: one chance in 30,000 for two options of the same
    value) is out — it is not the best, and the reference's verdict rests on the taken one and the best only
    — and the others are played on to ``playouts`` with new worlds common to them. 0: all options to
    ``playouts``."""
    from heatlog.engine.game import decision_key

    span = max(1, cars - 1)
    sides = sides_for(point, info)
    taken = next(i for i, o in enumerate(point.options) if decision_key(o) == decision_key(point.taken))

    def split(got: list[list[object]]) -> list[list[int]]:
        return [[x[0] if isinstance(x, tuple) else x for x in row] for row in got]  # type: ignore[misc]

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
        more = split(run(playouts - first, seed + 1_000_003, [sides[i] for i in keep]))
        for i, row in zip(keep, more, strict=True):
            places[i] = places[i] + row
        places = [row if i in keep else [cars] * playouts for i, row in enumerate(places)]  # out: never the best
        spent = first * len(sides) + (playouts - first) * len(keep)
    means = [sum(p) / len(p) for p in places]
    best = min(range(len(means)), key=lambda i: (means[i], -places[i].count(1), i != taken, i))
    if best == taken:
        return best, 0.0, 0.0, None, spent
    loss, half = mean_half([a - b for a, b in zip(places[taken], places[best], strict=True)], -span, span)
    lab = None
    if loss - half > 0:
        lab = next((name for name, t in THRESHOLDS if loss / span >= t), None)
    return best, loss, half, lab, spent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--car", default="Red")
    ap.add_argument("--points", type=int, default=12, help="decision points compared (default 12)")
    ap.add_argument("--every", type=int, default=6, help="take every k-th decision point (default 6)")
    ap.add_argument("--offset", type=int, default=0, help="the first decision point taken (default 0)")
    ap.add_argument("--playouts", type=int, default=1000, help="reference playouts per option (default 1000)")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--first", type=int, default=0,
        help="reference playouts of every option before those clearly out (--prune-z) stop (default 0: none stop)",
    )
    ap.add_argument("--prune-z", type=float, default=4.0)
    args = ap.parse_args()
    events = [json.loads(line) for line in (ROOT / "replays" / "usa-4cars.jsonl").read_text().splitlines()]
    points = decision_points(events, args.car)[args.offset :: args.every][: args.points]
    cars = len({e["name"] for e in events[0]["cars"]})
    span = max(1, cars - 1)
    workers = args.workers or default_workers()
    settings = Settings(seed=args.seed)
    rows: list[list[str]] = []
    agree = false_alarms = spent = 0
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with local_executor(workers) as ex:
        run = make_runner(ex, args.car, settings.bots, workers)
        for k, p in enumerate(points):
            info = infoset_for(p.known(events), p.car)
            rv = estimate_point(p, info, cars, settings, run)
            best, loss, half, lab, used = reference(
                p, info, cars, args.playouts, 10_000 + k, run, first=args.first, prune_z=args.prune_z
            )
            spent += used
            taken_best = p.options[best] == p.taken
            same = rv.label == lab
            agree += same
            alarm = rv.label is not None and taken_best
            false_alarms += alarm
            rows.append([
                f"round {p.round} {p.kind}", str(len(p.options)), rv.taken.words,
                f"{rv.label or '-'} ({rv.score_loss:.3f})",
                f"{lab or '-'} ({loss / span:.3f} ± {half / span:.3f})",
                "yes" if same else "NO" + (" (false alarm on a best move)" if alarm else ""),
            ])
            print(f"  {k + 1}/{len(points)} {rows[-1]}", flush=True)
    wall = time.perf_counter() - started
    n = len(points)
    print(f"{machine()}; load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; {wall:.0f} s")
    table(
        f"review labels (default settings) against {args.playouts:,} playouts per option: {args.car}, usa-4cars, "
        f"{n} decision points (every {args.every}th), {spent:,} reference playouts",
        ["decision", "options", "taken", "review (score lost)", "reference (score lost ± 95 %)", "agree"],
        rows,
    )
    print(f"\nlabels agreeing: {agree} of {n} ({agree / n:.0%}; goal ≥ 95 %)")
    print(f"false alarms on a best move (labelled, the reference's best): {false_alarms}")


if __name__ == "__main__":
    main()
