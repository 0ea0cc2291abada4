"""``cardtally calibrate DECK PHOTO... [--replace]``: enrol a deck from photos of its backs."""

from __future__ import annotations

import hashlib
from dataclasses import replace as replace_fields
from pathlib import Path
from typing import Annotated

import typer

from ..errors import CardtallyError
from ..vision.calibrate import calibrate_deck
from ..vision.decks import (
    check_deck_name,
    check_photos_are_new,
    load_decks,
    profile_path,
    write_profile,
)
from ..vision.embed import embedder_version
from ..vision.load import check_photo_path, read_photo_bytes
from .app import app


@app.command("calibrate")
def calibrate(
    deck: Annotated[str, typer.Argument(help="Name for the deck (e.g. the player's name).")],
    photos: Annotated[
        list[Path],
        typer.Argument(help="Photos showing only this deck's backs (5-40 cards each).",
                       show_default=False),
    ],
    replace: Annotated[
        bool, typer.Option("--replace", help="Calibrate a deck that already exists again.")
    ] = False,
) -> None:
    """Learn what DECK's card backs look like, from photos showing only that deck."""
    # A missing photo is bad input, not wrong usage: one `Error:` line and exit 1, as `count`.
    for photo in photos:
        check_photo_path(photo)
    check_deck_name(deck)
    if profile_path(deck).exists() and not replace:
        raise CardtallyError(
            f"Deck {deck!r} is already calibrated; add --replace to calibrate it again."
        )
    existing = load_decks(embedder_version=None)
    compatible = type(existing)(tuple(p for p in existing.profiles
                                      if p.embedder_version == embedder_version()))
    digests = [hashlib.sha256(read_photo_bytes(photo)).hexdigest() for photo in photos]
    check_photos_are_new(deck, photos, digests)
    result = calibrate_deck(deck, photos, compatible)
    write_profile(replace_fields(result.profile, photo_sha256=tuple(digests)), replace=replace)
    plural = "s" if len(photos) != 1 else ""
    skipped = []
    if result.n_face_up:
        skipped.append(f"{result.n_face_up} face up")
    if result.n_outliers:
        skipped.append(f"{result.n_outliers} not matching the others")
    note = f" (skipped {', '.join(skipped)})" if skipped else ""
    typer.echo(
        f"Calibrated deck {deck!r} from {result.n_cards} cards in {len(photos)} photo{plural}"
        f"{note}.", err=True,
    )
    closest = result.closest
    if closest is not None:
        typer.echo(
            f"Warning: deck {deck!r} is easily confused with deck {closest.deck!r} "
            f"({closest.share:.0%} of its calibration views are as close to it); their cards are "
            "told apart only where what differs (e.g. a symbol) shows: lay the cards out so that "
            "it does, or expect unknown or mixed-up cards.", err=True,
        )
