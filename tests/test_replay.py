"""The replay model and the terminal replay (goldens on a fixed-width colourless console), through the CLI too.

Goldens: ``tests/golden/*.txt``, rendered from the fixed race ``tests/golden/replay-race.jsonl``; after an
intended change of the output run ``python tests/golden/regen.py`` and review the diff.
"""

from __future__ import annotations

import difflib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import replay_cases
from replay_cases import GOLDEN, capture, open_replay, race_events

from heatlog.engine import MalformedInput
from heatlog.engine import replay as fold
from heatlog.engine.modules.garage import garage_slot
from heatlog.engine.modules.legends import legend_move_of
from heatlog.engine.redact import open_to_table
from heatlog.formats.usertext import console
from heatlog.log.racelog import RaceLog
from heatlog.races import import_race
from heatlog.views.board import car_labels, render_round, track_strip
from heatlog.views.replay import build_replay, load_replay, load_round
from heatlog.views.stepper import HELP, print_rounds, step_rounds

HEATLOG = shutil.which("heatlog")


@pytest.fixture(scope="module")
def events() -> list[dict]:
    return race_events()


@pytest.fixture()
def db(tmp_path: Path, events: list[dict]) -> Path:
    path = tmp_path / "h.db"
    with RaceLog(path) as log:
        text = "".join(json.dumps(e) + "\n" for e in events)
        import_race(log, text, name="italy one-lap")
    return path


# ---------------------------------------------------------------------------------------------- goldens


@pytest.mark.parametrize("name", sorted(replay_cases.goldens(race_events())))
def test_golden(name: str, events: list[dict]) -> None:
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    actual = replay_cases.goldens(events)[name]
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), name, "now"))
        pytest.fail(f"{name} differs from its golden (python tests/golden/regen.py rewrites it):\n{diff}")


# ---------------------------------------------------------------------------------------------- the model


def test_rounds_match_the_engine(db: Path, events: list[dict]) -> None:
    """Each round's start is the projector's start of that round; its end is the next round's start."""
    rp = open_replay(events)
    assert [rv.number for rv in rp.rounds] == list(range(1, rp.last + 1))
    with RaceLog(db) as log:
        for rv in rp.rounds:
            start = log.project(1, round=rv.number).state
            assert _spots(rv.start) == _spots(start)
            after = log.project(1, round=rv.number + 1).state if rv.number < rp.last else log.project(1).state
            assert _spots(rv.end) == _spots(after)
            assert [c.engine for c in rv.end.cars.values()] == [c.engine for c in after.cars.values()]
    final = fold(events)
    assert rp.final.hall_of_fame == final.hall_of_fame
    assert all(rv.complete for rv in rp.rounds)


def _spots(state: object) -> dict:
    return {n: (c.progress, c.lane, c.finished) for n, c in state.cars.items()}  # type: ignore[attr-defined]


def test_turns_are_in_turn_order_and_narrated(events: list[dict]) -> None:
    rp = open_replay(events)
    for rv in rp.rounds:
        cars = [t.car for t in rv.turns]
        assert cars == [n for n in rv.order if n in cars]  # # 2.2: the order fixed at the round's start
        assert len(rv.narration) == len(rv.turns)
        for t, text in zip(rv.turns, rv.narration, strict=True):
            assert text.startswith(t.car + " ")
            assert t.round == rv.number and t.sub == 10


def test_series_one_value_per_round(events: list[dict]) -> None:
    rp = open_replay(events)
    series = rp.series()
    assert set(series) == {"Ann", "Bob", "Ben"}
    for s in series.values():
        assert len(s["rank"]) == len(s["engine"]) == len(s["progress"]) == rp.last + 1
    # the grid first, then the end of every round; ranks are a permutation each time
    for i in range(rp.last + 1):
        assert sorted(series[n]["rank"][i] for n in series) == [1, 2, 3]
    final_order = sorted(series, key=lambda n: series[n]["rank"][-1])
    assert final_order == rp.final.hall_of_fame
    assert all(series[n]["engine"][0] == 6 for n in series)


def test_partial_log_has_a_round_under_way(events: list[dict]) -> None:
    cut = replay_cases._mid_turn(events)
    rp = build_replay(cut)
    last = rp.rounds[-1]
    assert not last.complete and last.current is not None
    assert len(last.turns) == 2
    assert last.lines()[-1][2].endswith("(under way)")


