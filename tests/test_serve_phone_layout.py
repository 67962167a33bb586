"""heatlog serve's pages on a phone's screen (Debian's headless Chromium through Playwright): a car's name is one
word of up to 40 characters (defs.schema.json's ``car``), and such a name must not widen a phone's page past its
screen — a wider page is zoomed out, and the message of a refused entry (fixed at the bottom of the page) is then
below the fold, where the player does not see it.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
from browser import LAUNCH_ARGS, PHONE, chromium
from serve_script import free_port, start

from heatlog.log.racelog import RaceLog
from heatlog.races import start_race
from heatlog.serve.seats import ServeStore

LONG = "Maximiliana" + "x" * 29  # 40 characters, one word: the longest name a car may have


def test_a_long_name_does_not_widen_the_phone_pages(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    exe = chromium()
    db = tmp_path / "race.db"
    cars = [{"name": "Ann", "colour": "red"}, {"name": LONG, "colour": "blue"}, {"name": "Cy", "colour": "green"}]
    with RaceLog(db) as log:
        race = start_race(log, track="usa", cars=cars, mode="table", grid=["Ann", LONG, "Cy"])
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
            width = "document.documentElement.scrollWidth"
            assert phone.evaluate(width) <= 390  # the status panel names every car the round waits for
            phone.locator("summary", has_text="the board").click()
            phone.wait_for_selector("#cars table")
            assert phone.evaluate(width) <= 390  # the cars' table scrolls inside its panel
            # a refused plan (# 3.1: gear 1 may not shift to 4): its message is on the screen, not below it
            for _ in range(4):
                phone.locator('.ctl.plan .cardbtn[data-token="4"]').first.click()
            phone.locator(".ctl.plan .send").click()
            phone.wait_for_selector("#message.error")
            assert "may shift to 1, 2, 3" in phone.locator("#message").inner_text()
            box = phone.locator("#message").bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
            assert box["y"] + box["height"] <= 844
            watcher = browser.new_context(**PHONE).new_page()
            watcher.goto(f"{base}/watch")
            watcher.wait_for_selector("html[data-version]")
            assert watcher.evaluate(width) <= 390  # the spectators' board on a phone
            browser.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
