"""Headless Chromium for the HTML tests: Debian's ``chromium`` (installed by ``.ci/run``; installed here too
if it is missing and apt-get can), driven with ``--dump-dom`` (the DOM after the page's script ran) and
``--screenshot``. A test skips only when Chromium is truly not installable, and says why.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile
import zlib
from functools import cache
from pathlib import Path

import pytest

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


# Playwright launching Debian's chromium (``executable_path=chromium()``) and a phone's page: the one copy the
# browser tests share.
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 1}


@cache
def _find() -> tuple[str | None, str]:
    for path in (*CANDIDATES, shutil.which("chromium") or ""):
        if path and os.access(path, os.X_OK):
            return path, ""
    if os.environ.get("HEATLOG_NO_BROWSER_INSTALL"):
        return None, "chromium is not installed and HEATLOG_NO_BROWSER_INSTALL is set"
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        return None, "chromium is not installed, and apt-get is unavailable here (install Debian's chromium)"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in ([apt, "update", "-q"], [apt, "install", "-y", "-q", "chromium"]):
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
        if r.returncode != 0:
            return None, f"chromium is not installed and `{' '.join(cmd[1:])}` failed: {r.stderr.strip()[-300:]}"
    for path in CANDIDATES:
        if os.access(path, os.X_OK):
            return path, ""
    return None, "apt-get installed chromium but no chromium binary was found"


def chromium() -> str:
    """The Chromium binary, or skip the test with the reason it cannot be had."""
    path, why = _find()
    if path is None:
        pytest.skip(why)
    return path


def _run(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="heatlog-chromium-") as profile:
        cmd = [chromium(), *FLAGS, f"--user-data-dir={profile}", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def dump_dom(url: str, size: tuple[int, int] | None = None) -> str:
    """The page's DOM after its scripts ran (``--dump-dom``), in a window of ``size`` (width, height) if given."""
    r = _run([*([f"--window-size={size[0]},{size[1]}"] if size else []), "--dump-dom", url])
    assert r.returncode == 0 and r.stdout.strip(), f"chromium --dump-dom failed ({r.returncode}): {r.stderr[-2000:]}"
    return r.stdout


def screenshot(url: str, out: Path, width: int = 1280, height: int = 1400) -> Path:
    r = _run([f"--window-size={width},{height}", f"--screenshot={out}", url])
    assert r.returncode == 0 and out.exists(), f"chromium --screenshot failed ({r.returncode}): {r.stderr[-2000:]}"
    return out


def png_pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGB(A) pixels of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    height = bit_depth = colour = interlace = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, bit_depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    assert bit_depth == 8 and colour in (2, 6) and not interlace, (bit_depth, colour, interlace)
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def colour_count(path: Path, step: int = 4) -> int:
    """Distinct colours on a sample grid of the image (a blank page has one or two)."""
    width, height, rows = png_pixels(path)
    bpp = len(rows[0]) // width
    seen = set()
    for y in range(0, height, step):
        row = rows[y]
        for x in range(0, width, step):
            seen.add(row[x * bpp : x * bpp + 3])
    return len(seen)
