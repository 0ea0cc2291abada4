"""Which cards are doubtful, and whose they could be.

A card is doubtful when it was given to a deck with a confidence under :data:`LOW_CONFIDENCE`,
or left UNKNOWN (no deck matched well enough, or two sibling decks tied). Its candidates are
the decks it could be, most likely first; its margin says how far apart the first two are.
These are the cards ``score`` asks about and ``count --json`` marks with ``doubt``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .detections import UNKNOWN, CardIdentities

#: A card given to a deck with a confidence under this is listed among the cards to check.
LOW_CONFIDENCE = 0.6
#: Decks within this cosine similarity of a doubtful card's nearest deck are its candidates
#: too (the nearest two always are).
CANDIDATE_WINDOW = 0.15


@dataclass(frozen=True)
class CardDoubt:
    """Whose a doubtful card could be: ``candidates`` (deck names, the likeliest first) and
    ``margin``, how much more similar the card's back is to the first candidate than to the
    second (a cosine difference; near 0: the decks cannot be told apart on this card;
    negative where the card-frame templates overruled the embedding; ``None`` with a single
    candidate or where the similarities are not known)."""

    candidates: tuple[str, ...]
    margin: float | None

    def to_json(self) -> dict:
        """The ``doubt`` entry of a card in ``count --json``."""
        margin = None if self.margin is None else round(self.margin, 4)
        return {"candidates": list(self.candidates), "margin": margin}


def is_doubtful(identities: CardIdentities) -> np.ndarray:
    """(n,) bool: the cards given to a deck with low confidence, and the UNKNOWN ones."""
    unsure = (identities.deck_index >= 0) & (identities.confidence < LOW_CONFIDENCE)
    return unsure | (identities.deck_index == UNKNOWN)


def card_doubt(identities: CardIdentities, i: int) -> CardDoubt | None:
    """Card ``i``'s doubt, or ``None`` when it is not doubtful (a sure deck card, face up)."""
    if not is_doubtful(identities)[i]:
        return None
    names = identities.deck_names
    sims = identities.similarity
    tied = identities.ties(i)
    if tied is not None:
        candidates = list(tied)
    elif sims is None:
        own = identities.deck_name(i)
        candidates = [own] if own is not None else list(names)
    else:
        order = [int(k) for k in np.argsort(-sims[i], kind="stable")]
        near = [k for rank, k in enumerate(order)
                if rank < 2 or sims[i, k] >= sims[i, order[0]] - CANDIDATE_WINDOW]
        own_index = int(identities.deck_index[i])
        if own_index >= 0:  # the deck it was given to comes first, whatever ranked it
            near = [own_index] + [k for k in near if k != own_index]
        candidates = [names[k] for k in near]
    margin = None
    if sims is not None and len(candidates) >= 2:
        first, second = names.index(candidates[0]), names.index(candidates[1])
        margin = float(sims[i, first] - sims[i, second])
    return CardDoubt(tuple(candidates), margin)
