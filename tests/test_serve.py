"""heatlog serve (issue 27) through Starlette's test client: whole races entered by scripted phones give the
simulated log event for event; a seat sees and acts for its own car only (HTML, JSON, the event stream); a
spectator sees no hand; a retried submission is recorded once; corrections; security (CSRF, secrets, escaping,
plain-word errors). The real server (kill -9) is in tests/test_serve_process.py, the real browser in
tests/test_serve_browser.py.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from recorder_races import TRACK, cars, simulated, strip
from serve_script import Phones, plan_for
from starlette.testclient import TestClient

from heatlog.engine.modules.garage import garage_slot
from heatlog.engine.modules.weather import weather_rules
from heatlog.log.racelog import RaceLog
from heatlog.races import start_race
from heatlog.recorder import race_cards
from heatlog.recorder import script as rs
from heatlog.serve.app import Server, make_app

Event = dict[str, Any]


class Table:
    """A served race with a host client and one client per seat (each with its own cookies)."""

    def __init__(self, tmp_path: Path, n: int, seed: int, mode: str, *, bot: str = "random", track: str = "") -> None:
        track = track or str(TRACK)
        self.expected = simulated(n, seed, "table" if mode == "table" else "open", bot=bot, track=track)
        self.log = RaceLog(tmp_path / "race.db")
        self.race = start_race(
            self.log,
            track=track,
            cars=cars(n),
            mode="table" if mode == "table" else "open",
            variant="one-lap",
            grid=self.expected[1]["order"],
        )
        self.server = Server(tmp_path / "race.db")
        self.server.call(self.server.serve, self.race, private=mode == "private")
        self.app = make_app(self.server)
        self.host = TestClient(self.app)
        self.host.__enter__()
        self.host.get(f"/h/{self.server.host_secret}")
        self.seats: dict[str, TestClient] = {}

    def join(self, *names: str) -> None:
        urls = self.server.join_urls()
        for name in names or tuple(urls):
            c = TestClient(self.app)
            r = c.get(urls[name].replace(self.server.base_url, ""))
            assert r.status_code == 200 and r.url.path == "/seat"
            self.seats[name] = c

    def phones(self) -> Phones:
        return Phones(self.host, self.seats, self.log, self.race, self.expected)

    def events(self) -> list[Event]:
        return [e.event for e in self.log.project(self.race).effective.entries]

    def close(self) -> None:
        self.host.__exit__(None, None, None)
        self.server.close()
        self.log.close()


@pytest.fixture
def table(tmp_path: Path) -> Any:
    made: list[Table] = []

    def make(n: int = 3, seed: int = 1, mode: str = "table", **kw: Any) -> Table:
        folder = tmp_path / f"t{len(made)}"
        folder.mkdir()
        t = Table(folder, n, seed, mode, **kw)
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


def post(client: TestClient, body: dict[str, Any], *, key: str | None = None) -> dict[str, Any]:
    body = {"key": key or f"k-{id(body)}-{len(json.dumps(body))}", **body}
    r = client.post("/api/act", json=body, headers={"X-CSRF-Token": client.cookies.get("hl_csrf", "")})
    assert r.status_code in (200, 400, 403, 409), r.text
    out: dict[str, Any] = r.json()
    return out


def stream(client: TestClient, n: int = 1) -> list[dict[str, Any]]:
    """The first ``n`` messages of the client's event stream."""
    out = []
    with client.stream("GET", f"/stream?max={n}") as r:
        for line in r.iter_lines():
            if line.startswith("data: "):
                out.append(json.loads(line[6:]))
            elif line.startswith("event: taken"):
                out.append({"taken": True})
    return out


def into_private_race(table: Any, seed: int, steps: int) -> tuple[Table, Phones]:
    """A 3-car private-hands race with a phone per car, ``steps`` submissions in."""
    t = table(3, seed, "private")
    t.join()
    phones = t.phones()
    phones.typed_chance = False  # (an open race: its draws are entered either way)
    for _ in range(steps):
        phones.step()
    return t, phones


# ------------------------------------------------------------------------------------------ whole races


@pytest.mark.parametrize(("n", "seed", "track"), [(3, 1, ""), (6, 4, "usa")])
def test_a_race_entered_by_phones_is_the_simulated_race_event_for_event(
    table: Any, n: int, seed: int, track: str
) -> None:
    """Every car has a phone (# 3.1 gears and # 5.1 reveals from the held plans); the host answers nothing."""
    t = table(n, seed, track=track)
    t.join()
    phones = t.phones()
    phones.end_turn = True
    phones.play()
    assert strip(t.events()) == strip(t.expected)
    assert phones.host_answers == 0


def test_cars_without_phones_are_played_from_the_host_screen(table: Any) -> None:
    t = table(3, 2)
    t.join("Red")  # Blue and Green have no phone
    host = t.host.get("/api/view").json()
    plans = [c["car"] for c in host["controls"] if c["kind"] == "plan"]
    assert plans == ["Blue", "Green"]
    # the shared screen does not promise what it cannot keep: a phone's "Nobody sees them until the reveal"
    assert "Nobody sees" not in host["panels"]["controls"] and "shared screen" in host["panels"]["controls"]
    assert "Nobody sees them until the reveal" in t.seats["Red"].get("/api/view").json()["panels"]["controls"]
    phones = t.phones()
    for _ in range(3000):
        i = phones.index()
        view = t.host.get("/api/view").json()
        done = False
        for ctl in view["controls"]:
            if ctl["kind"] == "plan":
                out = post(
                    t.host,
                    {"action": "plan", "car": ctl["car"], "text": plan_for(t.expected, i, ctl["car"])},
                    key=f"host-plan-{i}-{ctl['car']}",
                )
                assert out["ok"], out
                done = True
                break
        if not done and not phones.step():
            break
    assert strip(t.events()) == strip(t.expected)


