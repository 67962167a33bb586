"""A picture of a circuit laid out from its spaces alone (track files carry no drawing coordinates).

The loop bends at the corner lines: the corner positions become the vertices of a convex polygon inscribed in a
circle whose sides are as long as the sectors between them (in spaces), the vertices are rounded, and the
spaces are spread along each sector. The loop is turned so that the start/finish straight lies at the bottom,
run from left to right, then fitted to the drawing box. Tracks with fewer than three corners get extra bends.

Pure geometry: the HTML view turns the result into SVG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..engine.track import Track

Point = tuple[float, float]


@dataclass(slots=True)
class CircuitLayout:
    width: float
    height: float
    lane_width: float
    spots: dict[tuple[int, int], list[Point]] = field(default_factory=dict)  # (space, lane) -> polygon
    centres: dict[tuple[int, int], Point] = field(default_factory=dict)  # (space, lane) -> spot centre
    lines: dict[int, tuple[Point, Point]] = field(default_factory=dict)  # after space -> (outer, inner) ends
    outward: dict[int, Point] = field(default_factory=dict)  # after space -> unit normal pointing outside
    labels: dict[int, Point] = field(default_factory=dict)  # space -> where its number goes (outside)
    outline: tuple[list[Point], list[Point]] = field(default_factory=lambda: ([], []))  # outer, inner edges
    race_line: list[tuple[int, int, list[Point]]] = field(default_factory=list)  # (sector, lane, centre line)
    infield: Point = (0.0, 0.0)


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
        for lane, (near, far) in ((1, (0.0, lane_w)), (2, (-lane_w, 0.0))):
            edge_far = [loop.at(x0 + i / sub, far) for i in range(sub + 1)]
            edge_near = [loop.at(x0 + i / sub, near) for i in range(sub, -1, -1)]
            out.spots[(s, lane)] = edge_far + edge_near
            out.centres[(s, lane)] = loop.at(x0 + 0.5, (near + far) / 2)
        out.labels[s] = loop.at(x0 + 0.5, lane_w + 11)
    for line in {c.after_space % n for c in track.corners} | {0}:
        after = line or n
        out.lines[after] = (loop.at(line, lane_w + 3), loop.at(line, -lane_w - 3))
        out.outward[after] = loop.outward(line)
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
    return out
