"""A round's review folder: the review image of each photo (its cards outlined and numbered)
with the cards kept beside it, drawn while the photos are counted and again after a
correction; removed when the round is not saved or is undone."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Protocol

import numpy as np

from ..errors import CardtallyError
from ..home import data_home
from ..vision.card_file import load_cards, save_cards
from ..vision.count import CountResult, PhotoCount, count_photos, load_photo, sha256_of
from ..vision.decks import DeckSet
from ..vision.detections import CardDetections, CardIdentities
from ..vision.label_layout import card_numbers
from .evidence import PhotoEvidence, RoundEvidence

REVIEWS_DIRNAME = "reviews"


class CountProgress(Protocol):
    """Where counting reports its progress (the CLI: a bar on a terminal, else lines)."""

    def stage(self, path: Path, stage: str) -> None:
        """The photo at ``path`` enters ``stage`` (``vision.count.STAGES``)."""

    def done(self, line: str) -> None:
        """A photo is counted: ``line`` says how many cards it has."""


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
    """Remove a round's review folder after a failure; photos in ``keep`` stay."""
    if not keep:
        shutil.rmtree(review_dir, ignore_errors=True)
        return
    for path in review_dir.iterdir():
        if path not in keep:
            path.unlink(missing_ok=True)


def remove_round_reviews(evidence: RoundEvidence | None) -> list[Path]:
    """After a round is undone: remove its review folders (review images, cards files),
    keeping any of the round's own photos that lie there (taken with ``--snap``); returns the
    photos kept. Only folders inside the data home's review folder are touched."""
    if evidence is None or not evidence.from_photos:
        return []
    root = (data_home() / REVIEWS_DIRNAME).resolve()
    photos = evidence.all_photos
    folders = {Path(p.review_image).resolve().parent for p in photos if p.review_image}
    own_photos = {Path(p.path).resolve() for p in photos}
    kept: list[Path] = []
    for folder in sorted(folders):
        if root not in folder.parents or not folder.is_dir():
            continue
        keep = sorted(p for p in folder.iterdir() if p.resolve() in own_photos)
        if keep:
            for path in folder.iterdir():
                if path not in keep and path.is_file():
                    path.unlink(missing_ok=True)
            kept += keep
        else:
            shutil.rmtree(folder, ignore_errors=True)
    return kept


class ReviewCounter:
    """Counts a set of photos, writing each one's review image into ``review_dir`` as it goes.

    ``correct(label, photo)``, where given, returns the photo with the user's corrections
    (``score --card``) and how many cards they changed: the review image and the result show
    the corrected cards. ``progress`` hears of each photo's stages and of each photo counted.
    """

    def __init__(
        self,
        decks: DeckSet,
        review_dir: Path,
        correct: Callable[[str, PhotoCount], tuple[PhotoCount, int]] | None = None,
        progress: CountProgress | None = None,
    ) -> None:
        self.decks = decks
        self.review_dir = review_dir
        self.correct = correct
        self.progress = progress
        self.reviews: dict[Path, Path] = {}
        self.card_files: dict[Path, Path] = {}
        self.by_hand: dict[Path, int] = {}

    def run(self, label: str, photos: Sequence[Path]) -> CountResult:
        """Count ``photos`` of set ``label`` (``centre`` or ``leftover``), applying
        ``correct`` where given and writing each photo's review image as it is counted."""
        counted: list[PhotoCount] = []

        def after(photo: PhotoCount, image_bgr: np.ndarray) -> None:
            if self.progress is not None:
                self.progress.done(f"{label}: {photo.path.name}: {len(photo.detections)} cards")
            if self.correct is not None:
                photo, n_fixed = self.correct(label, photo)
                self.by_hand[photo.path] = n_fixed
            counted.append(photo)
            target = (
                self.review_dir / f"{label}-{len(self.reviews) + 1}-{photo.path.stem}-review.jpg"
            )
            self.reviews[photo.path] = self._draw(label, photo, image_bgr, target)

        stage = None if self.progress is None else self.progress.stage
        result = count_photos(list(photos), self.decks, on_photo=after, on_stage=stage)
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
        self.card_files[photo.path] = cards_file_of(target)
        return draw_review(target, label, photo.path.name, self.by_hand.get(photo.path, 0),
                           image_bgr, in_photo_px(photo), photo.identities)

    def evidence(self, result: CountResult) -> tuple[PhotoEvidence, ...]:
        """What the ledger keeps about each photo of ``result``, with its review image."""
        return tuple(PhotoEvidence.of(p, self.reviews.get(p.path), self.card_files.get(p.path))
                     for p in result.photos)


