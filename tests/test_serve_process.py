"""heatlog serve as a real process (uvicorn): killed with SIGKILL mid-round and started again, it has lost no
acknowledged entry (nor a held plan) and every phone goes on with its cookies; meanwhile a terminal recorder on
the same race is refused (one recorder per race) and an entry added by another command is taken in, not forked.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
from recorder_races import TRACK, cars, simulated, strip
from serve_script import Phones, free_port, plan_for, start

from heatlog.log.racelog import RaceLog
from heatlog.races import start_race
from heatlog.serve.seats import ServeStore


def clients(db: Path, race: int, base: str) -> tuple[httpx2.Client, dict[str, httpx2.Client]]:
    store = ServeStore(db)
    try:
        host = httpx2.Client(base_url=base, follow_redirects=True, timeout=30)
        assert host.get(f"/h/{store.host_secret()}").status_code == 200
        seats = {}
        for name, seat in store.seats(race, [c["name"] for c in cars(3)]).items():
            c = httpx2.Client(base_url=base, follow_redirects=True, timeout=30)
            assert c.get(f"/j/{seat.secret}").url.path == "/seat"
            seats[name] = c
        return host, seats
    finally:
        store.close()


def effective(db: Path, race: int) -> list[dict[str, Any]]:
    with RaceLog(db) as log:
        return strip([e.event for e in log.project(race).effective.entries])


def test_kill_9_mid_round_loses_no_acknowledged_entry_and_the_phones_resume(tmp_path: Path) -> None:
    db = tmp_path / "race.db"
    expected = simulated(3, 1, "table")
    with RaceLog(db) as log:
        race = start_race(
            log, track=str(TRACK), cars=cars(3), mode="table", variant="one-lap", grid=expected[1]["order"]
        )
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start(db, race, port)
    try:
        host, seats = clients(db, race, base)
        log = RaceLog(db)
        phones = Phones(host, seats, log, race, expected)  # type: ignore[arg-type]
        phones.end_turn = True
        for _ in range(14):  # into round 2 or so: every acknowledged entry is in the log
            phones.step()
        # one seat's plan held (acknowledged), the others not yet: the server is killed mid-round
        i = phones.index()
        view = seats["Blue"].get("/api/view").json()
        while not any(c["kind"] == "plan" for c in view["controls"]):
            phones.step()
            i = phones.index()
            view = seats["Blue"].get("/api/view").json()
        held = plan_for(expected, i, "Blue")
        out = phones.post(seats["Blue"], {"action": "plan", "text": held})
        assert out["ok"]
        acknowledged = effective(db, race)

        # a terminal recorder on the same race meanwhile: refused, nothing written
        rec = subprocess.run(
            [sys.executable, "-m", "heatlog.cli", "record", "--db", str(db), "--race", str(race)],
            input=b"",
            capture_output=True,
            timeout=60,
        )
        assert rec.returncode != 0 and b"one recorder per race" in rec.stdout + rec.stderr
        assert effective(db, race) == acknowledged

        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert effective(db, race) == acknowledged

        proc = start(db, race, port)  # the same cookies, the same seats, the plan still held
        view = seats["Blue"].get("/api/view").json()
        assert view["you"]["car"] == "Blue" and view["you"]["plan"]["cards"] == held
        # another command writes to the race while the server runs: taken in (the store's order), no fork
        note = subprocess.run(
            [sys.executable, "-m", "heatlog.cli", "note", "--db", str(db), "--race", str(race), "table bumped"],
            capture_output=True,
            timeout=60,
        )
        assert note.returncode == 0, note.stderr
        phones.play()
        assert effective(db, race) == strip(expected)
        with RaceLog(db) as check:
            assert any(e.event.get("text") == "table bumped" for e in check.project(race).effective.entries)
        log.close()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_a_port_in_use_is_refused_in_words_before_any_link_is_printed(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = subprocess.run(
            [sys.executable, "-m", "heatlog.cli", "serve", "--db", str(tmp_path / "x.db"), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert r.returncode == 1 and f"--port {port}: cannot listen" in r.stderr and "Traceback" not in r.stderr
    assert "host screen" not in r.stdout