def test_14_1_each_flip_skips_are_told_where_they_happened() -> None:
    """The cards a "+" flip skips (# 14.1) are told with the symbol that flipped them: a Stress's after the speed
    of step 3 (# 5.2), a boost's in its boost (# 7.5), and a boost still flipping as under way. The narration
    listed a boost's skips among step 3's ("plays Stress→1: speed 1; flips past Heat Stress; … boosts: +2")."""
    from heatlog.docsgen.samples import GOLDENS, golden_events
    from heatlog.engine import apply
    from heatlog.views.narrate import narrate_turn

    seen = {"stress": 0, "boost": 0, "under way": 0}
    for sample, table in GOLDENS:
        state = None
        for ev in golden_events(sample, table):
            state = apply(state, ev)
            turn = state.turn
            if turn is None or not turn.revealed or legend_move_of(turn) is not None:
                continue
            text = narrate_turn(state, turn)
            name = state.cards.label if garage_slot(state) is None else None
            if name is None:
                continue  # (a Garage race names its upgrades: the base races cover the rule)
            basic = state.cards.basic
            stress = [name(c) for p, c in turn.flips if p == "stress" and c not in basic]
            step3 = text.split("; moves ", 1)[0]
            if stress:
                seen["stress"] += 1
                assert step3.endswith("; flips past " + " ".join(stress)), text
            else:
                assert "flips past" not in step3, text
            boosts = [h for h in turn.happenings if h[0] == "boost"]
            flips = [c for p, c in turn.flips if p == "boost"]
            for _kind, _source, amount, moved in boosts:
                found = next((i for i, c in enumerate(flips) if c in basic), len(flips))
                skipped, flips = flips[:found], flips[found + 1 :]
                if skipped:
                    seen["boost"] += 1
                    assert f"): flips past {' '.join(map(name, skipped))}, +{amount}, moves {moved}" in text, text
            if flips:  # a boost under way: its flips so far, none Basic yet
                seen["under way"] += 1
                assert "; boosts: flips past " + " ".join(map(name, flips)) in text, text
    assert all(seen.values()), seen  # every case is met by the golden races


def test_5_1_a_turn_before_its_reveal_tells_no_speed_or_move(events: list[dict]) -> None:
    """A log cut as a car's turn begins (its gear chosen, its cards not revealed), then after a reveal with a
    Stress whose flip is still to come: the narration said "plays : speed 0; moves 0" and "Stress→nothing"
    (the words of a flip that found nothing), and the cars table a move of 0."""
    from heatlog.engine import apply

    state, cuts = None, {}
    events = open_to_table(events)  # at the table a car's turn is under way before its reveal
    for i, ev in enumerate(events):
        state = apply(state, ev)
        turn = state.turn
        if turn is not None and not turn.revealed and state.round > 1:
            key = "stress" if "S" in turn.played else "none" if not turn.played else None
            if key is not None:
                cuts.setdefault(key, events[: i + 1])
    assert set(cuts) == {"none", "stress"}
    for key, cut in cuts.items():
        rp = build_replay(cut)
        line = rp.rounds[-1].lines()[-1][2]
        assert line.endswith(" … (under way)") and "speed" not in line and "moves" not in line, line
        assert ("plays" in line) == (key == "stress") and "Stress→nothing" not in line, line
        if key == "stress":
            assert re.search(r"plays [^…]*\bStress\b(?!→)", line), line
        text = capture(lambda c, rp=rp: render_round(c, rp.rounds[-1], of=rp.last))
        car = rp.rounds[-1].lines()[-1][1]
        row = next(r for r in text.splitlines() if f" {car} " in r and "/" in r)  # the cars table's row
        assert " 0 " not in row.split(car, 1)[1].split("/")[0], row  # no move of 0 before the reveal


def test_table_mode_hides_hands(events: list[dict]) -> None:
    rp = build_replay(open_to_table(events))
    assert rp.final.mode == "table"
    assert all(c.hand is None for c in rp.final.cars.values())
    text = capture(lambda c: render_round(c, rp.round(2), of=rp.last))
    assert "7?" in text and "hands are hidden" in text
    assert "draws" in text and "draws 3 (" not in text  # counts, never the cards drawn


def test_unknown_round_and_car_are_user_errors(events: list[dict]) -> None:
    from heatlog.engine import MalformedInput

    rp = open_replay(events)
    with pytest.raises(MalformedInput, match="no round 99"):
        rp.round(99)
    with pytest.raises(MalformedInput, match="no car 'Zed'"):
        rp.check_car("Zed")


