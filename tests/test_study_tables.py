"""The ``decisions`` rows made column by column (issue 31: the corpus writer's hot path) are the rows of
:func:`decision_row`, event by event: for the decisions of simulated races of every module and for events of odd
shapes (a main field null or of another type, both ``card`` and ``cards``, fields beyond the columns)."""

from __future__ import annotations

from typing import Any

from heatlog.engine.events import REGISTRY
from heatlog.simulate import simulate_race
from heatlog.study.tables import decision_row, decision_rows

ODD: list[dict[str, Any]] = [
    {"type": "gear_chosen", "v": 1, "car": "Red", "gear": None},
    {"type": "gear_chosen", "car": "Red", "gear": "3"},
    {"type": "gear_chosen", "v": 1, "car": "Red", "gear": True},
    {"type": "cards_played", "v": 1, "car": "Red", "cards": ["1", 2, None]},
    {"type": "cards_played", "v": 1, "car": "Red", "cards": "1 2"},
    {"type": "cards_played", "v": 1, "car": "Red", "cards": ["1"], "card": "U1"},
    {"type": "cards_played", "v": 1, "car": "Red", "cards": None, "card": 7},
    {"type": "slipstream", "v": 1, "car": "Red", "taken": 1, "spaces": 3},
    {"type": "cooldown", "v": 1, "car": "Red", "count": True, "cards": ["U2"]},
    {"type": "adrenaline", "v": 1, "car": "Red", "bonus": "mové", "z": [1, {"b": 2, "a": None}]},
    {"type": "boost", "car": None},
    {"type": "cards_discarded"},
]


def test_columns_make_the_rows_of_decision_row() -> None:
    events: list[dict[str, Any]] = []
    for modules in ({}, {"weather": {}}, {"legends": {"cars": 2}}, {"garage": {"upgrades": "all", "draft": "snake"}}):
        events += simulate_race(None, track="usa", cars=4, seed=5, bots="random", modules=modules)[1]
    decisions = [e for e in events if e["type"] in REGISTRY and not REGISTRY[e["type"]].chance] + ODD
    noted = [(i, i // 7, e) for i, e in enumerate(decisions)]
    assert decision_rows(12, noted) == [decision_row(12, i, r, e) for i, r, e in noted]
    assert decision_rows(12, []) == []
    assert any(row[-1] is not None for row in decision_rows(12, noted))  # some carry a detail


def test_a_remembered_detail_is_the_json_of_its_own_event() -> None:
    """The ``detail`` text is remembered per shape of plain fields (issue 31): equal values of other types (1 and
    True, 0.0 and -0.0) keep their own JSON, whatever came first."""
    import json

    events = [
        {"type": "adrenaline", "v": 1, "car": "Red", "bonus": value}
        for value in (1, True, 1, True, 0.0, -0.0, 0.0, "1", None, [1], [1], {"a": 1})
    ]
    for ev in events * 2:
        detail = decision_row(1, 0, 1, ev)[-1]
        assert detail == json.dumps({"bonus": ev["bonus"]}, separators=(",", ":"), ensure_ascii=False)
        assert decision_rows(1, [(0, 1, ev)])[0][-1] == detail


def test_docs_list_the_modules_columns_from_their_declarations() -> None:
    """# 18.10, 20.2, 19.1: docs/study.md's table of the modules' columns is made from Module.race_columns and
    Module.turn_columns (issue 26), and the tables hold those columns where the declarations put them."""
    from pathlib import Path

    from heatlog.engine.module import MODULES
    from heatlog.stats.facts import TURN_COLUMNS
    from heatlog.study.tables import RACE_COLUMNS, module_columns_doc

    doc = (Path(__file__).resolve().parent.parent / "docs" / "study.md").read_text(encoding="utf-8")
    assert module_columns_doc() in doc
    for m in MODULES.values():
        for c in m.race_columns:
            assert c.name in RACE_COLUMNS
            assert list(RACE_COLUMNS).index(c.name) > list(RACE_COLUMNS).index(m.race_after)
        for c in m.turn_columns:
            assert TURN_COLUMNS.index(c.name) > TURN_COLUMNS.index("led")
