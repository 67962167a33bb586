"""Damaged or tampered files (issue 9): audit reports every problem and never stops early; anchors kept
elsewhere detect a log cut short or consistently re-hashed; an export carries its anchor and import checks it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from edges import one_error_line, run, state_of

from heatlog.store import GENESIS, EventStore, canonical, chain_hash
from heatlog.store.eventrows import payload_column


@pytest.fixture(params=[1, 2], ids=["format-1", "format-2"])
def db(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """Three races in a file of format 1 (as heatlog wrote before issue 32) or 2 (heatlog.store.eventrows)."""
    path = tmp_path / "h.db"
    EventStore(path, new_format=request.param).close()
    for _ in range(3):
        r = run("new", "--car", "Ann:red", "--car", "Bob:blue", "--seed", "1", db=path)
        assert r.returncode == 0, r
    return path


def raw(db: Path, *statements: str) -> None:
    """Hand edits, as a hostile user would make them: the guards dropped first."""
    conn = sqlite3.connect(db)
    for name in ("events_no_update", "events_no_delete"):
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for sql in statements:
        conn.execute(sql)
    conn.commit()
    conn.close()


def audit(db: Path, *args: str) -> list[dict]:
    r = run("audit", "--all", "--json", *args, db=db)
    assert r.returncode in (0, 1), r
    assert "Traceback" not in r.stderr
    return json.loads(r.stdout)


def test_bad_bytes_and_blobs_are_reported_and_the_audit_goes_on(db: Path) -> None:
    raw(
        db,
        "UPDATE events SET payload = CAST(X'7B22FF22' AS TEXT) WHERE race = 1 AND seq = 2",  # not UTF-8
        "UPDATE events SET payload = X'00FF' WHERE race = 2 AND seq = 3",  # a blob
    )
    reports = {r["race"]: r for r in audit(db)}
    kinds = {r: {(p["seq"], p["kind"]) for p in rep["problems"]} for r, rep in reports.items()}
    assert (2, "text") in kinds[1] and (2, "hash") in kinds[1]
    assert (3, "blob") in kinds[2]
    assert reports[3]["clean"]  # the audit went on to the next race
    assert any(k == "guard" for _, k in kinds[0])  # the dropped triggers are reported too
    text = run("audit", "--all", db=db).stdout
    assert "race 3" in text and "PROBLEM text" in text


def test_integrity_check_runs_as_part_of_audit(db: Path) -> None:
    conn = sqlite3.connect(db)
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'races_parent'").fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(db.read_bytes())
    data[(root - 1) * size : (root - 1) * size + 8] = b"\xff" * 8  # the index's b-tree page header
    db.write_bytes(bytes(data))
    r = run("audit", "--all", "--json", db=db)
    assert r.returncode in (1, 2) and "Traceback" not in r.stderr, r
    assert '"kind": "integrity"' in r.stdout, r


def test_anchor_detects_truncation_and_a_consistent_rehash(db: Path, tmp_path: Path) -> None:
    anchors = tmp_path / "anchors.jsonl"
    anchors.write_text(run("anchor", db=db).stdout)
    assert [json.loads(line)["race"] for line in anchors.read_text().splitlines()] == [1, 2, 3]
    assert all(r["clean"] for r in audit(db, "--anchor", str(anchors)))
    run("note", "appending after the anchor is fine", "--race", "1", db=db)
    assert all(r["clean"] for r in audit(db, "--anchor", str(anchors)))
    # race 2 cut short and race 3 rewritten with a consistent chain: invisible from inside the file
    with EventStore(db) as store:
        version = store.format_version
        rows = [(stored.seq, stored.event) for stored in store.events(3)]
    statements = ["DELETE FROM events WHERE race = 2 AND seq > 3"]
    prev = GENESIS
    for seq, event in rows:
        if seq == 2:
            event["order"] = event["order"][::-1]
        text = canonical(event).decode()
        digest = chain_hash(prev, text.encode())
        if version == 1:
            quoted = text.replace("'", "''")
            change = f"payload = '{quoted}', prev_hash = '{prev}', hash = '{digest}'"
        else:  # heatlog.store.eventrows: the payload without type and v, the hash as bytes
            v, body = payload_column(event["type"], event.get("v"), text)
            quoted = body.replace("'", "''")
            change = f"payload = '{quoted}', v = {'NULL' if v is None else v}, hash = X'{digest}'"
        statements.append(f"UPDATE events SET {change} WHERE race = 3 AND seq = {seq}")
        prev = digest
    raw(db, *statements)
    inside = {r["race"]: r for r in audit(db)}
    assert inside[3]["clean"] and inside[2]["clean"]  # the file alone cannot tell
    found = {r["race"]: r for r in audit(db, "--anchor", str(anchors))}
    assert any("cut short" in p["message"] for p in found[2]["problems"])
    assert any("rewritten" in p["message"] for p in found[3]["problems"])


def test_no_anchor_for_a_log_already_damaged(db: Path) -> None:
    """An anchor vouches for the log as it stands: a race whose event 3 was changed got its anchor printed like any
    other (kept elsewhere, it would be taken for the race's good state), while export --anchor refuses the log.
    The undamaged races still get theirs; the damaged one is named, exit 1."""
    raw(db, "UPDATE events SET payload = replace(payload, '\"count\":7', '\"count\":6') WHERE race = 2 AND seq = 4")
    r = run("anchor", db=db)
    assert r.returncode == 1 and one_error_line(r), r
    assert [json.loads(line)["race"] for line in r.stdout.splitlines()] == [1, 3]
    assert "race 2: no anchor printed: the log is damaged or was tampered with at event 4" in r.stderr, r.stderr
    assert run("anchor", "--race", "1", db=db).returncode == 0


def test_an_unreadable_anchor_file_is_said_in_plain_words(db: Path, tmp_path: Path) -> None:
    # exit 2 (unreadable), and the error worded as every other command words it: no internal kind "malformed"
    anchors = tmp_path / "anchors.jsonl"
    anchors.write_text(run("anchor", db=db).stdout + "not json\n")
    r = run("audit", "--all", "--anchor", str(anchors), db=db)
    assert r.returncode == 2 and one_error_line(r), r
    assert f"Error: not understood: anchor file {anchors}: line 4: not valid JSON" in r.stderr, r.stderr


def test_export_carries_the_anchor_and_import_checks_it(db: Path, tmp_path: Path) -> None:
    text = run("export", "--anchor", "--race", "2", db=db).stdout
    last = json.loads(text.splitlines()[-1])
    assert last["heatlog_anchor"] == 1 and last["race"] == 2 and len(last["head"]) == 64
    good = tmp_path / "good.jsonl"
    good.write_text(text)
    assert run("import", str(good), "--again", db=db).returncode == 0  # (race 1 holds these events too)
    lines = text.splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:3] + lines[-1:]) + "\n")  # events removed, anchor kept
    before = state_of(db)
    r = run("import", str(cut), db=db)
    assert one_error_line(r) and "do not match the file's anchor" in r.stderr, r
    assert state_of(db) == before


def test_a_hand_edited_snapshot_never_changes_show_round(tmp_path: Path) -> None:
    from replay_cases import RACE_LOG

    db = tmp_path / "h.db"
    assert run("import", str(RACE_LOG), db=db).returncode == 0
    first = run("show", "--round", "3", "--json", db=db)
    assert first.returncode == 0, first
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT round, state FROM snapshots").fetchall()
    assert rows, "show --round caches snapshots"
    for rnd, text in rows:  # an edit that keeps the JSON valid: every car back to gear 4
        conn.execute("UPDATE snapshots SET state = ? WHERE round = ?", (text.replace('"gear":1', '"gear":4'), rnd))
    conn.commit()
    conn.close()
    assert run("show", "--round", "3", "--json", db=db).stdout == first.stdout
    conn = sqlite3.connect(db)
    conn.execute('UPDATE snapshots SET state = \'{"at":"x"}\'')
    conn.commit()
    conn.close()
    assert run("show", "--round", "3", "--json", db=db).stdout == first.stdout
    assert run("show", "--round", "3", db=db).returncode == 0


def _imported(tmp_path: Path) -> Path:
    from replay_cases import RACE_LOG

    db = tmp_path / "h.db"
    assert run("import", str(RACE_LOG), db=db).returncode == 0
    return db


READS = [["show"], ["show", "--json"], ["position"], ["replay", "--round", "2"], ["export"]]
# the commands that read and hash-check every row of the log (show and replay --round N check the rows from the
# latest round start on, and replay --round N those of its round: docs/store.md, "What a read checks")
WHOLE = [["position"], ["replay"], ["export"]]
# replay-race.jsonl: rounds 1, 2, 3 start at events 8, 26, 40, the last (15) at 246; 258 events
LAST_START = 246


def _tampered(db: Path, seq: int) -> None:
    """Event ``seq``'s stored hash no longer matches its content, and event ``seq + 1`` no longer chains from it."""
    raw(db, f"UPDATE events SET hash = '{'ab' * 32}' WHERE race = 1 AND seq = {seq}")


def test_reads_refuse_a_broken_hash_chain_and_force_reads_it_with_a_warning(tmp_path: Path) -> None:
    db = _imported(tmp_path)
    good = {tuple(args): run(*args, db=db).stdout for args in [*READS, *WHOLE]}  # show caches the round starts
    at = LAST_START + 4  # after the latest round start: every read checks it
    _tampered(db, at)
    for args in [*READS, *WHOLE, ["replay", "--html", str(tmp_path / "r.html")]]:
        r = run(*args, db=db)
        assert one_error_line(r), (args, r)
        assert "race 1" in r.stderr and f"at event {at}" in r.stderr and "--force reads it anyway" in r.stderr, r
        assert r.stdout == "" and not (tmp_path / "r.html").exists()
    for args in [*READS, *WHOLE]:
        r = run(*args, "--force", db=db)
        assert r.returncode == 0, (args, r)
        warnings = [line for line in r.stderr.splitlines() if line.startswith("Warning:")]
        assert warnings[0].startswith(f"Warning: race 1: event {at}: its content changed"), r
        assert f"event {at + 1}" in warnings[1] and "hash chain" in warnings[1], r
        assert r.stdout == good[tuple(args)]  # the content itself was intact: --force shows what is stored
    # the recorder refuses too; its --force takes a race over, so reading anyway is --read-damaged
    r = run("record", "--race", "1", db=db, input="")
    assert one_error_line(r) and f"at event {at}" in r.stderr and "--read-damaged reads it anyway" in r.stderr, r
    r = run("record", "--race", "1", "--read-damaged", db=db, input="")
    assert f"Warning: race 1: event {at}" in r.stderr and "Traceback" not in r.stderr, r


def test_show_checks_the_rows_since_the_latest_round_start_and_audit_every_row(tmp_path: Path) -> None:
    """What show and replay --round N guarantee (docs/store.md, "What a read checks"): the rows from the latest
    round start's snapshot on (and, for replay --round N, those of round N) are hash-checked; a row before them
    whose content no longer matches its stored hash is not read: audit, export, position and a whole replay,
    which read every row, name it."""
    db = _imported(tmp_path)
    good = {tuple(args): run(*args, db=db).stdout for args in READS}
    assert run("audit", "--race", "1", db=db).returncode == 0
    for at, unread_by in ((7, READS), (30, [["show"], ["show", "--json"]])):  # before every round start; round 2
        copy = tmp_path / f"t{at}.db"
        copy.write_bytes(db.read_bytes())
        _tampered(copy, at)
        for args in READS:
            r = run(*args, db=copy)
            if args in unread_by and args not in WHOLE:
                assert r.returncode == 0 and r.stdout == good[tuple(args)], (at, args, r)
            else:
                assert one_error_line(r) and f"at event {at}" in r.stderr, (at, args, r)
        for args in WHOLE:
            r = run(*args, db=copy)
            assert one_error_line(r) and f"at event {at}" in r.stderr, (at, args, r)
        [report] = [x for x in audit(copy) if x["race"] == 1]
        assert not report["clean"] and {(at, "hash"), (at + 1, "chain")} <= {
            (p["seq"], p["kind"]) for p in report["problems"]
        }, report


def test_a_changed_hash_at_the_snapshot_makes_show_read_the_whole_log(tmp_path: Path) -> None:
    """The snapshot is sealed to its event's hash: that hash changed (as a consistent re-hash of the rows before
    it would change it), the snapshot does not hold and show reads, and checks, the whole log."""
    db = _imported(tmp_path)
    assert run("show", db=db).returncode == 0  # caches the round starts
    _tampered(db, LAST_START)
    for args in (["show"], ["replay", "--round", "2"]):
        r = run(*args, db=db)
        assert one_error_line(r) and f"at event {LAST_START}" in r.stderr, (args, r)


def test_a_missing_or_edited_event_is_named_in_the_refusal(tmp_path: Path) -> None:
    db = _imported(tmp_path)
    raw(db, "DELETE FROM events WHERE race = 1 AND seq = 10")
    r = run("show", db=db)
    assert one_error_line(r) and "at event 10: event 10 is missing" in r.stderr, r
    db2 = _imported(tmp_path / "x") if (tmp_path / "x").mkdir() is None else db
    raw(db2, "UPDATE events SET payload = replace(payload, '{', '{ ') WHERE race = 1 AND seq = 12")
    r = run("export", db=db2)
    assert one_error_line(r) and "at event 12: its content changed" in r.stderr, r


def _bytes(db: Path) -> list[bytes]:
    """The file and its WAL, byte for byte (a dump needs a readable schema; an empty WAL is no change)."""
    return [p.read_bytes() for p in (db, Path(f"{db}-wal")) if p.exists() and p.stat().st_size]


def _flipped(db: Path, marker: bytes, offset: int, byte: int) -> None:
    """One byte of the file changed where ``marker`` (text of sqlite_master, on page 1) begins."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(db.read_bytes())
    at = data.find(marker)
    assert at > 0, marker  # in sqlite_master (page 1 and, with more tables, the pages it grew into)
    data[at + offset] = byte
    db.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("marker", "offset", "byte", "kind", "name", "fate"),
    [
        (b'CREATE TABLE "events"', 2, 0xFF, "table", "events", "rows survive: read below"),  # not UTF-8
        (b'CREATE TABLE "races"', 2, ord("#"), "table", "races", "its 3 rows survive"),  # does not parse
        (b"CREATE INDEX events_retracted", 7, ord("X"), "index", "events_retracted", "rebuilt in the copy"),
        (b"CREATE TRIGGER events_no_update", 8, ord("#"), "trigger", "events_no_update", "put back"),
        (b"tableeventsevents", 7, ord("x"), "table", "events", "its row names it 'evxnts'"),  # the row's name column
    ],
)
def test_a_damaged_schema_is_reported_object_by_object_and_the_races_still_audited(
    db: Path, tmp_path: Path, marker: bytes, offset: int, byte: int, kind: str, name: str, fate: str
) -> None:
    assert run("races", db=db).returncode == 0  # the tables heatlog makes when first needed are no damage
    assert run("season", "new", "--published", "1961", "--car", "Ann:red", "--car", "Bob:blue", db=db).returncode == 0
    _flipped(db, marker, offset, byte)
    before = _bytes(db)
    assert one_error_line(run("show", db=db))  # the other commands refuse the file with one line
    r = run("audit", "--all", "--json", db=db)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r
    reports = json.loads(r.stdout)
    whole = reports[0]
    assert whole["race"] == 0 and not whole["clean"]
    [problem] = whole["problems"]
    assert problem["kind"] == "sqlite_master" and problem["message"].startswith(f"{kind} {name}: damaged: "), problem
    assert fate in problem["message"], problem
    statuses = {o["name"]: o["status"] for o in whole["objects"]}
    assert statuses[name] == "damaged" and sum(s == "ok" for s in statuses.values()) == len(statuses) - 1
    assert "--salvage" in whole["advice"]
    # what survives: every race is audited (through a copy; the file itself is only read)
    assert [(x["race"], x["clean"]) for x in reports[1:]] == [(1, True), (2, True), (3, True)]
    assert _bytes(db) == before
    text = run("audit", "--all", db=db)
    assert text.returncode == 1 and f"PROBLEM sqlite_master: {kind} {name}: damaged" in text.stdout
    assert "what you can do:" in text.stdout and "race 3" in text.stdout
    # --salvage keeps the copy, which heatlog then reads as any file
    copy = tmp_path / "salvaged.db"
    assert run("audit", "--all", "--salvage", str(copy), db=db).returncode == 1
    assert _bytes(db) == before
    assert run("audit", "--all", db=copy).returncode == 0
    assert run("show", "--race", "2", db=copy).returncode == 0
    r = run("audit", "--all", "--salvage", str(copy), db=db)
    assert one_error_line(r) and "will not overwrite" in r.stderr, r


def test_a_file_whose_schema_cannot_be_read_at_all_still_gets_one_line(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(db.read_bytes())
    data[100:108] = b"\xff" * 8  # the b-tree header of page 1 (sqlite_master itself)
    db.write_bytes(bytes(data))
    r = run("audit", "--all", "--json", db=db)
    assert r.returncode in (1, 2) and "Traceback" not in r.stderr and "internal error" not in r.stderr, r
    if r.returncode == 1:
        assert "restore the file from a backup" in r.stdout
    else:
        assert one_error_line(r)


def test_stats_and_turns_over_every_race_leave_out_a_damaged_one_and_go_on(db: Path) -> None:
    """stats --all (and turns --all) name a damaged race as every read of a damaged log does, after the
    statistics of the others, exit 1; they stopped at it before."""
    raw(db, "UPDATE events SET payload = replace(payload, '\"count\":7', '\"count\":6') WHERE race = 2 AND seq = 4")
    said = "race 2: left out: the log is damaged or was tampered with at event 4"
    r = run("stats", "--all", "--json", db=db)
    assert r.returncode == 1 and one_error_line(r) and said in r.stderr, r
    report = json.loads(r.stdout)
    assert report["races"] == [1, 3] and report["damaged"] == [2] and report["selected"] == 3
    table = run("stats", "--all", db=db)
    assert table.returncode == 1 and "drivers over 2 races (1 race left out: damaged)" in table.stdout, table
    built = run("turns", "--all", "--rebuild", db=db)
    assert built.returncode == 1 and one_error_line(built) and said in built.stderr, built
    assert "turns: 2 races rebuilt from the log" in built.stdout


def test_stats_of_a_season_leaves_out_a_damaged_race_as_stats_all_does(tmp_path: Path) -> None:
    """stats --season stopped at a damaged race ("Error: store: race 2: ...", nothing printed): the season's
    view reads every race first. Now, as --all: the others' statistics, the standings up to the race before it
    (its result cannot be read, MODULES.md 21.10), the race named on stderr in DamagedLog's words, exit 1."""
    db = tmp_path / "s.db"
    assert run("simulate", "--season", "1961", "--cars", "2", "--seed", "3", db=db).returncode == 0
    raw(
        db,
        "UPDATE events SET payload = replace(payload, '{', '{ ') WHERE race = 2 AND seq = 4 AND type = 'cards_drawn'",
    )
    said = "race 2: left out: the log is damaged or was tampered with at event 4"
    r = run("stats", "--season", "1", "--json", db=db)
    assert r.returncode == 1 and one_error_line(r) and said in r.stderr, r
    report = json.loads(r.stdout)
    assert report["races"] == [1, 3] and report["damaged"] == [2] and report["selected"] == 3
    assert report["races_run"] == 1 and not report["over"] and len(report["standings"][0]["per_race"]) == 1
    table = run("stats", "--season", "1", db=db)
    shown = " ".join(table.stdout.split())
    assert table.returncode == 1 and one_error_line(table) and said in table.stderr, table
    assert "standings — after race 1 of 3: race 2 of the season (race 2) is damaged" in shown, shown
    assert "drivers over 2 races (1 race left out: damaged)" in shown
    csv = run("stats", "--season", "1", "--csv", db=db)
    assert csv.returncode == 1 and said in csv.stderr and csv.stdout.startswith("season,season_position"), csv
    raw(db, "UPDATE events SET payload = replace(payload, '{', '{ ') WHERE race = 1 AND seq = 2 AND type = 'grid_set'")
    first = run("stats", "--season", "1", db=db)
    assert first.returncode == 1 and "race 1: left out" in first.stderr and said in first.stderr, first
    assert "no standings: race 1 of the season (race 1) is damaged" in " ".join(first.stdout.split())


def test_season_list_names_a_damaged_race_and_stops_the_standings_before_it(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert run("simulate", "--season", "1961", "--cars", "2", "--seed", "3", db=db).returncode == 0
    raw(
        db,
        "UPDATE events SET payload = replace(payload, '{', '{ ') WHERE race = 2 AND seq = 4 AND type = 'cards_drawn'",
    )
    r = run("season", "list", db=db)
    assert r.returncode == 0 and r.stdout.splitlines()[1].split("\t")[2] == "1 of 3 run; race 2 is damaged", r
    data = json.loads(run("season", "list", "--json", db=db).stdout)[0]
    assert (data["run"], data["over"], data["damaged_race"]) == (1, False, 2)


def test_the_pool_of_workers_leaves_out_a_damaged_race_too(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many races are folded by a pool of processes: a damaged one comes back as its defect, told to the
    reader, and the others are folded (a worker's DamagedLog could not cross back to this process)."""
    import heatlog.stats.derived as derived
    from heatlog.log.racelog import RaceLog
    from heatlog.stats import TurnsTable

    raw(db, "UPDATE events SET payload = replace(payload, '\"count\":7', '\"count\":6') WHERE race = 2 AND seq = 4")
    monkeypatch.setattr(derived, "PARALLEL_FROM", 2)
    monkeypatch.setattr(derived, "_POOL_CHUNK", 1)
    log = RaceLog(db, create=False)
    told: list[Any] = []
    got = [f.race for f in TurnsTable(log).facts([1, 2, 3], cache=False, workers=2, damaged=told.append)]
    assert got == [1, 3] and [(e.problem.race, e.problem.seq) for e in told] == [(2, 4)]
    with pytest.raises(derived.DamagedLog):
        list(TurnsTable(log).facts([1, 2, 3], cache=False, workers=2))


def test_export_with_force_gives_no_anchor_for_a_damaged_log(db: Path, tmp_path: Path) -> None:
    """--force reads a damaged log anyway, but export --anchor --force ended it with an anchor line: an anchor
    vouching for the log as it stands, as heatlog anchor refuses to give one. The events still export."""
    raw(db, "UPDATE events SET payload = replace(payload, '\"count\":7', '\"count\":6') WHERE race = 2 AND seq = 4")
    out = tmp_path / "r2.jsonl"
    r = run("export", "--race", "2", "--anchor", "--force", "-o", str(out), db=db)
    said = " ".join(r.stderr.split())
    assert r.returncode == 1 and "race 2: no anchor: the log is damaged or was tampered with at event 4" in said, said
    assert not out.exists()
    plain = run("export", "--race", "2", "--force", db=db)
    assert plain.returncode == 0 and "heatlog_anchor" not in plain.stdout and plain.stdout.count("\n") == 6
    fine = run("export", "--race", "1", "--anchor", "--force", db=db)
    assert fine.returncode == 0 and '"heatlog_anchor"' in fine.stdout.splitlines()[-1]
