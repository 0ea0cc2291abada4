"""A scored round's evidence: its review folder, review images, photo digests and counts;
and the lines naming the cards a user should check in the review images.

``score`` writes the evidence while counting; ``round recount`` reads it back and counts
again; ``count --annotate`` prints the cards to check too.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import typer

from ..errors import CardtallyError
from ..home import data_home
from ..scoring.ledger import Game
from ..vision.count import CountResult, PhotoCount, count_photos, load_photo
from ..vision.decks import DeckSet
from ..vision.detections import UNKNOWN
from ..vision.label_layout import card_numbers
from ._leftovers import FROM_PHOTOS, Leftovers

REVIEWS_DIRNAME = "reviews"
#: A round's two photo sets, by label (messages, review file names), and their keys in its
#: saved evidence.
EVIDENCE_KEYS = {"centre": "center", "leftover": "leftover"}
#: Cards identified with less confidence than this are listed for the user to check.
LOW_CONFIDENCE = 0.6


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file (so a saved round can be re-counted from the same photos)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_distinct_photos(paths: Sequence[Path]) -> None:
    """Refuse two files with the same bytes (a photo copied under another name, or given for
    both the centre and the leftover piles): its cards would count twice."""
    seen: dict[str, Path] = {}
    for path in paths:
        try:
            digest = sha256_of(Path(path))
        except OSError:
            continue  # unreadable: reading it to count says so clearly
        if digest in seen:
            raise CardtallyError(
                f"{seen[digest]} and {path} are the same photo (identical bytes); each photo "
                "may be counted only once."
            )
        seen[digest] = Path(path)


def new_review_dir(game_id: int, number: int) -> Path:
    """A fresh folder for the review images (and snapped photos) of a round being scored."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    parent = data_home() / REVIEWS_DIRNAME / f"game-{game_id}"
    try:
        parent.mkdir(parents=True, exist_ok=True)
        for n in range(1, 1000):
            folder = parent / (f"round-{number}-{stamp}" + (f"-{n}" if n > 1 else ""))
            try:
                folder.mkdir()
            except FileExistsError:
                continue
            return folder
    except OSError as exc:
        raise CardtallyError(
            f"Cannot create a review folder in {parent}: {exc.strerror}."
        ) from None
    raise CardtallyError(f"Cannot create a review folder in {parent}: too many this second.")


def discard_review_dir(review_dir: Path, keep: Sequence[Path] = ()) -> None:
    """Remove a round's review folder after a failure; photos in ``keep`` stay (and are named)."""
    if not keep:
        shutil.rmtree(review_dir, ignore_errors=True)
        return
    for path in review_dir.iterdir():
        if path not in keep:
            path.unlink(missing_ok=True)
    typer.echo(f"The photos taken are kept: {', '.join(str(p) for p in keep)}", err=True)


def photo_evidence(photo: PhotoCount, review: Path | None) -> dict[str, Any]:
    """What the ledger keeps about one photo, to review or re-count the round later.

    ``card_decks`` lists every card's deck by its number in the review image (card 1 first;
    ``None`` for cards counted for nobody: unknown or face up), for ``round edit --card``.
    """
    by_number = np.argsort(card_numbers(photo.detections), kind="stable")
    return {
        "path": str(photo.path.resolve()),
        "sha256": photo.sha256,
        "review_image": None if review is None else str(review),
        "counts": photo.identities.counts(),
        "unknown": photo.identities.unknown_count,
        "face_up": photo.identities.face_up_count,
        "cards": len(photo.detections),
        "card_decks": [photo.identities.deck_name(int(i)) for i in by_number],
    }


