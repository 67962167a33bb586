"""The server's address on the local network, and the links and codes printed in the terminal."""

from __future__ import annotations

import contextlib
import socket
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .app import Server


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent), else 127.0.0.1."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("10.255.255.255", 1))
        address = str(s.getsockname()[0])
        if not address.startswith("0."):
            return address
    return "127.0.0.1"


def check_port(host: str, port: int) -> None:
    """Refuse, in words, a port another program listens on."""
    from ..engine.errors import ConflictError

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as err:
            raise ConflictError(
                f"--port {port}: cannot listen on {host}:{port} ({err.strerror or err}); "
                "another program (another heatlog serve?) uses it: give another --port"
            ) from None


def print_codes(server: Server) -> None:
    """The host link, the spectators' link and each seat's join link with its QR code, in the terminal."""
    import segno

    out = sys.stdout
    print(f"host screen (keep it private): {server.host_url()}", file=out)
    print(f"spectators: {server.base_url}/watch", file=out)
    table = server.table
    if table is None:
        print("no race served yet: open the host screen to set one up or resume one", file=out, flush=True)
        return
    v = table.session.view
    when = "finished" if v.phase == "over" else f"round {v.round}"
    print(
        f"serving race {table.race} ({v.track.name}, {', '.join(v.cars)}; {when}):"
        " one join code per car (scan it with the car's phone)",
        file=out,
    )
    if table.notice:
        print(table.notice, file=out)
    for car, url in server.join_urls().items():
        print(f"\n{car}: {url}", file=out)
        qr = segno.make(url, error="m")
        with contextlib.suppress(Exception):
            qr.terminal(out=out, compact=True)
    out.flush()
