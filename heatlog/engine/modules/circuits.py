"""Expansion circuit features (MODULES.md 22): flooded spaces, tunnels, chicanes and press corners. Pure.

The features are data on the :class:`~heatlog.engine.track.Track` (flooded and tunnel spaces, each corner's
chicane and press letter); these functions are what the rules ask of them, so that the step machine, the
decision helpers and the views read one answer:

* :func:`shift_heat` — the Heat a gear shift costs in step 1: the base cost (# 3.2, 3.3) plus 1 for a
  downshift by a car that started the round on a flooded space (# 22.4, MA16), also when its hand is cluttered
  (# 22.5).
* :func:`may_discard` — whether a car may discard from its hand where it stands: never on a tunnel space, and
  that wins over every event that allows a discard (# 22.6, 21.13); Scrap and cooldown are not discards.
* :func:`chicane_of` — the chicane a Corner Line belongs to (# 22.1): each of its two lines is checked and paid.
* :func:`press_corner` — the Corner Line that carries a press letter (# 21.6, 22.3), wrapping as BGA does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..track import Corner, Track
from ..written import record

if TYPE_CHECKING:
    from ..state import RaceState

FLOODED_SURCHARGE = 1  # # 22.4: each downshift from a flooded space costs 1 more Heat


def flooded_surcharge(track: Track, round_start_progress: int, from_gear: int, to_gear: int) -> int:
    """The extra Heat of a step-1 shift (# 22.4): 1 for shifting down when the car started the round on a
    flooded space (MA16: its space before any car moved), else 0. Shifting up or staying costs as usual."""
    if to_gear < from_gear and track.is_flooded(round_start_progress):
        return FLOODED_SURCHARGE
    return 0


def shift_heat(track: Track, round_start_progress: int, from_gear: int, to_gear: int) -> int:
    """All the Heat a step-1 shift costs: # 3.2, 3.3 plus the flooded surcharge (# 22.4: one gear down from a
    flooded space costs 1, two gears down 2). Paid at the shift, before any card effect; a cluttered hand
    still pays it (# 22.5)."""
    heat = 1 if abs(to_gear - from_gear) == 2 else 0  # # 3.2, 3.3 (asked for every gear a bot weighs)
    if to_gear < from_gear and track.flooded:
        heat += flooded_surcharge(track, round_start_progress, from_gear, to_gear)
    return heat


def shift_heat_by_space(track: Track) -> bool:
    """Whether :func:`shift_heat` on this circuit can depend on the car's space (only a flooded space makes it,
    # 22.4): where it cannot, a shift's cost is a function of the two gears alone (callers may keep it)."""
    return bool(track.flooded)


def may_discard(track: Track, progress: int) -> bool:
    """# 22.6: no card may be discarded from the hand of a car on a tunnel space (step 8, Reduce Stress, an
    event's discard: this wins over all of them, # 21.13). The car's space at the moment of the discard counts
    (MA16). Scrap, cooldown, Salvage, Super Cool and Refresh are not discards from hand."""
    return not (track.tunnel and track.in_tunnel(progress))  # (most circuits have no tunnel: asked per decision)


@record(frozen=True, slots=True)
class Chicane:
    """The two consecutive Corner Lines of a chicane, each checked and paid (# 22.1)."""

    first: Corner
    second: Corner

    def __init__(self, first: Corner, second: Corner) -> None:
        object.__setattr__(self, "first", first)
        object.__setattr__(self, "second", second)

    @property
    def spaces(self) -> tuple[int, ...]:
        """The spaces between the two lines (the stretch inside the chicane)."""
        return tuple(range(self.first.after_space + 1, self.second.after_space + 1))


def chicane_of(track: Track, after_space: int) -> Chicane | None:
    """The chicane whose first or second line is the Corner Line after ``after_space`` (# 22.1), else None."""
    for first, second in track.chicanes():
        if after_space in (first.after_space, second.after_space):
            return Chicane(first, second)
    return None


def press_corner(track: Track, letter: str) -> Corner | None:
    """The Corner Line carrying the press letter (# 21.6, 22.3). A letter beyond the circuit's press corners
    wraps (index mod count, e.g. 'E' on Italy's three = 'B'; BGA ``Circuit::getPressCornersMapping``)."""
    lettered = [c for c in track.corners if c.press]
    if not lettered or len(letter) != 1 or not "A" <= letter <= "Z":
        return None
    return lettered[(ord(letter) - ord("A")) % len(lettered)]


def describe_space(track: Track, progress: int) -> list[str]:
    """What a car standing on this space is subject to, in a player's words (for the board and narration)."""
    out = []
    if track.is_flooded(progress):
        out.append("flooded: downshift costs 1 more Heat (# 22.4)")
    if track.in_tunnel(progress):
        out.append("tunnel: no discard (# 22.6)")
    return out


def corner_groups(track: Track) -> list[tuple[int, ...]]:
    """The corners as the printed board counts them (each receives one road-condition token, # 20.2), in racing
    order, as tuples of Corner Line indexes: a chicane's two lines are one corner (# 20.2, 22.2)."""
    groups: list[list[int]] = []
    for i, c in enumerate(track.corners):
        second_of = c.chicane_second_line_of
        if second_of is not None and groups and groups[-1][-1] == second_of - 1:
            groups[-1].append(i)
        else:
            groups.append([i])
    return [tuple(g) for g in groups]


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
    for n, group in enumerate(corner_groups(state.track), start=1):  # a chicane's lines: one corner
        if any(corners[i].after_space == after_space for i in group):
            return n
    return 0
