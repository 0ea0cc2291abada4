"""Calibrating a deck from photos of its backs, as every front end does it (``cardtally
calibrate``, ``cardtally serve``'s page): the checks before any work, the calibration itself
(``vision.calibrate``), the profile written with the photos' SHA-256, and what to tell the user.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace as replace_fields
from pathlib import Path
from typing import Any

from .errors import CardtallyError
from .vision.calibrate import Calibration, calibrate_deck, check_photo_count
from .vision.decks import (
    check_deck_name,
    check_photos_are_new,
    current_decks,
    profile_path,
    write_profile,
)
from .vision.load import check_photo_path, read_photo_bytes


@dataclass(frozen=True)
class CalibratedDeck:
    """A deck just calibrated: its name, how many photos taught it, and the calibration."""

    deck: str
    n_photos: int
    result: Calibration

    def summary(self) -> str:
        """The sentence that says what the deck was learnt from."""
        plural = "s" if self.n_photos != 1 else ""
        skipped = []
        if self.result.n_face_up:
            skipped.append(f"{self.result.n_face_up} face up")
        if self.result.n_outliers:
            skipped.append(f"{self.result.n_outliers} not matching the others")
        note = f" (skipped {', '.join(skipped)})" if skipped else ""
        return (f"Calibrated deck {self.deck!r} from {self.result.n_cards} cards in "
                f"{self.n_photos} photo{plural}{note}.")

    def warnings(self) -> list[str]:
        """The warnings (without their ``Warning:``): decks whose backs differ from this one
        only in small windows, decks too old to compare with, and an easily confused deck."""
        out = [
            f"deck {self.deck!r} differs from deck {alike.deck!r} only in {alike.where} of the "
            "card; their cards are told apart only where that shows: lay the cards out so that "
            "it does, or expect unknown or mixed-up cards."
            for alike in self.result.look_alikes.decks]
        out += [
            f"deck {other!r} was calibrated by an older cardtally that did not keep its card "
            f"back, so deck {self.deck!r} was not compared with it; calibrate it again with "
            f"'cardtally calibrate {other} PHOTO... --replace'."
            for other in self.result.look_alikes.unchecked]
        closest = self.result.closest_unexplained
        if closest is not None:
            out.append(
                f"deck {self.deck!r} is easily confused with deck {closest.deck!r} "
                f"({closest.share:.0%} of its calibration views are as close to it); their cards "
                "are told apart only where what differs (e.g. a symbol) shows: lay the cards out "
                "so that it does, or expect unknown or mixed-up cards.")
        return out

    def to_json(self) -> dict[str, Any]:
        """The ``calibrate --json`` object: the deck, what it was learnt from, its look-alike."""
        result, closest = self.result, self.result.closest
        return {
            "deck": self.deck,
            "photos": self.n_photos,
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


def calibrate_from_photos(deck: str, photos: Sequence[Path], replace: bool) -> CalibratedDeck:
    """Calibrate ``deck`` from ``photos`` (1-5, only this deck's backs) and keep its profile;
    ``replace`` calibrates a deck that exists again. Every check that needs no photo decoded
    (count, paths, name, an existing deck, photos that calibrated another deck) comes first."""
    photos = list(photos)
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
    return CalibratedDeck(deck, len(photos), result)
