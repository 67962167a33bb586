"""Circuit data for module scenarios: the built-in boards, plus two expansion circuits written out here (the
corners only: lines, limits, Legend lines, chevrons, chicanes) from shared/reference/tracks/*.json."""

from __future__ import annotations

from typing import Any

from heatlog.tracks import validate_track_data


def _track(tid: str, spaces: int, laps: int, corners: list[tuple[Any, ...]]) -> dict[str, Any]:
    out = []
    for i, (after, limit, legend, chev, dchev, chicane_of) in enumerate(corners):
        out.append(
            {
                "after_space": after,
                "limit": limit,
                "race_line_lane_after": 1 + i % 2,
                "legend_line_after_space": legend,
                "legend_diamond_spaces": [after - k for k in range(4)],
                "chevron_spaces": chev,
                "double_chevron_spaces": dchev,
                "chicane_second_line_of": chicane_of,
            }
        )
    grid = [{"spot": g, "space": spaces - (g - 1) // 2, "lane": 1 if g % 2 else 2} for g in range(1, 9)]
    data = {
        "schema_version": 1,
        "id": tid,
        "name": tid.title(),
        "spaces": spaces,
        "laps": laps,
        "heat": 6,
        "stress": 3,
        "race_line_lane_from_finish": 1,
        "corners": out,
        "grid": grid,
    }
    return validate_track_data(data)


# reference tracks/netherlands.json: chicane 9/13, chevrons 7-9 (double on 9) and 11-13
NETHERLANDS = _track(
    "netherlands",
    55,
    3,
    [
        (9, 5, 1, [7, 8, 9], [9], None),
        (13, 5, 9, [11, 12, 13], [], 1),
        (16, 3, 13, [], [], None),
        (26, 8, 16, [], [], None),
        (34, 4, 27, [], [], None),
    ],
)

# reference tracks/spain.json: chicanes 29/32 and 95/98; both lines of 29/32 share the Legend line after 22
SPAIN = _track(
    "spain",
    109,
    1,
    [
        (11, 5, 3, [9, 10, 11], [], None),
        (15, 4, 11, [], [], None),
        (29, 4, 22, [27, 28, 29], [], None),
        (32, 4, 22, [], [], 3),
        (44, 2, 39, [], [], None),
        (65, 5, 57, [], [], None),
        (85, 2, 80, [], [], None),
        (92, 3, 86, [91, 92], [], None),
        (95, 4, 92, [93, 94, 95], [], None),
        (98, 4, 95, [98], [], 9),
        (103, 3, 98, [], [], None),
    ],
)
