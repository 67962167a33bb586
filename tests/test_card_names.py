"""Card names people know (issue 29, bug 3 and build 2): internal card codes (U1, U43, P83) never reach people —
not in `replay`/`show` tables, the HTML replay's card cells, nor the recorder's confirmations."""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_cli import run

from heatlog.recorder.notation import describe

GOLDEN = Path(__file__).parent / "golden" / "golden_usa_garage_table.jsonl"
CODE = re.compile(r"\b(?:U\d+|P8\d)\b")  # an upgrade's token, a sponsorship card's (P80-P86; P1 is a place)


def test_replay_tables_and_the_html_replay_name_upgrades_never_by_their_codes(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    assert run("import", str(GOLDEN), db=db).returncode == 0
    text = run("replay", "--race", "1", db=db).stdout
    assert "played" in text and "4wd4" in text  # the table is there, an upgrade by its short name
    assert not CODE.findall(text), sorted(set(CODE.findall(text)))  # was: U1, U25, U53 in the played column
    html = tmp_path / "r.html"
    assert run("replay", "--race", "1", "--html", str(html), db=db).returncode == 0
    page = html.read_text(encoding="utf-8")
    played = re.findall(r'"(?:played|flips)":"([^"]*)"', page)
    assert played and not [p for p in played if CODE.search(p)], [p for p in played if CODE.search(p)][:5]
    shown = run("show", "--race", "1", db=db).stdout
    assert not CODE.findall(shown), sorted(set(CODE.findall(shown)))


def test_the_recorders_confirmations_name_sponsorship_cards_and_swaps_by_their_short_names() -> None:
    cards = {
        c["id"]: c
        for c in json.loads((Path(__file__).parent.parent / "heatlog/data/cards/sponsors.json").read_text())["cards"]
    }
    cards |= {"U42": {"short": "turbo7"}, "U43": {"short": "turbo8"}}
    drawn = describe({"type": "sponsor_drawn", "v": 1, "car": "Ann", "card": "P83"}, cards)
    assert drawn == "Ann draws the sponsorship card lord", drawn  # was: "... card P83"
    swapped = describe({"type": "upgrade_swapped", "v": 1, "car": "Ann", "give": "U42", "take": "U43"}, cards)
    assert swapped == "Ann swaps turbo7 for turbo8", swapped
