"""The recorder asks the registry for a module's questions and words (issue 26: the recorder stops naming modules;
engine/module.py's ``Notation`` and hooks): the questions stay the ones the table knows, by kind, prompt, car and
answers, whatever module asks them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from heatlog.engine import apply
from heatlog.engine.modules.garage import garage_slot
from heatlog.engine.modules.weather.rules import sector_at
from heatlog.recorder.prompt import Question
from heatlog.recorder.questions import ask
from heatlog.simulate import simulate_race

Event = dict[str, Any]


def _questions(events: list[Event]) -> Iterator[tuple[Any, Question]]:
    """(state, the question the recorder asks there) after every event of a race (the state is the race's one,
    folded on in place: read it before the next)."""
    state = None
    for ev in events:
        state = apply(state, ev, atomic=False)
        if state.phase == "over":
            break
        q = ask(state)
        if isinstance(q, Question):
            yield state, q


def test_the_react_question_says_what_the_car_s_sector_does() -> None:
    """# 20.7: the React question's hint says what the car's sector forbids or adds (the weather's
    ``Module.react_hint``), in the words it had when the recorder named the weather itself."""
    _, events, _ = simulate_race(track="great-britain", cars=4, laps=1, seed=9, modules={"weather": {}})
    seen = 0
    for state, q in _questions(events):
        if q.kind != "react" or q.car is None:
            continue
        effect = sector_at(state, state.cars[q.car].progress)
        if effect.active:
            assert f"; sector: {effect.words()} (road condition {effect.token}); cN moves" in q.hint, q.hint
            seen += 1
        else:
            assert "sector:" not in q.hint
    assert seen


def test_a_module_s_set_up_and_race_questions_keep_their_kinds() -> None:
    """The weather's tile and tokens (# 20.2) are asked as "weather" and "road" (the host's; the tokens a row of
    several), a Legend's card (# 19.5) as "legend" for the Legend whose turn it is: the notations' kinds."""
    _, events, _ = simulate_race(cars=2, laps=1, seed=4, modules={"legends": {"cars": 1}, "weather": {}})
    asked: dict[str, Question] = {}
    for state, q in _questions(events):
        if q.kind == "legend":
            assert state.turn is not None and q.car == state.turn.car and state.cars[q.car].legend
            assert q.prompt.startswith(f"Legend card for round {state.round}: {q.car}'s helmet number (")
        asked.setdefault(q.kind, q)
    assert {"weather", "road", "legend"} <= set(asked)
    assert asked["weather"].car is None and not asked["weather"].several
    assert asked["road"].car is None and asked["road"].several


def test_a_car_s_own_cards_are_the_module_s() -> None:
    """# 18.5: the cards beyond the base a car owns come from its module (``Module.car_cards``: the Garage's
    upgrades, in the order it got them): the table server's card buttons and the recorder's own-cards-first
    reading of a typed name ask the registry; a race without such a module gives none."""
    import json
    from pathlib import Path

    from heatlog.engine import replay
    from heatlog.engine.module import car_cards
    from heatlog.recorder.garage import cards_held

    sample = Path(__file__).resolve().parent.parent / "heatlog" / "data" / "replays" / "usa-garage-4cars.jsonl"
    state = replay([json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines()])
    assert garage_slot(state) is not None
    for name in state.cars:
        assert car_cards(state, name) == list(garage_slot(state).owned.get(name, ()))
        assert car_cards(state, name) and set(car_cards(state, name)) <= cards_held(state, name)
    _, events, base = simulate_race(cars=2, laps=1, seed=4)
    assert all(car_cards(base, name) == [] for name in base.cars)


def test_every_question_of_a_module_race_is_told_on_the_screen() -> None:
    """The scripted host (recorder/script.py) tells each question by its prompt as the terminal shows it: the
    Legend card (# 19.5), the weather's tile and tokens (# 20.2) and the rain's sky had no ``Notation.screen``, so a
    race of theirs could not be typed into ``heatlog record`` through a terminal (found typing simulated races
    through tmux: the host waited at the Legend card's prompt)."""
    from heatlog.engine.redact import open_to_table
    from heatlog.recorder import script as rs
    from tests.recorder_typed_back import simulated

    told: set[str] = set()
    for seed in (1, 2):
        events = simulated(("garage", "legends", "rain", "weather"), seed)
        for _, q in _questions(events if seed == 1 else open_to_table(events)):
            if q.kind == "grid" or q.auto is not None:
                continue  # the wizard's last question; an answer the rules determine (never shown as a question)
            assert rs.classify(q.prompt) == (q.kind, q.car or ""), q.prompt
            told.add(q.kind)
    assert {"weather", "road", "legend", "module", "react", "reveal"} <= told, told
