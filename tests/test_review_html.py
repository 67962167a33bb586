"""The review's HTML page (issue 28, item 6): next / previous mistake, the biggest losses with their expected cost
beside what they cost in this race, and the evaluation graph marking decisions and chance events apart —
clicked in headless Chromium (Playwright)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from heatlog.review import decision_points, review_race
from heatlog.views.replay import build_replay
from heatlog.views.review_html import review_data, write_review_html
from tests.browser import LAUNCH_ARGS, chromium
from tests.test_review import INDEX, SMALL, race


@contextlib.contextmanager
def _opened(page_file: Path, fragment: str) -> Iterator[Any]:
    """The review page in headless Chromium at ``fragment`` (e.g. ``#round=9``), once its script is ready."""
    sync_api = pytest.importorskip("playwright.sync_api")
    exe = chromium()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 1000})
        page.goto(page_file.as_uri() + fragment)
        page.wait_for_selector('#review[data-ready="true"]')
        yield page
        browser.close()


def _review() -> tuple[object, object]:
    """Red's blunder of test_review (a slipstream that spins out for certain, round 9) and an ordinary gear
    choice of round 2, in a log that goes on to the end of round 9."""
    events = race()
    blunder = [*events[:INDEX], {"type": "slipstream", "v": 1, "car": "Red", "taken": True}]
    gear = next(p for p in decision_points(blunder, "Red") if p.round == 2 and p.kind == "gear")
    review = review_race(blunder, ["Red"], settings=SMALL, only=lambda p: p.index in (INDEX, gear.index))
    return build_replay(blunder), review


def test_next_mistake_lands_on_the_blunder_and_the_graph_marks_chance_apart(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    exe = chromium()
    rp, review = _review()
    data = review_data(rp, review)  # type: ignore[arg-type]
    (mistake,) = data["mistakes"]
    assert mistake["round"] == 9 and mistake["label"] == "blunder" and mistake["words"] == "slipstream"
    (loss,) = [d for d in data["losses"] if d["key"] == mistake["key"]]
    # what it cost in this race: the log ends in round 9, Red's standing then less the best's expected place
    assert loss["actual_cost_places"] == pytest.approx(loss["place"] - loss["best_place"])
    assert loss["loss_places"] > 0.5
    page_file = write_review_html(rp, review, tmp_path / "review.html")  # type: ignore[arg-type]
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 1000})
        page.goto(page_file.as_uri() + "#round=1")
        page.wait_for_selector('#review[data-ready="true"]')
        assert page.evaluate("document.body.getAttribute('data-round')") == "1"
        # the graph: one dot per reviewed decision, a diamond for the chance between them (draws, flips, …)
        assert page.locator("#eval-graph circle.decision").count() == 2
        assert page.locator('#eval-graph circle.decision.labelled[data-label="blunder"]').count() == 1
        chance = page.locator('#eval-graph path.chance[data-car="Red"]')
        assert chance.count() == 1 and "cards_drawn" in (chance.get_attribute("data-kinds") or "")
        page.click("#next-mistake")
        assert page.evaluate("document.body.getAttribute('data-round')") == "9"  # the replay shows round 9
        row = page.locator('#review-table tr.decision[data-focus="true"]')
        assert row.count() == 1
        assert row.get_attribute("data-key") == mistake["key"] and row.get_attribute("data-label") == "blunder"
        assert "mistake 1 of 1: round 9, Red, slipstream (blunder)" in page.inner_text("#mistake-at")
        page.click("#next-mistake")  # none after it: it says so and stays
        assert "no mistake after round 9" in page.inner_text("#mistake-at")
        assert page.evaluate("document.body.getAttribute('data-round')") == "9"
        page.click("#prev-mistake")
        assert "no mistake before round 9" in page.inner_text("#mistake-at")
        # from the first round again, a click on the loss's row lands on it too
        page.click("#first")
        assert page.evaluate("document.body.getAttribute('data-round')") != "9"
        page.click(f'#losses tr.loss[data-key="{mistake["key"]}"]')
        assert page.evaluate("document.body.getAttribute('data-round')") == "9"
        assert page.locator('#review-table tr.decision[data-focus="true"]').get_attribute("data-key") == mistake["key"]
        errors = page.evaluate("document.documentElement.getAttribute('data-errors')")
        browser.close()
    assert not errors
    json.dumps(data, allow_nan=False)


