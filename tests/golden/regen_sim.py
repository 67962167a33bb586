"""Regenerate the simulator's golden playthrough: ``python tests/golden/regen_sim.py``.

Writes ``sim_usa_seed7.jsonl`` (the race's log, from the simulator) and ``sim_usa_seed7.txt`` (its state round
by round, from the rules). Review the diff before committing it: the text changes when a rule changes, the
log when the simulator or the bots do.
"""

from __future__ import annotations

from pathlib import Path

from heatlog.samples import GOLDEN, canonical_line, playthrough, sample_events

HERE = Path(__file__).resolve().parent


def main() -> None:
    events = sample_events(GOLDEN)
    log = HERE / f"{GOLDEN.file}.jsonl"
    log.write_text("".join(canonical_line(e) for e in events), encoding="utf-8")
    text = HERE / f"{GOLDEN.file}.txt"
    text.write_text(playthrough(events), encoding="utf-8")
    print(f"wrote {log} ({len(events)} events) and {text}")


if __name__ == "__main__":
    main()
