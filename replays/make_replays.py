"""Regenerate the sample races in this folder and their README: ``python replays/make_replays.py``.

The races, seeds and bots are defined in :mod:`heatlog.docsgen.samples`; a test checks that these files are what
it makes, that each imports cleanly and that it re-exports byte for byte.
"""

from __future__ import annotations

from pathlib import Path

from heatlog.docsgen.samples import write_samples


def main() -> None:
    for path in write_samples(Path(__file__).resolve().parent):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
