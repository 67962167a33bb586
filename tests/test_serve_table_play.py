"""heatlog serve as a table plays it, in Debian's headless Chromium through Playwright: a shared screen and three
phones (390 px wide) in one browser. What a player tripped on, each found by playing: the phone's "take back my
last entry" (sized for a thumb, saying what it takes back, asking first), the plan picker's gear, a reveal asked
again in the typed line's notation, a refusal left on a phone after the race moved on; and what must hold when
two phones act at once, a phone reloads mid-turn, another phone taps out of turn, and the host undoes.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from browser import LAUNCH_ARGS, PHONE, chromium
from recorder_races import TRACK, cars, simulated
from serve_script import free_port, new_served_race, plan_for, start
from test_serve_browser import tap_answer

from heatlog.log.racelog import RaceLog
from heatlog.races import start_race
from heatlog.recorder import script as rs
from heatlog.serve.seats import ServeStore


class Tabletop:
    """A served 3-car table-mode race (the simulated race's grid), the host screen and a phone per car."""

    def __init__(self, tmp_path: Path, browser: Any, seed: int = 1, *, private: bool = False) -> None:
        self.db = tmp_path / "race.db"
        self.expected = simulated(3, seed, "table")
        self.race, host_secret, seats = new_served_race(self.db, str(TRACK), 3, self.expected)
        if private:  # a private-hands race (an open log, each phone enters its draws): a new race, not simulated
            with RaceLog(self.db) as log:
                self.race = start_race(log, track="usa", cars=cars(3), mode="open", grid=["Red", "Blue", "Green"])
            store = ServeStore(self.db)
            try:
                store.set_served_race(self.race, private=True)
                seats = {n: seat.secret for n, seat in store.seats(self.race, ["Red", "Blue", "Green"]).items()}
            finally:
                store.close()
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.proc = start(self.db, self.race, port)
        self.log = RaceLog(self.db)
        self.host = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.host.goto(f"{self.base}/h/{host_secret}")
        self.host.wait_for_selector("#seats figure")
        self.seats = seats
        self.phones: dict[str, Any] = {}
        for name, secret in seats.items():
            page = browser.new_context(**PHONE).new_page()
            page.goto(f"{self.base}/j/{secret}")
            page.wait_for_selector("#controls .ctl")
            self.phones[name] = page

    def events(self) -> list[dict[str, Any]]:
        return [e.event for e in self.log.project(self.race).effective.entries]

    def version(self) -> str:
        return str(self.host.evaluate("document.documentElement.dataset.version"))

    def newer(self, version: str) -> None:
        self.host.wait_for_function("v => document.documentElement.dataset.version !== v", arg=version, timeout=15000)

    def plan(self, name: str) -> None:
        """``name``'s phone taps the cards of its next plan and sends them."""
        page = self.phones[name]
        version = self.version()
        cards = plan_for(self.expected, len(self.events()), name).split()
        for tok in cards:
            page.locator(f'.ctl.plan .cardbtn[data-token="{tok}"]').first.click()
        # the number of cards is the gear (# 4.1): the picker says which gear the tapped cards make
        assert page.locator(".ctl.plan .chosen").inner_text().endswith(f"→ gear {len(cards)}")
        page.locator(".ctl.plan .send").click()
        self.newer(version)

    def close(self) -> None:
        self.log.close()
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture
def tabletop(tmp_path: Path) -> Any:
    sync_api = pytest.importorskip("playwright.sync_api")
    exe = chromium()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=LAUNCH_ARGS)
        made: list[Tabletop] = []

        def make(seed: int = 1, *, private: bool = False) -> Tabletop:
            folder = tmp_path / f"t{len(made)}"
            folder.mkdir()
            made.append(Tabletop(folder, browser, seed, private=private))
            return made[-1]

        try:
            yield make
        finally:
            for t in made:
                t.close()
            browser.close()