def test_car_labels_are_distinct() -> None:
    from heatlog.engine import apply
    from heatlog.races import race_started_event

    cars = [{"name": n, "colour": "red"} for n in ("Bob", "Ben", "Bea", "B")]
    state = apply(None, race_started_event(track="usa", cars=cars))
    labels = car_labels(state)
    assert labels == {"Bob": "B", "Ben": "E", "Bea": "A", "B": "0"}


def test_track_strip_marks_race_line_corners_and_cars(events: list[dict]) -> None:
    rp = open_replay(events)
    lines = track_strip(rp.rounds[0].start)
    t = rp.track
    text = "\n".join(lines)
    assert text.count("┃") == 2 * len(t.corners) and text.count("║") == 2
    corner_rows = [line for line in lines if line.startswith("corner")]
    limits = [word for row in corner_rows for word in row.split()[1:]]
    assert limits == [str(c.limit) for c in t.corners] + ["F"]
    for name, label in car_labels(rp.grid).items():
        assert text.count(label) >= 1, name


def test_stepper_keys(events: list[dict]) -> None:
    rp = open_replay(events)
    keys = iter(["n", "right", "p", "1", "2", "\r", "left", "G", "g", "9", "9", "\r", "q"])
    seen: list[str] = []
    out = io.StringIO()
    step_rounds(console(file=out, width=100, height=200, color_system=None), rp, read_key=lambda: next(keys))
    for screen in out.getvalue().split(HELP)[:-1]:  # each screen ends with the keys' line
        lines = screen.splitlines()
        seen.append(lines[0].split("— ")[1].split(" of")[0])
        if "no round 99" in screen:
            seen.append("refused 99")
    assert seen == [
        "round 1",
        "round 2",
        "round 3",
        "round 2",
        "round 2",  # "1" typed: the screen shows the number being typed
        "round 2",  # "2" typed
        "round 12",
        "round 11",
        "round 15",
        "round 1",
        "round 1",  # "9" typed
        "round 1",  # "9" typed
        "round 1",  # Enter: there is no round 99
        "refused 99",
    ]


def test_stepper_pages_a_round_taller_than_the_terminal(events: list[dict]) -> None:
    """At 80×24 a round (board, cars, narration: ~50 lines) scrolled its head and board off the top: each screen
    is now at most the terminal's height, its head first, its keys last; m shows the round's next page (the
    cars, then the narration), past the last back to the board; another round opens on its board."""
    rp = open_replay(events)
    keys = iter(["m", "m", "m", "m", "m", "b", "n", "q"])
    out = io.StringIO()
    step_rounds(console(file=out, width=80, height=24, color_system=None), rp, read_key=lambda: next(keys))
    screens = out.getvalue().split(HELP)[:-1]
    assert len(screens) == 8
    pages: list[str] = []
    for screen in screens:
        lines = screen.splitlines()
        assert len(lines) == 23, screen  # + the keys' line: 24, the terminal's height exactly
        assert lines[0].startswith(f"race {rp.race}") and "— round " in lines[0], lines[0]
        assert lines[-1].startswith("page "), lines[-1]
        pages.append(lines[-1].split(" of this")[0])
    total = int(pages[0].split(" of ")[1])
    assert total >= 2 and pages[: total + 1] == [f"page {i} of {total}" for i in [*range(1, total + 1), 1]]
    assert "lane 1" in screens[0] and "lane 1" not in screens[1]  # the board first, then the rest
    everything = "".join(screens[:total])
    for _, _, sentence in rp.round(1).lines(None):  # every turn's sentence is on one of the pages
        assert sentence.split(":")[0] in " ".join(everything.split()), sentence
    assert "— round 2 of" in screens[-1].splitlines()[0] and screens[-1].splitlines()[-1].startswith("page 1 of")


def _printed(rp: object, number: int) -> str:
    import io

    from heatlog.formats.usertext import console

    out = io.StringIO()
    print_rounds(console(file=out, width=100, color_system=None), rp, round=number)  # type: ignore[arg-type]
    return out.getvalue()


