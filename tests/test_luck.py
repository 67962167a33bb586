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
    # the starting grid's draw is before the first point a play-out starts from: said, not silently left out
    assert [x["type"] for x in data["not_valued"]] == ["grid_set"] and data["not_valued"][0]["reason"]
    assert "not valued: 1 grid set (base)" in " ".join(text.stdout.split())
    bad = run("luck", "--race", "1", "--playouts", "0", db=db)
    assert bad.returncode != 0 and "--playouts 0" in bad.stderr


#: How a simulated race takes each first-wave module (the registry's others carry an example block, # their data
#: file; the championship comes from a season): a new module lands here by its descriptor alone.
FIRST_WAVE: dict[str, dict[str, Any]] = {
    "garage": {"upgrades": "all", "draft": "snake"},  # the upgrades a race scraps (# 18.12) among them
    "legends": {"cars": 1},
    "weather": {},
}
SEASON_ONLY = {"championship"}


def _module_names() -> list[str]:
    from heatlog.engine import rules as _registered  # noqa: F401  (importing the rules registers every module)
    from heatlog.engine.module import MODULES

    return sorted(MODULES)


@cache
def module_race(name: str) -> tuple[Event, ...]:
    import tempfile
    from pathlib import Path

    from heatlog.engine.module import MODULES

    if name in SEASON_ONLY:  # a season's first race, the Garage with it (# 21.2, 21.4)
        from heatlog.log.racelog import RaceLog
        from heatlog.season import season_view, simulate_season

        with tempfile.TemporaryDirectory() as tmp, RaceLog(Path(tmp) / "s.db") as log:
            season = simulate_season(log, races=[("usa", 7)], cars=2, seed=3, modules={"garage": {"upgrades": "basic"}})
            rid = season_view(log, season).races[0].race
            assert rid is not None
            return tuple(e.event for e in log.effective(rid).entries)
    if name in FIRST_WAVE:
        options = {name: FIRST_WAVE[name]}
    else:
        from heatlog.formats.module_data import module_blocks

        assert MODULES[name].example is not None, f"{name}: say here how a race plays it"
        options = module_blocks([name])
    return tuple(simulate_race(None, track="usa", cars=2, seed=3, laps=1, modules=options)[1])


@pytest.mark.parametrize("module", _module_names())
def test_the_identity_holds_on_every_module_s_race_and_its_chance_is_its_own_luck(module: str) -> None:
    """Every module of the registry (issue 28, item 5: "a Legend card, weather and event draws"): on a race that
    plays it, Σ luck + Σ skill + Σ others = actual − start for every car, exactly; each chance event of the module
    that happens is valued in a segment of its own source (the module's luck told apart from the draws', and
    summing with it to the car's luck), or listed as not valued with the reason (the Garage draft's markets: a
    play-out cannot start from the draft, # 18.5)."""
    from heatlog.engine.events import REGISTRY

    events = list(module_race(module))
    assert module in events[0].get("modules", []), events[0].get("modules")
    report = luck_report(events, n=2, seed=1)
    for c in report.cars:
        assert math.isclose(c.luck + c.skill + c.others, c.actual - c.start, abs_tol=1e-9), c
        assert math.isclose(math.fsum(c.luck_by.values()), c.luck, abs_tol=1e-9), c
        assert set(c.luck_by) == set(report.sources)
    assert report.segments[-1].after == {c.car: c.actual for c in report.cars}
    chance = {
        str(e["type"]) for e in events if REGISTRY[str(e["type"])].chance and REGISTRY[str(e["type"])].module == module
    }
    valued = {t for s in report.segments if s.source == module for t in s.types}
    unvalued = {x.type: x for x in report.not_valued if x.source == module}
    assert chance, f"no chance event of {module} in its race"
    for t in chance:
        assert t in valued or (t in unvalued and unvalued[t].reason), (t, valued, unvalued)
    for s in report.segments:  # a chance segment holds one source's events only
        if s.kind == "luck":
            assert {(REGISTRY[t].module or "base") for t in s.types} == {s.source}, s
    data = report.to_dict()
    assert {c["car"] for c in data["cars"] if set(c["luck_by_source"]) == set(report.sources)} == set(
        c.car for c in report.cars
    )
