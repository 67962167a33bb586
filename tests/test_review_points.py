"""Every decision judged or said why not (issue 28, item 2): a discard that closes React is two decisions, a
slipstream is reported as one, the decision played wins ties, an interval is never ±0 from playouts that
agree, and no Infinity reaches --json or the HTML page."""

from __future__ import annotations

import json
import math
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from heatlog.engine import apply
from heatlog.engine.redact import open_to_table
from heatlog.review import DecisionPoint, Settings, decision_points, review_race
from heatlog.review.evaluate import estimate_point, mean_half, point_dict
from heatlog.review.points import NotReviewed
from heatlog.simulate import simulate_race
from tests.test_cli import run

Event = dict[str, Any]
REPLAY = Path(__file__).parents[1] / "replays" / "usa-4cars.jsonl"
CARS = ("Red", "Blue", "Green", "Yellow")


@cache
def usa() -> list[Event]:
    return [json.loads(line) for line in REPLAY.read_text().splitlines()]


def test_a_discard_that_closes_react_is_the_go_on_and_the_discard() -> None:
    """# 11.1: the engine takes a discard during React or Slipstream (it closes them, as going on would): the
    review dropped both decisions (2–5 per car in usa-4cars). Now every discard of every car is a decision
    point or listed as not reviewed, and one made during React gives a "go on" point there as well."""
    events = usa()
    early = 0
    for car in CARS:
        skipped: list[NotReviewed] = []
        points = decision_points(events, car, skipped=skipped)
        discards = [i for i, ev in enumerate(events) if ev["type"] == "cards_discarded" and ev["car"] == car]
        taken = [p.index for p in points if p.taken["type"] == "cards_discarded"]
        assert len(taken) + sum(x.kind == "cards_discarded" for x in skipped) == len(discards), car
        for p in points:
            if p.prelude:
                assert p.taken["type"] in ("cards_discarded", "go_on")
                if p.taken["type"] == "cards_discarded":
                    early += 1
                    assert p.kind == "discard" and p.prelude == ({"type": "go_on", "car": car},)
                    assert all(q.taken["type"] == "go_on" for q in points if q.index == p.index and q is not p)
    assert early >= 4


def test_the_discard_after_going_on_is_reviewed_from_step_8() -> None:
    events = usa()
    p = next(p for p in decision_points(events, "Blue") if p.prelude)
    review = review_race(
        events[: p.index + 1],
        ["Blue"],
        settings=Settings(seed=1, screen=4, keep=1, max_playouts=4),
        only=lambda q: q.index == p.index and q.prelude == p.prelude,
    )
    (r,) = review.car("Blue").points
    assert r.point.kind == "discard" and r.taken.words.startswith("discard")
    assert {e.words for e in r.estimates} >= {"keep the hand"}


def test_a_slipstream_taken_during_react_is_a_slipstream_decision() -> None:
    events = usa()
    n = 0
    for car in CARS:
        for p in decision_points(events, car):
            if p.taken["type"] == "slipstream":
                n += 1
                assert p.kind == "slipstream", p
            if p.kind == "react" and any(o["type"] == "slipstream" for o in p.options):
                assert p.go_on_kind == "react+slipstream"
    assert n >= 20


def test_every_decision_of_a_table_mode_race_is_reviewed_or_said_why_not() -> None:
    table = open_to_table(simulate_race(None, track="usa", cars=3, seed=5)[1])
    skipped: list[NotReviewed] = []
    points = decision_points(table, "Red", skipped=skipped)
    mine = [
        ev
        for ev in table
        if ev.get("car") == "Red"
        and ev["type"]
        in ("gear_chosen", "cards_revealed", "cooldown", "boost", "adrenaline", "slipstream", "cards_discarded")
    ]
    reviewed = {p.index for p in points}
    assert len(reviewed) + len(skipped) >= len(mine)
    reasons = {x.reason for x in skipped}
    assert any("table mode" in r for r in reasons)
    assert {x.kind for x in skipped if "table mode" in x.reason} >= {"cards_revealed"}