def test_one_round_prints_as_that_round_of_the_whole_replay(db: Path) -> None:
    """``replay --round N`` folds and narrates round N alone, from its snapshot (``load_round``, issue 10's
    start-up): what it prints is round N of the whole replay, for every round of a finished race and of a branch
    whose last round is under way with a note and an undo in it (an entry in force, one retracted)."""
    with RaceLog(db) as log:
        bid = log.branch(1, 5, "what if")
        proj = log.project(bid)
        log.append(bid, {"type": "note", "v": 1, "text": "Ann's gear card fell", "round": 5}, proj)
        entries = log.effective(1).entries
        at = log.project(1, round=5).upto
        for entry in entries[at : at + 3]:  # the first entries of the parent's round 5
            log.append(bid, entry.event)
        log.retract_last(bid)
        for race in (1, bid):
            whole = load_replay(log, race)
            numbers = [rv.number for rv in whole.rounds]
            assert numbers and whole.last == numbers[-1]
            for n in numbers:
                one = load_round(log, race, n)
                assert [rv.number for rv in one.rounds] == [n] and one.last == whole.last
                assert _printed(one, n) == _printed(whole, n), (race, n)
        assert "Ann's gear card fell" in _printed(load_round(log, bid, 5), 5)
        with pytest.raises(MalformedInput, match="no round 99"):
            load_round(log, 1, 99).round(99)


# ---------------------------------------------------------------------------------------------- the CLI


def run(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    cmd = [HEATLOG or sys.executable, *([] if HEATLOG else ["-m", "heatlog.cli"]), *args, "--db", str(db)]
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)


def test_cli_replay_prints_when_piped(db: Path) -> None:
    r = run("replay", db=db)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("race 1 (italy one-lap): Italy") == 15
    r = run("replay", "--round", "3", "--car", "Ben", db=db)
    assert r.returncode == 0, r.stderr
    lines = [line.rstrip() for line in r.stdout.splitlines()]
    assert lines == (GOLDEN / "replay-round3-car-Ben.txt").read_text(encoding="utf-8").splitlines()


def test_cli_replay_errors(db: Path) -> None:
    r = run("replay", "--round", "99", db=db)
    assert r.returncode == 1 and r.stderr.startswith("Error: ") and "race 1: no round 99 (rounds 1–15)" in r.stderr
    # in the words branch, position and review use ("race 1 has no round 99" before)
    assert run("review", "--car", "Ann", "--round", "99", db=db).stderr == r.stderr
    r = run("replay", "--car", "Zed", db=db)
    assert r.returncode == 1 and "no car 'Zed'" in r.stderr and "Traceback" not in r.stderr
    r = run("new", "--car", "Ann:red", "--car", "Bob:blue", "--seed", "1", db=db)  # a race in its first round
    page = db.parent / "new.html"
    r = run("replay", "--race", r.stdout.split()[-1], "--html", str(page), db=db)
    assert r.returncode == 0 and ": 1 round written to" in r.stderr, r.stderr  # not "1 rounds"
    # the page tells every car's turns: --car beside --html was dropped without a word, so it is refused
    page = db.parent / "ben.html"
    r = run("replay", "--html", str(page), "--car", "Ben", db=db)
    assert r.returncode == 1 and "--car narrates one car in the terminal" in r.stderr and not page.exists()


def test_cli_branch_replays_like_a_race(db: Path) -> None:
    r = run("branch", "--at-round", "5", "--name", "what if", db=db)
    assert r.returncode == 0, r.stderr
    bid = r.stdout.strip()
    r = run("replay", "--race", bid, db=db)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("race " + bid + " (what if): Italy") == 5
    assert "round 5 of 5, step 1 (shift gears)" in r.stdout


def test_cli_show_uses_the_replay_board(db: Path) -> None:
    r = run("show", "--round", "3", db=db)
    assert r.returncode == 0, r.stderr
    assert "round 3, step 1 (shift gears)" in r.stdout
    assert "lane 1" in r.stdout and "━" in r.stdout and "waiting for: gears" in r.stdout


