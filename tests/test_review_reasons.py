"""A labelled decision's reason names what the loss comes from, with numbers (issue 28, this session's note): a
decision that moves further now and loses later was said to move further ("play 2 3 4 brakes13 moves …") and
nothing else — the playouts saw only the decision's round. They now follow the car after it
(``LaterFacts``): the gap in spaces round by round, the Stress and Heat left in its hand, its Engine, the
spinouts and Heat paid and spaces moved in the next rounds, the round it finishes in."""

from __future__ import annotations

import re
from typing import Any

from heatlog.analysis.playout import LaterFacts, TurnFacts
from heatlog.review import Settings, decision_points, review_race
from heatlog.review.evaluate import Estimate, PointReview, later_words, reason
from heatlog.review.points import describe
from tests.review_positions import position_race, steps_1_2

SETTINGS = Settings(seed=2, screen=16, keep=1, max_playouts=128)


def _number(pattern: str, text: str) -> tuple[float, ...]:
    found = re.search(pattern, text)
    assert found is not None, (pattern, text)
    return tuple(float(x) for x in found.groups())


def test_a_play_that_moves_further_now_and_loses_later_is_told_by_its_later_cost() -> None:
    """Red in 2nd gear, 4 spaces before USA's corner 2, its hand 4 4 1 1 S 2 2 and an empty Engine: 4 4 moves 8
    spaces now; 4 S moves less (the Stress flip finds 2.7 on average, # 5.2) but plays the Stress card, which
    4 4 keeps in its hand for the next rounds (# 12.2). 4 4 is ahead after the round and behind later: the reason
    says when, by how much, and what it carries — not only that it moves further."""
    log = steps_1_2(position_race(4, progress=24, behind=16, hand="4411S22", gear=2), 2, ["4", "4"])
    (p,) = review_race(log, ["Red"], settings=SETTINGS, only=lambda p: p.kind == "cards").car("Red").points
    assert p.label is not None and p.reason is not None and p.best.words == "play 4 S", (p.label, p.reason)
    said = p.reason
    now, other = _number(r"play 4 4 moves ([\d.]+) spaces this round, play 4 S ([\d.]+)", said)
    assert now > other  # it does move further now …
    (ahead,) = _number(r"at the end of round 2 play 4 4 is ([\d.]+) spaces ahead of play 4 S", said)
    assert ahead > 0
    later, most, worst = _number(r"behind it from round (\d+) \(([\d.]+) spaces at most, round (\d+)\)", said)
    assert 2 < later <= worst and most > 0  # … and is behind later: when, and by how much
    kept, played = _number(
        r"it leaves ([\d.]+) Stress and [\d.]+ Heat cards in its hand for round 3, against ([\d.]+)", said
    )
    assert kept >= played + 0.5  # what it carries: the Stress card the best played
    assert said.index("this round") < said.index("behind it from round") < said.index("expected place")


def test_clearly_different_positions_give_clearly_different_reasons() -> None:
    """The same play, 4 4, in two positions: 4 spaces before corner 2 it spins out there this round (# 10.1, the
    Engine empty); 9 spaces before it, it stops short and its cost comes later. Each reason names its own cost
    (an output that did not depend on its input would be a bug)."""
    reasons = []
    for progress in (28, 24):
        log = steps_1_2(position_race(4, progress=progress, behind=progress - 8, hand="4411S22", gear=2), 2, ["4", "4"])
        (p,) = review_race(log, ["Red"], settings=SETTINGS, only=lambda p: p.kind == "cards").car("Red").points
        assert p.reason is not None
        reasons.append(p.reason)
    spin, later = reasons
    assert spin.startswith("play 4 4 spins out at corner 2") and "in 100% of playouts" in spin, spin
    assert "spins out at corner 2" not in later and "behind it from round" in later, later
    assert spin != later


def _review(point: Any, later: tuple[LaterFacts, LaterFacts]) -> PointReview:
    """A labelled review of ``point``: option 0 taken, option 1 the best, the same turn this round on both sides,
    with ``later`` each."""
    a, b = point.options[:2]
    est = [
        Estimate(o, describe(o, point.step), 64, place, 0.1, 0.5, 0.1, k + 1, True)
        for k, (o, place) in enumerate(((a, 2.8), (b, 2.2)))
    ]
    taken, best = (TurnFacts(False, 33, 3, 3, 0, 0, 6, (), later=x) for x in later)
    return PointReview(point, 4, est[0], est[1], est, 0.6, 0.2, 128, label="blunder",
                       facts={"taken": [taken] * 64, "best": [best] * 64})  # fmt: skip