def test_a_garage_race_reviews_its_speed_choices_and_lists_none_it_skips() -> None:
    """# 18.8: a Garage car's speed choice was skipped without a word; then listed as not reviewed; now that the
    review's decision kinds come from the event catalogue (issue 26) it is a decision point like any other, and
    nothing of the car's is left unlisted."""
    garage = {"upgrades": "basic", "draft": "random"}
    events = simulate_race(None, track="usa", cars=2, seed=4, modules={"garage": garage})[1]
    skipped: list[NotReviewed] = []
    points = decision_points(events, "Red", skipped=skipped)
    assert "speed_chosen" not in {x.kind for x in skipped}
    assert all(x.reason and x.words for x in skipped)
    assert any(p.taken.get("type") == "speed_chosen" for p in points)
    review = review_race(events, ["Red"], settings=Settings(seed=1), only=lambda p: False)
    assert review.car("Red").not_reviewed == []  # a review of chosen points lists none (it chose)


def _round_of(events: list[Event]) -> int:
    state = None
    for ev in events:
        state = apply(state, ev, atomic=False)
    assert state is not None
    return int(state.round)


# ------------------------------------------------------------------------------------------------ estimates


def fake_point(taken: int, n: int = 4) -> DecisionPoint:
    options = [{"type": "gear_chosen", "car": "Red", "gear": g} for g in range(1, n + 1)]
    return DecisionPoint(index=7, seq=None, round=1, kind="gear", car="Red", taken=options[taken], options=options)


def same_runner(place: int | None = None) -> Any:
    """Every side of a playout gets the same place: a uniform one, or always ``place``."""

    def run(n: int, seed: int, sides: list[Any]) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in sides]
        for i in range(n):
            x = place if place is not None else random.Random(f"{seed}/{i}").randint(1, 4)
            for k in range(len(sides)):
                out[k].append(x)
        return out

    return run


@pytest.mark.parametrize("taken", [0, 1, 2, 3])
def test_the_decision_played_wins_a_tie(taken: int) -> None:
    review = estimate_point(fake_point(taken), None, 4, Settings(seed=1, keep=2, max_playouts=64), same_runner())
    assert review.best is review.taken and review.loss == 0 and review.label is None
    assert review.estimates[0] is review.taken  # listed first among equals


def test_playouts_that_all_agree_give_an_interval_not_zero_and_go_on() -> None:
    """16 wins of 16 screened for every gear: '±0.00' stopped the search at the screening; now the intervals
    are above zero and the play-out goes on until the paired loss against the other gear kept is clearly
    below the first threshold (identical playouts: about 64 of them)."""
    settings = Settings(seed=1, screen=16, keep=2, max_playouts=512)
    review = estimate_point(fake_point(1), None, 4, settings, same_runner(place=1))
    assert review.taken.place_half > 0 and review.taken.win_half > 0
    assert review.taken.playouts > settings.screen
    other = next(e for e in review.estimates if e.kept and e is not review.taken)
    assert other.playouts == review.taken.playouts and review.label is None


def test_the_half_width_is_finite_for_one_playout_and_shrinks_with_more() -> None:
    m, h = mean_half([2], 1, 4)
    assert m == 2 and math.isfinite(h) and h > 0
    assert mean_half([1] * 64, 1, 4)[1] < mean_half([1] * 16, 1, 4)[1]
    # with many varied playouts it is the usual normal interval
    xs = [1, 2, 3, 4] * 200
    sd = math.sqrt(sum((x - 2.5) ** 2 for x in xs) / (len(xs) - 1))
    assert mean_half(xs, 1, 4)[1] == pytest.approx(1.96 * sd / math.sqrt(len(xs)), rel=0.01)


