"""The ``cardtally`` command line: one typer app, one command group per module.

This is the only place that catches :class:`~cardtally.errors.CardtallyError`: it prints
``Error: <message>`` on stderr and exits 1. Typer's own usage errors exit 2.
"""

from typing import Annotated

import typer

from .. import __version__
from .app import app, run_app


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"cardtally {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version_callback, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Score Ligretto-style card games from photos of the cards' backs."""


# Command groups register themselves on import.
# (command modules are imported below as they are added)
from . import snap  # noqa: E402, F401, I001  (camera; own line, others edit the next)
from . import calibrate, count, decks, demo, game, round, score, serve  # noqa: E402, F401


def main() -> None:
    """Run the CLI (console script and ``python -m cardtally``)."""
    run_app()


__all__ = ["app", "main"]
