"""Capture the terminal screens of docs/recording.md for real: ``heatlog record`` in tmux, answered key by key.

    python docs/capture_recording.py [OUT_DIR]

Each screen is ``tmux capture-pane`` of a 100x40 terminal after the answers listed in the walkthrough, written
to OUT_DIR/NN-name.txt (default: a temporary directory, printed at the end). The walkthrough's screens were
made with this script; re-run it after changing the recorder and paste the screens back.

The Garage screens (section 7 of the walkthrough) come from a simulated Garage race typed in by the scripted
host (``heatlog.recorder.script``: it reads each prompt off the screen and types what the race needs next);
the script stops at the first screen of each kind of Garage question. tmux runs on its own server socket
(``-L heatlog-doc``), so another tmux on the machine is never touched.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from heatlog.recorder.questions import reveal_prompt

SESSION = "heatlog-doc"
SOCKET = "heatlog-doc"
WIDTH, HEIGHT = 100, 40


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], check=True, capture_output=True, text=True).stdout


def screen(target: str = SESSION, joined: bool = False) -> str:
    """The pane as shown; ``joined``: wrapped lines joined (a long prompt is one line)."""
    lines = tmux("capture-pane", "-p", *(["-J"] if joined else []), "-t", target).rstrip().splitlines()
    return "\n".join(line.rstrip() for line in lines)


def wait(text: str, target: str = SESSION, timeout: float = 10.0) -> None:
    """Until the screen's last line ends with ``text`` (a prompt waiting for an answer)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        last = screen(target).splitlines()[-1:] or [""]
        if last[0].endswith(text.rstrip()):
            return
        time.sleep(0.05)
    raise TimeoutError(f"no {text!r} on screen:\n{screen(target)}")


