"""Whose deck is each detected card: nearest calibrated deck, or UNKNOWN, or FACE_UP.

A card is given to the deck whose prototypes it is most similar to (cosine of unit embeddings)
only if that similarity reaches the deck's own threshold *and* beats the second-best deck by a
margin; otherwise it is UNKNOWN, so that a deck nobody calibrated is not silently counted for the
nearest one. The embedder's face-up head marks cards lying face up; they never count for a deck.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .decks import DeckSet
from .detections import FACE_UP, UNKNOWN, CardDetections, CardIdentities
from .embed import BackEmbedder, Embeddings, default_embedder
from .rectify import card_crops


@dataclass(frozen=True)
class IdentifySettings:
    """Decision rule constants (similarities are cosines in [-1, 1])."""

    #: Best deck must beat the second best by this much.
    margin: float = 0.01
    #: Face-up head probability from which a card counts as face up, unless it matches a deck
    #: whose own backs reach such values (``DeckProfile.face_up_prob_limit``).
    face_up_prob: float = 0.4
    #: Temperature turning similarities into a confidence (softmax over decks + "unknown").
    confidence_temperature: float = 0.03


def deck_similarities(embeddings: Embeddings, decks: DeckSet) -> np.ndarray:
    """(n, n_decks) best cosine similarity of each card to each deck's prototypes."""
    n = len(embeddings)
    sims = np.full((n, len(decks)), -1.0, np.float32)
    for k, profile in enumerate(decks.profiles):
        if n:
            sims[:, k] = (embeddings.vectors @ profile.prototypes.T).max(axis=1)
    return sims


def classify(
    embeddings: Embeddings, decks: DeckSet, settings: IdentifySettings = IdentifySettings()
) -> CardIdentities:
    """Decide deck / UNKNOWN / FACE_UP for embedded cards (pure; no images involved)."""
    n = len(embeddings)
    deck_index = np.full((n,), UNKNOWN, np.int64)
    confidence = np.zeros((n,), np.float32)
    if n and len(decks):
        sims = deck_similarities(embeddings, decks)
        thresholds = np.array([p.threshold for p in decks.profiles], np.float32)
        order = np.argsort(-sims, axis=1)
        best = order[:, 0]
        rows = np.arange(n)
        s_best = sims[rows, best]
        s_second = sims[rows, order[:, 1]] if len(decks) > 1 else np.full((n,), -1.0, np.float32)
        accepted = (s_best >= thresholds[best]) & (s_best - s_second >= settings.margin)
        deck_index[accepted] = best[accepted]
        # Confidence: softmax over the decks plus an "unknown" option scored at the threshold.
        logits = np.concatenate([sims, thresholds[best][:, None]], axis=1)
        logits = (logits - logits.max(axis=1, keepdims=True)) / settings.confidence_temperature
        prob = np.exp(logits)
        prob /= prob.sum(axis=1, keepdims=True)
        confidence = np.where(accepted, prob[rows, best], prob[:, -1]).astype(np.float32)
    elif n:
        confidence[:] = 1.0
    # A face-up card must never count for a deck; but the head also fires on the backs of some
    # decks (white, number-like), so each deck carries the level its own backs reach.
    prob = embeddings.face_up_prob
    limits = np.array([p.face_up_prob_limit for p in decks.profiles] or [1.0], np.float32)
    own_limit = np.where(deck_index >= 0, limits[np.maximum(deck_index, 0)], settings.face_up_prob)
    face_up = prob >= np.maximum(own_limit, settings.face_up_prob)
    deck_index[face_up] = FACE_UP
    confidence[face_up] = prob[face_up]
    return CardIdentities(deck_index=deck_index, confidence=confidence, deck_names=decks.names)


def identify(
    image_bgr: np.ndarray,
    detections: CardDetections,
    decks: DeckSet,
    embedder: BackEmbedder | None = None,
    settings: IdentifySettings = IdentifySettings(),
) -> CardIdentities:
    """Identify the owner of every detected card of one image (parallel to ``detections``)."""
    if detections.image_wh != (image_bgr.shape[1], image_bgr.shape[0]):
        raise ValueError(
            f"detections are for a {detections.image_wh} image, got {image_bgr.shape[1::-1]}"
        )
    embeddings = (embedder or default_embedder()).embed(card_crops(image_bgr, detections))
    return classify(embeddings, decks, settings)
