"""Photos in, per-deck counts out: load -> detect -> identify, for one or many photos.

The result keeps every photo's detections and identities (for the review images and the
ledger's evidence) and the time each stage took (for the benchmark's split).
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cardtally.errors import CardtallyError
from cardtally.malloc import release_free_memory

from .decks import DeckSet
from .detect import detect_cards
from .detections import FACE_UP, UNKNOWN, CardDetections, CardIdentities
from .doubt import card_doubt
from .identify import identify
from .label_layout import card_numbers
from .load import LoadedImage, check_photo_path, decode_image, read_photo_bytes


@dataclass(frozen=True)
class PhotoCount:
    """One photo's cards: where they are and whose they are."""

    path: Path
    image_wh: tuple[int, int]
    detections: CardDetections
    identities: CardIdentities
    stage_s: dict[str, float] = field(default_factory=dict)
    #: Hex SHA-256 of the exact bytes that were decoded (the ledger's evidence).
    sha256: str = ""
    #: The photo's own upright size where it was decoded smaller than that (``LoadedImage``).
    full_wh: tuple[int, int] | None = None

    def to_json(self) -> dict:
        """The photo entry of ``count --json`` (DESIGN.md §4), in the photo's own pixels.

        Cards are listed in the order of their numbers in the review image (card 1 first), so
        that ``cards[k]`` is the card labelled ``k + 1`` there and in the "Check:" lines.
        ``confidence`` is how sure ``deck`` (or ``face_up``) is, ``None`` for an unknown card;
        a doubtful card carries ``doubt`` (``vision.doubt.CardDoubt``).
        """
        photo_wh = self.full_wh or self.image_wh
        quads_xy = self.detections.quad_xy * (np.array(photo_wh, np.float64) / self.image_wh)
        ids = self.identities
        cards = []
        for i in np.argsort(card_numbers(self.detections), kind="stable"):
            known = ids.deck_index[i] != UNKNOWN
            card = {
                "deck": ids.deck_name(i),
                "confidence": round(float(ids.confidence[i]), 4) if known else None,
                "face_up": bool(ids.deck_index[i] == FACE_UP),
                "polygon": [
                    [round(float(x), 1), round(float(y), 1)]
                    for x, y in quads_xy[i]
                ],
            }
            if (doubt := card_doubt(ids, int(i))) is not None:
                card["doubt"] = doubt.to_json()
            cards.append(card)
        return {
            "path": str(self.path),
            "width": photo_wh[0],
            "height": photo_wh[1],
            "cards": cards,
        }


@dataclass(frozen=True)
class CountResult:
    """Counts summed over all photos of one set (e.g. the centre of a round)."""

    photos: tuple[PhotoCount, ...]
    deck_names: tuple[str, ...]

    @property
    def counts(self) -> dict[str, int]:
        """Cards per calibrated deck, zero included."""
        totals = {name: 0 for name in self.deck_names}
        for photo in self.photos:
            for name, n in photo.identities.counts().items():
                totals[name] += n
        return totals

    @property
    def unknown(self) -> int:
        """Cards no calibrated deck claims, over all photos."""
        return sum(photo.identities.unknown_count for photo in self.photos)

    @property
    def face_up(self) -> int:
        """Face-up cards, over all photos (they count for no deck)."""
        return sum(photo.identities.face_up_count for photo in self.photos)

    @property
    def total_cards(self) -> int:
        """Every card found, over all photos, whatever its deck."""
        return sum(len(photo.detections) for photo in self.photos)

    def to_json(self) -> dict:
        """The ``count --json`` object of DESIGN.md §4."""
        return {
            "photos": [photo.to_json() for photo in self.photos],
            "counts": self.counts,
            "unknown": self.unknown,
            "face_up": self.face_up,
        }


def count_photo(path: Path, decks: DeckSet) -> tuple[PhotoCount, np.ndarray]:
    """Load, detect and identify one photo; returns the count and the decoded image.

    The file is read once: the SHA-256 recorded is that of the very bytes that were counted.
    """
    return _count_loaded(load_photo(path), decks)


@dataclass(frozen=True)
class LoadedPhoto:
    """A photo decoded, with the SHA-256 of the very bytes decoded and the time it took."""

    image: LoadedImage
    sha256: str
    decode_s: float


def load_photo(path: Path) -> LoadedPhoto:
    """Read, decode and hash one photo file (its bytes are read once)."""
    started = time.perf_counter()
    data = read_photo_bytes(path)
    image = decode_image(data, path)
    sha256 = hashlib.sha256(data).hexdigest()
    return LoadedPhoto(image, sha256, time.perf_counter() - started)


#: The stages of counting one photo, in order, as ``count_photos`` reports them (``on_stage``).
STAGES = ("decode", "detect", "identify")


def _count_loaded(loaded: LoadedPhoto, decks: DeckSet,
                  on_stage: Callable[[str], None] | None = None) -> tuple[PhotoCount, np.ndarray]:
    image = loaded.image
    started = time.perf_counter()
    if on_stage is not None:
        on_stage("detect")
    detections = detect_cards(image.bgr)
    detected = time.perf_counter()
    if on_stage is not None:
        on_stage("identify")
    identities = identify(image.bgr, detections, decks)
    identified = time.perf_counter()
    stage_s = {
        "decode": loaded.decode_s,
        "detect": detected - started,
        "identify": identified - detected,
    }
    photo = PhotoCount(image.path, image.image_wh, detections, identities, stage_s, loaded.sha256,
                       image.full_wh)
    return photo, image.bgr


def check_photo_paths(paths: Sequence[Path]) -> None:
    """Fail before any work for a missing file, a folder, or a photo given twice."""
    seen: dict[Path, Path] = {}
    for path in paths:
        path = Path(path)
        check_photo_path(path)
        key = path.resolve()
        if key in seen:
            raise CardtallyError(f"{path} is given twice; each photo may be counted only once.")
        seen[key] = path


def count_photos(
    paths: Sequence[Path],
    decks: DeckSet,
    on_photo: Callable[[PhotoCount, np.ndarray], None] | None = None,
    on_stage: Callable[[Path, str], None] | None = None,
) -> CountResult:
    """Count every photo; ``on_photo(photo, image_bgr)`` runs after each (progress, review),
    ``on_stage(path, stage)`` as each of a photo's :data:`STAGES` begins (progress).

    Missing files, folders and repeated photos are reported before any photo is processed.
    """
    check_photo_paths(paths)
    photos = []
    # The next photo is read, hashed and decoded (both release the GIL) while this one is
    # counted; its bytes are dropped as soon as they are hashed and decoded.
    with ThreadPoolExecutor(max_workers=1) as reader:
        pending = reader.submit(load_photo, Path(paths[0])) if paths else None
        for k in range(len(paths)):
            stage = None if on_stage is None else functools.partial(on_stage, Path(paths[k]))
            if stage is not None:
                stage("decode")
            loaded = pending.result()
            pending = reader.submit(load_photo, Path(paths[k + 1])) if k + 1 < len(paths) else None
            photo, image_bgr = _count_loaded(loaded, decks, stage)
            if on_photo is not None:
                on_photo(photo, image_bgr)
            photos.append(photo)
            del loaded, image_bgr
            release_free_memory()  # else each photo's freed buffers add to the peak
    return CountResult(tuple(photos), decks.names)


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
