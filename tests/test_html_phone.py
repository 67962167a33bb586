"""The HTML replay and review pages on a phone's screen (390 px, headless Chromium through Playwright): nothing
widens the page past the screen — the round controls wrap (before: « grid, prev, the slider, next, last and a
130 px round label in one row made the page 550 px wide, ``last »`` off the screen), and the review's table
scrolls inside its card."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from heatlog.review import decision_points, review_race
from heatlog.views.replay import build_replay
from heatlog.views.review_html import write_review_html
from tests.browser import LAUNCH_ARGS, PHONE, chromium
from tests.test_review import SMALL, race

REPLAY = Path(__file__).resolve().parent.parent / "replays" / "usa-garage-4cars.jsonl"


def heatlog(*args: str) -> None:
    r = subprocess.run([sys.executable, "-m", "heatlog.cli", *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


def test_the_replay_and_review_pages_fit_a_phone(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    exe = chromium()
    db = str(tmp_path / "r.db")
    heatlog("import", str(REPLAY), "--db", db)
    heatlog("replay", "--html", str(tmp_path / "replay.html"), "--db", db)
    events = race()
    gear = next(p for p in decision_points(events, "Red") if p.round == 2 and p.kind == "gear")
    review = review_race(events, ["Red"], settings=SMALL, only=lambda p: p.index == gear.index)
    review_page = write_review_html(build_replay(events), review, tmp_path / "review.html")
    width = "document.documentElement.scrollWidth"
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=LAUNCH_ARGS)
        page = browser.new_context(**PHONE).new_page()
        page.goto((tmp_path / "replay.html").as_uri())
        page.wait_for_selector("#round-label")
        assert page.evaluate(width) <= 390
        last = page.locator("#last").bounding_box()
        assert last is not None and last["x"] + last["width"] <= 390  # every round control is on the screen
        page.click("#last")
        assert page.inner_text("#round-label").startswith("Round 38 ")
        page.goto(review_page.as_uri())
        page.wait_for_selector('#review[data-ready="true"]')
        assert page.evaluate(width) <= 390
        browser.close()


def test_the_season_page_fits_a_phone(tmp_path: Path) -> None:
    """The season's races table (circuit, event card, winner, recorded, replay link) scrolls inside its card: it
    made a 390 px phone's page 402 px wide."""
    sync_api = pytest.importorskip("playwright.sync_api")
    exe = chromium()
    db = str(tmp_path / "s.db")
    cars = ["--car", "Ann:red", "--car", "Bob:blue", "--car", "Cy:green"]
    heatlog("season", "new", "--published", "1961", *cars, "--db", db)
    heatlog("season", "result", "1", "--places", "Bob,Ann,Cy", "--db", db)
    heatlog("season", "next", "1", "--db", db)
    heatlog("season", "show", "1", "--html", str(tmp_path / "season.html"), "--db", db)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=LAUNCH_ARGS)
        page = browser.new_context(**PHONE).new_page()
        page.goto((tmp_path / "season.html").as_uri())
        page.wait_for_selector("#races")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        browser.close()