def wait_for(text: str, target: str = SESSION, timeout: float = 10.0) -> None:
    """Until ``text`` is anywhere on the screen."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if text in screen(target):
            return
        time.sleep(0.05)
    raise TimeoutError(f"no {text!r} on screen:\n{screen(target)}")


def answer(text: str, then: str, target: str = SESSION) -> None:
    if text:
        tmux("send-keys", "-t", target, "-l", text)
    tmux("send-keys", "-t", target, "Enter")
    wait(then, target)


def clear(target: str = SESSION) -> None:
    tmux("send-keys", "-t", target, "C-l")
    tmux("clear-history", "-t", target)
    time.sleep(0.2)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="heatlog-screens-"))
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="heatlog-doc-"))
    shots: list[str] = []

    def shot(name: str, target: str = SESSION) -> None:
        path = out / f"{len(shots) + 1:02d}-{name}.txt"
        path.write_text(screen(target) + "\n")
        shots.append(str(path))

    if shutil.which("tmux") is None:
        raise SystemExit("tmux is needed")
    with contextlib.suppress(subprocess.CalledProcessError):
        tmux("kill-session", "-t", SESSION)
    env = f"env NO_COLOR=1 PS1='$ ' PATH={os.environ['PATH']} HEATLOG_DB={work / 'race.db'}"
    tmux("new-session", "-d", "-s", SESSION, "-x", str(WIDTH), "-y", str(HEIGHT), "-c", str(work), f"{env} bash --norc")
    tmux("set-option", "-t", SESSION, "history-limit", "5000")
    time.sleep(0.3)
    clear()

    # 1. set-up: heatlog record --new
    answer("heatlog record --new", "(Enter = none): ")
    answer("Friday night sprint", "[usa]: ")
    answer("usa", "(2–6): ")
    answer("Ann:red Bob:blue Cy:green", "[standard]: ")
    answer("one-lap", "(Enter = none): ")
    answer("", "[table]: ")
    answer("table", "none]: ")  # (the question wraps at 100 columns)
    answer("", "(Enter = random): ")  # no Garage module (# 18.1)
    answer("Ann Bob Cy", "Ann gear (now 1) [1]: ")
    shot("setup")

    # 2. round 1: gears at once, reveals, a mistake, a Stress flip, slipstream; draws are forced (not asked)
    clear()
    answer("2 2 1", reveal_prompt("Ann", 2))
    answer("4 3", "Ann react (c1 b; Enter = nothing more): ")
    answer("", reveal_prompt("Bob", 2))
    answer("5 5", reveal_prompt("Bob", 2))
    answer("4 s h 3", "Bob react (b; slipstream y/n; Enter = done): ")  # the Stress card's flips on the line
    answer("y", reveal_prompt("Cy", 1))  # the slipstream at the React prompt: the line's end = nothing more
    shot("round1")
    clear()
    # a whole car-turn in one line: reveal 3, adrenaline move, boost (flip 2), discard 1
    answer("3 a b 2 d1", "Bob gear (now 2) [2]: ")
    shot("one-line")

    # 3. round 2: undo, a corner paid for, then the laptop dies (SIGKILL) and the recorder is started again
    clear()
    answer("3", "Ann gear (now 2) [2]: ")
    answer("4", "Cy gear (now 1) [1]: ")
    answer("undo", "Ann gear (now 2) [2]: ")
    answer("3 2", reveal_prompt("Bob", 3))
    answer("4 4 3", "Bob react (b; Enter = nothing more): ")
    shot("undo-corner")
    pid = tmux("display-message", "-p", "-t", SESSION, "#{pane_pid}").strip()
    child = subprocess.run(["pgrep", "-P", pid], capture_output=True, text=True).stdout.split()
    os.kill(int(child[0]), 9)
    wait("$ ")
    clear()
    answer("heatlog record", "Bob react (b; Enter = nothing more): ")
    shot("resume")

    # 4. a second recorder on the same race
    tmux("new-window", "-t", SESSION, "-c", str(work), f"{env} bash --norc")
    second = f"{SESSION}:1"
    wait("$ ", second)
    answer("heatlog record", "$ ", second)
    shot("second-recorder", second)
    tmux("kill-window", "-t", second)

    # 5. Ctrl-D leaves cleanly
    clear()
    tmux("send-keys", "-t", SESSION, "C-d")
    wait("$ ")
    shot("ctrl-d")

    # 6. open mode: every card entered; a known shuffle order makes draws and flips automatic
    clear()
    answer("heatlog record --new", "(Enter = none): ")
    answer("", "[usa]: ")
    answer("", "(2–6): ")
    answer("Ann:red Bob:blue", "[standard]: ")
    answer("one-lap", "(Enter = none): ")
    answer("", "[table]: ")
    answer("open", "none]: ")  # (the question wraps at 100 columns)
    answer("", "(Enter = random): ")
    answer("Bob Ann", "or Enter if unknown: ")
    answer("", "Bob draws 7: ")
    answer("4 4 3 2 1 h s", "or Enter if unknown: ")
    answer("1 2 3 4 s 1 2 3 4 0 5 h 1 2 3 4 s s", "Bob gear (now 1) [1]: ")
    answer("2 2", "Bob plays 2 (hand 1 2 3 4 4 H S): ")
    answer("4 s", "Ann plays 2 (hand 1 1 2 2 3 4 S): ")
    answer("2 3", "flip for Bob's Stress: ")
    answer("h 2", "flip for Bob's Stress: ")
    answer("s 2", "Bob react (c1 b; Enter = nothing more): ")
    answer("", "Bob draws 2: ")
    answer("3 s", "Ann react (b a; slipstream y/n; Enter = done): ")  # no ac: no Heat in her hand (# 7.3)
    shot("open-mode")
    tmux("send-keys", "-t", SESSION, "C-d")
    wait("$ ")

    # 7. the Garage: the draft, then the race's Garage questions, typed by the scripted host
    garage(work, shot)
    tmux("kill-session", "-t", SESSION)
    print("\n".join(shots))


GARAGE = {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}
GARAGE_SEED = 34  # a race whose screens show a multi-value speed, cards' symbols at React, Scrap, slipstream bonuses
GARAGE_REACT = re.compile(r"\(pay Heat|play:|salvage:|\br1|\bk1|dr \(draft\)|cool \d+ of")


def garage_race() -> list[dict[str, Any]]:
    """The simulated table-mode Garage race the host types in (random bots; declined slipstreams explicit)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from recorder_races import explicit

    from heatlog.engine.redact import open_to_table
    from heatlog.races import race_started_event
    from heatlog.simulate.world import race_events, random_bot

    cars = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}]
    garage = {"garage": dict(GARAGE)}
    start = race_started_event(track="usa", cars=cars, variant="one-lap", mode="open", modules=garage)
    bot = explicit(random_bot)
    return open_to_table(list(race_events(start, {c["name"]: bot for c in cars}, GARAGE_SEED)))


