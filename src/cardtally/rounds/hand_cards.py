"""Cards given to a player by hand, kept by where they lie so that a re-count keeps them.

``--card centre:5=Cleo`` names a card by its number in one count's review image. A re-count
(``round recount``) can find other cards and number them anew, so the round keeps each such
card with its outline in the photo; the re-count gives the new card lying in the same place
(the outlines overlapping by at least :data:`SAME_CARD_IOU`) to the same player, or refuses
unless told to drop the corrections.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..errors import CardtallyError
from ..vision.count import PhotoCount
from ..vision.detections import CardIdentities
from ..vision.label_layout import card_numbers

#: Two outlines of one card from two counts overlap at least this much (intersection / union).
SAME_CARD_IOU = 0.5


@dataclass(frozen=True)
class HandCard:
    """Card ``number`` of the ``label`` photo ``photo`` (its path) is ``player``'s.

    ``quad_xy`` is the card's outline in the photo's own pixels (``None`` where the round does
    not know it); ``was_deck`` the deck the card counted for before (``None``: nobody's).
    """

    label: str
    photo: str
    number: int
    player: str
    quad_xy: tuple[tuple[float, float], ...] | None
    was_deck: str | None = None

    @property
    def text(self) -> str:
        """The correction in ``--card`` form, naming the photo."""
        return f"{self.label}:{Path(self.photo).name}:{self.number}={self.player}"

    def to_json(self) -> dict[str, Any]:
        """The hand-given card's entry in the evidence JSON."""
        return {
            "set": self.label,
            "photo": self.photo,
            "number": self.number,
            "player": self.player,
            "quad_xy": None if self.quad_xy is None else [list(xy) for xy in self.quad_xy],
            "was_deck": self.was_deck,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HandCard:
        """The hand-given card read back from the evidence JSON."""
        quad = data.get("quad_xy")
        return cls(
            str(data["set"]),
            str(data["photo"]),
            int(data["number"]),
            str(data["player"]),
            None if quad is None else tuple((float(x), float(y)) for x, y in quad),
            data.get("was_deck"),
        )


def photo_quads_xy(photo: PhotoCount) -> np.ndarray:
    """Every card's outline ``(n, 4, 2)`` in the photo's own pixels (it may be counted smaller)."""
    photo_wh = np.array(photo.full_wh or photo.image_wh, np.float64)
    return photo.detections.quad_xy * (photo_wh / np.array(photo.image_wh, np.float64))


def quad_of(photo: PhotoCount, index: int) -> tuple[tuple[float, float], ...]:
    """Card ``index``'s outline in the photo's own pixels, rounded to 0.1 px."""
    return tuple((round(float(x), 1), round(float(y), 1)) for x, y in photo_quads_xy(photo)[index])


def overlap(quad_a: np.ndarray, quad_b: np.ndarray) -> float:
    """Intersection over union of two convex outlines."""
    a, b = np.asarray(quad_a, np.float32), np.asarray(quad_b, np.float32)
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = abs(cv2.contourArea(a)) + abs(cv2.contourArea(b)) - inter
    return float(inter / union) if union > 0 else 0.0


def given_to(photo: PhotoCount, indices_players: Sequence[tuple[int, str]],
             deck_of: Mapping[str, str]) -> PhotoCount:
    """``photo`` with card ``index`` counted for each ``player``'s deck (the user looked)."""
    ids = photo.identities
    deck_index, confidence = ids.deck_index.copy(), ids.confidence.copy()
    tied = None if ids.tied_decks is None else ids.tied_decks.copy()
    for index, player in indices_players:
        deck_index[index] = ids.deck_names.index(deck_of[player])
        confidence[index] = 1.0
        if tied is not None:
            tied[index] = -1
    return dataclasses.replace(
        photo, identities=CardIdentities(deck_index, confidence, ids.deck_names, tied,
                                         ids.similarity)
    )


class HandCardKeeper:
    """Gives the hand-given cards of a saved round to their players in a re-count.

    ``corrected(label, photo)`` fits ``ReviewCounter``'s ``correct``; ``kept`` lists the cards
    given again, numbered as in the re-count. A card with no counterpart raises, unless
    ``drop`` (then it is listed in ``dropped``).
    """

    def __init__(self, number: int, cards: Sequence[HandCard], deck_of: Mapping[str, str],
                 drop: bool) -> None:
        self.round_number = number
        self.cards = list(cards)
        self.deck_of = dict(deck_of)
        self.drop = drop
        self.kept: list[HandCard] = []
        self.dropped: list[HandCard] = []

    def corrected(self, label: str, photo: PhotoCount) -> tuple[PhotoCount, int]:
        """``photo`` with this round's hand-given cards of set ``label`` given
        again to their players (each matched to the re-counted card in its
        place), and how many cards were given."""
        mine = [c for c in self.cards if c.label == label and c.photo == str(photo.path.resolve())]
        if not mine:
            return photo, 0
        quads = photo_quads_xy(photo)
        numbers = card_numbers(photo.detections)
        given: list[tuple[int, str]] = []
        for card in mine:
            scores = [overlap(np.array(card.quad_xy), q) for q in quads] if card.quad_xy else []
            best = int(np.argmax(scores)) if scores else -1
            if best < 0 or scores[best] < SAME_CARD_IOU:
                if not self.drop:
                    raise CardtallyError(
                        f"Cannot re-count round {self.round_number} and keep its correction "
                        f"--card {card.text}: the re-count finds no card in its place. Re-count "
                        "with --drop-corrections to drop the corrections, then correct the "
                        "round again with round edit."
                    )
                self.dropped.append(card)
                continue
            was = photo.identities.deck_name(best)
            given.append((best, card.player))
            self.kept.append(
                HandCard(label, card.photo, int(numbers[best]), card.player, quad_of(photo, best),
                         was)
            )
        return given_to(photo, given, self.deck_of), len(given)
