"""Scene consensus: UNKNOWN cards join the deck their look-alikes in the photo clearly belong to."""

import numpy as np

from cardtally.vision.clustering import average_linkage
from cardtally.vision.consensus import ConsensusSettings, settle_by_consensus
from cardtally.vision.decks import DeckProfile, DeckSet
from cardtally.vision.detections import FACE_UP, UNKNOWN
from cardtally.vision.embed import Embeddings
from cardtally.vision.identify import IdentifySettings, classify, deck_similarities

DIM = 8


def axis(k: int) -> np.ndarray:
    return np.eye(DIM, dtype=np.float32)[k]


def card(deck_axis: int, similarity: float, side_axis: int, wobble: float = 0.0) -> np.ndarray:
    """A unit embedding at ``similarity`` to the deck's prototype, leaning towards ``side_axis``."""
    v = similarity * axis(deck_axis) + np.sqrt(1 - similarity**2) * axis(side_axis)
    v = v + wobble * axis(7)
    return v / np.linalg.norm(v)


RED = DeckProfile("red", axis(0)[None], 0.8, "v", 5, "2026-01-01T00:00:00+00:00")
BLUE = DeckProfile("blue", axis(1)[None], 0.8, "v", 5, "2026-01-01T00:00:00+00:00")
DECKS = DeckSet((RED, BLUE))


def decide(vectors: list[np.ndarray], face_up: list[float] | None = None):
    emb = Embeddings(np.array(vectors, np.float32),
                     np.array(face_up or [0.0] * len(vectors), np.float32))
    alone = classify(emb, DECKS, IdentifySettings(consensus=None))
    return alone, settle_by_consensus(emb, DECKS, alone, deck_similarities(emb, DECKS))


def test_an_unknown_card_joins_the_deck_of_its_look_alikes():
    reds = [card(0, 0.95, 2, w) for w in (0.0, 0.05, 0.1)]
    blues = [card(1, 0.95, 3, w) for w in (0.0, 0.05)]
    faint_red = card(0, 0.72, 2)        # below red's 0.8, but like the other reds
    too_faint = card(0, 0.6, 2)         # more than the slack (0.15) below the threshold
    alone, together = decide([*reds, *blues, faint_red, too_faint])
    assert alone.deck_index.tolist() == [0, 0, 0, 1, 1, UNKNOWN, UNKNOWN]
    assert together.deck_index.tolist() == [0, 0, 0, 1, 1, 0, UNKNOWN]
    # A joined card's confidence is its cluster's vote share (3 reds of 5 cards).
    assert together.confidence[5] == np.float32(3 / 5)
    assert together.confidence[:5].tolist() == alone.confidence[:5].tolist()


def test_a_card_nearer_another_deck_does_not_join():
    reds = [card(0, 0.95, 2, w) for w in (0.0, 0.05, 0.1)]
    # Clusters with the reds and is within the slack of red's threshold (0.70), but nearer
    # blue's prototype (0.72).
    torn = 0.7 * axis(0) + 0.72 * axis(1)
    _, together = decide([*reds, torn / np.linalg.norm(torn)])
    assert together.deck_index.tolist() == [0, 0, 0, UNKNOWN]


def test_a_look_alike_of_a_calibrated_deck_stays_unknown():
    # Nobody calibrated this deck; two of its cards only just pass blue's threshold and the
    # rest fall below it: its cards are a cluster of their own, mostly UNKNOWN.
    look_alike = [card(1, s, 4, w) for s, w in ((0.81, 0.0), (0.815, 0.05), (0.76, 0.1),
                                               (0.75, 0.15), (0.77, 0.2))]
    reds = [card(0, 0.95, 2, w) for w in (0.0, 0.05, 0.1)]
    alone, together = decide([*look_alike, *reds])
    assert alone.deck_index.tolist() == [1, 1, UNKNOWN, UNKNOWN, UNKNOWN, 0, 0, 0]
    assert together.deck_index.tolist() == [UNKNOWN] * 5 + [0, 0, 0]


def test_clear_voters_keep_their_cards_and_take_in_the_faint_ones():
    blues = [card(1, 0.9, 4, w) for w in (0.0, 0.05)]
    faint = [card(1, 0.75, 4, w) for w in (0.1, 0.15)]
    _, together = decide([*blues, *faint])
    assert together.deck_index.tolist() == [1, 1, 1, 1]


def test_face_up_cards_and_lone_cards_are_left_alone():
    reds = [card(0, 0.95, 2, w) for w in (0.0, 0.05, 0.1)]
    faint_red = card(0, 0.72, 2)
    alone, together = decide([*reds, faint_red], face_up=[0.0, 0.0, 0.0, 0.99])
    assert alone.deck_index.tolist() == [0, 0, 0, FACE_UP]
    assert together.deck_index.tolist() == [0, 0, 0, FACE_UP]
    single, settled = decide([card(0, 0.72, 2)])
    assert settled.deck_index.tolist() == single.deck_index.tolist() == [UNKNOWN]


