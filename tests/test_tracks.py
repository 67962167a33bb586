"""Tracks as data: the schema, the four built-in circuits and the loader's error messages."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from heatlog.engine.errors import MalformedInput
from heatlog.engine.track import Track
from heatlog.tracks import (
    BUILTIN_TRACKS,
    SCHEMA_PATH,
    TRACKS_DIR,
    load_track,
    load_track_data,
)

# (spaces, laps, heat, stress, [(after_space, limit), ...]) from the reference README summary table
EXPECTED = {
    "usa": (69, 2, 6, 3, [(12, 7), (33, 3), (49, 3), (57, 2)]),
    "great-britain": (63, 2, 6, 3, [(15, 10), (30, 6), (37, 5), (43, 4), (48, 3)]),
    "france": (60, 2, 6, 3, [(12, 5), (20, 2), (27, 4), (39, 3), (47, 4)]),
    "italy": (54, 3, 6, 3, [(10, 5), (19, 2), (26, 3)]),
}
NAMES = {"usa": "USA", "great-britain": "Great Britain", "france": "France", "italy": "Italy"}


def write(tmp_path: Path, data: Any, name: str = "custom.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def usa_copy() -> dict[str, Any]:
    data = load_track_data("usa")
    data["id"] = "my-usa"
    data["name"] = "My USA"
    return data


def refused(path: Path) -> str:
    with pytest.raises(MalformedInput) as info:
        load_track(str(path))
    message = str(info.value)
    assert message.startswith("malformed: ")
    assert str(path) in message
    return message


# --- schema and data files ------------------------------------------------------------------------------


def test_schema_is_valid_draft_2020_12() -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("/track.schema.json")
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["corner"]["additionalProperties"] is False
    for key, prop in schema["properties"].items():
        assert "title" in prop and "description" in prop, key


def test_builtin_files_are_exactly_the_builtins() -> None:
    assert BUILTIN_TRACKS == ("usa", "great-britain", "france", "italy")
    assert sorted(p.stem for p in TRACKS_DIR.glob("*.json")) == sorted(BUILTIN_TRACKS)


@pytest.mark.parametrize("track_id", BUILTIN_TRACKS)
def test_builtin_track_matches_reference_figures(track_id: str) -> None:
    spaces, laps, heat, stress, corners = EXPECTED[track_id]
    track = load_track(track_id)
    assert isinstance(track, Track)
    assert track.id == track_id
    assert track.name == NAMES[track_id]
    assert (track.spaces, track.laps, track.heat, track.stress) == (spaces, laps, heat, stress)
    assert [(c.after_space, c.limit) for c in track.corners] == corners
    assert track.race_line_lane_from_finish == 1
    data = load_track_data(track_id)
    assert data["schema_version"] == 1 and data["set"] == "base"
    assert "shared/reference/tracks/" in data["source"]


@pytest.mark.parametrize("track_id", BUILTIN_TRACKS)
def test_builtin_grid(track_id: str) -> None:
    track = load_track(track_id)
    n = track.spaces
    assert len(track.grid) == 8
    assert track.grid[0] == (n, 1)
    assert track.grid[1] == (n, 2)
    assert track.grid[2] == (n - 1, 1)
    for g in range(1, 9):  # the design's formula: space N - (g-1)//2, lane 1 for odd g
        assert track.grid[g - 1] == (n - (g - 1) // 2, 1 if g % 2 else 2)
    assert track.grid_progress(1) == (0, 1)
    assert track.grid_progress(3) == (-1, 1)


@pytest.mark.parametrize("track_id", BUILTIN_TRACKS)
def test_builtin_diamonds_are_the_four_spaces_before_each_corner(track_id: str) -> None:
    for corner in load_track_data(track_id)["corners"]:
        c = corner["after_space"]
        assert corner["legend_diamond_spaces"] == [c, c - 1, c - 2, c - 3]
        assert corner["legend_line_after_space"] < c


def test_builtin_legend_lines_press_and_chevrons() -> None:
    usa = load_track("usa")
    assert [c.legend_line_after_space for c in usa.corners] == [2, 27, 43, 52]
    assert [c["press"] for c in usa.data["corners"]] == ["A", "B", "C", "D"]
    gb = load_track_data("great-britain")
    assert [c["chevron_spaces"] for c in gb["corners"]] == [[], [30], [37], [43], []]
    assert [c["press"] for c in gb["corners"]] == ["A", "B", "C", "D", "E"]
    italy = load_track("italy")
    assert [c.race_line_lane_after for c in italy.corners] == [1, 2, 1]
    assert [c.legend_line_after_space for c in italy.corners] == [2, 14, 20]


# --- geometry through the engine ------------------------------------------------------------------------


def test_usa_race_lane_per_sector() -> None:
    usa = load_track("usa")
    expected = {1: 1, 5: 1, 12: 1, 13: 2, 33: 2, 34: 2, 49: 2, 50: 2, 57: 2, 58: 1, 69: 1}
    for space, lane in expected.items():
        assert usa.race_lane(space) == lane, space
        assert usa.race_lane(space + usa.spaces) == lane, space  # second lap
    assert usa.race_lane(0) == 1  # grid spot 1 (space 69)


def test_france_race_lane_per_sector() -> None:
    france = load_track("france")
    # lanes after the corner lines 12, 20, 27, 39, 47: 1, 1, 2, 1, 1; from the finish: 1
    expected = {1: 1, 12: 1, 13: 1, 20: 1, 21: 1, 27: 1, 28: 2, 39: 2, 40: 1, 47: 1, 48: 1, 60: 1}
    for space, lane in expected.items():
        assert france.race_lane(space) == lane, space


def test_corner_lines_between_on_a_lap_crossing_move() -> None:
    usa = load_track("usa")
    final = usa.laps * usa.spaces
    # space 55 lap 1 -> space 14 lap 2: crosses the lines after 57 (lap 1) and after 12 (lap 2)
    crossed = usa.corner_lines_between(55, 69 + 14, final)
    assert [(line, c.after_space, c.limit) for line, c in crossed] == [(57, 57, 2), (81, 12, 7)]
    # stopping on the corner's space does not cross its line; entering the next space does
    assert usa.corner_lines_between(50, 57, final) == []
    assert [line for line, _ in usa.corner_lines_between(50, 58, final)] == [57]
    # from the grid: start crossing, then corner 1
    assert [line for line, _ in usa.corner_lines_between(-1, 13, final)] == [12]
    # lines beyond the final finish line are ignored
    assert [line for line, _ in usa.corner_lines_between(69 + 55, 2 * 69 + 15, final)] == [69 + 57]


def test_italy_three_laps_corner_lines() -> None:
    italy = load_track("italy")
    final = italy.laps * italy.spaces
    crossed = italy.corner_lines_between(2 * 54 + 25, 2 * 54 + 54 + 11, final)
    assert [line for line, _ in crossed] == [2 * 54 + 26]


# --- names, aliases, caching ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "track_id"),
    [
        ("gb", "great-britain"),
        ("great_britain", "great-britain"),
        ("Great-Britain", "great-britain"),
        ("italia", "italy"),
        ("USA", "usa"),
    ],
)
def test_aliases(name: str, track_id: str) -> None:
    assert load_track(name).id == track_id
    assert load_track_data(name)["id"] == track_id


def test_builtin_tracks_are_cached_and_data_is_a_copy() -> None:
    assert load_track("usa") is load_track("usa")
    assert load_track("gb") is load_track("great-britain")
    data = load_track_data("usa")
    data["corners"][0]["limit"] = 99
    assert load_track_data("usa")["corners"][0]["limit"] == 7
    assert load_track("usa").corners[0].limit == 7


def test_unknown_name_lists_builtins() -> None:
    with pytest.raises(MalformedInput) as info:
        load_track("monaco")
    message = str(info.value)
    assert "monaco" in message
    for track_id in BUILTIN_TRACKS:
        assert track_id in message


# --- user files -----------------------------------------------------------------------------------------


def test_user_track_by_path(tmp_path: Path) -> None:
    data = {
        "schema_version": 1,
        "id": "oval",
        "name": "Test Oval",
        "spaces": 20,
        "laps": 1,
        "heat": 5,
        "stress": 2,
        "race_line_lane_from_finish": 2,
        "corners": [
            {"after_space": 5, "limit": 3, "race_line_lane_after": 1},
            {"after_space": 15, "limit": 4, "race_line_lane_after": 2, "chicane_second_line_of": None},
        ],
        "grid": [{"spot": 1, "space": 20, "lane": 1}, {"spot": 2, "space": 19, "lane": 2}],
    }
    path = write(tmp_path, data)
    track = load_track(str(path))
    assert (track.id, track.name, track.spaces, track.laps, track.heat, track.stress) == (
        "oval",
        "Test Oval",
        20,
        1,
        5,
        2,
    )
    assert [track.race_lane(s) for s in (1, 5, 6, 15, 16, 20)] == [2, 2, 1, 1, 2, 2]
    assert track.grid == ((20, 1), (19, 2))
    assert load_track_data(str(path)) == data
    assert load_track(str(path)) == track  # re-read, equal


def test_user_copy_of_builtin_loads(tmp_path: Path) -> None:
    path = write(tmp_path, usa_copy(), "my-usa.json")
    assert load_track(str(path)).corners == load_track("usa").corners


def test_missing_file(tmp_path: Path) -> None:
    message = refused(tmp_path / "nope.json")
    assert "not found" in message


def test_bad_json(tmp_path: Path) -> None:
    path = write(tmp_path, '{"schema_version": 1,\n  "id": "x",,\n}')
    message = refused(path)
    assert "not valid JSON" in message
    assert "line 2" in message


def test_not_an_object(tmp_path: Path) -> None:
    message = refused(write(tmp_path, [1, 2]))
    assert "(top level)" in message and "object" in message


def test_missing_field(tmp_path: Path) -> None:
    data = usa_copy()
    del data["laps"]
    message = refused(write(tmp_path, data))
    assert ": laps: " in message
    assert "missing required field 'laps'" in message


def test_missing_corner_field(tmp_path: Path) -> None:
    data = usa_copy()
    del data["corners"][1]["race_line_lane_after"]
    message = refused(write(tmp_path, data))
    assert "corners[1].race_line_lane_after" in message


def test_limit_not_an_integer(tmp_path: Path) -> None:
    data = usa_copy()
    data["corners"][2]["limit"] = "x"
    message = refused(write(tmp_path, data))
    assert "corners[2].limit" in message
    assert "'x' is not of type 'integer'" in message


@pytest.mark.parametrize(
    ("mutate", "location", "complaint"),
    [
        (lambda d: d.update(spaces=9), "spaces", "less than the minimum of 10"),
        (lambda d: d.update(race_line_lane_from_finish=3), "race_line_lane_from_finish", "3"),
        (lambda d: d["corners"][0].update(limit=-1), "corners[0].limit", "minimum"),
        (lambda d: d["grid"][3].update(lane=0), "grid[3].lane", "0"),
        (lambda d: d.update(corners=[]), "corners", "should be non-empty"),
        (lambda d: d.update(grid=d["grid"][:1]), "grid", "too short"),
        (lambda d: d.update(schema_version=2), "schema_version", "1 was expected"),
        (lambda d: d["corners"][0].update(press="a"), "corners[0].press", "a"),
        (
            lambda d: d["corners"][1].update(legend_line_after_space="q"),
            "corners[1].legend_line_after_space",
            "'q' is not of type 'integer', 'null'",
        ),
        (lambda d: d["corners"][1].update(press=5), "corners[1].press", "5 is not of type"),
        (lambda d: d.update(laps=True), "laps", "True is not of type 'integer'"),
    ],
)
def test_schema_violations_name_the_location(tmp_path: Path, mutate: Any, location: str, complaint: str) -> None:
    data = usa_copy()
    mutate(data)
    message = refused(write(tmp_path, data))
    assert f": {location}: " in message
    assert complaint in message


def test_typo_in_field_name_is_caught(tmp_path: Path) -> None:
    data = usa_copy()
    data["corners"][1]["limt"] = data["corners"][1].pop("limit")
    message = refused(write(tmp_path, data))
    assert "corners[1]" in message
    data = usa_copy()
    data["lpas"] = 2
    message = refused(write(tmp_path, data))
    assert ": lpas: unknown field 'lpas'" in message


def test_corner_beyond_spaces(tmp_path: Path) -> None:
    data = usa_copy()
    data["corners"][3]["after_space"] = 70
    message = refused(write(tmp_path, data))
    assert "corners[3].after_space" in message
    assert "70" in message and "1..69" in message


def test_corners_out_of_order_or_repeated(tmp_path: Path) -> None:
    data = usa_copy()
    data["corners"][2]["after_space"] = 33
    message = refused(write(tmp_path, data))
    assert "corners[2].after_space" in message
    data = usa_copy()
    data["corners"].reverse()
    message = refused(write(tmp_path, data))
    assert "corners[1].after_space" in message


def test_space_references_beyond_spaces(tmp_path: Path) -> None:
    data = usa_copy()
    data["corners"][0]["legend_diamond_spaces"] = [12, 11, 10, 0]
    assert "corners[0].legend_diamond_spaces[3]" in refused(write(tmp_path, data))
    data = usa_copy()
    data["special_spaces"]["flooded"] = [3, 80]
    assert "special_spaces.flooded[1]" in refused(write(tmp_path, data))
    data = usa_copy()
    data["grid"][7]["space"] = 99
    assert "grid[7].space" in refused(write(tmp_path, data))


def test_duplicate_grid_spot(tmp_path: Path) -> None:
    data = usa_copy()
    data["grid"][3]["spot"] = 3
    message = refused(write(tmp_path, data))
    assert "grid[3].spot" in message
    assert "grid spot 3 listed twice" in message


def test_grid_spots_with_a_gap(tmp_path: Path) -> None:
    data = usa_copy()
    data["grid"][7]["spot"] = 9
    message = refused(write(tmp_path, data))
    assert ": grid: " in message and "missing [8]" in message


def test_two_grid_spots_on_one_place(tmp_path: Path) -> None:
    data = usa_copy()
    data["grid"][2]["space"] = 69
    message = refused(write(tmp_path, data))
    assert "grid[2]" in message and "space 69 lane 1" in message


def test_chicane_must_point_at_previous_corner(tmp_path: Path) -> None:
    data = usa_copy()
    data["corners"][2]["chicane_second_line_of"] = 2
    load_track(str(write(tmp_path, data)))  # corner #3 is the second line of corner #2: fine
    data = copy.deepcopy(data)
    data["corners"][0]["chicane_second_line_of"] = 1
    assert "corners[0].chicane_second_line_of" in refused(write(tmp_path, data))


def test_directory_is_refused(tmp_path: Path) -> None:
    message = refused(tmp_path)
    assert "directory" in message
