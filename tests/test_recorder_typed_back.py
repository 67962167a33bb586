"""Every race the simulator plays can be typed back in through the recorder (tests/recorder_typed_back.py says how
a race is simulated and typed): the stored log is the simulated one, in open and table mode, question by question
and with every offer a prompt makes.

The adrenaline cooldown (# 6.2, 7.4) was the gap: ``ac`` records the bonus with a cooldown of 1, so a race whose car
took the bonus with a cooldown of 2 (gear 2's 1 and the adrenaline's 1, one event; the heuristic bot does it in most
races) or the bonus alone (no Heat to cool, a boost first) could not be typed back in.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from recorder_races import TRACK, cars
from recorder_typed_back import module_sets, plain, recorded, simulated

from heatlog.engine import MalformedInput
from heatlog.engine.redact import open_to_table
from heatlog.log.racelog import RaceLog
from heatlog.races import start_race
from heatlog.recorder import NewRace, Session
from heatlog.recorder import script as rs
from heatlog.recorder.session import slipstream_answer
from heatlog.simulate import store_race


def _adrenaline_cooldowns(events: list[dict], *, alone: bool) -> list[int]:
    """Where ``events`` take the adrenaline cooldown with a cooldown of 2 or more after it, or (``alone``) none."""
    out = []
    for i, ev in enumerate(events[:-1]):
        if ev["type"] == "adrenaline" and ev["bonus"] == "cooldown":
            nxt = events[i + 1]
            cooled = nxt["type"] == "cooldown" and nxt.get("car") == ev["car"]
            if (not cooled) if alone else (cooled and nxt["count"] >= 2):
                out.append(i)
    return out


@pytest.mark.parametrize("mode", ["open", "table"])
def test_7_4_an_adrenaline_cooldown_with_a_cooldown_of_2_is_typed_ac2(tmp_path: Path, mode: str) -> None:
    # the heuristic bot's race of two cars, seed 0: a car in gear 2 takes the adrenaline cooldown and cools 2 at once
    events = simulated((), 0, bot="heuristic")
    at = _adrenaline_cooldowns(events, alone=False)
    assert at, "the race no longer takes an adrenaline cooldown with a cooldown of 2"
    react = rs.answer("react", events[at[0]]["car"], events, at[0])  # React asked at the bonus
    assert react.split()[0] == f"ac{events[at[0] + 1]['count']}", react
    assert recorded(tmp_path, events, mode, offers=True) == plain(events if mode == "open" else open_to_table(events))


@pytest.mark.parametrize("offers", [False, True])
def test_6_2_an_adrenaline_cooldown_taken_alone_is_typed_ac0(tmp_path: Path, offers: bool) -> None:
    # the random bot's race, seed 2: the bonus taken with no Heat to cool, or a boost before the cooldown
    events = simulated((), 2)
    assert _adrenaline_cooldowns(events, alone=True)
    assert recorded(tmp_path, events, "table", offers=offers) == plain(open_to_table(events))


def _three_cars(tmp_path: Path) -> Session:
    """A new table-mode race of three cars on the sprint track, grid Red, Blue, Green, at its first gears."""
    log = RaceLog(tmp_path / "race.db")
    rid = start_race(
        log, track=str(TRACK), cars=cars(3), mode="table", variant="one-lap", grid=["Red", "Blue", "Green"]
    )
    return Session(log, rid, fresh=True)


def _greens_react(tmp_path: Path) -> Session:
    """A table-mode race of three cars at Green's React in gear 1 (Green last: adrenaline, # 6.1)."""
    s = _three_cars(tmp_path)
    s.answer("1 1 1")
    for name in ("Red", "Blue"):
        s.answer("2 -")
        assert s.question.car != name
    s.answer("1")
    assert s.question.kind == "react" and s.question.car == "Green"
    return s


def test_ac_n_is_the_bonus_and_a_cooldown_of_n_as_the_engine_allows(tmp_path: Path) -> None:
    # 7.2, 7.3, 7.4: the engine says what is allowed, in its words; nothing is written when it refuses
    s = _greens_react(tmp_path)
    n = s.proj.effective.length
    refusals = {
        "ac2": "only 1 Heat is unseen (deck and hand), not 2 (# 7.3)",  # its hand holds one Heat at most
        "ac5": "gear 1 allows 4 more cooldown this turn, not 5 (# 7.2)",  # 3 for gear 1 and 1 for the adrenaline
    }
    for typed, message in refusals.items():
        errors = [x.text for x in s.answer(typed) if x.style == "error"]
        assert errors and message in errors[0] and errors[0].startswith(f"not allowed by the rules: {typed}: "), errors
        assert s.proj.effective.length == n and s.question.car == "Green"
    assert not [x.text for x in s.answer("ac0 c1") if x.style == "error"]
    made = [e.event for e in s.proj.effective.entries][n : n + 2]
    assert [(e["type"], e.get("bonus"), e.get("count")) for e in made] == [
        ("adrenaline", "cooldown", None),
        ("cooldown", None, 1),
    ]


