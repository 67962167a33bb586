"""The views measure text in terminal cells as rich does, without importing ``rich.cells`` for the text they
draw themselves (issue 32: start-up): ``heatlog.views.cell_len`` and ``set_cell_size`` against rich's."""

from __future__ import annotations

import subprocess
import sys

from rich.cells import cell_len as rich_cell_len
from rich.cells import set_cell_size as rich_set_cell_size

from heatlog.views import ONE_CELL, cell_len, set_cell_size

SAMPLES = [
    "",
    "Red",
    "friday 0",
    "Round 3: USA, 1 lap, open mode — Red to play",
    "━━━━ ┃ ║ ─── · → ← … – ▶ ◀ ± ×",
    "李小龍",  # two cells a character
    "🏎 car",  # an emoji: two cells
    "a\tb",  # a control character: none
    "e\u0301",  # a combining accent: none
    "\x1b[31mred",
    "café ñ",  # Latin-1: one cell each, measured by rich
    "\u200b",  # zero width
]


def test_every_one_cell_character_is_one_cell_to_rich() -> None:
    assert all(rich_cell_len(ch) == 1 for ch in ONE_CELL), sorted(ch for ch in ONE_CELL if rich_cell_len(ch) != 1)


def test_cell_len_is_richs() -> None:
    for text in SAMPLES + [ch for ch in ONE_CELL] + ["".join(sorted(ONE_CELL))]:
        assert cell_len(text) == rich_cell_len(text), repr(text)


def test_set_cell_size_is_richs() -> None:
    for text in SAMPLES:
        for width in range(0, 12):
            assert set_cell_size(text, width) == rich_set_cell_size(text, width), (text, width)


def test_the_views_import_no_rich_cells() -> None:
    # the board, its plain writer and the lists measure their own glyphs without rich's width tables
    views = "heatlog.views.board, heatlog.views.listing, heatlog.views.plain"
    code = f"import sys, {views}; print('rich.cells' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
