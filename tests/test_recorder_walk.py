"""A new host's walk through ``heatlog record`` in a real terminal (pexpect, 80×24), h44: what tripped them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pexpect = pytest.importorskip("pexpect")

HEATLOG = shutil.which("heatlog")
CMD = [HEATLOG] if HEATLOG else [sys.executable, "-m", "heatlog.cli"]
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[=>]")


def spawn(db: Path) -> Any:
    env = {**os.environ, "NO_COLOR": "1", "TERM": "xterm"}
    env.pop("HEATLOG_DB", None)
    return pexpect.spawn(
        CMD[0], [*CMD[1:], "record", "--db", str(db)], env=env, encoding="utf-8", dimensions=(24, 80), timeout=30
    )


def test_a_garage_draft_reads_a_pick_among_the_market_and_help_is_not_an_answer(tmp_path: Path) -> None:
    """Three walk findings in a Garage race's draft: resuming said "resuming at round 0" (the set-up); `help`
    began "Bob picks one of …: card short names", the prompt and its colon, read as an answer typed at it; and a
    pick typed `rpm` with rpm1 alone in the market was refused as ambiguous with the race's rpm2 and rpm3."""
    db = tmp_path / "g.db"
    new = [*CMD, "new", "--car", "Ann:red", "--car", "Bob:blue", "--garage", "basic", "--db", str(db)]
    assert subprocess.run(new, capture_output=True, text=True, timeout=120).returncode == 0
    child = spawn(db)
    child.expect(r"Garage market, round 1: the 5 cards revealed: $")
    child.sendline("brakes13 cool3 rpm1 body1 4wd4")
    child.expect(r"picks one of brakes13 cool3 rpm1 body1 4wd4: $")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child = spawn(db)
    child.expect(r"resuming at the set-up: \w+ picks one of brakes13")
    child.expect(r"picks one of brakes13 cool3 rpm1 body1 4wd4: $")
    picker = ANSI.sub("", child.before).splitlines()[-1].strip()
    child.sendline("help")
    child.expect("commands: undo")
    shown = ANSI.sub("", child.before).replace("\r", "")
    assert f"{picker} picks one of brakes13 cool3 rpm1 body1 4wd4 — card short names" in shown, shown
    assert "4wd4: card short names" not in shown, shown
    child.expect(r"4wd4: $")
    child.sendline("rpm")
    child.expect(r"✓ \w+ picks rpm1")
    child.sendline("quit")
    child.expect(pexpect.EOF)