@pytest.mark.skipif(not HEATLOG, reason="needs the heatlog entry point on PATH")
def test_cli_replay_steps_in_a_terminal(db: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        HEATLOG,
        ["replay", "--db", str(db)],
        env={**os.environ, "COLUMNS": "100", "LINES": "60"},
        timeout=20,
        encoding="utf-8",
        dimensions=(60, 100),
    )
    child.expect("round 1 of 15")
    child.expect("q quit")
    child.send("n")
    child.expect("round 2 of 15")
    child.send("\x1b[C")  # →
    child.expect("round 3 of 15")
    child.send("\x1b[D")  # ←
    child.expect("round 2 of 15")
    child.send("12\r")
    child.expect("round 12 of 15")
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.skipif(not HEATLOG or not shutil.which("tmux"), reason="needs heatlog on PATH and tmux")
def test_cli_replay_steps_in_an_80x24_terminal(db: Path, tmp_path: Path) -> None:
    """In a real 80×24 terminal (tmux) the round's head stayed on screen only while the round fitted: its board
    and narration (~50 lines) scrolled it and the board off the top at every step. Now every screen starts with
    the race and round, and m pages through the rest of the round."""
    import time

    sock = str(tmp_path / "tmux.sock")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "TMUX")}

    def tmux(*args: str) -> str:
        return subprocess.run(
            ["tmux", "-S", sock, *args], capture_output=True, text=True, env=env, timeout=30, check=True
        ).stdout

    def screen_when(wanted: str) -> list[str]:
        for _ in range(150):
            shown = tmux("capture-pane", "-t", "r", "-p")
            if wanted in shown:
                return shown.splitlines()
            time.sleep(0.1)
        raise AssertionError(f"never shown: {wanted!r}\n{shown}")

    tmux("new-session", "-d", "-s", "r", "-x", "80", "-y", "24", f"{HEATLOG} replay --db {db}; sleep 30")
    try:
        lines = screen_when("round 1 of 15")
        assert lines[0].startswith("race 1 (italy one-lap): Italy") and "lane 1" in "\n".join(lines), lines
        for key, round_ in (("n", 2), ("Right", 3), ("n", 4)):
            tmux("send-keys", "-t", "r", key)
            lines = screen_when(f"round {round_} of 15")
            assert lines[0].startswith("race 1 (italy one-lap)") and f"round {round_} of 15" in lines[0], lines
            assert "lane 1" in "\n".join(lines) and lines[-1].startswith("n/→ next"), lines
        tmux("send-keys", "-t", "r", "m")
        lines = screen_when("page 2 of")
        assert lines[0].startswith("race 1 (italy one-lap)") and "round 4 of 15" in lines[0], lines
        assert any(line.startswith("car ") for line in lines), lines  # the cars table, under the round's head
        tmux("send-keys", "-t", "r", "q")
    finally:
        subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True, env=env, timeout=30)


def test_a_cluttered_gear_reads_as_its_drop_to_first() -> None:
    # 13.2 (issue 10): the replay shows the gear a cluttered hand ends in, 4→1 (and a shift before it).
    from heatlog.engine.state import Turn
    from heatlog.views.board import _gear

    assert _gear(Turn(car="A", round=3, gear=4, from_gear=4, cluttered=True)) == "4→1"
    assert _gear(Turn(car="A", round=3, gear=4, from_gear=3, cluttered=True)) == "3→4→1"
    assert _gear(Turn(car="A", round=3, gear=2, from_gear=3)) == "3→2"


def test_cli_replay_car_is_a_few_lines_a_round(db: Path) -> None:
    r = run("replay", "--car", "Ben", db=db)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines == (GOLDEN / "replay-car-Ben.txt").read_text(encoding="utf-8").splitlines()
    rounds = [i for i, line in enumerate(lines) if line.startswith("round ")]
    assert len(rounds) == 15 and "lane 1" not in r.stdout  # no full board
    assert max(b - a for a, b in zip(rounds, [*rounds[1:], len(lines) + 1], strict=True)) <= 9  # a screen or less
    assert "Engine" in lines[rounds[0] + 3] and "space" in lines[rounds[0] + 4]  # its Heat, its position


def test_wide_characters_keep_the_board_and_narration_in_their_cells() -> None:
    from rich.cells import cell_len

    from heatlog.engine import apply
    from heatlog.races import race_started_event
    from heatlog.simulate.world import race_events, random_bot
    from heatlog.views.board import render_state

    names = ["李小龙", "🏎🏎", "Émile"]
    cars = [{"name": n, "colour": c} for n, c in zip(names, ("red", "blue", "green"), strict=True)]
    events = list(
        race_events(race_started_event(track="usa", cars=cars, mode="open"), dict.fromkeys(names, random_bot), 3)
    )
    state = None
    for ev in events[:60]:
        state = apply(state, ev)
    assert state is not None
    labels = car_labels(state)
    assert all(cell_len(label) == 1 for label in labels.values()) and len(set(labels.values())) == 3
    strip = track_strip(state)
    rows = [line for line in strip if line.startswith(("lane", "space", "corner"))]
    for block in range(0, len(rows), 4):  # in each strip row the corner lines (┃) are in the same cells
        lanes = [r for r in rows[block : block + 4] if r.startswith("lane")]
        cuts = [[cell_len(r[:i]) for i, ch in enumerate(r) if ch in "┃║"] for r in lanes]
        assert cuts[0] == cuts[1] and cuts[0], lanes
    text = capture(lambda c: render_state(c, state), width=80)
    assert all(cell_len(line) <= 80 for line in text.splitlines()), text  # wrapped in cells, not characters
