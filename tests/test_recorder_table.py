"""What a host found recording a whole race (issue 10), through the real terminal (pexpect).

Each scenario starts from a race position written into the database the way ``heatlog new --from-position``
does, then drives ``heatlog record`` in a pseudo-terminal.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from recorder_races import TRACK, cars

from heatlog.engine import state_to_position
from heatlog.log.racelog import RaceLog
from heatlog.races import start_race
from heatlog.recorder import Session
from heatlog.recorder.questions import reveal_prompt

pexpect = pytest.importorskip("pexpect")

HEATLOG = shutil.which("heatlog")
CMD = [HEATLOG] if HEATLOG else [sys.executable, "-m", "heatlog.cli"]
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[=>]")


def spawn(db: Path, *args: str) -> Any:
    env = {**os.environ, "NO_COLOR": "1", "TERM": "xterm"}
    env.pop("HEATLOG_DB", None)
    child = pexpect.spawn(
        CMD[0],
        [*CMD[1:], "record", "--db", str(db), *args],
        env=env,
        encoding="utf-8",
        dimensions=(60, 200),
        timeout=30,
    )
    child.delaybeforesend = None
    return child


def race_from(tmp_path: Path, edit: Any) -> Path:
    """A 3-car table race on the sprint track at Red's reveal (gears 2 2 1), its position edited by ``edit``."""
    db = tmp_path / "race.db"
    log = RaceLog(db)
    rid = start_race(
        log, track=str(TRACK), cars=cars(3), mode="table", variant="one-lap", grid=["Red", "Blue", "Green"]
    )
    s = Session(log, rid, fresh=True)
    s.answer("2 2 1")
    pos = state_to_position(s.view)
    for car in pos["cars"]:
        edit(car)
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(pos))
    start_race(log, track=str(TRACK), cars=cars(3), mode="table", variant="one-lap", from_position=path)
    log.close()
    return db


def green_without_heat(car: dict[str, Any]) -> None:
    """Green's Heat card was cooled to the Engine: none is unseen, so none can be in its hand (# 1.7, 7.3)."""
    if car["name"] == "Green":
        car["unseen"].remove("H")
        if car["deck_max"]:
            car["deck_max"].remove("H")
        car["deck_size"] -= 1
        car["engine"] += 1


def to_greens_react(tmp_path: Path) -> Any:
    """The recorder of a race whose Green (adrenaline, last) has no Heat among its unseen cards, at Green's
    React of round 2 (Red and Blue played theirs in one line each)."""
    child = spawn(race_from(tmp_path, green_without_heat), "--race", "2")
    for name in ("Red", "Blue"):
        child.expect_exact(reveal_prompt(name, 2))
        child.sendline("2 2 - n -" if name == "Blue" else "2 2 - -")
    child.expect_exact(reveal_prompt("Green", 1))
    child.sendline("1")
    return child