def test_private_hands_race_each_phone_enters_its_draws(table: Any) -> None:
    """An open log (every card entered) while each hand is shown on its own seat only (docs/table.md)."""
    t, phones = into_private_race(table, 3, 40)  # into the race: the draws, plans and reveals have happened
    views = {name: c.get("/api/view").json() for name, c in t.seats.items()}
    hands = {name: v["you"]["hand"] for name, v in views.items()}
    assert all(isinstance(h, list) for h in hands.values())
    for name, v in views.items():
        text = json.dumps(v)
        for other in t.seats:
            if other != name:
                assert f'data-hand=\\"{other}\\"' not in text
                assert v["you"]["car"] == name
    watcher = TestClient(t.app)
    statuses = []
    while phones.step():
        statuses.append(watcher.get("/api/view").json()["panels"]["status"])
    assert strip(t.events()) == strip(t.expected)
    # the corner lines reach the board (# 10.1: speed, Heat, a spinout ahead), never a hand
    # ("Just now: Red draws 3": a count, never the cards)
    assert any(": corner " in x for x in statuses) and not any("(hand" in x for x in statuses)
    assert not [x for x in statuses if re.search(r"draws (?!\d+[;<])", x)]
    # the spectators' narration is the table's: a draw is a count, never the cards drawn ("draws 2 (3 S)")
    watch = TestClient(t.app).get("/api/view").json()
    assert "(hand" not in json.dumps(watch)
    assert "draws" in watch["panels"]["narration"] and not re.search(r"draws \d+ \(", watch["panels"]["narration"])


def test_a_submission_cut_off_by_a_crash_is_not_entered_again(table: Any) -> None:
    """The key was written as pending, the entry made, the server killed before the answer was stored: the
    retry is answered "recorded", and nothing is entered twice."""
    t = table(3, 1)
    t.join()
    phones = t.phones()
    while not any(c["kind"] == "question" for c in t.seats["Blue"].get("/api/view").json()["controls"]):
        phones.step()
    from heatlog.recorder import script as rs

    ctl = t.seats["Blue"].get("/api/view").json()["controls"][0]
    text = rs.answer(ctl["question"], "Blue", t.expected, phones.index(), typed_chance=True, multi=False)
    head = t.log.store.head(t.race)[0]
    t.server.store.put_submission(
        "seat:Blue|crash-key-1", t.race, "seat:Blue", {"pending": True, "race": t.race, "head": head}
    )
    assert post(t.seats["Blue"], {"action": "answer", "text": text}, key="other-key-1")["ok"]  # (the entry made)
    n = len(t.log.stored(t.race))
    again = post(t.seats["Blue"], {"action": "answer", "text": text}, key="crash-key-1")
    assert again["ok"] and again["replayed"] and "before the server restarted" in again["lines"][0][1]
    assert len(t.log.stored(t.race)) == n


# ------------------------------------------------------------------------------------------ isolation


def test_a_seat_sees_only_its_own_private_panel_in_html_json_and_stream(table: Any) -> None:
    t, phones = into_private_race(table, 1, 25)
    red = t.seats["Red"]
    page = red.get("/seat").text
    assert 'data-role="seat"' in page
    view = red.get("/api/view").json()
    assert view["you"]["car"] == "Red" and view["you"]["hand"] is not None
    assert not [x for x in view["you"]["said"] if x[1].lstrip("→✓ ").startswith(("Blue", "Green"))]
    assert 'data-hand="Red"' in view["panels"]["private"]
    for blob in (json.dumps(view), json.dumps(stream(red, 1))):
        assert 'data-hand=\\"Blue\\"' not in blob and 'data-hand=\\"Green\\"' not in blob
    # a spectator: no hand, no plan, no private panel at all
    watcher = TestClient(t.app)
    watch = watcher.get("/api/view").json()
    assert "you" not in watch and "private" not in watch["panels"] and "controls" not in watch["panels"]
    assert "data-hand" not in json.dumps(watch) + json.dumps(stream(watcher, 1)) + watcher.get("/watch").text
    assert all("hand" not in c for c in watch["cars"])


def test_a_plan_is_seen_by_its_seat_only_until_the_reveal(table: Any) -> None:
    t = table(3, 1)
    t.join()
    assert post(t.seats["Blue"], {"action": "plan", "text": "4 3 s"})["ok"]
    blue = json.dumps(t.seats["Blue"].get("/api/view").json())
    assert "4 3 s" in blue
    for who in (t.seats["Red"], t.seats["Green"], t.host, TestClient(t.app)):
        seen = json.dumps(who.get("/api/view").json()) + json.dumps(stream(who, 1))
        assert "4 3 s" not in seen and "Blue ready" in seen
    assert not any(e["type"] == "gear_chosen" for e in t.events())  # held, not entered: # 3.1 simultaneous


def test_a_seat_cannot_act_for_another_car(table: Any) -> None:
    t = table(3, 1)
    t.join()
    red = t.seats["Red"]
    out = post(red, {"action": "plan", "car": "Blue", "text": "2"})
    assert not out["ok"] and "Red only" in out["error"]
    phones = t.phones()
    while not any(c["kind"] == "question" for c in t.seats["Blue"].get("/api/view").json()["controls"]):
        phones.step()
    n = len(t.log.stored(t.race))
    out = post(red, {"action": "answer", "text": "1"})
    assert not out["ok"] and "not Red's turn" in out["error"]
    out = post(red, {"action": "takeback"})
    assert not out["ok"]
    spectator = TestClient(t.app)
    spectator.get("/watch")
    out = post(spectator, {"action": "answer", "text": "1"})
    assert not out["ok"] and "read-only" in out["error"]
    assert len(t.log.stored(t.race)) == n


# ------------------------------------------------------------------------------------------ faults


