"""A stand-in vision stage for fast tests of ``count``, ``score``, ``round recount`` and the
round use case (``cardtally.rounds``); shared by tests/cli and tests/rounds.

Photos are drawn by hand: flat coloured cards apart from each other on a dark table. The real
loader and the classical contour detector find them; a fake ``identify`` gives each card to the
deck of its colour (white = face up, any other colour = unknown). So the tests exercise the
commands' plumbing (files, errors, warnings, ledger, evidence) exactly and in milliseconds; the
shipped models are tested end to end in test_score_e2e.py.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from exif_jpeg import jpeg_with_exif_orientation

from cardtally.vision import count as count_module
from cardtally.vision.decks import DeckProfile, write_profile
from cardtally.vision.detect_classical import detect_cards_classical
from cardtally.vision.detections import FACE_UP, UNKNOWN, CardDetections, CardIdentities
from cardtally.vision.embed import embedder_version

#: Deck name -> BGR colour of its (flat) card backs.
DECK_BGR = {
    "red": (40, 40, 220),
    "blue": (220, 90, 30),
    "yellow": (30, 220, 230),
    "purple": (170, 40, 150),  # never calibrated: its cards are unknown
}
FACE_UP_BGR = (250, 250, 250)
TABLE_BGR = (40, 70, 45)
IMAGE_WH = (480, 360)
CARD_WH = (40, 60)
#: Card centres on a grid with room between cards (row-major, up to 24 cards).
SLOTS = [(40 + 56 * col, 50 + 85 * row) for row in range(4) for col in range(8)]


def picture(cards: list[str], image_wh: tuple[int, int] = IMAGE_WH) -> np.ndarray:
    """A table with one flat card per entry of ``cards`` (a deck name, or "face-up")."""
    width, height = image_wh
    image = np.empty((height, width, 3), np.uint8)
    image[:] = TABLE_BGR
    half_w, half_h = CARD_WH[0] // 2, CARD_WH[1] // 2
    for (x, y), deck in zip(SLOTS, cards, strict=False):
        colour = FACE_UP_BGR if deck == "face-up" else DECK_BGR[deck]
        cv2.rectangle(image, (x - half_w, y - half_h), (x + half_w, y + half_h), colour, -1)
        if deck == "face-up":
            cv2.putText(image, "7", (x - 8, y + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 200), 2)
    return image


def card_centres(n: int) -> list[tuple[int, int]]:
    return SLOTS[:n]


def write_photo(path: Path, cards: list[str]) -> Path:
    assert cv2.imwrite(str(path), picture(cards))
    return path


def fake_identify(image_bgr: np.ndarray, detections: CardDetections, decks) -> CardIdentities:
    """The deck whose colour the middle of each card has; white is face up. A card's
    similarity to a deck is 1 - (its largest channel difference from the deck's colour) / 255."""
    index = []
    similarity = np.zeros((len(detections), len(decks.names)), np.float32)
    for i, (x, y) in enumerate(detections.centre_xy):
        patch = image_bgr[int(y) - 5 : int(y) + 6, int(x) - 5 : int(x) + 6].reshape(-1, 3)
        bgr = np.median(patch, axis=0)
        for k, name in enumerate(decks.names):
            similarity[i, k] = 1 - np.abs(bgr - np.array(DECK_BGR[name])).max() / 255
        if bgr.min() > 200:
            index.append(FACE_UP)
            continue
        match = UNKNOWN
        for k, name in enumerate(decks.names):
            if np.abs(bgr - np.array(DECK_BGR[name])).max() < 40:
                match = k
        index.append(match)
    confidence = np.full((len(index),), 0.95, np.float32)
    return CardIdentities(np.array(index, np.int64), confidence, decks.names,
                          similarity=similarity)


@pytest.fixture
def fake_vision(monkeypatch: pytest.MonkeyPatch) -> None:
    """Use the classical detector and :func:`fake_identify` instead of the ONNX models."""
    monkeypatch.setattr(count_module, "detect_cards", detect_cards_classical)
    monkeypatch.setattr(count_module, "identify", fake_identify)


#: A program for ``python -c``: the ``cardtally`` command line with the stand-in vision stage
#: (its arguments follow), for tests that run it as a child process on a pty.
CLI_CHILD = """
import sys
from photo_fakes import fake_identify
from cardtally.vision import count as count_module
from cardtally.vision.detect_classical import detect_cards_classical
count_module.detect_cards = detect_cards_classical
count_module.identify = fake_identify
from cardtally.cli import main
sys.argv = ["cardtally", *sys.argv[1:]]
main()
"""


def calibrate(*names: str) -> None:
    """Store a deck profile for each name (the fake identify ignores its prototypes)."""
    for name in names:
        write_profile(
            DeckProfile(
                name=name,
                prototypes=np.eye(1, 128, dtype=np.float32),
                threshold=0.5,
                embedder_version=embedder_version(),
                n_cards=9,
                created="2026-01-02T03:04:05+00:00",
            )
        )


def start_fake_game() -> None:
    """Calibrate red, blue and yellow and start a game: Anna plays red, Ben blue, Cleo yellow."""
    from typer.testing import CliRunner

    from cardtally.cli import app

    calibrate("red", "blue", "yellow")
    result = CliRunner().invoke(app, ["game", "new", "-p", "Anna=red", "-p", "Ben=blue",
                                      "-p", "Cleo=yellow"])  # fmt: skip
    assert result.exit_code == 0, result.output


def round_photos(folder: Path, centre: list[str], leftover: list[str]) -> tuple[Path, Path]:
    """A round's centre and leftover photos (``centre.png``, ``left.png``) in ``folder``."""
    return write_photo(folder / "centre.png", centre), write_photo(folder / "left.png", leftover)


# -- odd files (as in tests/vision/test_load.py) --------------------------------------------------


def exif_rotated_jpeg(path: Path, upright: np.ndarray, orientation: int = 6) -> Path:
    """A JPEG stored sideways whose EXIF orientation turns it upright, as phones write them."""
    stored = cv2.rotate(upright, cv2.ROTATE_90_COUNTERCLOCKWISE)  # EXIF 6 turns it back
    return jpeg_with_exif_orientation(path, stored, orientation)


def truncated_jpeg(path: Path) -> None:
    cv2.imwrite(str(path), np.random.default_rng(0).integers(0, 255, (200, 200, 3), np.uint8))
    path.write_bytes(path.read_bytes()[:600])


def huge_png(path: Path) -> None:
    """Only the header: it claims 20000 x 20000 pixels (a decompression bomb)."""
    header = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + (20000).to_bytes(4, "big") * 2
    path.write_bytes(header + b"\x08\x02\x00\x00\x00" + b"\x00" * 64)


#: (file name, how to make it, the error message; {path} is the file's path).
BAD_PHOTOS = [
    ("missing.jpg", lambda p: None, "No such file: {path}"),
    ("folder", lambda p: p.mkdir(), "{path} is a folder, not a photo."),
    ("empty.jpg", lambda p: p.write_bytes(b""), "empty.jpg is empty (0 bytes); it is not a photo."),
    (
        "notes.jpg",
        lambda p: p.write_text("hello"),
        "notes.jpg is not an image cardtally can read (JPEG, PNG, ...).",
    ),
    ("cut.jpg", truncated_jpeg, "cut.jpg is truncated (the JPEG data ends early); copy it again."),
    (
        "dot.png",
        lambda p: cv2.imwrite(str(p), np.zeros((1, 1, 3), np.uint8)),
        "dot.png is only 1x1 pixels; photos must be at least 32 pixels on each side.",
    ),
    (
        "bomb.png",
        huge_png,
        "bomb.png is 20000x20000 pixels, too large to process safely (limit 120 megapixels); "
        "resize it first.",
    ),
]
BAD_PHOTO_IDS = [name for name, _, _ in BAD_PHOTOS]


def odd_format_writers(cards: list[str]) -> dict[str, object]:
    """File name -> writer of the same picture in a format the loader must convert."""
    image = picture(cards)
    alpha = np.full(image.shape[:2], 255, np.uint8)
    alpha[:10] = 0  # a transparent band along the top
    return {
        "deep.png": lambda p: cv2.imwrite(str(p), image.astype(np.uint16) * 257),
        "alpha.png": lambda p: cv2.imwrite(str(p), np.dstack([image, alpha])),
        "phone.jpg": lambda p: exif_rotated_jpeg(p, image),
    }
