"""Where every spot of a circuit goes in a picture: from the printed board when heatlog has its drawing
(:mod:`heatlog.views.drawings`: every built-in circuit), else laid out from the spaces alone.

Board layout: the spots sit at the board's coordinates; the line after space p (corner, Legend, finish) runs
across both lanes between spaces p and p+1, from the midpoints of the two spots of each lane, pushed out by half
the lane spacing (as the research notes derive them); each spot is the quadrilateral between the line behind it
and the line ahead of it. Where consecutive spaces are far apart (Japan's road under the bridge) the spots keep
their own length and the road between them is drawn as an underpass, beneath the bridge's spaces.

Schematic layout (a user's track): the loop bends at the corner lines: the corner positions become the vertices
of a convex polygon inscribed in a circle whose sides are as long as the sectors between them (in spaces), the
vertices are rounded, and the spaces are spread along each sector. The loop is turned so that the start/finish
straight lies at the bottom, run from left to right, then fitted to the drawing box. Tracks with fewer than
three corners get extra bends.

Pure geometry: the HTML view turns the result into SVG.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ..engine.track import Track
from .drawings import Drawing, drawing_for

Point = tuple[float, float]


@dataclass(slots=True)
class CircuitLayout:
    width: float
    height: float
    lane_width: float  # distance between the two lanes' centres
    board: bool = False  # laid out from the printed board's coordinates
    spots: dict[tuple[int, int], list[Point]] = field(default_factory=dict)  # (space, lane) -> polygon
    centres: dict[tuple[int, int], Point] = field(default_factory=dict)  # (space, lane) -> spot centre
    angles: dict[tuple[int, int], float] = field(default_factory=dict)  # (space, lane) -> race direction, degrees
    lines: dict[int, tuple[Point, Point]] = field(default_factory=dict)  # after space -> (lane-1, lane-2) ends
    outward: dict[int, Point] = field(default_factory=dict)  # after space -> unit normal pointing outside
    labels: dict[int, Point] = field(default_factory=dict)  # space -> where its number goes (outside)
    marks: dict[int, Point] = field(default_factory=dict)  # space -> where its diamond/chevron goes (other side)
    signs: dict[int, Point] = field(default_factory=dict)  # corner line after space -> its speed-limit sign
    outline: tuple[list[Point], list[Point]] = field(default_factory=lambda: ([], []))  # closed edges (schematic)
    edges: list[list[Point]] = field(default_factory=list)  # kerb polylines along the road's two edges (board)
    race_line: list[tuple[int, int, list[Point]]] = field(default_factory=list)  # (sector, lane, centre line)
    sides: dict[int, tuple[list[Point], list[Point]]] = field(default_factory=dict)  # space -> lane-1, lane-2 edge
    underpasses: list[list[Point]] = field(default_factory=list)  # road drawn beneath a bridge
    bridge: frozenset[int] = frozenset()  # spaces drawn on top (the bridge's deck)
    podium: list[Point] = field(default_factory=list)  # where finished cars stand, first place first
    infield: Point = (0.0, 0.0)  # where the title goes


def circuit_layout(track: Track) -> CircuitLayout:
    """The board layout when heatlog has the drawing of ``track``, else the schematic one."""
    drawing = drawing_for(track)
    return board_layout(track, drawing) if drawing is not None else layout(track)


def _mid(a: Point, b: Point) -> Point:
    return ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)


def _ext(a: Point, b: Point, t: float) -> Point:
    """a pushed away from b by t times their distance."""
    return (a[0] + (a[0] - b[0]) * t, a[1] + (a[1] - b[1]) * t)


def _along(p: Point, degrees: float, d: float) -> Point:
    r = math.radians(degrees)
    return (p[0] + math.cos(r) * d, p[1] + math.sin(r) * d)


def _mean_angle(a: float, b: float) -> float:
    ra, rb = math.radians(a), math.radians(b)
    return math.degrees(math.atan2(math.sin(ra) + math.sin(rb), math.cos(ra) + math.cos(rb)))


def board_layout(track: Track, drawing: Drawing) -> CircuitLayout:
    """Every spot where the printed board has it (see the module docstring)."""
    n = track.spaces
    pos = {key: (x, y) for key, (x, y, _) in drawing.spots.items()}
    mid = {s: _mid(pos[(s, 1)], pos[(s, 2)]) for s in range(1, n + 1)}
    nxt = {s: s % n + 1 for s in range(1, n + 1)}
    gaps = sorted(math.dist(mid[s], mid[nxt[s]]) for s in range(1, n + 1))
    step = gaps[len(gaps) // 2]  # the median distance between consecutive spaces
    lane_w = sorted(math.dist(pos[(s, 1)], pos[(s, 2)]) for s in range(1, n + 1))[n // 2]
    out = CircuitLayout(width=drawing.width, height=drawing.height, lane_width=lane_w, board=True)
    heading = {s: _mean_angle(drawing.spots[(s, 1)][2], drawing.spots[(s, 2)][2]) for s in range(1, n + 1)}

    def across(s: int, sign: float) -> tuple[Point, Point, Point]:
        """(lane-1 end, centre, lane-2 end) of a line through space s's own front (sign +1) or back (-1)."""
        a, b = (_along(pos[(s, lane)], heading[s], sign * step / 2) for lane in (1, 2))
        return _ext(a, b, 0.5), _mid(a, b), _ext(b, a, 0.5)

    front: dict[int, tuple[Point, Point, Point]] = {}
    back: dict[int, tuple[Point, Point, Point]] = {}
    for s in range(1, n + 1):
        t = nxt[s]
        if math.dist(mid[s], mid[t]) <= 1.6 * step:
            m1, m2 = _mid(pos[(s, 1)], pos[(t, 1)]), _mid(pos[(s, 2)], pos[(t, 2)])
            line = (_ext(m1, m2, 0.5), _mid(m1, m2), _ext(m2, m1, 0.5))
            front[s] = back[t] = line
        else:  # far apart: each keeps its own length; the road between them passes under the bridge
            front[s], back[t] = across(s, 1.0), across(t, -1.0)
            out.underpasses.append([front[s][0], front[s][2], back[t][2], back[t][0]])
        out.lines[s] = (front[s][0], front[s][2])
    edge = {
        s: (_ext(pos[(s, 1)], pos[(s, 2)], 0.5), mid[s], _ext(pos[(s, 2)], pos[(s, 1)], 0.5)) for s in range(1, n + 1)
    }
    for s in range(1, n + 1):
        for lane in (1, 2):
            end = 0 if lane == 1 else 2
            # the lanes part along the middle of the space's own two spots (BGA's spots are not evenly placed in
            # hairpins: a split through the lines' centres alone can leave a spot's centre in the other lane)
            # and the outer edge passes by the spot itself (in a hairpin the chord between the lines' ends would
            # cut the outer spot off)
            middle = mid[s]
            out.spots[(s, lane)] = [back[s][end], back[s][1], middle, front[s][1], front[s][end], edge[s][end]]
            out.centres[(s, lane)] = pos[(s, lane)]
            out.angles[(s, lane)] = drawing.spots[(s, lane)][2]
        out.sides[s] = ([back[s][0], edge[s][0], front[s][0]], [back[s][2], edge[s][2], front[s][2]])
    # the kerbs: one polyline per edge and per unbroken run of road
    for end in (0, 2):
        run: list[Point] = []
        for s in range(1, n + 2):
            space = (s - 1) % n + 1
            if run and math.dist(run[-1], back[space][end]) > 1.0:
                out.edges.append(run)
                run = []
            if s <= n:
                run += ([] if run else [back[space][end]]) + [edge[space][end], front[space][end]]
        if run:
            out.edges.append(run)
    centre = (sum(p[0] for p in mid.values()) / n, sum(p[1] for p in mid.values()) / n)
    for s in range(1, n + 1):
        a, b = pos[(s, 1)], pos[(s, 2)]
        one, two = _ext(a, b, 1.05), _ext(b, a, 1.05)
        label_side_one = math.dist(one, centre) >= math.dist(two, centre)
        out.labels[s], out.marks[s] = (one, two) if label_side_one else (two, one)
        out.outward[s] = _unit(mid[s], out.labels[s])
    out.signs = dict(drawing.signs)
    out.race_line = _race_line(track, lambda s, lane: pos[(s, lane)], front, back)
    out.bridge = drawing.bridge_over
    out.podium = list(drawing.podium)
    out.infield = _open_ground(drawing.width, drawing.height, list(pos.values()) + list(drawing.signs.values()))
    return out


