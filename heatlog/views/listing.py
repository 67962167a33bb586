"""Plain aligned tables measured in terminal cells (``李`` and most emoji take two), fast for thousands of rows.

rich's ``Table`` measures and lays out every cell (about 2 ms a row); a list of races needs none of that: each
column is as wide as its widest cell (``rich.cells.cell_len``) and one column (the name) gives way when the
line would not fit the terminal, cut with ``…`` at a cell boundary, never in the middle of a wide character.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..formats.usertext import visible
from . import cell_len, set_cell_size

GAP = "  "


def fit(text: str, width: int) -> str:
    """``text`` padded (or cut with ``…``) to exactly ``width`` cells."""
    if cell_len(text) <= width:
        return text + " " * (width - cell_len(text))
    if width <= 0:
        return ""
    return set_cell_size(text, width - 1) + "…"


def aligned(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    width: int | None = None,
    flexible: Sequence[int] = (),
    optional: Sequence[int] = (),
    before_cutting: Sequence[int] = (),
    readable: int = 12,
) -> list[str]:
    """The header and rows as lines of aligned columns. With a terminal ``width``: the ``optional`` columns
    (indexes, least wanted first) are left out while lines do not fit, then the ``before_cutting`` ones while
    the ``flexible`` ones would have to shrink below ``readable`` cells to fit, then the flexible ones shrink,
    the widest first (cut with ``…``, down to their header's width); other columns are never cut."""
    cells = [[visible(c) for c in header]] + [[visible(c) for c in row] for row in rows]
    keep = list(range(len(header)))
    widths = {i: max(cell_len(r[i]) for r in cells) for i in keep}

    def total() -> int:
        return sum(widths[i] for i in keep) + len(GAP) * (len(keep) - 1)

    if width is not None:
        for i in optional:
            if total() <= width:
                break
            keep.remove(i)
        for i in before_cutting:
            give = sum(max(0, widths[j] - max(readable, cell_len(cells[0][j]))) for j in flexible if j in keep)
            if total() - width <= give:
                break
            keep.remove(i)
        floor = {i: cell_len(cells[0][i]) for i in flexible if i in keep}
        over = total() - width
        while over > 0:  # one cell at a time from the widest flexible column still above its header
            wide = [i for i in floor if widths[i] > floor[i]]
            if not wide:
                break
            i = max(wide, key=lambda k: widths[k])
            widths[i] -= 1
            over -= 1
    last = keep[-1]
    return [
        GAP.join(r[i] if i == last and cell_len(r[i]) <= widths[i] else fit(r[i], widths[i]) for i in keep).rstrip()
        for r in cells
    ]


def wrap_cells(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` terminal cells, broken at spaces (``textwrap.wrap`` counts
    characters, so a line of ``李`` or emoji would run past the edge); a word wider than a line is cut."""
    lines: list[str] = []
    line, used = "", 0
    for word in text.split():
        w = cell_len(word)
        while w > width:  # a word no line can hold: cut it at cell boundaries
            if line:
                lines.append(line)
                line, used = "", 0
            head = set_cell_size(word, width)
            lines.append(head)
            word = word[len(head.rstrip()) :]
            w = cell_len(word)
        if not word:
            continue
        if line and used + 1 + w > width:
            lines.append(line)
            line, used = "", 0
        line, used = (f"{line} {word}", used + 1 + w) if line else (word, w)
    if line:
        lines.append(line)
    return lines


def fitted_widths(
    columns: Sequence[Sequence[str]], width: int, *, optional: Sequence[int] = (), per_column: int = 3, edge: int = 1
) -> dict[int, int]:
    """The width of each column kept (index: cells) for a rich table that must fit ``width`` terminal cells and
    cut no word: ``columns`` holds each column's header then its cells; a column is never narrower than its
    longest word, the ``optional`` ones (least wanted first) are left out while those cannot fit, and the room
    left is shared out, a cell at a time, to the columns still narrower than their longest line. ``per_column``
    and ``edge``: what the box and the padding take (rich's default box with padding 1: 3 a column, 1). Empty
    when the words cannot fit even so (the caller lets rich shrink the table)."""

    def longest(texts: Sequence[str], split: bool) -> int:
        parts = [p for t in texts for p in (t.split() if split else t.splitlines() or [""])]
        return max((cell_len(p) for p in parts), default=0) or 1

    least = {i: longest(col, True) for i, col in enumerate(columns)}
    natural = {i: longest(col, False) for i, col in enumerate(columns)}
    keep = list(range(len(columns)))

    def room() -> int:
        return width - edge - per_column * len(keep) - sum(least[i] for i in keep)

    for i in optional:
        if room() >= 0:
            break
        keep.remove(i)
    if room() < 0:
        return {}
    widths = {i: least[i] for i in keep}
    spare = room()
    while spare > 0:
        short = [i for i in keep if widths[i] < natural[i]]
        if not short:
            break
        for i in short:
            if spare <= 0:
                break
            widths[i] += 1
            spare -= 1
    return widths