def test_a_retried_submission_is_recorded_once(table: Any) -> None:
    t = table(3, 1)
    t.join()
    phones = t.phones()
    while not any(c["kind"] == "question" for c in t.seats["Blue"].get("/api/view").json()["controls"]):
        phones.step()
    i = phones.index()
    from heatlog.recorder import script as rs

    ctl = t.seats["Blue"].get("/api/view").json()["controls"][0]
    text = rs.answer(ctl["question"], "Blue", t.expected, i, typed_chance=True, multi=False)
    before = len(t.log.stored(t.race))
    first = post(t.seats["Blue"], {"action": "answer", "text": text}, key="retry-me-1")
    after = len(t.log.stored(t.race))
    again = post(t.seats["Blue"], {"action": "answer", "text": text}, key="retry-me-1")
    assert first["ok"] and again["ok"] and again["replayed"] is True
    assert after > before and len(t.log.stored(t.race)) == after
    # the same key from another seat is that seat's own key: never another's answer
    other = post(t.seats["Red"], {"action": "answer", "text": text}, key="retry-me-1")
    assert "replayed" not in other


def test_a_second_phone_takes_the_seat_over_and_the_first_is_told(table: Any) -> None:
    t = table(3, 1)
    t.join()
    first = t.seats["Red"]
    second = TestClient(t.app)
    assert second.get(t.server.join_urls()["Red"].replace(t.server.base_url, "")).url.path == "/seat"
    out = post(first, {"action": "plan", "text": "2 2"})
    assert not out["ok"] and out.get("taken") and "another phone took this seat over" in out["error"]
    told = stream(first, 1)[0]  # its stream (re)opened: told, and shown only the public board
    assert told["taken"] is True and "private" not in told["panels"] and "controls" not in told["panels"]
    assert "took this seat over" in first.get("/seat").text
    assert post(second, {"action": "plan", "text": "2 2"})["ok"]


def test_a_restarted_server_keeps_its_seats_plans_and_race(table: Any, tmp_path: Path) -> None:
    t = table(3, 1)
    t.join()
    assert post(t.seats["Red"], {"action": "plan", "text": "3 4"})["ok"]
    secret = t.server.host_secret
    cookie = t.seats["Red"].cookies.get("hl_seat")
    t.host.__exit__(None, None, None)
    t.server.close()
    server = Server(t.log.path)  # serves the race it served last
    try:
        app = make_app(server)
        assert server.host_secret == secret and server.table is not None and server.table.race == t.race
        phone = TestClient(app, cookies={"hl_seat": cookie})
        view = phone.get("/api/view").json()
        assert view["you"]["car"] == "Red" and view["you"]["plan"]["cards"] == "3 4"
    finally:
        server.close()
    t.server = Server(t.log.path)
    t.host = TestClient(make_app(t.server))
    t.host.__enter__()


# ------------------------------------------------------------------------------------------ corrections


def test_take_back_own_last_entry_only_while_it_is_the_latest(table: Any) -> None:
    t = table(3, 1)
    t.join()
    phones = t.phones()
    assert post(t.seats["Blue"], {"action": "plan", "text": "s"})["ok"]
    assert post(t.seats["Blue"], {"action": "takeback"})["ok"]  # a held plan: changed freely
    view = t.seats["Blue"].get("/api/view").json()
    assert view["controls"][0]["kind"] == "plan"
    while not any(c["kind"] == "question" for c in t.seats["Blue"].get("/api/view").json()["controls"]):
        phones.step()
    phones.step()  # Blue's first answer (a flip, # 14.1)
    n = len(t.events())
    out = post(t.seats["Blue"], {"action": "takeback"})
    assert out["ok"], out
    assert len(t.events()) < n
    assert any(e["type"] == "retracted" for e in (s.event for s in t.log.stored(t.race)))
    phones.step()  # answered again
    out = post(t.seats["Red"], {"action": "takeback"})
    assert not out["ok"] and "no longer the latest" in out["error"]


def test_host_undo_with_a_reason_is_a_correction_event(table: Any) -> None:
    t = table(3, 1)
    t.join()
    phones = t.phones()
    for _ in range(6):
        phones.step()
    last = t.events()[-1]
    assert not post(t.host, {"action": "undo", "reason": "  "})["ok"]
    out = post(t.host, {"action": "undo", "reason": "Blue's card was a 3"})
    assert out["ok"] and "Blue's card was a 3" in out["lines"][0][1]
    stored = [s.event for s in t.log.stored(t.race)]
    assert stored[-1]["type"] == "retracted" and stored[-1].get("reason") == "Blue's card was a 3"
    assert t.events()[-1] != last or len(t.events()) < len(stored)
    phones.play()  # the race goes on from the correction to the same finish
    assert strip(t.events()) == strip(t.expected)


# ------------------------------------------------------------------------------------------ security


def test_state_changes_need_the_csrf_token_and_this_origin(table: Any) -> None:
    t = table(3, 1)
    t.join()
    red = t.seats["Red"]
    body = {"action": "plan", "text": "2 2", "key": "csrf-test-1"}
    assert red.post("/api/act", json=body).status_code == 403
    assert red.post("/api/act", json=body, headers={"X-CSRF-Token": "forged"}).status_code == 403
    token = red.cookies["hl_csrf"]
    evil = {"X-CSRF-Token": token, "Origin": "http://evil.example"}
    assert red.post("/api/act", json=body, headers=evil).status_code == 403
    assert red.post("/api/act", json=body, headers={"X-CSRF-Token": token}).json()["ok"]


def test_secrets_are_unguessable_and_pages_need_them(table: Any) -> None:
    t = table(3, 1)
    secrets_ = [t.server.host_secret, *(s.secret for s in t.server.table.seats.values())]
    assert len(set(secrets_)) == 4 and all(len(s) >= 22 for s in secrets_)  # 128 bits, URL-safe
    anyone = TestClient(t.app)
    assert anyone.get("/host").status_code == 403
    assert anyone.get("/h/not-the-secret").status_code == 404
    assert anyone.get("/j/not-a-seat").status_code == 404
    assert anyone.get("/seat").status_code == 403
    assert anyone.get("/watch").status_code == 200
    r = anyone.get("/watch")
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert t.server.host_secret not in r.text and all(s not in r.text for s in secrets_)


