"""The HTML replay: self-contained, and in headless Chromium the script runs without errors, the slider (and
the keys) put the cars on the engine's spots for the round, the charts have one line per car, and a
screenshot is a real picture."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import browser
import pytest
from replay_cases import open_replay, race_events

from heatlog.engine import RaceState
from heatlog.engine import replay as fold
from heatlog.engine.redact import open_to_table
from heatlog.views.replay import build_replay
from heatlog.views.replay_html import render_html

EVENTS = race_events()


class Elements(HTMLParser):
    """Every start tag with its attributes, in document order."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, {k: v or "" for k, v in attrs}))

    def having(self, tag: str, cls: str) -> list[dict[str, str]]:
        return [a for t, a in self.found if t == tag and cls in a.get("class", "").split()]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("html") / "race.html"
    path.write_text(render_html(open_replay(EVENTS)), encoding="utf-8")
    return path


def end_of_round(n: int) -> RaceState:
    """The engine's state at the end of round ``n``: fold the log until round n+1 starts (or it ends)."""
    from heatlog.engine import apply

    state = None
    for ev in EVENTS:
        state = apply(state, ev, atomic=False)
        if state.round > n or state.phase == "over":
            break
    assert state is not None
    return state


# ---------------------------------------------------------------------------------------------- without a browser


def test_19_10_the_heat_chart_has_no_line_for_a_legend() -> None:
    """A Legend has no Engine and no Heat (# 19.1, 19.10): the Heat chart drew it as a line at 0, an empty
    Engine, and named it in its key; the lap chart keeps every car."""
    sample = Path(__file__).resolve().parents[1] / "replays" / "gb-solo-legends.jsonl"
    events = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines() if line.strip()]
    rp = build_replay(events, race=1)
    legends = {n for n, c in rp.final.cars.items() if c.legend}
    assert legends and legends != set(rp.cars)
    page = render_html(rp)
    els = Elements(page)
    lines = {
        chart: {a["data-car"] for a in els.having("polyline", "series") if a["data-chart"] == chart}
        for chart in ("lap", "heat")
    }
    assert lines["lap"] == set(rp.cars) and lines["heat"] == set(rp.cars) - legends
    dots = {a["data-car"] for a in els.having("circle", "dot") if a["data-chart"] == "heat"}
    assert dots == set(rp.cars) - legends
    heat_card = page[page.index("<h3>Heat chart") : page.index('id="heat-chart"')]
    assert all(f'data-car="{n}"' not in heat_card for n in legends)


