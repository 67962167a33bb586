"""Answers a host types to record a season race question by question (issue 29: a season race <= 130; 272 when
the issue was filed). The terminal recorder's race questions are h29's (``bench/bench_table_answers.py`` measures
a base race); this one measures what a season adds: the upgrade draft (market, picks, the first picker's swap,
# 21.2, MA11) and every sponsorship card drawn (dealt at the start, # 21.4, and earned, # 21.7, 21.9, MA30).

The race -- race 1 of a one-race season on the USA (standard two laps) with event 1 (2 sponsorship cards each,
the first three across after lap 1 earn one, a press corner), 3 drivers, the Garage (basic upgrades), table
mode -- is simulated by heuristic bots from the season's own set-up, turned into the log a table records, and
recorded through the real program, ``heatlog record --race N`` in a pseudo-terminal (pexpect), every question
answered on its own with all it takes (as ``per question`` of bench_table_answers.py). Every line sent counts;
the stored log must be exactly the race. ``season next`` sets the race up (circuit, cars, grid): nothing typed.

    python bench/bench_season_answers.py [--seeds 1 2 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import ROOT, machine, table

sys.path.insert(0, str(ROOT / "tests"))

Event = dict[str, Any]
GOAL = 130
SEASON_KINDS = ("garage", "swap", "sponsor")


def season_race(db: Path, seed: int) -> tuple[list[Event], int]:
    """The season's race 1, started by ``season next`` (table mode), and the table-mode log it must end with."""
    from recorder_races import cars, explicit

    from heatlog.bots import get_bot
    from heatlog.engine.redact import open_to_table
    from heatlog.log.racelog import RaceLog
    from heatlog.season import new_season, next_race, race_setup, season_view, swap_choice
    from heatlog.simulate.world import race_events

    log = RaceLog(db)
    season = new_season(
        log, drivers=cars(3), races=[("usa", 1)], mode="table", modules={"garage": {"upgrades": "basic"}}
    )
    ev, grid = race_setup(season_view(log, season), 1, seed)
    heuristic = get_bot("heuristic")

    def drafting(state: Any, name: str, options: Any, rng: Any) -> Any:  # the season's swap as simulate_season
        if options and all(o.get("type") == "upgrade_swapped" for o in options):
            return swap_choice(state, options)
        return heuristic(state, name, options, rng)

    bot = explicit(drafting)
    played = list(race_events({**ev, "mode": "open"}, {c["name"]: bot for c in cars(3)}, seed, grid=grid))
    race = next_race(log, season, seed=seed)
    log.close()
    return open_to_table(played), race


def record(db: Path, expected: list[Event], race: int) -> dict[str, int]:
    """Record the race question by question; the answers by question kind (the final Enter as ``end``)."""
    from recorder_races import strip
    from test_recorder import Host

    from heatlog.log.racelog import RaceLog

    class PerQuestion(Host):
        def right_answer(self, multi: bool = True, *, offered: bool = False) -> str:
            return super().right_answer(multi=True, offered=True)  # every question with all its prompt offers

    h = PerQuestion(db, expected, "table")
    h.race = race
    h.start("--race", str(race))
    h.drive({})
    h.child.close()
    got = strip([e.event for e in RaceLog(db, create=False).effective(race).entries])
    assert got == strip(expected), "the recorded log is not the race"
    return {**h.seen, "end": 1}  # the race-over Enter


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    args = p.parse_args()
    from heatlog.engine import replay

    rows, last = [], {}
    for seed in args.seeds:
        with tempfile.TemporaryDirectory() as tmp:
            expected, race = season_race(Path(tmp) / "season.db", seed)
            kinds = record(Path(tmp) / "season.db", expected, race)
        total = sum(kinds.values())
        season = sum(kinds.get(k, 0) for k in SEASON_KINDS)
        rows.append(
            [
                str(seed),
                str(replay(expected).round),
                str(len(expected)),
                str(total),
                str(season),
                str(total - season),
                "yes" if total <= GOAL else "NO",
            ]
        )
        last = kinds
    print(machine())
    table(
        "Answers typed for a season race (USA, event 1, 3 drivers, Garage basic, table mode), question by question",
        ["seed", "rounds", "events", "answers", "season questions", "race questions", f"≤ {GOAL}"],
        rows,
    )
    table(
        f"Answers by question (seed {args.seeds[-1]})",
        ["question", "answers"],
        [[k, str(n)] for k, n in sorted(last.items())],
    )


if __name__ == "__main__":
    main()
