"""Whose deck is each detected card: nearest calibrated deck, or UNKNOWN, or FACE_UP.

A card is given to the deck whose prototypes it is most similar to (cosine of unit embeddings)
only if that similarity reaches the deck's own threshold *and* beats the second-best deck by a
margin; otherwise it is UNKNOWN, so that a deck nobody calibrated is not silently counted for the
nearest one. The embedder's face-up head marks cards lying face up; they never count for a deck.

Where the embedding leaves sibling decks in the running (a Ligretto box: same colour and
pattern, another symbol), the decks' card-frame templates may settle it (``vision.templates``):
when the card's visible part clearly matches one deck's template best, that deck wins. When
neither the templates nor the embedding can tell the nearest two siblings apart, the card is
UNKNOWN, tied between them, rather than a guess that would score for the wrong player.

Last, the photo's own cards are compared with each other (``vision.consensus``): an UNKNOWN card
whose look-alikes in the same photo clearly belong to one deck joins that deck.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .consensus import ConsensusSettings, settle_by_consensus
from .decks import DeckSet, check_embedding_dim
from .detections import FACE_UP, UNKNOWN, CardDetections, CardIdentities
from .embed import BackEmbedder, Embeddings, default_embedder
from .rectify import CardCrops, card_crops
from .templates import SiblingSet, match_siblings, normalised_frame


@dataclass(frozen=True)
class IdentifySettings:
    """Decision rule constants (similarities are cosines in [-1, 1])."""

    #: Best deck must beat the second best by this much.
    margin: float = 0.01
    #: A card that falls short of its nearest deck's threshold by at most this much is still
    #: that deck's card when it is clearly no one else's: a threshold is set under the
    #: calibration photo's light and camera, and strips or large cards in a game photo often
    #: land just below it (0 turns this off) ...
    near_threshold_slack: float = 0.1
    #: ... when it beats every other calibrated deck by this much ...
    near_threshold_margin: float = 0.15
    #: ... and is at least this much more similar to the deck than to any of the random other
    #: backs the embedder ships (``embed.background_embeddings``): a deck nobody calibrated is
    #: a back like those, so its cards stay UNKNOWN.
    background_margin: float = 0.0
    #: Face-up head probability from which a card counts as face up, unless it matches a deck
    #: whose own backs reach such values (``DeckProfile.face_up_prob_limit``).
    face_up_prob: float = 0.4
    #: Temperature turning similarities into a confidence (softmax over decks + "unknown").
    confidence_temperature: float = 0.03
    #: Decks within this similarity of the best one are siblings for the templates to settle.
    sibling_window: float = 0.15
    #: The card must sit at least this far from the runner-up template towards the best
    #: (0: halfway between them, 1: exactly the best; ``templates.SiblingMatch``) ...
    min_separation: float = 0.15
    #: ... and show at least this share of what tells the two templates apart (below, the
    #: distinguishing symbol is hidden and no photo can tell).
    min_visible_detail: float = 0.2
    #: Where the templates cannot settle it and the embedding puts the two nearest siblings
    #: within this of each other, the card is UNKNOWN (tied between them) rather than a guess:
    #: in a Ligretto family most such guesses go to a wrong player.
    sibling_tie_window: float = 0.05
    #: Let the decks' card-frame templates settle sibling decks (False: the embedder alone).
    sibling_templates: bool = True
    #: Scene consensus for UNKNOWN cards (``vision.consensus``); None: each card on its own.
    consensus: ConsensusSettings | None = field(default_factory=ConsensusSettings)


def deck_similarities(embeddings: Embeddings, decks: DeckSet) -> np.ndarray:
    """(n, n_decks) best cosine similarity of each card to each deck's prototypes."""
    n = len(embeddings)
    sims = np.full((n, len(decks)), -1.0, np.float32)
    for k, profile in enumerate(decks.profiles):
        if n:
            check_embedding_dim(profile, embeddings.vectors.shape[1])
            sims[:, k] = (embeddings.vectors @ profile.prototypes.T).max(axis=1)
    return sims


def classify(
    embeddings: Embeddings, decks: DeckSet, settings: IdentifySettings = IdentifySettings(),
    background: np.ndarray | None = None,
) -> CardIdentities:
    """Decide deck / UNKNOWN / FACE_UP for embedded cards (pure; no images involved).

    ``background`` (b, dim) unit embeddings of backs that belong to no deck enable the
    near-threshold rule of :class:`IdentifySettings`; without them only the thresholds decide.
    """
    n = len(embeddings)
    deck_index = np.full((n,), UNKNOWN, np.int64)
    confidence = np.zeros((n,), np.float32)
    sims = deck_similarities(embeddings, decks)
    if n and len(decks):
        thresholds = np.array([p.threshold for p in decks.profiles], np.float32)
        order = np.argsort(-sims, axis=1)
        best = order[:, 0]
        rows = np.arange(n)
        s_best = sims[rows, best]
        s_second = sims[rows, order[:, 1]] if len(decks) > 1 else np.full((n,), -1.0, np.float32)
        accepted = (s_best >= thresholds[best]) & (s_best - s_second >= settings.margin)
        if background is not None and len(background) and settings.near_threshold_slack > 0:
            s_background = (embeddings.vectors @ background.T).max(axis=1)
            accepted |= ((s_best >= thresholds[best] - settings.near_threshold_slack)
                         & (s_best - s_second >= settings.near_threshold_margin)
                         & (s_best - s_background >= settings.background_margin))
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
    return CardIdentities(deck_index=deck_index, confidence=confidence, deck_names=decks.names,
                          similarity=sims)


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
    crops = card_crops(image_bgr, detections, keep_rectified=True)
    embeddings = (embedder or default_embedder()).embed(crops)
    return decide_owners(crops, embeddings, decks, settings)


