"""A Legend's move as a pure function of track, progress and card (# 19.7, 19.8, 19.13, 19.14, 19.15, MA10,
MA31, MC9). Placement on a free spot (# 19.9) is the step machine's: see test_legends.py."""

from __future__ import annotations

import pytest

from heatlog.engine import Track
from heatlog.engine.modules.legends.rules import LegendDeck, LegendEntry, LegendRules, legend_move, legend_track_problem
from heatlog.formats.module_data import legends_module
from heatlog.formats.tracks import load_track

from ..conftest import TRACK

USA = load_track("usa")
GB = load_track("gb")
NED = load_track("netherlands")
ESP = load_track("spain")


def move(track, at, helmet, diamond, *, laps=2, **kw):
    return legend_move(track, at, LegendEntry(helmet, diamond), final_line=laps * track.spaces, **kw)


def test_19_7_helmet_that_would_cross_the_corner_stops_on_the_diamond():
    # 19.7 worked example: USA corner 1 (line after 12, Legend line after 2), Legend on space 1.
    m = move(USA, 1, 13, 1)
    assert (m.case, m.target, m.corner) == ("diamond", 11, 1)
    m = move(USA, 1, 11, 1)  # reaches 12 exactly: the line is not crossed
    assert (m.case, m.target) == ("helmet", 12)


def test_19_7_diamond_0_is_the_last_space_before_the_line():
    assert move(USA, 1, 19, 0).target == 12
    assert move(USA, 1, 19, 3).target == 9


def test_19_7_MA10_on_the_legend_line_is_still_before_it():
    # MA10: a Legend exactly on space L moves its helmet number; on L + 1 it is inside (19.8).
    assert move(USA, 2, 13, 1).case == "diamond"
    m = move(USA, 3, 13, 1)
    assert (m.case, m.target, m.limit) == ("corner", 3 + 7 + 1, 7)


def test_19_7_from_the_grid():
    # Grid spots are progress <= 0 (space 69, 68 …): still before corner 1's Legend line.
    m = move(USA, -2, 16, 2)  # space 67 + 16 = progress 14 > 12: stops on diamond 2 = space 10
    assert (m.case, m.target) == ("diamond", 10)
    m = move(USA, -2, 10, 0)
    assert (m.case, m.target) == ("helmet", 8)


def test_19_8_corner_move_is_limit_plus_diamond():
    # 19.8 worked example: USA corner 2 (after 33, limit 3, Legend line 27): from 28 with k = 0 moves 3 to 31.
    m = move(USA, 28, 11, 0)
    assert (m.case, m.target, m.limit) == ("corner", 31, 3)
    m = move(USA, 31, 17, 2)  # 31 + 3 + 2 = 36: crosses the corner
    assert (m.target, m.stopped_before) == (36, None)


def test_19_8_MA10_a_legend_past_the_corner_aims_at_the_next_one():
    # On space 34 (past corner 2's line after 33) the next corner is 3 (after 49, Legend line 43).
    m = move(USA, 34, 12, 1)
    assert (m.case, m.corner, m.target) == ("helmet", 3, 46)


def test_19_8_MA10_stops_before_a_second_corner_line():
    # GB corners 2 (after 30, limit 6, Legend 21) and 3 (after 37): from 25 with diamond 3: 6 + 3 = 9 -> 34.
    assert move(GB, 25, 18, 3).target == 34
    # Test track corners after 10 (4) and 13 (3, Legend line after 11 by default? none): use Netherlands:
    # from 12 (past corner 2's Legend line after 9): limit 5 + 3 = 8 -> 20 crosses 13 and 16: stops on 16.
    m = move(NED, 12, 18, 3, laps=3)
    assert (m.target, m.stopped_before, m.allowance) == (16, 3, 1)


def test_19_8_MA10_a_chicane_second_line_is_a_corner_with_its_legend_line_behind():
    # Spain: the Legend line of corner 4 (second line of the 29/32 chicane) lies after 22, behind line 29:
    # every space after 29 is past it (19.7), so the corner move applies at once.
    m = move(ESP, 30, 19, 3, laps=1)
    assert (m.case, m.corner, m.limit, m.target) == ("corner", 4, 4, 37)
    # and both lines of a chicane count as Corner Lines: from 27 (past L 22) 4 + 3 = 7 -> 34 would cross
    # 29 and 32: it stops on 32.
    m = move(ESP, 27, 19, 3, laps=1)
    assert (m.target, m.stopped_before) == (32, 4)


def test_19_11_MC9_the_corner_move_uses_the_modified_limit_even_above_the_helmet():
    # MC9: GB corner 1 (limit 10, Legend line after 2) with a +1 token: 11 + diamond 0 = 11 > helmet 10.
    m = move(GB, 5, 10, 0, limit_of=lambda i: GB.corners[i].limit + (1 if i == 0 else 0))
    assert (m.case, m.limit, m.target) == ("corner", 11, 16)


def test_19_14_chevrons_allow_extra_lines_only_when_aggressive():
    # 19.14 worked example: Netherlands corner 1 with a +1 token, from space 8 (single chevron) with diamond 3:
    # 6 + 3 = 9 -> 17 would cross 9, 13 and 16. Aggressive: 2 lines allowed, stops on 16 (BGA would stop on 13).
    plus1 = lambda i: NED.corners[i].limit + (1 if i in (0, 1) else 0)  # noqa: E731 (chicane: both lines)
    m = move(NED, 8, 18, 3, laps=3, aggressive=True, limit_of=plus1)
    assert (m.target, m.allowance, m.stopped_before) == (16, 2, 3)
    m = move(NED, 8, 18, 3, laps=3, aggressive=False, limit_of=plus1)
    assert (m.target, m.allowance, m.stopped_before) == (13, 1, 2)


