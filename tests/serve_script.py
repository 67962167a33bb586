"""Scripted phones for the table server's tests and benchmark: a simulated race entered through HTTP.

Each phone reads only what its own seat is shown (``/api/view``) and answers from the race it follows (the
events the simulator logged), as a player would from the physical cards: its gear and cards in one plan at steps
1-2, then the answers the recorder takes (``heatlog.recorder.script``), chance included.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
from recorder_races import strip

from heatlog.log.racelog import RaceLog
from heatlog.recorder import script as rs

Event = dict[str, Any]


def token(card: str) -> str:
    return card.lower() if card in ("H", "S") else card


def plan_for(expected: list[Event], i: int, car: str) -> str:
    """The cards ``car`` reveals (table) or plays (open) after its next gear choice, in the notation."""
    k = next(j for j in range(i, len(expected)) if expected[j]["type"] == "gear_chosen" and expected[j]["car"] == car)
    ev = next(e for e in expected[k:] if e["type"] in ("cards_revealed", "cards_played") and e.get("car") == car)
    return " ".join(token(c) for c in ev["cards"])


class Phones:
    """The host and one client per seat, each with its cookies, posting as the page's script does."""

    def __init__(self, host: Any, seats: dict[str, Any], log: RaceLog, race: int, expected: list[Event]) -> None:
        self.host, self.seats, self.log, self.race, self.expected = host, seats, log, race, expected
        self.taps: dict[tuple[int, str], int] = {}
        self.host_answers = 0
        self.n = 0
        self.round = 0
        self.said: list[tuple[int, str, str]] = []
        self.end_turn = False  # tap "end my turn" where the player does nothing more (the page's button)
        self.typed_chance = True  # table mode: flips typed (an open race's draws are typed either way)

    def ending(self, name: str, i: int, text: str) -> str:
        """``- -`` (React done, nothing more: an offered slipstream declined), ``- y -`` (React done, the slipstream
        taken), ``n -`` or ``y -`` (at the slipstream question) when the car then discards nothing: one tap, as the
        page's "end my turn" buttons."""
        rest = [e for e in strip(self.expected[i:]) if e.get("car") == name][:2]
        taken = [e for e in rest if e["type"] == "slipstream" and e["taken"]]
        later = [e for e in rest if e["type"] != "slipstream"]
        if text == "" and rest and rest[0]["type"] == "cards_discarded":  # no slipstream offered: discard at once
            return "- d" + "".join(token(c) for c in rest[0]["cards"])
        if later and later[0]["type"] in ("cards_drawn", "deck_shuffled"):
            if text == "" and taken:
                return "- y -" if "spaces" not in taken[0] and "bonuses" not in taken[0] else text
            return f"{text} -" if text in ("n", "y") else "- -"
        return text

    def post(self, client: Any, body: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        body = {"key": f"script-{self.n:08d}", **body}
        r = client.post("/api/act", json=body, headers={"X-CSRF-Token": client.cookies.get("hl_csrf", "")})
        out: dict[str, Any] = r.json()
        return out

    def index(self) -> int:
        return len(strip([e.event for e in self.log.project(self.race).effective.entries]))

    def step(self) -> bool:
        """One submission by whoever the race waits for; False when the race is over."""
        i = self.index()
        self.round = self.log.project(self.race).state.round
        for name, client in self.seats.items():
            view = client.get("/api/view").json()
            for ctl in view.get("controls", []):
                if ctl["kind"] == "over":
                    return False
                if ctl["kind"] == "plan":
                    text = plan_for(self.expected, i, name)
                    res = self.post(client, {"action": "plan", "text": text})
                    assert res["ok"], (name, res)
                    self.tap(name, f"plan:{text}")
                    return True
                if ctl["kind"] == "question":
                    text = rs.answer(
                        ctl["question"], name, self.expected, i, typed_chance=self.typed_chance, multi=False
                    )
                    if self.end_turn and ctl["question"] in ("react", "slipstream") and text in ("", "n", "y"):
                        text = self.ending(name, i, text)
                    res = self.post(client, {"action": "answer", "text": text})
                    assert res["ok"], (name, ctl["prompt"], text, res)
                    self.tap(name, f"{ctl['question']}:{text}")
                    return True
        view = self.host.get("/api/view").json()
        for ctl in view.get("controls", []):
            if ctl["kind"] == "over":
                return False
            if ctl["kind"] == "question":
                text = rs.answer(
                    ctl["question"], ctl["car"] or "", self.expected, i, typed_chance=self.typed_chance, multi=False
                )
                res = self.post(self.host, {"action": "answer", "text": text})
                assert res["ok"], (ctl["prompt"], text, res)
                self.host_answers += 1
                return True
        raise AssertionError(f"nobody can answer: {view.get('public', {}).get('waits')}")

    def tap(self, name: str, what: str = "") -> None:
        rnd = self.round
        self.said.append((rnd, name, what))
        self.taps[(rnd, name)] = self.taps.get((rnd, name), 0) + 1

    def play(self, limit: float = 600.0) -> None:
        start = time.monotonic()
        while self.step():
            assert time.monotonic() - start < limit, "the race did not end"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(db: Path, race: int, port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "heatlog.cli", "serve", "--db", str(db), "--race", str(race), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    for _ in range(200):
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/watch", timeout=1).status_code == 200:
                return proc
        except httpx2.HTTPError:
            pass
        if proc.poll() is not None:
            raise AssertionError(proc.stderr.read().decode() if proc.stderr else "the server stopped")
        time.sleep(0.05)
    raise AssertionError("the server did not start")


def new_served_race(db: Path, track: str, n: int, expected: list[Event]) -> tuple[int, str, dict[str, str]]:
    """A table-mode race on the grid of ``expected``, ready to serve: its id, the host secret, each seat's secret."""
    from recorder_races import cars

    from heatlog.races import start_race
    from heatlog.serve.seats import ServeStore

    with RaceLog(db) as log:
        race = start_race(log, track=track, cars=cars(n), mode="table", variant="one-lap", grid=expected[1]["order"])
    store = ServeStore(db)
    try:
        seats = {name: seat.secret for name, seat in store.seats(race, [c["name"] for c in cars(n)]).items()}
        return race, store.host_secret(), seats
    finally:
        store.close()
