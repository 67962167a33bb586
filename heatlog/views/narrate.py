"""Plain-words narration of a turn, from the engine's turn record (never from re-applying rules).

Example: "Red shifts to 3rd, plays 4 3 Stress→2: speed 9; crosses corner 2 (limit 3): owes 6 Heat, has 4:
spins out, back to space 33, takes 2 Stress, gear 1".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..engine.cards import BASE_CATALOGUE, STRESS, Catalogue
from ..engine.module import card_namer, in_race
from ..engine.modules import circuits
from ..engine.state import RaceState, Turn

ORDINAL = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}


def _card(state: RaceState, c: str) -> str:
    return state.cards.label(c)  # Heat, Stress, an upgrade's name, or the speed card's token (the race's cards)


def corner_number(state: RaceState, after_space: int) -> int:
    """The corner's number as the printed board counts them, from the start line, a chicane once (both its lines
    are that corner; MODULES.md 20.2, 21.6, 22.2): the same number in set-up, play, tables and the board (issue
    29, bug 12). 0 for a space that holds no Corner Line."""
    corners = state.track.corners
    if not any(c.chicane_second_line_of is not None for c in corners):
        for i, c in enumerate(corners, start=1):
            if c.after_space == after_space:
                return i
        return 0
    for n, group in enumerate(circuits.corner_groups(state.track), start=1):  # a chicane's lines: one corner
        if any(corners[i].after_space == after_space for i in group):
            return n
    return 0


def gear_words(turn: Turn) -> str:
    if turn.from_gear == turn.gear:
        return f"stays in {ORDINAL[turn.gear]}"
    heat = f" (pays {turn.shift_heat} Heat)" if turn.shift_heat else ""
    base = 1 if abs(turn.from_gear - turn.gear) == 2 else 0
    if turn.gear < turn.from_gear and turn.shift_heat > base:  # # 22.4
        heat = f" (pays {turn.shift_heat} Heat; flooded: downshift costs 1 more Heat)"
    return f"shifts to {ORDINAL[turn.gear]}{heat}"


def played_words(turn: Turn, cards: Catalogue = BASE_CATALOGUE, state: RaceState | None = None) -> str:
    """The played cards in words, each Stress with what its flips found (``cards``: the race's catalogue; with
    ``state``, the cards a module adds by its names: a Garage race's upgrades by name and value, # 18.2)."""
    found = iter(turn.stress_found)
    parts = []
    named = card_namer(state) if state is not None else None
    direct: set[int] = set()
    for m in in_race(state) if state is not None else ():
        if m.played_aside is not None:
            direct.update(m.played_aside(turn))
    for i, c in enumerate(turn.played):
        if i in direct:
            continue  # played from the hand in React (# 18.19): told there
        if c == STRESS:
            got = next(found, "-")
            if got == "-" and not turn.revealed:  # its flip is still to come (# 5.2), not one that found nothing
                parts.append("Stress")
            else:
                parts.append(f"Stress→{got if got != '-' else 'nothing'}")
        elif state is not None and named is not None:
            parts.append(named(state, c))
        else:
            parts.append(cards.label(c))
    return " ".join(parts)


def narrate_turn(state: RaceState, turn: Turn) -> str:
    """One sentence (with semicolons) telling what happened in ``turn``."""
    space = state.track.space_of
    name = turn.car
    for m in in_race(state):  # a turn a module plays itself (a Legend's, # 19.7)
        own = m.narrate_turn(state, turn) if m.narrate_turn is not None else None
        if own is not None:
            return "; ".join(own + _finish_words(state, turn))
    head = f"{name} {gear_words(turn)}, plays {played_words(turn, state.cards, state)}"
    if turn.cluttered:
        return f"{head}: cluttered hand — no move, gear 1, the played cards go to discard (# 13.2)"
    if not turn.revealed:  # # 5.1: no Speed and no move before the reveal (and its Stress flips) is done
        return head if turn.played else f"{name} {gear_words(turn)}"
    named = card_namer(state)  # a module's names for the race's cards (the Garage's upgrades, # 18.2)
    name_of: Callable[[RaceState, str], str] = named if named is not None else _card
    raw: Callable[[str], str] = str  # the base narration shows drawn and discarded cards as typed
    if named is not None:
        raw = lambda c: named(state, c)  # noqa: E731
    basic = state.cards.basic
    # # 14.1: a flip skips these. The Stress flips' belong to step 3; a boost's to its boost (# 7.5), told there.
    skipped = [c for p, c in turn.flips if p != "boost" and c not in basic]
    boost_flips = iter([c for p, c in turn.flips if p == "boost"])
    step3 = turn.step3_speed  # the turn's own record (its happenings), never worked out again here
    parts = [head + f": speed {step3}"]
    if skipped:
        parts.append("flips past " + " ".join(name_of(state, c) for c in skipped))
    parts.append(f"moves {turn.moved}" + (" (blocked)" if turn.moved < step3 else ""))
    for kind, source, amount, moved in turn.happenings:
        if kind == "cooldown":
            parts.append(f"cools {amount} Heat")
        elif kind == "boost":
            paid = "free: heat control, MODULES.md 20.11" if source == "free" else "1 Heat"
            past = _past(name_of, state, _one_boost(boost_flips, basic))
            parts.append(f"boosts ({paid}): {past}+{amount}, moves {moved}")
        elif kind == "adrenaline" and source == "move":
            parts.append(f"adrenaline +1, moves {moved}")
        elif kind == "adrenaline":
            parts.append("adrenaline: one more Heat may be cooled")
    under_way = list(boost_flips)  # a boost whose flips have found no Basic card yet (# 7.5, 14.1)
    if under_way:
        parts.append("boosts: " + _past(name_of, state, under_way).rstrip(", "))
    for m in in_race(state):  # the modules' React symbols (the Garage's, # 18.x: each one used, in order)
        if m.narrate_react is not None:
            parts.extend(m.narrate_react(state, turn))
    if turn.speed != step3:  # React changed it (a boost, adrenaline, an upgrade): the speed the corners see
        parts.append(f"speed {turn.speed}")
    if turn.slipstream:
        parts.append(f"slipstreams {turn.slipstream_moved}")
    for cc in turn.corners:
        n = corner_number(state, cc.after_space)
        chicane = circuits.chicane_of(state.track, cc.after_space)  # # 22.1: each line checked on its own
        if chicane is not None:
            line = "first" if chicane.first.after_space == cc.after_space else "second"
            n = f"{n}, the chicane's {line} line"  # type: ignore[assignment]
        if cc.spinout:
            parts.append(
                f"crosses corner {n} (limit {cc.limit}): owes {cc.cost} Heat, has {cc.paid}: spins out, "
                f"back to space {space(turn.end) if turn.complete else space(state.cars[name].progress)}, "
                f"takes {turn.spinout_stress} Stress, gear 1"
            )
        elif cc.cost:
            parts.append(f"crosses corner {n} (limit {cc.limit}): pays {cc.cost} Heat")
        else:
            parts.append(f"crosses corner {n} (limit {cc.limit})")
    for m in in_race(state):  # the modules' words after the corners (the championship's sponsorship cards, # 21.7)
        if m.narrate_after is not None:
            parts.extend(m.narrate_after(state, turn))
    if turn.discarded:
        parts.append("discards " + " ".join(raw(c) for c in turn.discarded))
    elif turn.complete and not turn.cluttered and not turn.finished and state.track.in_tunnel(turn.end):
        parts.append("in a tunnel: no discard (# 22.6)")
    parts.extend(_finish_words(state, turn))
    if turn.drawn:
        drawn = " ".join(raw(c) for c in turn.drawn_cards)
        parts.append(f"draws {turn.drawn}" + (f" ({drawn})" if turn.drawn_cards else ""))
    return "; ".join(parts)


def _one_boost(flips: Iterator[str], basic: frozenset[str]) -> list[str]:
    """The cards one boost flipped past (# 14.1): taken from ``flips`` up to the Basic card it found."""
    out = []
    for c in flips:
        if c in basic:
            break
        out.append(c)
    return out


def _past(name_of: Callable[[RaceState, str], str], state: RaceState, skipped: list[str]) -> str:
    return "flips past " + " ".join(name_of(state, c) for c in skipped) + ", " if skipped else ""


def _finish_words(state: RaceState, turn: Turn) -> list[str]:
    if turn.finished:
        return ["crosses the finish line"]
    if turn.laps_before < _laps_after(state, turn):
        return [f"completes lap {_laps_after(state, turn)}"]
    return []


def _laps_after(state: RaceState, turn: Turn) -> int:
    return turn.laps_after if turn.complete else state.laps_done(state.cars[turn.car])