def _unit(a: Point, b: Point) -> Point:
    d = math.dist(a, b) or 1.0
    return ((b[0] - a[0]) / d, (b[1] - a[1]) / d)


def _race_line(
    track: Track,
    centre: Callable[[int, int], Point],
    front: dict[int, tuple[Point, Point, Point]],
    back: dict[int, tuple[Point, Point, Point]],
) -> list[tuple[int, int, list[Point]]]:
    """Per sector (finish line and corner lines start one), the race lane's centre line (# 1.5)."""
    n = track.spaces
    starts = sorted({c.after_space % n for c in track.corners} | {0})
    out = []
    for i, begin in enumerate(starts):
        span = (starts[(i + 1) % len(starts)] - begin) % n or n
        lane = track.race_lane(begin + 1)
        end = 0 if lane == 1 else 2
        first = begin % n + 1
        pts = [_mid(back[first][1], back[first][end])]
        for k in range(span):
            s = (begin + k) % n + 1
            if k and math.dist(pts[-1], _mid(back[s][1], back[s][end])) > 1.0:
                pts.append(_mid(back[s][1], back[s][end]))
            pts.append(centre(s, lane))
            pts.append(_mid(front[s][1], front[s][end]))
        out.append((i + 1, lane, pts))
    return out


def _open_ground(width: float, height: float, taken: list[Point]) -> Point:
    """The point of the board farthest from every spot and sign (where the circuit's title fits)."""
    best, best_d = (width / 2, height / 2), -1.0
    for gx in range(12, 89, 4):
        for gy in range(15, 86, 5):
            p = (width * gx / 100, height * gy / 100)
            d = min(math.dist(p, q) for q in taken) - abs(p[1] - height / 2) * 0.05
            if d > best_d:
                best, best_d = p, d
    return best


