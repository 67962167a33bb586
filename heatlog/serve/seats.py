"""The table server's own rows, in side tables of the race's database (never race truth).

``serve_meta``: the host secret. ``serve_races``: which races are served and how (private hands). ``serve_seats``:
one join secret per car, and the phone that holds the seat now (a second phone takes it over).
``serve_plans``: the gear and cards a seat chose privately at steps 1-2, held until the rules reveal them.
``serve_submissions``: each acknowledged submission by its idempotency key, with the answer sent back, so a
retried submission is answered again instead of recorded twice.

Every write is its own transaction on a connection in WAL mode with ``synchronous=FULL`` (as the event store):
once a phone is told "held" or "recorded", a ``kill -9`` loses nothing of it. Secrets come from the
:mod:`secrets` module (128 bits, URL-safe).
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS serve_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS serve_races (race INTEGER PRIMARY KEY, private INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS serve_seats (
    race INTEGER NOT NULL, car TEXT NOT NULL, secret TEXT NOT NULL UNIQUE, device TEXT, joined TEXT,
    PRIMARY KEY (race, car));
CREATE TABLE IF NOT EXISTS serve_plans (
    race INTEGER NOT NULL, round INTEGER NOT NULL, car TEXT NOT NULL, gear INTEGER NOT NULL, cards TEXT,
    error TEXT, at TEXT NOT NULL, PRIMARY KEY (race, round, car));
CREATE TABLE IF NOT EXISTS serve_submissions (
    key TEXT PRIMARY KEY, race INTEGER NOT NULL, who TEXT NOT NULL, answer TEXT NOT NULL, at TEXT NOT NULL);
"""


def new_secret() -> str:
    """An unguessable token (128 bits from the operating system's CSPRNG)."""
    return secrets.token_urlsafe(16)


@dataclass(slots=True)
class Plan:
    """A seat's steps 1-2: the gear and the cards (the recorder's notation), and why the cards were refused."""

    round: int
    car: str
    gear: int
    cards: str | None
    error: str | None = None


@dataclass(slots=True)
class Seat:
    car: str
    secret: str
    device: str | None
    joined: str | None


class ServeStore:
    """The side tables (one connection, used under a lock: the server's threads share it)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.lock = threading.RLock()
        self.conn = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = FULL")
        self.conn.executescript(_SCHEMA)

    def close(self) -> None:
        with self.lock:
            self.conn.close()

    def _one(self, sql: str, args: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
        with self.lock:
            row: tuple[Any, ...] | None = self.conn.execute(sql, args).fetchone()
            return row

    def _write(self, sql: str, args: tuple[Any, ...] = ()) -> None:
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.execute(sql, args)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    # ---- the host

    def host_secret(self) -> str:
        """The host's secret, made once and kept (a restarted server keeps its host link)."""
        with self.lock:
            row = self._one("SELECT value FROM serve_meta WHERE key = 'host'")
            if row is not None:
                return str(row[0])
            secret = new_secret()
            self._write("INSERT OR IGNORE INTO serve_meta (key, value) VALUES ('host', ?)", (secret,))
            row = self._one("SELECT value FROM serve_meta WHERE key = 'host'")
            assert row is not None
            return str(row[0])

    def set_served_race(self, race: int, *, private: bool | None = None) -> None:
        """Record that ``race`` is served, with its way of recording (private hands or not). Which race a start
        serves is not kept: it is the current race, as every command's default (RaceLog.resolve)."""
        with self.lock:
            if private is not None:
                self._write("INSERT OR REPLACE INTO serve_races (race, private) VALUES (?, ?)", (race, int(private)))
            else:
                self._write("INSERT OR IGNORE INTO serve_races (race, private) VALUES (?, 0)", (race,))

    def private(self, race: int) -> bool:
        row = self._one("SELECT private FROM serve_races WHERE race = ?", (race,))
        return bool(row[0]) if row is not None else False

    # ---- seats

    def seats(self, race: int, cars: list[str]) -> dict[str, Seat]:
        """Each car's seat, its secret made the first time the race is served."""
        with self.lock:
            for car in cars:
                if self._one("SELECT 1 FROM serve_seats WHERE race = ? AND car = ?", (race, car)) is None:
                    self._write(
                        "INSERT INTO serve_seats (race, car, secret) VALUES (?, ?, ?)", (race, car, new_secret())
                    )
            rows = self.conn.execute(
                "SELECT car, secret, device, joined FROM serve_seats WHERE race = ?", (race,)
            ).fetchall()
        by = {r[0]: Seat(r[0], r[1], r[2], r[3]) for r in rows}
        return {car: by[car] for car in cars if car in by}

    def seat_by_secret(self, secret: str) -> tuple[int, Seat] | None:
        row = self._one("SELECT race, car, secret, device, joined FROM serve_seats WHERE secret = ?", (secret,))
        if row is None:
            return None
        return int(row[0]), Seat(row[1], row[2], row[3], row[4])

    def join(self, race: int, car: str) -> str:
        """A phone takes the seat: a new device token; the phone that held it before is out."""
        device = new_secret()
        self._write(
            "UPDATE serve_seats SET device = ?, joined = ? WHERE race = ? AND car = ?",
            (device, time.strftime("%H:%M:%S"), race, car),
        )
        return device

    # ---- plans (steps 1-2)

    def plan(self, race: int, round: int, car: str) -> Plan | None:
        row = self._one(
            "SELECT gear, cards, error FROM serve_plans WHERE race = ? AND round = ? AND car = ?", (race, round, car)
        )
        return Plan(round, car, int(row[0]), row[1], row[2]) if row is not None else None

    def put_plan(self, race: int, plan: Plan) -> None:
        self._write(
            "INSERT OR REPLACE INTO serve_plans (race, round, car, gear, cards, error, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (race, plan.round, plan.car, plan.gear, plan.cards, plan.error, time.strftime("%Y-%m-%dT%H:%M:%S")),
        )

    def drop_plan(self, race: int, round: int, car: str) -> None:
        self._write("DELETE FROM serve_plans WHERE race = ? AND round = ? AND car = ?", (race, round, car))

    def drop_plans(self, race: int) -> None:
        self._write("DELETE FROM serve_plans WHERE race = ?", (race,))

    # ---- idempotency

    def submission(self, key: str) -> dict[str, Any] | None:
        row = self._one("SELECT answer FROM serve_submissions WHERE key = ?", (key,))
        if row is None:
            return None
        answer: dict[str, Any] = json.loads(row[0])
        return answer

    def put_submission(self, key: str, race: int, who: str, answer: dict[str, Any]) -> None:
        self._write(
            "INSERT OR REPLACE INTO serve_submissions (key, race, who, answer, at) VALUES (?, ?, ?, ?, ?)",
            (key, race, who, json.dumps(answer, allow_nan=False), time.strftime("%Y-%m-%dT%H:%M:%S")),
        )
