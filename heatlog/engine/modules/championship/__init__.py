"""The championship (MODULES.md 21): a season race's event card, press corners and sponsorship cards, one
registered unit (engine/module.py).

``rules.py`` holds its rules (the event card's Rules, the season draft, the sponsorship deck, the standings); this
file holds its descriptor only, light: every hook imports ``rules.py`` at its first call, so a base race never
loads it (issue 10: start-up).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...events import EventType
from ...module import Module, Notation, TurnRecord, lazy
from .turn import KEYS as _KEYS
from .turn import ChampionshipTurn as ChampionshipTurn
from .turn import championship_record as championship_record
from .turn import championship_turn as championship_turn
from .turn import copy_turn as _copy_turn
from .turn import turn_from_position as _turn_from_position
from .turn import turn_to_position as _turn_to_position

if TYPE_CHECKING:
    from collections.abc import Callable

    from ...state import RaceState, Turn

Event = dict[str, Any]
NAME = "championship"


def _table_says(start: Event) -> Callable[[Turn, Turn | None], Event | None] | None:
    """The open-to-table projection of a race playing event 18 (# 21.8, MA23: a Heat card leaves the game at each
    lap): where the table-mode log cannot know which pile the lap's Heat card leaves from (an empty Engine and a
    hidden hand that may hold Heat), the table says it, as the open log's own turn took it."""
    block = start.get(NAME) if NAME in (start.get("modules") or []) else None
    card = (block or {}).get("event", {}).get("card", {}) if isinstance(block, dict) else {}
    if not (isinstance(card, dict) and card.get("effects", {}).get("lap_heat_removed")):
        return None
    return _heat_removed_said


def _heat_removed_said(turn: Turn, mine: Turn | None) -> Event | None:
    """The ``heat_removed`` the open replay's turn ``mine`` took next, for the table-mode ``turn`` that owes it
    (None: it owes something else, or the Engine is the pile, which the table-mode log derives)."""
    if not turn.owed or turn.owed[0] != "heat_removed":
        return None
    done = len(championship_turn(turn).heat_removed)
    sources = championship_turn(mine).heat_removed if mine is not None else []
    if done >= len(sources) or sources[done] == "engine":
        return None
    return {"type": "heat_removed", "v": 1, "car": turn.car, "from": sources[done]}


def _block(state: RaceState) -> Any:
    return state.rules.options[NAME]  # its block, as race_started holds it (# 21.8)


def _sponsors_top(state: RaceState) -> dict[str, Any]:
    """# 21.4, 21.7: the championship's sponsorship deck, at the top of the position (where it always was)."""
    deck = state.modules.get(NAME)
    return {"sponsor_deck": deck.to_dict()} if deck is not None else {}


def _sponsors_back(state: RaceState, pos: Mapping[str, Any]) -> None:
    if pos.get("sponsor_deck") is not None:
        from .rules import SponsorDeck

        state.modules[NAME] = SponsorDeck.from_dict(pos["sponsor_deck"])


def _sponsor_chance(state: RaceState, rng: random.Random) -> Event | None:
    """# 21.4, 21.7, MA30: a sponsorship card dealt or earned, any the sponsorship deck can give."""
    sponsors = state.modules.get(NAME)
    if sponsors is None:
        return None
    name = None
    turn = state.turn
    if state.phase == "sponsors":
        due = state.rules.phase_waiting(state)
        name = due[1][0] if due is not None and due[0] == "sponsor_drawn" else None
    elif turn is not None and turn.owed and turn.owed[0] == "sponsor_drawn":
        name = turn.car
    if name is None:
        return None
    pile = sorted(c for c, n in sponsors.available().items() for _ in range(n))
    return {"type": "sponsor_drawn", "v": 1, "car": name, "card": rng.choice(pile)}


def _rec(name: str) -> Any:
    """``recorder.py``'s function ``name``, loaded at its first call (the championship's words at the table)."""
    return lazy(f"{__name__}.recorder", name)