def test_user_text_is_data_everywhere(tmp_path: Path) -> None:
    log = RaceLog(tmp_path / "x.db")
    nasty = "<img src=x onerror=alert(1)>"
    rid = start_race(
        log,
        track="usa",
        cars=[{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}],
        mode="table",
        grid=["Ann", "Bob"],
        name=nasty,
    )
    server = Server(tmp_path / "x.db", race=rid)
    try:
        with TestClient(make_app(server)) as host:
            host.get(f"/h/{server.host_secret}")
            assert post(host, {"action": "note", "text": "</script><script>alert(1)</script>"})["ok"]
            out = post(host, {"action": "plan", "car": "Ann", "text": "<b>4</b>"})
            assert not out["ok"] and "not a card" in out["error"]
            for path in ("/host", "/api/view", "/watch", "/host/setup"):
                text = host.get(path).text
                assert "<img src=x" not in text and "<script>alert" not in text and "<b>4" not in text
    finally:
        server.close()
        log.close()


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"nonsense",
        b"[]",
        b'{"action": 3, "key": "k1234567"}',
        b'{"action": "answer"}',
        b'{"action": "answer", "key": "k1234567", "text": 5}',
        b'{"action": "plan", "key": "k1234567", "text": "\\u0000"}',
        b'{"action": "undo", "key": "k1234567", "reason": ["x"]}',
        b'{"action": "resume", "key": "k1234567", "race": "1"}',
        b'{"action": "setup", "key": "k1234567", "fields": {"cars": "Ann"}}',
        b'{"action": "fly", "key": "k1234567"}',
        # a RecursionError in json.loads was a 500 (the door now reads with formats.jsonio)
        pytest.param(b"[" * 100_000, id="nested-100000"),
        pytest.param(b'{"action": "answer", "key": "k1234567", "text": ' + b"{" * 3000, id="nested-in-text"),
        pytest.param(b"\xff\xfe{}", id="not-utf8"),
    ],
)
def test_hostile_submissions_get_plain_words_never_a_traceback(table: Any, body: bytes) -> None:
    t = table(3, 1)
    t.join("Red")
    n = len(t.log.stored(t.race))
    for client in (t.host, t.seats["Red"]):
        r = client.post(
            "/api/act",
            content=body,
            headers={"X-CSRF-Token": client.cookies["hl_csrf"], "Content-Type": "application/json"},
        )
        assert r.status_code in (200, 400), r.text
        out = r.json()
        assert out["ok"] is False and out["error"] and "Traceback" not in out["error"]
    assert len(t.log.stored(t.race)) == n


def test_the_host_sets_up_a_race_with_the_record_new_choices(tmp_path: Path) -> None:
    server = Server(tmp_path / "new.db")
    try:
        with TestClient(make_app(server)) as host:
            host.get(f"/h/{server.host_secret}")
            assert "A new race" in host.get("/host").text
            bad = post(host, {"action": "setup", "fields": {"cars": "Ann:red Ann:blue"}})
            assert not bad["ok"] and bad["error"].startswith("cars:")
            fields = {
                "name": "Friday",
                "track": "usa",
                "cars": "Ann:red Bob:blue legend:black",
                "mode": "private",
                "variant": "one-lap",
                "grid": "Bob Ann Legend-Black",
                "weather": True,
                "garage": "",
            }
            out = post(host, {"action": "setup", "fields": fields}, key="setup-0001")
            assert out["ok"], out
            assert server.table is not None and server.table.private
            state = server.call(lambda: server.table.session.view)  # type: ignore[union-attr]
            assert state.mode == "open" and "legends" in state.modules and weather_rules(state) is not None
            assert set(server.join_urls()) == {"Ann", "Bob"}  # a Legend has no seat
            ctl = host.get("/api/view").json()["controls"]
            assert ctl[0]["kind"] == "question" and ctl[0]["question"] == "weather"  # # 20.2: the host enters it
    finally:
        server.close()


def test_the_set_up_form_shows_every_module_switch_from_the_registry(tmp_path: Path) -> None:
    """Issue 26, build 5: the set-up form's module checkboxes are ``record --new``'s switches, from each module's
    descriptor (``Module.flags``): the example module rain is on the form with no edit of the server, and a race
    set up with it plays it."""
    from heatlog.formats.module_data import module_block

    server = Server(tmp_path / "new.db")
    try:
        with TestClient(make_app(server)) as host:
            host.get(f"/h/{server.host_secret}")
            page = host.get("/host").text
            assert 'type="checkbox" name="weather"' in page and 'type="checkbox" name="rain"' in page
            fields = {"track": "usa", "cars": "Ann:red Bob:blue", "mode": "table", "rain": True}
            out = post(host, {"action": "setup", "fields": fields}, key="setup-rain")
            assert out["ok"], out
        with RaceLog(tmp_path / "new.db", create=False) as log:
            first = log.stored(out["race"])[0].event
        assert first["modules"] == ["rain"] and first["rain"] == module_block("rain")
    finally:
        server.close()


def test_the_terminal_recorder_is_refused_while_the_server_holds_the_race(table: Any) -> None:
    from heatlog.engine import ConflictError
    from heatlog.recorder import Lease

    t = table(3, 1)
    row = t.log.store.recorder_session(t.race)
    assert row is not None and row.pid is not None  # the server holds the race's lease (one recorder per race)
    lease = Lease(t.log, t.race)
    lease.pid = os.getppid()  # as another live process on this machine (heatlog record in a terminal)
    with pytest.raises(ConflictError, match="one recorder per race"):
        lease.acquire()


