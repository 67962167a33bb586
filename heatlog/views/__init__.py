"""Views: terminal and HTML renderings of race states. They read the engine's state; they never change it."""

from ..formats.words import counted as counted  # said by every view; kept importable from here

#: Characters one terminal cell wide as rich measures them (tests/test_views_cells.py checks each against
#: ``rich.cells``): printable ASCII and the glyphs the views draw (lanes, rules, arrows, dashes).
ONE_CELL = frozenset(map(chr, range(0x20, 0x7F))) | frozenset("━─┃║·—–…→←▶◀±×")


def cell_len(text: str) -> int:
    """``rich.cells.cell_len``: the terminal cells ``text`` takes (``李`` and most emoji two, a control character
    none). Text made of :data:`ONE_CELL` takes one cell a character, as rich counts it, so it is measured without
    importing ``rich.cells``, whose import builds its table of single-cell characters (issue 32: start-up, ~1 %
    of ``heatlog show``'s instructions); any other text is measured by rich."""
    if ONE_CELL.issuperset(text):
        return len(text)
    from rich.cells import cell_len as measured

    return measured(text)


def set_cell_size(text: str, total: int) -> str:
    """``rich.cells.set_cell_size``: ``text`` cut or padded to ``total`` cells (imported at its first use)."""
    from rich.cells import set_cell_size as sized

    return sized(text, total)


def labels(summary: dict[str, int]) -> str:
    """A reviewed car's decisions by label, in words: "0 blunders, 1 mistake, 2 inaccuracies"."""
    words = (("blunder", "blunders"), ("mistake", "mistakes"), ("inaccuracy", "inaccuracies"))
    return ", ".join(f"{summary[one]} {one if summary[one] == 1 else many}" for one, many in words)


def not_reviewed(car: str) -> str:
    """What a review says of a Legend car instead of "0 of 0 decisions": the Legend cards move it (# 19.1)."""
    return f"{car}: a Legend, moved by the Legend cards: it makes no decisions, so it is not reviewed"


__all__ = ["ONE_CELL", "cell_len", "counted", "labels", "not_reviewed", "set_cell_size"]
