"""The recorder's third pass (issue 29), through the real terminal (pexpect): what a host found recording.

Each scenario starts from the 3-car table race on the sprint track at Red's reveal (gears 2 2 1) that
``tests/test_recorder_table.py`` writes, then drives ``heatlog record`` in a pseudo-terminal.
"""

from __future__ import annotations

import re
import signal
from pathlib import Path
from typing import Any

import pytest
from test_recorder_table import ANSI, race_from, spawn, to_greens_react

from heatlog.engine.modules.garage import garage_slot
from heatlog.recorder.questions import reveal_prompt

pexpect = pytest.importorskip("pexpect")


def _screen(child: Any) -> str:
    return ANSI.sub("", child.before or "")


def test_d_and_its_cards_start_a_line_at_react(tmp_path: Path) -> None:
    # issue 29 bug 1: "d1" typed at the React question is the discard (docs/recording.md: d and the cards, later
    # on a line), not "not understood: 'd1'"; # 11.1
    child = spawn(race_from(tmp_path, lambda car: None), "--race", "2")
    child.expect_exact(reveal_prompt("Red", 2))
    child.sendline("2 2")
    child.expect_exact("Red react (")
    child.sendline("d1")
    child.expect_exact("Red discards 1")
    child.expect_exact(reveal_prompt("Blue", 2))
    assert "not understood" not in _screen(child)
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_n_and_y_at_react_without_a_slipstream_are_answered_about_the_slipstream(tmp_path: Path) -> None:
    # issue 29 bug 10: Red has no car beside it or ahead (# 8.1): y is refused with that reason, not read as a
    # discard; n declines nothing and is taken
    child = spawn(race_from(tmp_path, lambda car: None), "--race", "2")
    child.expect_exact(reveal_prompt("Red", 2))
    child.sendline("2 2")
    child.expect_exact("Red react (")
    child.sendline("y")
    child.expect_exact("no slipstream for Red: no car beside it or in the space directly ahead")
    child.expect_exact("Red react (")
    child.sendline("n d1")
    child.expect_exact("Red discards 1")
    child.expect_exact(reveal_prompt("Blue", 2))
    assert "the cards to discard" not in _screen(child)
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_wrong_gear_names_the_car_it_was_for(tmp_path: Path) -> None:
    # issue 29 bug 5: "2 2 5" at Red's question (Red in gear 2): the 5 was Green's, in gear 1 (# 3.1); the message
    # said "(Enter keeps 1)" under Red's "[2]"
    child = spawn(race_from(tmp_path, lambda car: None), "--race", "2")
    for name, line in (("Red", "2 2 - -"), ("Blue", "2 2 - n -"), ("Green", "1 - -")):
        child.expect_exact(f"{name} reveals ")
        child.sendline(line)
    child.expect_exact("Red gear (now 2) [2]: ")
    child.sendline("2 2 5")
    child.expect_exact("'5' is not a gear for Green: type 1, 2, 3 or 4 (Green is in gear 1)")
    child.expect_exact("Red gear (now 2) [2]: ")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_ac_is_not_offered_when_no_heat_can_be_in_hand(tmp_path: Path) -> None:
    # issue 29 bug 6 (# 6.2, 7.3): Green's Heat card is on the Engine: React lists a, never ac (the bonus alone, ac0,
    # is still taken: tests/test_recorder_typed_back.py)
    child = to_greens_react(tmp_path)
    child.expect(r"Green react \(([^;]*);")
    assert child.match.group(1).split() == ["b", "a"], child.match.group(1)  # no Heat in hand: no c1 either
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_the_double_enter_guard_keeps_every_car_s_gear(tmp_path: Path) -> None:
    # issue 29 bug 7: Green's turn ends with an Enter, so the Enter at Red's gear is the guarded second one; after
    # "press Enter once more to keep them", that Enter keeps all three gears, not only Red's
    child = spawn(race_from(tmp_path, lambda car: None), "--race", "2")
    child.expect_exact(reveal_prompt("Red", 2))
    child.sendline("2 2 - -")
    child.expect_exact(reveal_prompt("Blue", 2))
    child.sendline("2 2 - n -")
    child.expect_exact(reveal_prompt("Green", 1))
    child.sendline("1")
    child.expect_exact("Green react (")
    child.sendline("")
    while child.expect([r"Green discards \(", r"Red gear \(now 2\) \[2\]: "]) == 0:
        child.sendline("")
    child.sendline("")
    child.expect_exact("press Enter once more to keep them")
    child.expect_exact("Red gear (now 2) [2]: ")
    child.sendline("")
    child.expect(r"(\S+) (reveals \d(?: \(\+ [^()]*\))?|gear \(now \d\) \[\d\]): ")
    assert child.match.group(2).startswith("reveals"), child.match.group(0)
    assert "Red gear 2, Blue gear 2, Green gear 1" in _screen(child)
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_resuming_mid_turn_shows_what_was_entered_this_turn(tmp_path: Path) -> None:
    # issue 29 bug 9: killed at the second Stress flip, the restarted recorder shows the reveal and the first flip
    child = spawn(race_from(tmp_path, lambda car: None), "--race", "2")
    child.expect_exact(reveal_prompt("Red", 2))
    child.sendline("s s")
    child.expect_exact("flip for Red's Stress: ")
    child.sendline("h")
    child.expect_exact("flip for Red's Stress: ")
    child.kill(signal.SIGKILL)
    child.close(force=True)
    child = spawn(tmp_path / "race.db", "--race", "2")
    child.expect_exact("flip for Red's Stress: ")
    lines = [x for x in _screen(child).splitlines() if x.startswith("entered this turn")]
    assert lines == ["entered this turn: Red reveals Stress Stress; Red flips Heat"], lines
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert re.search("Red flips", "".join(lines))