def decide_owners(crops: CardCrops | None, embeddings: Embeddings, decks: DeckSet,
                  settings: IdentifySettings = IdentifySettings()) -> CardIdentities:
    """Every step of :func:`identify` after embedding: each card on its own (``classify``),
    sibling decks by their templates, then the photo's consensus for UNKNOWN cards.

    ``crops`` are the photo's card crops with their rectified frames (``card_crops(...,
    keep_rectified=True)``), parallel to ``embeddings``; only the templates read them, so
    they may be None when ``settings.sibling_templates`` is off.
    """
    identities = classify(embeddings, decks, settings, embeddings.background_vectors())
    if settings.sibling_templates:
        if crops is None:
            raise ValueError("the sibling templates need the cards' crops")
        identities = settle_siblings(crops, embeddings, decks, identities, settings)
    if settings.consensus is None:
        return identities
    return settle_by_consensus(embeddings, decks, identities,
                               deck_similarities(embeddings, decks), settings.consensus)


def sibling_candidates(sims: np.ndarray, decks: DeckSet, identities: CardIdentities,
                       settings: IdentifySettings = IdentifySettings()) -> list[np.ndarray]:
    """Per card, the deck indices whose templates are compared (empty: nothing to compare).

    ``sims`` is :func:`deck_similarities` of the cards. A card is compared when its best deck
    passes its own threshold and at least one other deck with a template comes within
    ``sibling_window`` of it; face-up cards never are.
    """
    n = len(sims)
    if n == 0 or len(decks) < 2:
        return [np.zeros((0,), np.int64)] * n
    thresholds = np.array([p.threshold for p in decks.profiles], np.float32)
    has_template = np.array([p.template is not None for p in decks.profiles])
    best = np.argmax(sims, axis=1)
    best_sim = sims[np.arange(n), best]
    near = (sims >= best_sim[:, None] - settings.sibling_window) & has_template
    compared = ((best_sim >= thresholds[best]) & has_template[best] & (near.sum(axis=1) >= 2)
                & (identities.deck_index != FACE_UP))
    return [np.flatnonzero(near[i]) if compared[i] else np.zeros((0,), np.int64) for i in range(n)]


def settle_siblings(crops: CardCrops, embeddings: Embeddings, decks: DeckSet,
                    identities: CardIdentities,
                    settings: IdentifySettings = IdentifySettings()) -> CardIdentities:
    """``identities`` with sibling-deck cards decided by the decks' templates where they are
    clear, and UNKNOWN (with ``tied_decks``) where neither the templates nor the embedding
    (``sibling_tie_window``) can tell the two nearest siblings apart.

    ``crops`` are the cards' crops with their rectified frames (``card_crops(...,
    keep_rectified=True)``).
    """
    sims = deck_similarities(embeddings, decks)
    candidates = sibling_candidates(sims, decks, identities, settings)
    if not any(len(c) for c in candidates):
        return identities
    if crops.rectified is None:
        raise ValueError("settle_siblings needs card_crops(..., keep_rectified=True)")
    deck_index = identities.deck_index.copy()
    confidence = identities.confidence.copy()
    tied = np.full((len(deck_index), 2), -1, np.int64)
    sibling_sets: dict[tuple[int, ...], SiblingSet] = {}
    for i, decks_i in enumerate(candidates):
        if len(decks_i) == 0:
            continue
        frame, small_mask = normalised_frame(*crops.rectified[i])
        key = tuple(int(k) for k in decks_i)
        if key not in sibling_sets:
            sibling_sets[key] = SiblingSet.of([decks.profiles[k].template for k in key])
        match = match_siblings(sibling_sets[key], frame, small_mask)
        # Only a clear verdict overrules the embedding: a hidden symbol or a blurred card leaves
        # the embedder's decision (deck or UNKNOWN) as it was, unless that was a toss-up.
        sure = min(1.0, max(0.0, match.separation))
        if match.best >= 0 and match.separation >= settings.min_separation \
                and match.visible_detail >= settings.min_visible_detail:
            deck_index[i], confidence[i] = int(decks_i[match.best]), 0.5 + 0.5 * sure
            continue
        nearest = decks_i[np.argsort(-sims[i, decks_i])[:2]]
        if sims[i, nearest[0]] - sims[i, nearest[1]] < settings.sibling_tie_window:
            deck_index[i], confidence[i] = UNKNOWN, 0.5
            tied[i] = nearest
    return CardIdentities(deck_index=deck_index, confidence=confidence,
                          deck_names=identities.deck_names, tied_decks=tied,
                          similarity=identities.similarity)
