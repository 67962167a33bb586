"""Answers a host types to record a whole race at the table (issue 10: <= 160 for a full 3-car two-lap USA
race in table mode; about 330 before. Issue 29 asks <= 80 in the one-line form and <= 120 question by question).

The race -- USA, standard two laps, 3 cars, heuristic bots, seeded -- is recorded through the real program,
``heatlog record --new`` in a pseudo-terminal (pexpect), the set-up questions included, three times:

* ``one line``: as a host who knows the notation: one line of gears per round (``3 2 4``) and one line per
  car-turn (``43s 2 c1 y d1``: reveal, flips, react, slipstream, discard; the line's end is "nothing more this
  turn" once it answers React, so ``-`` ends only a bare reveal); any question still asked on its own is answered
  on its own;
* ``per question``: every question answered on its own with all its prompt offers (a question asked once,
  answered with all it takes): the round's gears at the gear question, at the reveal a Stress card's flips
  (``(+ Stress flips``) and the rest of the turn (``React, d CARDS; - = nothing more``: React's uses, a boost
  with its flips, ``d CARDS``, or ``-``) -- except in a turn with a slipstream decision, whose cards go alone and
  whose React prompt offers the slipstream (``slipstream y/n``) with the discard after it; a React question
  still asked (after a boost's flips) takes every use at once;
* ``guided``: every question answered on its own, one choice per answer (one gear, one flip, the cards alone at
  the reveal, React's uses at React).

Every line sent counts (a bare Enter too); the stored log must be exactly the race. Time per answer is the
wall time of the whole run divided by the answers (the machine is shared: read it as an order of size).

    python bench/bench_table_answers.py [--seeds 1 2 3]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, machine, table

sys.path.insert(0, str(ROOT / "tests"))

Event = dict[str, Any]
GOALS = {"one line": 80, "per question": 120}  # issue 29
STYLES = ("one line", "per question", "guided")
KINDS: dict[str, dict[str, int]] = {}  # style -> question kind -> answers (the last seed's), for the breakdown
OVER = "race over — Enter to leave (undo takes back the last answer): "


def turn_line(car: str, expected: list[Event], i: int) -> str:
    """One line for ``car``'s whole turn from ``expected[i]`` (its reveal) on."""
    ev = expected[i]
    assert ev["type"] == "cards_revealed" and ev["car"] == car, ev
    tokens = ["".join(c.lower() for c in ev["cards"])]
    reveal_only = True
    boosted = False
    j = i + 1
    while j < len(expected) and expected[j].get("car") == car:
        e = expected[j]
        t = e["type"]
        if t == "card_flipped":
            tokens.append(e["card"].lower())
        elif t == "cooldown":
            tokens.append(f"c{e['count']}")
        elif t == "boost":
            tokens.append("b")
        elif t == "adrenaline":
            tokens.append("a" if e["bonus"] == "move" else "ac")
            if e["bonus"] == "cooldown":
                j += 1  # the cooldown of 1 that ac records with the bonus
        elif t == "slipstream":
            tokens.append("y" if e["taken"] else "n")
        elif t == "cards_discarded":
            tokens.append("d" + "".join(c.lower() for c in e["cards"]))
        elif t not in ("deck_shuffled", "cards_drawn"):  # forced draws and reshuffles are never typed
            break
        reveal_only = reveal_only and t in ("card_flipped", "deck_shuffled", "cards_drawn")
        if t in ("cooldown", "boost", "adrenaline", "slipstream", "cards_discarded"):
            boosted = t == "boost"
        j += 1
    # "-" only where the line's end does not close the turn: a bare reveal, or a boost last (its flips were news)
    return " ".join(tokens + (["-"] if reveal_only or boosted else []))


