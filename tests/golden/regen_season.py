"""Regenerate the golden simulated 1961 season: ``python tests/golden/regen_season.py``.

Writes ``season_1961_seed7.txt`` (the standings after each race of a season played by 4 heuristic bots, seed 7)
and ``season_1963_seed7.txt`` (the same with two heuristic and two random bots: event 9's hand of 6 and fewer
Heat and Stress, event 10's eliminations, MA21).
Review the diff before committing it: it changes when a rule, the scoring or the bots change.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def main() -> None:
    from test_season import GOLDEN, GOLDEN_1963, MIXED, standings_text

    from heatlog.log.racelog import RaceLog
    from heatlog.season import simulate_season

    with tempfile.TemporaryDirectory() as tmp:
        log = RaceLog(Path(tmp) / "season.db")
        season = simulate_season(log, published="1961", cars=4, seed=7)
        GOLDEN.write_text(standings_text(log, season), encoding="utf-8")
        season = simulate_season(log, published="1963", cars=4, seed=7, bots=MIXED)
        GOLDEN_1963.write_text(standings_text(log, season), encoding="utf-8")
        log.close()
    print(f"wrote {GOLDEN} and {GOLDEN_1963}")


if __name__ == "__main__":
    main()
