"""Helpers of the hostile-input tests: run the CLI, and tell whether a database changed (a dump and the bytes)."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

HEATLOG = shutil.which("heatlog")


def run(*args: str | bytes, db: Path | None = None, input: bytes | str | None = None, timeout: float = 60) -> Result:
    cmd: list[str | bytes] = [HEATLOG or sys.executable, *([] if HEATLOG else ["-m", "heatlog.cli"]), *args]
    if db is not None:
        cmd += ["--db", str(db)]
    env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1"}
    env.pop("HEATLOG_DB", None)
    data = input.encode("utf-8", "surrogatepass") if isinstance(input, str) else input
    r = subprocess.run(cmd, capture_output=True, input=data, env=env, timeout=timeout)
    return Result(r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace"))


class Result:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr

    def __repr__(self) -> str:
        return f"Result({self.returncode}, out={self.stdout[-300:]!r}, err={self.stderr[-500:]!r})"


def state_of(db: Path) -> tuple[bool, str, str]:
    """(exists, sha256 of the file's bytes, SQL dump): what "the database is unchanged" compares."""
    if not db.exists():
        return (False, "", "")
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        dump = "\n".join(conn.iterdump())
    finally:
        conn.close()
    return (True, digest, dump)


def one_error_line(r: Result) -> bool:
    """The refusal shape of every door: non-zero exit, one `Error:` line, no traceback, not a bug (exit 70)."""
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    return (
        r.returncode not in (0, 70)
        and len(lines) == 1
        and lines[0].startswith("Error: ")
        and "Traceback" not in r.stderr
        and "internal error" not in r.stderr
    )
