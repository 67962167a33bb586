"""Corpus-scale studies: many simulated races straight into Parquet, for DuckDB, pandas or any Parquet reader
(docs/study.md).

- :mod:`.spec`: which races a corpus holds (a grid or a sample of configurations, seeds), saved beside it;
- :mod:`.tables`: the four tables (``races``, ``car_races``, ``turns``, ``decisions``), read off the facts and
  statistics heatlog already derives;
- :mod:`.corpus`: batches on any executor (local processes, a Dask cluster), written atomically, resumable and
  extendable;
- :mod:`.export`: the same tables for the races of a database (``heatlog export --parquet``);
- :mod:`.query`: DuckDB views over a corpus (``heatlog study query``).
"""

from .spec import Config, StudySpec
from .tables import COLUMNS, TABLES, Batch, RaceRows

__all__ = ["COLUMNS", "TABLES", "Batch", "Config", "RaceRows", "StudySpec"]