def _to_blues_react(tmp_path: Path) -> Any:
    """The recorder at Blue's React in round 1: Red revealed 2 2 and cooled 1 (its React prompt: c1 b, Enter =
    nothing more, no slipstream possible), then Blue, beside Red, revealed 2 2."""
    child = spawn(race_from(tmp_path, lambda car: None), "--race", "2")
    child.expect_exact(reveal_prompt("Red", 2))
    child.sendline("2 2")
    child.expect_exact("Red react (c1 b; Enter = nothing more): ")
    child.sendline("c1")
    child.expect_exact("Red cools 1; nothing more this turn")
    child.expect_exact(reveal_prompt("Blue", 2))
    child.sendline("2 2")
    return child


def test_one_react_prompt_and_enter_once_a_turn(tmp_path: Path) -> None:
    # issue 29, Build 1: React takes every use in one answer and is not asked again; Enter at React is "nothing
    # more this turn" (no discard question) when no slipstream comes (# 8.1); the one-line form is shown after the
    # first round
    child = _to_blues_react(tmp_path)
    child.expect_exact("Blue react (")  # beside Red: the slipstream comes next, Enter closes React only
    child.sendline("")
    child.expect_exact("Blue slipstream? (y/n): ")
    child.sendline("n")
    child.expect_exact("Blue discards (Enter = none): ")
    child.sendline("")
    child.expect_exact(reveal_prompt("Green", 1))
    child.sendline("1")
    child.expect_exact("Green react (")
    child.sendline("")
    child.expect_exact("Red gear (now 2) [2]: ")
    screen = _screen(child)
    assert "Green discards" not in screen and "Red react" not in screen
    assert "tip: a whole car-turn on one line" in screen  # round 2 opens with the one-line form
    child.sendline("help")
    child.expect_exact("Enter there = nothing more this turn")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_one_line_entry_keeps_the_spinout_warning_and_needs_no_final_dash(tmp_path: Path) -> None:
    # issue 29, Build 1: Red (Engine 1) reveals 4 4: corner 1 (limit 4) at speed 8 cannot be paid (# 10.1); the
    # one-line entry "4 4 c1" still shows SPINOUT AHEAD, and its end is "nothing more this turn" without a "-"
    def edit(car: dict[str, Any]) -> None:
        if car["name"] == "Red":  # five of its six Engine Heat went to the discard pile
            car["engine"] -= 5
            car["discard"] += ["H"] * 5

    db = race_from(tmp_path, edit)
    child = spawn(db, "--race", "2")
    child.expect_exact(reveal_prompt("Red", 2))
    child.sendline("4 4 c1")
    child.expect_exact("SPINOUT AHEAD")
    child.expect_exact(reveal_prompt("Blue", 2))
    assert "Red react" not in _screen(child) and "Red discards" not in _screen(child)
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_reveal_alone_shows_the_spinout_warning_once_after_the_move(tmp_path: Path) -> None:
    # issue 29 bug 16 (lines out of order): the cards alone at the reveal's line ("ask me" React) printed
    # "SPINOUT AHEAD" twice, once with the echo (before the move line) and once before the React question
    from heatlog.log.racelog import RaceLog
    from heatlog.recorder import Session

    def edit(car: dict[str, Any]) -> None:
        if car["name"] == "Red":  # five of its six Engine Heat went to the discard pile
            car["engine"] -= 5
            car["discard"] += ["H"] * 5

    s = Session(RaceLog(race_from(tmp_path, edit), create=False), 2)
    shown = [x.text for x in s.answer("4 4")]
    warned = [i for i, x in enumerate(shown) if "SPINOUT AHEAD" in x]
    move = next(i for i, x in enumerate(shown) if x.startswith("Red plays 4 4: speed 8"))
    assert len(warned) == 1 and move < warned[0], shown
    assert s.question.kind == "react"