#: Its questions at the table: the sponsorship card drawn (# 21.4, 21.7; the cards drawn now on one line), the
#: season draft's swap (# 21.2, MA11), the pressure cooker's Heat card (# 21.8 event 18, MA23).
NOTATION = {
    "sponsor_drawn": Notation(
        question=_rec("sponsor_question"),
        parse=_rec("sponsor_parse"),
        answer=_rec("sponsor_answer"),
        words=_rec("said"),
        kind="sponsor",
        screen=r"^(\S+) draws a sponsorship card \(.*\): which card\? $",
        parse_many=_rec("sponsor_parse_many"),
        together=_rec("always"),
    ),
    "upgrade_swapped": Notation(
        question=_rec("swap_question"),
        parse=_rec("swap_parse"),
        answer=_rec("swap_answer"),
        words=_rec("said"),
        kind="swap",
        screen=r"^(\S+) picked first: swap an upgrade .*, Enter = keep: $",
        default="keep",
    ),
    "heat_removed": Notation(
        question=_rec("heat_question"),
        parse=_rec("heat_parse"),
        answer=_rec("heat_answer"),
        words=_rec("said"),
        kind="heat_removed",
        screen=r"^(\S+) completes a lap: a Heat card leaves the game.*\? $",
    ),
}


def _grid_given(block: Any) -> bool:
    """# 21.12, MA11: a season race after the first, in a season whose grid is the standings (leader on pole)."""
    if not isinstance(block, dict):
        return False
    options, index = block.get("options"), block.get("race")
    return isinstance(options, dict) and options.get("grid") == "standings" and isinstance(index, int) and index > 1


MODULE = Module(
    NAME,
    build=lazy(f"{__name__}.rules", "build"),  # # 21.8
    events=(
        EventType(
            "heat_removed", lazy(f"{__name__}.rules", "heat_removed"), module=NAME, turn=True, guarded=True, chance=True
        ),
        EventType(
            "sponsor_drawn",
            lazy(f"{__name__}.rules", "sponsor_drawn"),
            module=NAME,
            turn=True,
            guarded=True,
            chance=True,
        ),
        # # 21.2: the season draft's swap (the Garage's draft handler plays it)
        EventType("upgrade_swapped", lazy(__name__.rpartition(".")[0] + ".garage.race", "draft_event"), module=NAME),
    ),
    order=3,
    rank=40,
    to_position=_block,
    top_to_position=_sponsors_top,
    top_from_position=_sponsors_back,
    options_in_position=True,
    chance=_sponsor_chance,
    phases=("sponsors",),
    copy=lambda deck: deck.copy(),  # its slot: the sponsorship deck (SponsorDeck), once made
    table_says=_table_says,  # event 18's pile in the open-to-table projection (MA23)
    # its record of a turn: the position's turn keys after "eliminated", each when it says something
    turn_record=TurnRecord(_KEYS, _turn_to_position, _turn_from_position, after="eliminated", copy=_copy_turn),
    data="championship.json",
    waiting={
        "upgrade_swapped": "{name}'s swap, or none (# 21.2)",
        "sponsor_drawn": "{name}'s sponsorship card (# 21.4, 21.7)",
    },
    rules_lines=lazy(f"{__name__}.words", "race_event_lines"),  # the event card and press corners (# 21.6-21.8)
    press_corners=lazy(f"{__name__}.words", "race_press_lines"),  # # 21.6
    narrate_after=lazy(f"{__name__}.words", "narrate_after"),  # sponsorship cards, eliminations (# 21.7, MA21)
    event_words=lazy(f"{__name__}.words", "event_words"),  # its events in the recorder's words
    bot_policy=lazy(f"{__name__}.bots", "policy"),  # a spinout that eliminates (event 10, MA21), for the planner
    notation=NOTATION,
    owed={  # the chance outcomes only the table can give, which a turn waits for (MA23, MA30)
        "heat_removed": (
            "where the Heat card that leaves the game comes from (event 18: Engine, hand, discard, deck)",
            "MA23",
        ),
        "sponsor_drawn": ("the sponsorship card drawn (# 21.7: it goes into the hand at once)", "MA30"),
    },
    position_cards=lazy(f"{__name__}.rules", "position_cards"),  # sponsorship cards, event 18 (# 21.4, MA23)
    grid_given=_grid_given,  # its block says the season gives the grid (# 21.12): the door checks it
    doc_order=4,
    hand_moves={"sponsor_drawn": ("in", lambda ev: [ev["card"]])},  # shown, into the hand (# 21.4, 21.7)
    card_tables=lazy(f"{__name__}.words", "card_tables"),  # the sponsorship cards (# 21.5)
    line_ends=frozenset(("sponsor_drawn",)),  # a sponsorship card earned: asked apart (# 21.7)
    removed_cards=lambda turn: championship_turn(turn).heat_removed,  # event 18's Heat cards, by source (MA23)
)