def _bends(track: Track) -> list[float]:
    """Lap positions (0..N) of the polygon's vertices: the corner lines, plus extra bends if there are fewer
    than three."""
    n = track.spaces
    bends = sorted({float(c.after_space % n) for c in track.corners})
    if not bends:
        bends = [n / 8]
    while len(bends) < 3:  # split the longest gap
        gaps = [((bends[(i + 1) % len(bends)] - b) % n or n, b) for i, b in enumerate(bends)]
        gap, b = max(gaps)
        bends = sorted([*bends, (b + gap / 2) % n])
    return bends


def _balance(lengths: list[float]) -> list[float]:
    """A convex polygon needs every side shorter than the others together: shorten the longest sides, and
    keep very short sectors (chicanes) visible."""
    total = sum(lengths)
    out = [max(x, total * 0.04) for x in lengths]
    for _ in range(50):
        i = max(range(len(out)), key=out.__getitem__)
        rest = sum(out) - out[i]
        if out[i] <= 0.75 * rest:
            break
        out[i] = 0.75 * rest
    return out


def _cyclic(lengths: list[float]) -> list[Point]:
    """Vertices of the polygon with these sides inscribed in a circle (convex, counter-clockwise)."""
    m = max(range(len(lengths)), key=lengths.__getitem__)
    big = lengths[m]

    def angles(r: float) -> list[float]:
        return [2 * math.asin(min(1.0, x / (2 * r))) for x in lengths]

    def excess(r: float) -> float:
        return sum(angles(r)) - 2 * math.pi

    lo, hi = big / 2, big * 1000
    centre_inside = excess(lo) >= 0
    if centre_inside:
        for _ in range(200):  # sum of central angles = 2π
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
    else:
        # The circle's centre lies outside: the longest side's angle equals the others' together.
        def gap(r: float) -> float:
            a = angles(r)
            return sum(a) - 2 * a[m]

        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if gap(mid) > 0 else (mid, hi)
    r = (lo + hi) / 2
    steps = angles(r)
    if not centre_inside:
        steps[m] = -steps[m]
    pts, phi = [], 0.0
    for step in steps:
        pts.append((r * math.cos(phi), r * math.sin(phi)))
        phi += step
    return pts


