"""The first words of every user error say what kind of problem it is (h44): every refusal read "not understood:"
(or "store:", or nothing) whether the input could not be read, the rules forbid it, or the race, file or car
does not exist. Through the real entry point (``python -m heatlog.cli``); the exit codes are docs/cli.md's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


def heatlog(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heatlog.cli", *args], capture_output=True, text=True, timeout=300, input=stdin
    )


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("words") / "h.db"
    assert heatlog("import", str(REPLAYS / "learning-2cars.jsonl"), "--db", str(path)).returncode == 0
    r = heatlog("new", "--track", "usa", "--car", "Ann:red", "--car", "Bob:blue", "--mode", "table", "--db", str(path))
    assert r.returncode == 0, r.stderr
    return path


def said(r: subprocess.CompletedProcess[str]) -> str:
    return " ".join(r.stderr.split())


def test_each_kind_of_problem_is_said_first(db: Path, tmp_path: Path) -> None:
    not_a_log = tmp_path / "notes.jsonl"
    not_a_log.write_text("shopping list\neggs\n", encoding="utf-8")
    text_file = tmp_path / "notes.txt"
    text_file.write_text("not a database at all\n", encoding="utf-8")
    d = ["--db", str(db)]
    cases = [
        # (arguments, exit code, the first words, words of the rest that locate it (principle 3))
        (["show", "--race", "99", *d], 1, "not found", ["no race 99", "it holds 2 races"]),
        (["show", "--db", str(tmp_path / "none.db")], 1, "not found", ["no heatlog database at"]),
        (["show", "--race", "1", "--round", "99", *d], 1, "not found", ["race 1", "no round 99"]),
        (["replay", "--race", "1", "--car", "Zed", *d], 1, "not found", ["no car 'Zed'", "Red, Blue"]),
        (["new", "--track", "nowhere", "--car", "A:red", "--car", "B:blue", *d], 1, "not found", ["'nowhere'"]),
        (["new", "--car", "A:red", *d], 1, "not allowed by the rules", ["2 to 6 cars", "not 1"]),
        (
            ["add", "--race", "2", '{"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 4}', *d],
            1,
            "not allowed by the rules",
            ["race 2, round 1, step 1 (shift gears), car Ann", "gear_chosen", "no jump of three gears"],
        ),
        (
            ["add", "--race", "2", '{"type": "gear_chosen", "v": 1, "car": "Zed", "gear": 2}', *d],
            1,
            "not found",
            ["race 2", "car Zed", "no car named 'Zed'"],
        ),
        (["add", "--race", "2", "{not json", *d], 1, "not understood", ["not valid JSON"]),
        (["import", str(not_a_log), *d], 1, "not a race log", [str(not_a_log), "line 1: not valid JSON"]),
        (["import", str(tmp_path / "gone.jsonl"), *d], 1, "not found", ["gone.jsonl: no such file"]),
        (["import", str(tmp_path), *d], 1, "can't read the file", ["is a directory"]),
        (["races", "--db", str(text_file)], 1, "can't read the file", ["not a heatlog database"]),
        (["undo", "--race", "1", *d], 1, "refused", ["race 1", "the race is finished", "--yes"]),
        (["audit", "--race", "99", *d], 2, "not found", ["no race 99"]),
        (["luck", "--race", "2", *d], 1, "refused", ["race 2: the race is not over"]),
    ]
    for args, code, words, where in cases:
        r = heatlog(*args, stdin="")
        assert r.returncode == code, (args, r.returncode, r.stderr)
        assert said(r).startswith(f"Error: {words}: "), (args, r.stderr)
        for w in where:
            assert w in said(r), (args, w, r.stderr)
        assert "not understood" not in said(r) or words == "not understood", (args, r.stderr)


def test_with_rules_the_machine_kind_is_kept(db: Path) -> None:
    """`--rules` shows the error as the library has it: its kind (malformed, illegal, store), the rule's item."""
    r = heatlog(
        "--rules", "add", "--race", "2", '{"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 4}', "--db", str(db)
    )
    assert r.returncode == 1 and said(r).startswith("Error: illegal: race 2, round 1"), r.stderr
    assert "(# 3." in r.stderr
    r = heatlog("--rules", "show", "--race", "99", "--db", str(db))
    assert said(r).startswith("Error: store: no race 99"), r.stderr


def test_a_file_that_is_no_log_says_a_few_of_its_lines_not_a_page(tmp_path: Path) -> None:
    """A text file of 40 lines handed to import listed twenty 'line N: not valid JSON …' (a screen of text)."""
    junk = tmp_path / "junk.txt"
    junk.write_text("".join(f"word {i}\n" for i in range(40)), encoding="utf-8")
    r = heatlog("import", str(junk), "--db", str(tmp_path / "h.db"))
    assert r.returncode == 1 and said(r).startswith(f"Error: not a race log: {junk}: 40 bad line(s)"), r.stderr
    assert "line 5: not valid JSON" in said(r) and "line 6: not valid JSON" not in said(r), r.stderr
    assert "and 35 more" in said(r) and len(r.stderr) < 600, r.stderr


def test_the_recorder_and_the_phones_say_the_same_words() -> None:
    from heatlog.engine.errors import IllegalEvent, MalformedInput
    from heatlog.recorder import error_text

    assert error_text(IllegalEvent("no jump of three gears", rule="3.2"), rules=False).startswith(
        "not allowed by the rules: "
    )
    assert error_text(MalformedInput("'9' is not a card")).startswith("not understood: ")
    assert error_text(MalformedInput("no car named 'Zed'", words="not found")).startswith("not found: ")


def test_record_in_a_database_of_no_race_says_not_found(tmp_path: Path) -> None:
    from heatlog.store import EventStore

    db = tmp_path / "empty.db"
    EventStore(db).close()
    r = heatlog("record", "--db", str(db), stdin="")
    assert r.returncode == 1 and said(r).startswith(f"Error: not found: no races in {db} yet"), r.stderr
    assert "heatlog record --new" in said(r)