def test_an_entry_added_elsewhere_reaches_the_server_without_a_fork(table: Any) -> None:
    t = table(3, 1)
    t.join()
    other = RaceLog(t.log.path)
    try:
        other.append(t.race, {"type": "note", "v": 1, "text": "from heatlog note", "round": 1})
    finally:
        other.close()
    phones = t.phones()
    assert post(t.seats["Red"], {"action": "plan", "text": plan_for(t.expected, 2, "Red")})["ok"]
    assert t.events()[-1]["type"] == "note"
    phones.play()
    got = [e for e in strip(t.events())]
    assert got == strip(t.expected)


def test_the_pages_are_whole_and_say_what_the_race_waits_for(table: Any) -> None:
    t = table(3, 1)
    t.join()
    host = t.host.get("/host").text
    assert (
        re.search(r'<svg id="circuit"', host)
        and "join codes" in t.host.get("/api/view").json()["panels"]["seats"]
        and "<svg" in t.host.get("/api/view").json()["panels"]["seats"]
    )
    view = t.host.get("/api/view").json()
    assert "Waiting for: gears and cards from" in view["panels"]["status"]
    assert t.host.get("/static/table.js").status_code == 200
    assert t.host.get("/static/../app.py").status_code == 404


def test_the_join_codes_fold_away_once_every_seat_has_a_phone(table: Any) -> None:
    """The QR codes filled the host screen's right side for the whole race: once every seat has a phone they are
    folded (a closed <details>, still a tap to open), and open again when a seat has no phone."""
    t = table(3, 1)

    def box() -> str:
        got = re.search(r"<details id=\"seats-box\"[^>]*>\s*<summary>[^<]*</summary>", seats())
        assert got is not None
        return got.group(0)

    def seats() -> str:
        return str(t.host.get("/api/view").json()["panels"]["seats"])

    t.join("Red", "Blue")
    assert " open" in box() and "every seat" not in box()  # Green still scans its code
    t.join("Green")
    assert " open" not in box() and "join codes · every seat has a phone" in box()
    assert seats().count("<svg") == 3  # folded, not gone: a phone may need to join again

    def lose_green() -> None:  # (as a seat without a phone: nothing in the server lets go of one yet)
        table_ = t.server.table
        assert table_ is not None
        table_.seats["Green"].device = None

    t.server.call(lose_green)
    assert " open" in box() and "every seat" not in box()


def test_a_plan_the_reveal_would_refuse_is_refused_when_submitted(table: Any) -> None:
    """The plan is checked by the reveal's own rule (engine check_plan) at once: before, "h" was held and only
    refused at the reveal, when the player had put the phone away. # 4.2, 13.1: Heat only from a cluttered hand."""
    t = table(3, 1)
    t.join()
    out = post(t.seats["Blue"], {"action": "plan", "text": "h"})
    assert not out["ok"] and "Blue cannot play these cards" in out["error"] and "Heat" in out["error"]
    assert "Traceback" not in out["error"]
    out = post(t.seats["Blue"], {"action": "plan", "text": "5 5"})  # one 5 in the deck (# 1.1)
    assert not out["ok"] and "cannot play" in out["error"]
    view = t.seats["Blue"].get("/api/view").json()
    assert view["controls"][0]["kind"] == "plan" and view["you"]["plan"] is None  # nothing held
    assert post(t.seats["Blue"], {"action": "plan", "text": "2 2"})["ok"]


def test_a_private_hands_plan_is_checked_against_the_seats_own_hand(table: Any) -> None:
    t, phones = into_private_race(table, 3, 0)
    while not t.server.call(lambda: t.server.table.plan_wanted("Red")):
        phones.step()
    hand = t.server.call(lambda: t.server.table.hand("Red"))
    absent = next(c for c in ("1", "2", "3", "4", "5", "0") if c not in hand)
    out = post(t.seats["Red"], {"action": "plan", "text": absent})
    assert not out["ok"] and "cannot play" in out["error"]


def test_the_end_my_turn_discard_picker_of_a_garage_race_names_the_upgrades(tmp_path: Path) -> None:
    """# 11.1, 18.2: the react screen's "discard, end my turn" is offered in a Garage race too, its buttons the
    cards' names (never an internal code like U53), and what it sends is the discard the player meant. Before,
    a Garage race had no such picker."""
    from rules.modules.garage.test_recorder import simulated as garage_race

    ev = garage_race(1, "open")
    first = ev[0]
    log = RaceLog(tmp_path / "race.db")
    race = start_race(
        log,
        track="usa",
        cars=first["cars"],
        laps=first["laps"],
        mode="open",
        grid=ev[1]["order"],
        modules={"garage": dict(first["garage"])},
    )
    for e in ev[2:43]:  # Red at React (adrenaline open); the race's next entry is its discard of 2 and U53
        log.append(race, e)
    assert ev[43] == {"type": "cards_discarded", "v": 1, "car": "Red", "cards": ["2", "U53"]}
    log.close()
    server = Server(tmp_path / "race.db")
    try:
        server.call(server.serve, race, private=True)
        app = make_app(server)
        urls = server.join_urls()
        with TestClient(app) as red:
            red.get(urls["Red"].replace(server.base_url, ""))
            view = red.get("/api/view").json()
            (ctl,) = view["controls"]
            # Red has adrenaline and no Heat can be in its hand: React is asked, the engine offering the bonus alone
            # (ac0, # 6.2: a race that took it must be recordable), and its screen carries the "discard, end my
            # turn" picker (the one-line "- d CARDS", table.js)
            # (the button in words: a page is tapped, not typed)
            assert ctl["question"] == "react" and ["adrenaline bonus alone (cools nothing)", "ac0"] in ctl["buttons"]
            labels = {tok: label for label, tok in ctl["discard"]}
            assert labels and not any(re.fullmatch(r"U\d+", label) for label in labels.values())
            garage = server.call(lambda: garage_slot(server.table.session.state).cards)
            named = [label for label in labels.values() if label.startswith(garage["U53"]["name"] + " ")]
            assert named, labels  # by its name and value, as the narration names it: two Bodies differ
            shown = json.dumps(view["panels"])  # the phone's panels, as drawn
            hand = view["panels"]["private"]  # the hand by the cards' names too, never an internal code
            assert "Your hand" in hand and garage["U53"]["name"] in hand and not re.search(r"\bU\d+\b", hand)
            assert not re.search(r"\bU\d+\b", shown)
            name_to_token = {label: tok for tok, label in labels.items()}
            picked = [name_to_token["2"], name_to_token[named[0]]]
            text = "- d " + " ".join(picked)  # as the picker sends it (table.js)
            out = post(red, {"action": "answer", "text": text})
            assert out["ok"], out
            events = server.call(lambda: [e.event for e in server.table.session.proj.effective.entries])
            assert {"type": "cards_discarded", "v": 1, "car": "Red", "cards": ["2", "U53"]} in [
                {k: v for k, v in e.items() if k != "raw"} for e in events
            ]
    finally:
        server.close()


