"""Every door reads at most its limit plus one byte (issue 30, item 1): devices, FIFOs, /proc files and endless
standard input were read until MemoryError, since ``st_size`` is 0 for all of them. A hostile-input strategy per
door: the door is given each kind of endless or lying source and must refuse it quickly, with one line naming
the source, exit 1, and no database left behind."""

from __future__ import annotations

import io
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from click.testing import CliRunner
from test_cli import run

from heatlog.engine.errors import MalformedInput
from heatlog.formats import jsonio

CARS = ["--car", "Ann:red", "--car", "Bob:blue"]
#: (door, the arguments around the source, what the refusal calls the source)
FILE_DOORS = [
    ("new --track", ["new", *CARS, "--track"], "track file"),
    ("new --from-position", ["new", "--from-position"], "position file"),
    ("import", ["import"], "import file"),
    ("audit --anchor", ["audit", "--all", "--anchor"], "anchor file"),
    ("season import", ["season", "import"], "season file"),
    ("playout --position", ["playout", "--position"], "position file"),
]
DEVICES = {"/dev/zero": "byte 0x00 at offset 0", "/dev/urandom": "not UTF-8 text"}


@pytest.mark.parametrize("door", FILE_DOORS, ids=[d[0] for d in FILE_DOORS])
@pytest.mark.parametrize("device", sorted(DEVICES))
def test_a_device_is_refused_at_its_first_chunk(tmp_path: Path, door: tuple[str, list[str], str], device: str) -> None:
    _, args, what = door
    db = tmp_path / "h.db"
    r = run(*args, device, db=db)  # before: MemoryError (exit 70) after growing for minutes
    assert r.returncode in (1, 2), r.stderr
    assert f"{what} {device}: " in r.stderr and DEVICES[device] in r.stderr, r.stderr
    assert "internal error" not in r.stderr
    if args[0] != "audit":
        assert not db.exists()


@pytest.mark.parametrize("door", FILE_DOORS[:3], ids=[d[0] for d in FILE_DOORS[:3]])
def test_a_proc_file_of_size_zero_is_read_to_its_end_and_refused_as_what_it_is(
    tmp_path: Path, door: tuple[str, list[str], str]
) -> None:
    _, args, what = door
    r = run(*args, "/proc/self/status", db=tmp_path / "h.db")
    assert r.returncode == 1 and "/proc/self/status" in r.stderr and "internal error" not in r.stderr, r.stderr


def _writer(fifo: Path, stop: threading.Event) -> None:
    """An endless writer of a valid-looking line into ``fifo`` until the reader goes away."""
    line = b'{"type":"note","v":1,"text":"x"}\n' * 4096
    try:
        with open(fifo, "wb") as fh:
            while not stop.is_set():
                fh.write(line)
    except (BrokenPipeError, OSError):
        pass


@pytest.fixture
def endless_fifo(tmp_path: Path) -> Iterator[Path]:
    fifo = tmp_path / "endless.jsonl"
    os.mkfifo(fifo)
    stop = threading.Event()
    t = threading.Thread(target=_writer, args=(fifo, stop), daemon=True)
    t.start()
    yield fifo
    stop.set()
    try:  # unblock a writer still waiting for a reader
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        os.close(fd)
    except OSError:
        pass
    t.join(timeout=5)


def test_an_endless_fifo_is_refused_past_the_limit(endless_fifo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonio, "MAX_FILE_BYTES", 1 << 20)
    with pytest.raises(MalformedInput, match=r"import file .*endless.jsonl: more than 1048576 bytes"):
        jsonio.read_text_file(endless_fifo, "import file")


def test_a_track_fifo_with_an_endless_writer_stops_at_the_small_limit(endless_fifo: Path, tmp_path: Path) -> None:
    r = run("new", *CARS, "--track", str(endless_fifo), db=tmp_path / "h.db")
    assert r.returncode == 1 and f"more than {jsonio.MAX_SMALL_BYTES} bytes" in r.stderr, r.stderr


def _yes(line: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(["yes", line], stdout=subprocess.PIPE)


@pytest.mark.parametrize("command", [["import", "-"], ["season", "import", "-"], ["add", "-"]])
def test_endless_standard_input_is_refused_past_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    # yes '{"type":"note"}' | heatlog import -  grew until MemoryError
    from heatlog.cli import load

    monkeypatch.setattr(jsonio, "MAX_FILE_BYTES", 1 << 20)
    monkeypatch.setattr(jsonio, "MAX_SMALL_BYTES", 1 << 16)
    yes = _yes('{"type":"note"}')
    try:
        assert yes.stdout is not None
        app = typer.main.get_command(load(command[0]))
        result = CliRunner().invoke(app, [*command, "--db", str(tmp_path / "h.db")], input=yes.stdout)
    finally:
        yes.kill()
        yes.wait()
    limit = (1 << 16) if command[0] == "add" else (1 << 20)
    assert result.exit_code == 1, result.output
    assert f"standard input: more than {limit} bytes" in result.output
    assert not (tmp_path / "h.db").exists()


def test_read_bounded_reads_at_most_one_byte_past_the_limit() -> None:
    class Counting(io.RawIOBase):
        def __init__(self) -> None:
            self.given = 0

        def readable(self) -> bool:
            return True

        def read(self, n: int = -1) -> bytes:
            n = 1 << 20 if n < 0 else n
            self.given += n
            return b"a" * n

    src = Counting()
    with pytest.raises(MalformedInput, match="more than 1000 bytes"):
        jsonio.read_bounded(src, "standard input", limit=1000)  # type: ignore[arg-type]
    assert src.given == 1001
    assert jsonio.read_bounded(io.BytesIO(b"a" * 1000), limit=1000) == "a" * 1000


def test_standard_input_that_is_not_text_is_refused_at_the_first_bad_byte() -> None:
    with pytest.raises(MalformedInput, match=r"standard input: line 2, column 3: not UTF-8 text \(byte 0xff"):
        jsonio.read_bounded(io.BytesIO(b"{}\nab\xff" + b"x" * 100), "standard input")
    with pytest.raises(MalformedInput, match=r"line 1, column 4: not JSON text \(byte 0x00 at offset 3"):
        jsonio.read_bounded(io.BytesIO(b"abc\x00"), "standard input")
    with pytest.raises(MalformedInput, match="this is a SQLite database"):
        jsonio.read_bounded(io.BytesIO(b"SQLite format 3\x00" + bytes(200)), "standard input")
