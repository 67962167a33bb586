"""Capture the terminal screens of docs/recording.md for real: ``heatlog record`` in tmux, answered key by key.

    python docs/capture_recording.py [OUT_DIR]

Each screen is ``tmux capture-pane`` of a 100x40 terminal after the answers listed in the walkthrough, written
to OUT_DIR/NN-name.txt (default: a temporary directory, printed at the end). The walkthrough's screens were
made with this script; re-run it after changing the recorder and paste the screens back.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SESSION = "heatlog-doc"
WIDTH, HEIGHT = 100, 40


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def screen(target: str = SESSION) -> str:
    lines = tmux("capture-pane", "-p", "-t", target).rstrip().splitlines()
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
    env = f"env NO_COLOR=1 PS1='$ ' HEATLOG_DB={work / 'race.db'}"
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
    answer("table", "(Enter = random): ")
    answer("Ann Bob Cy", "Ann gear (now 1) [1]: ")
    shot("setup")

    # 2. round 1: gears at once, reveals, a mistake, a Stress flip, slipstream; draws are forced (not asked)
    clear()
    answer("2 2 1", "Ann reveals 2: ")
    answer("4 3", "Ann react (c1 b; Enter = done): ")
    answer("", "Ann discards (Enter = none): ")
    answer("", "Bob reveals 2: ")
    answer("5 5", "Bob reveals 2: ")
    answer("4 s", "flip for Bob's Stress: ")
    answer("h 3", "Bob react (b; Enter = done): ")
    answer("", "Bob slipstream? (y/n): ")
    answer("y", "Bob discards (Enter = none): ")
    answer("", "Cy reveals 1: ")
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
    answer("3 2", "Bob reveals 3: ")
    answer("4 4 3", "Bob react (b; Enter = done): ")
    answer("", "Bob discards (Enter = none): ")
    shot("undo-corner")
    pid = tmux("display-message", "-p", "-t", SESSION, "#{pane_pid}").strip()
    child = subprocess.run(["pgrep", "-P", pid], capture_output=True, text=True).stdout.split()
    os.kill(int(child[0]), 9)
    wait("$ ")
    clear()
    answer("heatlog record", "Bob discards (Enter = none): ")
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
    answer("open", "(Enter = random): ")
    answer("Bob Ann", "or Enter if unknown: ")
    answer("", "Bob draws 7: ")
    answer("4 4 3 2 1 h s", "or Enter if unknown: ")
    answer("1 2 3 4 s 1 2 3 4 0 5 h 1 2 3 4 s s", "Bob gear (now 1) [1]: ")
    answer("2 2", "Bob plays 2 (hand 1 2 3 4 4 H S): ")
    answer("4 s", "Ann plays 2 (hand 1 1 2 2 3 4 S): ")
    answer("2 3", "flip for Bob's Stress: ")
    answer("h 2", "flip for Bob's Stress: ")
    answer("s 2", "Bob react (c1 b; Enter = done): ")
    answer("", "Bob discards (hand 1 2 3 4 H; Enter = none): ")
    answer("", "Bob draws 2: ")
    answer("3 s", "Ann react (b a ac; Enter = done): ")
    shot("open-mode")
    tmux("send-keys", "-t", SESSION, "C-d")
    wait("$ ")
    tmux("kill-session", "-t", SESSION)
    print("\n".join(shots))


if __name__ == "__main__":
    main()
