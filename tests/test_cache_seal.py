"""The caches' keyed seals without OpenSSL (issue 32, start-up): the HMAC-SHA256 of heatlog.formats.hashing is the
standard library's, so every seal written before still holds; and a seal read from the file is compared whatever
characters it holds (``hmac.compare_digest`` raised on a non-ASCII one: ``show`` and ``races`` stopped with an
internal error on such a file)."""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
from pathlib import Path

import pytest
from test_cli import run

from heatlog.formats.hashing import hmac_sha256, same_text
from heatlog.store.cachekey import cache_key, seal

SAMPLE = Path(__file__).parent.parent / "replays" / "usa-4cars.jsonl"


@pytest.mark.parametrize("size", [0, 1, 31, 32, 63, 64, 65, 200])
def test_hmac_sha256_is_the_standard_librarys(size: int) -> None:
    key = bytes((7 * i + size) % 256 for i in range(size))
    for parts in ([], [b""], [b"snapshot"], [b"a" * 1000, b"\x00\xff", "é".encode()]):
        assert hmac_sha256(key, parts) == hmac.new(key, b"".join(parts), hashlib.sha256).hexdigest()


def test_a_seal_is_the_one_written_before() -> None:
    """The seal of the snapshots and summaries already in databases (made with ``hmac.new``) is unchanged."""
    parts = ("snapshot", "3", "a" * 64, "rules", '{"round":3}')
    mac = hmac.new(cache_key(), digestmod=hashlib.sha256)
    for part in parts:
        mac.update(len(part.encode()).to_bytes(8, "big"))
        mac.update(part.encode())
    assert seal(*parts) == mac.hexdigest()


def test_same_text_compares_any_text() -> None:
    assert same_text("ab", "ab") and same_text("", "") and same_text("é\ud800", "é\ud800")
    assert not same_text("ab", "ac") and not same_text("ab", "abc") and not same_text("é", "e")


def edit_seals(db: Path, table: str, column: str, at: slice | None) -> int:
    """Put a non-ASCII character into the seal of every row of ``table`` (``at``: where the seal is in the text;
    None: the ``seal`` key of the JSON)."""
    conn = sqlite3.connect(db)
    rows = conn.execute(f"SELECT rowid, {column} FROM {table}").fetchall()
    for rowid, text in rows:
        if at is None:
            row = json.loads(text)
            row["seal"] = "é" + row["seal"][1:]
            text = json.dumps(row)
        else:
            text = text[: at.start] + "é" + text[at.start + 1 :]
        conn.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (text, rowid))
    conn.commit()
    conn.close()
    return len(rows)


def test_a_snapshot_whose_seal_is_not_ascii_is_a_miss(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert run("import", str(SAMPLE), db=db).returncode == 0
    first = run("show", db=db)
    assert first.returncode == 0, first.stderr
    assert edit_seals(db, "snapshots", "state", slice(81, 145)) > 0  # {"at":"<64>","seal":"<64>",...
    for args in (("show",), ("replay", "--round", "3"), ("show", "--round", "2")):
        r = run(*args, db=db)
        assert r.returncode == 0 and "internal error" not in r.stderr, r.stderr
    assert run("show", db=db).stdout == first.stdout


def test_a_race_summary_whose_seal_is_not_ascii_is_a_miss(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    assert run("import", str(SAMPLE), db=db).returncode == 0
    first = run("races", db=db)
    assert first.returncode == 0, first.stderr
    assert edit_seals(db, "race_summaries", "summary", None) > 0
    again = run("races", db=db)
    assert again.returncode == 0 and "internal error" not in again.stderr, again.stderr
    assert again.stdout == first.stdout