def test_take_back_my_last_entry_is_a_thumb_sized_button_that_says_what_and_asks_first(tabletop: Any) -> None:
    """The phone's "take back my last entry" was an unstyled button shown always (refused when another car had
    answered since): now it is shown only on the phone whose car's entry is the latest, as wide as the phone's
    controls and 44 px tall at least, says what it takes back, and asks before it does: "no, keep it" keeps it,
    "yes, take it back" is the recorder's undo (a retracted event) and the phone is asked again."""
    t = tabletop()
    for name in t.phones:
        t.plan(name)
    first = t.log.project(t.race).state.order[0]  # its cards were revealed from its plan (# 5.1): its React now
    mine = t.phones[first]
    mine.wait_for_selector(".ctl.question")
    button = mine.locator("#private .ask-takeback")
    button.wait_for()
    box = button.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 300, box
    words = mine.locator("#private .undo-mine").inner_text()
    assert "yours:" in words and f"{first} reveals" in words, words
    for name, page in t.phones.items():  # nobody else's phone offers it (it would be refused)
        if name != first:
            page.wait_for_selector(".ctl.wait")
            assert page.locator("#private .ask-takeback").count() == 0, name
    count = len(t.events())
    button.click()  # asks first: nothing is taken back yet
    mine.wait_for_selector("#private .confirm:not([hidden])")
    assert "Take back your last entry?" in mine.locator("#private .confirm").inner_text()
    assert not button.is_visible()
    mine.locator("#private .confirm .keep").click()
    assert button.is_visible() and not mine.locator("#private .confirm").is_visible()
    mine.wait_for_timeout(300)
    assert len(t.events()) == count
    button.click()
    version = t.version()
    mine.locator("#private .confirm .takeback").click()
    t.newer(version)
    mine.wait_for_selector('.ctl.question[data-question="reveal"]')  # asked again: the cards it reveals
    # in a phone's words: the reveal's typed-line notation ("(+ Stress flips, React, d CARDS; - = nothing more)")
    # is no question for a tap
    heading = mine.locator(".ctl.question h3").inner_text()
    assert heading.startswith(f"{first} reveals") and "CARDS" not in heading and "- =" not in heading, heading
    assert any(s.event["type"] == "retracted" for s in t.log.stored(t.race))
    assert mine.locator("#private .ask-takeback").count() == 0  # nothing of its own is the latest now


def test_two_phones_at_once_a_reload_a_wrong_tap_a_refusal_and_the_hosts_undo(tabletop: Any) -> None:
    """A round as a table plays it: two phones send their plans in the same instant (both held, the shared
    screen says both are ready); the car to act reloads its page mid-turn (the same question is back); another
    phone's tap is refused in words naming whose turn it is; a refused entry is said on the phone, on its
    screen, and nothing is written; the host undoes the latest entry with a reason: the phone is asked again, and
    the refusal, about a screen that is gone, is gone too (before, it stayed on the phone after the undo)."""
    t = tabletop()
    a, b, c = list(t.phones)
    for name in (a, b):
        for tok in plan_for(t.expected, len(t.events()), name).split():
            t.phones[name].locator(f'.ctl.plan .cardbtn[data-token="{tok}"]').first.click()
    t.phones[a].locator(".ctl.plan .send").click(no_wait_after=True)  # the same instant: neither waits
    t.phones[b].locator(".ctl.plan .send").click(no_wait_after=True)
    for name in (a, b):
        t.phones[name].wait_for_selector(".ctl.held")
    t.host.wait_for_function(
        "() => /\\(.*ready\\)/.test(document.querySelector('#status .waits').textContent)", timeout=15000
    )
    ready = t.host.locator("#status .waits").inner_text()
    assert a in ready.split("(")[1] and b in ready.split("(")[1], ready
    t.plan(c)
    first = t.log.project(t.race).state.order[0]
    turn = t.phones[first]
    turn.wait_for_selector(".ctl.question")
    question = turn.locator(".ctl.question h3").inner_text()
    turn.reload()  # mid-turn: the seat's cookie brings the same screen back
    turn.wait_for_selector(".ctl.question")
    assert turn.locator(".ctl.question h3").inner_text() == question
    other = next(n for n in t.phones if n != first)
    wrong = t.phones[other].evaluate(
        """() => fetch('/api/act', {method: 'POST', headers: {'Content-Type': 'application/json',
             'X-CSRF-Token': document.querySelector('meta[name=csrf]').content},
             body: JSON.stringify({action: 'answer', text: '- -', key: 'a-wrong-tap'})}).then(r => r.json())"""
    )
    assert not wrong["ok"] and wrong["error"].startswith(f"not {other}'s turn: the race waits for {first}"), wrong
    count = len(t.events())
    turn.locator(".ctl.question details.typing summary").click()
    turn.locator(".ctl.question form.typed input").fill("9 9 9")
    turn.locator(".ctl.question form.typed input").press("Enter")
    turn.wait_for_selector("#message.error")
    box = turn.locator("#message").bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844  # on the phone's screen
    assert len(t.events()) == count
    t.host.locator("summary", has_text="corrections and notes").click()
    t.host.locator("#undo input[name=reason]").fill("the wrong card")
    version = t.version()
    t.host.locator("#undo button").click()
    t.newer(version)
    turn.wait_for_selector('.ctl.question[data-question="reveal"]')  # its cards again (the reveal was undone)
    turn.wait_for_selector("#status .just")
    assert "a correction" in turn.locator("#status .just").inner_text()
    assert turn.locator("#message.error").count() == 0, turn.locator("#message").inner_text()
    # a message covers the bottom of a phone's screen: a tap puts it away
    turn.locator(".ctl.question details.typing summary").click()
    turn.locator(".ctl.question form.typed input").fill("9 9 9")
    turn.locator(".ctl.question form.typed input").press("Enter")
    turn.wait_for_selector("#message.error")
    turn.locator("#message").click()
    assert not turn.locator("#message").is_visible()


