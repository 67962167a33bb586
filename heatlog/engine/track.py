"""Track geometry as the engine sees it (built from a track dict; files are loaded outside the core).

Coordinates (see docs/design.md): a car's place is an absolute *progress* ``p``; the grid has ``p <= 0``,
space of ``p`` is ``((p - 1) % N) + 1``; a corner line "after space c" lies at ``c + k*N``.

Besides the geometry the engine needs, a Track carries the circuit's features as data for the rules and the
modules: per corner its Legend line, diamonds and chevrons (# 19.7, 19.14), the chicane it closes (# 22.1) and
its press letter (# 21.6); per space whether it is flooded (# 22.4) or in a tunnel (# 22.6); and the circuit
values (# 22.9). ``schema_version`` 1 tracks predate 22.9: they set up 6 Heat and 3 Stress and have no
flooded or tunnel effect whatever they list (so an old log replays as it was recorded).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from .written import record

V1_HEAT, V1_STRESS = 6, 3  # what a schema_version 1 track set up, whatever it listed (# 1.2)


@record(frozen=True, slots=True)
class Corner:
    after_space: int
    limit: int
    race_line_lane_after: int
    legend_line_after_space: int | None = None
    legend_diamond_spaces: tuple[int, ...] = ()  # diamond 0, 1, 2, 3 (# 19.4, 19.7)
    chevron_spaces: frozenset[int] = frozenset()  # # 19.14: one extra corner line
    double_chevron_spaces: frozenset[int] = frozenset()  # # 19.14: two extra corner lines
    chicane_second_line_of: int | None = None  # # 22.1: 1-based number of the chicane's first line
    press: str | None = None  # # 21.6: press letter (the second line of a chicane carries it, # 22.3)

    def __init__(
        self,
        after_space: int,
        limit: int,
        race_line_lane_after: int,
        legend_line_after_space: int | None = None,
        legend_diamond_spaces: tuple[int, ...] = (),
        chevron_spaces: frozenset[int] = frozenset(),
        double_chevron_spaces: frozenset[int] = frozenset(),
        chicane_second_line_of: int | None = None,
        press: str | None = None,
    ) -> None:
        object.__setattr__(self, "after_space", after_space)
        object.__setattr__(self, "limit", limit)
        object.__setattr__(self, "race_line_lane_after", race_line_lane_after)
        object.__setattr__(self, "legend_line_after_space", legend_line_after_space)
        object.__setattr__(self, "legend_diamond_spaces", legend_diamond_spaces)
        object.__setattr__(self, "chevron_spaces", chevron_spaces)
        object.__setattr__(self, "double_chevron_spaces", double_chevron_spaces)
        object.__setattr__(self, "chicane_second_line_of", chicane_second_line_of)
        object.__setattr__(self, "press", press)

    @property
    def is_chicane_second_line(self) -> bool:
        return self.chicane_second_line_of is not None

    def chevrons(self, space: int) -> int:
        """The extra corner lines a Legend may cross from ``space`` by this corner's chevrons (# 19.14): 2 for a
        double chevron (which wins where a space is marked both), 1 for a single, 0 for none. Printed on every
        board, read by the Legends' rules and drawn by the HTML replay from here."""
        return 2 if space in self.double_chevron_spaces else 1 if space in self.chevron_spaces else 0