def test_page_is_self_contained(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"(src|href)\s*=", text), "the page loads nothing"
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in text
    assert "<link" not in text and "@import" not in text
    data = json.loads(re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', text, re.S)[1])
    rp = open_replay(EVENTS)
    assert [r["n"] for r in data["rounds"]] == list(range(0, rp.last + 1))


def test_circuit_has_every_spot_corner_and_the_race_line(page: Path) -> None:
    els = Elements(page.read_text(encoding="utf-8"))
    track = open_replay(EVENTS).track
    spots = els.having("path", "spot")
    assert {(int(a["data-space"]), int(a["data-lane"])) for a in spots} == {
        (s, lane) for s in range(1, track.spaces + 1) for lane in (1, 2)
    }
    race = {(int(a["data-space"]), int(a["data-lane"])) for a in spots if "race" in a["class"].split()}
    assert race == {(s, track.race_lane(s)) for s in range(1, track.spaces + 1)}
    corners = els.having("g", "corner")
    assert [(int(a["data-after-space"]), int(a["data-limit"])) for a in corners] == [
        (c.after_space, c.limit) for c in track.corners
    ]
    sectors = els.having("path", "race-line")
    assert len(sectors) == len({c.after_space for c in track.corners} | {track.spaces})
    assert {a["data-car"] for a in els.having("g", "car")} == {"Ann", "Bob", "Ben"}


def test_table_mode_page_hides_hands() -> None:
    text = render_html(build_replay(open_to_table(EVENTS)))
    data = json.loads(re.search(r'id="replay-data">(.*?)</script>', text, re.S)[1])
    cars = data["rounds"][3]["cars"]
    assert all(c["cards"] is None and c["hand"].endswith("?") for c in cars.values())
    assert "hands are hidden" in text
    assert not any(re.search(r"draws \d+ \(", t["text"]) for r in data["rounds"] for t in r["turns"])


# ---------------------------------------------------------------------------------------------- in Chromium


def dom(page: Path, fragment: str) -> Elements:
    return Elements(browser.dump_dom(page.as_uri() + fragment))


def root(els: Elements) -> dict[str, str]:
    return next(a for t, a in els.found if t == "html")


def body(els: Elements) -> dict[str, str]:
    return next(a for t, a in els.found if t == "body")


def test_page_runs_without_errors(page: Path) -> None:
    els = dom(page, "")
    assert root(els)["data-errors"] == ""
    assert root(els)["data-ready"] == "true"
    assert body(els)["data-round"] == "1"  # opens on round 1
    assert [a["data-car"] for a in els.having("li", "turn")] == [t.car for t in open_replay(EVENTS).round(1).turns]
    rows = [a for t, a in els.found if t == "tr" and "data-car" in a]
    assert {r["data-car"] for r in rows} == {"Ann", "Bob", "Ben"}


@pytest.mark.parametrize("n", [0, 1, 4, 8, "last"])
def test_slider_puts_the_cars_on_the_engines_spots(page: Path, n: int | str) -> None:
    rp = open_replay(EVENTS)
    n = rp.last if n == "last" else int(n)
    els = dom(page, f"#round={n}")
    assert root(els)["data-errors"] == "", root(els)["data-errors"]
    assert body(els)["data-round"] == str(n)
    state = rp.grid if n == 0 else end_of_round(n)
    markers = {a["data-car"]: a for a in els.having("g", "car")}
    assert set(markers) == set(state.cars)
    for name, car in state.cars.items():
        m = markers[name]
        if name in state.hall_of_fame:
            assert m["data-finished"] == "true", name
        else:
            assert m["data-finished"] == "false", name
            assert (int(m["data-space"]), int(m["data-lane"])) == (state.track.space_of(car.progress), car.lane)
            assert int(m["data-progress"]) == car.progress
            assert state.spots[(int(m["data-space"]), int(m["data-lane"]))] == name
        assert m["transform"].startswith("translate(")
    turns = [a["data-car"] for a in els.having("li", "turn")]
    assert turns == ([] if n == 0 else [t.car for t in rp.round(n).turns])


def test_keys_move_between_rounds(page: Path) -> None:
    assert body(dom(page, "#round=3&press=ArrowRight,ArrowRight"))["data-round"] == "5"
    assert body(dom(page, "#round=3&press=ArrowLeft"))["data-round"] == "2"
    assert body(dom(page, "#round=3&press=End"))["data-round"] == str(open_replay(EVENTS).last)
    assert body(dom(page, "#round=3&press=Home"))["data-round"] == "0"


def test_charts_have_one_line_per_car(page: Path) -> None:
    els = dom(page, "#round=2")
    rp = open_replay(EVENTS)
    for chart in ("lap", "heat"):
        lines = [a for a in els.having("polyline", "series") if a["data-chart"] == chart]
        assert sorted(a["data-car"] for a in lines) == sorted(rp.cars)
        for a in lines:
            assert len(a["points"].split()) == rp.last + 1  # the grid and every round
    # the lap chart's last points are in finishing order, top to bottom
    lap = {a["data-car"]: a for a in els.having("polyline", "series") if a["data-chart"] == "lap"}
    last_y = {name: float(a["points"].split()[-1].split(",")[1]) for name, a in lap.items()}
    assert sorted(last_y, key=last_y.__getitem__) == fold(EVENTS).hall_of_fame


def test_screenshot_is_a_picture(page: Path, tmp_path: Path) -> None:
    png = browser.screenshot(page.as_uri() + "#round=4", tmp_path / "replay.png", 1280, 1200)
    width, height, _ = browser.png_pixels(png)
    assert (width, height) == (1280, 1200)
    assert browser.colour_count(png) > 200  # a blank or broken page has a handful


def test_script_errors_are_reported(page: Path, tmp_path: Path) -> None:
    """The error hook itself: a page whose script fails says so in ``data-errors`` (what the tests above read)."""
    broken = tmp_path / "broken.html"
    broken.write_text(
        page.read_text(encoding="utf-8").replace("show(D.start, false);", "show(D.start, false); nope();")
    )
    els = dom(broken, "")
    assert "nope is not defined" in root(els)["data-errors"]
    assert root(els)["data-ready"] == ""