def test_the_target_is_on_the_expected_score_for_2_and_6_cars() -> None:
    """The thresholds and ``target`` are on the expected score: a decision that loses 0.15 of it (a place in
    30 % of playouts with 2 cars, in 90 % with 6) is a mistake in both, its loss known to ± 0.05 expected score
    at the settling z — ± 0.05 places with 2 cars, ± 0.25 with 6 (it was ± 0.15 places whatever the cars, wider
    than a 2-car race's inaccuracy threshold) — and the play-out stops near there, not far beyond."""
    for cars in (2, 6):

        def run(n: int, seed: int, sides: list[Any], cars: int = cars) -> list[list[int]]:
            out: list[list[int]] = [[] for _ in sides]
            for i in range(n):
                rng = random.Random(f"{seed}/{i}")
                x, u = rng.randint(1, cars), rng.random()
                for k, (_, (ev,)) in enumerate(sides):
                    out[k].append(min(cars, x + (ev["gear"] == 1 and u < 0.15 * cars)))
            return out

        review = estimate_point(fake_point(0, 2), None, cars, Settings(seed=1, keep=1, max_playouts=4096), run)
        assert review.label == "mistake" and review.best.words == "gear 2" and review.settled
        z = Settings().settle_z / 1.96  # the label settles on the loss's interval at settle_z
        assert (review.loss - review.loss_half * z) / (cars - 1) >= 0.1  # within the mistake's band
        assert (review.loss + review.loss_half * z) / (cars - 1) < 0.2
        assert review.loss_half * z / (cars - 1) <= 0.05 and review.taken.playouts < 512  # ± target, then stopped


def paired_runner(pairs: list[tuple[int, int]]) -> Any:
    """Places per playout for two gears: (gear 1's, the other's) from ``pairs`` over and over, from the seed on."""

    def run(n: int, seed: int, sides: list[Any]) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in sides]
        for i in range(n):
            taken, best = pairs[(seed + i) % len(pairs)]
            for k, (_, (ev,)) in enumerate(sides):
                out[k].append(taken if ev["gear"] == 1 else best)
        return out

    return run


def test_a_loss_at_a_threshold_goes_to_the_cap_where_it_is_known_to_about_the_target_at_95() -> None:
    """A taken decision that loses 0.10 expected score (a mistake's threshold) with a paired standard deviation
    of 0.52 (about that of ``usa-4cars``: common random numbers help a decision's own playouts little) never
    settles: it goes to the default cap, 256 per side (384 until issue 28's sixth pass, 512 before), where the
    loss's 95 % interval is ± 0.064 (1.96 × 0.52 / √256), and a label needs it above 0 at ``cap_z`` (99 %:
    the loss was looked at after every batch) — 0.10 is, so the label is what the mean says (docs/analysis.md,
    step 3)."""

    # (taken, best) places, the paired loss 2, -2, 1, -1, 1, -1, 1, -1, 3, 0: 0.3 places (0.10 score) every
    # 10 playouts, standard deviation 1.57 places (0.52 score)
    pairs = [(3, 1), (1, 3), (3, 2), (2, 3), (3, 2), (2, 3), (3, 2), (2, 3), (4, 1), (2, 2)]
    run = paired_runner(pairs)
    settings = Settings(seed=1, keep=1)
    assert settings.max_playouts == 256 and settings.cap_z == 2.576
    review = estimate_point(fake_point(0, 2), None, 4, settings, run)
    assert not review.settled and review.taken.playouts == review.best.playouts == 256  # to the cap, paired
    assert review.playouts == 2 * 256
    assert 0.055 < review.loss_half / 3 < 0.07  # ± 0.064 at 95 % (sd 0.52 expected score)
    assert review.loss - review.loss_half * 2.576 / 1.96 > 0  # significant at 99 % too
    assert review.label in ("inaccuracy", "mistake")  # what the evidence at the cap supports
    assert review.significant and review.confidence == pytest.approx(0.99, abs=5e-4)
    row = point_dict(review)
    assert (row["significant"], row["significant_at"], row["settled"]) == (True, 0.99, False)


