"""What a photo-scored round keeps in the ledger about how it was counted (its evidence):
each photo with its SHA-256, review image, cards file and counts, the corrections and the
leftovers, so that it can be shown, corrected and counted again."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..scoring.ledger import Game
from ..vision.count import CountResult, PhotoCount
from ..vision.label_layout import card_numbers
from .leftovers import FROM_PHOTOS, Leftovers

if TYPE_CHECKING:
    from .review import ReviewCounter

#: Labels of a round's two photo sets (messages, review file names, corrections) ...
CENTRE, LEFTOVER = "centre", "leftover"
#: ... and their keys in its saved evidence.
EVIDENCE_KEYS = {CENTRE: "center", LEFTOVER: "leftover"}


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
