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


def test_docs_cards_md_is_generated_from_the_catalogue_and_every_name_on_it_is_taken() -> None:
    """docs/cards.md lists the names the recorder takes (issue 29, build 2 and bug 4: docs/garage.md named a card
    ``4wd0+3``, which the recorder did not know): the page is current, and every name on it, and every card name
    docs/garage.md gives, is read as its card."""
    from heatlog.docsgen.cards import DOC_PATH, render_card_names
    from heatlog.engine.modules.garage.cards import card_named
    from heatlog.formats.garage_cards import garage_cards, sponsor_cards

    assert DOC_PATH.read_text(encoding="utf-8") == render_card_names(), "run: python -m heatlog.docsgen.cards"
    catalogue = {c["id"]: c for c in [*garage_cards(), *sponsor_cards()] if c.get("kind") != "heat"}
    listed = re.findall(r"^\| `([^`]+)` \| (?!\d \|)", DOC_PATH.read_text(encoding="utf-8"), re.M)
    assert len(listed) == len(catalogue), (len(listed), len(catalogue))
    for name in listed:
        assert catalogue[card_named(name, catalogue)]["short"] == name
    garage_md = (DOC_PATH.parent / "garage.md").read_text(encoding="utf-8")
    for name in re.findall(r"for the recorder \(([^;]*);", garage_md)[0].replace("`", "").split(", "):
        if name != "…":
            assert catalogue[card_named(name, catalogue)]["short"] == name, name  # 4wd0+3 was refused


def test_the_recorders_help_lists_the_races_card_names(tmp_path: Path) -> None:
    from heatlog.log.racelog import RaceLog
    from heatlog.races import start_race
    from heatlog.recorder import Session

    log = RaceLog(tmp_path / "h.db")
    try:
        rid = start_race(
            log,
            track="usa",
            cars=[{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}],
            modules={"garage": {"upgrades": "basic", "draft": "draft"}},
        )
        said = " ".join(line.text for line in Session(log, rid, fresh=True).help())
        assert "this race's cards, by name" in said and "brakes1234" in said and "4wd0boost3" in said, said
        assert not CODE.findall(said), said
    finally:
        log.close()
