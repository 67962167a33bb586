"""``heatlog record`` through a pseudo-terminal (pexpect), driven the way a host at the table drives it.

The driver reads each prompt off the screen, works out from the prompt alone what kind of question it is
(heatlog.recorder.script.classify) and types the answer that a simulated race (tests/recorder_races.py)
needs next. Along the way it makes mistakes, takes answers back, writes notes, kills the recorder with
SIGKILL, leaves with Ctrl-D and starts a second recorder on the same race. At the end the stored log must be
exactly the simulated race and the screen must have shown every car's outcome in plain words.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from recorder_races import TRACK, outcome_lines, simulated, strip

from heatlog.log.racelog import RaceLog
from heatlog.recorder import script as rs

pexpect = pytest.importorskip("pexpect")

HEATLOG = shutil.which("heatlog")
CMD = [HEATLOG] if HEATLOG else [sys.executable, "-m", "heatlog.cli"]
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[=>]")
SAVED = "progress is saved; run heatlog record to resume"
OVER = "race over — Enter to leave (undo takes back the last answer): "

Event = dict[str, Any]


def clean(text: str) -> str:
    return ANSI.sub("", text).replace("\r", "")


class Host:
    """The person at the laptop: one recorder process at a time, and everything the screen showed."""

    def __init__(self, db: Path, expected: list[Event], mode: str) -> None:
        self.db = db
        self.expected = expected
        self.mode = mode
        self.screen = io.StringIO()
        self.child: Any = None
        self.prompt = ""
        self.kind = ""
        self.car = ""
        self.seen: Counter[str] = Counter()
        self.reader: RaceLog | None = None
        self.race = 1
        self.starts = 0
        self.slip_car = ""  # a slipstream was just answered for this car
        self.corner_checks = 0

    # ---- the terminal

    def spawn(self, *args: str) -> Any:
        env = {**os.environ, "NO_COLOR": "1", "TERM": "xterm"}
        env.pop("HEATLOG_DB", None)
        child = pexpect.spawn(
            CMD[0],
            [*CMD[1:], "record", "--db", str(self.db), *args],
            env=env,
            encoding="utf-8",
            dimensions=(60, 250),
            timeout=30,
            # A pytest started in the background (cmd &) ignores SIGINT, and its children inherit that: the
            # terminal's Ctrl-C of ctrl_c_and_resume must reach the recorder as it does at a real terminal.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        child.logfile_read = self.screen
        child.delaybeforesend = None  # pexpect sleeps 50 ms before every send by default
        return child

    def start(self, *args: str) -> None:
        self.child = self.spawn(*args)
        self.starts += 1

    def send(self, text: str) -> None:
        self.child.sendline(text)

    def expect(self, text: str) -> None:
        self.child.expect_exact(text)

    def next_prompt(self) -> bool:
        """Wait for the next question; False when the recorder has exited (race over)."""
        found = self.child.expect([rs.ANY_PROMPT, pexpect.EOF, re.escape(OVER)])
        if found == 2:  # the last answer ended the race: it could still be taken back; leave
            self.send("")
            self.child.expect(pexpect.EOF)
        if found:
            return False
        self.prompt = clean(self.child.after)
        self.kind, self.car = rs.classify(self.prompt)
        if self.slip_car:
            self._corner_shown(self.slip_car, clean(self.child.before))
            self.slip_car = ""
        return True

    def _corner_shown(self, car: str, screen: str) -> None:
        """Item 1 of issue 10: after a slipstream answer, the corner check's outcome is on the screen before the
        discard question (the table pays or spins out first, # 9.3, 10.1)."""
        if self.reader is None:
            self.reader = RaceLog(self.db, create=False)
        turn = self.reader.project(self.race).state.turn
        if self.kind == "discard" and turn is not None and turn.car == car and turn.corners:
            assert f"{car}: corner " in screen, screen
            self.corner_checks += 1

    def same_prompt(self) -> None:
        before = self.prompt
        assert self.next_prompt(), "the recorder exited"
        assert self.prompt == before, (before, self.prompt)

    def kill(self) -> None:
        self.child.kill(signal.SIGKILL)
        self.child.close(force=True)

    # ---- what the log needs next

    def logged(self) -> int:
        if self.reader is None:
            self.reader = RaceLog(self.db, create=False)
        return len(strip([e.event for e in self.reader.effective(self.race).entries]))

    def right_answer(self, multi: bool = True, *, offered: bool = False) -> str:
        """The answer the log needs; ``offered``: as the prompt on screen offers it (the Stress flips and the rest
        of the turn on the reveal's line, the slipstream at the React prompt)."""
        return rs.answer(
            self.kind,
            self.car,
            self.expected,
            self.logged(),
            typed_chance=self.mode == "table",
            multi=multi,
            prompt=self.prompt if offered else "",
        )

    # ---- the race

    def drive(
        self,
        faults: dict[tuple[str, int], Callable[[Host], None]],
        hooks: list[tuple[Callable[[Host], bool], Callable[[Host], None]]] | None = None,
    ) -> None:
        """Answer every question; ``faults`` at the n-th question of a kind, ``hooks`` at the first question
        that satisfies their condition."""
        hooks = list(hooks or [])
        while self.next_prompt():
            self.seen[self.kind] += 1  # questions asked afresh (not the same one again after a mistake)
            fault = faults.pop((self.kind, self.seen[self.kind]), None)
            if fault is None:
                for hook in hooks:
                    if hook[0](self):
                        hooks.remove(hook)
                        fault = hook[1]
                        break
            if fault is not None:
                fault(self)
                continue
            if self.kind == "slipstream":
                self.slip_car = self.car
            multi = self.seen[self.kind] % 2 == 0
            self.send(self.right_answer(multi=multi, offered=multi))
        assert not faults and not hooks, f"faults never reached: {list(faults)} {hooks}"


# ------------------------------------------------------------------------------------------------ faults


def wrong(text: str, message: str) -> Callable[[Host], None]:
    """A mistake: a clear message, the same question again, then the right answer."""

    def fault(h: Host) -> None:
        h.send(text)
        h.expect(message)
        h.same_prompt()
        h.send(h.right_answer())

    return fault


def wrong_gear_then_undo(h: Host) -> None:
    now = int(re.search(r"\(now (\d)\)", h.prompt).group(1))  # type: ignore[union-attr]
    right = int(h.right_answer(multi=False))
    other = now if right != now else (now + 1 if now < 4 else now - 1)
    before = h.prompt
    h.send(str(other))  # legal, but not what the player chose
    assert h.next_prompt()
    h.send("undo")
    h.expect(f"undone: {h.car if h.car in before else ''}")
    h.expect(" retracted, the originals stay in the log")
    assert h.next_prompt() and h.prompt == before
    h.send(h.right_answer())


def close_react_too_early_then_undo(h: Host) -> None:
    """Enter at React although the player still reacts: undo takes back what the host typed last -- the
    reveal (or flips) that led here, Enter with it -- and the host types it again (issue 10, item 4)."""
    car = h.car
    h.send("")
    assert h.next_prompt()
    h.send("undo")
    h.expect(f"undone: {car} ")
    h.expect(" retracted, the originals stay in the log")
    assert h.next_prompt() and h.car == car and h.kind in ("reveal", "flip", "react")
    h.send(h.right_answer())


def note(h: Host) -> None:
    h.send("note the cat walked across the board")
    h.expect("note recorded at round ")
    h.same_prompt()
    h.send(h.right_answer())


def sigkill_and_resume(h: Host) -> None:
    """SIGKILL at a question: the next recorder asks exactly that question (nothing lost or duplicated)."""
    before, logged = h.prompt, h.logged()
    h.kill()
    h.start()
    h.expect("took over from a recorder that stopped without closing")
    h.expect("resuming at ")  # round N, or "the set-up" in the Garage draft
    assert h.next_prompt() and h.prompt == before
    assert h.logged() == logged
    h.send(h.right_answer())


def sigkill_right_after_answering(h: Host) -> None:
    """SIGKILL while the answer is being written: it is either in the log or not -- never half, never twice."""
    h.send(h.right_answer())
    h.kill()
    h.start()
    h.expect("took over from a recorder that stopped without closing")


def enter_then_sigkill(h: Host) -> None:
    """Done reacting is not an event, yet a killed recorder resumes after it (the cursor in the lease row)."""
    assert h.right_answer() == "", "pick a React the player skips"
    h.send("")
    assert h.next_prompt()
    after = h.prompt
    assert h.kind != "react"
    h.kill()
    h.start()
    assert h.next_prompt() and h.prompt == after
    if h.kind == "slipstream":  # (Enter at React closes only React when a slipstream comes, issue 29)
        h.slip_car = h.car
    h.send(h.right_answer())


def _leave_and_resume(h: Host, leave: Callable[[], object]) -> None:
    """Leave with a key (progress is saved, exit 0), start again: the same question is asked."""
    before = h.prompt
    leave()
    h.expect(SAVED)
    h.child.expect(pexpect.EOF)
    h.child.close()
    assert h.child.exitstatus == 0
    h.start()
    assert h.next_prompt() and h.prompt == before
    h.send(h.right_answer())


def ctrl_d_and_resume(h: Host) -> None:
    _leave_and_resume(h, lambda: h.child.sendcontrol("d"))


def ctrl_c_and_resume(h: Host) -> None:
    _leave_and_resume(h, h.child.sendintr)


def board_and_help(h: Host) -> None:
    h.send("board")
    h.expect("waiting for")
    h.same_prompt()
    h.send("help")
    h.expect("commands: undo (take back the last answer), note TEXT, board, help, quit")
    h.same_prompt()
    h.send(h.right_answer())


def second_recorder(h: Host) -> None:
    other = h.spawn()
    other.expect_exact("is being recorded by another heatlog record (pid ")
    other.expect(pexpect.EOF)
    other.close()
    assert other.exitstatus == 1
    h.send(h.right_answer())


# ------------------------------------------------------------------------------------------------ the races


def check_end(h: Host, expected: list[Event]) -> str:
    h.child.close()
    assert h.child.exitstatus == 0
    screen = clean(h.screen.getvalue())
    log = RaceLog(h.db, create=False)
    stored = [s.event for s in log.stored(1)]
    effective = [e.event for e in log.effective(1).entries]
    assert strip(effective) == strip(expected), "the recorded log is not the race"
    assert any(ev["type"] == "retracted" for ev in stored), "undo leaves a correction event"
    assert len(stored) > len(effective), "the retracted originals stay in the log"
    assert any(ev["type"] == "note" for ev in effective)
    typed = [ev for ev in effective if ev["type"] in ("gear_chosen", "slipstream", "cards_discarded")]
    assert typed and all("raw" in ev for ev in typed)
    for line in outcome_lines(expected):
        assert "→ " + line in screen, f"the screen never showed: {line}"
    assert "race over — Hall of Fame: 1. " in screen
    audit = subprocess.run([*CMD, "audit", "--db", str(h.db)], capture_output=True, text=True)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    return screen


def new_race(h: Host, mode: str, grid: list[str], cars: str) -> None:
    h.start("--new")
    for prompt, answer in [
        ("race name, e.g. Friday night USA (Enter = none): ", f"{mode} race at the club"),
        (
            "track (usa, great-britain, france, italy, japan, mexico, spain, netherlands, or a track file) [usa]: ",
            str(TRACK),
        ),
        ("cars, NAME:COLOUR each", cars),
        ("variant: standard or one-lap [standard]: ", "one-lap"),
        ("experienced drivers, who start with 5 Engine Heat (Enter = none): ", ""),
        ("mode: table (hands hidden) or open (every card entered) [table]: ", mode),
        ("Garage module: none, or basic/advanced/all upgrades", ""),  # # 18.1: a base race
        ("grid order, front first (Enter = random): ", " ".join(grid)),
    ]:
        h.expect(prompt)
        h.send(answer)
    h.expect("grid: " + " > ".join(grid))


def test_a_three_car_race_in_table_mode(tmp_path: Path) -> None:
    expected = simulated(3, 14, "table")
    h = Host(tmp_path / "race.db", expected, "table")
    new_race(h, "table", expected[1]["order"], "Red:red Blue:blue Green:green")
    h.expect("── round 1 ── order: ")
    faults = {
        ("gear", 1): wrong("x", "'x' is not a gear for Blue: type 1, 2, 3 or 4"),
        ("gear", 2): wrong_gear_then_undo,
        ("reveal", 2): wrong("5 5 5 5 5", "in gear"),
        ("reveal", 3): wrong("5 5", 'only 1 "5" is unseen (deck and hand), not 2'),
        ("react", 2): wrong("c9", "more cooldown this turn, not 9"),
        ("discard", 2): wrong("h", "Heat cannot be discarded from the hand"),
        ("gear", 4): note,
        ("reveal", 5): sigkill_and_resume,
        ("gear", 9): second_recorder,
        ("gear", 10): sigkill_right_after_answering,
        # discard questions come only after a slipstream now, and a boost's flips across a reshuffle are one
        # answer (issue 29): three in this race
        ("discard", 3): ctrl_d_and_resume,
        ("flip", 2): wrong("q", "'q' is not a card"),
    }
    hooks = [
        (lambda h: h.kind == "react" and h.right_answer() != "", close_react_too_early_then_undo),
        (lambda h: h.kind == "react" and h.right_answer() == "" and h.seen["react"] > 3, enter_then_sigkill),
    ]
    h.drive(faults, hooks)
    screen = check_end(h, expected)
    assert "no slipstream — " in screen
    assert h.starts >= 5
    assert h.corner_checks >= 1, "no slipstream before a corner in this race: pick another seed"


def test_a_two_car_race_in_open_mode(tmp_path: Path) -> None:
    expected = simulated(2, 33, "open")
    h = Host(tmp_path / "race.db", expected, "open")
    new_race(h, "open", expected[1]["order"], "Red:red Blue:blue")
    faults = {
        ("setup_shuffle", 1): wrong("1 2 3", "the shuffled order must be exactly the 18 deck cards"),
        ("gear", 2): wrong_gear_then_undo,
        ("play", 1): wrong("h h", "only 0 Heat are in the hand, not 2"),
        ("play", 3): sigkill_and_resume,
        ("gear", 5): note,
        ("gear", 7): sigkill_right_after_answering,
        ("play", 6): ctrl_d_and_resume,
        ("gear", 9): ctrl_c_and_resume,
        ("react", 3): board_and_help,
    }
    h.drive(faults)
    screen = check_end(h, expected)
    assert "(determined by the rules)" in screen
    assert h.seen["flip"] == 0 and h.seen["draw"] == 0, "a known deck order determines every flip and draw"


# ------------------------------------------------------------------------------------------------ the Garage

GARAGE = {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}


def garage_simulated(n: int, seed: int, mode: str) -> list[Event]:
    """A random-bot Garage race on the sprint track (every upgrade, snake draft, # 18.3, 18.5) as a host answers it."""
    from recorder_races import cars, explicit

    from heatlog.engine.redact import open_to_table
    from heatlog.races import race_started_event
    from heatlog.simulate.world import race_events, random_bot

    start = race_started_event(
        track=str(TRACK), cars=cars(n), mode="open", variant="one-lap", modules={"garage": dict(GARAGE)}
    )
    bot = explicit(random_bot)
    events = list(race_events(start, {c["name"]: bot for c in start["cars"]}, seed))
    return open_to_table(events) if mode == "table" else events


def answer_then_undo(h: Host) -> None:
    """The right answer, taken back at once: the same question again (a draft pick is an event like any)."""
    before = h.prompt
    h.send(h.right_answer())
    assert h.next_prompt()
    h.send("undo")
    h.expect("undone: ")
    assert h.next_prompt() and h.prompt == before, (before, h.prompt)
    h.send(h.right_answer())


def tab_completes_the_pick(h: Host) -> None:
    """# 18.5: a pick typed by the start of its short name; Tab completes it from the cards left in the market."""
    name = h.right_answer()
    shorts = re.search(r"picks one of (.*): $", h.prompt)
    assert shorts, h.prompt
    left = shorts.group(1).split()
    stem = next(name[:k] for k in range(1, len(name) + 1) if [s for s in left if s.startswith(name[:k])] == [name])
    h.child.send(stem + "\t")
    h.expect(name)
    h.send("")


def test_a_garage_race_in_table_mode_through_the_terminal(tmp_path: Path) -> None:
    """# 18.3–18.25 at the table: the wizard's Garage options, the snake draft card by card (markets, picks with
    Tab completion, the give-backs), then the race's Garage questions — multi-value speeds at the reveal (18.6),
    the React line's card symbols, Scrap (18.12), the slipstream's distances (18.16) — with mistakes, an undo of
    a pick, a SIGKILL in the draft and Ctrl-D in the race; the stored log is exactly the simulated race."""
    expected = garage_simulated(2, 5, "table")
    h = Host(tmp_path / "race.db", expected, "table")
    h.start("--new")
    for prompt, answer in [
        ("race name, e.g. Friday night USA (Enter = none): ", "garage night"),
        ("[usa]: ", str(TRACK)),
        ("cars, NAME:COLOUR each", "Red:red Blue:blue"),
        ("variant: standard or one-lap [standard]: ", "one-lap"),
        ("(Enter = none): ", ""),
        ("[table]: ", "table"),
    ]:
        h.expect(prompt)
        h.send(answer)
    h.expect("Garage module: none, or basic/advanced/all upgrades")
    h.send("all snake sunny")
    h.expect("sunny")  # an unknown word is named, and the question asked again
    h.expect("Garage module: none, or basic/advanced/all upgrades")
    h.send("all snake heavy-rain tunnel-vision")
    h.expect("Garage: all upgrades with heavy-rain, tunnel-vision, snake draft")
    h.expect("grid order, front first (Enter = random): ")
    h.send(" ".join(expected[1]["order"]))
    faults = {
        ("garage", 1): wrong("brakes9999", "no Garage card called 'brakes9999'"),
        ("garage", 2): wrong("cool", "'cool' could be cool6, cool1, cool3, cool4: type more of the name"),
        ("garage", 3): tab_completes_the_pick,
        ("garage", 4): sigkill_and_resume,
        ("garage", 6): answer_then_undo,
        ("garage", 8): note,
        ("speed", 1): wrong("9", "type one of the printed values"),
        ("scrap", 1): wrong("q", "no Garage card called 'q' in this race"),
        ("slipstream", 1): wrong("9", "not 9"),
        ("reveal", 4): ctrl_d_and_resume,
        ("react", 2): board_and_help,
    }
    h.drive(faults)
    screen = check_end(h, expected)
    assert {"garage", "speed", "scrap", "slipstream", "react"} <= set(h.seen), h.seen
    assert "gives back " in screen  # the snake draft's removal, in words (# 18.5)
    assert " is worth (" in screen  # a multi-value card's printed values (# 18.6)
    assert "(# " not in screen  # plain words without --rules


def test_a_garage_race_in_open_mode_through_the_terminal(tmp_path: Path) -> None:
    """Open mode (every card typed): the starting shuffles with the upgrades in the decks (# 18.1), Refresh at the
    discard question (`f:NAME`, # 18.21, also after the finish line), Super Cool and a Direct Play in the React
    line (# 18.22, 18.19); the stored log is exactly the simulated race."""
    expected = garage_simulated(2, 2, "open")
    h = Host(tmp_path / "race.db", expected, "open")
    h.start("--new")
    for prompt, answer in [
        ("race name, e.g. Friday night USA (Enter = none): ", "open garage"),
        ("[usa]: ", str(TRACK)),
        ("cars, NAME:COLOUR each", "Red:red Blue:blue"),
        ("variant: standard or one-lap [standard]: ", "one-lap"),
        ("(Enter = none): ", ""),
        ("[table]: ", "open"),
        ("Garage module: none, or basic/advanced/all upgrades", "all snake heavy-rain tunnel-vision"),
        ("grid order, front first (Enter = random): ", " ".join(expected[1]["order"])),
    ]:
        h.expect(prompt)
        h.send(answer)
    faults = {("garage", 2): note, ("garage", 3): answer_then_undo}
    h.drive(faults)
    screen = check_end(h, expected)
    assert "f = refresh " in screen and "refreshes" in screen  # # 18.21, in the question and in words
    assert {"garage", "setup_shuffle", "react", "discard"} <= set(h.seen), h.seen
