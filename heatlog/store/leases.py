"""Recorder sessions (UI state of heatlog record, never race truth): who records a race, and its cursor."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .audit import Audit
from .records import RecorderSession


class Leases(Audit):
    """The Leases job of the event store (heatlog.store.leases)."""

    RECORDER_TABLE = "recorder_sessions"

    _RECORDER_DDL = (
        "CREATE TABLE IF NOT EXISTS recorder_sessions (race INTEGER PRIMARY KEY REFERENCES races(id), "
        "pid INTEGER, host TEXT, start TEXT, since TEXT, cursor TEXT)"
    )

    def _recorder_ready(self, race: int) -> None:
        """The side table exists (made on first use: older files, and read-only ones that never record)."""
        if self._recorder_table:
            return
        with self._guard(race) as conn:
            conn.execute(self._RECORDER_DDL)
        self._recorder_table = True

    def recorder_session(self, race: int) -> RecorderSession | None:
        """The recorder row of ``race``: the lease holder (None when free) and the saved cursor."""
        self._recorder_ready(race)
        with self._guard(race) as conn:
            row = conn.execute(
                "SELECT pid, host, start, since, cursor FROM recorder_sessions WHERE race = ?", (race,)
            ).fetchone()
        if row is None:
            return None
        return RecorderSession(row[0], row[1], row[2] or "", row[3] or "", row[4])

    def take_recorder(
        self,
        race: int,
        holder: tuple[int, str, str, str],
        allow: Callable[[RecorderSession | None], None],
    ) -> None:
        """Make ``holder`` (pid, host, process start, since) the race's recorder in one transaction. ``allow``
        sees the current row first and raises to refuse (the recorder's policy: who may take over)."""
        self._recorder_ready(race)
        pid, host, start, since = holder
        with self._tx(write=True, race=race) as conn:
            row = conn.execute(
                "SELECT pid, host, start, since, cursor FROM recorder_sessions WHERE race = ?", (race,)
            ).fetchone()
            allow(RecorderSession(row[0], row[1], row[2] or "", row[3] or "", row[4]) if row else None)
            conn.execute(
                "INSERT INTO recorder_sessions (race, pid, host, start, since) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(race) DO UPDATE SET pid = excluded.pid, host = excluded.host, start = excluded.start, "
                "since = excluded.since",
                (race, pid, host, start, since),
            )

    def release_recorder(self, race: int, pid: int, host: str) -> None:
        """Free the race if ``pid`` on ``host`` still holds it (the cursor stays)."""
        self._recorder_ready(race)
        with self._guard(race) as conn:
            conn.execute(
                "UPDATE recorder_sessions SET pid = NULL, host = NULL, start = NULL WHERE race = ? AND pid = ? "
                "AND host = ?",
                (race, pid, host),
            )

    def save_recorder_cursor(self, race: int, cursor: dict[str, Any] | None) -> None:
        self._recorder_ready(race)
        with self._guard(race) as conn:
            conn.execute(
                "UPDATE recorder_sessions SET cursor = ? WHERE race = ?",
                (json.dumps(cursor, allow_nan=False) if cursor is not None else None, race),
            )
