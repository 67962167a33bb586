"""Shared helpers of the benchmarks: simulated races, timing, tables. Not a benchmark itself."""

from __future__ import annotations

import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/x.py` from a checkout works without installing
    sys.path.insert(0, str(ROOT))

Event = dict[str, Any]

COLOURS = ("red", "blue", "green", "yellow", "black", "white")
NAMES = ("Red", "Blue", "Green", "Yellow", "Black", "White")


def simulated_race(track: str, n_cars: int, laps: int | None = None, seed: int = 1) -> list[Event]:
    """The whole event log of an open-mode race played by random bots."""
    from heatlog.races import race_started_event
    from heatlog.simulate.world import race_events, random_bot

    cars = [{"name": NAMES[i], "colour": COLOURS[i]} for i in range(n_cars)]
    started = race_started_event(track=track, cars=cars, laps=laps, mode="open")
    return list(race_events(started, {c["name"]: random_bot for c in cars}, seed))


def timed(fn: Callable[[], Any]) -> float:
    """Seconds one call of ``fn`` takes."""
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def machine() -> str:
    import os

    return (
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, {platform.system()}"
    )


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    """Print a small plain-text table (also valid Markdown)."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    print(f"\n{title}\n")
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))


def spread(xs: list[float], fmt: str = "{:.2f}", unit: str = "") -> str:
    """A figure as the benchmarks report it: median, then min–max and the number of samples."""
    lo, mid, hi = min(xs), statistics.median(xs), max(xs)
    return f"{fmt.format(mid)}{unit} ({fmt.format(lo)}–{fmt.format(hi)}, n={len(xs)})"


def ratios(num: list[float], den: list[float]) -> list[float]:
    """Same-run ratios of paired samples (num[i] / den[i]), the pairs taken in turns."""
    return [a / b for a, b in zip(num, den, strict=True)]
