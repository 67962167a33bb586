"""Card tokens and the starting deck (# 1.1, 1.2, 4.2, 4.3, 14.2)."""

from __future__ import annotations

BASIC = ("1", "2", "3", "4")  # carry the Basic (Speed) symbol: the only cards a flip can find (# 14.1)
UPGRADES = ("0", "5")  # Starting Upgrades: playable, no Basic symbol (# 4.3, 14.2)
HEAT = "H"  # Heat, including the Heat Starting Upgrade (# 4.2)
STRESS = "S"
CARDS = ("1", "2", "3", "4", "0", "5", "H", "S")
PLAYABLE = frozenset(("1", "2", "3", "4", "0", "5", "S"))  # # 4.2: Heat is not playable (except # 13)
DISCARDABLE = frozenset(("1", "2", "3", "4", "0", "5"))  # # 11.1: never Stress or Heat
VALUE = {"1": 1, "2": 2, "3": 3, "4": 4, "0": 0, "5": 5}

HAND_SIZE = 7  # # 1.2, 12.2
GEAR_COOLDOWN = {1: 3, 2: 1, 3: 0, 4: 0}  # # 7.2
SPINOUT_STRESS = {1: 1, 2: 1, 3: 2, 4: 2}  # # 10.3


def starting_deck(stress: int = 3) -> list[str]:
    """The draw deck before shuffling (# 1.2): 12 Basic, 0, 5, the Heat upgrade and the circuit's Stress
    (3 on the base circuits, # 22.9)."""
    return [c for c in BASIC for _ in range(3)] + ["0", "5", HEAT] + [STRESS] * stress


def engine_heat(handicap: bool, heat: int = 6) -> int:
    """Heat cards on the Engine at the start: the circuit's Heat (6 on the base circuits, # 22.9), one fewer
    for an experienced driver (# 17.2: 5 instead of 6; on other circuits read as one fewer)."""
    return heat - 1 if handicap else heat