def _turbo8_unpayable(tmp_path: Path) -> Path:
    """A Garage race (open mode, USA) at A's React: A played Turbo charger 8 (turbo8, Heat 1, # 18.11) with an empty
    Engine; the race's catalogue also holds Turbo charger 7 (turbo7), which A does not own."""
    race = _garage_race_at_a_react("U43 1 1 1 H H H", 0, "S 2 4 2 2 3 3 3 4 4 U1 U1 S S", "U43 U1 U1", (1, ["U43"]))
    assert "U42" in garage_slot(race.state).cards  # turbo7 is in the race's catalogue
    return _started(tmp_path, race)


def _garage_race_at_a_react(hand: str, engine: int, deck: str, upgrades: str, play: tuple[int, list[str]]) -> Any:
    """A Garage race (open mode) at A's React, round 1, A at space 1 (3 Heat in its discard pile) and P far ahead:
    A had ``hand``, ``engine`` Heat on the Engine, ``deck``, and played ``play`` (gear, cards)."""
    from rules.modules.garage.scenarios import garage_board

    race = garage_board(
        {
            "P": {"at": 29, "hand": "1 1 1 2 2 2 3", "deck": "3 3 4 4 4 U13 U15 U16 S S S", "upgrades": "U13 U15 U16"},
            "A": {"at": 1, "hand": hand, "engine": engine, "deck": deck, "discard": "H H H", "upgrades": upgrades},
        }
    )
    race.round(P=(1, ["1"]), A=play)
    race.turns_until("A")
    return race


def _started(tmp_path: Path, race: Any) -> Path:
    """A race database started (USA) from the position of scenario ``race`` as it stands."""
    import json

    from heatlog.engine import state_to_position
    from heatlog.log.racelog import RaceLog
    from heatlog.races import start_race

    path = tmp_path / "pos.json"
    path.write_text(json.dumps(state_to_position(race.state)))
    db = tmp_path / "race.db"
    log = RaceLog(db)
    start_race(log, track="usa", cars=[], from_position=path)
    log.close()
    return db