class ReviewCounter:
    """Counts a set of photos, writing each one's review image into ``review_dir`` as it goes.

    ``correct(label, photo)``, where given, returns the photo with the user's corrections
    (``score --card``) and how many cards they changed: the review image and the result show
    the corrected cards.
    """

    def __init__(
        self,
        decks: DeckSet,
        review_dir: Path,
        correct: Callable[[str, PhotoCount], tuple[PhotoCount, int]] | None = None,
    ) -> None:
        self.decks = decks
        self.review_dir = review_dir
        self.correct = correct
        self.reviews: dict[Path, Path] = {}
        self.by_hand: dict[Path, int] = {}

    def run(self, label: str, photos: Sequence[Path]) -> CountResult:
        counted: list[PhotoCount] = []

        def after(photo: PhotoCount, image_bgr: np.ndarray) -> None:
            typer.echo(f"{label}: {photo.path.name}: {len(photo.detections)} cards", err=True)
            if self.correct is not None:
                photo, n_fixed = self.correct(label, photo)
                self.by_hand[photo.path] = n_fixed
            counted.append(photo)
            target = (
                self.review_dir / f"{label}-{len(self.reviews) + 1}-{photo.path.stem}-review.jpg"
            )
            self.reviews[photo.path] = self._draw(label, photo, image_bgr, target)

        result = count_photos(list(photos), self.decks, on_photo=after)
        return CountResult(tuple(counted), result.deck_names)

    def correct_again(
        self,
        label: str,
        result: CountResult,
        correct: Callable[[str, PhotoCount], tuple[PhotoCount, int]],
    ) -> CountResult:
        """``result`` with more corrections; each changed photo's review image is drawn again
        (from the same bytes that were counted)."""
        photos = []
        for photo in result.photos:
            fixed, n_fixed = correct(label, photo)
            if n_fixed:
                self.by_hand[photo.path] = self.by_hand.get(photo.path, 0) + n_fixed
                self._draw(label, fixed, _decoded_again(photo), self.reviews[photo.path])
            photos.append(fixed)
        return CountResult(tuple(photos), result.deck_names)

    def _draw(self, label: str, photo: PhotoCount, image_bgr: np.ndarray, target: Path) -> Path:
        from ..vision.annotate import annotate, write_review_image

        title = f"{label}: {photo.path.name}"
        if n_fixed := self.by_hand.get(photo.path, 0):
            title += f" ({n_fixed} given by hand)"
        review = annotate(image_bgr, photo.detections, photo.identities, title=title)
        return write_review_image(target, review)

    def evidence(self, result: CountResult) -> list[dict[str, Any]]:
        return [photo_evidence(p, self.reviews.get(p.path)) for p in result.photos]


def _decoded_again(photo: PhotoCount) -> np.ndarray:
    """The photo decoded again as it was counted; a clear error if its file changed since."""
    loaded = load_photo(photo.path)
    if loaded.sha256 != photo.sha256:
        raise CardtallyError(
            f"{photo.path} changed while the round was being scored; run score again."
        )
    return loaded.image.bgr


def counts_by_player(game: Game, result: CountResult) -> dict[str, int]:
    counts = result.counts
    return {seat.player: counts[seat.deck] for seat in game.seats}


def photo_round_evidence(
    game: Game,
    counter: ReviewCounter,
    center: CountResult,
    leftover: CountResult,
    fixes: Sequence[str],
    card_fixes: Sequence[str] = (),
    leftovers: Leftovers = FROM_PHOTOS,
) -> dict[str, Any]:
    """The ``evidence`` JSON of a photo-scored round (``round recount`` reads it back).

    The photos' counts are those after the ``--card`` corrections (``card_fixes``), which
    the review images show; ``fixes`` (``--fix``) apply on top of them. Typed ``leftovers``
    count with the leftover photos (there are none then).
    """
    typed = leftovers.counts(game.players)
    piles = counts_by_player(game, leftover)
    return {
        "source": "photos",
        EVIDENCE_KEYS["centre"]: counter.evidence(center),
        EVIDENCE_KEYS["leftover"]: counter.evidence(leftover),
        "fixes": list(fixes),
        "card_fixes": list(card_fixes),
        "counted_center": counts_by_player(game, center),
        "counted_leftover": {player: n + typed[player] for player, n in piles.items()},
        **leftovers.to_json(),
    }


def cards_to_check(result: CountResult, label: str = "",
                   nobody: str = "no player's deck") -> list[str]:
    """Human lines for the cards a user should look at, by their numbers in the review image:
    those the identification was unsure about, those two sibling decks tie on, and those that
    match ``nobody``."""
    lines = []
    for photo in result.photos:
        ids = photo.identities
        numbers = card_numbers(photo.detections)
        where = f"{label} {photo.path.name}".strip()
        unsure = np.flatnonzero((ids.deck_index >= 0) & (ids.confidence < LOW_CONFIDENCE))
        for i in sorted(unsure, key=lambda k: numbers[k]):
            lines.append(
                f"{where}: card {numbers[i]} looks like {ids.deck_name(i)} "
                f"({ids.confidence[i]:.0%} sure)"
            )
        untied = ids.deck_index == UNKNOWN
        for i in sorted(np.flatnonzero(untied), key=lambda k: numbers[k]):
            if pair := ids.ties(i):
                lines.append(f"{where}: card {numbers[i]} could be {pair[0]} or {pair[1]} "
                             "(the detail that tells them apart does not show)")
                untied[i] = False
        unknown = sorted(int(n) for n in numbers[untied])
        if unknown:
            listed = ", ".join(str(n) for n in unknown)
            lines.append(f"{where}: card{'s' if len(unknown) > 1 else ''} {listed} "
                         f"match{'es' if len(unknown) == 1 else ''} {nobody}")
    return lines
