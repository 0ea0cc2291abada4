"""``cardtally calibrate DECK PHOTO... [--replace] [--json]``: enrol a deck from photos of its
backs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..deck_calibration import calibrate_from_photos
from ..vision.calibrate import CARDS_PER_PHOTO, MAX_PHOTOS
from .app import app


@app.command("calibrate")
def calibrate(
    deck: Annotated[str, typer.Argument(help="Name for the deck (e.g. the player's name).")],
    photos: Annotated[
        list[Path],
        typer.Argument(
            help=f"1-{MAX_PHOTOS} photos showing only this deck's backs "
            f"({CARDS_PER_PHOTO[0]}-{CARDS_PER_PHOTO[1]} cards each).",
            show_default=False),
    ],
    replace: Annotated[
        bool, typer.Option("--replace", help="Calibrate a deck that already exists again.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON on stdout.")
    ] = False,
) -> None:
    """Learn what DECK's card backs look like, from photos showing only that deck."""
    done = calibrate_from_photos(deck, photos, replace)
    # The result is data (stdout); with --json the JSON is, and the sentence goes to stderr.
    typer.echo(done.summary(), err=as_json)
    for warning in done.warnings():
        typer.echo(f"Warning: {warning}", err=True)
    if as_json:
        typer.echo(json.dumps(done.to_json()))
