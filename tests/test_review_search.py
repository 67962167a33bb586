"""The review's search evaluator (issue 28, item 2): ``review --evaluator search`` plays the reviewed car on with
the search bot (its gear and cards searched for the rest of the decision's round and ``--search-rounds`` more, the
heuristic after), the other cars with the heuristic; named in the review's JSON and HTML; the same review for a
seed with any number of workers; refused where it cannot be what it says."""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from heatlog.analysis.executors import local_executor
from heatlog.bots import Options, SearchBot, get_bot, heuristic_bot
from heatlog.bots.search import SearchUntil, evaluator_name, search_until
from heatlog.engine.errors import MalformedInput
from heatlog.review import Settings, review_race
from tests.review_positions import apply_all, position_race, steps_1_2
from tests.test_cli import run
from tests.test_review_points import imported_race

Event = dict[str, Any]
CHEAP = Settings(seed=3, screen=4, keep=1, batch=4, step=4, max_playouts=8, evaluator="search")


def gear_log(cars: int) -> list[Event]:
    """Red in gear 3 before USA's corner 2 with an empty Engine shifts to 4: a certain spinout (# 9.3, 10.1)."""
    return steps_1_2(position_race(cars, gear=3), 4, ["1", "1", "2", "2"])


def level_log() -> list[Event]:
    """2 cars, one lap of USA: Red at space 41 in gear 2 with 1 1 2 2 3 4 4 and 2 Heat in its Engine, Blue right
    behind it at 40; Red takes the heuristic's own plan, gear 2 and 4 4 (space 49). With the heuristic driving Red
    on, that plan loses almost every race (its next round, level with Blue at 49 before the last corner after 57
    with a low hand, it shifts down to gear 1 and plays a lone 3: Blue gets away); gear 3 and 1 3 4 does not."""
    return steps_1_2(position_race(2, progress=41, gear=2, engine=2, hand="1122344", behind=40), 2, ["4", "4"])


SETTLE = Settings(seed=1, screen=16, keep=1, max_playouts=64)
# A label at the cap must be significant at 99 % (``Settings.cap_z``): the spinout's loss in a 2-car race (about
# 0.17 places) needs more than 64 playouts a side to be told from 0 at that level.
SPUN = replace(SETTLE, max_playouts=256)


def test_where_the_heuristic_continuation_misjudges_a_gear_the_search_evaluator_does_not() -> None:
    """The heuristic evaluator calls the heuristic's own gear 2 a blunder (expected place 1.98 ±0.04, a win in 2 %
    of its playouts, against gear 3's 1.62): an artefact of its continuation, which plays the next round badly
    from there. Played on by the search bot for that round, gear 2 wins about a quarter of its playouts and is
    within the noise of gear 3: no label. Measured at seeds 1-3 (blunder or mistake with the heuristic, never a
    label with the search; gear 2 at 1.98 against 1.73-1.81). The reference, the search driving Red to the end of
    the race (``search_rounds=2``, 256 playouts per option, seed 11): gear 2 1.81 ±0.05, gear 3 1.74 ±0.05, a loss
    of 0.07 ±0.05 places, an inaccuracy at most — the heuristic's 0.36 is its continuation's, not the gear's."""
    # 2 cars: place 1 or 2, so the expected place is 2 - the win share
    bots = review_race(level_log(), ["Red"], settings=SETTLE, only=lambda p: p.kind == "gear")
    search = review_race(
        level_log(), ["Red"], settings=replace(SETTLE, evaluator="search"), only=lambda p: p.kind == "gear"
    )
    (h,) = bots.car("Red").points
    (s,) = search.car("Red").points
    assert h.taken.words == s.taken.words == "gear 2"
    assert h.best.words == "gear 3" and h.label in ("mistake", "blunder") and h.significant, (h.loss, h.loss_half)
    assert s.label is None and not s.significant, (s.loss, s.loss_half)
    # the same option, the same worlds: its estimate moves by far more than both intervals
    assert h.taken.mean_place - s.taken.mean_place > h.taken.place_half + s.taken.place_half, (h.taken, s.taken)
    assert h.taken.win < 0.05 < 0.15 < s.taken.win


def test_where_the_heuristic_is_right_the_search_evaluator_says_the_same() -> None:
    """A certain spinout (gear 4 over corner 2 with an empty Engine, # 9.3, 10.1): both evaluators label it, with a
    safe gear best, and estimate it and its loss alike (the spinout decides the race, whoever drives on; the label
    itself may fall either side of the blunder's threshold, within the loss's interval)."""
    got = []
    for evaluator in ("bots", "search"):
        review = review_race(
            gear_log(2), ["Red"], settings=replace(SPUN, evaluator=evaluator), only=lambda p: p.kind == "gear"
        )
        (p,) = review.car("Red").points
        assert p.taken.words == "gear 4" and p.best.words in ("gear 2", "gear 3"), (evaluator, p.best.words)
        assert p.significant and p.label is not None, (evaluator, p.loss, p.loss_half)
        # what followed the round, whoever drove on (tests/test_review_reasons.py)
        assert p.reason is not None and f"at the end of round {p.point.round} gear 4 is " in p.reason, p.reason
        got.append(p)
    h, s = got
    assert abs(h.taken.mean_place - s.taken.mean_place) <= max(h.taken.place_half, s.taken.place_half)
    assert abs(h.loss - s.loss) <= h.loss_half + s.loss_half, (h.loss, h.loss_half, s.loss, s.loss_half)