def test_one_vote_is_not_a_consensus():
    alone, together = decide([card(0, 0.95, 2), card(0, 0.72, 2)])
    assert together.deck_index.tolist() == alone.deck_index.tolist() == [0, UNKNOWN]
    strict = ConsensusSettings(min_votes=1)
    emb = Embeddings(np.array([card(0, 0.95, 2), card(0, 0.72, 2)]), np.zeros((2,), np.float32))
    settled = settle_by_consensus(emb, DECKS, alone, deck_similarities(emb, DECKS), strict)
    assert settled.deck_index.tolist() == [0, 0]


def test_average_linkage_groups_by_mean_similarity():
    sims = np.array([[1.0, 0.9, 0.2, 0.1],
                     [0.9, 1.0, 0.3, 0.2],
                     [0.2, 0.3, 1.0, 0.8],
                     [0.1, 0.2, 0.8, 1.0]])
    assert average_linkage(sims, 0.5).tolist() == [0, 0, 1, 1]
    assert average_linkage(sims, 0.85).tolist() == [0, 0, 1, 2]
    # The mean of the four cross pairs is 0.2: at a cut of 0.2 or lower the groups merge.
    assert average_linkage(sims, 0.19).tolist() == [0, 0, 0, 0]
    assert average_linkage(np.zeros((0, 0)), 0.5).tolist() == []


def test_cards_taken_in_near_the_threshold_do_not_vote():
    # classify's near-threshold rule takes in the three 0.74 reds (0.8 - 0.1 <= 0.74, far from
    # blue and from the background); the 0.68 reds stay UNKNOWN. Had the 0.74s voted, the
    # cluster's vote strength (median similarity over the threshold) would be -0.06 and, with
    # as many UNKNOWN cards as votes, the cluster doubtful: every red in it turned UNKNOWN.
    vectors = [card(0, 0.86, 2, w) for w in (0.0, 0.05)]
    vectors += [card(0, 0.74, 2, w) for w in (0.1, 0.15, 0.2)]
    vectors += [card(0, 0.68, 2, w) for w in (0.0, 0.05, 0.1, 0.15, 0.2)]
    emb = Embeddings(np.array(vectors, np.float32), np.zeros((len(vectors),), np.float32))
    alone = classify(emb, DECKS, IdentifySettings(consensus=None), background=axis(6)[None])
    assert alone.deck_index.tolist() == [0] * 5 + [UNKNOWN] * 5
    together = settle_by_consensus(emb, DECKS, alone, deck_similarities(emb, DECKS))
    # Two votes of ten cards are no consensus either way: every card keeps its own decision.
    assert together.deck_index.tolist() == alone.deck_index.tolist()


def test_a_weaker_twin_of_a_deck_in_the_same_photo_becomes_unknown():
    # Six reds and six cards of an uncalibrated look-alike, which all pass red's threshold
    # (0.7) by a clear margin: two clusters (their cross similarity is 0.95 x 0.76 = 0.72),
    # whose medians lie 0.19 apart, more than ``lookalike_gap``.
    red = DeckProfile("red", axis(0)[None], 0.7, "v", 5, "2026-01-01T00:00:00+00:00")
    decks = DeckSet((red, BLUE))
    reds = [card(0, 0.95, 2, w) for w in (0.0, 0.02, 0.04, 0.06, 0.08, 0.1)]
    twins = [card(0, 0.76, 4, w) for w in (0.0, 0.02, 0.04, 0.06, 0.08, 0.1)]

    def settle(vectors, settings=None):
        emb = Embeddings(np.array(vectors, np.float32), np.zeros((len(vectors),), np.float32))
        alone = classify(emb, decks, IdentifySettings(consensus=None))
        return alone, settle_by_consensus(emb, decks, alone, deck_similarities(emb, decks),
                                          settings or ConsensusSettings())

    alone, together = settle([*reds, *twins])
    assert alone.deck_index.tolist() == [0] * 12
    assert together.deck_index.tolist() == [0] * 6 + [UNKNOWN] * 6
    assert together.confidence[6:].tolist() == [0.5] * 6
    # Without the real reds beside them, nothing tells the twins from red's own cards.
    _, twins_alone = settle(twins)
    assert twins_alone.deck_index.tolist() == [0] * 6
    # Five cards are too few to make a cluster a twin (``lookalike_min_cards``), and the
    # rule can be turned off.
    _, five = settle([*reds, *twins[:5]])
    assert five.deck_index.tolist() == [0] * 11
    _, off = settle([*reds, *twins], ConsensusSettings(lookalike_gap=0.0))
    assert off.deck_index.tolist() == [0] * 12
