"""The engine core and the formats name no module (issue 26): they ask the registry (``engine/module.py``) and the
race's Rules points, and each module's knowledge lives in its folder (``engine/modules/<name>/``). The Garage's
card cooldowns and Salvage shuffle are Rules points (# 18.13, 18.18), a Legend car's key and a turn's owed
chance events are the modules' words (# 19.1, MA23), the position check asks ``Module.position_cards`` (# 18.4,
20.3, 21.4) and the data files ``Module.data_check`` (# 19.4, 20.1)."""

from __future__ import annotations

import copy
import io
import json
import tokenize
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from heatlog.engine import MalformedInput, replay, state_to_position
from heatlog.engine import rules as _registered  # noqa: F401  (importing the rules registers every module)
from heatlog.engine.module import MODULES, PositionCards
from heatlog.engine.position import state_from_position
from heatlog.formats import module_data
from heatlog.formats.positions import position_problems

PACKAGE = Path(__file__).resolve().parents[2] / "heatlog"
#: The engine core's files and the formats that once named modules. engine/state.py names none: a module's state
#: is in ``RaceState.modules`` and its record of a turn in ``Turn.modules`` (a Legend's move, the Garage's record,
#: the championship's lists; docs/design.md, "A turn's module records"); engine/track.py reads the printed
#: board's Legend marks (the track format's keys, # 19.7); engine/redact.py's open-to-table projection asks the
#: modules' ``table_says`` (event 18's pile, MA23); a car's ``legend`` key is the base's word for a car no player
#: drives.
CORE = [p for p in sorted((PACKAGE / "engine").glob("*.py")) if p.name != "track.py"]
FORMATS = [PACKAGE / "formats" / "positions.py", PACKAGE / "formats" / "module_data.py"]
ALLOWED = {"legend"}  # Car.legend: the base's car without a deck, hand or Engine (# 19.3), its key in the formats


def _names(path: Path) -> list[tuple[int, str]]:
    """(line, token) of every name and short string literal (not a docstring) naming a registered module."""
    words = [m.rstrip("s") for m in MODULES]
    found: list[tuple[int, str]] = []
    prev = None
    for t in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        low = t.string.lower()
        named = t.type == tokenize.NAME or (
            t.type == tokenize.STRING
            and len(t.string) < 60
            and prev not in (tokenize.INDENT, tokenize.NEWLINE, tokenize.DEDENT, None)
        )
        if named and t.string.strip("\"'") not in ALLOWED and any(w in low for w in words):
            found.append((t.start[0], t.string))
        if t.type not in (tokenize.NL, tokenize.COMMENT):
            prev = t.type
    return found


@pytest.mark.parametrize("path", CORE + FORMATS[:1], ids=lambda p: p.name)
def test_the_engine_core_and_the_position_check_name_no_module(path: Path) -> None:
    assert _names(path) == []


def test_the_modules_data_files_import_no_modules_rules() -> None:
    """formats/module_data.py reads every data file through the registry (its conveniences keep their names)."""
    text = (PACKAGE / "formats" / "module_data.py").read_text(encoding="utf-8")
    assert "engine.modules" not in text


def _legends_position() -> dict[str, Any]:
    from heatlog.simulate import simulate_race

    _, events, _ = simulate_race(None, track="usa", cars=2, seed=3, bots="random", modules={"legends": {"cars": 1}})
    return json.loads(json.dumps(state_to_position(replay(events[: len(events) // 2]))))


def test_19_1_a_position_with_a_legend_car_needs_the_legends_module() -> None:
    """# 19.1: without the module no Legend card is ever drawn, and the race would wait for one forever: a
    position that lists a Legend car and not the module is refused at the door, as race_started is."""
    pos = _legends_position()
    assert list(position_problems(pos)) == []
    bare = copy.deepcopy(pos)
    bare.pop("modules")
    with pytest.raises(MalformedInput, match="Legend cars need the Legends module"):
        state_from_position(bare)


def test_MA23_what_a_turn_owes_is_worded_by_the_module_that_owes_it() -> None:
    from heatlog.engine.module import owed_words

    assert owed_words("sponsor_drawn") == ("the sponsorship card drawn (# 21.7: it goes into the hand at once)", "MA30")
    assert owed_words("heat_removed")[1] == "MA23"


def test_20_1_a_data_file_is_checked_by_its_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """The formats ask ``Module.data_check``: a module that refuses its data file is heard."""

    def refuse(data: Any) -> None:
        raise ValueError("not a weather file")

    monkeypatch.setitem(MODULES, "weather", replace(MODULES["weather"], data_check=refuse))
    module_data.data_of.cache_clear()
    try:
        with pytest.raises(ValueError, match="not a weather file"):
            module_data.data_of("weather")
    finally:
        monkeypatch.undo()
        module_data.data_of.cache_clear()
    assert module_data.data_of("weather")["tiles"]


def test_18_4_the_position_check_asks_the_modules_of_the_race(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module whose cards are not built yet (``PositionCards.unbuilt``: the Garage's draft, # 18.4) makes the
    position check leave the cards alone, whatever its name."""
    pos = _legends_position()
    next(c for c in pos["cars"] if not c.get("legend"))["engine"] += (
        1  # one Heat too many: a car holds exactly its own cards (# 1.2)
    )
    assert any("exactly its own cards" in what for _, what in position_problems(pos))
    monkeypatch.setitem(
        MODULES, "legends", replace(MODULES["legends"], position_cards=lambda s: PositionCards(unbuilt=True))
    )
    assert not any("exactly its own cards" in what for _, what in position_problems(pos))


def test_MA23_event_18s_pile_in_the_open_to_table_projection_is_the_championships_word() -> None:
    """MA23: engine/redact.py asks ``Module.table_says``; the championship answers for a race whose event card
    removes a Heat card at each lap (# 21.8), and only then."""
    say = MODULES["championship"].table_says
    assert say is not None
    assert say({"type": "race_started", "modules": []}) is None
    card = {"event": {"card": {"effects": {"lap_heat_removed": True}}}}
    assert say({"type": "race_started", "modules": ["championship"], "championship": card}) is not None
    assert say({"type": "race_started", "modules": [], "championship": card}) is None  # not in play
    assert say({"type": "race_started", "modules": ["championship"], "championship": "hostile"}) is None
