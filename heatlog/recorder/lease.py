"""One live recorder per race (the lease) and the recorder's cursor: the policy (the rows are the store's)."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from pathlib import Path
from typing import Any

from ..engine.errors import ConflictError, StoreError
from ..log.racelog import RaceLog
from ..store import RecorderSession


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

    The policy lives here (who may take a race over, when a holder counts as gone); the rows live in the
    store (``EventStore.recorder_session`` and friends, table ``recorder_sessions``), so every recorder on any
    machine sharing the file sees them. It is UI state, not race truth: the events are the truth."""

    def __init__(self, log: RaceLog, race: int) -> None:
        self.store = log.store
        self.race = race
        self.pid = os.getpid()
        self.host = socket.gethostname()
        self.start = _proc_start(self.pid)
        self.held = False

    def acquire(self, force: bool = False) -> str | None:
        """Take the race; raise ConflictError if another live recorder holds it. Returns a notice when a
        stale lease was taken over."""
        notices: list[str] = []

        def allow(row: RecorderSession | None) -> None:
            if row is None or row.pid is None:
                return
            pid, host, since = row.pid, str(row.host), row.since
            mine = pid == self.pid and host == self.host
            if not mine and _alive(int(pid), host, row.start) and not force:
                elsewhere = "" if host == self.host else f" on {host}"
                raise ConflictError(
                    f"race {self.race} is being recorded by another heatlog record (pid {pid}{elsewhere}, "
                    f"since {since[:19]}): one recorder per race. Close that one first"
                    + (", or run heatlog record --force if it is gone" if host != self.host else ""),
                )
            if not mine:
                notices.append(
                    f"took over from a recorder that stopped without closing (pid {pid}, since {since[:19]})"
                )

        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        self.store.take_recorder(self.race, (self.pid, self.host, self.start, stamp), allow)
        self.held = True
        return notices[0] if notices else None

    def check(self) -> None:
        """Still ours? (another recorder may have forced a take-over)"""
        row = self.store.recorder_session(self.race)
        if row is None or row.pid != self.pid or row.host != self.host:
            self.held = False
            who = f"pid {row.pid} on {row.host}" if row is not None and row.pid is not None else "nobody"
            raise ConflictError(f"another recorder took race {self.race} over ({who}); this one stops", race=self.race)

    def release(self) -> None:
        if not self.held:
            return
        with contextlib.suppress(StoreError):
            self.store.release_recorder(self.race, self.pid, self.host)
        self.held = False

    def load_cursor(self) -> dict[str, Any] | None:
        row = self.store.recorder_session(self.race)
        return row.load_cursor() if row is not None else None

    def save_cursor(self, cursor: dict[str, Any] | None) -> None:
        self.store.save_recorder_cursor(self.race, cursor)