@pytest.mark.parametrize("typed", ["c" + "9" * 5000, "ac" + "9" * 5000, "ac" + "9" * 4], ids=["c", "ac", "ac4"])
def test_a_long_run_of_digits_is_refused_not_a_crash(tmp_path: Path, typed: str) -> None:
    # int() refuses more than 4300 digits with a ValueError, which the session never caught: the recorder stopped
    s = _greens_react(tmp_path)
    n = s.proj.effective.length
    errors = [x.text for x in s.answer(typed) if x.style == "error"]
    assert errors and "digits are no count here" in errors[0] and len(errors[0]) < 120, errors
    assert s.proj.effective.length == n and s.question.kind == "react"
    # a slipstream's distance the same (y and its digits, read whether or not the slipstream is open)
    with pytest.raises(MalformedInput, match="digits are no count here"):
        slipstream_answer(s.view, "Green", "y" + typed.lstrip("ac"))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    modules=st.sampled_from(module_sets()),
    seed=st.integers(0, 10_000),
    bot=st.sampled_from(["random", "heuristic"]),
    mode=st.sampled_from(["open", "table"]),
    offers=st.booleans(),
    multi=st.booleans(),
    cars=st.integers(2, 4),
)
# a Heat cost paid first, the other left unpaid (# 18.10, 18.11: Red after "a ac"), question by question
@example(modules=module_sets()[-1], seed=12, bot="heuristic", mode="open", offers=False, multi=False, cars=3)
def test_every_simulated_race_is_typed_back_in_to_the_same_log(
    modules: tuple[str, ...], seed: int, bot: str, mode: str, offers: bool, multi: bool, cars: int
) -> None:
    """Random simulated races of every module set the registry lists, typed back in word by word (question by
    question, one choice an answer or several, or as each prompt offers): the stored log is the simulated one."""
    events = simulated(modules, seed, bot=bot, cars=cars)
    with tempfile.TemporaryDirectory() as tmp:
        got = recorded(Path(tmp), events, mode, offers=offers and multi, multi=multi)
    assert got == plain(events if mode == "open" else open_to_table(events))


def test_18_8_a_reveal_line_takes_a_card_s_plus_flips_before_the_rest_of_the_turn(tmp_path: Path) -> None:
    # found by the property test: a Garage card's + flips (# 18.8) after a reveal whose prompt offers the rest of
    # the turn were left off the line (only a Stress card's were typed), so the line's "-" met the flip's question
    events = simulated(("garage", "legends", "rain", "weather"), 6, bot="heuristic")
    table = open_to_table(events)
    assert recorded(tmp_path, events, "table", offers=True) == plain(table)


def test_14_1_a_dash_where_a_flip_is_due_says_the_flip_comes_first(tmp_path: Path) -> None:
    # a line's "-" read as the flip's card said "'-' is not a card" (or "no Garage card called '-'")
    s = _three_cars(tmp_path)
    s.answer("2 2 2")
    n = s.proj.effective.length
    errors = [x.text for x in s.answer("4 s -") if x.style == "error"]
    assert errors == [
        "not understood: '-': Red flips first (a Stress card's or a card's + flips, # 14.1, 18.8): type the card "
        "turned over, then the rest of the turn"
    ]
    assert s.proj.effective.length == n
    assert not [x.text for x in s.answer("4 s 3 -") if x.style == "error"]


@pytest.mark.parametrize(
    ("modules", "seed", "mode"), [((), 0, "open"), (("garage", "legends", "rain", "weather"), 1, "table")]
)
def test_a_simulated_race_typed_into_heatlog_record_in_a_terminal(
    tmp_path: Path, modules: tuple[str, ...], seed: int, mode: str
) -> None:
    """The real ``heatlog record`` in a pseudo-terminal (tests/test_recorder.py's host, who reads each prompt on the
    screen and answers as it offers every other time): the heuristic bot's race, stored up to its grid, typed in to
    the same log (seed 0 takes ``ac2``; the all-modules race asks the weather's, the rain's and a Legend's
    questions, which the host could not tell on a screen)."""
    pytest.importorskip("pexpect")
    from test_recorder import Host

    events = simulated(modules, seed, bot="heuristic")
    want = plain(events if mode == "open" else open_to_table(events))
    grid = next(i for i, e in enumerate(want) if e["type"] == "grid_set")
    db = tmp_path / "race.db"
    with RaceLog(db) as log:
        rid = store_race(log, [dict(want[0], mode=mode), *want[1 : grid + 1]], name="typed")
    h = Host(db, want, mode)
    h.race = rid
    h.start("--race", str(rid))
    h.drive({})
    h.child.close()
    assert h.child.exitstatus == 0
    with RaceLog(db, create=False) as log:
        assert plain([e.event for e in log.effective(rid).entries]) == want