def test_a_label_at_the_cap_needs_its_loss_above_0_at_cap_z() -> None:
    """# issue 28: a label the play-out did not settle rests on a loss looked at after every batch (up to 30
    looks), so at the cap it needs the loss above 0 at ``cap_z`` (99 %), not only at 95 %. Here the taken
    decision loses 0.085 ± 0.072 expected score at the cap (paired losses 3, −3, 1, −1, 1, −1, 1, −1, 2 places
    over and over): significant at 95 %, not at 99 %: no label (an inaccuracy at 95 %). Measured against the
    1,000-playout reference (docs/analysis.md), the 95 % rule at the cap of 256 labelled a best move."""
    pairs = [(4, 1), (1, 4), (3, 2), (2, 3), (3, 2), (2, 3), (3, 2), (2, 3), (3, 1)]
    run = paired_runner(pairs)
    review = estimate_point(fake_point(0, 2), None, 4, Settings(seed=1, keep=1), run)
    assert not review.settled and review.taken.playouts == 256
    assert review.loss - review.loss_half > 0 and review.loss - review.loss_half * 2.576 / 1.96 < 0
    assert review.label is None
    at_95 = estimate_point(fake_point(0, 2), None, 4, Settings(seed=1, keep=1, cap_z=1.96), run)
    assert at_95.label == "inaccuracy" and at_95.loss == review.loss  # the same playouts


def test_significant_in_json_is_what_the_label_rests_on() -> None:
    """# issue 28: ``review --json``'s ``significant`` is the test the label rests on, and ``significant_at`` says
    which: 95 % for a label the play-out settled, 99 % (``cap_z``) at the cap. The loss above (0.085 ± 0.072 at
    the cap) is above 0 at 95 % but not at 99 %: not significant, as it has no label — the 95 % test said
    "significant" beside no label. The HTML page's biggest losses list only significant ones (the same rule)."""
    pairs = [(4, 1), (1, 4), (3, 2), (2, 3), (3, 2), (2, 3), (3, 2), (2, 3), (3, 1)]
    run = paired_runner(pairs)
    at_cap = estimate_point(fake_point(0, 2), None, 4, Settings(seed=1, keep=1), run)
    row = point_dict(at_cap)
    assert (row["settled"], row["label"], row["significant"], row["significant_at"]) == (False, None, False, 0.99)
    assert row["loss_places"] - row["loss_places_95"] > 0  # (at 95 % it would have been)
    json.dumps(row, allow_nan=False)
    at_95 = point_dict(estimate_point(fake_point(0, 2), None, 4, Settings(seed=1, keep=1, cap_z=1.96), run))
    assert (at_95["label"], at_95["significant"], at_95["significant_at"]) == ("inaccuracy", True, 0.95)
    # a clear loss settles before the cap: its label and its significance at 95 %
    settled = estimate_point(fake_point(0, 2), None, 4, Settings(seed=1, keep=1), paired_runner([(4, 1)]))
    row = point_dict(settled)
    assert (row["settled"], row["label"], row["significant"], row["significant_at"]) == (True, "blunder", True, 0.95)


def imported_race(tmp_path: Path) -> Path:
    """A database holding a simulated 3-car USA race (seed 5) up to the start of its round 3, imported by the CLI."""
    db = tmp_path / "r.db"
    log = tmp_path / "race.jsonl"
    events = simulate_race(None, track="usa", cars=3, seed=5)[1]
    cut = next(k for k in range(len(events)) if _round_of(events[: k + 1]) == 3)
    log.write_text("".join(json.dumps(e) + "\n" for e in events[:cut]))
    assert run("import", str(log), db=db).returncode == 0
    return db


def test_cli_review_screen_1_writes_no_infinity(tmp_path: Path) -> None:
    db = imported_race(tmp_path)
    for screen in ("1", "2"):
        args = [
            "review",
            "--car",
            "Red",
            "--round",
            "2",
            "--screen",
            screen,
            "--max-playouts",
            screen,
            "--workers",
            "1",
        ]
        r = run(*args, "--json", db=db)
        assert r.returncode == 0, r.stderr

        def refuse(x: str) -> None:
            raise AssertionError(f"{x} in --json")

        data = json.loads(r.stdout, parse_constant=refuse)
        assert data["cars"][0]["decisions"]
        page = tmp_path / "review.html"
        assert run(*args, "--html", str(page), db=db).returncode == 0
        html = page.read_text()
        start = html.index('id="review-data">') + len('id="review-data">')
        json.loads(html[start : html.index("</script>", start)], parse_constant=refuse)  # what JSON.parse reads


