"""``cardtally serve``: a web page for the phones at the table (``cardtally.web``).

It prints the page's address with a random token (and a QR code of it where ``segno`` is
installed), then serves until Ctrl+C. Needs the ``serve`` extra.
"""

from __future__ import annotations

import socket
import sys
from typing import Annotated

import typer

from ..errors import CardtallyError
from .app import app

EXTRA_HINT = "cardtally serve needs its extra: pip install 'cardtally[serve]'"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
#: An address of the documentation range (RFC 5737): connecting a UDP socket to it sends
#: nothing but tells which of the laptop's addresses faces the network.
_PROBE_ADDRESS = ("192.0.2.1", 9)


def lan_address() -> str:
    """The laptop's address on its network (127.0.0.1 where it has none)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(_PROBE_ADDRESS)
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (port 0: any free port); a clear error if it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        # Listening now, so that a phone quick to open the printed address waits in the
        # queue instead of being refused while the server starts.
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise CardtallyError(f"Cannot listen on {host}:{port}: {exc.strerror}.") from None
    sock.set_inheritable(True)
    return sock


def print_qr(url: str) -> None:
    """A QR code of ``url`` on stderr, where the optional ``segno`` is installed."""
    try:
        import segno
    except ImportError:
        return
    segno.make(url, error="m").terminal(out=sys.stderr, compact=True)


@app.command("serve")
def serve_command(
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to listen on: 0.0.0.0 (or the laptop's LAN address) lets the phones "
            "on the same network in; the default lets in this computer only.",
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port to listen on (0: any free one).")
    ] = 8765,
) -> None:
    """Serve a web page where phones photograph, correct and save the current game's rounds."""
    try:
        import uvicorn

        from ..web.app import create_app, new_token
    except ImportError:
        raise CardtallyError(EXTRA_HINT) from None
    sock = listening_socket(host, port)
    shown_host = lan_address() if host in ("0.0.0.0", "::") else host
    if ":" in shown_host:
        shown_host = f"[{shown_host}]"
    token = new_token()
    url = f"http://{shown_host}:{sock.getsockname()[1]}/?token={token}"
    typer.echo(url)
    print_qr(url)
    if host in LOCAL_HOSTS:
        typer.echo("Only this computer can open the page; give --host 0.0.0.0 to let the "
                   "phones on this network in.", err=True)
    typer.echo("Open the address on a phone (anyone with it can post rounds); Ctrl+C stops.",
               err=True)
    config = uvicorn.Config(create_app(token), log_level="warning", access_log=False)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