def test_a_loss_that_cost_nothing_but_for_rounding_is_plus_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """The losses table printed f"{cost:+.2f}": what a decision cost in this race, -0.001 places, showed as
    "-0.00 (finished …"; it is +0.00, the signed format of luck and compare."""
    from heatlog.review.evaluate import CarReview
    from heatlog.views.review_html import render_review_html

    rp, review = _review()
    monkeypatch.setattr(CarReview, "actual_cost", lambda self, p: -0.001)
    page = render_review_html(rp, review)  # type: ignore[arg-type]
    assert "<td>+0.00 (finished P" in page and "<td>-0.00" not in page


def test_the_decision_table_shows_a_loss_zero_but_for_rounding_as_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's script wrote a loss with toFixed(2): -0.001 places showed as "-0.00 ±…" in the decision table."""
    import heatlog.review.evaluate as evaluate

    real = evaluate.point_dict
    monkeypatch.setattr(evaluate, "point_dict", lambda p: {**real(p), "loss_places": -0.001})
    rp, review = _review()
    page_file = write_review_html(rp, review, tmp_path / "review.html")  # type: ignore[arg-type]
    with _opened(page_file, "#round=9") as page:
        cells = page.locator('#review-table tr.decision[data-round="9"] td').all_inner_texts()
        errors = page.evaluate("document.documentElement.getAttribute('data-errors')")
    assert not errors
    assert any(c.startswith("0.00 ±") for c in cells) and not any("-0.00" in c for c in cells), cells


def test_the_played_and_the_best_options_later_facts_are_a_small_table_under_the_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each option's later facts (``later`` in --json: what followed the decision's round) are shown where the
    decision's options are: a small table of the decision taken against the best found, the same numbers as the
    JSON (one decimal), the words as text (a hostile one stays text, no element made of it)."""
    import heatlog.review.evaluate as evaluate

    real = evaluate.point_dict
    hostile = '<img src=x onerror="document.title=1">'

    def named(p: Any) -> dict[str, Any]:
        d = real(p)
        return {**d, "taken": {**d["taken"], "words": d["taken"]["words"] + hostile}}

    monkeypatch.setattr(evaluate, "point_dict", named)
    rp, review = _review()
    (p,) = [p for p in review.car("Red").points if p.label == "blunder"]  # type: ignore[attr-defined]
    d = named(p)
    taken, best = d["taken"]["later"], d["best"]["later"]
    assert taken is not None and best is not None and d["best"]["words"] != d["taken"]["words"]
    page_file = write_review_html(rp, review, tmp_path / "review.html")  # type: ignore[arg-type]
    key = next(m["key"] for m in review_data(rp, review)["mistakes"])  # type: ignore[arg-type]
    with _opened(page_file, "#round=9") as page:
        facts = page.locator(f'#review-table tr.later[data-key="{key}"] table.later-facts')
        assert facts.count() == 1
        rows = [r.locator("td").all_inner_texts() for r in facts.locator("tr").all()]
        images = page.locator("#review img").count()
        errors = page.evaluate("document.documentElement.getAttribute('data-errors')")
    assert not errors and images == 0
    assert rows[0][1] == d["taken"]["words"] and rows[0][2] == d["best"]["words"]  # the hostile text, as text
    shown = {r[0]: (r[1], r[2]) for r in rows[1:]}
    assert shown["progress, end of round 9"] == (f"{taken['progress'][0]:.1f}", f"{best['progress'][0]:.1f}")
    assert shown["finishes in round"] == (f"{taken['finish_round']:.1f}", f"{best['finish_round']:.1f}")
    assert shown["Stress / Heat in hand for round 10"] == (
        f"{taken['stress_in_hand']:.1f} / {taken['heat_in_hand']:.1f}",
        f"{best['stress_in_hand']:.1f} / {best['heat_in_hand']:.1f}",
    )
    assert shown["Engine, end of round 9"] == (
        f"{taken['engine_end_of_round']:.1f}",
        f"{best['engine_end_of_round']:.1f}",
    )
