"""Every built-in circuit drawn as its printed board (issue 16): the drawing data is the reference transcribed,
each space's spot lies where the data says (checked in headless Chromium by hit-testing every spot centre),
the features are drawn where the track data has them, each car's move of the round is a trail, and the
screenshots in docs/img are real pictures of every circuit. A track heatlog has no drawing for is still drawn,
schematically."""

from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path
from typing import Any

import browser
import pytest
from test_replay_html import Elements

from heatlog.engine.track import Track
from heatlog.formats.tracks import BUILTIN_TRACKS, load_track, load_track_data
from heatlog.simulate import simulate_race
from heatlog.views.circuit import board_layout, circuit_layout
from heatlog.views.drawings import DRAWINGS_DIR, DrawingError, drawing_for, load_drawing, parse_drawing
from heatlog.views.replay import Replay, build_replay
from heatlog.views.replay_html import render_html

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO.parent / "shared" / "reference" / "tracks"
REFERENCE_FILE = {"great-britain": "great_britain"}


@cache
def race(track: str) -> Replay:
    _, events, _ = simulate_race(track=track, cars=6, seed=5)
    return build_replay(events)


@cache
def page(track: str, tmp: Path) -> Path:
    path = tmp / f"{track}.html"
    path.write_text(render_html(race(track), round=3), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("circuits")


def replay_data(text: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', text, re.S)
    assert found
    data: dict[str, Any] = json.loads(found[1])
    return data


# ---------------------------------------------------------------------------------------------- the data


def test_every_builtin_circuit_has_a_drawing_that_fits_it() -> None:
    assert sorted(p.stem for p in DRAWINGS_DIR.glob("*.json")) == sorted(BUILTIN_TRACKS)
    for track_id in BUILTIN_TRACKS:
        track = load_track(track_id)
        drawing = drawing_for(track)
        assert drawing is not None, track_id
        assert set(drawing.spots) == {(s, lane) for s in range(1, track.spaces + 1) for lane in (1, 2)}
        assert set(drawing.signs) == {c.after_space for c in track.corners}


@pytest.mark.parametrize("track_id", BUILTIN_TRACKS)
def test_drawing_is_the_reference_transcribed(track_id: str) -> None:
    ref_path = REFERENCE / f"{REFERENCE_FILE.get(track_id, track_id)}.drawing.json"
    if not ref_path.exists():
        pytest.skip("shared/reference/tracks is not beside this clone")
    ref = json.loads(ref_path.read_text(encoding="utf-8"))
    drawing = load_drawing(track_id)
    assert drawing is not None
    assert (drawing.width, drawing.height) == (ref["board"]["width"], ref["board"]["height"])
    assert drawing.spots == {(s["space"], s["lane"]): (s["x"], s["y"], s["angle"]) for s in ref["spots"]}
    markers = ref["corner_markers"]
    assert drawing.signs == {m["corner_line_after_space"]: (m["sign"]["x"], m["sign"]["y"]) for m in markers}
    assert drawing.podium == tuple((p["x"], p["y"]) for p in ref["other_positions"]["podium"])


def test_the_board_lines_are_the_references_derived_lines() -> None:
    """The line after space p runs between p and p+1 across both lanes, as the research notes derive it (their
    derived lines were overlaid on the board images and fall on the printed lines)."""
    for track_id in ("usa", "japan", "spain"):
        ref_path = REFERENCE / f"{track_id}.drawing.json"
        if not ref_path.exists():
            pytest.skip("shared/reference/tracks is not beside this clone")
        lay = circuit_layout(load_track(track_id))
        for line in json.loads(ref_path.read_text(encoding="utf-8"))["lines"]:
            a, b = lay.lines[line["after_space"]]
            assert math.dist(a, (line["lane1_end"]["x"], line["lane1_end"]["y"])) < 0.6, (track_id, line)
            assert math.dist(b, (line["lane2_end"]["x"], line["lane2_end"]["y"])) < 0.6, (track_id, line)


def test_a_drawing_that_does_not_fit_is_not_used() -> None:
    """A user's track that borrows a built-in id but is another circuit is drawn schematically."""
    data = load_track_data("japan")
    data["corners"] = data["corners"][1:]
    assert drawing_for(Track.from_dict(data)) is None
    assert not circuit_layout(Track.from_dict(data)).board
    data = load_track_data("usa")
    data["id"] = "my-usa"
    assert drawing_for(Track.from_dict(data)) is None
    assert load_drawing("../tracks/usa") is None and load_drawing("") is None


@pytest.mark.parametrize(
    ("mutate", "complaint"),
    [
        (lambda d: d["spots"].pop(), "no spot for space"),
        (lambda d: d["spots"].append(list(d["spots"][0])), "has two spots"),
        (lambda d: d["spots"][3].__setitem__(0, 99), "not on the track"),
        (lambda d: d.update(spaces="x"), "spaces"),
        (lambda d: d["spots"][0].__setitem__(2, 1e9), "spots/0/2"),
        (lambda d: d.update(extra=1), "Additional properties"),
    ],
)
def test_broken_drawings_are_refused(mutate: Any, complaint: str) -> None:
    data = json.loads((DRAWINGS_DIR / "usa.json").read_text(encoding="utf-8"))
    mutate(data)
    with pytest.raises(DrawingError, match=re.escape(complaint)):
        parse_drawing(data)


def test_japan_bridge_and_underpass() -> None:
    lay = circuit_layout(load_track("japan"))
    assert lay.board and lay.bridge == frozenset({1, 2})
    assert len(lay.underpasses) == 1  # the road from 30 to 31 passes under it
    usa = circuit_layout(load_track("usa"))
    assert not usa.bridge and not usa.underpasses


@pytest.mark.parametrize("track_id", BUILTIN_TRACKS)
def test_each_spots_polygon_holds_its_own_centre_and_no_other(track_id: str) -> None:
    """Geometry without a browser: every spot's outline contains the spot's board centre, and no other spot's."""
    lay = board_layout(load_track(track_id), load_drawing(track_id))  # type: ignore[arg-type]

    def inside(p: tuple[float, float], poly: list[tuple[float, float]]) -> bool:
        x, y, hit = p[0], p[1], False
        for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1], strict=True):
            if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
                hit = not hit
        return hit

    for key, centre in lay.centres.items():
        holders = [k for k, poly in lay.spots.items() if inside(centre, poly)]
        assert holders == [key], (key, holders)


