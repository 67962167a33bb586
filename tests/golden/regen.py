"""Regenerate the replay goldens: ``python tests/golden/regen.py`` (add ``--race`` to re-simulate the race log).

Review the diff before committing it: a golden changes only when the replay output (or a rule) changed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import replay_cases  # noqa: E402


def main() -> None:
    if "--race" in sys.argv or not replay_cases.RACE_LOG.exists():
        events = replay_cases.simulate()
        replay_cases.RACE_LOG.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
        print(f"wrote {replay_cases.RACE_LOG} ({len(events)} events)")
    for name, text in replay_cases.goldens(replay_cases.race_events()).items():
        path = replay_cases.GOLDEN / name
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path} ({text.count(chr(10))} lines)")


if __name__ == "__main__":
    main()
