"""Shared check of the property tests: a turn's happenings agree with its summary record (issue 11 item 5).
Not a test file itself."""

from __future__ import annotations

from heatlog.engine import Turn


def check_happenings(turn: Turn, where: str) -> None:
    """Issue 11 item 5: a turn's happenings agree with its summary record, every kind and in order."""
    kinds = [h[0] for h in turn.happenings]
    if turn.cluttered:  # # 13.2: no move, no React, no slipstream, no corner, no discard
        assert kinds[: kinds.index("cluttered")] == ["stress"] * kinds.index("cluttered"), where
        assert not set(kinds) - {"stress", "cluttered", "reshuffle", "draw"}, where
        return
    speed = turn.happened("speed")
    assert len(speed) == 1 and speed[0][3] == turn.moved, where
    boost = turn.happened("boost")
    value = boost[0][2] if boost else 0
    assert speed[0][2] == turn.step3_speed == turn.speed - turn.adrenaline_move - value, where
    assert [h[1] or "-" for h in turn.happened("stress")] == turn.stress_found, where
    assert bool(boost) == turn.boosted and (not boost or boost[0][3] == turn.boost_moved), where
    moves = [h for h in turn.happened("adrenaline") if h[1] == "move"]
    assert bool(moves) == turn.adrenaline_move and (not moves or moves[0][3] == turn.adrenaline_moved), where
    assert sum(h[2] for h in turn.happened("cooldown")) == turn.cooled == sum(turn.used.values()), where
    slip = turn.happened("slipstream")
    assert bool(slip) == bool(turn.slipstream) and (not slip or slip[0][3] == turn.slipstream_moved), where
    corners = [(h[1], h[2]) for h in turn.happened("corner")]
    assert corners == [(str(c.after_space), c.paid) for c in turn.corners], where
    spin = turn.happened("spinout")
    assert bool(spin) == turn.spinout and (not spin or spin[0][2] == turn.spinout_stress), where
    assert [h[2] for h in turn.happened("discard")] == ([len(turn.discarded)] if turn.discarded else []), where
    assert sum(h[2] for h in turn.happened("draw")) == turn.drawn, where
    assert turn.spaces_moved == turn.moved + turn.boost_moved + turn.adrenaline_moved, where
    # In order: step 3's move (after its Stress flips), React, the slipstream, the corners, discard, draws.
    order = ["stress", "speed", "react", "slipstream", "corner", "discard", "draw"]
    rank = [
        order.index("react" if k in ("cooldown", "boost", "adrenaline") else k)
        for k in kinds
        if k not in ("spinout", "reshuffle")
    ]
    assert rank == sorted(rank), where