def _quad(p0: Point, p1: Point, p2: Point, t: float) -> Point:
    u = 1 - t
    return (u * u * p0[0] + 2 * u * t * p1[0] + t * t * p2[0], u * u * p0[1] + 2 * u * t * p1[1] + t * t * p2[1])


def _lerp(a: Point, b: Point, t: float) -> Point:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def _length(pts: list[Point]) -> list[float]:
    acc = [0.0]
    for a, b in zip(pts, pts[1:], strict=False):
        acc.append(acc[-1] + math.dist(a, b))
    return acc


def _centre_line(track: Track) -> list[tuple[float, Point]]:
    """(lap position, point) samples of the loop's centre line, in polygon units, lap position 0..N."""
    n = track.spaces
    bends = _bends(track)
    k = len(bends)
    sectors = [((bends[(i + 1) % k] - bends[i]) % n or n) for i in range(k)]
    verts = _cyclic(_balance(sectors))
    sides = [math.dist(verts[i], verts[(i + 1) % k]) for i in range(k)]
    # rounding: the tangent points sit a share of the shorter neighbouring side away from each vertex
    cut = [0.42 * min(sides[i - 1], sides[i]) for i in range(k)]
    t_in = [_lerp(verts[i], verts[i - 1], cut[i] / sides[i - 1]) for i in range(k)]
    t_out = [_lerp(verts[i], verts[(i + 1) % k], cut[i] / sides[i]) for i in range(k)]
    samples: list[tuple[float, Point]] = []
    for i in range(k):
        j = (i + 1) % k
        # sector i: second half of bend i, the straight, first half of bend j
        pts = [_quad(t_in[i], verts[i], t_out[i], 0.5 + 0.5 * s / 12) for s in range(13)]
        pts += [_lerp(t_out[i], t_in[j], s / 8) for s in range(1, 8)]
        pts += [_quad(t_in[j], verts[j], t_out[j], 0.5 * s / 12) for s in range(13)]
        acc = _length(pts)
        total = acc[-1] or 1.0
        for p, a in zip(pts[:-1], acc[:-1], strict=True):
            samples.append((bends[i] + sectors[i] * a / total, p))
    samples = [((x % n), p) for x, p in samples]
    samples.sort(key=lambda s: s[0])
    return samples


class _Loop:
    """Point and direction at any lap position, by interpolation between samples (screen units)."""

    def __init__(self, n: int, samples: list[tuple[float, Point]]) -> None:
        self.n = n
        self.xs = [x for x, _ in samples] + [samples[0][0] + n]
        self.ps = [p for _, p in samples] + [samples[0][1]]
        cx = sum(p[0] for p in self.ps[:-1]) / len(samples)
        cy = sum(p[1] for p in self.ps[:-1]) / len(samples)
        self.centre = (cx, cy)

    def point(self, x: float) -> Point:
        import bisect

        x = (x - self.xs[0]) % self.n + self.xs[0]
        i = max(0, min(len(self.xs) - 2, bisect.bisect_right(self.xs, x) - 1))
        span = self.xs[i + 1] - self.xs[i] or 1.0
        return _lerp(self.ps[i], self.ps[i + 1], (x - self.xs[i]) / span)

    def outward(self, x: float) -> Point:
        a, b = self.point(x - 0.05), self.point(x + 0.05)
        dx, dy = b[0] - a[0], b[1] - a[1]
        d = math.hypot(dx, dy) or 1.0
        nx, ny = dy / d, -dx / d
        p = self.point(x)
        if (p[0] - self.centre[0]) * nx + (p[1] - self.centre[1]) * ny < 0:
            nx, ny = -nx, -ny
        return (nx, ny)

    def at(self, x: float, offset: float) -> Point:
        p, (nx, ny) = self.point(x), self.outward(x)
        return (p[0] + nx * offset, p[1] + ny * offset)


