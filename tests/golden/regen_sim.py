"""Regenerate the simulator's golden playthrough: ``python tests/golden/regen_sim.py``.

For each golden race (``heatlog.docsgen.samples.GOLDENS``) writes ``<name>.jsonl`` (the race's log, from the simulator)
and ``<name>.txt`` (its state round by round, from the rules). Review the diff before committing it: the text
changes when a rule changes, the log when the simulator or the bots do.
"""

from __future__ import annotations

from pathlib import Path

from heatlog.docsgen.samples import GOLDENS, canonical_line, golden_events, playthrough

HERE = Path(__file__).resolve().parent


def main() -> None:
    for sample, table in GOLDENS:
        events = golden_events(sample, table)
        log = HERE / f"{sample.file}.jsonl"
        log.write_text("".join(canonical_line(e) for e in events), encoding="utf-8")
        text = HERE / f"{sample.file}.txt"
        text.write_text(playthrough(events), encoding="utf-8")
        print(f"wrote {log} ({len(events)} events) and {text}")


if __name__ == "__main__":
    main()