def _later(**kw: Any) -> LaterFacts:
    base: dict[str, Any] = dict(
        stress_hand=0, heat_hand=0, engine_next=2, rounds=2, moved=20, spins=0, spin_corner=None, paid=0,
        engine=2, finish=9, track=(40, 50, 60, 70, 80),
    )  # fmt: skip
    return LaterFacts(**{**base, **kw})


def test_the_later_words_follow_the_facts() -> None:
    """From the same turn this round, other later facts give other words, each with its numbers: a spinout in the
    next round at corner 3, or an Engine emptied by Heat paid at corners — and nothing when nothing differs."""
    log = steps_1_2(position_race(4, progress=24, behind=16, hand="4411S22", gear=2), 2, ["4", "4"])
    (point,) = [p for p in decision_points(log, "Red") if p.kind == "cards"]
    best = _later()
    spun = _later(spins=1, spin_corner=49, moved=14, finish=10, track=(40, 46, 56, 66, 76))
    hot = _later(engine_next=0, paid=3, engine=0, heat_hand=2, track=(40, 50, 60, 68, 78))
    said = [later_words(_review(point, (taken, best)), None) for taken in (spun, hot, best)]
    tw, bw = "play 1 1", "play 1 2"  # the point's first two options
    assert said[0] == (
        f"at the end of round 2 {tw} is level with {bw}, behind it from round 3 (4.0 spaces at most, round 3): {tw} "
        f"spins out in rounds 3–4 in 100% of playouts (mostly at the corner after space 49), {bw} in 0%; it moves "
        "14.0 spaces in rounds 3–4, against 20.0; it finishes in round 10.0, against 9.0"
    )
    assert said[1] == (
        f"at the end of round 2 {tw} is level with {bw}, behind it from round 5 (2.0 spaces at most, round 5): it "
        "leaves 0.0 Stress and 2.0 Heat cards in its hand for round 3, against 0.0 and 0.0; Engine 0.0 Heat at the "
        "end of round 2, against 2.0; it pays 3.0 Heat at corners in rounds 3–4, against 0.0; Engine 0.0 Heat at "
        "the end of round 4, against 2.0"
    )
    assert (
        said[2]
        == f"at the end of round 2 {tw} is level with {bw}, and never behind it on average (round 6: level with it)"
    )
    full = reason(_review(point, (spun, best)), None)
    assert said[0] in full and full.endswith("n=64)")


def test_the_later_facts_are_fields_of_the_json_equal_to_what_the_reason_says() -> None:
    """``review --json`` carries each option's later facts (``later``, version ``later_version``): the numbers
    the reason's words are made of, for the decision taken, the best found and every option listed — an analyst
    scripting over reviews reads them as fields, not out of the text."""
    from heatlog.review.evaluate import LATER_VERSION, point_dict

    log = steps_1_2(position_race(4, progress=24, behind=16, hand="4411S22", gear=2), 2, ["4", "4"])
    review = review_race(log, ["Red"], settings=SETTINGS, only=lambda p: p.kind == "cards")
    assert review.to_dict()["later_version"] == LATER_VERSION == 1
    (p,) = review.car("Red").points
    d = point_dict(p)
    said = d["reason"]
    taken, best = d["taken"]["later"], d["best"]["later"]
    assert all(a["later"] is not None and a["later"]["playouts"] == a["playouts"] for a in d["alternatives"])
    assert taken["playouts"] == d["taken"]["playouts"] and taken["round"] == best["round"] == 2
    (ahead,) = _number(r"at the end of round 2 play 4 4 is ([\d.]+) spaces ahead of play 4 S", said)
    assert ahead == round(taken["progress"][0] - best["progress"][0], 1)
    _, most, worst = _number(r"behind it from round (\d+) \(([\d.]+) spaces at most, round (\d+)\)", said)
    k = int(worst) - 2
    at = [x["progress"][min(k, len(x["progress"]) - 1)] for x in (taken, best)]
    assert most == round(at[1] - at[0], 1)
    got = _number(r"it leaves ([\d.]+) Stress and ([\d.]+) Heat cards in its hand for round 3, against ([\d.]+) and "
                  r"([\d.]+)", said)  # fmt: skip
    fields = ("stress_in_hand", "heat_in_hand")
    assert got == tuple(round(x[f], 1) for x in (taken, best) for f in fields)
    finish = _number(r"it finishes in round ([\d.]+), against ([\d.]+)", said)
    assert finish == (round(taken["finish_round"], 1), round(best["finish_round"], 1))
    assert taken["single_use_kept"] == best["single_use_kept"] == {}  # (no sponsorship card in this race)