def test_with_keep_1_a_taken_decision_that_leads_the_screening_is_still_checked_against_the_runner_up() -> None:
    """``--keep 1`` kept the screening's best and the decision taken: when the taken one led the 16 screening
    playouts by chance, it was kept alone and "no label" was settled with no alternative played out at all (a true
    blunder went unlabelled); ``--keep 0`` never played an alternative out. Now the runner-up is played out beside
    it, the tie of the screening (a loss of 0 ± 0.23 expected score at 95 %) does not settle "no label", and the later
    playouts show the loss."""
    for keep in (0, 1):
        calls: list[int] = []

        def run(n: int, seed: int, sides: list[Any], calls: list[int] = calls) -> list[list[int]]:
            calls.append(n)
            screening = len(calls) == 1  # a tie, so the one taken leads it; the later playouts favour gear 2
            out: list[list[int]] = [[] for _ in sides]
            for i in range(n):
                for k, (_, (ev,)) in enumerate(sides):
                    tie = ((1, 2), (4, 3), (2, 3), (3, 2))[i % 4]
                    out[k].append(tie[ev["gear"] - 1] if screening else (4 if ev["gear"] == 1 else 1))
            return out

        review = estimate_point(fake_point(0, 2), None, 4, Settings(seed=1, keep=keep, max_playouts=96), run)
        other = next(e for e in review.estimates if e.words == "gear 2")
        assert other.kept and other.playouts > 16, (keep, other)
        assert review.best is other and review.label == "blunder", (keep, review.loss, review.label)


# A decision of each kind a module declares, as a log writes it, and how a player says it (the module's words).
MODULE_DECISIONS: dict[str, tuple[dict[str, Any], str]] = {
    "speed_chosen": ({"card": "U9", "speed": 4}, "values brakes24 at 4"),  # # 18.6
    "accelerated": ({"card": "U9", "taken": True}, "accelerates brakes24"),
    "heat_paid": ({"cards": ["U9"]}, "pays the Heat of brakes24"),  # # 18.10
    "heat_unpayable": ({"cards": ["U9"]}, "cannot pay for brakes24"),  # # 18.11
    "stress_reduced": ({"count": 2}, "discards 2 Stress"),
    "refreshed": ({"card": "U9"}, "refreshes brakes24"),  # # 18.21
    "salvaged": ({"cards": ["U9", "2"]}, "salvages brakes24 2"),
    "super_cooled": ({"count": 1}, "super-cools 1"),
    "direct_played": ({"card": "U9"}, "plays brakes24 directly"),
    "drafted": ({}, "drafts"),
    "upgrade_picked": ({"card": "U9"}, "picks brakes24"),  # # 18.5
    "upgrade_removed": ({"card": "U9"}, "gives back brakes24"),
    "upgrade_swapped": ({"give": "U9", "take": "U10"}, "swaps brakes24 for U10"),  # # 21.9
}


def test_every_module_decision_kind_reads_as_its_module_words_it_not_as_its_type() -> None:
    """describe() words a module's decision by the module's own words (``Module.event_words``), without the car's
    name the recorder's echo puts first, cards by their short names: a Garage speed choice reads "values brakes24
    at 4", not "speed_chosen" (it was the type, and a reason read "speed_chosen spins out …"). Every decision kind
    the registry declares beyond the base is here, so a new one without words fails."""
    import heatlog.engine.modules  # noqa: F401  (every module's kinds registered)
    from heatlog.engine.events import REGISTRY
    from heatlog.review.points import DECISION_KINDS, describe

    module_kinds = {k for k in DECISION_KINDS if REGISTRY[k].module != "base"}
    assert module_kinds == set(MODULE_DECISIONS), module_kinds ^ set(MODULE_DECISIONS)

    def short(token: str) -> str:
        return {"U9": "brakes24"}.get(token, token)

    for kind, (fields, said) in MODULE_DECISIONS.items():
        ev = {"type": kind, "v": 1, "car": "Red", **fields}
        assert describe(ev, None, short) == said, kind
        assert kind not in describe(ev) and kind.replace("_", " ") != describe(ev), kind
    # a car named as a word of the phrase is not cut from it; an event its module cannot word reads as its type
    assert describe({"type": "stress_reduced", "v": 1, "car": "discards", "count": 1}) == "discards 1 Stress"
    assert describe({"type": "speed_chosen", "v": 1, "car": "Red"}) == "speed chosen"
