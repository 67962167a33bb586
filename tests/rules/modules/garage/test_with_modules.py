"""The Garage with the other modules (MODULES.md 18 with 19, 20, 21): a race of Garage cars, Legends and the
weather simulated whole; an event card's hand size with a Refresh card (MA26)."""

from __future__ import annotations

from heatlog.engine.modules.garage import garage_turn
from heatlog.engine.ruleset import build_rules
from heatlog.simulate import simulate_race

from ..test_championship_events import block
from .scenarios import PARK, garage_board, toks

OPTIONS = {"upgrades": "all", "draft": "draft", "expansions": ["heavy-rain", "tunnel-vision"]}


def combined(seed: int, bots="heuristic"):
    return simulate_race(
        None,
        track="usa",
        cars=2,
        modules={"garage": OPTIONS, "legends": {"cars": 2}, "weather": {}},
        seed=seed,
        bots=bots,
    )


def test_18_4_18_5_legends_never_draft_and_do_not_change_the_market():
    _, events, state = combined(5)
    markets = [e for e in events if e["type"] == "garage_market"]
    assert [len(m["cards"]) for m in markets] == [2 + 3] * 3  # # 18.5: human players + 3 ([004] with Legends)
    picks = [e["car"] for e in events if e["type"] == "upgrade_picked"]
    assert sorted(set(picks)) == sorted(c.name for c in state.cars.values() if not c.legend) and len(picks) == 6
    kinds = [e["type"] for e in events]
    assert kinds.index("weather_drawn") > max(i for i, k in enumerate(kinds) if k == "upgrade_picked")  # # 20.2
    assert "legend_card_revealed" in kinds and state.phase == "over"
    assert {t.car for t in state.turns if (gt := garage_turn(t)) is not None and gt.happenings} <= set(picks)


def test_MA26_18_21_a_refreshed_card_stays_on_top_when_a_hand_of_the_events_size_needs_no_draw():
    """Hand size 6 (event 9, # 21.8): a spinout leaves 6 cards in the hand, so nothing is drawn (# 12.2 read with
    the race's hand size, MA26) and the Refresh card stays on top of the deck (# 18.21, MA15)."""

    def race(event: int | None):
        r = garage_board(
            {
                "P": {"at": 29, "hand": PARK, "upgrades": "U13 U15 U16"},
                "A": {"at": 6, "gear": 3, "engine": 0, "hand": "U34 4 4 1 2 3 3", "upgrades": "U34 U1 U1"},
            }
        )
        if event is not None:  # the board under event card ``event``'s rules, as a season race would start them
            r.state.rules = build_rules(["garage", "championship"], {"championship": block(event)})
        r.round(P=(1, ["1"]), A=(3, toks("U34 4 4")))
        r.turns_until("A")
        r.ev("refreshed", car="A", card="U34")  # closes React: speed 12 over the corner after 10 spins A out
        return r

    six = race(9)
    turn = six.last_turn("A")  # the turn is over at once: nothing to draw (# 12.2 with the race's hand size)
    assert turn.spinout and turn.drawn == 0 and six.car("A").hand_size == 6  # 4 left + 2 Stress (# 10.3)
    assert six.car("A").deck[-1] == "U34"  # the Refresh card waits on top of the deck
    seven = race(None)
    seven.go_on()
    seven.refill()
    assert "U34" in seven.hand("A")  # with 7 the refill draws it first
