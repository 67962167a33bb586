"""Luck and skill that add up (issue 28, item 5): on whole races, for every car, Σ luck + Σ skill + Σ the
others' decisions = actual score − expected score at the start, exactly; net luck is own minus the field's."""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import pytest

from heatlog.analysis.luck import luck_report, segments
from heatlog.engine import MalformedInput
from heatlog.simulate import simulate_race

Event = dict[str, Any]


@cache
def race(cars: int) -> list[Event]:
    bots = ["random", "heuristic", "heuristic", "random", "heuristic", "heuristic"][:cars]
    return simulate_race(None, track="usa", cars=cars, seed=3, laps=1, bots=bots)[1]


@cache
def report_of(cars: int) -> Any:
    return luck_report(race(cars), n=4 if cars == 2 else 2, seed=1)


@pytest.mark.parametrize("cars", [2, 4])
def test_luck_skill_and_the_others_add_up_to_the_result_on_a_whole_race(cars: int) -> None:
    report = report_of(cars)
    for c in report.cars:
        assert math.isclose(c.luck + c.skill + c.others, c.actual - c.start, abs_tol=1e-9), c
    # every segment's change is one of the three, and the last point is the result
    assert report.segments[-1].after == {c.car: c.actual for c in report.cars}
    assert math.isclose(math.fsum(report.net_luck(c.car) for c in report.cars), 0.0, abs_tol=1e-9)
    if cars == 2:  # the two scores add up to 1: one car's luck is the other's bad luck
        a, b = report.cars
        assert math.isclose(a.luck, -b.luck, abs_tol=1e-9)
        assert math.isclose(report.net_luck(a.car), 2 * a.luck, abs_tol=1e-9)


def test_a_heuristic_car_s_decisions_are_the_bots_own_and_cost_nothing() -> None:
    """Its decisions are what the playouts' bot decides there: with common random numbers the value before and
    after each is the same playouts, so its skill is exactly 0; the random car's is not."""
    report = report_of(2)
    by = {c.car: c for c in report.cars}
    heuristic = next(n for n in by if n != "Red")
    assert by[heuristic].skill == 0.0
    assert by["Red"].skill != 0.0  # Red drives randomly


def test_segments_split_chance_from_each_car_s_decisions() -> None:
    first, segs = segments(race(2))
    assert segs[0].start == first
    for a, b in zip(segs, segs[1:], strict=False):
        assert a.end == b.start and (a.kind, a.car) != (b.kind, b.car)
    assert {s.kind for s in segs} == {"luck", "decision"}
    assert all(s.car is None for s in segs if s.kind == "luck")


def test_an_unfinished_race_is_refused() -> None:
    with pytest.raises(MalformedInput, match="not over"):
        segments(race(2)[:60])


def test_cli_luck_json_adds_up(tmp_path: Any) -> None:
    import json

    from tests.test_cli import run

    db = tmp_path / "l.db"
    assert run("simulate", "--cars", "2", "--laps", "1", "--seed", "3", "--workers", "1", db=db).returncode == 0
    r = run("luck", "--race", "1", "--playouts", "2", "--seed", "1", "--workers", "1", "--json", db=db)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    for c in data["cars"]:
        parts = c["expected_at_start"] + c["luck"] + c["skill"] + c["others"]
        assert math.isclose(parts, c["actual"], abs_tol=1e-5), c
    text = run("luck", "--race", "1", "--playouts", "2", "--seed", "1", "--workers", "1", db=db)
    assert text.returncode == 0 and "net luck" in text.stdout
    bad = run("luck", "--race", "1", "--playouts", "0", db=db)
    assert bad.returncode != 0 and "--playouts 0" in bad.stderr