# ---------------------------------------------------------------------------------------------- the page


@pytest.mark.parametrize("track_id", BUILTIN_TRACKS)
def test_page_draws_the_circuits_features(track_id: str, tmp: Path) -> None:
    track = load_track(track_id)
    els = Elements(page(track_id, tmp).read_text(encoding="utf-8"))
    svg = next(a for t, a in els.found if t == "svg" and a.get("id") == "circuit")
    assert svg["data-layout"] == "board" and svg["viewbox"] == "0 0 1650 1100"
    spots = els.having("path", "spot")
    assert sorted((int(a["data-space"]), int(a["data-lane"])) for a in spots) == sorted(
        (s, lane) for s in range(1, track.spaces + 1) for lane in (1, 2)
    )
    flooded = {int(a["data-space"]) for a in spots if "flooded" in a["class"].split()}
    tunnel = {int(a["data-space"]) for a in spots if "tunnel" in a["class"].split()}
    assert (flooded, tunnel) == (set(track.flooded), set(track.tunnel))  # # 22.4, 22.6
    corners = els.having("g", "corner")
    assert [(int(a["data-after-space"]), int(a["data-limit"])) for a in corners] == [
        (c.after_space, c.limit) for c in track.corners
    ]
    assert [int(a["data-after-space"]) for a in els.having("g", "legend-line")] == [
        c.legend_line_after_space for c in track.corners
    ]
    diamonds = els.having("g", "diamond")
    assert len(diamonds) == 4 * len(track.corners)
    chevrons = {(int(a["data-corner"]), int(a["data-space"]), int(a["data-chevrons"])) for a in diamonds}
    for number, c in enumerate(track.corners, start=1):
        for space in c.legend_diamond_spaces:
            want = 2 if space in c.double_chevron_spaces else 1 if space in c.chevron_spaces else 0
            assert (number, space, want) in chevrons
    curbs = els.having("path", "chicane-curb")  # # 22.1: blue curbs on both sides
    assert sorted(a["data-chicane"] for a in curbs) == sorted(
        f"{a.after_space}-{b.after_space}" for a, b in track.chicanes() for _ in (1, 2)
    )
    assert len(els.having("g", "grid-box")) == len(track.grid)
    assert len(els.having("g", "finish")) == 1
    assert len(els.having("g", "bridge")) == (1 if track_id == "japan" else 0)


