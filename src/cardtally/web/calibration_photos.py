"""The photos of a deck's backs that the page uploads one by one before calibrating the deck
from them (``cardtally calibrate DECK PHOTO...`` takes them all at once).

They wait in a temporary folder, each decoded by the project's loader as it comes (a damaged
or non-image file is refused at once, with the loader's message), and go when the deck is
calibrated or they are dropped.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..deck_calibration import CalibratedDeck, calibrate_from_photos
from ..errors import CardtallyError
from ..vision.calibrate import check_photo_count
from ..vision.load import load_image


class CalibrationPhotos:
    """The photos uploaded so far for the next calibration (at most one set for the table)."""

    def __init__(self) -> None:
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self.paths: list[Path] = []

    def add(self, data: bytes, suffix: str) -> None:
        """Keep one more photo (refused beyond the most a calibration takes, or when the
        loader cannot read it)."""
        check_photo_count(len(self.paths) + 1)
        if self._folder is None:
            self._folder = tempfile.TemporaryDirectory(prefix="cardtally-calibration-")
        # Phones name every photo alike: number them, as the messages name them.
        path = Path(self._folder.name) / f"photo-{len(self.paths) + 1}{suffix}"
        try:
            path.write_bytes(data)
        except OSError as exc:
            raise CardtallyError(f"Cannot keep the photo in {path.parent}: {exc.strerror}.") from None
        try:
            load_image(path)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        self.paths.append(path)

    def calibrate(self, deck: str, replace: bool) -> CalibratedDeck:
        """Calibrate ``deck`` from the photos (``calibrate``'s use case and checks); they are
        dropped once it is calibrated, and kept (to add more or drop) when it is refused."""
        if not self.paths:
            raise CardtallyError("Photograph the deck's backs first (1 to 5 photos).")
        done = calibrate_from_photos(deck, self.paths, replace)
        self.drop()
        return done

    def drop(self) -> None:
        """Forget the photos (and their folder)."""
        if self._folder is not None:
            self._folder.cleanup()
        self._folder = None
        self.paths = []