def test_a_deck_known_to_be_1_h_h_refuses_the_impossible_reveal_and_every_flip_prompt_has_an_answer(
    tmp_path: Path,
) -> None:
    # 1.7, 5.2, 5.6 (item 3): Red's 3-card deck is provably 1 H H (shuffled from the public discard pile), so
    # its hand is seven Stress. One deduction for the reveal and the flips: "1 s" is refused, "s s" accepted,
    # and each Stress flip then has an accepted answer.
    def edit(car: dict[str, Any]) -> None:
        if car["name"] == "Red":  # four spinouts' Stress in hand; every other card of Red's is seen
            car["unseen"] = ["1", "H", "H"] + ["S"] * 7
            car["deck_max"] = ["1", "H", "H"]
            car["hand_size"], car["deck_size"] = 7, 3
            car["stress_taken"] = 4
            car["discard"] = ["1", "1", "2", "2", "2", "3", "3", "3", "4", "4", "4", "0", "5"]
            car["engine"] = 5

    child = spawn(race_from(tmp_path, edit), "--race", "2")
    child.expect_exact(reveal_prompt("Red", 2))
    child.sendline("1 s")
    child.expect_exact("the 3-card deck is exactly 1 H H")
    child.expect_exact(reveal_prompt("Red", 2))
    child.sendline("s s")
    child.expect_exact("flip for Red's Stress: ")
    child.sendline("s")
    child.expect_exact("no Stress can be in the deck")
    child.expect_exact("flip for Red's Stress: ")
    child.sendline("h 1")
    child.expect_exact("flip for Red's Stress: ")  # the second Stress
    child.sendline("h 2")  # the last card of the deck, then (the reshuffle is forced) a 2 from the new deck
    child.expect_exact("Red plays Stress→1 Stress→2: speed 3")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_ac_moves_a_heat_card_and_is_refused_when_no_heat_can_be_in_hand(tmp_path: Path) -> None:
    # 6.2, 7.3, 7.4 (item 2): Green (adrenaline, last) has no Heat among its unseen cards: ac is refused in
    # plain words, and nothing tells of a cooldown that did not happen.
    child = to_greens_react(tmp_path)
    child.expect_exact("Green react (")
    child.sendline("ac")
    child.expect_exact("ac moves a Heat card from Green's hand to the Engine, but no Heat can be in the hand")
    child.expect_exact("Green react (")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    screen = ANSI.sub("", child.before or "")
    assert "cools" not in screen and "(# " not in screen


def test_undo_takes_back_what_was_typed_and_the_same_after_a_restart(tmp_path: Path) -> None:
    # item 4: Enter at React records nothing; the next undo takes back the reveal typed before it. Killed and
    # restarted at the same point, undo takes back exactly the same.
    db = race_from(tmp_path, lambda car: None)
    screens = []
    for restart in (False, True):
        child = spawn(db, "--race", "2")
        child.expect_exact(reveal_prompt("Red", 2))
        child.sendline("2 2")
        child.expect_exact("Red react (")
        child.sendline("")  # nothing more this turn (no slipstream for Red): the draw is forced
        child.expect_exact(reveal_prompt("Blue", 2))
        if restart:
            child.kill(signal.SIGKILL)
            child.close(force=True)
            child = spawn(db, "--race", "2")
            child.expect_exact("took over from a recorder that stopped without closing")
            child.expect_exact(reveal_prompt("Blue", 2))
        child.sendline("undo")
        child.expect(r"undone: ([^\r\n]*)\r")
        screens.append(re.sub(r"events? [\d–]+", "event N", child.match.group(1)))
        child.expect_exact(reveal_prompt("Red", 2))
        child.sendline("quit")
        child.expect(pexpect.EOF)
    assert screens[0] == screens[1] and screens[0].startswith("Red reveals 2 2 (and 1 entry"), screens


