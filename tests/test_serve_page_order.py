"""heatlog serve's phone page when its updates come out of order (Debian's headless Chromium through Playwright).

A phone's page is updated by its event stream and, after each submission, by one fetch of ``/api/view``. On a slow
phone or a loaded table server that fetch's answer can land after a newer stream message: put in place, it would
show a screen already answered again (a plan already sent, a question already answered), its buttons under the
player's finger until the next change, and a tap on them refused. The page keeps the later screen.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from browser import LAUNCH_ARGS, PHONE, chromium
from serve_script import free_port, start

from heatlog.log.racelog import RaceLog
from heatlog.races import start_race
from heatlog.serve.seats import ServeStore


def test_a_late_refresh_does_not_put_back_a_screen_already_answered(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    exe = chromium()
    db = tmp_path / "race.db"
    cars = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}, {"name": "Cy", "colour": "green"}]
    with RaceLog(db) as log:
        race = start_race(log, track="usa", cars=cars, mode="table", grid=["Ann", "Bob", "Cy"])
    store = ServeStore(db)
    try:
        seats = {name: seat.secret for name, seat in store.seats(race, [c["name"] for c in cars]).items()}
    finally:
        store.close()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start(db, race, port)
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, args=LAUNCH_ARGS)
            phone = browser.new_context(**PHONE).new_page()
            phone.goto(f"{base}/j/{seats['Ann']}")
            phone.wait_for_selector(".ctl.plan")
            before = phone.evaluate("fetch('/api/view').then(r => r.text())")  # the plan screen, as it was
            phone.locator('.ctl.plan .cardbtn[data-token="1"]').first.click()  # gear 1, one card (# 4.1)
            phone.locator(".ctl.plan .send").click()
            phone.wait_for_selector(".ctl.held")
            shown = phone.evaluate("document.documentElement.dataset.version")
            # the next refresh's answer is the one made before the plan (rendered before it, landing after it)
            served: list[Any] = []

            def late(route: Any) -> None:
                served.append(route.request.url)
                route.fulfill(status=200, content_type="application/json", body=before)

            phone.route("**/api/view", late)
            # any submission refreshes the page: one the server refuses (Ann has no question open) writes nothing
            phone.evaluate(
                "document.getElementById('private').insertAdjacentHTML('beforeend',"
                ' \'<button type="button" class="answer" data-text="zz" data-car="Ann">x</button>\')'
            )
            phone.locator("#private button.answer").click()
            phone.wait_for_selector("#message.error")
            for _ in range(100):  # the refresh after the refusal (its answer: the old screen)
                if served:
                    break
                phone.wait_for_timeout(100)
            assert served, "the refused submission did not refresh the page"
            phone.evaluate("new Promise(r => setTimeout(r, 300))")  # the late answer's json parsed and handled
            assert phone.locator(".ctl.held").count() == 1
            assert phone.locator(".ctl.plan").count() == 0
            assert phone.evaluate("document.documentElement.dataset.version") == shown
            browser.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