def layout(track: Track, width: float = 1000, height: float = 620, margin: float = 64) -> CircuitLayout:
    """Where every spot of ``track`` goes in a ``width`` × ``height`` drawing. Lane 1 is the outer lane."""
    n = track.spaces
    samples = _centre_line(track)
    # Turn the loop so that the finish straight (lap position 0) runs left to right at the bottom.
    raw = _Loop(n, samples)
    a, b = raw.point(-0.5), raw.point(0.5)
    heading = math.atan2(b[1] - a[1], b[0] - a[0])
    turn = -heading
    cos_t, sin_t = math.cos(turn), math.sin(turn)
    rotated = [(x, (p[0] * cos_t - p[1] * sin_t, -(p[0] * sin_t + p[1] * cos_t))) for x, p in samples]
    # y is flipped for the screen: the loop was counter-clockwise, so the finish straight is now at the bottom.
    xs = [p[0] for _, p in rotated]
    ys = [p[1] for _, p in rotated]
    bw, bh = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    sx, sy = (width - 2 * margin) / bw, (height - 2 * margin) / bh
    # fill the box, but never stretch one way more than 1.6 times the other
    sx, sy = min(sx, sy * 1.6), min(sy, sx * 1.6)
    ox = (width - bw * sx) / 2 - min(xs) * sx
    oy = (height - bh * sy) / 2 - min(ys) * sy
    screen = [(x, (p[0] * sx + ox, p[1] * sy + oy)) for x, p in rotated]
    loop = _Loop(n, screen)
    perimeter = sum(math.dist(loop.point(x), loop.point(x + 0.5)) for x in [i / 2 for i in range(2 * n)])
    space_len = perimeter / n
    lane_w = max(9.0, min(26.0, space_len * 0.62))
    out = CircuitLayout(width=width, height=height, lane_width=lane_w)
    sub = 4
    for s in range(1, n + 1):
        x0 = s - 1
        a, b = loop.point(x0 + 0.45), loop.point(x0 + 0.55)
        for lane, (near, far) in ((1, (0.0, lane_w)), (2, (-lane_w, 0.0))):
            edge_far = [loop.at(x0 + i / sub, far) for i in range(sub + 1)]
            edge_near = [loop.at(x0 + i / sub, near) for i in range(sub, -1, -1)]
            out.spots[(s, lane)] = edge_far + edge_near
            out.centres[(s, lane)] = loop.at(x0 + 0.5, (near + far) / 2)
            out.angles[(s, lane)] = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
        out.labels[s] = loop.at(x0 + 0.5, lane_w + 11)
        out.marks[s] = loop.at(x0 + 0.5, -lane_w - 9)
        out.sides[s] = (
            [loop.at(x0 + i / sub, lane_w) for i in range(sub + 1)],
            [loop.at(x0 + i / sub, -lane_w) for i in range(sub + 1)],
        )
    for after in range(1, n + 1):  # the line after every space: corner, Legend and finish lines use them
        line = after % n
        out.lines[after] = (loop.at(line, lane_w + 3), loop.at(line, -lane_w - 3))
        out.outward[after] = loop.outward(line)
    for corner in track.corners:  # the sign stands in the infield, beside the line
        (ix, iy), (nx, ny) = out.lines[corner.after_space][1], out.outward[corner.after_space]
        out.signs[corner.after_space] = (ix - nx * 20, iy - ny * 20)
    steps = [i / 4 for i in range(4 * n)]
    out.outline = ([loop.at(x, lane_w) for x in steps], [loop.at(x, -lane_w) for x in steps])
    # the race line, sector by sector: the lane named by the corner line behind it (# 1.5)
    starts = sorted({c.after_space % n for c in track.corners} | {0})  # the finish line may switch it too
    for i, begin in enumerate(starts):
        span = (starts[(i + 1) % len(starts)] - begin) % n or n
        lane = track.race_lane(begin + 1)
        off = lane_w / 2 if lane == 1 else -lane_w / 2
        pts = [loop.at(begin + j / 4, off) for j in range(4 * span + 1)]
        out.race_line.append((i + 1, lane, pts))
    out.infield = loop.centre
    cx, cy = loop.centre
    step = max(24.0, lane_w * 1.2)
    out.podium = [(cx + (i - 2.5) * step, cy + 46) for i in range(6)]
    return out
