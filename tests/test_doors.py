"""Every door answers bad input with one `Error:` line and leaves the database as it was (issue 9).

Each test stands for a class of failure: deep nesting, bytes that are not UTF-8, line separators inside
text, lone surrogates, refused set-ups that used to leave an empty race, names no user means.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from edges import one_error_line, run, state_of
from hypothesis import example, given, settings
from hypothesis import strategies as st

from heatlog.engine.errors import MalformedInput
from heatlog.formats import jsonio
from heatlog.formats.usertext import embed_json, name_problem, visible
from heatlog.store import canonical, parse_jsonl, read_jsonl

SPRINT = Path(__file__).parent / "data" / "sprint.json"


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    path = tmp_path / "h.db"
    r = run("new", "--car", "Ann:red", "--car", "Bob:blue", "--seed", "1", db=path)
    assert r.returncode == 0, r
    return path


def refused(r: object, db: Path, before: tuple[bool, str, str]) -> None:
    assert one_error_line(r), r  # type: ignore[arg-type]
    assert state_of(db) == before, "the database changed"


# ---------------------------------------------------------------------------------------------- the JSON reader


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 100000, "nested deeper than 64"),
        ('{"a":' * 70 + "1" + "}" * 70, "nested deeper than 64"),
        ('"\\ud800"', "lone surrogate"),
        ('{"k\\udfff": 1}', "lone surrogate"),
        ("[NaN]", "NaN is not allowed"),
        ("[1e999]", "too large"),
        ("1" * 5000, "too many digits"),
        ("{not json", "not valid JSON: column 2"),
        ('{\n"a": x}', "not valid JSON: line 2, column 6"),
    ],
)
def test_the_one_reader_refuses_what_is_not_json_data(text: str, words: str) -> None:
    with pytest.raises(MalformedInput) as exc:
        jsonio.loads(text, "the event")
    assert words in exc.value.message and exc.value.message.startswith("the event: ")


def _full_decoder(text: str) -> object:
    """What :func:`jsonio.loads` answered before its C-scanner fast path: the decoder's ``decode`` always."""

    def no_scan(text: str, i: int) -> object:
        raise StopIteration

    saved = jsonio._SCAN
    jsonio._SCAN = no_scan
    try:
        return ("value", jsonio.loads(text, "x"))
    except MalformedInput as err:
        return ("refused", err.message)
    finally:
        jsonio._SCAN = saved


_JSONISH = st.text(alphabet=st.sampled_from(list('{}[]",:0123456789.eE+-tfnrulasNIy \\\n\tx\u2028é')), max_size=30)
_EVENTISH = st.from_regex(r'\s*\{"type": ?"[a-z_]{1,8}"(, ?"[a-z]": ?-?[0-9]{1,3})?\}\s*', fullmatch=True)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_JSONISH, _EVENTISH))
@example(" 1")
@example("1 ")
@example("1 2")
@example("")
@example('"\\ud800"')
@example("[NaN]")
def test_the_fast_path_reads_every_text_as_the_full_decoder(text: str) -> None:
    """An import reads each line with the decoder's C scanner alone (issue 9, speed); a text it does not read
    whole (spaces around it, several values, not JSON) goes to the full decoder: same value, or same refusal."""
    try:
        fast = ("value", jsonio.loads(text, "x"))
    except MalformedInput as err:
        fast = ("refused", err.message)
    assert fast == _full_decoder(text)


_LINE = st.one_of(
    _JSONISH,
    _EVENTISH,
    st.sampled_from(
        ["[" * 64 + "]" * 64, "[" * 65 + "]" * 65, '{"a":"\\ud800"}', '{"a":"\\u00e9"}', "\r", " ", "{}\r"]
    ),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE, max_size=6))
@example(["[" * 65 + "]" * 65])
@example(['{"a":"\\ud800"}', '{"a":1}'])
@example(['{"a":"é"}', '{"a":"\\ud800"}'])
def test_json_lines_read_each_line_as_the_one_reader(lines: list[str]) -> None:
    """``jsonio.json_line_values`` (an import's reader: the C scanner alone for a plain ASCII line) gives every
    non-blank line the value or the refusal :func:`jsonio.loads` gives it, line by line (issue 9, speed)."""
    text = "\n".join(lines)
    got = [
        (n, ("refused", v.message) if isinstance(v, MalformedInput) else ("value", v))
        for n, v in jsonio.json_line_values(text)
    ]
    expected = []
    for n, line in jsonio.json_lines(text):
        if line.strip():
            try:
                expected.append((n, ("value", jsonio.loads(line))))
            except MalformedInput as err:
                expected.append((n, ("refused", err.message)))
    assert got == expected


