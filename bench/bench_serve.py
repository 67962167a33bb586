"""The table server (issue 27): what the host and the players do, and how fast the board follows.

1. **Answers and taps** (Starlette's test client, in process): a 3-car two-lap USA race (heuristic bots, seeded)
   set up on the host screen (one form) and recorded by three scripted phones, each reading only its own seat's
   screen and answering with what the page offers (the gear and cards of steps 1-2 in one plan; "end my turn"
   where the player does nothing more). Counted: the host's answers (goal <= 10), the submissions per
   car-turn (goal: median <= 4) and, beside them, the card buttons tapped before a submission. The stored log
   must be exactly the race.
2. **Entry -> board latency** (a real ``heatlog serve`` process, uvicorn): 6 seats and 10 spectators connected
   by server-sent events, a 6-car one-lap USA race entered by the scripted phones over HTTP; for each
   submission, the time from sending it to the host screen's stream delivering the new board (goal: median
   <= 100 ms, p95 <= 300 ms). The machine is shared: the figures are of this run.

    python bench/bench_serve.py [--seed 1] [--skip-latency]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _common import ROOT, machine, table

sys.path.insert(0, str(ROOT / "tests"))

Event = dict[str, Any]


def answers_and_taps(seed: int) -> dict[str, Any]:
    from recorder_races import cars, simulated, strip
    from serve_script import Phones
    from starlette.testclient import TestClient

    from heatlog.log.racelog import RaceLog
    from heatlog.serve.app import Server, make_app

    expected = simulated(3, seed, "table", track="usa", bot="heuristic", variant=None)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        server = Server(db)
        app = make_app(server)
        host_answers = 0
        with TestClient(app) as host:
            host.get(f"/h/{server.host_secret}")
            fields = {
                "name": "bench",
                "track": "usa",
                "cars": " ".join(f"{c['name']}:{c['colour']}" for c in cars(3)),
                "mode": "table",
                "variant": "standard",
                "grid": " ".join(expected[1]["order"]),
            }
            out = host.post(
                "/api/act",
                json={"action": "setup", "fields": fields, "key": "bench-setup-1"},
                headers={"X-CSRF-Token": host.cookies["hl_csrf"]},
            ).json()
            assert out["ok"], out
            host_answers += 1
            seats = {}
            for name, url in server.join_urls().items():
                c = TestClient(app)
                c.get(url.replace(server.base_url, ""))
                seats[name] = c
            log = RaceLog(db)
            phones = Phones(host, seats, log, out["race"], expected)
            phones.end_turn = True
            started = time.perf_counter()
            phones.play()
            took = time.perf_counter() - started
            got = strip([e.event for e in log.project(out["race"]).effective.entries])
            assert got == strip(expected), "the stored log is not the race"
            log.close()
        server.close()
    host_answers += phones.host_answers
    per_turn: dict[tuple[int, str], list[str]] = {}
    for rnd, car, what in phones.said:
        per_turn.setdefault((rnd, car), []).append(what)
    submits = [len(v) for v in per_turn.values()]

    def taps(what: str) -> int:
        """A picker's card buttons, then its send (a flip's one card sends itself); any other answer: one tap."""
        kind, _, text = what.partition(":")
        return len(text.split()) + 1 if kind in ("plan", "reveal", "discard", "draw") and text.strip() else 1

    with_cards = [sum(taps(w) for w in v) for v in per_turn.values()]
    return {
        "host": host_answers,
        "turns": len(submits),
        "submits": statistics.median(submits),
        "submits_max": max(submits),
        "with_cards": statistics.median(with_cards),
        "seconds": took,
        "events": len(expected),
    }


class Stream(threading.Thread):
    """One browser's event stream: the versions it was sent, with when."""

    def __init__(self, base: str, cookies: dict[str, str]) -> None:
        super().__init__(daemon=True)
        import httpx2

        self.client = httpx2.Client(base_url=base, cookies=cookies, timeout=None)
        self.seen: list[tuple[float, int]] = []
        self.cond = threading.Condition()
        self.ready = threading.Event()

    def run(self) -> None:
        import httpx2

        with contextlib.suppress(httpx2.HTTPError):  # the server stopped at the end of the run
            self.listen()

    def listen(self) -> None:
        with self.client.stream("GET", "/stream") as r:
            for line in r.iter_lines():
                if line.startswith("data: "):
                    version = json.loads(line[6:])["version"]
                    with self.cond:
                        self.seen.append((time.perf_counter(), version))
                        self.cond.notify_all()
                    self.ready.set()

    def version(self) -> int:
        with self.cond:
            return self.seen[-1][1] if self.seen else -1

    def wait_past(self, version: int, timeout: float = 10.0) -> float:
        with self.cond:
            ok = self.cond.wait_for(lambda: self.seen and self.seen[-1][1] > version, timeout)
            assert ok, "the host screen was not updated"
            return next(t for t, v in self.seen if v > version)


def latency(seed: int) -> dict[str, Any]:
    import signal
    import subprocess

    import httpx2
    from recorder_races import simulated, strip
    from serve_script import Phones, free_port, new_served_race, start

    from heatlog.log.racelog import RaceLog

    expected = simulated(6, seed, "table", track="usa", bot="heuristic")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        race, host_secret, secrets = new_served_race(db, "usa", 6, expected)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        proc = start(db, race, port)
        try:
            host = httpx2.Client(base_url=base, follow_redirects=True, timeout=30)
            host.get(f"/h/{host_secret}")
            seats = {}
            for name, secret in secrets.items():
                c = httpx2.Client(base_url=base, follow_redirects=True, timeout=30)
                c.get(f"/j/{secret}")
                seats[name] = c
            streams = [Stream(base, dict(host.cookies))]
            streams += [Stream(base, dict(c.cookies)) for c in seats.values()]
            streams += [Stream(base, {}) for _ in range(10)]
            for s in streams:
                s.start()
            for s in streams:
                assert s.ready.wait(10)
            board = streams[0]
            log = RaceLog(db)
            phones = Phones(host, seats, log, race, expected)  # type: ignore[arg-type]
            phones.end_turn = True
            delays: list[float] = []
            post = phones.post

            def timed_post(client: Any, body: dict[str, Any]) -> dict[str, Any]:
                before = board.version()
                sent = time.perf_counter()
                out = post(client, body)
                delays.append(board.wait_past(before) - sent)
                return out

            phones.post = timed_post  # type: ignore[method-assign]
            phones.play()
            got = strip([e.event for e in log.project(race).effective.entries])
            assert got == strip(expected), "the stored log is not the race"
            log.close()
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    delays.sort()
    return {
        "n": len(delays),
        "median": statistics.median(delays) * 1000,
        "p95": delays[int(0.95 * (len(delays) - 1))] * 1000,
        "max": delays[-1] * 1000,
        "streams": len(streams),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args()
    print(f"bench_serve: {machine()}")
    a = answers_and_taps(args.seed)
    table(
        f"3-car two-lap USA race, every car with a phone (seed {args.seed}, {a['events']} events, {a['turns']} "
        f"car-turns, {a['seconds']:.1f} s)",
        ["measure", "figure", "goal"],
        [
            ["host answers (set-up form included)", str(a["host"]), "<= 10"],
            ["submissions per car-turn, median (max)", f"{a['submits']:g} ({a['submits_max']})", "<= 4"],
            ["taps per car-turn incl. card buttons, median", f"{a['with_cards']:g}", "-"],
        ],
    )
    if not args.skip_latency:
        lat = latency(args.seed)
        table(
            f"entry -> host board, 6 seats + 10 spectators + the host ({lat['streams']} event streams), "
            f"{lat['n']} submissions",
            ["median ms", "p95 ms", "max ms", "goal"],
            [[f"{lat['median']:.0f}", f"{lat['p95']:.0f}", f"{lat['max']:.0f}", "median <= 100, p95 <= 300"]],
        )


if __name__ == "__main__":
    main()
