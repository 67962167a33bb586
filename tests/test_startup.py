"""What the everyday commands load at their start (issue 32, item 4: ``heatlog show`` and ``replay --round N`` in
about 1.2–1.3× the time of importing typer and rich, ``heatlog --help`` ≤ 1.3×; bench/bench_cli.py measures it).
These pin the import work that got them there: each is a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import run

SAMPLE = Path(__file__).parent.parent / "replays" / "usa-4cars.jsonl"

PROBE = """
import gc, json, sys
sys.argv = ["heatlog", *sys.argv[1:]]
from heatlog.cli import main
try:
    main()
except SystemExit:
    pass
print(json.dumps({"gc": gc.isenabled(), "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def probe(*args: str, cache: Path) -> dict[str, object]:
    """The modules loaded and whether the collector is on at the end of ``heatlog ARGS``, run twice: with a
    bytecode cache, as after an install (without one, the rules' fingerprint is hashed again at every start,
    with hashlib: heatlog/__init__.py, kept_fingerprint)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(COLUMNS="120", NO_COLOR="1", PYTHONPYCACHEPREFIX=str(cache))
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, timeout=60, check=False
        )
        assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("startup") / "s.db"
    assert run("import", str(SAMPLE), db=path).returncode == 0
    assert run("show", db=path).returncode == 0  # its round starts cached, as after any first show
    return path


@pytest.mark.parametrize("args", [("show",), ("replay", "--round", "3")])
def test_a_read_loads_no_openssl_no_writer_and_no_collector(db: Path, args: tuple[str, ...]) -> None:
    found = probe(*args, "--db", str(db), cache=db.parent / "pyc")
    modules = set(found["modules"])  # type: ignore[arg-type]
    # the snapshot's seal is an HMAC over the built-in SHA-256 (heatlog.formats.hashing): no libcrypto
    assert not modules & {"hashlib", "hmac", "_hashlib", "secrets"}
    # the writer's checks and code, the audit, the streams and the module discovery's pkgutil are not a reader's
    assert not modules & {"jsonschema", "heatlog.formats.validation", "pkgutil", "sqlite_utils"}
    assert not modules & {f"heatlog.store.{job}" for job in ("appends", "audit", "leases", "streams", "jsonl")}
    assert found["gc"] is False  # heatlog.cli.READS: the cycle collector is off for a read


def test_a_long_command_keeps_the_collector(db: Path) -> None:
    assert probe("anchor", "--db", str(db), cache=db.parent / "pyc")["gc"] is True


def test_help_loads_no_formats_and_no_csv(tmp_path: Path) -> None:
    found = probe("--help", cache=tmp_path / "pyc")
    modules = set(found["modules"])  # type: ignore[arg-type]
    assert not {m for m in modules if m.startswith(("heatlog.formats", "heatlog.store", "heatlog.log"))}
    assert "csv" not in modules and found["gc"] is True