def test_heatlog_undo_asks_before_reopening_a_finished_race(tmp_path: Path) -> None:
    from recorder_races import simulated, strip

    from heatlog.recorder import script as rs

    expected = simulated(2, 4, "table")
    db = tmp_path / "race.db"
    log = RaceLog(db)
    rid = start_race(log, track=str(TRACK), cars=cars(2), mode="table", variant="one-lap", grid=expected[1]["order"])
    s = Session(log, rid, fresh=True)
    while s.question.kind != "over":
        i = len(strip([e.event for e in s.proj.effective.entries]))
        s.answer(rs.answer(s.question.kind, s.question.car or "", expected, i))
    length = log.store.length(rid)
    log.close()
    refused = subprocess.run([*CMD, "undo", "--db", str(db)], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    said = " ".join(refused.stderr.split())
    assert refused.returncode == 1 and "the race is finished: nothing was undone (give --yes to reopen it)" in said
    child = pexpect.spawn(CMD[0], [*CMD[1:], "undo", "--db", str(db)], encoding="utf-8", timeout=30)
    child.expect_exact("is finished: undo reopens it. Reopen? [y/N]: ")
    child.sendline("n")
    child.expect(pexpect.EOF)
    assert RaceLog(db).store.length(rid) == length
    done = subprocess.run([*CMD, "undo", "--yes", "--db", str(db)], capture_output=True, text=True)
    assert done.returncode == 0 and "retracted by event" in done.stdout


def test_set_up_weather_and_legend_questions_through_the_terminal(tmp_path: Path) -> None:
    # MODULES.md 19.3-19.7, 20.2-20.3: the set-up asks the Legend options, the race asks the tile and the tokens
    # (Tab completes them), then the Legend card at the Legend's turn; every answer is echoed in words, a
    # Legend's car line has no gear or Engine, and no digest tag is printed without --rules. A pro out of range
    # is refused in the words of heatlog new --pro (# 19.15): the set-up had a second copy of the range.
    new = subprocess.run(
        [*CMD, "new", "--car", "Ann:red", "--legend", "black", "--pro", "9", "--db", str(tmp_path / "other.db")],
        capture_output=True,
        text=True,
    )
    pro_words = "pro 9: pro Legends add 0 to 6 to every helmet number"
    assert new.returncode == 1 and "--" + pro_words in new.stderr, new.stderr
    child = spawn(tmp_path / "race.db", "--new", "--weather")
    for prompt, answer, echo in [
        ("race name", "Rainy Tuesday", "race name: Rainy Tuesday"),
        ("track", "", "USA: 69 spaces, 2 laps, 4 corners"),
        ("cars", "Ann:red Bob:blue legend:black", "cars: Ann (red), Bob (blue); Legends: Legend-Black"),
        ("Legend options", "pro 9", pro_words),
        ("Legend options", "pro 1", "Legends: pro +1, not aggressive"),
        ("variant", "", "variant: standard"),
        ("experienced drivers", "", "handicap: none"),
        ("mode", "", "mode: table (hands hidden)"),
        ("Garage module", "", "Garage: none"),
        ("grid order", "legend ann bob", "grid: Legend-Black > Ann > Bob"),
    ]:
        child.expect_exact(prompt)
        child.sendline(answer)
        child.expect_exact(echo)
    child.expect_exact("race 1 created: Rainy Tuesday")
    child.expect_exact("weather tile (cloud fog storm snow rain sun): ")
    child.send("ra\t")  # Tab completes the tile
    child.expect_exact("rain")
    child.sendline("")
    child.expect_exact("✓ weather rain")
    child.expect_exact("road conditions, one token per corner 1–4 in racing order: ")
    child.sendline("weather overheat limit+1 heat-control")
    child.expect_exact("✓ road conditions corner 1 weather, corner 2 overheat, corner 3 limit+1, corner 4 heat-control")
    child.expect_exact("── round 1 ── order: Legend-Black > Ann > Bob")
    child.expect_exact("Legend-Black: space 69 (race line), lap 1/2, Legend (moved by the Legend card); next: corner 1")
    child.expect_exact("Ann gear (now 1) [1]: ")
    child.sendline("2 2")
    child.expect_exact("✓ Ann gear 2, Bob gear 2")
    child.expect_exact("Legend card for round 1: Legend-Black's helmet number (black): ")
    child.send("\t\t")  # Tab lists the numbers printed on the cards not yet turned
    child.expect(r"10\s+11\s+12\s+13\s+14\s+15\s+16\s+17\s+18\s+19")
    child.sendline("25")
    child.expect_exact("no Legend card gives black the number 25")
    child.sendline("16")
    child.expect_exact("✓ Legend-Black: Legend card 1 (black 16)")
    child.expect_exact("→ Legend-Black (Legend) before the Legend line: helmet 17 would cross corner 1, stops on")
    child.expect_exact(reveal_prompt("Ann", 2))
    screen = ANSI.sub("", child.before or "")
    assert "(# 19" not in screen and "MODULES.md" not in screen, screen  # plain words without --rules
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_the_set_up_refuses_at_its_question_what_the_race_would_refuse_at_the_end(tmp_path: Path) -> None:
    # A race name over 100 characters and two cars of one colour passed their questions, and the race was
    # then refused when it was made, after every question (exit 1, the answers lost). The set-up asks the
    # door's checks at each question: the answer is refused there and asked again.
    db = tmp_path / "race.db"
    child = spawn(db, "--new")
    child.expect_exact("race name")
    child.sendline("x" * 150)
    child.expect_exact("is 150 characters long (at most 100)")
    child.expect_exact("race name")
    child.sendline("Tuesday")
    child.expect_exact("race name: Tuesday")
    child.expect_exact("track")
    child.sendline("")
    child.expect_exact("cars")
    child.sendline("Ann:red Bob:red")
    # named by the car as typed, not the log's field ("race_started: cars[1].colour: …")
    child.expect_exact("Bob:red: 'red' is the colour of 'Ann' (each car its own)")
    assert "cars[" not in ANSI.sub("", child.before or "")
    child.expect_exact("cars")
    child.sendline("Ann:red ann:blue")
    child.expect_exact("ann:blue: 'ann' differs from 'Ann' only in case")
    child.expect_exact("cars")
    child.sendline("Ann:red Bo\u200bb:blue")  # a name the door refuses (grid_set: order[1] was the field named)
    child.expect_exact("Bo\\u200bb:blue: 'Bo\\u200bb' is not a valid car name")
    assert "order[" not in ANSI.sub("", child.before or "")
    child.expect_exact("cars")
    child.sendline("Ann:red Bob:blue")
    child.expect_exact("cars: Ann (red), Bob (blue)")
    for prompt in ("variant", "experienced drivers", "mode", "Garage module", "grid order"):
        child.expect_exact(prompt)
        child.sendline("")
    child.expect_exact("race 1 created: Tuesday")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_digit_that_is_no_number_is_refused_not_a_crash(tmp_path: Path) -> None:
    # "²" is a digit to str.isdigit but no number to int: "c²" at React crashed the recorder (ValueError)
    child = spawn(race_from(tmp_path, lambda car: None), "--race", "2")
    child.expect_exact(reveal_prompt("Red", 2))
    child.sendline("4 3 c²")
    child.expect_exact("react with cN (cooldown N)")
    child.expect_exact(reveal_prompt("Red", 2))  # asked again: nothing was recorded
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert "Traceback" not in ANSI.sub("", child.before or "")


def test_tab_completes_the_one_line_entry_from_the_words_typed(tmp_path: Path) -> None:
    # Tab offers what the words typed so far lead to: cards while the reveal is short of them, then the
    # React answers open after it (# 7.1-7.6), then what follows a boost (its flip: a card).
    child = spawn(race_from(tmp_path, lambda car: None), "--race", "2")
    child.expect_exact(reveal_prompt("Red", 2))
    child.send("4 \t\t")
    child.expect(r"0\s+1\s+2\s+3\s+4\s+5\s+s\s")  # one more card to reveal (# 13.1: no Heat, see below)
    child.send("3 \t\t")
    child.expect(r"-\s+b\s+c1")  # React: a cooldown, a boost, or done
    child.send("c\t")
    child.expect_exact("c1")  # completed in place
    child.send(" \t\t")
    child.expect(r"-\s+b\s")  # the cooldown is used up: boost or done
    child.sendline("-")
    child.expect_exact("✓ Red reveals 4 3; Red cools 1")  # the line as completed
    child.expect_exact(reveal_prompt("Blue", 2))
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_tab_offers_heat_at_a_reveal_only_where_a_cluttered_hand_can_be(tmp_path: Path) -> None:
    # 13.1, 1.7: Heat is revealed only by a cluttered hand. At the start (one Heat card in the deck) no hand of
    # 7 can be cluttered, so Tab does not offer h; Red's hand below is provably 1 and six Heat (its 3-card deck
    # is exactly 2 2 Stress), so its reveal is "1 h": Tab offers those two, then the one that is left.
    child = spawn(race_from(tmp_path, lambda car: None), "--race", "2")
    child.expect_exact(reveal_prompt("Red", 2))
    child.send("\t\t")
    child.expect_exact(reveal_prompt("Red", 2))  # the prompt again, under the list (readline sorts it)
    offered = ANSI.sub("", child.before or "").split()
    assert {"0", "1", "2", "3", "4", "5", "s", "undo"} <= set(offered) and "h" not in offered, offered
    child.sendline("quit")
    child.expect(pexpect.EOF)

    def edit(car: dict[str, Any]) -> None:
        if car["name"] == "Red":
            car["unseen"] = ["1", "2", "2", "S"] + ["H"] * 6
            car["deck_max"] = ["2", "2", "S"]
            car["hand_size"], car["deck_size"] = 7, 3
            car["discard"] = ["1", "1", "2", "3", "3", "3", "4", "4", "4", "0", "5", "S", "S"]
            car["engine"] = 1

    (tmp_path / "cluttered").mkdir()
    child = spawn(race_from(tmp_path / "cluttered", edit), "--race", "2")
    child.expect_exact(reveal_prompt("Red", 2, stress=False))
    child.send("\t\t")
    child.expect_exact(reveal_prompt("Red", 2, stress=False))
    offered = ANSI.sub("", child.before or "").split()
    assert [w for w in offered if w not in ("\x07", "board", "help", "note", "quit", "undo")] == ["1", "h"], offered
    child.send("h \t")
    child.expect_exact("h 1")  # the one card left to reveal, completed in place
    child.sendline("")
    child.expect_exact("cluttered hand")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_tab_after_a_middle_dash_offers_what_comes_next_in_the_car_s_turn(tmp_path: Path) -> None:
    # A "-" in the middle of a line closes its own step (React: done reacting, # 7.1); only the line's last "-"
    # means "nothing more this turn". So Tab after "4 3 - " offers the discard that comes next (# 10.1: d and
    # the cards that may be discarded, or - for none), not nothing as if the turn were over.
    child = spawn(race_from(tmp_path, lambda car: None), "--race", "2")
    child.expect_exact(reveal_prompt("Red", 2))
    child.send("4 3 - \t\t")
    child.expect(r"-\s+d0\s+d1\s+d2\s+d3\s+d4\s+d5")
    child.send("d\t")  # d alone is ambiguous: nothing is inserted, the list is shown again on a second Tab
    child.send("1")
    child.sendline("")
    child.expect_exact("✓ Red reveals 4 3; Red discards 1")
    child.expect_exact(reveal_prompt("Blue", 2))
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_record_resumes_the_host_s_race_not_a_simulation_stored_since(tmp_path: Path) -> None:
    db = tmp_path / "race.db"
    log = RaceLog(db)
    start_race(log, track=str(TRACK), cars=cars(2), mode="table", variant="one-lap", grid=["Red", "Blue"], name="mine")
    log.close()
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("HEATLOG_DB", None)
    sim = subprocess.run(
        [*CMD, "simulate", "--cars", "2", "--seed", "1", "--db", str(db)], capture_output=True, text=True, env=env
    )
    assert sim.returncode == 0, sim.stderr
    child = spawn(db)  # no --race: the most recent race the host made
    child.expect_exact("race 1: ")
    child.expect_exact("Red gear (now 1) [1]: ")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_the_move_line_comes_before_the_words_that_close_its_steps(tmp_path: Path) -> None:
    # issue 29 bug 16: with no React question between (Engine 0, no Heat can be in the hand: nothing to React
    # with, # 6.2, 7.3), "no slipstream — ..." (# 8.1) and the corner paid (# 9.1) were printed before the move
    # line they follow from.
    def edit(car: dict[str, Any]) -> None:
        if car["name"] == "Red":
            car["unseen"].remove("H")
            if "H" in car["deck_max"]:
                car["deck_max"].remove("H")
            car["deck_size"] -= 1
            car["discard"] = car.get("discard", []) + ["H"] * (car["engine"] + 1)
            car["engine"] = 0

    s = Session(RaceLog(race_from(tmp_path, edit), create=False), 2)
    shown = [x.text for x in s.answer("4 3")]
    move = shown.index("Red plays 4 3: speed 7, moves 7 to space 7 (Engine 0)")
    noslip = next(i for i, x in enumerate(shown) if x.startswith("Red: no slipstream — "))
    corner = next(i for i, x in enumerate(shown) if x.startswith("Red: corner 1 (limit 4) at speed 7"))
    assert move < noslip < corner, shown
    assert s.question.kind == "discard"  # React was not asked: nothing to React with
