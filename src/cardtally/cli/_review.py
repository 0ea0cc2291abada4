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
from ..rounds.leftovers import FROM_PHOTOS, Leftovers
from ..scoring.ledger import Game
from ..vision.card_file import load_cards, save_cards
from ..vision.count import CountResult, PhotoCount, count_photos, load_photo
from ..vision.decks import DeckSet
from ..vision.detections import UNKNOWN, CardDetections, CardIdentities
from ..vision.doubt import LOW_CONFIDENCE
from ..vision.label_layout import card_numbers
from ._progress import PhotoProgress

REVIEWS_DIRNAME = "reviews"
#: A round's two photo sets, by label (messages, review file names), and their keys in its
#: saved evidence.
EVIDENCE_KEYS = {"centre": "center", "leftover": "leftover"}


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


def remove_round_reviews(evidence: Any) -> list[Path]:
    """After a round is undone: remove its review folders (review images, cards files),
    keeping any of the round's own photos that lie there (taken with ``--snap``); returns the
    photos kept. Only folders inside the data home's review folder are touched."""
    if not isinstance(evidence, dict) or evidence.get("source") != "photos":
        return []
    root = (data_home() / REVIEWS_DIRNAME).resolve()
    photos = [p for key in EVIDENCE_KEYS.values() for p in evidence.get(key) or []
              if isinstance(p, dict)]
    folders = {Path(str(p["review_image"])).resolve().parent for p in photos
               if p.get("review_image")}
    own_photos = {Path(str(p.get("path"))).resolve() for p in photos}
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


def photo_evidence(photo: PhotoCount, review: Path | None, cards_file: Path | None = None
                   ) -> dict[str, Any]:
    """What the ledger keeps about one photo, to review or re-count the round later.

    ``card_decks`` lists every card's deck by its number in the review image (card 1 first;
    ``None`` for cards counted for nobody: unknown or face up), for ``round edit --card``;
    ``cards_file`` the cards as counted, to draw the review image again.
    """
    by_number = np.argsort(card_numbers(photo.detections), kind="stable")
    return {
        "path": str(photo.path.resolve()),
        "sha256": photo.sha256,
        "review_image": None if review is None else str(review),
        "cards_file": None if cards_file is None else str(cards_file),
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
        progress: PhotoProgress | None = None,
    ) -> None:
        self.decks = decks
        self.review_dir = review_dir
        self.correct = correct
        self.progress = progress
        self.reviews: dict[Path, Path] = {}
        self.card_files: dict[Path, Path] = {}
        self.by_hand: dict[Path, int] = {}

    def run(self, label: str, photos: Sequence[Path]) -> CountResult:
        counted: list[PhotoCount] = []

        def after(photo: PhotoCount, image_bgr: np.ndarray) -> None:
            line = f"{label}: {photo.path.name}: {len(photo.detections)} cards"
            if self.progress is not None:
                self.progress.done(line)
            else:
                typer.echo(line, err=True)
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

    def evidence(self, result: CountResult) -> list[dict[str, Any]]:
        return [photo_evidence(p, self.reviews.get(p.path), self.card_files.get(p.path))
                for p in result.photos]


def in_photo_px(photo: PhotoCount) -> CardDetections:
    """The photo's cards in its own pixels (it may have been counted at a smaller size)."""
    if photo.full_wh is None or photo.full_wh == photo.image_wh:
        return photo.detections
    return photo.detections.placed(photo.full_wh[0] / photo.image_wh[0], (0.0, 0.0), photo.full_wh)


def saved_quad_xy(photo: dict[str, Any], number: int) -> tuple[tuple[float, float], ...] | None:
    """Card ``number``'s outline (photo pixels) from a saved photo's cards file, if kept."""
    cards_file = photo.get("cards_file")
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


def why_not_redrawn(photo: dict[str, Any]) -> str | None:
    """Why a saved photo's review image cannot be drawn again (``None``: it can)."""
    path = Path(str(photo.get("path")))
    if not photo.get("review_image") or not photo.get("cards_file"):
        return "the round keeps no record of its cards' outlines"
    if not Path(photo["cards_file"]).is_file():
        return f"{photo['cards_file']} is missing"
    if not path.is_file():
        return f"its photo {path} is missing"
    if sha256_of(path) != photo.get("sha256"):
        return f"its photo {path} has changed since the round was scored"
    return None


def redraw_saved_review(label: str, photo: dict[str, Any], n_by_hand: int) -> None:
    """Draw a saved photo's review image again with its cards' decks as the evidence now
    gives them (``card_decks``, by number), e.g. after ``round edit --card``."""
    detections, identities = load_cards(Path(photo["cards_file"]))
    numbers = card_numbers(detections)
    deck_index, confidence = identities.deck_index.copy(), identities.confidence.copy()
    for i, number in enumerate(numbers):
        name = photo["card_decks"][number - 1]
        if name in identities.deck_names and name != identities.deck_name(i):
            deck_index[i] = identities.deck_names.index(name)
            confidence[i] = 1.0  # given by hand
    edited = CardIdentities(deck_index, confidence, identities.deck_names, identities.tied_decks,
                            identities.similarity)
    loaded = load_photo(Path(photo["path"]))
    draw_review(Path(photo["review_image"]), label, Path(photo["path"]).name, n_by_hand,
                loaded.image.bgr, detections, edited)