def test_serve_without_a_race_serves_the_current_race_and_says_which(table: Any, capsys: Any) -> None:
    """Without --race the server serves what every other command defaults to (RaceLog.resolve: the most recent
    race made), not the race it served last, and its start line names it. Before, an older race served once
    stayed served after a new race was made with `heatlog new`."""
    from heatlog.serve.net import print_codes

    t = table(3, 1)  # race 1, served (the store remembers it)
    db = t.log.path
    newer = start_race(t.log, track=str(TRACK), cars=cars(3), mode="table", variant="one-lap")
    assert t.log.resolve(None) == newer != t.race
    server = Server(db)
    try:
        assert server.table is not None and server.table.race == newer
        print_codes(server)
        out = capsys.readouterr().out
        assert f"serving race {newer} (" in out and "round" in out
    finally:
        server.close()


def test_the_host_plays_a_car_whose_phone_holds_the_seat_and_the_phone_is_told(table: Any) -> None:
    """Red's player leaves the table with the seat joined: the host screen acts for Red (plan and answers, each
    naming Red), the race is the simulated one, Red's phone says what the host did, and the shared screen never
    shows Red's held plan. Before, the host was refused ("Red's phone chooses its gear and cards")."""
    t = table(3, 2)
    t.join()
    red = t.seats["Red"]
    phones = t.phones()
    phones.seats = {n: c for n, c in t.seats.items() if n != "Red"}  # Red's player is away
    acted = 0
    for _ in range(3000):
        i = phones.index()
        host = t.host.get("/api/view").json()
        away = [c for c in host["controls"] if c["kind"] == "away" and c["car"] == "Red"]
        if not away:
            if not phones.step():
                break
            continue
        ctl = away[0]
        if "gears" in ctl:
            text = plan_for(t.expected, i, "Red")
            out = post(t.host, {"action": "plan", "car": "Red", "text": text}, key=f"away-red-{acted}")
            assert out["ok"], out
            seen = json.dumps(t.host.get("/api/view").json())
            assert "held: gear" not in seen  # the shared screen never shows the phone's plan
        else:
            text = rs.answer(ctl["question"], "Red", t.expected, i, typed_chance=True, multi=False)
            refused = post(t.host, {"action": "answer", "text": text}, key=f"not-named-{acted}")
            assert not refused["ok"] and "Red's phone answers this" in refused["error"]
            out = post(t.host, {"action": "answer", "car": "Red", "text": text}, key=f"away-red-{acted}")
            assert out["ok"], out
        acted += 1
        told = red.get("/api/view").json()["you"]["told"]
        assert "the host" in told
        # in words, never the notation the host's button sent ("- y -", "- d 2")
        assert not re.search(r"(?:^|\s)-(?:\s|$)|\bd\d", told.split(": ", 1)[1]), told
    assert acted > 5 and phones.host_answers == 0
    assert strip(t.events()) == strip(t.expected)
    assert "the host" in red.get("/api/view").json()["panels"]["private"]


def test_the_discard_question_offers_no_stress_or_heat(tmp_path: Path) -> None:
    """# 11.1: a discard never takes Heat or Stress, so the discard picker offers neither (seen on the host screen
    of a Garage race: Green's two Stress were buttons of its discard)."""
    from rules.modules.garage.test_recorder import simulated as garage_race

    ev = garage_race(1, "open")
    first = ev[0]
    log = RaceLog(tmp_path / "race.db")
    race = start_race(
        log, track="usa", cars=first["cars"], laps=first["laps"], mode="open", grid=ev[1]["order"],
        modules={"garage": dict(first["garage"])},
    )  # fmt: skip
    for e in ev[2:38]:  # Green at its discard, two Stress in hand
        log.append(race, e)
    log.close()
    server = Server(tmp_path / "race.db")
    try:
        server.call(server.serve, race, private=True)
        assert "S" in server.call(lambda: server.table.hand("Green"))
        with TestClient(make_app(server)) as host:
            host.get(f"/h/{server.host_secret}")
            (ctl,) = host.get("/api/view").json()["controls"]
            assert ctl["question"] == "discard" and ctl["tokens"]
            assert not any(tok in ("s", "h") or label in ("Stress", "Heat") for label, tok in ctl["tokens"])
    finally:
        server.close()


def test_a_secret_or_cookie_with_any_character_is_refused_not_a_server_error(table: Any) -> None:
    # secrets.compare_digest raises TypeError on a non-ASCII str: a link, a cookie or a header may hold any text
    t = table(3, 1)
    anyone = TestClient(t.app, raise_server_exceptions=False)
    assert anyone.get("/h/%C3%A9t%C3%A9").status_code == 404
    assert anyone.get("/j/%C3%A9t%C3%A9").status_code == 404
    raw = "\u00e9t\u00e9".encode()  # (bytes: the client would refuse the text; the server reads latin-1)
    assert anyone.get("/host", headers={"cookie": b"hl_host=" + raw}).status_code == 403
    r = anyone.post("/api/act", headers={"cookie": b"hl_csrf=" + raw, "x-csrf-token": raw}, json={})
    assert r.status_code in (400, 403), r.status_code