def history() -> list[str]:
    """Every line since the last clear, wrapped lines joined."""
    return tmux("capture-pane", "-p", "-J", "-S", "-", "-t", SESSION).rstrip().splitlines()


def _is_prompt(line: str) -> bool:
    from heatlog.recorder import script as rs

    try:
        rs.classify(line + " ")
    except ValueError:
        return False
    return True


def garage(work: Path, shot: Callable[[str], None]) -> None:
    from heatlog.log.racelog import RaceLog
    from heatlog.recorder import script as rs

    expected = garage_race()
    db = work / "garage.db"
    clear()
    answer(f"heatlog record --new --db {db}", "(Enter = none): ")
    answer("Garage night", "[usa]: ")
    answer("usa", "(2–6): ")
    answer("Ann:red Bob:blue", "[standard]: ")
    answer("one-lap", "(Enter = none): ")
    answer("", "[table]: ")
    answer("table", "none]: ")  # (the question wraps at 100 columns)
    answer("all snake heavy-rain tunnel-vision", "(Enter = random): ")
    answer(" ".join(expected[1]["order"]), ": ")
    log = RaceLog(db, create=False)
    want = {"speed": "garage-speed", "scrap": "garage-scrap", "accelerate": "garage-accelerate"}
    want.update(unpayable="garage-unpayable", salvage_shuffle="garage-salvage")
    taken: set[str] = set()
    pending: str | None = None  # a screen to take once its question is answered (the answer and its echo)
    for _ in range(2000):
        if pending is not None:
            shot(pending)
            clear()
            pending = None
        last = screen(joined=True).splitlines()[-1] + " "
        if last.startswith("race over"):
            break
        kind, car = rs.classify(last)
        i = len([e for e in log.effective(1).entries if e.event.get("type") != "note"])
        if kind != "garage" and "garage-draft" not in taken:
            taken.add("garage-draft")  # the draft is over: its screen
            shot("garage-draft")
            clear()
        name = want.get(kind)
        if kind == "react" and GARAGE_REACT.search(last):
            name = "garage-react"  # a card's symbol offered at React (# 18.10-18.23)
        if kind == "slipstream" and "distance" in last:
            name = "garage-slipstream"  # # 18.16: the distances the bonuses make
        if name is not None and name not in taken:
            taken.add(name)
            pending = name
        text = rs.answer(kind, car, expected, i)
        before = len(history())
        if text:
            tmux("send-keys", "-t", SESSION, "-l", text)
        tmux("send-keys", "-t", SESSION, "Enter")
        end = time.monotonic() + 10
        while time.monotonic() < end:  # until the next question waits (after the echo of this answer)
            now = history()
            if len(now) > before + 1 and (now[-1].startswith("race over") or _is_prompt(now[-1])):
                break
            time.sleep(0.05)
    tmux("send-keys", "-t", SESSION, "Enter")
    wait("$ ")


if __name__ == "__main__":
    main()
