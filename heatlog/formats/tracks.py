"""Load built-in or user track files, validated by ``schema/track.schema.json``.

A track is named either by a built-in id / alias (``usa``, ``gb``, ``italia``, ...) or by a path to a
user JSON file in the same format. Every problem with a file (unreadable, not JSON, schema violation,
inconsistent numbers) raises :class:`~heatlog.engine.errors.MalformedInput` whose message names the
file, the JSON path of the problem (``corners[2].limit``; list indexes are 0-based) and the complaint.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from heatlog.engine.errors import NOT_FOUND, MalformedInput
from heatlog.engine.track import V1_HEAT, V1_STRESS, Track

from .jsonio import json_path  # the one formatter of JSON locations

__all__ = [
    "BUILTIN_TRACKS",
    "TRACK_ALIASES",
    "SCHEMA_PATH",
    "TRACKS_DIR",
    "NOT_COVERED",
    "builtin_track_id",
    "load_track",
    "load_track_data",
    "track_problems",
    "track_warnings",
    "validate_track_data",
]

SCHEMA_PATH = Path(__file__).parent.parent / "schema" / "track.schema.json"
TRACKS_DIR = Path(__file__).parent.parent / "data" / "tracks"

BUILTIN_TRACKS: tuple[str, ...] = (
    "usa",
    "great-britain",
    "france",
    "italy",
    "japan",  # Heavy Rain (flooded spaces, a chicane)
    "mexico",  # Heavy Rain (two chicanes)
    "spain",  # Tunnel Vision (tunnels, two chicanes, 1 lap)
    "netherlands",  # Tunnel Vision (a chicane, a double chevron)
)
TRACK_ALIASES: dict[str, str] = {
    "gb": "great-britain",
    "great_britain": "great-britain",
    "italia": "italy",
    "espana": "spain",
    "españa": "spain",
    "nederland": "netherlands",
}
#: Circuits that exist in the sources but are not built in: their rules are unfinished everywhere (# 22.10).
NOT_COVERED: dict[str, str] = {
    "germany": "Germany",
    "deutschland": "Germany",
    "south-africa": "South Africa",
    "south_africa": "South Africa",
}

PathPart = str | int


def builtin_track_id(name: str) -> str | None:
    """The built-in track id that ``name`` denotes (case-insensitive, aliases allowed), else None."""
    key = name.strip().lower()
    if key in BUILTIN_TRACKS:
        return key
    if key in TRACK_ALIASES:
        return TRACK_ALIASES[key]
    key = key.replace("_", "-").replace(" ", "-")
    return key if key in BUILTIN_TRACKS else None


def load_track_data(name_or_path: str) -> dict[str, Any]:
    """The validated track dict of a built-in track (id or alias) or of a user JSON file (a path).

    A built-in name wins over a file of the same name in the current directory (write ``./usa`` for
    the file). The dict returned is the caller's own copy.
    """
    track_id = builtin_track_id(name_or_path)
    if track_id is not None:
        return json.loads(_builtin_text(track_id))  # a fresh copy (json's C decoder: a race's set-up pays no deepcopy)
    if "\x00" in name_or_path:  # no file system takes it (os.stat raises ValueError)
        raise MalformedInput(f"unknown track {name_or_path[:60]!r}: a track name or path has no NUL character")
    try:
        path = Path(name_or_path).expanduser()
    except RuntimeError:  # ~someone who has no home directory here: the name as typed
        path = Path(name_or_path)
    if not _exists(path) and not _looks_like_path(name_or_path):
        key = name_or_path.strip().lower().replace(" ", "-")
        if key in NOT_COVERED:
            raise MalformedInput(
                f"track {name_or_path!r}: {NOT_COVERED[key]} is not built in: its circuit data and its gravel "
                "rules are unfinished in every source (MODULES.md 22.10); give the path of your own track file "
                "to race it anyway"
            )
        raise MalformedInput(
            f"unknown track {name_or_path!r}: built-in tracks are {', '.join(BUILTIN_TRACKS)} "
            f"(aliases {', '.join(sorted(TRACK_ALIASES))}); or give the path of a track JSON file",
            words=NOT_FOUND,
        )
    return _upgrade_user_file(_read_track_file(path, str(path)))


def _exists(path: Path) -> bool:
    """Whether ``path`` names a file system entry; a name the file system refuses (too long: ``OSError``, which
    ``Path.exists`` raises) names none, so it is an unknown track or a file that cannot be read, never a crash
    (the recorder's set-up asks for the track and catches only heatlog's errors)."""
    try:
        return path.exists()
    except OSError:
        return False


def _upgrade_user_file(data: dict[str, Any]) -> dict[str, Any]:
    """A user's version-1 file read for a new race means what it says (# 22.9): when its circuit values or
    special spaces would make a difference, it becomes version 2. Logs keep the version they recorded."""
    if data["schema_version"] == 1:
        special = data.get("special_spaces", {})
        if (data["heat"], data["stress"]) != (V1_HEAT, V1_STRESS) or special.get("flooded") or special.get("tunnel"):
            data["schema_version"] = 2
    return data


def track_warnings(data: dict[str, Any]) -> list[str]:
    """What a user should hear before racing this (valid) track: features heatlog has no rule for (# 22.10)."""
    out: list[str] = []
    gravel = data.get("special_spaces", {}).get("gravel") or []
    if gravel:
        out.append(
            f"{data.get('name', data['id'])}: gravel spaces ({len(gravel)}) have no rule in any source and are not "
            "covered: they are drawn but change nothing (MODULES.md 22.10)"
        )
    return out


def load_track(name_or_path: str) -> Track:
    """The :class:`Track` of a built-in track (cached) or of a user track file (read every time)."""
    track_id = builtin_track_id(name_or_path)
    if track_id is not None:
        return _builtin_track(track_id)
    return Track.from_dict(load_track_data(name_or_path))


def validate_track_data(data: Any, where: str = "track") -> dict[str, Any]:
    """Check ``data`` against the track schema and the semantic rules; return it unchanged.

    ``where`` names the origin (a file name) in the error message.
    """
    errors = list(_validator().iter_errors(data))
    if errors:
        err = best_match(errors)
        path, complaint = _describe_schema_error(err)
        more = len(errors) - 1
        suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        raise MalformedInput(f"{where}: {path}: {complaint}{suffix}")
    problems = track_problems(data)
    if problems:
        path_parts, complaint = problems[0]
        more = len(problems) - 1
        suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        raise MalformedInput(f"{where}: {_format_path(path_parts)}: {complaint}{suffix}")
    assert isinstance(data, dict)
    return data


# --- built-ins (cached) -------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def _builtin_data(track_id: str) -> dict[str, Any]:
    path = TRACKS_DIR / f"{track_id}.json"
    return _read_track_file(path, f"built-in track {track_id} ({path})")


@lru_cache(maxsize=16)
def _builtin_text(track_id: str) -> str:
    """The validated built-in track as JSON text, from which every caller gets its own copy."""
    return json.dumps(_builtin_data(track_id), ensure_ascii=False, allow_nan=False)


@lru_cache(maxsize=16)
def _builtin_track(track_id: str) -> Track:
    return Track.from_dict(copy.deepcopy(_builtin_data(track_id)))


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    try:
        schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # an installation problem, not the user's
        raise RuntimeError(f"cannot read the track schema {SCHEMA_PATH}: {exc}") from exc
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


# --- reading ------------------------------------------------------------------------------------------


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.lower().endswith(".json") or text.startswith(("~", "."))


def _read_track_file(path: Path, where: str) -> dict[str, Any]:
    from .jsonio import MAX_SMALL_BYTES, decode_text, loads, read_file_bytes

    label = f"track file {where}"
    if _exists(path) and path.is_dir():
        raise MalformedInput(f"{label}: is a directory, not a JSON file")
    raw = read_file_bytes(path, label, limit=MAX_SMALL_BYTES)  # a device or a FIFO too: bounded
    return validate_track_data(loads(decode_text(raw, label), label), label)


# --- error locations ----------------------------------------------------------------------------------


def _format_path(parts: Iterable[PathPart]) -> str:
    return json_path(parts) or "(top level)"


def _describe_schema_error(err: ValidationError) -> tuple[str, str]:
    """(JSON path, complaint) of a schema error; for a missing or unexpected property the path names it."""
    parts: list[PathPart] = list(err.absolute_path)
    instance = err.instance
    if err.validator == "required" and isinstance(instance, dict):
        missing = [key for key in err.validator_value if key not in instance]
        if missing:
            parts.append(missing[0])
            return _format_path(parts), f"missing required field {missing[0]!r}"
    if err.validator == "additionalProperties" and isinstance(instance, dict):
        known = set(err.schema.get("properties", {})) if isinstance(err.schema, dict) else set()
        extra = sorted(key for key in instance if key not in known)
        if extra:
            parts.append(extra[0])
            allowed = ", ".join(sorted(known))
            return _format_path(parts), f"unknown field {extra[0]!r} (allowed: {allowed})"
    return _format_path(parts), err.message


# --- semantic checks ----------------------------------------------------------------------------------


def track_problems(data: dict[str, Any]) -> list[tuple[Sequence[PathPart], str]]:
    """(JSON path parts, complaint) of every problem of a schema-valid track that the schema cannot express:
    corner lines in order and on the track, grid spots, space references, a name that can be shown."""
    from .usertext import name_problem

    problems = _semantic_problems(data)
    why = name_problem(data.get("name"))
    if why:
        problems.insert(0, (("name",), f"{data.get('name')!r} {why}"))
    return problems


def _semantic_problems(data: dict[str, Any]) -> list[tuple[Sequence[PathPart], str]]:
    """Problems the schema cannot express (called only on schema-valid data)."""
    problems: list[tuple[Sequence[PathPart], str]] = []
    n: int = data["spaces"]

    def space_in_range(path: Sequence[PathPart], value: Any) -> None:
        if isinstance(value, int) and not 1 <= value <= n:
            problems.append((path, f"space {value} is not on the track (spaces are 1..{n})"))

    previous: int | None = None
    letters: dict[str, int] = {}
    for i, corner in enumerate(data["corners"]):
        after = corner["after_space"]
        space_in_range(("corners", i, "after_space"), after)
        if previous is not None and after <= previous:
            problems.append(
                (
                    ("corners", i, "after_space"),
                    f"corner line after space {after} does not come after the previous one "
                    f"(after space {previous}); corners must be listed in race order, each once",
                )
            )
        previous = after
        space_in_range(("corners", i, "legend_line_after_space"), corner.get("legend_line_after_space"))
        for key in ("legend_diamond_spaces", "chevron_spaces", "double_chevron_spaces"):
            for j, space in enumerate(corner.get(key, [])):
                space_in_range(("corners", i, key, j), space)
        chicane = corner.get("chicane_second_line_of")
        if chicane is not None and chicane != i:
            problems.append(
                (
                    ("corners", i, "chicane_second_line_of"),
                    f"a chicane's second line belongs to the previous corner (number {i}, counting from 1), "
                    f"not {chicane}",
                )
            )
        elif chicane is not None and corner["limit"] != data["corners"][i - 1]["limit"]:
            problems.append(
                (
                    ("corners", i, "limit"),
                    f"a chicane's two lines have the same speed limit (# 22.1): this line has {corner['limit']}, "
                    f"its first line {data['corners'][i - 1]['limit']}",
                )
            )
        letter = corner.get("press")
        if letter is not None:
            if letter in letters:
                problems.append(
                    (
                        ("corners", i, "press"),
                        f"press letter {letter} is on two corners (also corners[{letters[letter]}])",
                    )
                )
            else:
                letters[letter] = i

    seen_spots: dict[int, int] = {}
    seen_places: dict[tuple[int, int], int] = {}
    for i, spot in enumerate(data["grid"]):
        space_in_range(("grid", i, "space"), spot["space"])
        number = spot["spot"]
        if number in seen_spots:
            problems.append((("grid", i, "spot"), f"grid spot {number} listed twice (also grid[{seen_spots[number]}])"))
        else:
            seen_spots[number] = i
        place = (spot["space"], spot["lane"])
        if place in seen_places:
            problems.append(
                (
                    ("grid", i),
                    f"grid spot {number} is on space {place[0]} lane {place[1]}, "
                    f"like grid[{seen_places[place]}]; each grid spot needs its own place",
                )
            )
        else:
            seen_places[place] = i
    expected = set(range(1, len(data["grid"]) + 1))
    if set(seen_spots) != expected and len(seen_spots) == len(data["grid"]):
        gaps = sorted(expected - set(seen_spots))
        problems.append(
            (
                ("grid",),
                f"grid spots must be numbered 1..{len(data['grid'])} without gaps (missing {gaps})",
            )
        )

    for key, spaces in data.get("special_spaces", {}).items():
        for j, space in enumerate(spaces):
            space_in_range(("special_spaces", key, j), space)
    return problems
