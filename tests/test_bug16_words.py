"""Issue 29 bug 16, the recorder's and the narration's words: a Garage card's step-3 flips told before the move
(and so before React), a Stress never flipped not said to have found "nothing", and the ``show`` move column
after an unpayable Heat cost's re-move (# 18.11). Each test fails without its fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from heatlog.engine import apply
from heatlog.engine.modules.garage import garage_turn
from heatlog.engine.modules.legends import legend_move_of
from heatlog.engine.state import RaceState, Turn
from heatlog.views.board import cars_table
from heatlog.views.narrate import narrate_turn, played_words
from heatlog.views.plain import Styled

GOLDEN = Path(__file__).parent / "golden"


def turns_of(name: str) -> list[tuple[RaceState, Turn]]:
    """Every completed turn of a golden log, with the state it completed in."""
    state = None
    out: list[tuple[RaceState, Turn]] = []
    seen: set[tuple[int, str]] = set()
    for line in (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
        state = apply(state, json.loads(line))
        for t in state.turns:
            if t.complete and (t.round, t.car) not in seen:
                seen.add((t.round, t.car))
                out.append((state.copy(), t))
    return out


@pytest.fixture(scope="module")
def garage_turns() -> list[tuple[RaceState, Turn]]:
    return turns_of("golden_usa_garage_table")


def test_18_8_a_cards_plus_flips_are_told_before_the_move(garage_turns: list[tuple[RaceState, Turn]]) -> None:
    # step 3's "+" flips (# 18.8) found what the car moves with: they were told after the move and after React
    said = [narrate_turn(s, t) for s, t in garage_turns]
    plus = [x for x in said if "card + finds" in x]
    assert plus, "the golden race has a card + flip"
    for x in plus:
        assert x.index("card + finds") < x.index("; moves "), x


def test_13_2_a_stress_of_a_cluttered_hand_is_not_said_to_have_found_nothing() -> None:
    # a cluttered hand does not move (# 13.2): its Stress is never flipped; the narration said "Stress→nothing"
    said = [narrate_turn(s, t) for s, t in turns_of("golden_italy_table")]
    cluttered = [x for x in said if "cluttered hand" in x and "Stress" in x]
    assert cluttered
    assert not any("Stress→nothing" in x for x in said)
    assert all("Stress→" not in x for x in cluttered), cluttered


def test_a8_a_stress_flip_with_no_basic_card_left_says_so() -> None:
    # # A8 reading: no Basic card in deck or discard, the flip finds none and counts 0
    t = Turn("Ann", 3, 2, 2)
    t.played = ["3", "S"]
    t.stress_found = ["-"]
    t.sub = 5  # past the reveal
    assert played_words(t) == "3 Stress→no card (0)"


def test_18_11_the_move_column_after_a_re_move_is_the_re_move(garage_turns: list[tuple[RaceState, Turn]]) -> None:
    # # 18.11, MA1: a Garage card's Heat cost went unpaid; the car moved again from its start with its new speed
    # (13 in the golden race, where the first move and the re-move counted 18): the show/replay move column said 18
    (state, turn) = next((s, t) for s, t in garage_turns if (gt := garage_turn(t)) is not None and gt.replaced)
    assert turn.spaces_moved != turn.speed  # the turn's own count is not the re-move: the column must say it
    assert "moves again from the start" in narrate_turn(state, turn)
    grid = cars_table(state, [turn], [turn.car])
    heads = [c[0] for c in grid.columns]
    text = ["".join(x for x, _ in c.parts) if isinstance(c, Styled) else c for c in grid.rows[0]]
    assert turn.car in text[0]
    assert text[heads.index("move")] == str(turn.speed) == "13", text


def test_19_8_a_legends_corner_is_numbered_as_the_printed_board_numbers_it() -> None:
    # Japan's chicane is one corner (its two lines, MODULES.md 22.2): the Legend narration counted each line, so
    # the corner after space 53 was "corner 5" there and "corner 4" on the board, the tables and every other line
    from heatlog.simulate import simulate_race
    from heatlog.views.narrate import corner_number

    _, events, _ = simulate_race(None, track="japan", cars=1, modules={"legends": {"cars": 3}}, seed=1)
    state = None
    said: dict[tuple[int, str], tuple[str, int]] = {}
    for ev in events:
        state = apply(state, ev)
        for t in state.turns:
            if legend_move_of(t) is not None and t.complete and (t.round, t.car) not in said:
                printed = corner_number(state, state.track.corners[legend_move_of(t).corner - 1].after_space)
                said[(t.round, t.car)] = (narrate_turn(state, t), printed)
    assert state is not None and len({corner_number(state, c.after_space) for c in state.track.corners}) == 4
    told = [(text, n) for text, n in said.values() if "corner " in text]
    assert any(n == 4 for _, n in told), told  # the corner after the chicane's lines is on this race's way
    for text, n in told:
        assert re.search(rf"corner {n}\b", text) and "corner 5" not in text, text
