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
from heatlog.formats.tracks import (
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
    "japan": (60, 2, 7, 3, [(10, 4), (12, 4), (18, 2), (45, 5), (53, 3)]),
    "mexico": (60, 3, 6, 2, [(14, 7), (19, 7), (38, 6), (44, 4), (50, 2), (51, 2)]),
    "netherlands": (55, 3, 6, 3, [(9, 5), (13, 5), (16, 3), (26, 8), (34, 4)]),
    "spain": (
        109,
        1,
        6,
        3,
        [(11, 5), (15, 4), (29, 4), (32, 4), (44, 2), (65, 5), (85, 2), (92, 3), (95, 4), (98, 4), (103, 3)],
    ),
}
NAMES = {
    "usa": "USA",
    "great-britain": "Great Britain",
    "france": "France",
    "italy": "Italy",
    "japan": "Japan",
    "mexico": "Mexico",
    "spain": "Spain",
    "netherlands": "Netherlands",
}
SETS = {"japan": "heavy-rain", "mexico": "heavy-rain", "spain": "tunnel-vision", "netherlands": "tunnel-vision"}
REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "tracks"
REFERENCE_FILE = {"great-britain": "great_britain"}


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
    assert BUILTIN_TRACKS == ("usa", "great-britain", "france", "italy", "japan", "mexico", "spain", "netherlands")
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
    # the base files stay version 1 (their races and logs are byte-identical); the expansions are version 2
    assert (data["schema_version"], data["set"]) == ((2, SETS[track_id]) if track_id in SETS else (1, "base"))
    assert "shared/reference/tracks/" in data["source"]


@pytest.mark.parametrize("track_id", BUILTIN_TRACKS)
def test_22_9_builtin_track_is_the_reference_transcribed(track_id: str) -> None:
    """Every figure the rules use, compared with the shared research notes (when they sit beside the clone):
    circuit values (# 22.9), corners, Legend lines/diamonds/chevrons (# 19.7, 19.14), chicanes (# 22.1), press
    letters (# 21.6), flooded (# 22.4) and tunnel (# 22.6) spaces, the grid."""
    ref_path = REFERENCE / f"{REFERENCE_FILE.get(track_id, track_id)}.json"
    if not ref_path.exists():
        pytest.skip("shared/reference/tracks is not beside this clone")
    ref = json.loads(ref_path.read_text(encoding="utf-8"))
    track = load_track(track_id)
    assert (track.spaces, track.laps, track.heat, track.stress) == (
        ref["spaces_per_lap"],
        ref["laps"],
        ref["heat_cards"],
        ref["stress_cards"],
    )
    assert track.race_line_lane_from_finish == ref["race_line_lane_from_finish_to_first_corner"]
    assert len(track.corners) == len(ref["corners"])
    for corner, rc in zip(track.corners, ref["corners"], strict=True):
        assert (corner.after_space, corner.limit, corner.race_line_lane_after) == (
            rc["corner_line_after_space"],
            rc["speed_limit"],
            rc["race_line_lane_after_corner"],
        )
        assert corner.legend_line_after_space == rc["legend_line_after_space"]
        assert corner.legend_diamond_spaces == tuple(rc["legend_diamond_spaces"][str(k)] for k in range(4))
        assert corner.chevron_spaces == frozenset(rc["chevron_spaces"])
        assert corner.double_chevron_spaces == frozenset(rc["double_chevron_spaces"])
        assert corner.chicane_second_line_of == rc["chicane_second_line_of_corner_index"]
        assert corner.press == rc["press_letter"]
    assert track.grid == tuple((g["space"], g["lane"]) for g in ref["starting_grid"])
    special = ref.get("special_spaces", {})
    for key, got in (("flooded_spaces", track.flooded), ("tunnel_spaces", track.tunnel)):
        lanes = special.get(key, {}).get("spaces_lanes", {})
        assert all(sorted(v) == [1, 2] for v in lanes.values())  # MA16: both spots of every listed space
        assert got == frozenset(int(s) for s in lanes)
    assert not special.get("gravel_spaces")  # # 22.10: no built-in circuit has gravel