def test_search_at_names_the_bot_that_searches_to_a_round_then_plays_the_heuristic() -> None:
    bot = get_bot("search@3")
    assert isinstance(bot, SearchUntil) and bot.last == 3 and get_bot("search@3") is bot  # one per process
    assert search_until("search") is None and search_until("search@") is None and search_until("search@-1") is None
    for bad in ("search@x", "search@12345", "Search@3"):
        with pytest.raises(MalformedInput, match="unknown bot"):
            get_bot(bad)
    assert evaluator_name("bots", "random", 5, 1) == "random"
    assert evaluator_name("search", "heuristic", 5, 1) == "search@6"
    assert evaluator_name("search", "heuristic", 5, 0) == "search@5"


def test_search_until_searches_up_to_its_round_and_asks_the_heuristic_after() -> None:
    """Up to its last round the car's plan at step 1 is the search's; past it the bot answers as the heuristic."""
    state = apply_all(position_race(2, gear=3, hand="1122344", engine=2))
    assert state.round == 2
    calls: list[str] = []

    class Spy(SearchBot):
        def plan(self, state: Any, name: str, rng: random.Random) -> Any:
            calls.append(name)
            return super().plan(state, name, rng)

    searching = SearchUntil(2, Spy(worlds=2))
    searching(state, "Red", Options(state, "Red"), random.Random(1))
    assert calls == ["Red"]  # the search planned the gear
    done = SearchUntil(1, Spy(worlds=2))
    got = done(state, "Red", Options(state, "Red"), random.Random(1))
    assert calls == ["Red"]  # round 2 is past its last: no search
    assert got == heuristic_bot(state, "Red", Options(state, "Red"), random.Random(1))


def test_the_search_evaluator_is_the_same_for_a_seed_with_any_number_of_workers() -> None:
    log = gear_log(2)
    one = review_race(log, ["Red"], settings=CHEAP, only=lambda p: p.kind == "gear")
    with local_executor(2) as ex:
        two = review_race(log, ["Red"], settings=CHEAP, only=lambda p: p.kind == "gear", executor=ex, parallel=2)
    with ThreadPoolExecutor(4) as threads:  # as a Dask worker runs tasks: threads of one process share the bots
        four = review_race(log, ["Red"], settings=CHEAP, only=lambda p: p.kind == "gear", executor=threads, parallel=4)
    a, b, c = one.to_dict(), two.to_dict(), four.to_dict()
    a.pop("seconds"), b.pop("seconds"), c.pop("seconds")
    assert a == b == c
    assert a["settings"]["evaluator"] == "search" and a["settings"]["search_rounds"] == 1
    (p,) = one.car("Red").points
    assert p.taken.words == "gear 4" and {e.words for e in p.estimates} == {"gear 2", "gear 3", "gear 4"}


def test_the_search_evaluator_is_refused_over_other_bots_and_an_unknown_evaluator_is_refused() -> None:
    log = gear_log(2)
    with pytest.raises(MalformedInput, match="--bots heuristic"):
        review_race(log, ["Red"], settings=Settings(evaluator="search", bots="random"))
    with pytest.raises(MalformedInput, match="unknown evaluator 'deep'"):
        review_race(log, ["Red"], settings=Settings(evaluator="deep"))
    garage = position_race(2, progress=30, hand=["1", "1", "2", "U9", "3", "4", "4"], garage=True)
    with pytest.raises(MalformedInput, match="leaves this race's modules to the heuristic"):  # said, not pretended
        review_race(garage, ["Red"], settings=Settings(evaluator="search"))
    with pytest.raises(MalformedInput, match="--search-rounds 0: 1 to 20"):  # 0 would search nothing at all
        review_race(log, ["Red"], settings=Settings(evaluator="search", search_rounds=0))


def test_cli_review_evaluator_search_is_named_in_json_html_and_terminal(tmp_path: Path) -> None:
    db = imported_race(tmp_path)
    args = [
        "review",
        "--car",
        "Red",
        "--round",
        "2",
        "--screen",
        "1",
        "--keep",
        "0",
        "--max-playouts",
        "1",
        "--workers",
        "1",
        "--evaluator",
        "search",
    ]
    r = run(*args, "--json", db=db)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["settings"]["evaluator"] == "search" and data["settings"]["search_rounds"] == 1
    assert data["cars"][0]["decisions"]
    page = tmp_path / "review.html"
    assert run(*args, "--html", str(page), db=db).returncode == 0
    html = page.read_text()
    assert 'data-evaluator="search"' in html and "evaluator search (the car&#x27;s gear and cards" in html
    text = run(*args, db=db)
    assert text.returncode == 0 and "evaluator search (the car's gear and cards searched this round" in text.stdout
    plain = run(
        "review",
        "--car",
        "Red",
        "--round",
        "2",
        "--screen",
        "1",
        "--keep",
        "0",
        "--max-playouts",
        "1",
        "--workers",
        "1",
        "--json",
        db=db,
    )
    assert json.loads(plain.stdout)["settings"]["evaluator"] == "bots"
    bad = run(*args[:-1], "nope", db=db)
    assert bad.returncode != 0 and "unknown evaluator 'nope'" in bad.stderr
    mixed = run(*args, "--bots", "random", db=db)
    assert mixed.returncode != 0 and "--bots heuristic" in mixed.stderr and "Traceback" not in mixed.stderr