def _outcome(reader: object, text: str) -> tuple[object, ...]:
    """What a JSON Lines reader gives: its events and anchors with their exact types (``repr``: 1, 1.0 and true
    differ), or its refusal."""
    anchors: list[tuple[int, dict[str, object]]] = []
    try:
        got = reader(text, anchors)  # type: ignore[operator]
    except MalformedInput as err:
        return ("refused", err.message)
    events = got[0] if isinstance(got, tuple) else got
    return ("read", repr(events), repr(anchors))


_EVENT_LINE = st.fixed_dictionaries(
    {"type": st.sampled_from(["note", "card_flipped", "x"])},
    optional={
        "v": st.sampled_from([1, 1.0, True, 2]),
        "car": st.text(alphabet='Ab é\u2028\x1b"', max_size=4),
        "cards": st.lists(st.sampled_from(["1", "S", 3]), max_size=3),
        "at": st.recursive(st.integers(-3, 3), lambda c: st.lists(c, max_size=2), max_leaves=4),
    },
).map(lambda ev: json.dumps(ev, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
_ANCHOR_LINE = st.just('{"head":"00","heatlog_anchor":1,"race":1,"seq":2}')


def _variants(line: str) -> st.SearchStrategy[list[str]]:
    """A canonical line as it is, as another writer writes it, or cut in two (two lines that read joined as one
    value and alone as nothing: the case the joined reader must refuse to trust)."""
    cut = st.integers(1, max(1, len(line) - 1)).map(lambda i: [line[:i], line[i:]])
    as_is = [st.just([line]), st.just([line]), cut, st.just([line, ""])]
    try:
        value = json.loads(line)
    except ValueError:
        return st.one_of(as_is)
    spaced = st.just([json.dumps(value)])
    escaped = st.just([json.dumps(value, ensure_ascii=True, sort_keys=True, separators=(",", ":"))])
    return st.one_of(*as_is, spaced, escaped)


_JOINED_TEXT = st.lists(st.one_of(_EVENT_LINE, _EVENT_LINE, _ANCHOR_LINE, _LINE).flatmap(_variants), max_size=6).map(
    lambda parts: "\n".join(line for part in parts for line in part)
)


@settings(max_examples=500, deadline=None)
@given(_JOINED_TEXT, st.sampled_from(["", "\n"]))
@example('{"type":"a","x":[1', "")
@example('{"type":"a","x":[1\n2]}', "")
@example('{"type":"a"}\n{"type":"b","x":[1\n2]},{"type":"c"}', "\n")
@example('{"type":"a","x":' + "[" * 65 + "]" * 65 + "}", "")
@example('{"type":"a","x":"\\ud800"}', "\n")
@example('{"type":"a","x":"\\u00e9"}', "\n")
@example('{"type":"a"}\n' + '{"head":"00","heatlog_anchor":1,"race":1,"seq":2}', "\n")
@example('{"type":"a"}\n{"heatlog_anchor":1,"type":""}', "")
@example('{"type":"a"}\n[1]', "")
@example('{"type":"a","v":1}\n{"type":"a","v":1.0}\n{"type":"a","v":true}', "")
def test_the_joined_reader_reads_every_text_as_the_line_reader(text: str, end: str) -> None:
    """``store.read_jsonl`` (an import's reader: the lines joined as arrays for the C scanner, trusted only
    where each line is proven to read alone) gives exactly the events, anchors and refusals of the line by line
    ``parse_jsonl``, and the canonical text of every event when it read the text itself (issue 9, speed)."""
    text += end
    assert _outcome(read_jsonl, text) == _outcome(parse_jsonl, text)
    try:
        events, texts = read_jsonl(text)
    except MalformedInput:
        return
    if texts is not None:
        assert texts == [canonical(ev).decode() for _, ev in events]


def test_an_exported_race_is_read_by_the_joined_reader(tmp_path: Path) -> None:
    """The fast reader does read an export (its lines are canonical): else the test above proves nothing."""
    from heatlog.log.racelog import RaceLog
    from heatlog.races import import_race

    sample = Path(__file__).parent.parent / "replays" / "usa-garage-legends-weather.jsonl"
    with RaceLog(tmp_path / "h.db") as log:
        race = import_race(log, sample.read_text())
        text = log.store.export_jsonl(race, anchor=True)
    anchors: list[tuple[int, dict[str, object]]] = []
    events, texts = read_jsonl(text, anchors)
    assert texts is not None and len(texts) == len(events) == text.count("\n") - 1 and len(anchors) == 1
    assert _outcome(read_jsonl, text) == _outcome(parse_jsonl, text)
    assert read_jsonl(text.replace("\n", "\r\n"))[1] is None  # not plain: read line by line


def test_an_import_names_every_copy_of_a_bad_event(tmp_path: Path) -> None:
    """Each distinct event is checked once when the texts are known (issue 9, speed): every line holding a copy
    of a refused event is still named, with the same words, whether or not the fast reader read the file."""
    from heatlog.log.racelog import RaceLog
    from heatlog.races import import_race

    sample = (Path(__file__).parent.parent / "replays" / "usa-4cars.jsonl").read_text().split("\n")
    bad = '{"type":"note","v":1,"x":1}'
    text = "\n".join([*sample[:3], bad, sample[3], bad, bad, *sample[4:]])
    messages = []
    with RaceLog(tmp_path / "h.db") as log:
        for variant in (text, text.replace("\n", "\r\n")):  # the fast reader, then line by line
            assert (read_jsonl(variant)[1] is None) == ("\r" in variant)
            with pytest.raises(MalformedInput) as exc:
                import_race(log, variant, source="f")
            messages.append(exc.value.message)
        assert log.store.races() == []
    assert messages[0] == messages[1]
    assert [line.split(":")[0].strip() for line in messages[0].split("\n")[1:]] == ["line 4"] * 2 + ["line 6"] * 2 + [
        "line 7"
    ] * 2


def test_an_import_tells_its_progress_every_500_events_of_each_pass(tmp_path: Path) -> None:
    """The progress bar's calls: every 500 events checked, then every 500 folded (after them, the count goes
    on from the number of events), the same whichever reader read the file."""
    from heatlog.log.racelog import RaceLog
    from heatlog.races import import_race

    text = (Path(__file__).parent.parent / "replays" / "usa-garage-4cars.jsonl").read_text()
    n = text.count("\n")  # 854 events: told at 500, then at 854 + 500
    expected = [*range(500, n + 1, 500), *(n + i for i in range(500, n + 1, 500))]
    with RaceLog(tmp_path / "h.db") as log:
        for variant in (text, text.replace("\n", "\r\n")):
            told: list[int] = []
            import_race(log, variant, progress=told.append)
            assert told == expected == [500, n + 500]


def test_the_reader_accepts_the_deepest_allowed_nesting() -> None:
    assert jsonio.loads("[" * 64 + "]" * 64) is not None


def test_files_name_the_first_bad_byte_and_a_sqlite_file(tmp_path: Path) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_bytes(b'{"a": 1}\n{"b": "\xf8"}\n')
    with pytest.raises(MalformedInput, match=r"line 2, column 8: not UTF-8 text \(byte 0xf8 at offset 16"):
        jsonio.read_text_file(bad, "import file")
    sqlite = tmp_path / "h.db"
    sqlite.write_bytes(b"SQLite format 3\x00" + bytes(100))
    with pytest.raises(MalformedInput, match="this is a SQLite database"):
        jsonio.read_text_file(sqlite, "import file")


def test_json_lines_split_on_newline_only() -> None:
    text = '{"type":"note","text":"a\u2028b\u2029c\x85d\x1de"}\r\n\n{"type":"note","text":"z"}\n'.replace("\x1d", "")
    lines = parse_jsonl(text)
    assert [n for n, _ in lines] == [1, 3]
    assert lines[0][1]["text"] == "a\u2028b\u2029c\x85de"


# ---------------------------------------------------------------------------------------------- the CLI doors


def test_add_deep_nesting_and_bad_json_refused(db: Path) -> None:
    before = state_of(db)
    refused(run("add", "[" * 100000, db=db), db, before)
    refused(run("add", "-", db=db, input="[" * 100000), db, before)
    refused(run("add", "-", db=db, input=b'{"type": "note", "text": "\xff"}'), db, before)
    refused(run("add", b'{"type": "note", "v": 1, "text": "\x80"}', db=db), db, before)  # argv not UTF-8
    refused(run("add", '{"type": "note", "v": 1, "text": "\\ud800"}', db=db), db, before)


@pytest.mark.parametrize(
    ("event", "words"),
    [
        # JSON Schema's integer takes 1.0: the rules then said "gear must be 1, 2, 3 or 4" of a gear 1 (# 3.1)
        ({"type": "gear_chosen", "v": 1, "car": "Ann", "gear": 1.0}, "gear: 1.0 is not an integer: write 1"),
        ({"type": "gear_chosen", "v": 1.0, "car": "Ann", "gear": 1}, "v: 1.0 is not an integer: write 1"),  # was stored
        ({"type": "note", "v": 1, "text": "x", "round": 1e0}, "round: 1.0 is not an integer: write 1"),  # was stored
        ({"type": "retracted", "v": 1, "seq": 6.0}, "seq: 6.0 is not an integer: write 6"),
        ({"type": "slipstream", "v": 1, "car": "Ann", "taken": True, "spaces": 2.0}, "spaces: 2.0 is not an integer"),
    ],
)
def test_add_names_a_number_written_with_a_decimal_point(db: Path, event: dict[str, object], words: str) -> None:
    before = state_of(db)
    r = run("add", json.dumps(event), db=db)
    refused(r, db, before)
    assert "race 1: " in r.stderr and words in r.stderr, r.stderr


def test_an_old_log_with_a_number_written_with_a_decimal_point_still_imports(db: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.jsonl"  # written before heatlog add checked its numbers
    note = {"type": "note", "v": 1, "text": "x", "round": 1.0}
    old.write_text(run("export", db=db).stdout + json.dumps(note) + "\n", encoding="utf-8")
    assert run("import", str(old), db=tmp_path / "other.db").returncode == 0


def test_no_event_field_is_a_number_that_may_have_a_fraction() -> None:
    # what racelog.check_integers relies on: a float anywhere in an event is an integer written as a decimal
    def types(node: object) -> Iterator[object]:
        if isinstance(node, dict):
            yield node.get("type")
            for sub in node.values():
                yield from types(sub)
        elif isinstance(node, list):
            for sub in node:
                yield from types(sub)

    schemas = Path(__file__).resolve().parents[1] / "schema" / "events"
    for path in schemas.glob("*.schema.json"):
        found = list(types(json.loads(path.read_text())))
        assert not any(t == "number" or (isinstance(t, list) and "number" in t) for t in found), path.name


def test_import_refuses_deep_binary_and_sqlite_files(db: Path, tmp_path: Path) -> None:
    before = state_of(db)
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100000)
    refused(run("import", str(deep), db=db), db, before)
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(bytes(range(256)))
    refused(run("import", str(binary), db=db), db, before)
    refused(run("import", str(db), db=db), db, before)  # the database itself


def test_line_separators_in_a_note_export_and_import_again(db: Path, tmp_path: Path) -> None:
    text = "one\u2028two\u2029three\x85four"
    assert run("note", text, "--car", "Ann", db=db).returncode == 0
    exported = run("export", "--anchor", db=db).stdout
    path = tmp_path / "race.jsonl"
    path.write_text(exported, encoding="utf-8")
    r = run("import", str(path), "--again", db=db)  # into the database it came from: asked for
    assert r.returncode == 0, r
    again = run("export", "--no-anchor", "--race", r.stdout.strip().splitlines()[-1], db=db).stdout
    assert again == run("export", "--no-anchor", db=db).stdout.replace("race 1", "race 1")
    assert again == exported.rsplit("\n", 2)[0] + "\n"  # the same events; the anchor line was last
    assert json.loads(again.split("\n")[-2])["text"] == text


def test_a_refused_new_leaves_no_race_and_no_file(tmp_path: Path) -> None:
    db = tmp_path / "fresh.db"
    track = json.loads(SPRINT.read_text())
    track["name"] = "\\ud800"  # a lone surrogate, escaped in the file
    bad_track = tmp_path / "bad-track.json"
    bad_track.write_text(json.dumps(track).replace("\\\\ud800", "\\ud800"))
    r = run("new", "--track", str(bad_track), "--car", "Ann:red", "--car", "Bob:blue", db=db)
    assert one_error_line(r), r
    assert "lone surrogate" in r.stderr and "name" in r.stderr
    assert not db.exists() and not Path(f"{db}-wal").exists()
    # and in an existing database: no empty race that would become the default race
    run("new", "--car", "Ann:red", "--car", "Bob:blue", db=db)
    before = state_of(db)
    refused(run("new", "--track", str(bad_track), "--car", "Ann:red", "--car", "Bob:blue", db=db), db, before)
    refused(run("new", "--car", "Ann:red", "--car", b"B\xffb:blue", db=db), db, before)
    refused(run("new", "--car", "Ann:red", "--car", "Bob:blue", "--name", "x\x1b[2J", db=db), db, before)


@pytest.mark.parametrize(
    ("cars", "words"),
    [
        (["Ann:red", "ann:blue"], "only in case"),
        (["Ann:red", "Bob:RED"], "is the colour of 'Ann'"),  # the car, as the user named it (it said cars[0])
        (["Ann:red", "Bo b:blue"], "does not match"),
        (["Ann:red", "Bob\u200b:blue"], "does not match"),
        (["Ann:red", "undo:blue"], "a word the recorder reads"),
        (["Ann:red", "Bob:bl\x1bue"], "U+001B"),
    ],
)
def test_names_no_user_means_are_refused(db: Path, cars: list[str], words: str) -> None:
    before = state_of(db)
    args = [a for c in cars for a in ("--car", c)]
    r = run("new", *args, db=db)
    refused(r, db, before)
    assert words in r.stderr or "not a valid car name" in r.stderr, r


def test_name_rule_says_what_is_allowed() -> None:
    assert name_problem("Grün-2", car=True) is None
    assert name_problem("O'Neil", car=True) is None
    assert "one word" in (name_problem("Ann B", car=True) or "")
    assert name_problem("Ann B") is None  # a race name may hold spaces
    assert "U+202E" in (name_problem("abc\u202e") or "")
    assert "empty" in (name_problem("") or "")
    assert "whitespace" in (name_problem(" x") or "")


# ---------------------------------------------------------------------------------------------- user text is data


NASTY = ["[/x]", "[red]x[/red]", "[bold]", ":smile:", "\x1b]0;title\x07", "\x1b[2J", "a\u2028b", "</script>", "<!--"]


def test_markup_and_escapes_in_names_and_notes_are_shown_literally(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    r = run("new", "--car", "[/x]:red", "--car", "[red]B[/red]:blue", "--name", "[/x] [bold]race", db=db)
    assert r.returncode == 0, r
    for text in NASTY:
        assert run("note", text, db=db).returncode == 0
    for cmd in (["races"], ["show"], ["replay"], ["replay", "--round", "1"], ["audit"]):
        r = run(*cmd, db=db)
        assert r.returncode == 0, (cmd, r)
        assert "\x1b" not in r.stdout and "\x07" not in r.stdout and "\u2028" not in r.stdout, cmd
        assert "Traceback" not in r.stderr
    shown = run("show", db=db).stdout + run("replay", db=db).stdout
    assert "[/x]" in shown and "[red]B[/red]" in shown
    assert "\\x1b]0;title\\x07" in shown and "\\x1b[2J" in shown and "a\\u2028b" in shown
    assert "[/x] [bold]race" in run("races", db=db).stdout


def test_visible_and_embed() -> None:
    assert visible("a\x1b[2Jb\x07\u2028\u202e\x85") == "a\\x1b[2Jb\\x07\\u2028\\u202e\\x85"
    assert visible("Grün ok [x]") == "Grün ok [x]"
    embedded = embed_json({"t": "</script><!--<script>&\u2028\u2029"})
    assert "<" not in embedded and ">" not in embedded and "&" not in embedded
    assert "\u2028" not in embedded and "\u2029" not in embedded
    assert json.loads(embedded) == {"t": "</script><!--<script>&\u2028\u2029"}
