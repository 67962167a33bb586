"""How `heatlog audit` answers a flipped byte (issue 30): N seeded byte flips anywhere in a database holding two
sample races; for each, `heatlog audit --all --json` must give a report (exit 1, JSON), and the report should
locate the damage (a race and an event, or the object of the file: a page's table or index, a schema object,
an identity row of meta, a guard). Prints the counts, and a few examples of each outcome.

    python bench/audit_flips.py [N=200] [SEED=30]
"""

from __future__ import annotations

import collections
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
CMD = [sys.executable, "-m", "heatlog.cli"]


def located(report: dict[str, object], problem: dict[str, object]) -> bool:
    if report["race"] and problem["seq"] is not None:
        return True
    if problem["kind"] in ("sqlite_master", "meta", "label", "guard", "season"):
        return True
    message = str(problem["message"])
    return problem["kind"] == "integrity" and ("belongs to" in message or ", event " in message)


def main(n: int = 200, seed: int = 30) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.db"
        for name in ("usa-4cars", "italy-6cars"):
            subprocess.run(
                [*CMD, "import", str(REPLAYS / f"{name}.jsonl"), "--db", str(base)], check=True, capture_output=True
            )
        conn = sqlite3.connect(base)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        data = base.read_bytes()
        rng = random.Random(seed)
        counts: collections.Counter[str] = collections.Counter()
        examples: dict[str, list[str]] = collections.defaultdict(list)
        for i in range(n):
            offset, flip = rng.randrange(len(data)), rng.randrange(1, 256)
            damaged = bytearray(data)
            damaged[offset] ^= flip
            path = Path(tmp) / f"f{i}.db"
            path.write_bytes(damaged)
            r = subprocess.run(
                [*CMD, "audit", "--all", "--json", "--db", str(path)],
                capture_output=True,
                text=True,
                timeout=300,
                env={**os.environ, "LC_ALL": "C.UTF-8"},
            )
            if r.returncode == 0:
                kind, what = "clean", ""
            elif r.returncode == 1 and r.stdout.lstrip().startswith("["):
                reports = json.loads(r.stdout)
                found = [(rep, p) for rep in reports for p in rep["problems"]]
                kind = "located" if any(located(rep, p) for rep, p in found) else "reported, not located"
                shown = [f"{rep['race']}/{p['kind']}/{p['seq']}: {str(p['message'])[:90]}" for rep, p in found[:2]]
                what = "; ".join(shown)
            else:
                kind, what = f"exit {r.returncode}", (r.stderr or r.stdout).strip()[-200:]
            counts[kind] += 1
            examples[kind].append(f"offset {offset}: {what}")
            for leftover in Path(tmp).glob(f"f{i}.db*"):
                leftover.unlink()
    print(f"{n} byte flips (seed {seed}): " + ", ".join(f"{k}: {v}" for k, v in counts.most_common()))
    for kind, lines in examples.items():
        print(f"== {kind}")
        for line in lines[:5]:
            print("  ", line)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