def test_a_phone_is_told_when_the_host_serves_another_race(tabletop: Any) -> None:
    """The host sets up the next race while the phones still show the last one: each phone is told that the
    host now serves another race and to scan its car's new code. Before, it read "another phone took this seat
    over: open the join link again", and the old link opens nothing."""
    t = tabletop()
    phone = t.phones["Red"]
    setup = t.host.evaluate(
        """() => fetch('/api/act', {method: 'POST', headers: {'Content-Type': 'application/json',
             'X-CSRF-Token': document.querySelector('meta[name=csrf]').content},
             body: JSON.stringify({action: 'setup', key: 'the-next-race',
                                   fields: {track: 'usa', cars: 'Ann:red Bob:blue', mode: 'table'}})})
             .then(r => r.json())"""
    )
    assert setup["ok"], setup
    phone.wait_for_selector("#message.error", timeout=15000)
    said = phone.locator("#message").inner_text()
    assert f"the host now serves race {setup['race']}" in said and "new code" in said, said
    assert "took this seat over" not in said


def test_a_draw_of_seven_takes_back_one_tap_and_no_tap_too_many(tabletop: Any) -> None:
    """A private-hands phone enters a draw of 7 from the physical cards (docs/table.md) in one picker: a wrong
    tap meant "clear" and all seven again, and an eighth tap made "8 of 7", refused only at "send". Now "⌫ last"
    takes back the last tap, and a tap past the count is not taken (the phone says so)."""
    t = tabletop(private=True)
    phone = t.phones["Red"]
    version = t.version()
    phone.locator(".ctl.question button.answer.primary", has_text="order unknown").click()  # its starting shuffle
    t.newer(version)
    phone.wait_for_selector('.ctl.question[data-question="setup_draw"] .picker[data-count="7"]')
    picker = phone.locator(".ctl.question .picker")
    for tok in ["1", "2", "3", "4", "4", "3", "2"]:
        picker.locator(f'.cardbtn[data-token="{tok}"]').first.click()
    assert picker.locator(".chosen").inner_text() == "1 2 3 4 4 3 2 (7 of 7)"
    picker.locator('.cardbtn[data-token="1"]').first.click()  # one too many: not taken
    assert picker.locator(".chosen").inner_text() == "1 2 3 4 4 3 2 (7 of 7)"
    assert "7 cards chosen already" in phone.locator("#message").inner_text()
    picker.locator(".unpick").click()
    assert picker.locator(".chosen").inner_text() == "1 2 3 4 4 3 (6 of 7)"
    box = picker.locator(".unpick").bounding_box()
    assert box is not None and box["height"] >= 44
    picker.locator('.cardbtn[data-token="s"]').first.click()
    version = t.version()
    picker.locator(".send").click()
    t.newer(version)
    phone.wait_for_selector("#private .hand")
    assert "Your hand: 1 2 3 3 4 4 Stress" in phone.locator("#private .hand").inner_text()


