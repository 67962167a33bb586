"""How the bots play a championship race (``Module.bot_policy``): the race's event card may make a spinout end
the car's race (event 10, MODULES.md 21.8, MA21: 0 points, last place), which the heuristic weighs beyond the
spaces and Stress a spinout loses. (The season draft's swap, # 21.2, is valued with the Garage's upgrades by the
Garage's policy: the draft is the Garage's.) The bots ask this policy, never the championship's rules by name
(issue 26)."""

from __future__ import annotations

from ...module import BotPolicy
from .rules import spinout_eliminates

POLICY = BotPolicy(spinout_eliminates=spinout_eliminates)


def policy() -> BotPolicy:
    """The championship's bot policy (``Module.bot_policy``)."""
    return POLICY
