"""DuckDB over a corpus: one view per table (``races``, ``car_races``, ``turns``, ``decisions``), so a query
names the tables and not the files (``heatlog study query DIR SQL``, the studies of docs/study.md).

A view reads the table's batch files as they are when it is made (a corpus still being written shows the
batches finished so far); a table with no file yet is an empty view with the table's columns. DuckDB is the
``study`` extra (``pip install 'heatlog[study]'``).

A study query reads the corpus and nothing else, by construction and by DuckDB's own means, not by reading the
SQL here: DuckDB splits the text into statements (``extract_statements``) and a query is exactly one statement
of DuckDB's SELECT type (SELECT, WITH … SELECT, FROM …, VALUES, DESCRIBE, SUMMARIZE, SHOW, UNPIVOT, a PIVOT that
lists its columns); and the connection, once the views are made, may open the corpus's own files alone
(``allowed_paths``, ``enable_external_access = false``) with its configuration locked (``lock_configuration``),
so no statement can write a file, attach a database, install or load an extension, read another file or undo
these settings. Whatever DuckDB spills to disk for a large query goes to a temporary directory removed after it.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.errors import MalformedInput
from .corpus import table_files
from .tables import COLUMNS, TABLES

_SQL_TYPES = {"int64": "BIGINT", "string": "VARCHAR", "bool": "BOOLEAN", "float64": "DOUBLE"}

#: What a study query may be, said in every refusal.
READ_ONLY = (
    "a study query reads the corpus: one SELECT (or WITH, FROM, VALUES, DESCRIBE, SUMMARIZE, SHOW) over "
    f"{', '.join(TABLES)}"
)


#: Why a statement of each DuckDB type is refused (any other type: it is not a query that reads).
_WHY = {
    "COPY": "writes or reads files",
    "EXPORT": "writes files",
    "COPY_DATABASE": "copies a database",
    "ATTACH": "opens another database",
    "DETACH": "closes a database",
    "LOAD": "installs or loads an extension",
    "SET": "changes a setting",
    "VARIABLE_SET": "changes a setting",
    "PRAGMA": "changes a setting",
    "CREATE": "creates something",
    "CREATE_FUNC": "creates a function",
    "INSERT": "changes data",
    "UPDATE": "changes data",
    "DELETE": "changes data",
    "MERGE_INTO": "changes data",
    "ALTER": "changes the database",
    "DROP": "changes the database",
    "EXPLAIN": "explains a statement (EXPLAIN ANALYZE runs it, whatever it is)",
    "CALL": "calls a function as a statement (select * from the function instead)",
}


class QueryInterrupted(Exception):
    """The query was stopped by Ctrl-C (the caller exits 130)."""


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def connect(directory: Path, spill: Path | None = None) -> Any:
    """A DuckDB connection (in memory) with the corpus's tables as views, that may read the corpus's files alone.

    After the views are made, external access is off except for those files and the configuration is locked
    (DuckDB's "Securing DuckDB" settings): no statement on this connection reads another file, writes one,
    attaches a database file, installs an extension or changes a setting. ``spill`` is where DuckDB may spill a
    large query (default: DuckDB's ``.tmp`` in the working directory; :func:`query` gives a temporary one).
    """
    try:
        import duckdb
    except ImportError:
        raise MalformedInput("queries need DuckDB: pip install 'heatlog[study]'") from None
    if not directory.is_dir():
        raise MalformedInput(f"{directory}: no such directory")
    if not any((directory / t).is_dir() for t in TABLES):
        raise MalformedInput(f"{directory}: not a corpus (no {', '.join(TABLES)} directories)")
    con = duckdb.connect()
    allowed: list[str] = []
    for table in TABLES:
        files = [str(p.resolve()) for p in table_files(directory, table)]
        allowed += files
        if files:
            listed = ", ".join(_literal(p) for p in files)  # listed, not globbed: a path is data, not a pattern
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet([{listed}])")
        else:
            cols = ", ".join(f"CAST(NULL AS {_SQL_TYPES[k]}) AS {c}" for c, k in COLUMNS[table].items())
            con.execute(f"CREATE VIEW {table} AS SELECT {cols} WHERE false")
    if spill is not None:
        con.execute(f"SET temp_directory = {_literal(str(spill))}")
    con.execute(f"SET allowed_paths = [{', '.join(_literal(p) for p in allowed)}]")
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def check(con: Any, sql: str) -> None:
    """Refuse ``sql`` unless DuckDB reads it as exactly one SELECT-type statement (MalformedInput, naming what
    was refused and why)."""
    import duckdb

    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise MalformedInput(f"query refused: {str(exc).strip()}") from None
    if not statements:
        raise MalformedInput(f"query refused: no statement in it; {READ_ONLY}")
    kinds = [s.type.name for s in statements]
    if len(statements) > 1:
        if any(not s.query for s in statements):  # DuckDB made the others from one statement: a PIVOT's type
            raise MalformedInput(
                f"query refused: DuckDB runs it as {len(kinds)} statements ({', '.join(kinds)}): a PIVOT must "
                f"list its columns (pivot … on COLUMN in (value, …)); {READ_ONLY}"
            )
        raise MalformedInput(f"query refused: {len(kinds)} statements ({', '.join(kinds)}); {READ_ONLY}")
    if statements[0].type != duckdb.StatementType.SELECT:
        word = statements[0].query.split()[0].upper() if statements[0].query.split() else kinds[0]
        why = _WHY.get(kinds[0], "is not a query that reads")
        said = word if word == kinds[0] else f"{word} (DuckDB's {kinds[0]} statement)"
        raise MalformedInput(f"query refused: {said} {why}; {READ_ONLY}")


@dataclass
class _Outcome:
    columns: list[str] | None = None
    rows: list[tuple[Any, ...]] | None = None
    error: BaseException | None = None


def query(directory: Path, sql: str, timeout: float | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run ``sql`` over the corpus: (column names, rows). A query that is not one SELECT, that reaches outside
    the corpus, that DuckDB refuses or that runs past ``timeout`` seconds is a user error (MalformedInput), said
    in its words; Ctrl-C stops it (QueryInterrupted). Nothing is written."""
    import duckdb

    if timeout is not None and not timeout > 0:
        raise MalformedInput(f"--timeout {timeout}: a number of seconds above 0")
    spill = Path(tempfile.mkdtemp(prefix="heatlog-query-"))
    try:
        con = connect(directory, spill)
        try:
            check(con, sql)
            outcome = _Outcome()

            def work() -> None:
                try:
                    cur = con.execute(sql)
                    outcome.columns = [d[0] for d in cur.description] if cur.description else []
                    outcome.rows = cur.fetchall() if cur.description else []
                except BaseException as exc:  # handed to the caller's thread
                    outcome.error = exc

            # DuckDB does not see Ctrl-C while it runs: the query runs in a thread, and this one interrupts it
            # (DuckDB's own interrupt) at the deadline or on Ctrl-C.
            worker = threading.Thread(target=work, name="heatlog-query", daemon=True)
            deadline = None if timeout is None else time.monotonic() + timeout
            timed_out = False
            worker.start()
            try:
                while worker.is_alive():
                    worker.join(0.05)
                    if deadline is not None and worker.is_alive() and time.monotonic() > deadline:
                        timed_out = True
                        con.interrupt()
                        worker.join()
            except KeyboardInterrupt:
                con.interrupt()
                worker.join()
                raise QueryInterrupted("query interrupted") from None
            if outcome.error is not None:
                if timed_out and isinstance(outcome.error, duckdb.InterruptException):
                    raise MalformedInput(f"query stopped after {timeout:g} s (--timeout)") from None
                raise _refusal(outcome.error) from None
            assert outcome.columns is not None and outcome.rows is not None
            return outcome.columns, outcome.rows
        finally:
            con.close()
    finally:
        shutil.rmtree(spill, ignore_errors=True)


def _refusal(exc: BaseException) -> BaseException:
    """A DuckDB error as the user's error; anything else is returned as it is (a bug)."""
    import duckdb

    if isinstance(exc, duckdb.PermissionException):
        # DuckDB names what it would not open: 'Cannot access file "/etc/passwd" - file system operations …'
        named = re.search(r'Cannot access (?:file|directory) "(.*?)" - ', str(exc))
        what = f"{named.group(1)!r}, outside the corpus" if named else str(exc).strip().splitlines()[0]
        return MalformedInput(
            f"query refused: it would open {what} (a query may open the corpus's own files, through its tables); "
            f"{READ_ONLY}"
        )
    if isinstance(exc, duckdb.Error):
        return MalformedInput(f"query refused: {str(exc).strip()}")
    return exc


__all__ = ["READ_ONLY", "QueryInterrupted", "check", "connect", "query"]
