"""The strip's letters (issue 29, bug 16): a Legend is drawn by its colour's letter, not the next free letter of
"Legend" (Legend-Yellow was drawn G while Legend-Green was E)."""

from __future__ import annotations

from heatlog.engine import apply
from heatlog.races import race_started_event
from heatlog.views.board import car_labels


def test_a_legend_is_drawn_by_its_colour() -> None:
    legends = [{"name": f"Legend-{c.title()}", "colour": c} for c in ("green", "yellow", "black")]
    state = apply(
        None,
        race_started_event(
            track="usa", cars=[{"name": "Ann", "colour": "red"}], modules={"legends": {"cars": legends}}
        ),
    )
    assert car_labels(state) == {"Ann": "A", "Legend-Green": "G", "Legend-Yellow": "Y", "Legend-Black": "B"}
