"""Review folders of rounds being scored: marked until the round is saved, so the next
``score`` removes what a killed one left behind.

``score`` writes a round's review images before the round is saved. When it fails it removes
them itself; when it is killed (``kill -9``, a power cut) it cannot. So the folder holds a
marker file, locked by the ``score`` that writes it (the lock dies with the process), and the
marker goes just before the round is committed. A marked folder whose lock nobody holds is
such a leftover: its review images and marker are removed, photos taken with ``--snap`` stay.
Where file locks are not available (Windows) leftovers are not cleaned.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..home import data_home
from .review import REVIEWS_DIRNAME

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

MARKER = ".unsaved"
#: What ``score`` writes into a review folder: review images and the cards kept beside them
#: (as ``review.ReviewCounter`` names them) and, from a write cut short, their temp files
#: (``annotate.write_review_image``, ``card_file.save_cards``).
REVIEW_FILE_GLOBS = ("*-review.jpg", ".*-review-*.jpg.tmp", "*-cards.npz", ".*-cards-*.tmp")


class UnsavedReview:
    """The marker of one review folder, locked while this process may still save its round."""

    def __init__(self, review_dir: Path) -> None:
        self.review_dir = review_dir
        self._fd: int | None = None
        if fcntl is None:
            return
        remove_leftovers()
        try:
            self._fd = os.open(review_dir / MARKER, os.O_CREAT | os.O_WRONLY, 0o644)
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            # Unmarked, the folder is never cleaned: the safe side (the marker is a tidy-up).
            self.settled()

    def settled(self) -> None:
        """The folder is no leftover: its round is being committed (call this before COMMIT, so
        a kill in between can leave an unmarked folder but never a saved round without its
        images), or the folder was removed after a failure."""
        if self._fd is None:
            return
        (self.review_dir / MARKER).unlink(missing_ok=True)
        os.close(self._fd)  # releases the lock
        self._fd = None


def remove_leftovers() -> list[Path]:
    """Remove the review images of every marked review folder whose ``score`` is gone (and the
    folder, where nothing else is in it); return the folders cleaned."""
    cleaned = []
    for marker in sorted((data_home() / REVIEWS_DIRNAME).glob(f"game-*/round-*/{MARKER}")):
        try:
            fd = os.open(marker, os.O_WRONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # a live score holds it
            os.close(fd)
            continue
        folder = marker.parent
        try:
            for pattern in REVIEW_FILE_GLOBS:
                for written in folder.glob(pattern):
                    written.unlink(missing_ok=True)
            marker.unlink(missing_ok=True)
        finally:
            os.close(fd)
        try:
            folder.rmdir()
        except OSError:
            pass  # snapped photos are in it: they stay
        cleaned.append(folder)
    return cleaned