def test_22_1_22_3_chicanes_and_their_press_corners() -> None:
    """A chicane is two consecutive lines with the same limit; its press letter is on the second line."""
    expected = {
        "japan": [(10, 12)],
        "mexico": [(14, 19), (50, 51)],
        "netherlands": [(9, 13)],
        "spain": [(29, 32), (95, 98)],
    }
    for track_id in BUILTIN_TRACKS:
        track = load_track(track_id)
        pairs = track.chicanes()
        assert [(a.after_space, b.after_space) for a, b in pairs] == expected.get(track_id, [])
        for first, second in pairs:
            assert first.limit == second.limit
            assert first.press is None and second.press is not None
    assert {k: c.after_space for k, c in load_track("spain").press_corners().items()} == {
        "A": 15,
        "B": 32,
        "C": 65,
        "D": 85,
        "E": 98,
    }


def test_22_4_22_6_flooded_and_tunnel_spaces_by_progress() -> None:
    japan, spain = load_track("japan"), load_track("spain")
    assert sorted(japan.flooded) == [*range(6, 12), *range(39, 46), *range(50, 56)]
    assert japan.is_flooded(6) and japan.is_flooded(60 + 45) and not japan.is_flooded(12)
    assert not japan.is_flooded(0)  # the grid (space 60) is not flooded
    assert spain.in_tunnel(17) and spain.in_tunnel(88) and not spain.in_tunnel(16) and not spain.in_tunnel(89)
    assert not load_track("usa").flooded and not load_track("usa").tunnel


def test_20_6_sectors_follow_the_last_corner_line() -> None:
    japan = load_track("japan")
    assert [japan.sector_of(p) for p in (1, 10, 11, 12, 13, 18, 19, 45, 46, 53, 54, 60, 0)] == [
        5,
        5,
        1,
        1,
        2,
        2,
        3,
        3,
        4,
        4,
        5,
        5,
        5,
    ]


def test_22_9_schema_version_1_sets_up_6_heat_3_stress_whatever_it_lists() -> None:
    """A version-1 track in an old log replays as it was recorded: 6 Heat, 3 Stress, no flooded/tunnel effect."""
    data = load_track_data("japan")
    data["schema_version"] = 1
    old = Track.from_dict(data)
    assert (old.heat, old.stress, old.flooded, old.tunnel) == (6, 3, frozenset(), frozenset())
    assert load_track("japan").heat == 7


def test_22_10_germany_and_south_africa_are_not_built_in() -> None:
    for name in ("germany", "Deutschland", "south-africa", "south_africa"):
        with pytest.raises(MalformedInput, match="22.10"):
            load_track(name)


def test_22_10_gravel_is_loaded_with_a_warning(tmp_path: Path) -> None:
    from heatlog.formats.tracks import track_warnings

    data = usa_copy()
    data["special_spaces"]["gravel"] = [3, 4]
    loaded = load_track_data(str(write(tmp_path, data)))
    assert any("gravel" in w and "22.10" in w for w in track_warnings(loaded))
    assert track_warnings(load_track_data("usa")) == []


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
        ("espana", "spain"),
        ("España", "spain"),
        ("nederland", "netherlands"),
        ("Japan", "japan"),
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
    # # 22.9: a version-1 file whose values differ from 6/3 is read for a new race as version 2 (what it says)
    assert load_track_data(str(path)) == {**data, "schema_version": 2}
    assert load_track(str(path)) == track  # re-read, equal
    plain = {**data, "heat": 6, "stress": 3}
    assert load_track_data(str(write(tmp_path, plain, "plain.json"))) == plain  # nothing to change: stays 1


def test_user_copy_of_builtin_loads(tmp_path: Path) -> None:
    path = write(tmp_path, usa_copy(), "my-usa.json")
    assert load_track(str(path)).corners == load_track("usa").corners


def test_missing_file(tmp_path: Path) -> None:
    message = refused(tmp_path / "nope.json")
    assert "no such file" in message  # a user reads "not found: track file …: no such file" (the error's words)


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
        (lambda d: d.update(schema_version=3), "schema_version", "3 is not one of [1, 2]"),
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


def test_22_1_chicane_lines_have_one_limit(tmp_path: Path) -> None:
    data = usa_copy()
    data["corners"][1]["chicane_second_line_of"] = 1  # 33 (limit 3) closing 12 (limit 7)
    message = refused(write(tmp_path, data))
    assert "corners[1].limit" in message and "same speed limit" in message


def test_press_letters_are_unique(tmp_path: Path) -> None:
    data = usa_copy()
    data["corners"][2]["press"] = "A"
    assert "corners[2].press" in refused(write(tmp_path, data))


def test_directory_is_refused(tmp_path: Path) -> None:
    message = refused(tmp_path)
    assert "directory" in message
