"""Scene consensus: an UNKNOWN card joins the deck its look-alikes in the same photo belong to.

A deck's threshold is set from its calibration photo, under another light and camera than the
game photo, so in play many of its cards fall just short of it (UNKNOWN) while others of the
same deck, in the same photo, pass clearly. The photo's cards are clustered by their
embeddings; where a cluster's sure members (past their deck's threshold, with a clear margin
over the second deck) vote for one deck, its UNKNOWN members whose nearest deck is that one,
and which come within a slack of its threshold, join it.

The same clusters guard the rejection of decks nobody calibrated: such a deck forms a cluster
of its own, mostly UNKNOWN, whose few deck votes come from cards that barely passed a
look-alike deck's threshold; those marginal acceptances become UNKNOWN too, instead of pulling
the rest in. And where a deck's cards in one photo fall into two clusters, one far less like
the deck than the other, the weaker one may be such a look-alike beside the real deck (or a
sibling's cards, or the deck's own cards seen worse): its cards become UNKNOWN too, listed for
the user to check instead of counted in silence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .clustering import average_linkage
from .decks import DeckSet
from .detections import FACE_UP, UNKNOWN, CardIdentities
from .embed import Embeddings

#: The confidence of a card the consensus turns UNKNOWN: it did pass its deck's threshold alone.
DEMOTED_CONFIDENCE = 0.5


@dataclass(frozen=True)
class ConsensusSettings:
    """Constants of the scene consensus (similarities are cosines of unit embeddings).

    Chosen on `benchmarks/identify_bench.py --dump` scenes 0-47 and measured on scenes 48-63
    (git history of docs/BENCHMARKS.md, back identification): a cut of 0.6 took in more UNKNOWN cards but
    also more of an uncalibrated look-alike deck's.
    """

    #: Average-linkage cut: cards whose clusters are at least this similar on average merge.
    #: 0.8 before embedder run 12; run 12 spreads a deck's game-photo cards wider, and 0.75
    #: gives more of them to their deck for as many uncalibrated cards rejected (0.7 lets some
    #: in; git history of docs/BENCHMARKS.md, "Consensus cut for embedder run 12").
    cluster_similarity: float = 0.75
    #: A card votes for its deck only when that deck beats the second best by this much.
    sure_margin: float = 0.05
    #: A cluster speaks for a deck with at least this many votes ...
    min_votes: int = 2
    #: ... that are at least this share of its cards.
    min_vote_share: float = 0.3
    #: The voters' median similarity must exceed the deck's threshold by this much for the
    #: cluster's UNKNOWN cards to join ...
    min_vote_strength: float = 0.02
    #: ... and where it exceeds it by less than this, while the cluster's UNKNOWN cards are at
    #: least this many times its votes (and 2), the voters only just passed: the cluster looks
    #: like an uncalibrated look-alike deck and its cards of that deck become UNKNOWN.
    doubtful_vote_strength: float = 0.04
    doubtful_unknown_ratio: float = 1.0
    #: An UNKNOWN card joins when its similarity to the deck is at most this below the threshold.
    join_slack: float = 0.15
    #: Of the clusters holding at least this many cards of one deck (after the joins) ...
    lookalike_min_cards: int = 6
    #: ... one whose cards' median similarity to the deck lies more than this below the
    #: strongest one's is taken for a look-alike deck nobody calibrated: its cards of that deck
    #: become UNKNOWN (0 turns this off). Chosen on scenes 0-47 and 80-127. On the scenes not
    #: chosen on (48-63, 128-271) the counts came closer and a few more strangers were
    #: rejected, but 1.5% of the right cards became UNKNOWN (git history of docs/BENCHMARKS.md,
    #: "A calibrated deck's weaker twin").
    lookalike_gap: float = 0.12


def settle_by_consensus(embeddings: Embeddings, decks: DeckSet, identities: CardIdentities,
                        deck_similarity: np.ndarray,
                        settings: ConsensusSettings = ConsensusSettings()) -> CardIdentities:
    """``identities`` with UNKNOWN cards given to the deck their cluster in this photo votes for.

    ``deck_similarity`` is ``identify.deck_similarities(embeddings, decks)``. A cluster whose
    voters only just passed their deck's threshold and which holds as many UNKNOWN cards has
    its cards of that deck turned UNKNOWN instead, as has a deck's clearly weaker second cluster
    (``ConsensusSettings.lookalike_gap``). Face-up cards take no part. A card that joins
    gets the cluster's vote share as its confidence, so doubtful joins are listed for the user
    to check.
    """
    n, n_decks = len(embeddings), len(decks)
    if n < 2 or n_decks == 0:
        return identities
    deck_index = identities.deck_index.copy()
    confidence = identities.confidence.copy()
    thresholds = np.array([p.threshold for p in decks.profiles], np.float32)
    order = np.argsort(-deck_similarity, axis=1)
    rows = np.arange(n)
    best = order[:, 0]
    s_best = deck_similarity[rows, best]
    s_second = deck_similarity[rows, order[:, 1]] if n_decks > 1 else np.full((n,), -1.0)
    # Cards taken in below their deck's threshold (``IdentifySettings.near_threshold_slack``)
    # do not vote: their similarity would drag a cluster's vote strength under the doubtful line.
    own = np.maximum(deck_index, 0)
    passed = (deck_index >= 0) & (deck_similarity[rows, own] >= thresholds[own])
    votes_for = np.where(passed & (s_best - s_second >= settings.sure_margin), deck_index, UNKNOWN)
    backs = np.flatnonzero(deck_index != FACE_UP)
    vectors = embeddings.vectors[backs]
    clusters = average_linkage(vectors @ vectors.T, settings.cluster_similarity)
    for label in range(int(clusters.max(initial=-1)) + 1):
        members = backs[clusters == label]
        voters = members[votes_for[members] >= 0]
        if len(members) < 2 or len(voters) < settings.min_votes:
            continue
        votes = np.bincount(votes_for[voters], minlength=n_decks)
        deck = int(np.argmax(votes))
        if votes[deck] < max(settings.min_votes, settings.min_vote_share * len(members)):
            continue
        unknown = members[deck_index[members] == UNKNOWN]
        strength = float(np.median(deck_similarity[voters[votes_for[voters] == deck], deck]
                                   - thresholds[deck]))
        if strength < settings.doubtful_vote_strength \
                and len(unknown) >= max(2.0, settings.doubtful_unknown_ratio * votes[deck]):
            demoted = members[deck_index[members] == deck]
            deck_index[demoted] = UNKNOWN
            confidence[demoted] = DEMOTED_CONFIDENCE
            continue
        if strength < settings.min_vote_strength:
            continue
        joins = unknown[(best[unknown] == deck)
                        & (deck_similarity[unknown, deck] >= thresholds[deck] - settings.join_slack)]
        deck_index[joins] = deck
        confidence[joins] = votes[deck] / len(members)
    if settings.lookalike_gap > 0:
        _demote_weaker_twins(deck_index, confidence, backs, clusters, deck_similarity, settings)
    return CardIdentities(deck_index=deck_index, confidence=confidence,
                          deck_names=identities.deck_names, tied_decks=identities.tied_decks,
                          similarity=identities.similarity)


def _demote_weaker_twins(deck_index: np.ndarray, confidence: np.ndarray, backs: np.ndarray,
                         clusters: np.ndarray, deck_similarity: np.ndarray,
                         settings: ConsensusSettings) -> None:
    """Turn UNKNOWN, in place, a deck's cards in any cluster whose median similarity to the deck
    lies more than ``lookalike_gap`` below that of the deck's strongest cluster in the photo.

    A deck's own cards in one photo share its light and camera, so they mostly resemble it about
    equally; a second, clearly weaker group is as likely another design that passes for it, and
    a look-alike counted for a player is a silent error where an UNKNOWN card is a listed one.
    """
    for deck in range(deck_similarity.shape[1]):
        groups = []
        for label in range(int(clusters.max(initial=-1)) + 1):
            cards = backs[clusters == label]
            cards = cards[deck_index[cards] == deck]
            if len(cards) >= settings.lookalike_min_cards:
                groups.append((float(np.median(deck_similarity[cards, deck])), cards))
        if len(groups) < 2:
            continue
        strongest = max(median for median, _ in groups)
        for median, cards in groups:
            if median < strongest - settings.lookalike_gap:
                deck_index[cards] = UNKNOWN
                confidence[cards] = DEMOTED_CONFIDENCE
