"""``cardtally score``: count a round's photos, check it, confirm it, save it in the ledger.

The options are read here; ``_score_run`` does the rest (the round itself is
``rounds.photo_round``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import CardtallyError
from ._leftover_options import leftover_choice
from ._score_run import score_round
from .app import app


@app.command("score")
def score_command(
    center: Annotated[
        list[Path] | None,
        typer.Option(
            "--center",
            "--centre",
            metavar="PHOTO",
            help="Photo(s) of the centre cards.",
            show_default=False,
        ),
    ] = None,
    leftover: Annotated[
        list[Path] | None,
        typer.Option(
            "--leftover",
            metavar="PHOTO",
            help="Photo(s) of the cards left in the Ligretto piles.",
            show_default=False,
        ),
    ] = None,
    left: Annotated[
        list[str] | None,
        typer.Option(
            "--left",
            metavar="NAME=N",
            help="Cards left in a player's Ligretto pile, typed instead of photographed "
            "(repeat for each player; the caller's may be left out).",
            show_default=False,
        ),
    ] = None,
    no_leftover: Annotated[
        bool,
        typer.Option("--no-leftover", help="Every Ligretto pile is empty (no leftover photo)."),
    ] = False,
    snap: Annotated[
        bool,
        typer.Option("--snap", help="Take the centre and leftover photos with the camera instead."),
    ] = False,
    camera: Annotated[
        str,
        typer.Option(
            "--camera",
            "-c",
            help="With --snap: camera number (0 is the first webcam) or a phone camera stream URL.",
        ),
    ] = "0",
    caller: Annotated[
        str | None,
        typer.Option("--caller", metavar="PLAYER", help="Who called out.", show_default=False),
    ] = None,
    game_id: Annotated[
        int | None,
        typer.Option("--game", help="Game ID (default: the current game).", show_default=False),
    ] = None,
    fix: Annotated[
        list[str] | None,
        typer.Option(
            "--fix",
            metavar="PLAYER=centre:+N",
            help="Correct a count before saving (repeatable).",
            show_default=False,
        ),
    ] = None,
    card: Annotated[
        list[str] | None,
        typer.Option(
            "--card",
            metavar="centre:N=PLAYER",
            help="Count card N of the centre (or leftover) review image for PLAYER (repeatable; "
            "centre:PHOTO:N=PLAYER when there are several centre photos).",
            show_default=False,
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Save without asking.")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Add the round even though the game is finished.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the saved round and game as JSON.")
    ] = False,
) -> None:
    """Score a round from photos: count each player's cards, check, confirm and save."""
    leftover_source = leftover_choice(leftover or [], left or [], no_leftover, snap)
    if snap and (center or leftover):
        raise CardtallyError("Give either --snap or --center/--leftover photos, not both.")
    if not snap and not center:
        raise CardtallyError(
            "Give the photo(s) of the centre cards with --center PHOTO (or use --snap)."
        )
    score_round(
        center or [], leftover or [], leftover_source=leftover_source, left=left or [],
        snap=snap, camera=camera, caller=caller, game_id=game_id, fixes=fix or [],
        cards=card or [], yes=yes, force=force, as_json=as_json,
    )
