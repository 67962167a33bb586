"""Caches beside the log (never race truth): sealed snapshots of states and the summaries `heatlog races` shows."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..formats.hashing import same_text
from .listing import Listing
from .records import SQLITE_MAX, Snapshot, canonical


def _snapshot_seal(race: int, at: str, rules_version: str, body: str) -> str:
    """A snapshot's seal: keyed (heatlog.store.cachekey), so that nobody who edits the file can make a forged state
    look sealed (an unkeyed SHA-256 of values in the file could be recomputed: issue 30)."""
    from .cachekey import seal

    return seal("snapshot", str(race), at, rules_version, body)


class Caches(Listing):
    """The Caches job of the event store (heatlog.store.caches)."""

    def put_snapshot(self, race: int, round: int, rules_version: str, seq: int, state: dict[str, Any]) -> None:
        """Cache one snapshot (replacing the race's snapshot of that round under that rules version)."""
        self.put_snapshots(race, rules_version, [(round, seq, state)])

    def put_snapshots(self, race: int, rules_version: str, snaps: list[tuple[int, int, dict[str, Any]]]) -> None:
        """Cache many (round, seq, state) snapshots in one transaction (one sync, not one per round)."""
        if not snaps:
            return
        with self._tx(write=True, race=race) as conn:
            self._race_row(conn, race)
            rows = []
            for rnd, seq, state in snaps:
                at = self._hash_at(conn, race, seq)
                if at is None:
                    continue
                body = canonical(state).decode()
                seal = _snapshot_seal(race, at, rules_version, body)
                text = '{"at":"' + at + '","seal":"' + seal + '","state":' + body + "}"
                rows.append((race, rnd, rules_version, seq, text))
            conn.executemany(
                "INSERT OR REPLACE INTO snapshots (race, round, rules_version, seq, state) VALUES (?, ?, ?, ?, ?)",
                rows,
            )

    def get_snapshot(
        self,
        race: int,
        rules_version: str,
        *,
        round: int | None = None,
        max_seq: int | None = None,
    ) -> Snapshot | None:
        """The snapshot of ``round`` (or the latest, with seq <= max_seq if given) for ``rules_version``."""
        if round is not None and not 0 <= round <= SQLITE_MAX:
            return None  # no round has that number
        sql = "SELECT race, round, rules_version, seq, state FROM snapshots WHERE race = ? AND rules_version = ?"
        params: list[Any] = [race, rules_version]
        if round is not None:
            sql += " AND round = ?"
            params.append(round)
        if max_seq is not None:
            sql += " AND seq <= ?"
            params.append(max_seq)
        sql += " ORDER BY seq DESC, round DESC LIMIT 1"
        with self._guard(race):
            rows = self._query(sql, params)
        if not rows:
            return None
        row = rows[0]
        state = self._unseal(race, row)
        if state is None:
            return None  # a damaged, edited or stale cache entry is a miss: the caller refolds (and rebuilds it)
        return Snapshot(row["race"], row["round"], row["rules_version"], row["seq"], state)

    def _unseal(self, race: int, row: dict[str, Any]) -> dict[str, Any] | None:
        """The state of a snapshot row if it holds: it names the hash of the event it was taken at, that event
        still has it, and its seal (sha256 over that hash, the rules version and the state) matches."""
        text = row["state"]
        if not isinstance(text, str) or not text.startswith('{"at":"'):
            return None
        at, seal = text[7:71], text[81:145]
        body = text[155:-1]
        if text[71:81] != '","seal":"' or text[145:155] != '","state":':
            return None
        expected = _snapshot_seal(race, at, row["rules_version"], body)
        if not same_text(seal, expected) or self.hash_at(race, int(row["seq"])) != at:
            return None
        try:
            state = json.loads(body)
        except (ValueError, RecursionError):
            return None
        return state if isinstance(state, dict) else None

    def clear_snapshots(self, race: int | None = None, *, from_seq: int | None = None) -> int:
        """Delete cached snapshots (of one race, or all; only those at seq >= from_seq if given)."""
        sql = "DELETE FROM snapshots WHERE 1 = 1"
        params: list[Any] = []
        if race is not None:
            sql += " AND race = ?"
            params.append(race)
        if from_seq is not None:
            sql += " AND seq >= ?"
            params.append(from_seq)
        with self._tx(write=True, race=race) as conn:
            return int(conn.execute(sql, params).rowcount)

    SUMMARY_TABLE = "race_summaries"

    _SUMMARY_DDL = (
        "CREATE TABLE IF NOT EXISTS race_summaries (race INTEGER PRIMARY KEY REFERENCES races(id), "
        "length INTEGER NOT NULL, rules_version TEXT NOT NULL, summary TEXT NOT NULL)"
    )

    def race_summaries(self, rules_version: str) -> dict[int, tuple[int, dict[str, Any]]]:
        """Every cached summary made under ``rules_version``: race -> (effective log length it was made at,
        summary). A file without the table (older, or read-only) has none."""
        with self._guard() as conn:
            try:
                rows = conn.execute(
                    "SELECT race, length, summary FROM race_summaries WHERE rules_version = ?", (rules_version,)
                ).fetchall()
            except sqlite3.OperationalError:
                return {}
        out: dict[int, tuple[int, dict[str, Any]]] = {}
        for race, length, text in rows:
            try:
                summary = json.loads(text)
            except (TypeError, ValueError):
                continue  # a damaged cache row is recomputed
            if isinstance(summary, dict):
                out[int(race)] = (int(length), summary)
        return out

    def put_race_summaries(self, rules_version: str, rows: list[tuple[int, int, dict[str, Any]]]) -> None:
        """Cache (race, effective log length, summary) rows in one transaction, replacing older ones."""
        if not rows:
            return
        with self._tx(write=True) as conn:
            conn.execute(self._SUMMARY_DDL)
            conn.executemany(
                "INSERT INTO race_summaries (race, length, rules_version, summary) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(race) DO UPDATE SET length = excluded.length, rules_version = excluded.rules_version, "
                "summary = excluded.summary",
                [(race, length, rules_version, canonical(summary).decode()) for race, length, summary in rows],
            )