def test_an_unpayable_heat_cost_is_offered_named_and_said_what_to_type(tmp_path: Path) -> None:
    # issue 29 bug 2 (# 18.11): the React prompt never offered u:, Enter answered "the Heat cost of U43 is more than
    # the Engine holds: record which card is unpayable" (no word of what to type, the card by its code), and
    # u:turbo was "ambiguous" with turbo7, a card A does not own
    child = spawn(_turbo8_unpayable(tmp_path), "--race", "1")
    child.expect_exact("A react (")
    child.expect(r"([^\n]*)\): ")
    assert "u:turbo8" in child.match.group(1).split(";")[0].split(), child.match.group(1)
    child.sendline("")
    child.expect_exact("not yet: A's Engine (0) cannot pay every Heat cost of the cards played: type u:turbo8")
    assert "U43" not in _screen(child)
    child.expect_exact("A react (")
    child.sendline("u:turbo")
    child.expect_exact("A cannot pay for turbo8")
    assert "ambiguous" not in _screen(child)
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_18_11_enter_at_react_names_the_p_card_answers_too_when_the_engine_can_pay_one_cost(tmp_path: Path) -> None:
    # # 18.10, 18.11: A played body6 and cool6 (Heat 1 each) with 1 Heat on the Engine: it pays one of them, the
    # other goes unpaid. The engine allows u:CARD and p:CARD (the cost paid first); Enter's "not yet" named only
    # the u: answers, and the prompt offered a bare p (pay Heat: body6 cool6), which is refused
    from heatlog.log.racelog import RaceLog
    from heatlog.recorder import Session

    race = _garage_race_at_a_react(
        "U18 U11 1 1 H H S", 1, "S 2 4 2 2 3 3 3 4 4 U1 1 S", "U18 U11 U1", (2, ["U18", "U11"])
    )
    with RaceLog(_started(tmp_path, race), create=False) as log:
        s = Session(log, 1)
        q = s.question
        assert q.kind == "react" and q.car == "A", q
        # the prompt and Tab offer each cost alone, not a bare p (it pays both, 2 Heat: refused, # 18.11)
        assert " p:body6 p:cool6 u:cool6 u:body6; " in q.prompt and "(pay Heat" not in q.prompt, q.prompt
        assert "p:CARD pays that card's first" in q.prompt, q.prompt
        assert {"p:body6", "p:cool6"} <= set(q.options) and "p" not in q.options, q.options
        said = [(x.text, x.style) for x in s.answer("")]
        assert len(said) == 1 and said[0][1] == "error", said
        text = said[0][0]
        assert text.startswith("not yet: A's Engine (1) cannot pay every Heat cost"), text
        assert "u:cool6 or u:body6 (" in text and ", or p:body6 or p:cool6 (that card's cost is paid first" in text
        assert "U18" not in text and "U11" not in text, text  # the cards by their names (issue 29)
        errors = [x.text for x in s.answer("p:body6") if x.style == "error"]  # an answer it names is taken
        assert not errors, errors
        paid = s.proj.effective.entries[-1].event
        assert (paid["type"], paid["cards"]) == ("heat_paid", ["U18"]), paid
        again = [x.text for x in s.answer("")]  # the cost left, the Engine empty: u:cool6 alone now
        assert len(again) == 1 and "type u:cool6 (" in again[0] and "p:" not in again[0], again


def test_the_react_prompt_offers_the_slipstream_and_one_answer_takes_it_and_the_discard(tmp_path: Path) -> None:
    # issue 29, answers: Blue, beside Red, was asked React, then "slipstream? (y/n)", then "discards" — three
    # questions. The React prompt now offers the slipstream (# 8.1), so "n d1" is the whole rest of the turn; Enter
    # still asks the slipstream on its own (it is a decision, recorded)
    child = _to_blues_react(tmp_path)  # Red, with no car to slipstream behind, was not offered it
    child.expect_exact("Blue react (c1 b; slipstream y/n; Enter = done): ")
    child.sendline("n d1")
    child.expect_exact("Blue declines the slipstream; Blue discards 1")
    child.expect_exact(reveal_prompt("Green", 1))
    screen = _screen(child)
    assert "Blue slipstream?" not in screen and "Blue discards (" not in screen
    child.sendline("quit")
    child.expect(pexpect.EOF)