@record(frozen=True, slots=True)
class Track:
    id: str
    name: str
    spaces: int
    laps: int
    heat: int
    stress: int
    race_line_lane_from_finish: int
    corners: tuple[Corner, ...]
    grid: tuple[tuple[int, int], ...]  # (space, lane) for grid spot 1, 2, ...
    data: dict[str, Any] = field(compare=False, repr=False, hash=False)
    schema_version: int = 1
    flooded: frozenset[int] = frozenset()  # spaces (both spots, MA16) that take effect: # 22.4
    tunnel: frozenset[int] = frozenset()  # spaces (both spots, MA16) that take effect: # 22.6
    _lane_by_space: tuple[int, ...] = field(compare=False, repr=False, hash=False, default=())

    def __init__(
        self,
        id: str,
        name: str,
        spaces: int,
        laps: int,
        heat: int,
        stress: int,
        race_line_lane_from_finish: int,
        corners: tuple[Corner, ...],
        grid: tuple[tuple[int, int], ...],
        data: dict[str, Any],
        schema_version: int = 1,
        flooded: frozenset[int] = frozenset(),
        tunnel: frozenset[int] = frozenset(),
        _lane_by_space: tuple[int, ...] = (),
    ) -> None:
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "spaces", spaces)
        object.__setattr__(self, "laps", laps)
        object.__setattr__(self, "heat", heat)
        object.__setattr__(self, "stress", stress)
        object.__setattr__(self, "race_line_lane_from_finish", race_line_lane_from_finish)
        object.__setattr__(self, "corners", corners)
        object.__setattr__(self, "grid", grid)
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "schema_version", schema_version)
        object.__setattr__(self, "flooded", flooded)
        object.__setattr__(self, "tunnel", tunnel)
        object.__setattr__(self, "_lane_by_space", _lane_by_space)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Track:
        corners = tuple(
            sorted(
                (
                    Corner(
                        after_space=int(c["after_space"]),
                        limit=int(c["limit"]),
                        race_line_lane_after=int(c["race_line_lane_after"]),
                        legend_line_after_space=c.get("legend_line_after_space"),
                        legend_diamond_spaces=tuple(int(x) for x in c.get("legend_diamond_spaces", ())),
                        chevron_spaces=frozenset(int(x) for x in c.get("chevron_spaces", ())),
                        double_chevron_spaces=frozenset(int(x) for x in c.get("double_chevron_spaces", ())),
                        chicane_second_line_of=c.get("chicane_second_line_of"),
                        press=c.get("press"),
                    )
                    for c in data["corners"]
                ),
                key=lambda c: c.after_space,
            )
        )
        n = int(data["spaces"])
        lanes = [0] * (n + 1)
        lane = int(data["race_line_lane_from_finish"])
        by_after = {c.after_space: c.race_line_lane_after for c in corners}
        for s in range(1, n + 1):
            lanes[s] = lane
            if s in by_after:  # the race line changes at the corner line after space s
                lane = by_after[s]
        grid = tuple((int(g["space"]), int(g["lane"])) for g in sorted(data["grid"], key=lambda g: g["spot"]))
        version = int(data.get("schema_version", 1))
        special = data.get("special_spaces") or {}
        current = version >= 2  # # 22.9: values and special spaces take effect from schema_version 2
        return cls(
            id=str(data["id"]),
            name=str(data.get("name", data["id"])),
            spaces=n,
            laps=int(data["laps"]),
            heat=int(data.get("heat", V1_HEAT)) if current else V1_HEAT,
            stress=int(data.get("stress", V1_STRESS)) if current else V1_STRESS,
            race_line_lane_from_finish=int(data["race_line_lane_from_finish"]),
            corners=corners,
            grid=grid,
            data=data,
            schema_version=version,
            flooded=frozenset(int(x) for x in special.get("flooded", ())) if current else frozenset(),
            tunnel=frozenset(int(x) for x in special.get("tunnel", ())) if current else frozenset(),
            _lane_by_space=tuple(lanes),
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> Track:
        return self  # immutable

    def space_of(self, p: int) -> int:
        return (p - 1) % self.spaces + 1

    def race_lane(self, p: int) -> int:
        """The lane holding the race line on the space of progress ``p`` (# 1.5, C9)."""
        return self._lane_by_space[(p - 1) % self.spaces + 1]

    def is_flooded(self, p: int) -> bool:
        """Is the space of progress ``p`` flooded (# 22.4; both spots, MA16)? The grid is never flooded."""
        return p > 0 and self.space_of(p) in self.flooded

    def in_tunnel(self, p: int) -> bool:
        """Is the space of progress ``p`` inside a tunnel (# 22.6; both spots, MA16)?"""
        return p > 0 and self.space_of(p) in self.tunnel

    def sector_of(self, p: int) -> int:
        """The 1-based number of the corner whose sector holds the space of ``p``: the last corner line behind
        it, wrapping through the finish line (# 20.6; the spaces inside a chicane are the sector of its first
        line). Grid spaces belong to the last corner's sector."""
        space = self.space_of(p)
        number = len(self.corners)
        for i, c in enumerate(self.corners, start=1):
            if c.after_space < space:
                number = i
        return number

    def corner_number(self, after_space: int) -> int:
        """The 1-based number of the corner line after ``after_space`` (KeyError if there is none)."""
        for i, c in enumerate(self.corners, start=1):
            if c.after_space == after_space:
                return i
        raise KeyError(after_space)

    def has_chevrons(self) -> bool:
        """Whether any corner of the circuit has a chevron (# 19.14)."""
        return any(c.chevron_spaces or c.double_chevron_spaces for c in self.corners)

    def chicanes(self) -> list[tuple[Corner, Corner]]:
        """(first line, second line) of every chicane, in race order (# 22.1)."""
        return [
            (self.corners[c.chicane_second_line_of - 1], c)
            for c in self.corners
            if c.chicane_second_line_of is not None and 1 <= c.chicane_second_line_of <= len(self.corners)
        ]

    def press_corners(self) -> dict[str, Corner]:
        """Press letter -> the corner line that carries it (# 21.6, 22.3)."""
        return {c.press: c for c in self.corners if c.press}

    def grid_progress(self, spot: int) -> tuple[int, int]:
        """(progress, lane) of grid spot ``spot`` (1-based, # 1.4)."""
        space, lane = self.grid[spot - 1]
        return space - self.spaces, lane

    def corner_lines_between(self, start: int, end: int, final_line: int) -> list[tuple[int, Corner]]:
        """Corner lines crossed moving from progress ``start`` to ``end`` (start < end), in track order,
        ignoring lines beyond the final finish line ``final_line`` (# 9.1, 16.4)."""
        n = self.spaces
        out: list[tuple[int, Corner]] = []
        if end <= start:
            return out
        k = (start // n) - 1
        while True:
            base = k * n
            if base > end:
                break
            for c in self.corners:
                line = base + c.after_space
                if start <= line < end and line <= final_line:
                    out.append((line, c))
            k += 1
        return out
