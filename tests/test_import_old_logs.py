"""Old logs keep loading (issue 29, bug 8): a log exported by an earlier version, which the stricter deduction of
this one refuses, is imported as recorded, its refused entries withdrawn by a retraction that says why, named
by the import and by `heatlog audit`; never stranded, and no raw event JSON in the words.

The old log is the table-mode sample with one cooldown an earlier version accepted: Yellow cools a Heat in round
7 when the table knows its 9-card deck is exactly 1 1 2 2 3 3 4 4 H, so no Heat can be in the hand (# 7.3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import run

from heatlog.engine import apply, state_to_position
from heatlog.engine.errors import HeatlogError
from heatlog.log.racelog import RaceLog
from heatlog.races import REFUSED_REASON, Refusal, import_race
from heatlog.store import canonical

SAMPLE = Path(__file__).parent.parent / "replays" / "usa-4cars-table.jsonl"
COOL = {"type": "cooldown", "v": 1, "car": "Yellow", "count": 1}
AT = 174  # the refused cooldown is line 175 of the old log


def events() -> list[dict[str, object]]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def old_log(tmp_path: Path, evs: list[dict[str, object]]) -> Path:
    path = tmp_path / "old.jsonl"
    path.write_text("".join(canonical(e).decode() + "\n" for e in evs), encoding="utf-8")
    return path


def folded(evs: list[dict[str, object]]) -> dict[str, object]:
    state = None
    for ev in evs:
        state = apply(state, ev)
    assert state is not None
    return state_to_position(state)


def test_the_old_entry_is_refused_by_the_rules_of_today() -> None:
    """The premise: the entry is one the rules refuse now (so the import must do something with it)."""
    evs = events()
    with pytest.raises(HeatlogError, match="at most 0 Heat can be in the hand"):
        folded([*evs[:AT], COOL])


def test_an_old_log_imports_as_recorded_with_the_refused_entry_withdrawn_and_named(tmp_path: Path) -> None:
    evs = events()
    path = old_log(tmp_path, [*evs[:AT], COOL, *evs[AT:]])
    db = tmp_path / "h.db"
    r = run("import", str(path), db=db)
    assert r.returncode == 0, r.stderr  # was: "line 175: illegal: ... nothing imported", the race stranded
    assert r.stdout.strip() == "1"
    said = " ".join(r.stderr.split())  # as wrapped for the terminal, read as one line
    assert "1 entry of" in said and "imported as recorded and withdrawn" in said, said
    assert "line 175 (event 175, cooldown): illegal: round 7, step 5 (react), car Yellow: cooldown takes Heat" in said
    assert "at most 0 Heat can be in the hand" in said and "(# 7.3)" in said, said
    assert '{"' not in said and '"car"' not in said, said  # no raw event JSON
    log = RaceLog(db)
    try:
        stored = [e.event for e in log.stored(1)]
        assert stored[AT] == COOL  # the entry as recorded, kept in the log
        assert stored[AT + 1]["type"] == "retracted" and stored[AT + 1]["seq"] == AT + 1
        assert stored[AT + 1]["reason"] == REFUSED_REASON and "at most 0 Heat" in str(stored[AT + 1]["refused"])
        assert len(stored) == len(evs) + 2
        # the refused entry changes nothing derived: the race is the one the rest of the log records
        assert state_to_position(log.project(1).state) == folded(evs)
    finally:
        log.close()
    audit = run("audit", "--race", "1", db=db)
    assert audit.returncode == 0, audit.stderr + audit.stdout
    shown = " ".join(audit.stdout.split())
    assert "refused entry: event 175 (cooldown), withdrawn on import by event 176: illegal: round 7" in shown, shown
    assert "at most 0 Heat can be in the hand" in shown and '{"' not in shown
    # exported with its retraction, it imports again as it is (the export check is the strict import)
    out = tmp_path / "again.jsonl"
    exported = run("export", "--race", "1", "-o", str(out), db=db)
    assert exported.returncode == 0, exported.stderr
    other = run("import", str(out), db=tmp_path / "other.db")
    assert other.returncode == 0 and "Warning" not in other.stderr, other.stderr


def test_a_retraction_of_the_old_log_names_the_same_event_at_its_new_place(tmp_path: Path) -> None:
    """The old log undid a later entry (a note): with the refused entry's retraction inserted before it, the
    log's own retraction withdraws the same note, now one seq later."""
    evs = events()
    note = {"type": "note", "v": 1, "text": "undone at the table"}
    old = [*evs[:AT], COOL, *evs[AT:200], note, {"type": "retracted", "v": 1, "seq": 202}, *evs[200:]]
    log = RaceLog(tmp_path / "h.db")
    try:
        refused: list[Refusal] = []
        rid = import_race(log, "".join(canonical(e).decode() + "\n" for e in old), refused=refused)
        assert [(r.line, r.seq, r.type) for r in refused] == [(175, 175, "cooldown")]
        stored = [e.event for e in log.stored(rid)]
        assert stored[202] == note and stored[203] == {"type": "retracted", "v": 1, "seq": 203}
        assert state_to_position(log.project(rid).state) == folded(evs)
    finally:
        log.close()


def test_entries_that_need_a_refused_one_are_refused_too_and_the_set_up_never(tmp_path: Path) -> None:
    """A refused reveal leaves the car's turn waiting: what the old log built on it is refused as well, each
    named; the race set-up itself cannot be withdrawn, so a refused set-up still imports nothing."""
    evs = events()
    reveal = next(i for i, e in enumerate(evs) if e["type"] == "cards_revealed" and i > AT)
    bad = {**evs[reveal], "cards": ["H", "H"]}  # Heat cannot be played (# 4.1)
    after = evs[reveal + 1 : reveal + 3]  # the cooldown and the draw of that turn
    log = RaceLog(tmp_path / "h.db")
    try:
        refused: list[Refusal] = []
        text = "".join(canonical(e).decode() + "\n" for e in [*evs[:reveal], bad, *after])
        rid = import_race(log, text, refused=refused)
        # each refused entry is followed by its retraction: seqs reveal+1, +3, +5
        assert [(r.seq, r.type) for r in refused] == [
            (reveal + 1, "cards_revealed"),
            (reveal + 3, "cooldown"),
            (reveal + 5, "cards_drawn"),
        ]
        assert log.project(rid).state.events == reveal  # the race stands where the last accepted entry left it
        with pytest.raises(HeatlogError, match="nothing imported"):
            import_race(log, canonical({**evs[0], "laps": 0}).decode() + "\n")
        with pytest.raises(HeatlogError, match="nothing imported") as strict:
            import_race(log, "".join(canonical(e).decode() + "\n" for e in [*evs[:AT], COOL]), strict=True)
        assert '{"' not in str(strict.value)
    finally:
        log.close()
