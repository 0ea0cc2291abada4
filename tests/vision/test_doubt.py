"""``vision.doubt``: which cards are doubtful, their candidate decks and margin."""

from __future__ import annotations

import numpy as np
import pytest

from cardtally.vision.detections import FACE_UP, UNKNOWN, CardIdentities
from cardtally.vision.doubt import CardDoubt, card_doubt

NAMES = ("red", "blue", "green")
#: Each card's similarity to red, blue, green.
SIMS = np.array([
    [0.90, 0.40, 0.30],  # 0: red, sure
    [0.70, 0.75, 0.20],  # 1: red with low confidence (the templates overruled blue)
    [0.50, 0.45, 0.38],  # 2: unknown; green lies within the window of red
    [0.50, 0.30, 0.10],  # 3: unknown; the nearest two are candidates even far apart
    [0.80, 0.79, 0.10],  # 4: unknown, tied between red and blue
    [0.20, 0.20, 0.20],  # 5: face up
], np.float32)


def identities(similarity: np.ndarray | None) -> CardIdentities:
    tied = np.full((6, 2), -1, np.int64)
    tied[4] = (0, 1)
    return CardIdentities(np.array([0, 0, UNKNOWN, UNKNOWN, UNKNOWN, FACE_UP]),
                          np.array([0.95, 0.55, 0.9, 0.99, 0.5, 0.8], np.float32), NAMES, tied,
                          similarity)


@pytest.mark.parametrize(("card", "expected"), [
    (0, None),
    (1, CardDoubt(("red", "blue"), -0.05)),
    (2, CardDoubt(("red", "blue", "green"), 0.05)),
    (3, CardDoubt(("red", "blue"), 0.2)),
    (4, CardDoubt(("red", "blue"), 0.01)),
    (5, None),
])
def test_candidates_and_margin(card: int, expected: CardDoubt | None):
    doubt = card_doubt(identities(SIMS), card)
    if expected is None:
        assert doubt is None
    else:
        assert doubt is not None and doubt.candidates == expected.candidates
        assert doubt.margin == pytest.approx(expected.margin, abs=1e-6)


def test_without_similarities_no_margin_is_made_up():
    ids = identities(None)
    assert card_doubt(ids, 1) == CardDoubt(("red",), None)
    assert card_doubt(ids, 2) == CardDoubt(NAMES, None)
    assert card_doubt(ids, 4) == CardDoubt(("red", "blue"), None)
    assert card_doubt(ids, 4).to_json() == {"candidates": ["red", "blue"], "margin": None}
