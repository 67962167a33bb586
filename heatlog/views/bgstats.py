"""The BG Stats "push a play" link for a finished race (issue 29, Build 6).

BG Stats documents a request URL that opens its import dialog with a play filled in
(https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/):
``https://app.bgstatsapp.com/createPlay.html?data=<data>``, ``<data>`` an URL-encoded JSON object with the game
(its BoardGameGeek id: Heat: Pedal to the Metal is 366013), the board, the play's date and the players with their
rank, winner flag and start player. Heat has no score: ``noPoints``. Only the fields of that documented example are
sent. Legends (MODULES.md 19) are not players and are left out, but their places count: a player's rank is the
car's place in the race (# 16.8, 19.9), so a solo player beaten by a Legend is not logged as its winner.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from ..engine import RaceState

BGG_ID = 366013  # Heat: Pedal to the Metal on BoardGameGeek
URL = "https://app.bgstatsapp.com/createPlay.html?data="


def bgstats_play(state: RaceState, *, played_at: str | None = None) -> dict[str, Any] | None:
    """The play as BG Stats reads it, or None while the race is not over. ``played_at``: "YYYY-MM-DD HH:MM:SS"."""
    if state.phase != "over":
        return None
    order = list(state.hall_of_fame)
    order += [n for n in state.cars if n not in order]  # eliminated (MA21): last
    pole = state.grid[0] if state.grid else None
    play: dict[str, Any] = {
        "board": state.track.name,
        "game": {"bggId": BGG_ID, "highestWins": False, "name": "Heat: Pedal to the Metal", "noPoints": True},
        "players": [  # a Legend is no player, but its place counts (# 19.9): beaten by one, a player did not win
            {"name": n, "rank": i, "winner": i == 1, "startPlayer": n == pole}
            for i, n in enumerate(order, 1)
            if not state.cars[n].legend
        ],
    }
    if played_at:
        play["playDate"] = played_at
    return play


def bgstats_link(state: RaceState, *, played_at: str | None = None) -> str | None:
    """The createPlay link of a finished race (None before the end)."""
    play = bgstats_play(state, played_at=played_at)
    if play is None:
        return None
    return URL + quote(json.dumps(play, separators=(",", ":"), ensure_ascii=False, allow_nan=False), safe="")
