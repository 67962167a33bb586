"""Make the circuit pictures of docs/: every built-in circuit drawn by ``heatlog replay --html``, in headless
Chromium.

    python docs/capture_circuits.py [OUT_DIR]

For each built-in circuit a 6-car race is simulated (heuristic bots, seed ``SEED``) and the page is shot at
round ``ROUND`` with ``#view=circuit`` (the circuit alone, the cars and their trails of that round) to
OUT_DIR/circuit-<id>.png (default: docs/img). It also shoots the whole page of the sample race
replays/usa-4cars.jsonl at round 9 (docs/img/replay-usa.png). Needs Debian's ``chromium``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from heatlog.formats.tracks import BUILTIN_TRACKS
from heatlog.simulate import simulate_race
from heatlog.views.replay import build_replay
from heatlog.views.replay_html import render_html

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
SEED = 3
ROUND = 4


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("chromium is not installed (apt-get install chromium)")


def shoot(page: Path, png: Path, fragment: str, size: tuple[int, int]) -> None:
    with tempfile.TemporaryDirectory(prefix="heatlog-shot-") as profile:
        subprocess.run(
            [
                chromium(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                f"--window-size={size[0]},{size[1]}",
                f"--screenshot={png}",
                page.as_uri() + fragment,
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="heatlog-circuits-") as tmp:
        for track in BUILTIN_TRACKS:
            _, events, _ = simulate_race(track=track, cars=6, seed=SEED)
            rp = build_replay(events)
            page = Path(tmp) / f"{track}.html"
            page.write_text(render_html(rp, round=min(ROUND, rp.last)), encoding="utf-8")
            png = out / f"circuit-{track}.png"
            shoot(page, png, "#view=circuit", (1240, 880))
            print(png)
        events = [json.loads(line) for line in (REPO / "replays" / "usa-4cars.jsonl").read_text().splitlines() if line]
        page = Path(tmp) / "usa-4cars.html"
        page.write_text(render_html(build_replay(events), round=9), encoding="utf-8")
        shoot(page, out / "replay-usa.png", "", (1400, 1300))
        print(out / "replay-usa.png")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DOCS / "img")