@pytest.mark.parametrize(
    "track",
    ["9" * 5000, "/" + "9" * 5000, "./" + "a" * 300 + ".json", "\x00 /dev/zero", "~nobody-here/x.json"],
    ids=["name", "abs", "rel", "nul", "home"],
)
def test_a_track_name_the_file_system_refuses_is_an_error_not_a_crash(track: str) -> None:
    # Path.exists raised OSError (File name too long), os.stat ValueError (a NUL) and expanduser RuntimeError (no
    # such user's home) from the set-up's track question: the recorder stopped
    w = NewRace()
    w.answer("")  # no race name
    assert w.step == "track"
    said = w.answer(track)
    assert said is not None and said.startswith("error") and w.step == "track", said
    assert w.answer("usa") is not None and w.step != "track"


def test_a_season_s_races_are_typed_back_in(tmp_path: Path) -> None:
    """The championship comes only from a season (# 21): both races of a simulated season with the Garage (the
    second with the sponsorship cards and upgrades carried over, # 21.4, MA7), as the season's heuristic bots played
    them, typed back in from their set-up in table mode with the prompts' offers and in open mode question by
    question, store the season's logs."""
    from heatlog.season import season_view, simulate_season

    with RaceLog(tmp_path / "season.db") as log:
        season = simulate_season(
            log, races=[("usa", 7), ("usa", 8)], cars=2, seed=5, modules={"garage": {"upgrades": "basic"}}
        )
        races = [plain([e.event for e in log.effective(r.race).entries]) for r in season_view(log, season).races]
    assert len(races) == 2 and all("championship" in r[0]["modules"] for r in races)
    for k, events in enumerate(races):
        (tmp_path / str(k)).mkdir()
        assert recorded(tmp_path / str(k), events, "table", offers=True) == plain(open_to_table(events))
        (tmp_path / f"{k}open").mkdir()
        assert recorded(tmp_path / f"{k}open", events, "open", offers=False) == events


@pytest.mark.parametrize("offers", [False, True])
def test_18_12_a_line_before_a_scrap_leaves_the_discard_to_be_asked_in_open_mode(tmp_path: Path, offers: bool) -> None:
    # found by the property's races of four cars: Green's React line (ac0 a c1) ends before a Scrap (# 18.12),
    # determined in open mode and recorded on the way; the line's end closed the discard unasked, so the discard
    # the race made after its Scrap could not be typed. The prompt says "Enter = done" there, and the discard is
    # asked after the Scrap's cards in table mode: now in open mode too.
    events = simulated(("garage",), 0, cars=4)
    scraps = [i for i, e in enumerate(events) if e["type"] == "card_scrapped"]
    assert any(
        e["type"] == "cards_discarded" and e["car"] == events[i]["car"] for i in scraps for e in events[i : i + 5]
    )
    assert recorded(tmp_path, events, "open", offers=offers) == plain(events)


def test_18_11_a_race_that_pays_one_heat_cost_first_then_leaves_the_other_unpaid_is_typed_in(tmp_path: Path) -> None:
    # found by the property's races of three cars (all modules, heuristic bot, seed 12): Red's Engine can pay one of
    # two Heat costs (# 18.11) after "a ac"; the Garage's question "which card's cost goes unpaid" took only the
    # unpaid card, so the race's heat_paid (body6, # 18.10) before its heat_unpayable (wings6) was refused as "no
    # Garage card called 'p:body6'". The question offers p:CARD as the engine lists it, and takes it.
    events = simulated(module_sets()[-1], 12, bot="heuristic", cars=3)
    at = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "heat_paid" and events[i + 1]["type"] == "heat_unpayable" and events[i + 1]["car"] == e["car"]
    )
    with RaceLog(tmp_path / "race.db") as log:
        s = Session(log, store_race(log, events[:at], name="paid first"), fresh=True)
        q = s.question
        assert q.kind == "unpayable" and q.car == "Red", q
        assert "(wings6, or p:body6 pays that card's first): " in q.prompt, q.prompt
        assert "p:body6" in q.options and q.default == "wings6", (q.options, q.default)
        errors = [x.text for x in s.answer("p:body6") if x.style == "error"]
        assert not errors, errors
        made = [e.event for e in s.proj.effective.entries][at:]
        assert [(e["type"], e["cards"]) for e in made] == [("heat_paid", events[at]["cards"])]
    for mode in ("open", "table"):
        with tempfile.TemporaryDirectory() as tmp:
            got = recorded(Path(tmp), events, mode, offers=mode == "open")
        assert got == plain(events if mode == "open" else open_to_table(events)), mode
