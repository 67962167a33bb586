"""heatlog serve: the table server (every player records their own turn from a phone)."""

from typing import Annotated

import typer

from .common import DbOpt, app, db_path, user_errors


@app.command()
@user_errors
def serve(
    race: Annotated[
        int | None,
        typer.Option(
            "--race",
            "-r",
            help="The race to serve (default: the current race, as every command; none: the host sets one up).",
        ),
    ] = None,
    port: Annotated[int, typer.Option(help="The port to listen on.", min=1, max=65535)] = 8765,
    lan: Annotated[
        bool, typer.Option("--lan", help="Listen on every network interface (phones on the same Wi-Fi), not 127.0.0.1.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Take the race over from a recorder on another machine.")
    ] = False,
    db: DbOpt = None,
) -> None:
    """Serve a race at the table: a host screen, one phone per car (join codes as QR codes), spectators.

    Prints the host link (open it on the laptop or TV), then one join link and QR code per car. Listens on
    127.0.0.1 unless --lan. Without --race it serves the current race (the most recent race made, the race
    other commands default to) and prints which; in a database with no race the host sets one up.

    Example: heatlog serve --lan
    """
    import uvicorn

    from ..serve.app import Server, make_app
    from ..serve.net import check_port, lan_address, print_codes

    path = db_path(db)
    bind = "0.0.0.0" if lan else "127.0.0.1"
    check_port(bind, port)  # before the links are printed: a server that cannot listen has no links
    shown = lan_address() if lan else "127.0.0.1"
    server = Server(path, race=race, base_url=f"http://{shown}:{port}", force=force, announce=print_codes)
    if server.table is None:
        print_codes(server)
    try:
        # open event streams never end by themselves: Ctrl-C closes them after 2 s instead of waiting for them
        uvicorn.run(
            make_app(server), host=bind, port=port, log_level="warning", access_log=False, timeout_graceful_shutdown=2
        )
    finally:
        server.close()
