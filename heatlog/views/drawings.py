"""Board drawings of the built-in circuits: where each spot lies on the printed board (``heatlog/data/drawings``,
validated by ``schema/drawing.schema.json``).

A drawing is looked up for a track by its id, and used only if it fits the track (same number of spaces, a
sign for exactly the track's corner lines): a user's track that borrows a built-in id but changes the circuit
is drawn schematically instead. Drawings are view data; they never enter a log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.track import Track

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

__all__ = ["DRAWINGS_DIR", "DRAWING_SCHEMA_PATH", "Drawing", "drawing_for", "load_drawing"]

DRAWINGS_DIR = Path(__file__).parent.parent / "data" / "drawings"
DRAWING_SCHEMA_PATH = Path(__file__).parent.parent / "schema" / "drawing.schema.json"

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Drawing:
    track: str
    spaces: int
    width: float
    height: float
    lane2_side: str
    spots: dict[tuple[int, int], tuple[float, float, float]]  # (space, lane) -> (x, y, angle in degrees)
    signs: dict[int, Point]  # corner line after space -> centre of its speed-limit sign
    podium: tuple[Point, ...]
    bridge_over: frozenset[int] = frozenset()
    bridge_under: tuple[int, ...] = ()


class DrawingError(ValueError):
    """A drawing file that is not what the schema and the checks say (an installation problem)."""


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # on first use: the board of a race without a drawing needs none

    schema = json.loads(DRAWING_SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def parse_drawing(data: Any, where: str = "drawing") -> Drawing:
    """Validate ``data`` (schema, then one spot per space and lane) and build the :class:`Drawing`."""
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        path = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        raise DrawingError(f"{where}: {path}: {err.message}")
    n = data["spaces"]
    spots: dict[tuple[int, int], tuple[float, float, float]] = {}
    for space, lane, x, y, angle in data["spots"]:
        if not 1 <= space <= n:
            raise DrawingError(f"{where}: spot of space {space} is not on the track (spaces are 1..{n})")
        if (space, lane) in spots:
            raise DrawingError(f"{where}: space {space} lane {lane} has two spots")
        spots[(space, lane)] = (float(x), float(y), float(angle))
    missing = [(s, lane) for s in range(1, n + 1) for lane in (1, 2) if (s, lane) not in spots]
    if missing:
        raise DrawingError(f"{where}: no spot for space {missing[0][0]} lane {missing[0][1]}")
    bridge = data.get("bridge") or {}
    return Drawing(
        track=data["track"],
        spaces=n,
        width=float(data["board"]["width"]),
        height=float(data["board"]["height"]),
        lane2_side=data["lane2_side"],
        spots=spots,
        signs={int(a): (float(x), float(y)) for a, x, y in data["signs"]},
        podium=tuple((float(x), float(y)) for x, y in data["podium"]),
        bridge_over=frozenset(bridge.get("over", ())),
        bridge_under=tuple(bridge.get("under", ())),
    )


@lru_cache(maxsize=16)
def load_drawing(track_id: str) -> Drawing | None:
    """The built-in drawing of ``track_id``, or None if there is none."""
    if not track_id or "/" in track_id or "\\" in track_id or track_id.startswith("."):
        return None
    path = DRAWINGS_DIR / f"{track_id}.json"
    if not path.is_file():
        return None
    return parse_drawing(json.loads(path.read_text(encoding="utf-8")), f"drawing {path}")


def drawing_for(track: Track) -> Drawing | None:
    """The board drawing that fits ``track``, or None (then the circuit is drawn schematically)."""
    drawing = load_drawing(track.id)
    if drawing is None or drawing.spaces != track.spaces:
        return None
    if set(drawing.signs) != {c.after_space for c in track.corners}:
        return None
    return drawing
