"""CSV and TSV cells a spreadsheet would evaluate are written as text (issue 30, item 6; OWASP "CSV
Injection"): car, race and season names like ``=SUM(1+1)``, ``+1+1``, ``@SUM(1)`` or ``=cmd|'/Ccalc'!A0`` are
legal, and ``stats --csv``, ``races`` piped and ``season list`` piped wrote them verbatim."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from test_cli import run

from heatlog.formats.usertext import sheet_cell

NASTY = ["=SUM(1+1)", "+1+1", "@SUM(1)", "=cmd|'/Ccalc'!A0", "-2+3", "\uff1d1+1"]
COLOURS = ["red", "blue", "green", "yellow", "black", "white"]


def is_formula(cell: str) -> bool:
    return bool(cell) and cell[0] in "=+-@\t\r\uff1d\uff0b\uff0d\uff20" and sheet_cell(cell) != cell


@pytest.mark.parametrize("text", NASTY)
def test_a_cell_a_spreadsheet_would_evaluate_gets_a_quote(text: str) -> None:
    assert sheet_cell(text) == "'" + text


@pytest.mark.parametrize("value", [-3, 2.5, "-3", "+4", "-0.5", "1e3", "Ann", "", None, "a=b", "'=x"])
def test_numbers_and_plain_text_are_left_as_they_are(value: object) -> None:
    assert sheet_cell(value) == value


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("csv") / "c.db"
    cars = [a for n, c in zip(NASTY, COLOURS, strict=True) for a in ("--car", f"{n}:{c}")]
    assert run("new", *cars, "--name", '=HYPERLINK("http://x")', db=path).returncode == 0
    season = ["--published", "1961", "--name", "@SUM(1)", "--car", "=1+1:red", "--car", "B:blue"]
    r = run("season", "new", *season, db=path)
    assert r.returncode == 0, r.stderr
    return path


def test_stats_csv_writes_no_formula(db: Path) -> None:
    r = run("stats", "--csv", "--all", db=db)
    assert r.returncode == 0, r.stderr
    rows = list(csv.reader(io.StringIO(r.stdout)))
    names = [row[0] for row in rows[1:]]
    assert sorted(names) == sorted("'" + n for n in NASTY)
    assert not any(is_formula(cell) for row in rows for cell in row)


@pytest.mark.parametrize("args", [["races"], ["season", "list"]])
def test_tab_separated_lists_write_no_formula(db: Path, args: list[str]) -> None:
    r = run(*args, db=db)  # piped: tab-separated
    assert r.returncode == 0, r.stderr
    cells = [cell for line in r.stdout.splitlines() for cell in line.split("\t")]
    assert not any(is_formula(cell) for cell in cells), cells
    assert any(cell.startswith("'=") or cell.startswith("'@") for cell in cells)
