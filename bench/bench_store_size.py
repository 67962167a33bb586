"""The events table's size and speed in its two formats (issue 32, heatlog/store/eventrows.py; docs/store.md).

Size: the sample replays (``replays/*.jsonl``) and simulated races (random bots, open mode) imported into a file of
format 1 (as heatlog wrote before issue 32) and one of format 2, each checkpointed, against the JSON Lines their
races export (the goal: format 2 ≤ 2× the export; format 1 was 4.24×). Snapshots aside: none are made.

Speed, same run: the two files' import of the same races (``create_race``, one transaction each) and their full
read (``log_from``: read, hash-check and decode every event), format 2 and format 1 taking turns, in CPU time
(the shared machine's load moves wall time more than the work); each ratio is
format-2 time / format-1 time of one pair, reported as median (min–max, n).

    python bench/bench_store_size.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine, ratios, simulated_race, spread, table


def races() -> list[tuple[str, list[dict], list[str] | None]]:
    from heatlog.store import read_jsonl

    out = []
    for path in sorted((ROOT / "replays").glob("*.jsonl")):
        pairs, texts = read_jsonl(path.read_text())
        out.append((path.stem, [e for _, e in pairs], texts))
    for track, cars, laps in (("usa", 4, 2), ("italy", 6, 3)):
        out.append((f"{track}-{cars}-cars-{laps}-laps (simulated)", simulated_race(track, cars, laps), None))
    return out


def fill(path: Path, version: int, sample: list[tuple[str, list[dict], list[str] | None]]) -> tuple[float, int]:
    """Seconds to import every race, and the bytes of JSON Lines they export."""
    from heatlog.store import EventStore

    exported = 0
    with EventStore(path, new_format=version) as store:
        started = time.process_time()
        ids = [store.create_race(name, {}, events, texts=texts) for name, events, texts in sample]
        took = time.process_time() - started
        for rid in ids:
            exported += len(store.export_jsonl(rid).encode())
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return took, exported


def read_all(path: Path) -> float:
    from heatlog.store import EventStore

    with EventStore(path, create=False) as store:
        ids = [r.id for r in store.races()]
        started = time.process_time()
        for rid in ids:
            store.log_from(rid)
        return time.process_time() - started


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=7)
    args = p.parse_args()
    sample = races()
    n_events = sum(len(events) for _, events, _ in sample)
    imports: dict[int, list[float]] = {1: [], 2: []}
    reads: dict[int, list[float]] = {1: [], 2: []}
    sizes: dict[int, tuple[int, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            for version in (1, 2) if i % 2 else (2, 1):
                path = Path(tmp) / f"f{version}-{i}.db"
                took, exported = fill(path, version, sample)
                imports[version].append(took)
                sizes[version] = (path.stat().st_size, exported)
            for version in (1, 2) if i % 2 else (2, 1):
                reads[version].append(read_all(Path(tmp) / f"f{version}-{i}.db"))
    print(machine())
    print(f"{len(sample)} races, {n_events:,} events")
    rows = []
    for version in (1, 2):
        size, exported = sizes[version]
        rows.append(
            [
                f"format {version}",
                f"{size:,}",
                f"{size / n_events:.0f}",
                f"{exported / n_events:.0f}",
                f"{size / exported:.2f}×",
            ]
        )
    table(
        "Size (the file after a checkpoint; bytes)",
        ["file", "bytes", "per event", "export per event", "file / export"],
        rows,
    )
    table(
        "Speed, format 2 / format 1 per pair of the same run (below 1: format 2 faster)",
        ["work", "format 2 / format 1"],
        [
            ["import (create_race of every race)", spread(ratios(imports[2], imports[1]), "{:.2f}", "×")],
            ["full read (log_from of every race)", spread(ratios(reads[2], reads[1]), "{:.2f}", "×")],
        ],
    )


if __name__ == "__main__":
    main()
