"""``heatlog serve``: the table server (issue 27). Every player records their own turn from a phone; the board
lives on a shared screen. docs/table.md says how a table uses it; docs/design.md ("The table server") why it is
built so.

* :mod:`heatlog.serve.table`: the served race (the recorder's session, the seats, the private plans), no HTTP.
* :mod:`heatlog.serve.seats`: the server's side tables (secrets, plans, idempotency keys) in the same database.
* :mod:`heatlog.serve.app`: the Starlette app (pages, JSON, server-sent events); :mod:`heatlog.serve.pages` its
  HTML, every user text escaped in one place.
"""

from .app import Server, make_app
from .seats import ServeStore
from .table import Table

__all__ = ["ServeStore", "Server", "Table", "make_app"]
