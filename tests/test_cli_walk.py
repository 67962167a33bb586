"""A user's walk through the commands (issue h31): what a command says when it is handed the wrong thing, through
the real entry point (``python -m heatlog.cli``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


def heatlog(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "heatlog.cli", *args], capture_output=True, text=True, timeout=300)


def test_season_import_of_a_race_log_names_the_command_that_reads_it(tmp_path: Path) -> None:
    """A race's export handed to `season import` was refused with one "not a season file line" per event (95 of
    them for the learning race, a screen of text): it says what the file is, and which command reads it."""
    r = heatlog("season", "import", str(REPLAYS / "learning-2cars.jsonl"), "--db", str(tmp_path / "s.db"))
    assert r.returncode == 1
    assert "a race's log (heatlog export), not a season file" in r.stderr and "`heatlog import`" in r.stderr
    assert "not a season file line" not in r.stderr and len(r.stderr) < 400, r.stderr


def test_season_import_names_the_first_twenty_problems_and_counts_the_rest(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(f'{{"stream": "season", "event": {i}}}\n' for i in range(60)), encoding="utf-8")
    r = heatlog("season", "import", str(bad), "--db", str(tmp_path / "s.db"))
    assert r.returncode == 1 and "60 problem(s), nothing imported" in r.stderr, r.stderr
    assert "line 20: not a season file line" in r.stderr and "line 21:" not in r.stderr
    assert "… and 40 more" in r.stderr


def test_import_of_a_season_file_names_the_command_that_reads_it(tmp_path: Path) -> None:
    """The other way round: a season file handed to `heatlog import` listed 'the event has no "type"' per line."""
    db = str(tmp_path / "s.db")
    cars = ["--car", "Ann:red", "--car", "Bob:blue"]
    assert heatlog("season", "new", "--published", "1961", *cars, "--db", db).returncode == 0
    assert heatlog("season", "result", "1", "--places", "Bob,Ann", "--db", db).returncode == 0
    season_file = tmp_path / "season.jsonl"
    assert heatlog("season", "export", "1", "-o", str(season_file), "--db", db).returncode == 0
    r = heatlog("import", str(season_file), "--db", db)
    assert r.returncode == 1
    assert "a season file (heatlog season export), not a race's log" in r.stderr, r.stderr
    assert "`heatlog season import`" in r.stderr and 'has no "type"' not in r.stderr


def test_stats_over_many_races_cuts_no_name_in_an_80_column_terminal(tmp_path: Path) -> None:
    """`heatlog stats --all` at 80 columns cut every cell to fit its 12 columns: the five Legends were each
    "Leg…", a mean place "2.…". The least wanted columns give way instead, and it says which."""
    import os

    db = str(tmp_path / "r.db")
    for name in ("gb-solo-legends", "netherlands-legends-weather", "italy-6cars"):
        assert heatlog("import", str(REPLAYS / f"{name}.jsonl"), "--db", db).returncode == 0
    env = {**os.environ, "COLUMNS": "80"}
    cmd = [sys.executable, "-m", "heatlog.cli", "stats", "--all", "--db", db]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    table = r.stdout.split("left out at this width:")[0]
    assert "…" not in table, r.stdout
    for name in ("Legend-Black", "Legend-Blue", "Legend-Gray", "Legend-Yellow", "Red", "White"):
        assert f"│ {name} " in table
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    assert "left out at this width: μ ± σ, Slips" in r.stdout
    wide = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={**env, "COLUMNS": "200"})
    assert "left out" not in wide.stdout and "μ ± σ" in wide.stdout and "Slips" in wide.stdout


def test_races_in_an_80_column_terminal_drop_the_date_before_cutting_names_to_nothing(tmp_path: Path) -> None:
    """`heatlog races` in an 80-column terminal after `heatlog demo` cut every name to three letters ("usa…",
    "net…") to keep the date made: the date gives way first while the names would be cut below 12 cells."""
    import os
    import re

    import pexpect  # type: ignore[import-untyped]

    db = str(tmp_path / "r.db")
    names = ("usa-4cars", "netherlands-legends-weather", "usa-garage-legends-weather", "learning-2cars")
    for name in names:
        assert heatlog("import", str(REPLAYS / f"{name}.jsonl"), "--name", name, "--db", db).returncode == 0

    def screen(columns: int) -> list[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "HEATLOG_DB")}
        env.update(NO_COLOR="1", TERM="xterm")
        child = pexpect.spawn(
            sys.executable,
            ["-m", "heatlog.cli", "races", "--db", db],
            env=env,
            encoding="utf-8",
            dimensions=(40, columns),
        )
        child.expect(pexpect.EOF)
        text = re.sub(r"\x1b\[[0-?]*[ -/]*[@-~]", "", (child.before or "").replace("\r", ""))
        return [line.rstrip() for line in text.splitlines() if line.strip() and not line.startswith("races in")]

    narrow = screen(80)
    assert all(len(line) <= 80 for line in narrow), narrow
    assert "created" not in narrow[0] and "status" in narrow[0] and "winner" in narrow[0]
    assert "usa-4cars " in narrow[1] and "learning-2cars" in narrow[4]
    assert "netherlands…" in narrow[2] or "netherlands-" in narrow[2], narrow
    wide = screen(160)
    assert "created" in wide[0] and "netherlands-legends-weather" in wide[2], wide


def test_study_run_names_a_bad_module_once(tmp_path: Path) -> None:
    """`--module` that is not JSON said "Error: not understood: malformed: --module: …": the kind twice."""
    r = heatlog("study", "run", "--track", "usa", "--cars", "2", "--seeds", "1", "--module", "[[[", "-o", str(tmp_path))
    assert r.returncode == 1
    assert "Error: not understood: --module: not valid JSON" in r.stderr and "malformed" not in r.stderr, r.stderr


def test_show_with_the_longest_names_cuts_a_name_never_a_figure(tmp_path: Path) -> None:
    """A car's name is one word of up to 40 characters, 80 terminal cells of wide ones: at 80 columns `show`
    kept each name whole and rich cut the figures instead — every header "…", each spot "6…"."""
    import os

    from rich.cells import cell_len

    db = str(tmp_path / "r.db")
    wide, long = "李" * 40, "A" * 40
    cars = ["--car", f"{long}:red", "--car", f"{wide}:blue", "--car", "Cy:green"]
    assert heatlog("new", *cars, "--db", db).returncode == 0
    cmd = [sys.executable, "-m", "heatlog.cli", "show", "--db", db]
    for columns in (80, 100):
        r = subprocess.run(
            cmd, capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": str(columns)}
        )
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert all(cell_len(line) <= columns for line in lines), r.stdout
        heads = [line for line in lines if line.startswith("car ")]
        assert heads and all("…" not in line for line in heads), r.stdout  # every column's header whole
        assert "gear played flips speed move slip corners spin" in r.stdout
        assert "lap  spot Eng hand deck disc" in r.stdout, r.stdout
        rows = [line for line in lines if line.startswith(("A AAA", "0 李"))]
        assert len([line for line in rows if line.rstrip().endswith(" 6   7?   11    0")]) == 2, r.stdout
        assert any("…" in line for line in rows)  # the names were cut, and said so


def test_review_in_an_80_column_terminal_cuts_no_word(tmp_path: Path) -> None:
    """`heatlog review` at 80 columns cut nearly every cell of its ten columns ("adre…", "slip…", "(the one
    take…", "with… noise"): the words wrap whole in the columns kept, and a line names those left out."""
    import os

    from rich.cells import cell_len

    db = str(tmp_path / "r.db")
    assert heatlog("import", str(REPLAYS / "learning-2cars.jsonl"), "--db", db).returncode == 0
    args = ["review", "--car", "Red", "--round", "2", "--screen", "4", "--max-playouts", "16", "--workers", "1"]
    cmd = [sys.executable, "-m", "heatlog.cli", *args, "--db", db]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env={**os.environ, "COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    table = [line for line in r.stdout.splitlines() if line[:1] in "┏┃┡│└"]
    assert table and all(cell_len(line) <= 80 for line in table), r.stdout
    assert not any("…" in line for line in table), r.stdout
    assert "label" in r.stdout and "best found" in r.stdout and "(the one" in r.stdout
    assert "left out at this width: options, win, playouts" in r.stdout


def test_stats_of_a_six_car_race_cuts_no_label_in_an_80_column_terminal(tmp_path: Path) -> None:
    """`heatlog stats --race N` of a six-car race at 80 columns cut its labels ("Slipstr…", "adrenal…",
    "downshi…"): every column is as wide as its longest word at least, the words wrap."""
    import os

    from rich.cells import cell_len

    db = str(tmp_path / "r.db")
    assert heatlog("import", str(REPLAYS / "italy-6cars.jsonl"), "--db", db).returncode == 0
    cmd = [sys.executable, "-m", "heatlog.cli", "stats", "--db", db]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    assert "…" not in r.stdout and all(cell_len(line) <= 80 for line in r.stdout.splitlines()), r.stdout
    for word in ("Slipstreams", "adrenaline", "downshift", "Yellow", "White"):
        assert word in r.stdout


def test_luck_shows_no_negative_zero(tmp_path: Path) -> None:
    """The luck table printed "-0.000" (Yellow's luck and net luck in the Italy sample, a sum zero but for
    floating-point rounding): a zero is +0.000."""
    db = str(tmp_path / "r.db")
    assert heatlog("import", str(REPLAYS / "italy-6cars.jsonl"), "--db", db).returncode == 0
    r = heatlog("luck", "--playouts", "1", "--workers", "1", "--db", db)
    assert r.returncode == 0, r.stderr
    assert "Yellow" in r.stdout and "+0.000" in r.stdout and "-0.000" not in r.stdout, r.stdout


def test_compare_in_an_80_column_terminal_keeps_its_headers_whole(tmp_path: Path) -> None:
    """The difference table of `heatlog compare --playouts` at 80 columns cut a header to "(independen…"."""
    import os

    from rich.cells import cell_len

    db = str(tmp_path / "r.db")
    assert heatlog("import", str(REPLAYS / "usa-4cars.jsonl"), "--db", db).returncode == 0
    branch = ["branch", "--race", "1", "--at-round", "16", "--name", "what-if", "--play-on", "--seed", "1"]
    assert heatlog(*branch, "--db", db).returncode == 0
    cmd = [sys.executable, "-m", "heatlog.cli", "compare", "1", "2", "-k", "4", "--seed", "1", "--workers", "1"]
    r = subprocess.run(
        [*cmd, "--db", db], capture_output=True, text=True, timeout=600, env={**os.environ, "COLUMNS": "80"}
    )
    assert r.returncode == 0, r.stderr
    assert "(independent)" in r.stdout and "(independen…" not in r.stdout, r.stdout
    assert all(cell_len(line) <= 80 for line in r.stdout.splitlines()), r.stdout


def test_an_unknown_race_names_the_database_and_the_races_it_holds(tmp_path: Path) -> None:
    """`--race 99` said "Error: store: no race 99": which file, what it holds, where to look, in a user's words
    (the store's UnknownRace worded by the CLI); a number beyond SQLite's integers is no race either."""
    db = tmp_path / "h.db"
    heatlog("import", str(REPLAYS / "learning-2cars.jsonl"), "--db", str(db))
    heatlog("import", str(REPLAYS / "learning-2cars.jsonl"), "--again", "--db", str(db))
    for args in (["show", "--race", "99"], ["stats", "--race", "99"], ["replay", "--race", "99", "--round", "3"]):
        r = heatlog(*args, "--db", str(db))
        assert r.returncode == 1, (args, r.stderr)
        said = " ".join(r.stderr.split())
        assert (
            said == f"Error: not found: no race 99 in {db}: it holds 2 races, 1 to 2 (`heatlog races --all` lists them)"
        ), said
    r = heatlog("show", "--race", str(2**64), "--db", str(db))
    assert f"no race {2**64} in {db}: it holds 2 races" in " ".join(r.stderr.split()), r.stderr
    # with --rules, the store's own words (kind and all)
    r = heatlog("--rules", "show", "--race", "99", "--db", str(db))
    assert "store: no race 99 in" in " ".join(r.stderr.split()), r.stderr


def test_an_unknown_race_in_an_empty_database_says_how_to_start_one(tmp_path: Path) -> None:
    from heatlog.store import EventStore

    db = tmp_path / "empty.db"
    EventStore(db).close()
    r = heatlog("show", "--race", "1", "--db", str(db))
    said = " ".join(r.stderr.split())
    assert r.returncode == 1, r.stderr
    assert said == f"Error: not found: no race 1 in {db}: it holds no race yet (`heatlog new` starts one)", said


def test_signed_figures_are_never_minus_zero() -> None:
    """A figure zero but for rounding printed "-0.000" (luck) or "-0.00" (compare's difference, the review
    page's cost): one signed format for all of them, +0.000 / +0.00."""
    from heatlog.formats.words import signed

    assert signed(-0.0004) == "+0.000" and signed(-0.0) == "+0.000" and signed(0.0) == "+0.000"
    assert signed(-0.004, 2) == "+0.00" and signed(-0.006, 2) == "-0.01" and signed(0.25, 2) == "+0.25"
    assert signed(-1.5) == "-1.500" and signed(2.0004) == "+2.000"
    # unsigned figures that may fall a hair below zero (review's loss in the terminal): 0.00, not -0.00
    from heatlog.formats.words import fixed

    assert fixed(-0.001) == "0.00" and fixed(-0.006) == "-0.01" and fixed(1.234) == "1.23" and fixed(-0.0) == "0.00"


def test_compare_never_prints_minus_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """compare's difference table printed f"{x:+.2f}": a difference of -0.001 places (or an interval's end that
    close to zero) showed as "-0.00"; it is +0.00, as luck's are."""
    import dataclasses

    from typer.testing import CliRunner

    from heatlog.analysis.playout import PlayoutResult
    from heatlog.cli import app

    db = str(tmp_path / "r.db")
    assert heatlog("import", str(REPLAYS / "usa-4cars.jsonl"), "--db", db).returncode == 0
    branch = ["branch", "--race", "1", "--at-round", "16", "--name", "what-if", "--play-on", "--seed", "1"]
    assert heatlog(*branch, "--db", db).returncode == 0
    real = PlayoutResult.difference

    def nearly_zero(self: PlayoutResult) -> dict[str, object]:
        return {c: dataclasses.replace(d, mean=-0.001, interval=(-0.004, 0.002)) for c, d in real(self).items()}

    monkeypatch.setattr(PlayoutResult, "difference", nearly_zero)
    args = ["compare", "1", "2", "-k", "2", "--seed", "1", "--workers", "1", "--db", db]
    r = CliRunner().invoke(app, args, prog_name="heatlog", terminal_width=200)
    assert r.exit_code == 0, r.output
    assert "+0.00…+0.00" in r.output and "-0.00" not in r.output, r.output


def test_the_demo_names_commands_that_exist_one_a_line_in_80_columns(tmp_path: Path) -> None:
    """At 80 columns the demo's closing hints wrapped mid-command ("heatlog" / "--help" on the next line) and
    said `--race N`: one command a line now, the race it replayed named, each command one that runs."""
    import os

    env = {**os.environ, "COLUMNS": "80"}
    cmd = [sys.executable, "-m", "heatlog.cli", "demo", "--db", str(tmp_path / "d.db")]
    cmd += ["--html", str(tmp_path / "d.html")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    hints = lines[lines.index("next:") + 1 :]
    assert len(hints) >= 4 and all(len(line) <= 80 for line in hints), hints
    assert hints[0].split()[:4] == ["heatlog", "replay", "--race", "1"], hints
    for line in hints:
        words = line.split("   ")[0].split()
        assert words[0] == "heatlog", line
        help_args = [w for w in words[1:] if not w.startswith("--") and not w.isdecimal()]
        h = heatlog(*help_args, "--help")
        assert h.returncode == 0, (line, h.stderr)


def test_season_show_points_to_the_race_under_way_not_to_a_next_race_it_refuses(tmp_path: Path) -> None:
    """With the season's first race started and not over, `season show` said "next: heatlog season next 1",
    which then refused ("race 1 is not over yet"). It names the race to record; the refusal names it too."""
    db = str(tmp_path / "s.db")
    cars = ["--car", "Ann:red", "--car", "Bob:blue"]
    assert heatlog("season", "new", "--published", "1961", *cars, "--db", db).returncode == 0
    assert heatlog("season", "next", "1", "--db", db).returncode == 0
    r = heatlog("season", "show", "1", "--db", db)
    assert r.returncode == 0 and "next: heatlog record --race 1  (race 1 is under way)" in r.stdout, r.stdout
    assert "heatlog season next" not in r.stdout, r.stdout
    r = heatlog("season", "next", "1", "--db", db)
    assert r.returncode == 1 and "record it (heatlog record --race 1)" in " ".join(r.stderr.split()), r.stderr


def test_undo_says_what_it_undid_in_words(tmp_path: Path) -> None:
    """`heatlog undo` said "event 2 (grid_set) retracted by event 3": the event's type, not what it was. It says it
    as the recorder does (the car, the cards, the grid), and an undo with nothing left is refused in those words."""
    db = str(tmp_path / "u.db")
    r = heatlog("new", "--car", "Ann:red", "--car", "Bob:blue", "--mode", "table", "--db", db)
    assert r.returncode == 0, r.stderr
    r = heatlog("undo", "--db", db)
    assert r.returncode == 0, r.stderr
    # the last set-up draw (whose depends on the random grid)
    assert re.match(r"race 1: undone: (Ann|Bob) draws 7 — event 6 \(cards_drawn\) retracted by event 7", r.stdout), (
        r.stdout
    )
    for _ in range(8):  # back to the set-up
        r = heatlog("undo", "--db", db)
        if r.returncode:
            break
        assert r.stdout.startswith("race 1: undone: "), r.stdout
    assert r.returncode == 1 and " ".join(r.stderr.split()).startswith(
        "Error: refused: race 1: nothing to undo: only the race set-up is left"
    ), r.stderr


def test_stats_of_a_race_says_its_title_in_one_line_not_at_the_table_s_width(tmp_path: Path) -> None:
    """The title of `heatlog stats` was the table's: it wrapped at the table's width, "— under way (round" then
    "1): places are the standings now" for two cars. It is a line of its own (piped: whole, on one line)."""
    db = str(tmp_path / "s.db")
    assert heatlog("new", "--car", "Ann:red", "--car", "Bob:blue", "--db", db).returncode == 0
    r = heatlog("stats", "--db", db)
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert first == "race 1: USA, 2 laps, table mode — under way (round 1): places are the standings now", first
