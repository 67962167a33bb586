"""Issue 26, second round: what the commands that start races ask the module descriptors rather than a module by
name: the set-up draws given at the start (``Flag.gives``, ``Module.given_draws``), what ``simulate --season``
refuses and gives the season (``Flag.not_in_season``), a simulated race's module facts (``Module.summary``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heatlog.engine import MalformedInput
from heatlog.engine.modules.weather import weather_tile
from heatlog.formats.module_data import module_block


def test_set_up_draws_given_at_the_start_are_asked_of_the_descriptors(tmp_path: Path) -> None:
    """Issue 26: ``new``'s ``--tile``/``--road`` are the weather's flags (``Flag.gives``, ``Module.given_draws``),
    and ``start_race`` records any module's set-up draws given (``drawn``) before the decks, then the table-mode
    shuffles and draws when no module of the race has a set-up step left to ask (# 1.2, 18.4, 20.2, 20.3): the
    example module's sky given at the start as the weather's tile is, without a word of it outside its folder."""
    from heatlog.engine.module import flags_for
    from heatlog.formats.module_data import draws_from_flags
    from heatlog.log.racelog import RaceLog
    from heatlog.races import start_race

    _, flags = flags_for("new")
    gives = {f.decls[0]: f.gives for f in flags if f.gives is not None}
    assert gives == {"--tile": "weather_drawn", "--road": "road_conditions_drawn"}  # the weather folder's
    drawn = draws_from_flags("new", {"tile": " Rain", "road": "weather, OVERHEAT,limit+1,heat-control"})
    assert drawn == [  # # 20.2: by the names printed on them, in any case
        {"type": "weather_drawn", "v": 1, "tile": "rain"},
        {"type": "road_conditions_drawn", "v": 1, "tokens": ["weather", "overheat", "limit+1", "heat-control"]},
    ]
    with pytest.raises(MalformedInput, match="together"):
        draws_from_flags("new", {"tile": "rain"})
    two = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}]
    sky = sorted(module_block("rain")["skies"])[0]
    with RaceLog(tmp_path / "h.db") as log:
        for modules, given in (
            ({"weather": {}}, drawn),
            ({"rain": module_block("rain")}, [{"type": "rain_drawn", "v": 1, "sky": sky}]),
            ({"rain": module_block("rain")}, []),  # not given: the recorder asks the sky, then the decks
        ):
            race = start_race(log, track="usa", cars=two, grid=["Ann", "Bob"], modules=modules, drawn=given)
            kinds = [e.event["type"] for e in log.stored(race)]
            shuffles = ["deck_shuffled", "cards_drawn"] * 2 if given else []
            assert kinds == ["race_started", "grid_set", *(d["type"] for d in given), *shuffles], (modules, kinds)
        races = len(log.store.races())
        garage = {"garage": {"upgrades": "basic", "draft": "draft", "expansions": []}, "weather": {}}
        for modules, given, said in (
            # # 18.4: the Garage's draft before the weather's draws (# 20.2)
            (garage, drawn, "weather: set-up draws given, but the race's garage set-up comes before"),
            ({"legends": {"cars": []}}, drawn, "'weather_drawn' is not a set-up draw of a module in the race"),
            ({"weather": {}}, [{"type": "gear_shifted", "v": 1}], "not a set-up draw of a module in the race"),
        ):
            with pytest.raises(MalformedInput, match=said):
                start_race(log, track="usa", cars=two, modules=modules, drawn=given)
        assert len(log.store.races()) == races  # nothing written


def test_simulate_s_season_asks_the_descriptors_what_a_season_decides(tmp_path: Path) -> None:
    """Issue 26: ``simulate --season`` refuses what a season decides itself as the flag says
    (``Flag.not_in_season``: the Garage's ``--draft``, # 21.2) and gives the season each module's options as the
    ``season`` command's flags make them from the same values (the Garage's draft method gone, its draft order
    and swap at the season's defaults, MA11), with no module's name in cli/simulate.py."""
    from typer.testing import CliRunner

    from heatlog.cli import load
    from heatlog.cli.common import ModuleFlags
    from heatlog.engine.module import flags_for
    from heatlog.formats.module_data import options_from_flags
    from heatlog.log.racelog import RaceLog
    from heatlog.season import SEASON_STREAM

    units, flags = flags_for("simulate")
    assert {f.decls[0]: f.not_in_season for f in flags if f.not_in_season} == {
        "--draft": "a season drafts one upgrade before each race (# 21.2)"
    }
    values = {f.param: None for f in flags} | {"garage": "basic", "expansion": ["heavy-rain"], "legends": 1}
    typed = ModuleFlags("simulate", units, values)
    options = options_from_flags("simulate", values) | {"rain": module_block("rain")}
    assert options["garage"]["draft"] == "draft"
    season = typed.season_options(options)
    garage = {"upgrades": "basic", "expansions": ["heavy-rain"], "order": "lowest_first", "swap": True}
    assert season["garage"] == garage
    assert season["legends"] == options["legends"] and season["rain"] == options["rain"]  # (the season refuses rain)
    assert typed.typed_values()["legends"] == "--legends 1" and "draft" not in typed.typed_values()
    runner = CliRunner()
    argv = ["simulate", "--season", "1961", "--cars", "2", "--seed", "3", "--garage", "basic"]
    refused = runner.invoke(load("simulate"), [*argv, "--draft", "snake", "--db", str(tmp_path / "r.db")])
    assert refused.exit_code != 0 and "--draft: a season drafts one upgrade before each race" in refused.output
    made = runner.invoke(load("simulate"), [*argv, "--expansion", "heavy-rain", "--db", str(tmp_path / "s.db")])
    assert made.exit_code == 0, made.output
    with RaceLog(tmp_path / "s.db", create=False) as log:
        started = log.store.stream_events(SEASON_STREAM, 1)[0]
    assert started["type"] == "season_started" and started["options"]["garage"] == season["garage"]


def test_a_simulated_race_s_module_facts_are_the_descriptors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 26: ``simulate --json``'s module keys and the race table's title words come from the descriptors
    (``Module.summary``/``summary_words``: the weather's tile and tokens, # 20.2), in one process and from the
    workers alike: a module that declares other facts gets them there, with no edit in cli/ or simulate/."""
    import dataclasses

    from typer.testing import CliRunner

    from heatlog.cli import load
    from heatlog.engine.module import MODULES as UNITS_NOW

    runner = CliRunner()
    argv = ["simulate", "--weather", "--cars", "2", "--laps", "1", "--seed", "4", "--json"]
    plain = json.loads(runner.invoke(load("simulate"), [*argv, "--db", str(tmp_path / "a.db")]).output)
    assert {"weather", "road_conditions"} <= set(plain) and len(plain["road_conditions"]) == 4  # USA's corners
    weather = UNITS_NOW["weather"]
    monkeypatch.setitem(
        UNITS_NOW,
        "weather",
        dataclasses.replace(
            weather,
            summary=lambda state: {"sky": weather_tile(state)},
            summary_words=lambda race: f"sky {race['sky']}" if "sky" in race else None,
        ),
    )
    one = json.loads(runner.invoke(load("simulate"), [*argv, "--db", str(tmp_path / "b.db")]).output)
    assert one["sky"] == plain["weather"] and "weather" not in one and "road_conditions" not in one
    several = runner.invoke(load("simulate"), [*argv, "--races", "2", "--workers", "1", "--db", str(tmp_path / "c.db")])
    assert [r["sky"] for r in json.loads(several.output)][0] == plain["weather"]
    table = runner.invoke(load("simulate"), [*argv[:-1], "--db", str(tmp_path / "d.db")], terminal_width=200)
    assert f"; sky {plain['weather']}" in table.output and "roads" not in table.output
