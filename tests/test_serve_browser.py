"""heatlog serve in a real browser: Debian's headless Chromium driven by Playwright for Python (its own browser
download is never used: ``executable_path``). A host page and three phone pages (a phone's viewport) record a
whole short race by tapping what the pages show; the log is the race they followed, and the host screen followed
every entry live (server-sent events). Kept to one test: the rest is tested through the ASGI client.

With HEATLOG_SCREENSHOTS=DIR the test also saves the screens of docs/table.md there.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from browser import LAUNCH_ARGS, PHONE, chromium
from recorder_races import TRACK, simulated, strip
from serve_script import Phones, free_port, new_served_race, plan_for, start

from heatlog.log.racelog import RaceLog
from heatlog.recorder import script as rs


def sync_api_error() -> type[Exception]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    return PlaywrightTimeout


def tap_answer(page: Any, text: str, version: str, host: Any) -> None:
    """Answer the page's open question as a player would: card buttons, an answer button, or the typed line."""
    sec = page.locator(".ctl.question")
    picker = sec.locator(".picker:not([data-prefix])")
    if text.startswith("- d") and sec.locator(".picker[data-prefix]").count():  # end my turn, discarding
        for tok in text[3:]:
            sec.locator(f'.picker[data-prefix] .cardbtn[data-token="{tok}"]').first.click()
        sec.locator(".picker[data-prefix] .send").click()
    elif sec.locator(f'button.answer[data-text="{text}"]').count():
        sec.locator(f'button.answer[data-text="{text}"]').first.click()
    elif picker.count():
        sends_itself = picker.get_attribute("data-count") == "1"  # (read first: the tap replaces the panel)
        for tok in text.split():
            picker.locator(f'.cardbtn[data-token="{tok}"]').first.click()
        if not sends_itself:
            picker.locator(".send").click()
    else:
        if sec.locator("details.typing:not([open]) form.typed").count():  # a phone folds the typed line away
            sec.locator("details.typing summary").click()
        sec.locator("form.typed input").fill(text)
        sec.locator("form.typed input").press("Enter")
    wait_for_update(host, version, page)


def wait_for_update(host: Any, version: str, page: Any = None) -> None:
    """Until the host screen shows a newer state (its event stream), naming the phone's message if it never does."""
    try:
        host.wait_for_function("v => document.documentElement.dataset.version !== v", arg=version, timeout=15000)
    except sync_api_error() as err:
        said = page.locator("#message").inner_text() if page is not None else ""
        raise AssertionError(f"the host screen was not updated; the phone said: {said!r}") from err


def test_a_host_screen_and_three_phones_record_a_race(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    exe = chromium()
    shots = os.environ.get("HEATLOG_SCREENSHOTS")
    db = tmp_path / "race.db"
    expected = simulated(3, 1, "table")
    race, host_secret, seat_secrets = new_served_race(db, str(TRACK), 3, expected)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start(db, race, port)
    log = RaceLog(db)
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, args=LAUNCH_ARGS)
            host = browser.new_page(viewport={"width": 1400, "height": 1000})
            host.goto(f"{base}/h/{host_secret}")
            host.wait_for_selector("#seats figure")
            phones: dict[str, Any] = {}
            for name, secret in seat_secrets.items():
                page = browser.new_context(**PHONE).new_page()
                page.goto(f"{base}/j/{secret}")
                page.wait_for_selector(".ctl.plan")
                phones[name] = page
            # a second phone on Red's seat takes it over; the first is told at once (its stream), then takes it back
            thief = browser.new_context(**PHONE).new_page()
            thief.goto(f"{base}/j/{seat_secrets['Red']}")
            phones["Red"].wait_for_selector("html[data-taken='true']", timeout=15000)
            assert "took this seat over" in phones["Red"].locator("#message").inner_text()
            phones["Red"].goto(f"{base}/j/{seat_secrets['Red']}")
            phones["Red"].wait_for_selector(".ctl.plan")
            thief.context.close()

            script = Phones(None, {}, log, race, expected)
            steps = 0
            shot_done: set[str] = set()
            while steps < 400:
                steps += 1
                i = len(strip([e.event for e in log.project(race).effective.entries]))
                version = host.evaluate("document.documentElement.dataset.version")
                for page in phones.values():  # a phone's screen of the race before the last tap is not read
                    page.wait_for_function(
                        "v => Number(document.documentElement.dataset.version) >= v", arg=int(version), timeout=15000
                    )
                acted = False
                for name, page in phones.items():
                    if page.locator(".ctl.plan").count():
                        if shots and "phone-plan" not in shot_done and log.project(race).state.round >= 2:
                            page.screenshot(path=f"{shots}/phone-plan.png")
                            shot_done.add("phone-plan")
                        for tok in plan_for(expected, i, name).split():
                            page.locator(f'.ctl.plan .cardbtn[data-token="{tok}"]').first.click()
                        page.locator(".ctl.plan .send").click()
                        wait_for_update(host, version)
                        page.wait_for_selector(".ctl.held, .ctl.question, .ctl.wait")
                        acted = True
                        break
                    sec = page.locator(".ctl.question")
                    if sec.count():
                        kind = sec.get_attribute("data-question") or ""
                        later = shots and log.project(race).state.round >= 3  # a board with some narration
                        if later and kind == "react" and "phone-react" not in shot_done:
                            page.screenshot(path=f"{shots}/phone-react.png")
                            host.screenshot(path=f"{shots}/host.png", full_page=True)
                            shot_done.add("phone-react")
                        text = rs.answer(kind, name, expected, i, typed_chance=True, multi=False)
                        if kind in ("react", "slipstream") and text in ("", "n", "y"):
                            text = script.ending(name, i, text)  # the "end my turn" buttons
                        tap_answer(page, text, version, host)
                        acted = True
                        break
                if not acted:
                    if host.locator(".waits.over").count():
                        break
                    host.wait_for_timeout(100)  # the phones' streams bring their next screen
            assert host.locator(".waits.over").count() == 1
            if shots:
                watcher = browser.new_page(viewport={"width": 1400, "height": 900})
                watcher.goto(f"{base}/watch")
                watcher.wait_for_selector("html[data-version]")
                watcher.screenshot(path=f"{shots}/watch.png", full_page=True)
            browser.close()
        assert strip([e.event for e in log.project(race).effective.entries]) == strip(expected)
    finally:
        log.close()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