def test_taps_left_on_a_picker_go_when_the_host_acts_for_the_phone(tabletop: Any) -> None:
    """Red's player tapped a card of the plan, then left; the host entered Red's plan ("away", docs/table.md).
    When Red's phone changes that plan, its picker starts empty: before, the old tap came back ("1 → gear 1"),
    and a tap more would have sent cards the player did not mean."""
    t = tabletop()
    phone = t.phones["Red"]
    phone.locator('.ctl.plan .cardbtn[data-token="1"]').first.click()
    assert "1 → gear 1" in phone.locator(".ctl.plan .chosen").inner_text()
    text = plan_for(t.expected, len(t.events()), "Red")
    version = t.version()
    out = t.host.evaluate(
        """text => fetch('/api/act', {method: 'POST', headers: {'Content-Type': 'application/json',
             'X-CSRF-Token': document.querySelector('meta[name=csrf]').content},
             body: JSON.stringify({action: 'plan', car: 'Red', text: text, key: 'host-for-red'})})
             .then(r => r.json())""",
        text,
    )
    assert out["ok"], out
    t.newer(version)
    phone.wait_for_selector(".ctl.held")
    phone.locator(".ctl.held button.takeback").click()  # "change"
    phone.wait_for_selector(".ctl.plan")
    assert phone.locator(".ctl.plan .chosen").inner_text() == "tap the cards you play"


def test_a_double_tap_enters_one_answer(tabletop: Any) -> None:
    """A double tap on "done reacting" is one answer: the second tap, sent from the same screen, is refused as
    from an earlier screen (tests/test_serve.py: it answered the next question before); the refusal leaves the
    phone with the screen it was about."""
    t = tabletop()
    for name in t.phones:
        t.plan(name)
    first = t.log.project(t.race).state.order[0]
    phone = t.phones[first]
    phone.wait_for_selector(".ctl.question")
    while phone.locator(".ctl.question").get_attribute("data-question") != "react":  # (its flips first)
        kind = phone.locator(".ctl.question").get_attribute("data-question") or ""
        tap_answer(phone, rs.answer(kind, first, t.expected, len(t.events()), multi=False), t.version(), t.host)
        phone.wait_for_selector(".ctl.question")
    answers: list[dict[str, Any]] = []
    phone.on("response", lambda r: answers.append(r.json()) if r.url.endswith("/api/act") else None)
    phone.locator('.ctl.question[data-question="react"] button.answer.primary').dblclick()
    phone.wait_for_timeout(300)
    for _ in range(100):
        if len(answers) >= 2:
            break
        phone.wait_for_timeout(100)
    assert [a["ok"] for a in answers] == [True, False], answers
    assert "that tap was on an earlier screen" in answers[1]["error"]


def test_a_reload_keeps_the_cards_tapped_on_the_question_and_a_new_question_starts_empty(tabletop: Any) -> None:
    """A phone that reloads mid-plan (a player's thumb, a dropped page) lost the cards it had tapped: they are kept
    in the tab's sessionStorage with the question they were made on, put back on load, and never carried to
    another question (docs/table.md)."""
    t = tabletop()
    phone = t.phones["Red"]
    cards = plan_for(t.expected, len(t.events()), "Red").split()
    for tok in cards:
        phone.locator(f'.ctl.plan .cardbtn[data-token="{tok}"]').first.click()
    chosen = phone.locator(".ctl.plan .chosen").inner_text()
    assert chosen.endswith(f"→ gear {len(cards)}")
    phone.reload()
    phone.wait_for_selector(f'.ctl.plan .picker[data-chosen="{" ".join(cards)}"]', timeout=15000)
    assert phone.locator(".ctl.plan .chosen").inner_text() == chosen
    version = t.version()
    phone.locator(".ctl.plan .send").click()
    t.newer(version)
    phone.wait_for_selector(".ctl.held")
    phone.locator(".ctl.held button.takeback").click()  # "change": the plan is asked again, from no tap
    phone.wait_for_selector(".ctl.plan")
    assert phone.locator(".ctl.plan .chosen").inner_text() == "tap the cards you play"
    phone.reload()
    phone.wait_for_selector(".ctl.plan .picker[data-chosen]")
    assert phone.locator(".ctl.plan .chosen").inner_text() == "tap the cards you play"
    assert phone.evaluate("window.sessionStorage.length") == 0
