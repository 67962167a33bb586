"""The sample races in replays/: each imports cleanly, re-exports byte for byte, and is what make_replays makes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heatlog.docsgen.samples import SAMPLES, TABLE, canonical_line, highlights, readme, sample_logs
from heatlog.engine import replay
from heatlog.log.racelog import RaceLog
from heatlog.races import import_race
from heatlog.races.audit import audit_race

REPLAYS = Path(__file__).resolve().parents[1] / "replays"
FILES = [s.file for s in SAMPLES] + [TABLE[0]]


@pytest.mark.parametrize("name", FILES)
def test_sample_imports_cleanly_and_reexports_byte_for_byte(tmp_path: Path, name: str) -> None:
    text = (REPLAYS / name).read_text(encoding="utf-8")
    with RaceLog(tmp_path / "h.db") as log:
        race = import_race(log, text, name=name, source=name)
        report = audit_race(log, race)
        assert report.clean and report.finished, [p.message for p in report.problems]
        assert log.store.export_jsonl(race) == text


def test_samples_are_what_make_replays_makes() -> None:
    """Regenerating gives the same bytes (the simulator is deterministic) and the README describes them."""
    logs = sample_logs()
    for name in FILES:
        assert (REPLAYS / name).read_text(encoding="utf-8") == "".join(canonical_line(e) for e in logs[name]), name
    assert (REPLAYS / "README.md").read_text(encoding="utf-8") == readme(logs), "run python replays/make_replays.py"


def test_samples_are_the_races_the_issue_asks_for() -> None:
    logs = {name: [json.loads(line) for line in (REPLAYS / name).read_text().splitlines()] for name in FILES}
    shapes = {}
    for name, events in logs.items():
        start = events[0]
        shapes[name] = (start["track"]["id"], len(start["cars"]), start["laps"], start["variant"], start["mode"])
    assert shapes == {
        "usa-4cars.jsonl": ("usa", 4, 2, "standard", "open"),
        "italy-6cars.jsonl": ("italy", 6, 3, "standard", "open"),
        "learning-2cars.jsonl": ("usa", 2, 1, "one-lap", "open"),
        "usa-4cars-table.jsonl": ("usa", 4, 2, "standard", "table"),
        "gb-solo-legends.jsonl": ("great-britain", 6, 2, "standard", "open"),
        "usa-weather-4cars.jsonl": ("usa", 4, 2, "standard", "open"),
        "netherlands-legends-weather.jsonl": ("netherlands", 6, 3, "standard", "open"),
        "usa-garage-4cars.jsonl": ("usa", 4, 2, "standard", "open"),
        "usa-garage-legends-weather.jsonl": ("usa", 5, 2, "standard", "open"),
    }
    garage = logs["usa-garage-4cars.jsonl"]
    assert garage[0]["garage"]["draft"] == "draft"  # # 18.5: the draft is in the log
    assert sum(e["type"] == "upgrade_picked" for e in garage) == 12
    assert {"heat_paid", "card_scrapped"} & {e["type"] for e in garage}  # # 18.10, 18.12: symbols were used
    table = logs["usa-4cars-table.jsonl"]
    assert not any("order" in e for e in table if e["type"] == "deck_shuffled")  # # 1.7: hidden
    assert all("count" in e for e in table if e["type"] == "cards_drawn")
    assert not any(e["type"] == "cards_played" for e in table)
    h = highlights(logs["usa-4cars.jsonl"])
    assert h.order == highlights(table).order  # the same race, seen from the table
    assert h.spinouts  # the README promises something happens
    assert highlights(logs["italy-6cars.jsonl"]).adrenaline > 0  # two adrenaline cars a round (# 6.1)


def test_module_samples_hold_what_their_titles_say() -> None:
    """MODULES.md 19, 20: the solo race has one player and five Legends, the weather race its tile and tokens
    before the first shuffle, the combined race both modules (a Legend card every round a Legend moves)."""
    logs = {name: [json.loads(line) for line in (REPLAYS / name).read_text().splitlines()] for name in FILES}
    solo = logs["gb-solo-legends.jsonl"]
    cars = solo[0]["cars"]
    assert sum(1 for c in cars if c.get("legend")) == 5 and solo[0]["legends"]["aggressive"] is True
    assert sum(e["type"] == "legend_card_revealed" for e in solo) == highlights(solo).rounds
    weather = logs["usa-weather-4cars.jsonl"]
    kinds = [e["type"] for e in weather]
    assert kinds.index("road_conditions_drawn") == kinds.index("weather_drawn") + 1 < kinds.index("deck_shuffled")
    both = logs["netherlands-legends-weather.jsonl"]
    assert both[0]["modules"] == ["legends", "weather"] and both[0]["legends"]["pro"] == 1
    said = highlights(both).modules  # each module's words on the race (Module.highlight), in rank order
    assert "among the Legends" in said[0] and said[1].startswith("weather ")
    assert highlights(weather).modules[0].startswith("weather ")
    every = logs["usa-garage-legends-weather.jsonl"]  # the Garage, Legends and the weather in one race
    kinds = [e["type"] for e in every]
    assert sorted(every[0]["modules"]) == ["garage", "legends", "weather"]
    assert sum(k == "upgrade_picked" for k in kinds) == 9  # # 18.5: three picks per player, none for Legends
    assert max(i for i, k in enumerate(kinds) if k == "upgrade_picked") < kinds.index("weather_drawn")  # 21.3, 20.2
    assert kinds.index("road_conditions_drawn") < kinds.index("legend_card_revealed")
    state = replay(every)
    assert state.is_over() and sorted(state.hall_of_fame) == sorted(state.cars)  # Legends rank too (# 19.13)


def test_each_module_declares_samples_that_play_it() -> None:
    """A module's sample races and golden playthroughs are declared on its descriptor (issue 26: ``Module.samples``,
    ``Module.goldens``): each plays the module, and one of several modules comes with the last of them in the pages'
    order (``doc_order``), so its README line comes after each of theirs."""
    from heatlog.engine.module import descriptors

    units = {m.name: m for m in descriptors()}
    declared = [s.file for m in units.values() for s in m.samples]
    assert declared and set(declared) <= set(FILES)
    for m in units.values():
        for sample in (*m.samples, *m.goldens):
            played = set(sample.args.get("modules", {}))
            assert m.name in played, (m.name, sample.file)
            assert all(units[o].doc_order <= m.doc_order for o in played), (m.name, sample.file)
