"""The races of the file: their labels, the tree, finding a race by the hash of an event."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from heatlog.engine.errors import UnknownRace
from heatlog.store import eventrows as rows_

from .connection import replaced_text
from .reads import Reads
from .records import GENESIS, SQLITE_MAX, RaceInfo, chain_hash


class Listing(Reads):
    """The Listing job of the event store (heatlog.store.listing)."""

    _RACES_SQL = (
        "SELECT r.id, r.name, r.created, r.parent, r.fork_seq, r.meta, "
        "(SELECT max(e.seq) FROM events e WHERE e.race = r.id) AS last_seq FROM races r"
    )

    def _race_info(self, row: dict[str, Any]) -> RaceInfo:
        try:
            meta = json.loads(row["meta"])
        except (TypeError, ValueError):
            meta = {}
        last = row["last_seq"]
        count = int(last) if last is not None else int(row["fork_seq"] or 0)
        return RaceInfo(
            id=int(row["id"]),
            name=row["name"],
            created=row["created"],
            parent=row["parent"],
            fork_seq=row["fork_seq"],
            meta=meta if isinstance(meta, dict) else {},
            event_count=count,
        )

    def holding(self, events: Sequence[dict[str, Any]], texts: Sequence[str] | None = None) -> int | None:
        """The oldest race (or branch) whose log begins with exactly ``events``, the same canonical texts in the
        same order, else None. The chain says it (module docstring): the hash of the last of them, at its seq,
        is the same only after the same events. ``texts``: their canonical texts when the caller has them."""
        if not events:
            return None
        last = GENESIS
        if texts is None:
            for event in events:
                last = chain_hash(last, self._encode_text(event)[3])
        else:
            for text in texts:
                last = chain_hash(last, text.encode())
        return self.race_with_hash(len(events), last)

    def race_with_hash(self, seq: int, digest: str) -> int | None:
        """The oldest race (or branch) that stores an event ``seq`` whose hash is ``digest`` (hex), else None."""
        stored: Any = digest
        if self.format_version >= rows_.COMPACT:
            try:
                stored = rows_.hash_column(digest)
            except ValueError:
                return None  # not a hash: no event has it
        with self._guard():
            row = self.conn.execute(
                "SELECT race FROM events WHERE seq = ? AND hash = ? ORDER BY race LIMIT 1", (seq, stored)
            ).fetchone()
        return None if row is None else int(row[0])

    def _race_rows(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        """Rows of ``races``: a label (name, meta, time) whose bytes are not UTF-8 text is read with U+FFFD in
        place of each bad byte instead of failing every read of every race (:meth:`label_problems` names it)."""
        try:
            return self._query(sql, params)
        except sqlite3.OperationalError as exc:
            if "decode" not in str(exc):
                raise
        conn = self.conn
        old = conn.text_factory
        conn.text_factory = replaced_text
        try:
            return self._query(sql, params)
        finally:
            conn.text_factory = old

    def label_problems(self) -> dict[int, list[str]]:
        """race -> what is wrong with its labels (name, created, meta): bytes that are not UTF-8 text, a meta
        that is not a JSON object. Labels are outside the chain (informational), but a damaged one is damage."""
        out: dict[int, list[str]] = {}
        with self._guard() as conn:
            rows = conn.execute(
                "SELECT id, CAST(name AS BLOB), CAST(created AS BLOB), CAST(meta AS BLOB) FROM races ORDER BY id"
            ).fetchall()
        for race, *cells in rows:
            for column, data in zip(("name", "created", "meta"), cells, strict=True):
                if data is None:
                    continue
                try:
                    text = bytes(data).decode("utf-8")
                except UnicodeDecodeError as exc:
                    out.setdefault(int(race), []).append(
                        f"the race's {column} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
                    )
                    continue
                if column == "meta":
                    try:
                        ok = isinstance(json.loads(text), dict)
                    except (ValueError, RecursionError):
                        ok = False
                    if not ok:
                        out.setdefault(int(race), []).append("the race's meta is not a JSON object")
        return out

    def races(self) -> list[RaceInfo]:
        """Every race (and branch), oldest first."""
        with self._guard():
            return [self._race_info(row) for row in self._race_rows(self._RACES_SQL + " ORDER BY r.id")]

    def race(self, race: int) -> RaceInfo:
        """The race of that id; :class:`UnknownRace` (naming the database and the ids it holds) if none."""
        rows = []
        with self._guard():
            if -SQLITE_MAX <= race <= SQLITE_MAX:
                rows = self._race_rows(self._RACES_SQL + " WHERE r.id = ?", [race])
            if not rows:
                held, first, last = self.conn.execute("SELECT count(*), min(id), max(id) FROM races").fetchone()
                raise UnknownRace(race, str(self.path), held, first, last)
        return self._race_info(rows[0])

    def latest_race(self, *, simulated: bool = True) -> int | None:
        """The most recently created race (or branch), or None if there is none. ``simulated=False``: the most
        recent one that is not a simulation (``meta.simulated``, as :mod:`heatlog.log.racelist` reads it; a branch
        of a simulated race is simulated too), None if every race is."""
        with self._guard() as conn:
            if simulated:
                row = conn.execute("SELECT max(id) FROM races").fetchone()
                return None if row is None or row[0] is None else int(row[0])
            for race, meta_text in conn.execute("SELECT id, meta FROM races ORDER BY id DESC"):
                try:
                    meta = json.loads(meta_text)
                except (TypeError, ValueError):
                    meta = {}
                if not (isinstance(meta, dict) and "simulated" in meta):
                    return int(race)
        return None
