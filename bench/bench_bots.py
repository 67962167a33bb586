"""How good is the heuristic bot? ``python bench/bench_bots.py [--races 1000]``

Prints, over seeded 4-car USA races (2 laps):

- one heuristic car against three random cars: the heuristic car's win rate (with a 95 % Wilson interval) and
  its mean finishing place (the issue asks for at least 80 % wins);
- the same with the weather module (a random tile and road conditions each race): the change in points;
- with the weather, one heuristic that reads the road conditions against three that ignore them;
- four heuristic cars: the mean race length in rounds (and four random cars, for comparison);
- the search bot (``heatlog.bots.SearchBot``, issue 28) head to head: one search car against three heuristic
  cars (fair share 25 %) and against three random cars, win rate with its 95 % interval and mean place, over
  ``--search-races`` races (default 200: a search car thinks about 50 times as long as a heuristic one);
  ``--search-field heuristic`` or ``random`` plays only that field. The load average at the start and end of
  each figure is printed beside its wall time (eight sessions may share the machine).

The heuristic car sits in a different seat each race (Red, Blue, Green, Yellow in turn); the grid is random
(# 1.4) anyway. Seeds are 0..N-1, so the figures are reproducible.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/bench_bots.py` from a checkout works without installing
    sys.path.insert(0, str(ROOT))

from heatlog.simulate import default_cars, simulate_race  # noqa: E402

NAMES = [c["name"] for c in default_cars(4)]


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def heuristic_vs_random(
    races: int, bot: str = "heuristic", field: str = "random", **modules: object
) -> dict[str, float]:
    """One ``bot`` car against three ``field`` cars, in a different seat each race."""
    wins = 0
    places: list[int] = []
    rounds: list[int] = []
    for seed in range(races):
        seat = seed % 4
        bots = [field] * 4
        bots[seat] = bot
        _, _, state = simulate_race(None, track="usa", cars=4, seed=seed, bots=bots, **modules)  # type: ignore[arg-type]
        place = state.hall_of_fame.index(NAMES[seat]) + 1
        wins += place == 1
        places.append(place)
        rounds.append(state.finish_rounds[NAMES[seat]])
    low, high = wilson(wins, races)
    return {
        "win_rate": wins / races,
        "low": low,
        "high": high,
        "mean_place": statistics.fmean(places),
        "heuristic_finish_round": statistics.fmean(rounds),
    }


def aware_vs_blind(races: int) -> dict[str, float]:
    """One heuristic that reads the weather against three that plan with printed limits (MODULES.md 20)."""
    from heatlog.bots import HeuristicBot

    wins = 0
    places: list[int] = []
    stuck = 0
    for seed in range(races):
        seat = seed % 4
        bots: list[object] = [HeuristicBot(reads_conditions=False) for _ in range(4)]
        bots[seat] = HeuristicBot()
        seen: list[object] = []
        try:
            simulate_race(
                None,
                track="usa",
                cars=4,
                seed=seed,
                bots=bots,
                modules={"weather": {}},  # type: ignore[arg-type]
                watch=lambda st, ev, seen=seen: seen.append(st) if not seen else None,
            )
        except RuntimeError:  # a blind car spun out forever on a limit-1 corner with an empty Engine
            stuck += 1
        state = seen[0]
        place = state.standings().index(NAMES[seat]) + 1  # type: ignore[attr-defined]
        wins += place == 1
        places.append(place)
    low, high = wilson(wins, races)
    return {
        "win_rate": wins / races,
        "low": low,
        "high": high,
        "mean_place": statistics.fmean(places),
        "stuck": stuck,
    }


def race_length(races: int, bot: str) -> tuple[float, int, int]:
    rounds = [simulate_race(None, track="usa", cars=4, seed=seed, bots=bot)[2].round for seed in range(races)]
    return statistics.fmean(rounds), min(rounds), max(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=1000, help="races per figure (default 1000)")
    parser.add_argument("--search-races", type=int, default=200, help="races per search-bot figure (default 200)")
    parser.add_argument("--only-search", action="store_true", help="only the search bot's figures")
    parser.add_argument(
        "--search-field",
        choices=("heuristic", "random", "both"),
        default="both",
        help="the search car's opponents (default both, one figure each)",
    )
    args = parser.parse_args()
    n = args.races
    t0 = time.perf_counter()
    m = args.search_races
    print("USA, 4 cars, 2 laps")
    for field, fair in (("heuristic", "fair share 25%"), ("random", "the heuristic's figure above")):
        if args.search_field not in (field, "both"):
            continue
        t1, load = time.perf_counter(), os.getloadavg()[0]
        sv = heuristic_vs_random(m, bot="search", field=field)
        print(
            f"  1 search vs 3 {field} ({m} races, seeds 0..{m - 1}): search wins {sv['win_rate']:.1%} "
            f"(95% CI {sv['low']:.1%}–{sv['high']:.1%}; {fair}); mean place {sv['mean_place']:.3f} "
            f"({time.perf_counter() - t1:.0f} s, load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} "
            "at the end)",
            flush=True,
        )
    if args.only_search:
        return
    hv = heuristic_vs_random(n)
    print(f"  {n} seeded races (seeds 0..{n - 1}) per figure below")
    print(
        f"  1 heuristic vs 3 random: heuristic wins {hv['win_rate']:.1%} "
        f"(95% CI {hv['low']:.1%}–{hv['high']:.1%}); mean place {hv['mean_place']:.3f}; "
        f"it finishes in round {hv['heuristic_finish_round']:.1f} on average"
    )
    hw = heuristic_vs_random(n, modules={"weather": {}})
    print(
        f"  with weather and road conditions (MODULES.md 20): heuristic wins {hw['win_rate']:.1%} "
        f"(95% CI {hw['low']:.1%}–{hw['high']:.1%}); mean place {hw['mean_place']:.3f}; "
        f"{(hw['win_rate'] - hv['win_rate']) * 100:+.1f} points against the base race (issue 15: > -5)"
    )
    aware = aware_vs_blind(n)
    print(
        f"  weather: 1 heuristic reading the road conditions vs 3 that ignore them: it wins {aware['win_rate']:.1%} "
        f"(95% CI {aware['low']:.1%}–{aware['high']:.1%}; 25% = no better); mean place {aware['mean_place']:.3f}; "
        f"{aware['stuck']} races stopped at 200 rounds with a blind car spinning forever (ranked as they stood)"
    )
    mean, low, high = race_length(n, "heuristic")
    print(f"  4 heuristic: mean race length {mean:.2f} rounds (shortest {low}, longest {high})")
    mean, low, high = race_length(min(n, 200), "random")
    print(f"  4 random (for comparison, {min(n, 200)} races): mean race length {mean:.2f} rounds ({low}–{high})")
    print(f"  ({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
