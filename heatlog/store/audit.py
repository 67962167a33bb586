"""Verification: the hash chain recomputed row by row, SQLite's own checks, the append-only guards, anchors and the
export of a log with its anchor.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from typing import Any

from heatlog.engine.errors import StoreError
from heatlog.store import eventrows as rows_

from .appends import Appends
from .records import ANCHOR_VERSION, GENESIS, Problem, canonical, canonical_text, chain_hash
from .rows import NO_LIMIT, SELECT_PAYLOADS, scan_json
from .schema import GUARDS


def escaped(text: str) -> bool:
    """True if ``text`` holds surrogate escapes, i.e. its stored bytes were not UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class Audit(Appends):
    """The Audit job of the event store (heatlog.store.audit)."""

    def lenient_log(self, race: int) -> list[tuple[int, dict[str, Any] | None]]:
        """(seq, event or None) of the effective log: None where the row does not hold a JSON object (for
        audits, which report such rows and go on)."""
        out: list[tuple[int, dict[str, Any] | None]] = []
        with self._raw_text(), self._tx(write=False, race=race) as conn:
            for seg_race, low, high in self._segments(conn, race):
                for seq, payload in self._payload_rows(conn, SELECT_PAYLOADS, (seg_race, low, high)):
                    event: Any = None
                    if isinstance(payload, str) and not escaped(payload):
                        with contextlib.suppress(ValueError, RecursionError):
                            event = json.loads(payload)
                    out.append((int(seq), event if isinstance(event, dict) else None))
        return out

    def integrity_check(self) -> list[str]:
        """What SQLite's ``PRAGMA integrity_check`` finds wrong with the file (empty: ok). Unlike
        ``quick_check`` it also checks that every index holds exactly its table's rows (a flipped byte in an
        index entry makes a lookup miss a row that a scan finds) and UNIQUE constraints."""
        return self._pragma_check("integrity_check")

    def quick_check(self) -> list[str]:
        """What SQLite's own ``PRAGMA quick_check`` finds wrong with the file's pages and indexes (empty: ok)."""
        return self._pragma_check("quick_check")

    def _pragma_check(self, pragma: str) -> list[str]:
        with self._guard() as conn:
            try:
                rows = [str(r[0]) for r in conn.execute(f"PRAGMA {pragma}")]
            except sqlite3.DatabaseError as exc:
                return [f"{pragma} cannot run: {exc}"]
        return [] if rows == ["ok"] else rows

    def missing_guards(self) -> list[str]:
        """Names of the append-only triggers the file lacks or holds changed (dropped or edited by hand)."""
        with self._guard() as conn:
            have = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall())
        expected = dict(GUARDS)
        expected.update(
            {
                "events_no_update": "",
                "events_no_delete": "",
                "races_no_reparent": "",
                "races_no_delete": "",
            }
        )
        return [n for n, sql in expected.items() if n not in have or (sql and have[n] != sql)]

    def verify(self, race: int) -> list[Problem]:
        """Recompute the hash chain over the stored rows of ``race``'s effective log; return every problem
        (rows that do not decode, blobs and unreadable rows are problems too, never a stop)."""
        return self.verify_read(race)[0]

    def verify_read(self, race: int) -> tuple[list[Problem], list[tuple[int, dict[str, Any] | None]]]:
        """:meth:`verify` and :meth:`lenient_log` in one pass (each row read and decoded once): every problem,
        and (seq, event or None) of the effective log."""
        return self._verify(race)

    def _segment_rows(self, conn: sqlite3.Connection, args: tuple[int, int, int], prev: str | None) -> list[Any]:
        """The rows of one segment for :meth:`_verify`: decoded by SQLite's own UTF-8 reader (no Python call per
        column: an audit reads every row of every race), or, when a column is not UTF-8, read again with
        surrogate escapes (:meth:`_raw_text`) so the damaged row is reported and the audit goes on."""
        try:
            return self._event_rows(conn, args, prev)
        except sqlite3.OperationalError as exc:
            if "decode" not in str(exc):
                raise
        with self._raw_text():
            return self._event_rows(conn, args, prev)

    def _verify(self, race: int) -> tuple[list[Problem], list[tuple[int, dict[str, Any] | None]]]:
        problems: list[Problem] = []
        read: list[tuple[int, dict[str, Any] | None]] = []
        compact = self.format_version >= rows_.COMPACT
        computed: str | None = None  # format 2: the hash of the row before by its content
        with self._tx(write=False, race=race) as conn:
            segments = self._segments(conn, race)
            expected_seq = 1
            expected_prev = GENESIS
            after_gap = False  # the row after a gap cannot chain; the gap is the problem
            for seg_race, low, high in segments:
                if seg_race == race:
                    for (seq,) in conn.execute(
                        "SELECT seq FROM events WHERE race = ? AND seq <= ? ORDER BY seq", (race, low)
                    ):
                        problems.append(
                            Problem(race, seq, "stray", f"row {seq} lies inside the shared prefix (1..{low})")
                        )
                rows = self._segment_rows(conn, (seg_race, low, high), expected_prev)
                for seg_row in rows:
                    _, seq, type_, v, payload, _, prev_hash, hash_ = seg_row
                    if isinstance(payload, bytes):
                        problems.append(Problem(seg_race, seq, "blob", "payload is a blob, not text"))
                        payload = payload.decode("utf-8", "surrogateescape")
                    elif not isinstance(payload, str):
                        problems.append(Problem(seg_race, seq, "json", f"payload is a {type(payload).__name__}"))
                        payload = str(payload)
                    try:  # the bytes of the row, once (the hash and the canonical form are over them)
                        raw = payload.encode()
                        escaped = False
                    except UnicodeEncodeError:
                        raw = payload.encode("utf-8", "surrogateescape")
                        escaped = True
                        problems.append(Problem(seg_race, seq, "text", "payload is not UTF-8 text"))
                    unchained = compact and prev_hash is None  # format 2: the hash before is not a hash
                    if not isinstance(prev_hash, str) and not unchained or not isinstance(hash_, str):
                        problems.append(Problem(seg_race, seq, "columns", "prev_hash or hash is not text"))
                    prev_hash, hash_ = str(prev_hash), str(hash_)
                    if not prev_hash.isascii() or not hash_.isascii():  # bytes that are not text: not a hash
                        why = "prev_hash or hash holds bytes that are not text"
                        problems.append(Problem(seg_race, seq, "columns", why))
                        prev_hash = prev_hash.encode("ascii", "backslashreplace").decode()
                        hash_ = hash_.encode("ascii", "backslashreplace").decode()
                    if seq != expected_seq:
                        missing = f"events {expected_seq}..{seq - 1}"
                        if seq == expected_seq + 1:
                            missing = f"event {expected_seq}"
                        problems.append(Problem(seg_race, expected_seq, "gap", f"{missing} missing"))
                        after_gap = True
                    text = payload
                    if prev_hash != expected_prev and not after_gap:
                        problems.append(
                            Problem(
                                seg_race,
                                seq,
                                "chain",
                                "prev_hash does not continue the chain from the event before "
                                "(rows reordered, replaced or removed)",
                            )
                        )
                    mine = chain_hash(str(prev_hash), raw)
                    if unchained or compact and after_gap:
                        pass  # format 2 keeps no prev_hash: the row after a gap has no hash to chain from
                    elif mine != hash_:
                        if compact and computed not in (None, prev_hash) and chain_hash(computed, raw) == hash_:
                            # format 2: it chains from what the row before holds, not from the hash stored with it
                            why = "it does not continue the chain from the event before (its stored hash was changed)"
                            problems.append(Problem(seg_race, seq, "chain", why))
                        else:
                            problems.append(Problem(seg_race, seq, "hash", "payload changed: its hash does not match"))
                    computed = mine
                    event: Any = None
                    if not escaped:
                        try:  # json.loads without its per-call overhead; anything unusual takes the slow path
                            event, end = scan_json(text, 0)
                            if end != len(text):
                                event = json.loads(text)
                        except StopIteration:
                            with contextlib.suppress(ValueError, RecursionError):
                                event = json.loads(text)
                        except (ValueError, RecursionError):
                            event = None
                    if not isinstance(event, dict):
                        problems.append(Problem(seg_race, seq, "json", "payload is not a valid JSON object"))
                        read.append((int(seq), None))
                    else:
                        read.append((int(seq), event))
                        try:  # text, not bytes: the same verdict (raw is text.encode()) without an encode
                            is_canonical = canonical_text(event) == text
                        except ValueError:
                            is_canonical = False
                        if not is_canonical:
                            problems.append(Problem(seg_race, seq, "canonical", "payload is not canonical JSON"))
                        ev_v = event.get("v")
                        ev_v = ev_v if isinstance(ev_v, int) and not isinstance(ev_v, bool) else None
                        if event.get("type") != type_ or ev_v != v:
                            problems.append(
                                Problem(
                                    seg_race,
                                    seq,
                                    "columns",
                                    f"columns say type={type_!r} v={v!r} but the payload says "
                                    f"type={event.get('type')!r} v={event.get('v')!r}",
                                )
                            )
                    after_gap = False
                    expected_seq = seq + 1
                    expected_prev = str(hash_)
                if seg_race != race and high != NO_LIMIT and expected_seq <= high:
                    problems.append(
                        Problem(
                            seg_race,
                            expected_seq,
                            "gap",
                            f"events {expected_seq}..{high} of the prefix missing",
                        )
                    )
                    expected_seq = high + 1
                    after_gap = True
        return problems, read

    def anchor(self, race: int) -> dict[str, Any]:
        """The anchor of a race: ``{"heatlog_anchor": 1, "race": id, "seq": last seq, "head": hash}``."""
        seq, digest = self.head(race)
        return {"heatlog_anchor": ANCHOR_VERSION, "race": race, "seq": seq, "head": digest}

    def check_anchor(self, anchor: dict[str, Any]) -> list[Problem]:
        """What the file says against an anchor kept elsewhere: the race is there, its log reaches the
        anchor's seq (else it was cut short) and its event there has the anchor's hash (else the log was
        rewritten, even if consistently re-hashed). Appends after the anchor are fine."""
        race, seq, head = anchor.get("race"), anchor.get("seq"), anchor.get("head")
        if not isinstance(race, int) or not isinstance(seq, int) or not isinstance(head, str):
            return [Problem(0, 0, "anchor", f"not an anchor: {anchor!r}"[:200])]
        try:
            length = self.length(race)
        except StoreError:
            return [Problem(race, 0, "anchor", f"race {race} of the anchor is not in the file (removed?)")]
        if length < seq:
            why = f"log cut short: the anchor has {seq} events, the file {length}"
            return [Problem(race, length + 1, "anchor", why)]
        found = self.hash_at(race, seq)
        if found != head:
            return [
                Problem(
                    race,
                    seq,
                    "anchor",
                    f"log rewritten: event {seq} has hash {str(found)[:12]}…, the anchor {head[:12]}…",
                )
            ]
        return []

    def export_jsonl(self, race: int, *, anchor: bool = False) -> str:
        """The effective log as JSON Lines: one canonical event per line, each line ending with a newline; with
        ``anchor``, a last line holding the race's anchor (:meth:`anchor`), which import checks."""
        with self._tx(write=False, race=race) as conn:
            parts: list[str] = []
            for _, rows in self._checked(conn, race, 0, None):
                parts.extend(row[1] + "\n" for row in rows)  # checked: UTF-8 text, as stored
            if anchor:
                seq, digest = self._tail(conn, race)
                line = {"heatlog_anchor": ANCHOR_VERSION, "race": race, "seq": seq, "head": digest}
                parts.append(canonical(line).decode() + "\n")
        return "".join(parts)