def test_a_single_use_card_spent_against_one_kept_is_named_in_the_reason(tmp_path: Any) -> None:
    """# 18.24, 21.5: a sponsorship card played leaves the game at step 9 (a card lost for good); kept, it plays
    in a later round. In a Garage championship race, Red at round 16 may play Aperault (``P82``) alone or a 4
    and keep it: from the two options' real playouts the reason names the card spent and the one keeping it, and
    each option's ``later`` block says how many it still holds."""
    from heatlog.analysis import information_set
    from heatlog.log.racelog import RaceLog
    from heatlog.review.evaluate import later_summary, make_runner, sides_for, single_use_cards
    from heatlog.season import season_view, simulate_season

    with RaceLog(tmp_path / "s.db") as log:
        season = simulate_season(log, cars=2, seed=2, races=[("usa", 1)], modules={"garage": {"upgrades": "basic"}})
        (race,) = [[e.event for e in log.store.events(sr.race)] for sr in season_view(log, season).races]
    (point,) = [p for p in decision_points(race, "Red") if p.kind == "cards" and p.round == 16]
    keep = next(k for k, o in enumerate(point.options) if o["cards"] == ["4"])  # (the play taken in the race)
    spend = next(k for k, o in enumerate(point.options) if o["cards"] == ["P82"])
    point.options = [point.options[keep], point.options[spend]]
    info = information_set(point.known(race), "Red")
    assert "P82" in single_use_cards(info.public)
    rows = make_runner(None, "Red", "heuristic", 1)(16, 7, sides_for(point, info))
    facts = [[f for _, f in row] for row in rows]
    words = [describe(o, point.step, lambda t: {"P82": "aperault"}.get(t, t)) for o in point.options]
    assert words == ["play 4", "play aperault"]
    est = [
        Estimate(o, w, 16, 1.5, 0.2, 0.5, 0.2, k + 1, True)
        for k, (o, w) in enumerate(zip(point.options, words, strict=True))
    ]
    review = PointReview(point, 2, est[0], est[1], est, 0.5, 0.2, 32, label="mistake",
                         facts={"taken": facts[0], "best": facts[1]})  # fmt: skip
    said = reason(review, info)
    assert (
        "play aperault spends aperault, a single-use card (it leaves the game once played, # 18.24), in 100% of "
        "playouts; play 4 keeps it for a later round: aperault held at the end of round 16 1.0, against 0.0"
    ) in said, said
    # the same playouts, where the side holding fewer did not play the card (e.g. the other earned one at a press
    # corner, # 21.7): said as cards held, not as a card spent
    other = Estimate({**point.options[1], "cards": ["3"]}, "play 3", 16, 1.5, 0.2, 0.5, 0.2, 2, True)
    plain = PointReview(point, 2, est[0], other, [est[0], other], 0.5, 0.2, 32, label="mistake",
                        facts={"taken": facts[0], "best": facts[1]})  # fmt: skip
    said = reason(plain, info)
    held = "aperault, a single-use card (# 18.24), held at the end of round 16: 1.0 by play 4, 0.0 by play 3"
    assert "spends" not in said and held in said, said
    once = single_use_cards(info.public)
    kept, spent = (later_summary(f, 16, once) for f in facts)
    assert kept is not None and spent is not None
    assert kept["single_use_kept"].get("P82", 0) == 1.0 and spent["single_use_kept"].get("P82", 0) == 0.0
