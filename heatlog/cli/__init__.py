"""The ``heatlog`` command line: a thin typer layer over :mod:`heatlog.racelog` and the views.

Heavy modules (sqlite-utils, jsonschema, the engine, rich tables) are imported inside the commands so that
``heatlog --help`` stays as fast as importing typer itself. One module per area; each registers its commands on
the one :data:`~heatlog.cli.common.app` when imported (the import order below is the order of ``--help``).
"""

# isort: off
from . import races, entries, files, anchor, record, simulate, analysis, season, stats, review, demo  # noqa: F401  (registers the commands, in this order)
# isort: on
from .common import app

__all__ = ["app", "main"]


def main() -> None:
    app()