def in_photo_px(photo: PhotoCount) -> CardDetections:
    """The photo's cards in its own pixels (it may have been counted at a smaller size)."""
    if photo.full_wh is None or photo.full_wh == photo.image_wh:
        return photo.detections
    return photo.detections.placed(photo.full_wh[0] / photo.image_wh[0], (0.0, 0.0), photo.full_wh)


def saved_quad_xy(photo: PhotoEvidence, number: int) -> tuple[tuple[float, float], ...] | None:
    """Card ``number``'s outline (photo pixels) from a saved photo's cards file, if kept."""
    cards_file = photo.cards_file
    if not cards_file or not Path(cards_file).is_file():
        return None
    detections, _ = load_cards(Path(cards_file))
    hits = np.flatnonzero(card_numbers(detections) == number)
    if len(hits) != 1:
        return None
    return tuple((round(float(x), 1), round(float(y), 1)) for x, y in detections.quad_xy[hits[0]])


def cards_file_of(review_image: Path) -> Path:
    """Where the cards drawn in ``review_image`` are kept (beside it)."""
    return review_image.with_name(review_image.name.removesuffix("-review.jpg") + "-cards.npz")


def draw_review(target: Path, label: str, photo_name: str, n_by_hand: int, image_bgr: np.ndarray,
                detections: CardDetections, identities: CardIdentities) -> Path:
    """Draw a photo's review image into ``target`` and keep its cards beside it."""
    from ..vision.annotate import annotate, write_review_image

    title = f"{label}: {photo_name}"
    if n_by_hand:
        title += f" ({n_by_hand} given by hand)"
    review = annotate(image_bgr, detections, identities, title=title)
    written = write_review_image(target, review)
    save_cards(cards_file_of(target), detections, identities)
    return written


def _decoded_again(photo: PhotoCount) -> np.ndarray:
    """The photo decoded again as it was counted; a clear error if its file changed since."""
    loaded = load_photo(photo.path)
    if loaded.sha256 != photo.sha256:
        raise CardtallyError(
            f"{photo.path} changed while the round was being scored; run score again."
        )
    return loaded.image.bgr


def why_not_redrawn(photo: PhotoEvidence) -> str | None:
    """Why a saved photo's review image cannot be drawn again (``None``: it can)."""
    path = Path(photo.path)
    if not photo.review_image or not photo.cards_file or photo.card_decks is None:
        return "the round keeps no record of its cards' outlines"
    if not Path(photo.cards_file).is_file():
        return f"{photo.cards_file} is missing"
    if not path.is_file():
        return f"its photo {path} is missing"
    if sha256_of(path) != photo.sha256:
        return f"its photo {path} has changed since the round was scored"
    return None


def redraw_saved_review(label: str, photo: PhotoEvidence, n_by_hand: int) -> None:
    """Draw a saved photo's review image again with its cards' decks as the evidence now
    gives them (``card_decks``, by number), e.g. after ``round edit --card``."""
    problem = why_not_redrawn(photo)
    if problem is not None or not photo.review_image or not photo.cards_file \
            or photo.card_decks is None:
        raise CardtallyError(f"The review image of {photo.name} cannot be drawn again: {problem}.")
    detections, identities = load_cards(Path(photo.cards_file))
    numbers = card_numbers(detections)
    deck_index, confidence = identities.deck_index.copy(), identities.confidence.copy()
    for i, number in enumerate(numbers):
        name = photo.card_decks[number - 1]
        if name in identities.deck_names and name != identities.deck_name(i):
            deck_index[i] = identities.deck_names.index(name)
            confidence[i] = 1.0  # given by hand
    edited = CardIdentities(deck_index, confidence, identities.deck_names, identities.tied_decks,
                            identities.similarity)
    loaded = load_photo(Path(photo.path))
    draw_review(Path(photo.review_image), label, photo.name, n_by_hand,
                loaded.image.bgr, detections, edited)


def remove_replaced_reviews(evidence: RoundEvidence) -> None:
    """Delete the review images replaced evidence pointed to (never a photo), and their
    folders when that leaves them empty (photos taken with the camera stay)."""
    photos = {p.path for p in evidence.all_photos}
    folders = set()
    for photo in evidence.all_photos:
        for kept in (photo.review_image, photo.cards_file):
            if kept and kept not in photos:
                Path(kept).unlink(missing_ok=True)
                folders.add(Path(kept).parent)
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty
