"""The CLI through its real entry point (`heatlog` on PATH, in a subprocess)."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HEATLOG = shutil.which("heatlog")


def run(
    *args: str,
    db: Path | None = None,
    input: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    cmd = [HEATLOG or sys.executable, *([] if HEATLOG else ["-m", "heatlog.cli"]), *args]
    if db is not None:
        cmd += ["--db", str(db)]
    full_env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1", **(env or {})}
    full_env.pop("HEATLOG_DB", None) if env is None or "HEATLOG_DB" not in env else None
    return subprocess.run(cmd, capture_output=True, text=True, input=input, env=full_env, cwd=cwd, timeout=60)


def new_race(db: Path, *extra: str) -> int:
    r = run("new", "--car", "Ann:red", "--car", "Bob:blue", "--car", "Cy:green", "--seed", "1", *extra, db=db)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip().splitlines()[-1])


def test_version() -> None:
    r = run("--version")
    assert r.returncode == 0
    assert r.stdout.startswith("heatlog ")


def test_new_show_position(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    race = new_race(db)
    assert race == 1
    r = run("show", db=db)
    assert r.returncode == 0, r.stderr
    assert "USA" in r.stdout and "waiting for: gears" in r.stdout
    pos = json.loads(run("position", db=db).stdout)
    assert pos["format"] == "heatlog-position"
    assert pos["round"] == 1 and pos["mode"] == "table"
    assert {c["name"] for c in pos["cars"]} == {"Ann", "Bob", "Cy"}
    assert all(c["hand"] is None and c["hand_size"] == 7 for c in pos["cars"])  # table mode: hidden hands


def test_add_legal_and_illegal_events(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    new_race(db)
    before = run("export", db=db).stdout
    r = run("add", '{"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 4}', db=db)
    assert r.returncode != 0
    assert "Error: not allowed" in r.stderr and "Ann" in r.stderr and "round 1" in r.stderr
    assert "Traceback" not in r.stderr
    assert "# 3.4" not in r.stderr and '"gear": 4' not in r.stderr  # plain words: no digest tag, no JSON
    r = run("--rules", "add", '{"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 4}', db=db)
    assert "Error: illegal" in r.stderr and "(# 3.4)" in r.stderr and '"gear": 4' in r.stderr  # asked for
    r = run("add", '{"type": "gear_chosen", "car": "Zed", "gear": 2}', db=db)
    assert r.returncode != 0 and "Zed" in r.stderr
    r = run("add", '{"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 7}', db=db)
    assert r.returncode != 0 and "not understood" in r.stderr and "gear" in r.stderr
    r = run("add", "{not json", db=db)
    assert r.returncode != 0 and "not valid JSON" in r.stderr
    assert run("export", db=db).stdout == before  # nothing was written
    r = run("add", '{"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 2}', db=db)
    assert r.returncode == 0, r.stderr
    assert "event 9 recorded" in r.stdout
    r = run("add", "-", db=db, input='{"type": "gear_chosen", "v": 1, "car": "Bob", "gear": 1}')
    assert r.returncode == 0, r.stderr


def test_note_undo_and_audit(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    new_race(db)
    assert run("add", '{"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 2}', db=db).returncode == 0
    r = run("undo", "--reason", "wrong gear", db=db)
    assert r.returncode == 0, r.stderr
    assert "gear_chosen" in r.stdout
    assert run("add", '{"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 1}', db=db).returncode == 0
    assert run("note", "Ann changed her mind", "--car", "Ann", db=db).returncode == 0
    r = run("audit", db=db)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "clean" in r.stdout and "wrong gear" in r.stdout and "Ann changed her mind" in r.stdout
    report = json.loads(run("audit", "--json", db=db).stdout)
    assert report[0]["clean"] and report[0]["retractions"][0]["reason"] == "wrong gear"


def test_undo_refuses_an_empty_or_blank_reason_instead_of_dropping_it(tmp_path: Path) -> None:
    # undo --reason "" retracted the entry and kept no reason without a word; "  " was kept as a reason of
    # spaces. The door refuses both (heatlog add too); a log that already holds a blank reason still imports.
    db = tmp_path / "h.db"
    new_race(db)
    added = run("add", '{"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 2}', db=db)
    assert added.returncode == 0, added.stderr
    seq = int(added.stdout.split("event ")[1].split()[0])
    before = run("export", db=db).stdout
    for reason, said in [("", "empty"), ("  ", "blank"), ("\t\n", "blank")]:
        r = run("undo", "--reason", reason, db=db)
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert f"race 1: the reason is {said}: say in words why the entry is withdrawn" in " ".join(r.stderr.split())
        assert "nothing was undone" in r.stderr
    r = run("add", json.dumps({"type": "retracted", "v": 1, "seq": seq, "reason": " "}), db=db)
    assert r.returncode == 1 and "race 1: the reason is blank" in r.stderr, r.stderr
    assert run("export", db=db).stdout == before  # nothing was written
    old = tmp_path / "old.jsonl"  # a log written before the door checked reasons
    blank = {"type": "retracted", "v": 1, "seq": seq, "reason": " "}
    old.write_text(before + json.dumps(blank) + "\n", encoding="utf-8")
    assert run("import", str(old), db=tmp_path / "other.db").returncode == 0
    assert run("audit", db=tmp_path / "other.db").returncode == 0
    r = run("undo", db=db)  # no --reason: no reason, as before
    assert r.returncode == 0 and "(gear_chosen) retracted" in r.stdout, r.stderr
    assert "reason" not in run("export", db=db).stdout.splitlines()[-1]


def test_a_blank_note_is_refused_at_the_door_as_an_empty_one_but_old_logs_keep_it(tmp_path: Path) -> None:
    # note "" was refused by the schema while note "   " was kept as a note that says nothing (undo --reason "  "
    # is refused as blank): the door (note, add) refuses both; a log that already holds a blank note imports.
    db = tmp_path / "h.db"
    new_race(db)
    before = run("export", db=db).stdout
    for args in (["note", "   "], ["note", "\t\n", "--car", "Ann"], ["add", '{"type": "note", "v": 1, "text": " "}']):
        r = run(*args, db=db)
        said = " ".join(r.stderr.split())
        assert r.returncode == 1 and "Traceback" not in r.stderr and one_line_error(r.stderr), r.stderr
        assert "race 1: note" in said and "text: is blank: write what the note is about" in said, said
    assert "text: is empty" in run("note", "", db=db).stderr
    assert run("export", db=db).stdout == before  # nothing was written
    old = tmp_path / "old.jsonl"  # a log written before the door checked a note's text
    old.write_text(before + json.dumps({"type": "note", "v": 1, "text": "  ", "round": 1}) + "\n", encoding="utf-8")
    other = tmp_path / "other.db"
    assert run("import", str(old), db=other).returncode == 0
    assert run("audit", db=other).returncode == 0
    assert run("replay", "--round", "1", db=other).returncode == 0


def test_note_about_a_car_not_in_the_race_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    new_race(db)
    before = run("export", db=db).stdout
    for car in ("ann", "Zed"):  # a misspelt name (names are case-sensitive) is no car of the race
        r = run("note", "cards knocked over", "--car", car, db=db)
        assert (
            r.returncode == 1
            and f"race 1: note of {car}: no car named '{car}' in this race (cars: Ann, Bob, Cy)"
            in (" ".join(r.stderr.split()))
        ), r.stderr
        assert "Traceback" not in r.stderr
    assert run("export", db=db).stdout == before  # nothing was written
    assert run("note", "cards knocked over", "--car", "Ann", db=db).returncode == 0


def test_add_refuses_a_note_about_no_car_of_the_race_or_a_round_to_come_but_old_logs_keep_them(
    tmp_path: Path,
) -> None:
    # The door (heatlog add, as heatlog note) checks a new note's car and round; the rules take any note, so a
    # log that already holds such notes still imports, replays and audits clean.
    db = tmp_path / "h.db"
    new_race(db)
    before = run("export", db=db).stdout
    for note, said in [
        ({"car": "Zed"}, "no car named 'Zed' in this race (cars: Ann, Bob, Cy)"),
        ({"car": "Ann", "round": 2}, "the note names round 2, but the race is at round 1"),
    ]:
        r = run("add", json.dumps({"type": "note", "v": 1, "text": "hi", **note}), db=db)
        assert r.returncode == 1 and "race 1" in r.stderr and said in " ".join(r.stderr.split()), r.stderr
        assert "Traceback" not in r.stderr
    assert run("export", db=db).stdout == before  # nothing was written
    ok = run("add", json.dumps({"type": "note", "v": 1, "text": "set-up checked", "car": "Bob", "round": 0}), db=db)
    assert ok.returncode == 0, ok.stderr
    old = tmp_path / "old.jsonl"  # a log written before the door checked notes
    note = {"type": "note", "v": 1, "text": "[bold]Zed[/] joined", "car": "Zed", "round": 40}
    old.write_text(before + json.dumps(note) + "\n", encoding="utf-8")
    other = tmp_path / "other.db"
    assert run("import", str(old), db=other).returncode == 0
    audit = run("audit", db=other)
    assert audit.returncode == 0 and "(round 40): [bold]Zed[/] joined" in audit.stdout, audit.stdout + audit.stderr
    replay = run("replay", "--round", "1", db=other)
    assert replay.returncode == 0 and "note (Zed): [bold]Zed[/] joined" in replay.stdout, replay.stderr


def test_undo_of_a_note_after_the_finish_does_not_ask_to_reopen(tmp_path: Path) -> None:
    # a note is beside the race: retracting it leaves the race finished, so there is nothing to confirm
    db = tmp_path / "h.db"
    assert run("simulate", "--cars", "2", "--seed", "1", "--workers", "1", db=db).returncode == 0
    assert run("note", "Bob's last corner checked again", "--race", "1", db=db).returncode == 0
    r = run("undo", "--race", "1", db=db, input="")
    assert r.returncode == 0, r.stderr
    assert "(note) retracted by event" in r.stdout and "reopen" not in r.stderr
    listed = json.loads(run("races", "--all", "--json", db=db).stdout)
    assert listed[0]["status"] == "finished"
    r = run("undo", "--race", "1", db=db, input="")  # the race's own last entry: that one would reopen it
    assert r.returncode == 1 and "give --yes to reopen it" in r.stderr


def test_a_schema_error_names_the_event_type_once(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    r = run("new", "--car", "Ann:red", "--car", "ann:blue", db=db)
    assert r.returncode == 1
    # new names the option typed (the event's field was race_started: cars[1].name), once
    assert "Error: not understood: --car ann:blue: 'ann' differs from 'Ann'" in r.stderr, r.stderr
    assert r.stderr.count("--car") == 1 and "race_started" not in r.stderr
    new_race(db)
    r = run("add", '{"type": "gear_chosen", "v": 1, "car": "Bob", "gear": 9}', db=db)
    assert "race 1: gear_chosen of Bob: gear: 9 is out of range (1 to 4)" in r.stderr, r.stderr
    r = run("note", "", db=db)
    assert "Error: not understood: race 1: note: text: is empty" in r.stderr, r.stderr


def test_audit_finds_tampering_and_exit_codes(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "h.db"
    new_race(db)
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER IF EXISTS events_no_update")
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("UPDATE events SET payload = replace(payload, '\"count\":7', '\"count\":6') WHERE seq = 4")
    conn.commit()
    conn.close()
    r = run("audit", db=db)
    assert r.returncode == 1
    assert "event 4" in r.stdout
    r = run("audit", db=tmp_path / "missing.db")
    assert r.returncode == 2
    (tmp_path / "junk.db").write_text("this is not sqlite")
    r = run("audit", db=tmp_path / "junk.db")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_export_import_round_trip(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    new_race(db)
    run("add", '{"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 2}', db=db)
    out = tmp_path / "race.jsonl"
    assert run("export", "-o", str(out), db=db).returncode == 0
    db2 = tmp_path / "h2.db"
    r = run("import", str(out), db=db2)
    assert r.returncode == 0, r.stderr
    again = run("export", db=db2).stdout
    assert again == out.read_text()


def test_import_refuses_a_log_the_database_holds_unless_again(tmp_path: Path) -> None:
    """Importing the same file twice made a second copy of the race without a word: the chain's hash of the
    last event (at its seq) says the database holds these very events, as a race, its beginning, or a branch."""
    db = tmp_path / "h.db"
    sample = Path(__file__).resolve().parents[1] / "replays" / "usa-4cars.jsonl"
    assert run("import", str(sample), db=db).stdout.strip() == "1"
    r = run("import", str(sample), db=db)
    assert r.returncode != 0 and r.stderr.startswith("Error: ") and "race 1 already holds these 430 events" in r.stderr
    assert "--again" in r.stderr
    prefix = tmp_path / "prefix.jsonl"
    prefix.write_text("".join(sample.read_text().splitlines(keepends=True)[:40]))
    r = run("import", str(prefix), db=db)
    assert r.returncode != 0 and "race 1 already holds these 40 events as its beginning" in r.stderr
    assert run("branch", "--race", "1", "--at-round", "3", "--name", "what if", db=db).returncode == 0
    assert run("add", "--race", "2", '{"type": "note", "v": 1, "text": "a what-if"}', db=db).returncode == 0
    exported = tmp_path / "branch.jsonl"
    assert run("export", "--race", "2", "-o", str(exported), db=db).returncode == 0  # with its anchor
    r = run("import", str(exported), db=db)
    assert r.returncode != 0 and "race 2 already holds these" in r.stderr, r.stderr
    assert [line.split("\t")[0] for line in run("races", db=db).stdout.splitlines()[1:]] == ["1", "2"]  # none
    r = run("import", str(sample), "--again", db=db)
    assert r.returncode == 0 and r.stdout.strip() == "3", r.stderr  # asked for: another copy
    other = tmp_path / "other.db"
    assert run("import", str(exported), db=other).returncode == 0  # another database holds nothing of it


def test_import_reports_every_bad_line(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    new_race(db)
    lines = run("export", "--no-anchor", db=db).stdout.splitlines()
    lines[2] = '{"type": "deck_shuffled", "v": 1}'  # no car
    lines[4] = '{"type": "cards_drawn", "v": 1, "car": "Bob", "count": 99}'
    lines.append("not json at all")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    db2 = tmp_path / "h2.db"
    r = run("import", str(bad), db=db2)
    assert r.returncode != 0
    assert "line 9" in r.stderr
    r2 = run("races", db=db2)
    assert "Ann" not in r2.stdout  # all or nothing


def test_branch_and_race_option(tmp_path: Path) -> None:
    from heatlog.log.racelog import RaceLog
    from heatlog.races import race_started_event
    from heatlog.simulate.world import race_events, random_bot

    rs = race_started_event(
        track="usa", cars=[{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}], mode="open"
    )
    events = list(race_events(rs, {"A": random_bot, "B": random_bot}, seed=5))
    src = tmp_path / "r.jsonl"
    src.write_text("".join(json.dumps(e) + "\n" for e in events))
    db = tmp_path / "h.db"
    assert run("import", str(src), db=db).returncode == 0
    r = run("branch", "--at-round", "3", "--name", "what if", db=db)
    assert r.returncode == 0, r.stderr
    bid = int(r.stdout.strip())
    pos = json.loads(run("position", "--race", str(bid), db=db).stdout)
    assert pos["round"] == 3 and pos["step"] == 1 and pos["turn"] is None
    with RaceLog(db) as log:
        parent = log.project(1, round=3).state
        from heatlog.engine.position import state_to_position

        assert state_to_position(parent) == pos
    r = run("races", "--json", db=db)
    rows = json.loads(r.stdout)
    assert rows[1]["parent"] == 1
    r = run("branch", "--at-round", "99", "--name", "x", "--race", "1", db=db)
    assert r.returncode != 0 and "no round 99" in r.stderr


def test_db_from_environment(tmp_path: Path) -> None:
    env = {"HEATLOG_DB": str(tmp_path / "env.db")}
    r = run("new", "--car", "A:red", "--car", "B:blue", env=env)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "env.db").exists()
    assert run("races", env=env).returncode == 0


def test_default_db_is_cwd(tmp_path: Path) -> None:
    r = run("new", "--car", "A:red", "--car", "B:blue", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "heatlog.db").exists()


@pytest.mark.parametrize(
    "args, words",
    [
        (["new", "--car", "A:red"], "2 to 6 cars"),
        (["new", "--car", "A", "--car", "B:blue"], "NAME:COLOUR"),
        (["new", "--car", "A:red", "--car", "B:blue", "--track", "nowhere"], "nowhere"),
        (["new", "--car", "A:red", "--car", "B:blue", "--mode", "secret"], "table or open"),
        (["show", "--race", "42"], "42"),
    ],
)
def test_user_errors_are_one_line(tmp_path: Path, args: list[str], words: str) -> None:
    db = tmp_path / "h.db"
    new_race(db)
    r = run(*args, db=db)
    assert r.returncode != 0
    assert r.stderr.startswith("Error: ")
    assert words in r.stderr
    assert "Traceback" not in r.stderr


def _words(text: str) -> str:
    """A help text as words: typer 0.28 and 0.29 write the same help with other metavars (``<str>`` against
    ``<list[str]>``, arguments with or without one) and so other padding and wrapping (docs/design.md,
    "Command line"); docs/cli.md made with either is current if its words are."""
    import re

    return " ".join(re.sub(r"<[A-Za-z_\[\], ]+>", "", text).split())


def test_every_command_has_help_with_example_and_docs() -> None:
    """sqlite-utils style: a command without --help text, an example, or a docs entry fails the build."""
    import typer.main

    from heatlog.cli import app
    from heatlog.docsgen.cli import render_cli_reference

    group = typer.main.get_command(app)
    names = sorted(group.commands)  # type: ignore[attr-defined]
    assert {"new", "races", "show", "add", "position", "note", "branch", "audit", "export", "import"} <= set(names)
    reference = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    stale = "docs/cli.md is stale: run python -m heatlog.docsgen.cli"
    assert _words(reference) == _words(render_cli_reference()), stale
    for name in names:
        r = run(name, "--help")
        assert r.returncode == 0, name
        assert "Example:" in r.stdout, f"{name} --help has no example"
        assert f"## heatlog {name}" in reference, f"{name} is not in docs/cli.md"


def test_the_track_help_names_every_built_in_track() -> None:
    """``--track`` (new, simulate) lists the built-in tracks in words, written once in cli/common.py without
    importing them (the track module loads the schema checker): the two lists must not drift apart."""
    from heatlog.cli.common import TRACK_HELP
    from heatlog.formats.tracks import BUILTIN_TRACKS

    assert TRACK_HELP.removesuffix(", or a track file path.").split(", ") == list(BUILTIN_TRACKS)
    for command in ("new", "simulate"):
        assert "netherlands, or a track file path" in " ".join(run(command, "--help").stdout.split())


def test_demo_loads_samples_audits_and_replays(tmp_path: Path) -> None:
    """README command 1: the main job on the default database (./heatlog.db)."""
    r = run("demo", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "loaded 9 sample races" in r.stdout  # base samples, Legends and weather (15), the Garage (14), all at once
    assert r.stdout.count(": clean") == 9
    assert "Hall of Fame: 1." in r.stdout
    assert (tmp_path / "heatlog.db").exists() and (tmp_path / "heatlog-demo.html").exists()
    again = run("demo", cwd=tmp_path)  # a second run reuses the database, imports nothing twice
    assert again.returncode == 0 and "loaded" not in again.stdout
    assert again.stdout.count(": clean") == 9


def test_new_from_position(tmp_path: Path) -> None:
    """A race can start from a position (puzzles, what-ifs): the new race's state is that position."""
    db = tmp_path / "h.db"
    sample = Path(__file__).resolve().parents[1] / "replays" / "usa-4cars.jsonl"
    assert run("import", str(sample), db=db).returncode == 0
    pos_file = tmp_path / "r5.json"
    pos_file.write_text(run("position", "--round", "5", db=db).stdout)
    r = run("new", "--from-position", str(pos_file), db=db)
    assert r.returncode == 0, r.stderr
    new_id = r.stdout.strip().splitlines()[-1]
    assert json.loads(run("position", "--race", new_id, db=db).stdout) == json.loads(pos_file.read_text())
    broken = json.loads(pos_file.read_text())
    broken["cars"][0]["gear"] = 9
    pos_file.write_text(json.dumps(broken))
    r = run("new", "--from-position", str(pos_file), db=db)
    assert r.returncode != 0 and "gear" in r.stderr and "Traceback" not in r.stderr


def test_a_number_written_1_0_is_refused_in_a_position_file_and_kept_as_written_by_import(tmp_path: Path) -> None:
    # heatlog add refused gear 1.0 (racelog.check_integers); new --from-position stored a position's 2.0 as
    # written (a new input: refused now in add's words, nothing written). An old log holding 1.0 still imports,
    # unchanged (its export and its anchor match; docs/events.md), and a 1.0 the rules cannot take says why
    # (the entry is imported as recorded and withdrawn, docs/recording.md "Old logs").
    db = tmp_path / "h.db"
    new_race(db)
    pos = json.loads(run("position", db=db).stdout)
    pos["laps"] = 2.0  # the first number written so, in document order, is named
    pos_file = tmp_path / "p.json"
    pos_file.write_text(json.dumps(pos), encoding="utf-8")
    fresh = tmp_path / "fresh.db"
    for args in (["new", "--from-position", str(pos_file)], ["playout", "--position", str(pos_file)]):
        r = run(*args, db=fresh)
        said = " ".join(r.stderr.split())
        assert r.returncode == 1 and one_line_error(r.stderr), r.stderr
        assert f"position file {pos_file}: laps: 2.0 is not an integer: write 2, without a decimal point" in said
    assert not fresh.exists()
    lines = [json.loads(line) for line in run("export", db=db).stdout.splitlines()]
    old = tmp_path / "old.jsonl"  # written before the door checked numbers
    kept = [{**ev, "v": 1.0} for ev in lines] + [{"type": "note", "v": 1, "text": "x", "round": 1.0}]
    old.write_text("".join(json.dumps(ev) + "\n" for ev in kept), encoding="utf-8")
    assert run("import", str(old), db=fresh).returncode == 0
    exported = [json.loads(line) for line in run("export", db=fresh).stdout.splitlines()]
    assert exported == kept and isinstance(exported[-1]["round"], float)  # as written, not normalised
    again = run("import", str(old), db=fresh)
    assert again.returncode == 1 and "race 1 already holds these" in again.stderr, again.stderr
    gear = tmp_path / "gear.jsonl"
    gear.write_text(
        "".join(json.dumps(ev) + "\n" for ev in [*lines, {"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 2.0}]),
        encoding="utf-8",
    )
    r = run("import", str(gear), db=tmp_path / "g.db")
    said = " ".join(r.stderr.split())
    # the rules cannot take it: imported as recorded, withdrawn, and the refusal says why (issue 29, bug 8)
    assert r.returncode == 0 and "imported as recorded and withdrawn" in said, said
    assert "(gear: 2.0 is not an integer: write 2, without a decimal point)" in said, said


def test_new_from_position_refuses_set_up_options_beside_it(tmp_path: Path) -> None:
    """The position file says the track, laps, cars, mode and variant: --mode table beside it made an open race,
    --track italy a USA race, --car and --weather were dropped; each is refused, nothing is created."""
    db = tmp_path / "h.db"
    sample = Path(__file__).resolve().parents[1] / "replays" / "usa-4cars.jsonl"
    assert run("import", str(sample), db=db).returncode == 0
    pos_file = tmp_path / "r5.json"
    pos_file.write_text(run("position", "--round", "5", db=db).stdout)
    before = run("races", "--json", db=db).stdout
    for extra, named in (
        (("--mode", "table"), "--mode"),
        (("--track", "italy"), "--track"),
        (("--car", "Ann:red", "--car", "Bob:blue"), "--car"),
        (("--laps", "1", "--weather"), "--laps, --weather"),
        (("--grid", "Red,Blue"), "--grid"),
    ):
        r = run("new", "--from-position", str(pos_file), *extra, db=db)
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert f"Error: not understood: {named}: a race started from a position is set up as the position" in (
            r.stderr
        ), r.stderr
    assert run("races", "--json", db=db).stdout == before
    assert run("new", "--from-position", str(pos_file), "--name", "puzzle", db=db).returncode == 0
    # the race begins at round 5: a branch before it was refused as if its rounds were 1 to 5
    r = run("branch", "--at-round", "2", "--name", "w", db=db)
    assert r.returncode == 1 and "no round 2 to branch at (rounds 5–5)" in r.stderr, r.stderr
    assert run("branch", "--at-round", "5", "--name", "w", db=db).returncode == 0
    for command in ("show", "position"):
        r = run(command, "--round", "2", db=db)
        assert r.returncode == 1 and "no round 2 (rounds 5–5)" in r.stderr, (command, r.stderr)


def test_the_default_race_is_the_latest_a_host_made_not_a_simulation(tmp_path: Path) -> None:
    """Issue 10: show, replay, position, export, note, audit, anchor without --race read the host's latest race
    (recorded, imported or a branch of one) even when simulations were stored since; a simulated race is the
    default only in a file of simulations alone."""
    db = tmp_path / "h.db"
    r = run("simulate", "--track", "usa", "--cars", "2", "--variant", "one-lap", "--seed", "3", db=db)
    assert r.returncode == 0, r.stderr
    assert "race 1:" in run("show", db=db).stdout  # only simulations: the latest of them
    host = new_race(db)  # race 2
    r = run("simulate", "--track", "usa", "--cars", "2", "--variant", "one-lap", "--races", "2", "--seed", "4", db=db)
    assert r.returncode == 0, r.stderr  # races 3 and 4, both newer than the host's
    assert host == 2
    assert "race 2:" in run("show", db=db).stdout
    assert json.loads(run("position", db=db).stdout)["round"] == 1  # the host's race, not a finished simulation
    assert '"race_started"' in run("export", db=db).stdout.splitlines()[0]
    assert run("export", db=db).stdout == run("export", "--race", "2", db=db).stdout
    assert run("note", "table wobbled", db=db).stdout.startswith("race 2: note")
    assert run("audit", db=db).stdout == run("audit", "--race", "2", db=db).stdout
    assert run("anchor", "--race", "2", db=db).stdout == run("anchor", "--race", "2", db=db).stdout
    r = run("replay", "--round", "1", db=db)
    assert r.returncode == 0 and r.stdout.startswith("race 2"), r.stdout + r.stderr
    # A branch of a simulation is a simulation; the host's own branch becomes the default.
    assert run("branch", "--race", "3", "--at-round", "1", "--name", "sim what-if", db=db).returncode == 0  # 5
    assert "race 2:" in run("show", db=db).stdout
    assert run("branch", "--race", "2", "--at-round", "1", "--name", "my what-if", db=db).returncode == 0  # 6
    assert "race 6" in run("show", db=db).stdout.splitlines()[0]
    assert "race 3:" in run("show", "--race", "3", db=db).stdout  # a simulation when asked for


def typer_group() -> object:
    import typer.main

    from heatlog.cli import app

    return typer.main.get_command(app)


def test_lazy_commands_are_the_full_app() -> None:
    """``heatlog X`` loads only X's module (issue 10: start-up); the map says where every command lives, so
    each command of the full app is there, with the same --help, when only its module is loaded."""
    import json as json_

    from typer.testing import CliRunner

    import heatlog.cli as cli

    group = typer_group()
    assert set(group.commands) == set(cli.COMMANDS)  # type: ignore[attr-defined]
    code = (
        "import json, sys, heatlog.cli as c\n"
        "from typer.testing import CliRunner\n"
        "name = sys.argv[1]\n"
        "app = c.load(name)\n"
        "out = CliRunner().invoke(app, [name, '--help'], prog_name='heatlog', terminal_width=100).output\n"
        "mods = sorted(m for m in sys.modules if m.startswith('heatlog.cli.'))\n"
        "print(json.dumps([mods, out]))\n"
    )
    runner = CliRunner()
    for name, module in cli.COMMANDS.items():
        r = subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        mods, out = json_.loads(r.stdout)
        assert mods == sorted({"heatlog.cli.common", f"heatlog.cli.{module}"}), (name, mods)
        full = runner.invoke(cli.app, [name, "--help"], prog_name="heatlog", terminal_width=100).output
        assert out == full and "Example:" in out, name
    assert cli.command_in(["--rules", "show", "--round", "3"]) == "show"
    assert cli.command_in(["show", "--help"]) == "show"
    assert cli.command_in(["--help"]) is None and cli.command_in([]) is None and cli.command_in(["--version"]) is None


def test_everyday_commands_import_no_more_than_they_need(tmp_path: Path) -> None:
    """``heatlog races`` reads cached summaries: it loads neither the rules (engine), nor rich's console, nor
    sqlite-utils and jsonschema; ``show`` loads the rules but not the other commands' modules (bench/bench_cli.py
    times them)."""
    db = tmp_path / "h.db"
    new_race(db)
    code = (
        "import sys, atexit\n"
        "atexit.register(lambda: print(' '.join(sorted(sys.modules)), file=sys.stderr))\n"
        "from heatlog.cli import main\n"
        "main()\n"
    )

    def modules(*args: str) -> set[str]:
        r = subprocess.run(
            [sys.executable, "-c", code, *args, "--db", str(db)], capture_output=True, text=True, timeout=60
        )
        assert r.returncode == 0, r.stderr
        return set(r.stderr.split())

    assert "heatlog.engine.rules" in modules("races")  # the first list summarises the race (and keeps it)
    races = modules("races")
    assert "heatlog.log.racelog" in races
    for heavy in ("heatlog.engine.rules", "heatlog.engine.state", "rich.console", "sqlite_utils", "jsonschema"):
        assert heavy not in races, heavy
    show = modules("show")
    assert "heatlog.engine.rules" in show and "heatlog.cli.races" in show
    assert not {"heatlog.cli.files", "heatlog.cli.simulate", "sqlite_utils", "jsonschema"} & show
    # a base race: the championship's, weather's, Legends' and Garage's rules are loaded on demand (their folders'
    # descriptors are light)
    for module in ("championship.rules", "weather.rules", "legends.rules", "garage.cards", "garage.race"):
        assert f"heatlog.engine.modules.{module}" not in show, module
    # piped, the board is written without rich's console and table (heatlog/views/plain.py)
    for args in (("show",), ("replay", "--round", "1")):
        assert not {"rich.console", "rich.table", "rich.text"} & modules(*args), args


def test_help_imports_no_json() -> None:
    """``heatlog --help`` lists the commands and reads no JSON: importing ``json`` compiles its seven regular
    expressions, ~2 % of the start (issue 32 item 4; bench/bench_cli.py). The package and the command modules
    import it where a command writes or reads JSON."""
    code = (
        "import sys, atexit\n"
        "atexit.register(lambda: print(' '.join(sorted(sys.modules)), file=sys.stderr))\n"
        "from heatlog.cli import main\n"
        "main()\n"
    )
    r = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    loaded = set(r.stderr.split())
    assert "heatlog.cli.races" in loaded and "heatlog.cli.study" in loaded  # every command's module, for the list
    assert "json" not in loaded


def test_the_progress_bar_shows_a_file_name_as_typed(tmp_path: Path) -> None:
    """The import's progress bar (a terminal only) named the file through rich markup: "[red]imp.jsonl" came
    out as "imp.jsonl" in red. User text is never markup."""
    pexpect = pytest.importorskip("pexpect")
    sample = Path(__file__).resolve().parents[1] / "replays" / "usa-4cars.jsonl"
    name = tmp_path / "[red]imp.jsonl"
    name.write_text(sample.read_text(encoding="utf-8"), encoding="utf-8")
    cmd = [HEATLOG or sys.executable, *([] if HEATLOG else ["-m", "heatlog.cli"])]
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(
        cmd[0], [*cmd[1:], "import", str(name), "--db", str(tmp_path / "h.db")], env=env, encoding="utf-8", timeout=60
    )
    child.expect(pexpect.EOF)
    out = child.before or ""
    assert f"importing {name.name}" in out, out
    assert "imported" in out


def test_stats_over_many_races_shows_the_clis_progress_bar_in_a_terminal(tmp_path: Path) -> None:
    """stats --all reads its races under the CLI's one progress bar (common.progress_steps), in a terminal only:
    it kept a copy of its own."""
    pexpect = pytest.importorskip("pexpect")
    db = tmp_path / "h.db"
    assert run("demo", db=db, cwd=tmp_path).returncode == 0  # its page is written in the working directory
    cmd = [HEATLOG or sys.executable, *([] if HEATLOG else ["-m", "heatlog.cli"])]
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(
        cmd[0], [*cmd[1:], "stats", "--all", "--rebuild", "--db", str(db)], env=env, encoding="utf-8", timeout=120
    )
    child.expect(pexpect.EOF)
    out = child.before or ""
    assert "reading races" in out and "/" in out.split("reading races", 1)[1][:200], out  # the bar, with its count
    piped = run("stats", "--all", db=db)
    assert piped.returncode == 0 and "reading races" not in piped.stdout + piped.stderr


def test_new_takes_mode_and_variant_in_any_case_and_counts_one_lap(tmp_path: Path) -> None:
    """--mode and --variant as printed or typed, in any case, as --track and --legend take them (TABLE was
    refused); a one-lap race (# 17.1) says "1 lap", not "1 laps"."""
    db = tmp_path / "h.db"
    r = run("new", "--car", "Ann:red", "--car", "Bob:blue", "--mode", "TABLE", "--variant", "One-Lap", db=db)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("race 1: USA, 1 lap, table mode"), r.stdout
    r = run("new", "--car", "Ann:red", "--car", "Bob:blue", "--mode", "Open", db=db)
    assert r.returncode == 0 and "2 laps, open mode" in r.stdout, r.stdout
    r = run("simulate", "--cars", "2", "--variant", "ONE-LAP", "--json", db=db)
    assert r.returncode == 0 and json.loads(r.stdout)["laps"] == 1, r.stderr
    r = run("season", "new", "--published", "1961", "--car", "Ann:red", "--car", "Bob:blue", "--mode", "Open", db=db)
    assert r.returncode == 0, r.stderr  # (the season checked the mode before taking its case)


def test_one_of_a_thing_is_counted_in_the_singular(tmp_path: Path) -> None:
    # audit said "1 rounds", stats "drivers over 1 races", the next-step text "reveals 1 cards" (# 5.1)
    db = tmp_path / "h.db"
    new_race(db)
    audit = run("audit", db=db)
    assert audit.returncode == 0 and ", 1 round: clean" in audit.stdout, audit.stdout
    said = [
        run("add", json.dumps({"type": "gear_chosen", "v": 1, "car": c, "gear": 1}), db=db)
        for c in ("Ann", "Bob", "Cy")
    ]
    assert all(r.returncode == 0 for r in said) and "reveals 1 card (# 5.1)" in said[-1].stdout, said[-1]
    assert run("stats", "--all", db=db).stdout.startswith("drivers over 1 race ")
    one = run("replay", "--car", "Ann", db=db)
    assert one.returncode == 0 and "Ann's race, 1 round" in one.stdout and "1 rounds" not in one.stdout, one.stdout
    # turns said "1 race(s) rebuilt", an import "1 problem(s), nothing imported", audit "1 problem(s)"
    turns = " ".join(run("turns", "--rebuild", db=db).stdout.split())
    assert "turns: 1 race rebuilt from the log, 0 already matched it;" in turns and "(s)" not in turns, turns
    bad = tmp_path / "bad.jsonl"
    bad.write_text(run("export", db=db).stdout + '{"type": "note", "v": 1}\n', encoding="utf-8")
    imported = run("import", str(bad), db=db)
    assert imported.returncode == 1 and "1 problem, nothing imported" in imported.stderr, imported.stderr
    # season show said "1 sponsorship card(s) each" and "press corners B" of one corner (# 21.4, 21.6)
    season = run("season", "new", "--published", "1964", "--car", "Ann:red", "--car", "Bob:blue", db=db)
    assert season.returncode == 0, season.stderr
    shown = " ".join(run("season", "show", season.stdout.split()[-1], db=db).stdout.split())
    assert "race 2: 1 sponsorship card each (# 21.4); press corner B (# 21.6, 21.7)" in shown, shown
    assert "race 1: 2 sponsorship cards per press corner; press corners B, C (# 21.6, 21.7)" in shown, shown
    assert "card(s)" not in shown


def test_numbers_beyond_sqlite_are_no_race_round_or_season(tmp_path: Path) -> None:
    # A race, round or season number beyond SQLite's integers crashed every command that looked it up
    # (OverflowError, "internal error"); it is refused as any number no race, round or season has.
    db = tmp_path / "h.db"
    new_race(db)
    assert run("season", "new", "--published", "1961", "--car", "Ann:red", "--car", "Bob:blue", db=db).returncode == 0
    huge = str(2**64)
    for args, said in [
        (["show", "--race", huge], f"no race {huge}"),
        (["export", "--race", huge], f"no race {huge}"),
        (["compare", "1", huge], f"no race {huge}"),
        (["show", "--race", "-" + huge], f"no race -{huge}"),
        (["show", "--round", huge], f"no round {huge} (rounds 1–1)"),
        (["replay", "--round", huge], f"no round {huge} (rounds 1–1)"),
        (["position", "--round", huge], f"no round {huge} (rounds 1–1)"),
        (["season", "show", huge], f"no season {huge}"),
        (["season", "audit", huge], f"no season {huge}"),
        (["season", "audit", "7"], "no season 7"),
    ]:
        r = run(*args, db=db)
        assert r.returncode in (1, 2) and said in r.stderr and "internal error" not in r.stderr, (args, r.stderr)


def test_workers_beyond_a_local_pool_are_refused_before_a_process_or_a_file(tmp_path: Path) -> None:
    # --workers 100000 forked that many processes at once (a forking pool starts them all), and a number beyond
    # a C int crashed; both are refused, and the database file the refused command would have made is not left.
    db = tmp_path / "new.db"
    for n in ("100000", str(2**64)):
        r = run("simulate", "--races", "2", "--seed", "1", "--workers", n, db=db)
        assert r.returncode == 1 and f"--workers {n}: at most 64 local processes" in r.stderr, r.stderr
    r = run("simulate", "--cars", "9", db=db)
    assert r.returncode == 1 and not db.exists()


def test_import_refusals_name_the_file_and_read_as_one_sentence(tmp_path: Path) -> None:
    # Bad lines were refused without the file's name (every other refusal of a file names it), and a list of
    # problems after "nothing imported:" was joined as "nothing imported:; line 1: ...".
    db = tmp_path / "h.db"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\n[]\n', encoding="utf-8")
    r = run("import", str(bad), db=db)
    said = " ".join(r.stderr.split())
    assert r.returncode == 1 and f"{bad}: 2 bad line(s) (1, 2): line 1:" in said and "nothing imported" in said, said
    short = tmp_path / "short.jsonl"
    short.write_text('{"type": "race_started"}\n', encoding="utf-8")
    r = run("import", str(short), db=db)
    said = " ".join(r.stderr.split())
    assert r.returncode == 1 and "nothing imported: line 1: race_started: v: missing" in said and ":;" not in said, said
    assert not db.exists()


def test_a_race_not_started_replays_as_not_started(tmp_path: Path) -> None:
    # An open race still at its set-up (its shuffles to record): piped replay printed nothing at all, demo on
    # its database ended in an error, and replay --round named the race twice ("race 1: race 1 has not ...").
    db = tmp_path / "h.db"
    r = run("new", "--car", "Ann:red", "--car", "Bob:blue", "--mode", "open", db=db)
    assert r.returncode == 0, r.stderr
    said = "race 1 has not started its first round yet"
    for args in (["replay"], ["replay", "--car", "Ann"]):
        r = run(*args, db=db)
        assert r.returncode == 0 and r.stdout.strip() == said, (args, r)
    r = run("replay", "--round", "1", db=db)
    assert r.returncode == 1 and f"Error: not understood: {said}" in r.stderr, r.stderr
    r = run("demo", "--html", str(tmp_path / "demo.html"), db=db)
    assert r.returncode == 0 and said in r.stdout and "Error" not in r.stderr, r


def test_a_refused_retraction_names_its_race(tmp_path: Path) -> None:
    # every refusal of heatlog add names the race; a retraction of an event that is not the latest did not
    db = tmp_path / "h.db"
    new_race(db)
    before = run("export", db=db).stdout
    r = run("add", '{"type": "retracted", "v": 1, "seq": 1}', db=db)
    said = " ".join(r.stderr.split())
    assert r.returncode == 1 and "race 1: retracted: a retraction withdraws the latest entry in force" in said, said
    assert run("export", db=db).stdout == before


def test_output_into_a_closed_pipe_stops_quietly(tmp_path: Path) -> None:
    # `heatlog anchor | head -1`: a reader that left made every command but those printing through rich say
    # "Error: Broken pipe"; each now stops as rich's console does there, exit 1 and nothing on stderr
    db = tmp_path / "h.db"
    new_race(db)
    for args in (["anchor"], ["export"], ["races"], ["stats", "--all", "--csv"], ["audit"], ["show"]):
        read, write = os.pipe()
        os.close(read)  # the reader is gone before the first byte
        cmd = [HEATLOG or sys.executable, *([] if HEATLOG else ["-m", "heatlog.cli"]), *args, "--db", str(db)]
        try:
            r = subprocess.run(cmd, stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
        finally:
            os.close(write)
        assert r.returncode == 1 and r.stderr == "", (args, r.returncode, r.stderr)


def test_a_json_error_that_names_a_place_ends_with_it(tmp_path: Path) -> None:
    # "not valid JSON: column 29: Unterminated string starting at" left the sentence hanging
    db = tmp_path / "h.db"
    new_race(db)
    r = run("add", '{"type": "note", "text": "x', db=db)
    said = " ".join(r.stderr.split())
    assert r.returncode == 1 and "not valid JSON: Unterminated string starting at column 26" in said, said
    r = run("add", '{"type": "note" "text": "x"}', db=db)
    assert r.returncode == 1 and "not valid JSON: column 17: Expecting ',' delimiter" in r.stderr, r.stderr


def test_19_15_a_pro_value_out_of_range_is_refused_not_an_internal_error(tmp_path: Path) -> None:
    # # 19.15: pro Legends add 0 to 6; --pro 7 was a ValueError shown as "internal error (a bug in heatlog)",
    # then refused naming the field (race_started: modules.legends.pro) instead of the option typed
    db = tmp_path / "h.db"
    for args, value in (
        (["new", "--car", "Ann:red", "--legend", "black", "--pro", "7"], "7"),
        (["simulate", "--cars", "2", "--legends", "2", "--pro", "-1"], "-1"),
    ):
        r = run(*args, db=db)
        said = f"--pro {value}: pro Legends add 0 to 6 to every helmet number"
        assert r.returncode == 1 and one_line_error(r.stderr) and said in r.stderr, (args, r.stderr)
        assert "race_started" not in r.stderr and "modules.legends" not in r.stderr
    assert not db.exists()


def test_a_garage_option_out_of_its_choices_is_refused_naming_the_option(tmp_path: Path) -> None:
    # --garage fancy was refused as "upgrades must be one of basic, advanced, all": the log's field, not the
    # option typed (# 18.2, 18.3, 18.5); simulate and season new said the same
    db = tmp_path / "h.db"
    for args, said in (
        (["simulate", "--garage", "fancy"], "--garage fancy: upgrades must be one of basic, advanced, all"),
        (
            ["simulate", "--garage", "basic", "--expansion", "heavy-rain", "--expansion", "heavy-rain"],
            "--expansion heavy-rain --expansion heavy-rain: an expansion is named twice",
        ),
        (
            ["season", "new", "--published", "1961", "--car", "A:red", "--car", "B:blue", "--garage", "fancy"],
            "--garage fancy: upgrades must be one of basic, advanced, all",
        ),
        (
            [
                "season",
                "new",
                "--published",
                "1961",
                "--car",
                "A:red",
                "--car",
                "B:blue",
                "--garage",
                "basic",
                "--expansion",
                "monsoon",
            ],
            "--expansion monsoon: expansions must be a list of heavy-rain, tunnel-vision",
        ),
    ):
        r = run(*args, db=db)
        assert r.returncode == 1 and one_line_error(r.stderr) and said in r.stderr, (args, r.stderr)
    assert not db.exists()


def test_new_refuses_a_set_up_option_naming_the_option_not_the_logs_field(tmp_path: Path) -> None:
    # new --laps 11 said "race_started: laps: 11 is out of range", --road a said "step 0 (set-up):
    # road_conditions_drawn: …", a second red car "is the colour of cars[0]": words of the log, not of the
    # command line the user typed (# 20.2, 20.3)
    db = tmp_path / "h.db"
    two = ["--car", "Ann:red", "--car", "Bob:blue"]
    for args, said in (
        ([*two, "--laps", "11"], "--laps 11: 11 is out of range (1 to 10)"),
        ([*two, "--handicap", "Cy"], "--handicap Cy: 'Cy' is not one of the cars (Ann, Bob)"),
        (["--car", "Ann:red", "--car", "ann:blue"], "--car ann:blue: 'ann' differs from 'Ann' only in case"),
        (["--car", "Ann:red", "--car", "Bob:red"], "--car Bob:red: 'red' is the colour of 'Ann' (each car its own)"),
        (["--car", "Ann:red", "--legend", "red"], "--legend red: 'red' is the colour of 'Ann'"),
        (["--car", "Ann:red", "--legend", "Pink"], "--legend Pink: a Legend's colour must be one printed on the"),
        ([*two, "--tile", "foo", "--road", "overheat"], "--tile foo: there is no weather tile 'foo' (tiles: "),
        ([*two, "--tile", "sun", "--road", "a,b,c,d"], "--road a,b,c,d: there is no road-condition token 'a'"),
        ([*two, "--tile", "sun", "--road", "overheat"], "--road overheat: USA has 4 corners (a chicane counts once)"),
    ):
        r = run("new", *args, db=db)
        said_ = " ".join(r.stderr.split())
        assert r.returncode == 1 and one_line_error(r.stderr) and said in said_, (args, said_)
        assert "race_started" not in said_ and "_drawn" not in said_ and "cars[" not in said_, said_
    assert not db.exists()


def test_the_pro_help_says_the_range_the_legends_module_takes() -> None:
    """``--pro``'s help writes the range in words in cli/common.py without importing the Legends module (it
    loads the engine's track module at start-up): the two must not drift apart (# 19.15)."""
    from heatlog.engine.modules.legends.rules import MAX_PRO

    for command in ("new", "simulate"):
        said = " ".join(run(command, "--help").stdout.split())
        assert f"+N to every helmet number, 0–{MAX_PRO} (MODULES.md 19.15)" in said, said


def test_simulate_bots_of_the_wrong_number_say_so_in_the_options_words(tmp_path: Path) -> None:
    r = run("simulate", "--bots", "random", db=tmp_path / "h.db")  # "1 bots for 4 cars"
    said = " ".join(r.stderr.split())
    assert r.returncode == 1 and "--bots random: 1 bot for 4 cars: give one per car, in car order (or --bot" in said


def test_simulate_plays_a_module_registered_as_one_unit_by_its_name(tmp_path: Path) -> None:
    """simulate --module NAME, as new --module: rain (heatlog's example module, not a rule of Heat) is set up from
    its data file, the world draws its sky after the grid, the race is played to the finish and stored. --races
    plays it in the workers too. An unknown module is refused naming the option, and nothing is created."""
    db = tmp_path / "h.db"
    r = run("simulate", "--cars", "2", "--laps", "1", "--module", "hail", db=db)
    assert r.returncode == 1 and "--module hail: not a module started by name (modules: rain" in r.stderr, r.stderr
    assert not db.exists()
    r = run("simulate", "--cars", "2", "--laps", "1", "--seed", "3", "--module", "rain", "--json", db=db)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["over"] is True
    events = [json.loads(line) for line in run("export", db=db).stdout.splitlines()]
    assert events[0]["modules"] == ["rain"] and events[0]["rain"] == {"skies": {"dry": 0, "wet": 1}}
    assert events[1]["type"] == "grid_set" and events[2]["type"] == "rain_drawn"  # the set-up phase, then the decks
    assert events[2]["sky"] in ("dry", "wet")
    r = run(
        "simulate",
        "--cars",
        "2",
        "--laps",
        "1",
        "--seed",
        "3",
        "--races",
        "2",
        "--workers",
        "1",
        "--module",
        "rain",
        "--json",
        db=db,
    )
    assert r.returncode == 0, r.stderr
    assert [p["over"] for p in json.loads(r.stdout)] == [True, True]
    r = run("simulate", "--season", "1961", "--module", "rain", db=db)
    assert r.returncode == 1 and "--module" in r.stderr, r.stderr


def test_options_that_would_be_dropped_without_a_word_are_refused(tmp_path: Path) -> None:
    # new --grid with --seed (the log then named a seed for a random grid it never drew), stats --race with
    # --branches (one race: no branches to count), simulate --season with --workers (played in this process)
    db = tmp_path / "h.db"
    for args, said in [
        (
            ["new", "--car", "Ann:red", "--car", "Bob:blue", "--grid", "Bob,Ann", "--seed", "5"],
            "--seed draws a random grid",
        ),
        (["simulate", "--season", "1961", "--workers", "2"], "--workers: a season's races are played one after"),
    ]:
        r = run(*args, db=db)
        assert r.returncode == 1 and said in " ".join(r.stderr.split()), (args, r.stderr)
        assert not db.exists()
    new_race(db)
    r = run("stats", "--race", "1", "--branches", db=db)
    assert r.returncode == 1 and "--branches counts what-if branches among many races" in r.stderr, r.stderr


def test_an_output_page_that_cannot_be_written_is_refused_before_the_work(tmp_path: Path) -> None:
    # review --html into a directory that does not exist failed only after the whole review (its work lost);
    # demo loaded the samples into the database, then failed the same way
    db = tmp_path / "h.db"
    for args in (["review", "--workers", "1"], ["demo"]):
        for page, said in ((tmp_path / "no" / "r.html", "there is no directory"), (tmp_path, "is a directory")):
            r = run(*args, "--html", str(page), db=db)
            assert r.returncode == 1 and f"--html {page}: {said}" in r.stderr, (args, r.stderr)
            assert "internal error" not in r.stderr
    assert not db.exists()


def test_audit_of_no_race_says_so(tmp_path: Path) -> None:
    # audit --all of a database without races (a season not started) printed nothing at all, exit 0
    db = tmp_path / "h.db"
    assert run("season", "new", "--race", "usa:1", "--car", "Ann:red", "--car", "Bob:blue", db=db).returncode == 0
    r = run("audit", "--all", db=db)
    assert r.returncode == 0 and r.stdout.strip() == f"no races to audit in {db}", r
    assert json.loads(run("audit", "--all", "--json", db=db).stdout) == []


def test_import_reads_standard_input_as_add_does(tmp_path: Path) -> None:
    # heatlog add - reads its event from standard input; heatlog import - said "import file -: not found", so
    # heatlog export | heatlog import - did not work
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    new_race(a)
    exported = run("export", db=a).stdout
    r = run("import", "-", db=b, input=exported)
    assert r.returncode == 0 and r.stdout.strip() == "1" and "imported standard input as race 1" in r.stderr, r
    assert run("export", db=b).stdout == exported
    again = run("import", "-", db=b, input=exported)
    assert again.returncode == 1 and "standard input: race 1 already holds these" in again.stderr, again.stderr


def test_a_line_break_in_a_note_or_a_reason_is_shown_not_taken(tmp_path: Path) -> None:
    # Control characters in a note were shown as escapes, but a line break was printed as one: a note could
    # print a line of its own, such as a fake audit verdict. Audit and replay show it as \n, as the HTML does.
    db = tmp_path / "h.db"
    new_race(db)
    fake = "race 2: 99 events, 9 rounds: clean"
    assert run("note", f"fine\n{fake}", db=db).returncode == 0
    assert run("note", "x", db=db).returncode == 0
    assert run("undo", "--reason", f"oops\n{fake}", db=db).returncode == 0
    for args in (["audit"], ["replay"], ["replay", "--car", "Ann"]):
        r = run(*args, db=db)
        assert r.returncode == 0 and "fine\\nrace 2" in r.stdout, (args, r.stdout)
        assert not any(line.strip().startswith("race 2") for line in r.stdout.splitlines()), (args, r.stdout)
    assert "(oops\\nrace 2: 99 events" in run("audit", db=db).stdout


def test_a_terminal_size_that_is_no_number_is_ignored(tmp_path: Path) -> None:
    # COLUMNS=² (a digit to str.isdigit, no number to int) crashed every command that printed, in rich and
    # in the plain writer alike; a season's event card "²" crashed season new
    db = tmp_path / "h.db"
    new_race(db)
    for env in ({"COLUMNS": "²"}, {"LINES": "³", "COLUMNS": "x"}):
        r = run("show", db=db, env=env)
        assert r.returncode == 0 and "waiting for: gears" in r.stdout and "Traceback" not in r.stderr, (env, r)
    r = run("season", "new", "--race", "usa:²", "--car", "Ann:red", "--car", "Bob:blue", db=db)
    assert r.returncode == 1 and "--race 'usa:²': write TRACK:EVENT" in r.stderr, r.stderr


def test_an_output_that_cannot_hold_the_text_is_said_not_an_internal_error(tmp_path: Path) -> None:
    # a standard output in ASCII (PYTHONIOENCODING=ascii) made show an "internal error (a bug in heatlog)"
    db = tmp_path / "h.db"
    new_race(db)
    r = run("show", db=db, env={"PYTHONIOENCODING": "ascii"})
    assert r.returncode == 1 and one_line_error(r.stderr), r.stderr
    assert "the output's encoding (ascii) cannot write" in r.stderr and "PYTHONIOENCODING=utf-8" in r.stderr
    assert run("export", db=db, env={"PYTHONIOENCODING": "ascii"}).returncode == 0  # ASCII text writes as before


def one_line_error(stderr: str) -> bool:
    lines = [line for line in stderr.splitlines() if line.strip()]
    return len(lines) == 1 and lines[0].startswith("Error: ") and "internal error" not in stderr


def test_help_lists_the_commands_as_the_full_app_does(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """heatlog --help builds its commands without their parameters (cli.help_only, issue 32: start-up): the text
    is the full app's, commands, groups and options alike, and none of the stand-ins can run."""
    from heatlog import cli

    def helped(app: Any) -> str:
        monkeypatch.setattr(sys, "argv", ["heatlog", "--help"])
        with pytest.raises(SystemExit):
            app()
        return str(capsys.readouterr().out)

    full = helped(cli.load())
    lean = cli.help_only(cli.load())
    assert helped(lean) == full and "season" in full and "undo" in full
    assert all(not inspect.signature(c.callback).parameters for c in lean.registered_commands)
    assert cli.load().registered_commands[0].callback is not lean.registered_commands[0].callback  # a copy
    with pytest.raises(RuntimeError):
        lean.registered_commands[0].callback()


def test_new_starts_a_module_registered_as_one_unit_by_its_name(tmp_path: Path) -> None:
    """--module NAME: a module registered as one unit (engine/module.py) with its data file's options (rain,
    heatlog's example module, not a rule of Heat); its set-up draw is the next event, its line is on the board.
    A module that is not one, or given twice, is refused naming the option, and nothing is created."""
    db = tmp_path / "h.db"
    for bad, words in (
        (("--module", "hail"), "--module hail: not a module started by name (modules: rain"),
        (("--module", "rain", "--module", "RAIN"), "--module RAIN: given twice"),
    ):
        r = run("new", "--car", "Ann:red", "--car", "Bob:blue", *bad, db=db)
        assert r.returncode != 0 and words in r.stderr, r.stderr
    assert not db.exists() or "race 1" not in run("races", db=db).stdout
    race = new_race(db, "--module", "rain")
    first = json.loads(run("export", db=db).stdout.splitlines()[0])
    assert first["modules"] == ["rain"] and first["rain"] == {"skies": {"dry": 0, "wet": 1}}
    assert "waiting for: the sky" in run("show", db=db).stdout
    r = run("add", json.dumps({"type": "rain_drawn", "v": 1, "sky": "wet"}), "--race", str(race), db=db)
    assert r.returncode == 0, r.stderr
    assert "rain (example module): wet, corner limits +1" in run("show", db=db).stdout
