"""Moving on the track: where a car lands, blocking, placing it (# 5.3, 5.5, 7.9, 8.4, A7).

The one copy of the blocking rule: the rules move cars with it, and bots and analysis ask it where a move
would end (``landing``) instead of writing their own.
"""

from __future__ import annotations

from .state import Car, RaceState, Turn


def free(state: RaceState, p: int, lane: int, me: str) -> bool:
    """Whether the spot at progress ``p``, ``lane`` is free for the car ``me`` (its own spot counts, # A7)."""
    holder = state.spots.get((state.track.space_of(p), lane))
    return holder is None or holder == me


def place(state: RaceState, car: Car, p: int, lane: int) -> None:
    """Put ``car`` on the spot (``p``, ``lane``), leaving its old one."""
    n = state.track.spaces  # (track.space_of, inlined: every move places a car)
    spots = state.spots
    old = ((car.progress - 1) % n + 1, car.lane)
    if spots.get(old) == car.name:
        del spots[old]
    car.progress, car.lane = p, lane
    spots[((p - 1) % n + 1, lane)] = car.name


def landing(state: RaceState, car: Car, target: int, floor: int | None = None) -> tuple[int, int]:
    """Where ``car`` heading for ``target`` stops, as (progress, lane): the nearest space at or before it, not
    before ``floor`` (default: where the car is), with a free spot, race line first (# 5.3, 5.5, 7.9, 8.4).
    The car's own spot counts as free (# A7). Reads only the public board."""
    if floor is None:
        floor = car.progress
    track = state.track
    spots = state.spots
    lanes = track._lane_by_space  # the race line by space (track.race_lane, inlined: bots ask this a lot)
    n = track.spaces
    me = car.name
    q = target
    while q > floor:
        s = (q - 1) % n + 1
        race = lanes[s]
        holder = spots.get((s, race))
        if holder is None or holder == me:
            return q, race
        holder = spots.get((s, 3 - race))
        if holder is None or holder == me:
            return q, 3 - race
        q -= 1
    race = track.race_lane(floor)
    if free(state, floor, race, car.name):
        return floor, race
    if free(state, floor, 3 - race, car.name):
        return floor, 3 - race
    return car.progress, car.lane


def move(state: RaceState, car: Car, turn: Turn, n: int) -> int:
    """Move ``n`` spaces forward with blocking; returns the spaces actually moved."""
    if n <= 0:
        return 0
    start = car.progress
    p, lane = landing(state, car, start + n, start)
    place(state, car, p, lane)
    if p > turn.reached:
        turn.reached = p
    return p - start