# ------------------------------------------------------------------------- a page is tapped, not typed

#: The recorder's keyboard words, which no page shows (heatlog/serve/table.py: KEYBOARD, in one place).
KEYBOARD_WORDS = re.compile(r"\bEnter\b|\(y/n\)|\[Enter\]|\btip: |\bas heatlog record\b|\bCARDS\b|- = ")


def _served(tmp_path: Path, expected: list[Event], private: bool) -> tuple[Server, Any, dict[str, Any], RaceLog, int]:
    """A race on the grid of ``expected`` (a module race too), served, with a phone per car."""
    first = expected[0]
    players = [c for c in first["cars"] if not c.get("legend")]
    legends = [c for c in first["cars"] if c.get("legend")]
    modules = {
        **({"garage": dict(first["garage"])} if "garage" in first else {}),
        **({"legends": {"cars": legends}} if legends else {}),
        **({"weather": {}} if "weather" in first.get("modules", []) else {}),
    }
    log = RaceLog(tmp_path / "race.db")
    race = start_race(
        log,
        track="usa" if modules else str(TRACK),
        cars=players,
        **({"laps": first["laps"]} if modules else {"variant": "one-lap"}),  # (as simulated() and garage_race())
        mode="open" if private else "table",
        grid=expected[1]["order"],
        modules=modules or None,
    )
    server = Server(tmp_path / "race.db")
    server.call(server.serve, race, private=private)
    app = make_app(server)
    host = TestClient(app)
    host.__enter__()
    host.get(f"/h/{server.host_secret}")
    seats = {}
    for name, url in server.join_urls().items():
        seats[name] = TestClient(app)
        seats[name].get(url.replace(server.base_url, ""))
    return server, host, seats, log, race


@pytest.mark.parametrize("race_of", ["private", "garage", "weather"])
def test_no_page_shows_the_terminals_keyboard_words(tmp_path: Path, race_of: str) -> None:
    """Every question, button, line and message a phone or the host screen shows in a whole race is in a
    page's words: a reshuffle's "or Enter if unknown" is a button "order unknown", a Garage accelerate's "(y/n)"
    are buttons "yes" and "no" (they said "take the slipstream"), no typing tip, a draft's cards by their
    names (they were buttons "fwing1draft2"). Before, the private-hands phone read "…, or Enter if unknown"."""
    from rules.modules.garage.test_recorder import simulated as garage_race

    expected = {
        "private": lambda: simulated(3, 1, "open"),
        "garage": lambda: garage_race(1, "open"),
        "weather": lambda: garage_race(3, "open", weather=True, garage={"upgrades": "basic", "draft": "draft"}),
    }[race_of]()
    server, host, seats, log, race = _served(tmp_path, expected, private=True)
    shorts = {str(d["short"]) for d in (server.call(lambda: race_cards(server.table.session.state)) or {}).values()}
    try:
        phones = Phones(host, seats, log, race, expected)
        phones.typed_chance = False
        phones.end_turn = True
        shown: list[str] = []
        kinds: dict[str, list[list[str]]] = {}
        said = phones.post

        def post(client: Any, body: dict[str, Any]) -> dict[str, Any]:
            out = said(client, body)
            shown.extend(text for style, text in out.get("lines") or [] if style != "dim")  # (table.js: no dim)
            shown.append(out.get("error") or "")
            return out

        phones.post = post  # type: ignore[method-assign]
        while True:
            for client in (host, *seats.values()):
                view = client.get("/api/view").json()
                panels = {k: v for k, v in view["panels"].items() if k != "seats"}
                # (the typing help folded under the typed line speaks of typing: it is left out)
                folded = r'<details class="(?:hint )?typing">.*?</details>'
                shown.extend(re.sub(folded, "", p) for p in panels.values())
                for ctl in view.get("controls", []):
                    if ctl.get("question"):
                        kinds.setdefault(ctl["question"], []).extend(ctl.get("buttons") or [])
            if not phones.step():
                break
        assert strip([e.event for e in log.project(race).effective.entries]) == strip(expected)
        leaks = sorted(
            {m.string[max(0, m.start() - 60) : m.end() + 20] for t in shown if (m := KEYBOARD_WORDS.search(t))}
        )
        assert not leaks, leaks
        assert "order unknown" in " ".join(shown)  # a reshuffle's empty answer, as a button
        labels = [label for buttons in kinds.values() for label, _ in buttons]
        assert not [x for x in labels if x in shorts], labels  # a card by its name, never its short name
        # a slipstream's length, when the weather leaves it open (# 20.12), says what it is: never a bare "3"
        assert not [x for x, _ in kinds.get("slipstream", []) if x.isdecimal()], kinds.get("slipstream")
        if race_of == "weather":
            assert [x for x, _ in kinds["slipstream"] if re.fullmatch(r"slipstream \d spaces", x)]
            assert 'data-empty="tap them in order"' in " ".join(shown)  # the road's tokens are no cards (# 20.2)
        if race_of == "garage":
            assert {label for label, _ in kinds["accelerate"]} == {"yes", "no"}
            assert "garage" in kinds and kinds["garage"]  # the draft, on the phones, by the cards' names
    finally:
        host.__exit__(None, None, None)
        server.close()
        log.close()