def test_key_says_what_the_features_do(tmp: Path) -> None:
    text = page("japan", tmp).read_text(encoding="utf-8")
    assert "flooded: downshift costs 1 more Heat" in text
    assert "tunnel:" not in text
    assert "no card may be discarded" in page("spain", tmp).read_text(encoding="utf-8")


def test_trails_follow_each_cars_move_of_the_round(tmp: Path) -> None:
    rp = race("japan")
    data = replay_data(page("japan", tmp).read_text(encoding="utf-8"))
    spots = {k: tuple(v) for k, v in data["spots"].items()}
    for entry, rv in zip(data["rounds"][1:], rp.rounds, strict=True):
        for name, car in entry["cars"].items():
            start = entry["from"][name]
            moved = car["progress"] != start["progress"] or car["lane"] != start["lane"]
            trail = entry["trails"].get(name)
            assert (trail is not None) == (moved and not _finished_before(rp, rv, name)), (rv.number, name)
            if trail is None:
                continue
            assert tuple(trail[0]) == spots[f"{start['space']}:{start['lane']}"]
            if not car["finished"]:
                assert tuple(trail[-1]) == spots[f"{car['space']}:{car['lane']}"]
                assert len(trail) == car["progress"] - start["progress"] + 1  # one point per space passed


def _finished_before(rp: Replay, rv: Any, name: str) -> bool:
    return name in rv.start.hall_of_fame


def test_schematic_layout_for_a_track_without_a_drawing(tmp_path: Path) -> None:
    from replay_cases import CARS

    from heatlog.races import race_started_event
    from heatlog.simulate.world import race_events, random_bot

    data = load_track_data("italy")
    data["id"], data["name"] = "my-italy", "My Italy"
    start = race_started_event(track=data, cars=CARS, mode="open")
    events = list(race_events(start, {c["name"]: random_bot for c in CARS}, 2))
    text = render_html(build_replay(events), round=2)
    els = Elements(text)
    svg = next(a for t, a in els.found if t == "svg" and a.get("id") == "circuit")
    assert svg["data-layout"] == "schematic"
    assert len(els.having("path", "spot")) == 2 * 54
    assert len(els.having("g", "legend-line")) == 3
    path = tmp_path / "schematic.html"
    path.write_text(text, encoding="utf-8")
    dom = Elements(browser.dump_dom(path.as_uri() + "#round=2"))
    html = next(a for t, a in dom.found if t == "html")
    assert html["data-errors"] == "" and html["data-ready"] == "true"


# ---------------------------------------------------------------------------------------------- in Chromium


@pytest.mark.parametrize("track_id", BUILTIN_TRACKS)
def test_in_chromium_every_spot_is_where_the_data_says(track_id: str, tmp: Path) -> None:
    """The page hit-tests the data's centre of every spot: the element drawn there is that very spot (so no
    spot is misplaced, hidden under another, or missing), and the cars stand on the data's spots."""
    out = browser.dump_dom(page(track_id, tmp).as_uri() + "#round=3&measure", size=(1650, 1100))
    els = Elements(out)
    root = next(a for t, a in els.found if t == "html")
    assert root["data-errors"] == "", root["data-errors"]
    assert int(root["data-spots-checked"]) == 2 * load_track(track_id).spaces
    assert root["data-spot-misses"] == ""
    drawing = load_drawing(track_id)
    assert drawing is not None
    for car in els.having("g", "car"):
        if car["data-finished"] == "true":
            continue
        x, y = map(float, re.match(r"translate\(([-\d.]+) ([-\d.]+)\)", car["transform"]).groups())  # type: ignore[union-attr]
        sx, sy, _ = drawing.spots[(int(car["data-space"]), int(car["data-lane"]))]
        assert (round(x, 1), round(y, 1)) == (sx, sy)


@pytest.mark.parametrize("track_id", BUILTIN_TRACKS)
def test_docs_have_a_screenshot_of_every_circuit(track_id: str, tmp: Path, tmp_path: Path) -> None:
    """docs/img/circuit-<id>.png is a real picture (made by docs/capture_circuits.py), and so is a fresh one."""
    png = REPO / "docs" / "img" / f"circuit-{track_id}.png"
    assert png.exists(), f"run python docs/capture_circuits.py to make {png.name}"
    width, height, _ = browser.png_pixels(png)
    assert (width, height) == (1240, 880)
    assert browser.colour_count(png) > 300
    fresh = browser.screenshot(page(track_id, tmp).as_uri() + "#view=circuit", tmp_path / "shot.png", 1240, 880)
    assert browser.colour_count(fresh) > 300
