"""``cardtally calibrate DECK PHOTO... [--replace] [--json]``: enrol a deck from photos of its
backs."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace as replace_fields
from pathlib import Path
from typing import Annotated

import typer

from ..errors import CardtallyError
from ..vision.calibrate import (
    CARDS_PER_PHOTO,
    MAX_PHOTOS,
    Calibration,
    calibrate_deck,
    check_photo_count,
)
from ..vision.decks import (
    check_deck_name,
    check_photos_are_new,
    current_decks,
    profile_path,
    write_profile,
)
from ..vision.load import check_photo_path, read_photo_bytes
from .app import app


def calibration_json(deck: str, n_photos: int, result: Calibration) -> dict:
    """The ``calibrate --json`` object: the deck, what it was learnt from, its look-alike."""
    closest = result.closest
    return {
        "deck": deck,
        "photos": n_photos,
        "cards": result.n_cards,
        "face_up_skipped": result.n_face_up,
        "outliers_skipped": result.n_outliers,
        "threshold": round(result.profile.threshold, 4),
        "confused_with": None if closest is None else {
            "deck": closest.deck, "share": round(closest.share, 4)},
        # Card-frame pixels (x0, y0, x1, y1) of the new deck's back where it differs from each.
        "look_alikes": [
            {"deck": a.deck, "where": a.where,
             "windows": [[w.x0, w.y0, w.x1, w.y1] for w in a.windows]}
            for a in result.look_alikes.decks],
    }


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
    check_photo_count(len(photos))
    # A missing photo is bad input, not wrong usage: one `Error:` line and exit 1, as `count`.
    for photo in photos:
        check_photo_path(photo)
    check_deck_name(deck)
    if profile_path(deck).exists() and not replace:
        raise CardtallyError(
            f"Deck {deck!r} is already calibrated; add --replace to calibrate it again."
        )
    digests = [hashlib.sha256(read_photo_bytes(photo)).hexdigest() for photo in photos]
    check_photos_are_new(deck, photos, digests)
    result = calibrate_deck(deck, photos, current_decks())
    write_profile(replace_fields(result.profile, photo_sha256=tuple(digests)), replace=replace)
    plural = "s" if len(photos) != 1 else ""
    skipped = []
    if result.n_face_up:
        skipped.append(f"{result.n_face_up} face up")
    if result.n_outliers:
        skipped.append(f"{result.n_outliers} not matching the others")
    note = f" (skipped {', '.join(skipped)})" if skipped else ""
    # The result is data (stdout); with --json the JSON is, and the sentence goes to stderr.
    typer.echo(
        f"Calibrated deck {deck!r} from {result.n_cards} cards in {len(photos)} photo{plural}"
        f"{note}.", err=as_json,
    )
    for alike in result.look_alikes.decks:
        typer.echo(
            f"Warning: deck {deck!r} differs from deck {alike.deck!r} only in {alike.where} of "
            "the card; their cards are told apart only where that shows: lay the cards out so "
            "that it does, or expect unknown or mixed-up cards.", err=True,
        )
    for other in result.look_alikes.unchecked:
        typer.echo(
            f"Warning: deck {other!r} was calibrated by an older cardtally that did not keep its "
            f"card back, so deck {deck!r} was not compared with it; calibrate it again with "
            f"'cardtally calibrate {other} PHOTO... --replace'.", err=True,
        )
    closest = result.closest_unexplained
    if closest is not None:
        typer.echo(
            f"Warning: deck {deck!r} is easily confused with deck {closest.deck!r} "
            f"({closest.share:.0%} of its calibration views are as close to it); their cards are "
            "told apart only where what differs (e.g. a symbol) shows: lay the cards out so that "
            "it does, or expect unknown or mixed-up cards.", err=True,
        )
    if as_json:
        typer.echo(json.dumps(calibration_json(deck, len(photos), result)))