def test_a_waiting_phone_says_whose_turn_it_is_and_when_it_is_next(table: Any) -> None:
    """# 5.1: the round's order. A phone whose car waits said "waiting for Red: React …" alone; it now says whose
    turn it is, that it is not this phone's, and "You are next." on the phone of the car after it (the page
    marks it), not on the others."""
    t = table(3, 1)
    t.join()
    phones = t.phones()
    while t.log.project(t.race).state.round == 1 and not t.host.get("/api/view").json()["public"]["turn"]:
        phones.step()  # the plans, then the first car's reveal (from its plan)
    order = list(t.log.project(t.race).state.order)
    turn = t.host.get("/api/view").json()["public"]["turn"]
    assert turn == order[0]
    for name in order[1:]:
        view = t.seats[name].get("/api/view").json()
        (ctl,) = view["controls"]
        assert ctl["kind"] == "wait" and ctl["text"].startswith(f"{turn}'s turn, not yours: "), ctl
        is_next = name == order[1]
        assert ("You are next." in ctl["text"]) is is_next, (name, ctl)
        assert ('class="ctl wait next"' in view["panels"]["controls"]) is is_next


def test_the_shared_screen_says_what_each_entry_just_did(table: Any) -> None:
    """The host screen (and every page's status) said only what the race waits for next: a phone's tap that
    entered something (a React, a flip, a discard) was seen on the shared screen only when the car's whole turn
    was narrated. Now "Just now:" says what the latest entries were, as the table sees them: with private
    hands a draw is a count, never the cards (# 1.7); a take-back says so."""
    t, phones = into_private_race(table, 3, 0)
    draws = 0
    for _ in range(60):
        before = t.host.get("/api/view").json()["public"]["version"]
        assert phones.step()
        pub = t.host.get("/api/view").json()
        just = pub["public"]["just"]
        if pub["public"]["version"] != before and phones.said[-1][2].split(":")[0] not in ("plan",):
            assert just, phones.said[-1]
            assert f"Just now: {'; '.join(just)}".replace("'", "&#x27;") in pub["panels"]["status"]
        for words in just:
            if " draws " in words:
                draws += 1
                assert re.fullmatch(r"\S+ draws \d+", words), words  # a count: the cards are the seat's alone
    assert draws
    (name,) = [n for n, c in t.seats.items() if c.get("/api/view").json()["you"]["last"]]  # its entry is the latest
    out = post(t.seats[name], {"action": "takeback"}, key="just-takeback")
    assert out["ok"], out  # (its answer is the latest)
    assert "a correction" in t.host.get("/api/view").json()["panels"]["status"]


def test_a_held_plan_names_its_cards_as_the_buttons_do(table: Any) -> None:
    """The phone's held plan read "held: gear 2, cards 3 s" (the recorder's tokens): its cards are named as the
    card buttons name them (Stress), on the phone, in its private panel and in the submission's answer."""
    t = table(3, 1)
    t.join()
    out = post(t.seats["Red"], {"action": "plan", "text": "3 s"})
    assert out["ok"] and "cards 3, Stress —" in out["lines"][0][1], out
    view = t.seats["Red"].get("/api/view").json()
    (ctl,) = view["controls"]
    assert ctl["kind"] == "held" and ctl["text"] == "held: gear 2, cards 3, Stress", ctl
    assert "Your plan: gear 2, 3, Stress" in view["panels"]["private"]


def test_a_finished_cars_phone_says_it_finished_while_the_others_race_on(table: Any) -> None:
    """# 16.1: a car that crossed the line has nothing more to do; its phone said "waiting for …" as if its turn
    would come. Now it says where it finished, and that the race goes on for the others."""
    t = table(3, 1)
    t.join()
    phones = t.phones()
    seen = False
    while phones.step():
        state = t.log.project(t.race).state
        if state.phase != "race" or not state.hall_of_fame:
            continue
        first = state.hall_of_fame[0]
        view = t.seats[first].get("/api/view").json()
        (ctl,) = view["controls"]
        if ctl["kind"] == "wait":
            assert ctl["text"].startswith("You finished 1st. The race goes on for the others: "), ctl
            seen = True
    assert seen
    hall = t.log.project(t.race).state.hall_of_fame  # the race over: each phone says its car's place
    for place, name in enumerate(hall, start=1):
        (ctl,) = t.seats[name].get("/api/view").json()["controls"]
        assert ctl["kind"] == "over" and ctl["text"].endswith(f"you finished {['1st', '2nd', '3rd'][place - 1]}")
    assert "The race is over: you finished 1st" in t.seats[hall[0]].get("/api/view").json()["panels"]["controls"]


def test_a_double_tap_is_not_the_answer_to_the_next_question(table: Any) -> None:
    """A phone's screen names the question it shows ("at"); an answer sent from a screen the race has moved past
    (a double tap on "done reacting", a stale page) is refused in words and enters nothing. Before, the second
    tap answered whatever came next: "done reacting" twice was also "no discard" when the discard came next, or
    was refused as "not Blue's turn" when the turn had ended."""
    t = table(3, 1)
    t.join()
    phones = t.phones()
    while True:  # until a phone is asked React
        asked = [
            (name, ctl)
            for name, c in t.seats.items()
            for ctl in c.get("/api/view").json()["controls"]
            if ctl.get("question") == "react"
        ]
        if asked:
            break
        assert phones.step()
    name, ctl = asked[0]
    seat = t.seats[name]
    assert ctl["at"] and f'data-at="{ctl["at"]}"' in seat.get("/api/view").json()["panels"]["controls"]
    first = post(seat, {"action": "answer", "text": "", "at": ctl["at"]}, key="double-tap-1")  # "done reacting"
    assert first["ok"], first
    count = len(t.events())
    after = seat.get("/api/view").json()["controls"]
    second = post(seat, {"action": "answer", "text": "", "at": ctl["at"]}, key="double-tap-2")  # the same tap again
    assert not second["ok"] and "that tap was on an earlier screen" in second["error"], second
    assert len(t.events()) == count and seat.get("/api/view").json()["controls"] == after
