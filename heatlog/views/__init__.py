"""Views: terminal and HTML renderings of race states. They read the engine's state; they never change it."""

from ..formats.words import counted as counted  # said by every view; kept importable from here


def labels(summary: dict[str, int]) -> str:
    """A reviewed car's decisions by label, in words: "0 blunders, 1 mistake, 2 inaccuracies"."""
    words = (("blunder", "blunders"), ("mistake", "mistakes"), ("inaccuracy", "inaccuracies"))
    return ", ".join(f"{summary[one]} {one if summary[one] == 1 else many}" for one, many in words)


def not_reviewed(car: str) -> str:
    """What a review says of a Legend car instead of "0 of 0 decisions": the Legend cards move it (# 19.1)."""
    return f"{car}: a Legend, moved by the Legend cards: it makes no decisions, so it is not reviewed"


__all__ = ["counted", "labels", "not_reviewed"]
