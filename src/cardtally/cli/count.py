"""``cardtally count PHOTO...``: cards per deck in photos, with optional review images."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from ..errors import CardtallyError
from ..rounds.doubts import cards_to_check
from ..vision.count import (
    CountResult,
    PhotoCount,
    check_distinct_photos,
    check_photo_paths,
    count_photos,
)
from ..vision.decks import DeckSet, usable_decks
from ._progress import PhotoProgress
from .app import app

JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")]
AnnotateOption = Annotated[
    Path | None,
    typer.Option(
        "--annotate",
        metavar="DIR",
        file_okay=False,
        help="Write a review picture of each photo into DIR.",
        show_default=False,
    ),
]
DecksOption = Annotated[
    str | None,
    typer.Option(
        "--decks",
        metavar="A,B,...",
        help="Identify only these calibrated decks (default: all).",
        show_default=False,
    ),
]


def calibrated_decks(only: str | None) -> DeckSet:
    """The calibrated decks to identify (all, or those named), with clear errors."""
    names = [n.strip() for n in only.split(",") if n.strip()] if only else None
    if only is not None and not names:
        raise CardtallyError(
            "--decks needs at least one deck name, e.g. --decks red-star,red-moon."
        )
    return usable_decks(names)


def review_writer(annotate_dir: Path | None, prefix: str = ""):
    """A callback writing each photo's review image into ``annotate_dir`` (or None)."""
    if annotate_dir is None:
        return None, []
    from ..vision.annotate import annotate, write_review_image

    try:
        annotate_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CardtallyError(f"Cannot create {annotate_dir}: {exc.strerror}.") from None
    written: list[Path] = []

    def write(photo: PhotoCount, image_bgr: np.ndarray) -> None:
        review = annotate(image_bgr, photo.detections, photo.identities, title=photo.path.name)
        target = annotate_dir / f"{prefix}{photo.path.stem}-review.jpg"
        written.append(write_review_image(target, review))

    return write, written


def render_counts(result: CountResult) -> str:
    """A readable table of the counts."""
    width = max([len(n) for n in result.deck_names] + [len("face up")])
    lines = [f"{'deck':<{width}}  cards"]
    for name, n in result.counts.items():
        lines.append(f"{name:<{width}}  {n:>5}")
    lines.append(f"{'unknown':<{width}}  {result.unknown:>5}")
    lines.append(f"{'face up':<{width}}  {result.face_up:>5}")
    lines.append(f"{'total':<{width}}  {result.total_cards:>5}")
    return "\n".join(lines)


@app.command("count")
def count_command(
    photos: Annotated[list[Path], typer.Argument(metavar="PHOTO", help="Photos of the cards.")],
    as_json: JsonOption = False,
    annotate_dir: AnnotateOption = None,
    decks_only: DecksOption = None,
) -> None:
    """Count the cards of each calibrated deck in one or more photos (summed)."""
    check_photo_paths(photos)
    check_distinct_photos(photos)
    decks = calibrated_decks(decks_only)
    write_review, written = review_writer(annotate_dir)
    with PhotoProgress(len(photos)) as progress:
        counted = [0]

        def after_photo(photo: PhotoCount, image_bgr: np.ndarray) -> None:
            counted[0] += 1
            progress.done(f"[{counted[0]}/{len(photos)}] {photo.path.name}: "
                          f"{len(photo.detections)} cards")
            if write_review is not None:
                write_review(photo, image_bgr)

        result = count_photos(photos, decks, on_photo=after_photo, on_stage=progress.stage)
    for path in written:
        typer.echo(f"Review image: {path}", err=True)
    if written:
        # The numbers name cards in the review images, so they are only useful with them.
        for line in cards_to_check(result, nobody="no calibrated deck"):
            typer.echo(f"Check: {line}", err=True)
    if result.unknown:
        typer.echo(
            f"Warning: {result.unknown} card(s) match no calibrated deck (counted as unknown).",
            err=True,
        )
    if result.face_up:
        typer.echo(
            f"Warning: {result.face_up} card(s) lie face up (not counted for any deck).", err=True
        )
    if result.total_cards == 0:
        typer.echo("Warning: no cards found in the photo(s).", err=True)
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        typer.echo(render_counts(result))
