"""DuckDB over a corpus: one view per table (``races``, ``car_races``, ``turns``, ``decisions``), so a query
names the tables and not the files (``heatlog study query DIR SQL``, the studies of docs/study.md).

A view reads the table's batch files as they are when it is made (a corpus still being written shows the
batches finished so far); a table with no file yet is an empty view with the table's columns. DuckDB is the
``study`` extra (``pip install 'heatlog[study]'``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..engine.errors import MalformedInput
from .corpus import table_files
from .tables import COLUMNS, TABLES

_SQL_TYPES = {"int64": "BIGINT", "string": "VARCHAR", "bool": "BOOLEAN", "float64": "DOUBLE"}


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def connect(directory: Path) -> Any:
    """A DuckDB connection (in memory) with the corpus's tables as views."""
    try:
        import duckdb
    except ImportError:
        raise MalformedInput("queries need DuckDB: pip install 'heatlog[study]'") from None
    if not directory.is_dir():
        raise MalformedInput(f"{directory}: no such directory")
    if not any((directory / t).is_dir() for t in TABLES):
        raise MalformedInput(f"{directory}: not a corpus (no {', '.join(TABLES)} directories)")
    con = duckdb.connect()
    for table in TABLES:
        files = table_files(directory, table)
        if files:
            listed = ", ".join(_literal(str(p)) for p in files)  # listed, not globbed: a path is data, not a pattern
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet([{listed}])")
        else:
            cols = ", ".join(f"CAST(NULL AS {_SQL_TYPES[k]}) AS {c}" for c, k in COLUMNS[table].items())
            con.execute(f"CREATE VIEW {table} AS SELECT {cols} WHERE false")
    return con


def query(directory: Path, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run ``sql`` over the corpus: (column names, rows). A query DuckDB refuses is a user error, said in its
    words."""
    import duckdb

    con = connect(directory)
    try:
        cur = con.execute(sql)
        if cur.description is None:
            return [], []
        return [d[0] for d in cur.description], cur.fetchall()
    except duckdb.Error as exc:
        raise MalformedInput(f"query refused: {str(exc).strip()}") from None
    finally:
        con.close()


__all__ = ["connect", "query"]