def record(expected: list[Event], db: Path, style: str) -> tuple[int, float]:
    import pexpect
    from recorder_races import strip

    from heatlog.log.racelog import RaceLog
    from heatlog.recorder import script as rs

    cmd = [sys.executable, "-m", "heatlog.cli"]  # this interpreter's heatlog
    env = {**os.environ, "NO_COLOR": "1", "TERM": "xterm"}
    env.pop("HEATLOG_DB", None)
    started = time.perf_counter()
    child = pexpect.spawn(
        cmd[0], [*cmd[1:], "record", "--new", "--db", str(db)], env=env, encoding="utf-8", dimensions=(60, 250)
    )
    child.delaybeforesend = None
    child.timeout = 60
    last = ("", -1, "")
    answers = 0
    kinds = KINDS[style] = {}
    names = [c["name"] for c in expected[0]["cars"]]
    for prompt, answer in [
        ("race name", f"bench {style}"),
        ("track (", "usa"),
        ("cars, NAME:COLOUR", " ".join(f"{c['name']}:{c['colour']}" for c in expected[0]["cars"])),
        ("variant", ""),
        ("experienced drivers", ""),
        ("mode", "table"),
        ("Garage module", ""),
        ("grid order", " ".join(expected[1]["order"])),
    ]:
        child.expect_exact(prompt)
        child.sendline(answer)
        answers += 1
    reader = RaceLog(db, create=False)
    ansi = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[=>]")
    while True:
        found = child.expect([rs.ANY_PROMPT, re.escape(OVER)])
        if found == 1:
            child.sendline("")
            answers += 1
            child.expect(pexpect.EOF)
            break
        kind, car = rs.classify(ansi.sub("", child.after))
        kinds[kind] = kinds.get(kind, 0) + 1
        i = len(strip([e.event for e in reader.effective(1).entries]))
        prompt = ansi.sub("", child.after)
        if style == "one line" and kind == "reveal":
            text = turn_line(car, expected, i)
        else:  # the prompt as shown: a React prompt that offers the slipstream is answered with it
            text = rs.answer(kind, car, expected, i, typed_chance=True, multi=style != "guided", prompt=prompt)
        if (text, i, prompt) == last:
            raise AssertionError(f"{style}: {text!r} was refused at {kind} for {car}")
        last = (text, i, prompt)
        child.sendline(text)
        answers += 1
    elapsed = time.perf_counter() - started
    got = strip([e.event for e in reader.effective(1).entries])
    assert got == strip(expected), f"{style}: the recorded log is not the race"
    assert names
    return answers, elapsed


def main() -> None:
    from recorder_races import simulated

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    args = p.parse_args()
    rows = []
    for seed in args.seeds:
        expected = simulated(3, seed, "table", track="usa", bot="heuristic", variant=None)
        from heatlog.engine import replay

        rounds = replay(expected).round
        counts = {}
        for style in STYLES:
            with tempfile.TemporaryDirectory() as tmp:
                n, secs = record(expected, Path(tmp) / "race.db", style)
            counts[style] = (n, secs)
        rows.append(
            [
                str(seed),
                str(rounds),
                str(len(expected)),
                str(counts["one line"][0]),
                str(counts["per question"][0]),
                str(counts["guided"][0]),
                f"{counts['one line'][0] / counts['guided'][0]:.2f}",
                f"{1000 * counts['one line'][1] / counts['one line'][0]:.0f}",
                "yes" if counts["one line"][0] <= GOALS["one line"] else "NO",
                "yes" if counts["per question"][0] <= GOALS["per question"] else "NO",
            ]
        )
    print(machine())
    table(
        "Answers typed for a full 3-car two-lap USA race in table mode (heatlog record --new in a pty)",
        [
            "seed",
            "rounds",
            "events",
            "answers (one line)",
            "answers (per question)",
            "answers (guided)",
            "ratio",
            "ms/answer",
            f"one line ≤ {GOALS['one line']}",
            f"per question ≤ {GOALS['per question']}",
        ],
        rows,
    )
    kinds = sorted({k for per in KINDS.values() for k in per})
    table(
        f"Answers by question (seed {args.seeds[-1]}; set-up and the final Enter not counted)",
        ["question", *KINDS],
        [[k, *(str(per.get(k, 0)) for per in KINDS.values())] for k in kinds],
    )


if __name__ == "__main__":
    main()
