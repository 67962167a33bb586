"""Track geometry as the engine sees it (built from a track dict; files are loaded outside the core).

Coordinates (see docs/design.md): a car's place is an absolute *progress* ``p``; the grid has ``p <= 0``,
space of ``p`` is ``((p - 1) % N) + 1``; a corner line "after space c" lies at ``c + k*N``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Corner:
    after_space: int
    limit: int
    race_line_lane_after: int
    legend_line_after_space: int | None = None


@dataclass(frozen=True, slots=True)
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
    _lane_by_space: tuple[int, ...] = field(compare=False, repr=False, hash=False, default=())

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
        return cls(
            id=str(data["id"]),
            name=str(data.get("name", data["id"])),
            spaces=n,
            laps=int(data["laps"]),
            heat=int(data.get("heat", 6)),
            stress=int(data.get("stress", 3)),
            race_line_lane_from_finish=int(data["race_line_lane_from_finish"]),
            corners=corners,
            grid=grid,
            data=data,
            _lane_by_space=tuple(lanes),
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> Track:
        return self  # immutable

    def space_of(self, p: int) -> int:
        return (p - 1) % self.spaces + 1

    def race_lane(self, p: int) -> int:
        """The lane holding the race line on the space of progress ``p`` (# 1.5, C9)."""
        return self._lane_by_space[(p - 1) % self.spaces + 1]

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