def test_19_14_double_chevron_allows_three_lines():
    # Space 9 carries both a single and a double chevron: the double counts (3 lines: 9, 13, 16).
    m = move(NED, 9, 18, 3, laps=3, aggressive=True)  # 5 + 3 = 8 -> 17: crosses 9, 13, 16 = 3 lines: allowed
    assert (m.target, m.allowance, m.stopped_before) == (17, 3, None)


def test_19_14_chevrons_on_spain_corner_8():
    # 19.14: Spain corner 8 (after 92, limit 3 with a +1 token) from 92 (chevron) with diamond 3: 7 -> 99
    # would cross 92, 95 and 98: the reading stops on 98 (BGA: 95).
    plus = lambda i: ESP.corners[i].limit + (1 if i == 7 else 0)  # noqa: E731
    m = move(ESP, 92, 18, 3, laps=1, aggressive=True, limit_of=plus)
    assert (m.target, m.stopped_before) == (98, 10)


def test_19_13_final_lap_full_helmet_when_the_finish_comes_first():
    # USA final lap (2 laps, line at 138): from progress 127 (space 58 of lap 2, past corner 4) the next
    # corner is beyond the finish: full helmet 16 -> 143, across the line.
    m = move(USA, 127, 16, 2)
    assert (m.case, m.target) == ("finish", 143)
    # On lap 1 space 66 aims at corner 1 of lap 2 (69 + 12): 66 + 19 > 81, so it stops on diamond 3.
    m = move(USA, 66, 19, 3)
    assert (m.case, m.target) == ("diamond", 78)


def test_MA31_corner_move_ignores_lines_beyond_the_finish():
    # MA31: a one-lap race on the test track, corner after 26 (limit 2) is the last line; a corner move from
    # 25 (past its Legend line) is not stopped by the line after 10 of the next lap.
    corners = [{**c, "legend_line_after_space": c["after_space"] - 3} for c in TRACK["corners"]]
    t = Track.from_dict({**TRACK, "corners": corners})
    m = legend_move(t, 25, LegendEntry(10, 3), final_line=30, limit_of=lambda i: 20)
    assert (m.case, m.target, m.stopped_before) == ("corner", 48, None)


def test_19_15_pro_adds_to_helmet_numbers_only():
    m = move(USA, 14, 12, 1, pro=3)
    assert (m.helmet, m.target) == (15, 29)
    m = move(USA, 28, 12, 1, pro=3)  # corner move: limit 3 + diamond 1, no pro
    assert m.target == 32


def test_MA10_a_legend_never_moves_backwards():
    # A custom track whose diamond would lie behind a Legend before its Legend line: it stays put.
    t = Track.from_dict(
        {**TRACK, "corners": [{**c, "legend_line_after_space": c["after_space"]} for c in TRACK["corners"]]}
    )
    m = legend_move(t, 9, LegendEntry(15, 3), final_line=30)
    assert (m.case, m.target) == ("diamond", 9)


def test_19_7_a_track_without_legend_lines_is_named():
    assert "no Legend line" in (legend_track_problem(Track.from_dict(TRACK)) or "")
    assert legend_track_problem(USA) is None


def test_19_4_the_deck_data():
    rules = LegendRules.from_dict(legends_module())
    assert len(rules.cards) == 10 and rules.colours == ("black", "blue", "green", "red", "gray", "yellow")
    for colour in rules.colours:
        assert sorted(c.by_colour[colour].helmet for c in rules.cards) == list(range(10, 20))
    for c in rules.cards:
        for e in c.by_colour.values():
            assert e.diamond == {10: 0, 11: 0, 12: 1, 13: 1, 14: 1, 15: 2, 16: 2, 17: 2, 18: 3, 19: 3}[e.helmet]
    assert rules.entry(1, "black") == LegendEntry(16, 2)
    assert rules.card_by_number("yellow", 11).id == 1  # type: ignore[union-attr]


def test_19_5_MA9_each_card_once_then_all_ten_reshuffled():
    rules = LegendRules.from_dict(legends_module())
    deck = LegendDeck()
    for r, cid in enumerate([3, 1, 4, 10, 5, 9, 2, 6, 8], start=1):
        assert deck.why_not(rules, cid) is None
        deck.reveal(rules, cid, r)
    assert deck.available(rules) == [7]
    assert "already turned" in (deck.why_not(rules, 3) or "")
    deck.reveal(rules, 7, 10)
    assert deck.available(rules) == list(range(1, 11))  # # MA9: all ten reshuffled
    deck.reveal(rules, 3, 11)
    assert deck.used == [3] and deck.reshuffles == 1 and deck.current == 3
    assert "no Legend card" in (deck.why_not(rules, 11) or "")


@pytest.mark.parametrize("bad", [{"pro": 7}, {"pro": -1}, {"aggressive": "yes"}, {"cards": []}])
def test_19_14_19_15_options_are_checked(bad):
    with pytest.raises(ValueError):
        LegendRules.from_dict({**legends_module(), **bad})
