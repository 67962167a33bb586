"""One live recorder per race (the lease) and the recorder's cursor, in a side table of the database."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..engine.errors import ConflictError, StoreError
from ..racelog import RaceLog


def _proc_start(pid: int) -> str:
    """The start time of process ``pid`` (Linux /proc; "" elsewhere): tells a reused pid from the holder."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else ""


def _alive(pid: int, host: str, start: str) -> bool:
    if host != socket.gethostname():
        return True  # cannot look: a lease held elsewhere stands until released or forced
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        state = stat.rsplit(")", 1)[-1].split()[0]
        if state in ("Z", "X"):
            return False  # killed, not yet reaped
    except (OSError, IndexError):
        pass
    return not start or _proc_start(pid) == start


class Lease:
    """One live recorder per race, plus the recorder's cursor (optional steps closed by Enter).

    Stored in the race's database (table ``recorder_sessions``), so every recorder on any machine sharing the
    file sees it. It is UI state, not race truth: the events are the truth."""

    TABLE = "recorder_sessions"

    def __init__(self, log: RaceLog, race: int) -> None:
        self.conn: sqlite3.Connection = log.store.conn
        self.race = race
        self.pid = os.getpid()
        self.host = socket.gethostname()
        self.start = _proc_start(self.pid)
        self.held = False
        self._sql(
            f"CREATE TABLE IF NOT EXISTS {self.TABLE} (race INTEGER PRIMARY KEY REFERENCES races(id), "
            "pid INTEGER, host TEXT, start TEXT, since TEXT, cursor TEXT)"
        )

    def _sql(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"the recorder cannot use its table in the database: {exc}", race=self.race) from None

    @contextlib.contextmanager
    def _tx(self) -> Iterator[None]:
        self._sql("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")
            raise
        self._sql("COMMIT")

    def _row(self) -> tuple[Any, ...] | None:
        rows = self._sql(f"SELECT pid, host, start, since, cursor FROM {self.TABLE} WHERE race = ?", (self.race,))
        return tuple(rows[0]) if rows else None

    def acquire(self, force: bool = False) -> str | None:
        """Take the race; raise ConflictError if another live recorder holds it. Returns a notice when a
        stale lease was taken over."""
        notice = None
        with self._tx():
            row = self._row()
            if row is not None and row[0] is not None:
                pid, host, start, since = row[0], row[1], row[2] or "", row[3]
                mine = pid == self.pid and host == self.host
                if not mine and _alive(int(pid), str(host), str(start)) and not force:
                    elsewhere = "" if host == self.host else f" on {host}"
                    raise ConflictError(
                        f"race {self.race} is being recorded by another heatlog record (pid {pid}{elsewhere}, "
                        f"since {str(since)[:19]}): one recorder per race. Close that one first"
                        + (", or run heatlog record --force if it is gone" if host != self.host else ""),
                    )
                if not mine:
                    notice = (
                        f"took over from a recorder that stopped without closing (pid {pid}, since {str(since)[:19]})"
                    )
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
            self._sql(
                f"INSERT INTO {self.TABLE} (race, pid, host, start, since) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(race) DO UPDATE SET pid = excluded.pid, host = excluded.host, start = excluded.start, "
                "since = excluded.since",
                (self.race, self.pid, self.host, self.start, stamp),
            )
        self.held = True
        return notice

    def check(self) -> None:
        """Still ours? (another recorder may have forced a take-over)"""
        row = self._row()
        if row is None or row[0] != self.pid or row[1] != self.host:
            self.held = False
            who = f"pid {row[0]} on {row[1]}" if row is not None and row[0] is not None else "nobody"
            raise ConflictError(f"another recorder took race {self.race} over ({who}); this one stops", race=self.race)

    def release(self) -> None:
        if not self.held:
            return
        with contextlib.suppress(StoreError):
            self._sql(
                f"UPDATE {self.TABLE} SET pid = NULL, host = NULL, start = NULL "
                "WHERE race = ? AND pid = ? AND host = ?",
                (self.race, self.pid, self.host),
            )
        self.held = False

    def load_cursor(self) -> dict[str, Any] | None:
        row = self._row()
        if row is None or not row[4]:
            return None
        try:
            cur = json.loads(row[4])
        except ValueError:
            return None
        return cur if isinstance(cur, dict) else None

    def save_cursor(self, cursor: dict[str, Any] | None) -> None:
        self._sql(
            f"UPDATE {self.TABLE} SET cursor = ? WHERE race = ?",
            (json.dumps(cursor) if cursor is not None else None, self.race),
        )
