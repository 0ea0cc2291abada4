"""Deck decisions: nearest deck, UNKNOWN by threshold or margin, FACE_UP first."""

import numpy as np
import pytest

from cardtally.vision.decks import DeckProfile, DeckSet
from cardtally.vision.detections import FACE_UP, UNKNOWN
from cardtally.vision.embed import Embeddings
from cardtally.vision.identify import IdentifySettings, classify, decide_owners, settle_siblings
from cardtally.vision.rectify import CARD_FRAME_WH, CardCrops
from cardtally.vision.templates import DeckTemplate


def unit(*rows):
    a = np.array(rows, np.float32)
    return a / np.linalg.norm(a, axis=1, keepdims=True)


def deck(name, *protos, threshold=0.8):
    return DeckProfile(name, unit(*protos), threshold, "v", 5, "2026-01-01T00:00:00+00:00")


DECKS = DeckSet((deck("red", [1, 0, 0], [0.9, 0.1, 0]), deck("blue", [0, 1, 0])))


def test_decisions():
    emb = Embeddings(
        vectors=unit([1, 0.05, 0], [0.02, 1, 0.01], [0, 0, 1], [1, 0.95, 0], [1, 0, 0]),
        face_up_prob=np.array([0.01, 0.02, 0.0, 0.1, 0.97], np.float32),
    )
    ids = classify(emb, DECKS)
    assert ids.deck_index.tolist() == [0, 1, UNKNOWN, UNKNOWN, FACE_UP]
    assert ids.counts() == {"red": 1, "blue": 1}
    assert (ids.unknown_count, ids.face_up_count) == (2, 1)
    assert ids.confidence[0] > 0.9 and ids.confidence[4] == np.float32(0.97)


def test_margin_rejects_a_tie():
    emb = Embeddings(unit([1, 0.97, 0]), np.zeros((1,), np.float32))
    assert classify(emb, DECKS, IdentifySettings(margin=0.04)).deck_index.tolist() == [UNKNOWN]
    loose = DeckSet((deck("red", [1, 0, 0], threshold=0.5), deck("blue", [0, 1, 0], threshold=0.5)))
    assert classify(emb, loose, IdentifySettings(margin=0.0)).deck_index.tolist() == [0]


def test_no_decks_means_unknown_and_empty_input():
    emb = Embeddings(unit([1, 0, 0]), np.zeros((1,), np.float32))
    assert classify(emb, DeckSet(())).deck_index.tolist() == [UNKNOWN]
    empty = Embeddings(np.zeros((0, 3), np.float32), np.zeros((0,), np.float32))
    assert len(classify(empty, DECKS)) == 0


def test_a_deck_with_front_like_backs_keeps_its_cards():
    plain = DeckProfile("white", unit([1, 0, 0]), 0.8, "v", 5, "2026-01-01T00:00:00+00:00",
                        face_up_prob_limit=0.5)
    frontish = DeckProfile("white", unit([1, 0, 0]), 0.8, "v", 5, "2026-01-01T00:00:00+00:00",
                           face_up_prob_limit=0.9)
    emb = Embeddings(unit([1, 0.01, 0], [1, 0.01, 0], [0, 0, 1]),
                     np.array([0.7, 0.95, 0.7], np.float32))
    assert classify(emb, DeckSet((plain,))).deck_index.tolist() == [FACE_UP, FACE_UP, FACE_UP]
    assert classify(emb, DeckSet((frontish,))).deck_index.tolist() == [0, FACE_UP, FACE_UP]


def test_sibling_candidates_only_for_plausible_backs_near_a_templated_deck():
    from cardtally.vision.identify import deck_similarities, sibling_candidates
    from cardtally.vision.templates import DeckTemplate

    flat = DeckTemplate(np.full((61, 40, 3), 0.5, np.float32), np.full((61, 40, 3), 0.1, np.float32))
    decks = DeckSet(tuple(
        DeckProfile(name, unit(proto), 0.8, "v", 5, "2026-01-01T00:00:00+00:00", template=template)
        for name, proto, template in (("sun", [1, 0, 0], flat), ("moon", [0.95, 0.31, 0], flat),
                                      ("blue", [0, 1, 0], flat), ("plain", [0, 0, 1], None))
    ))
    emb = Embeddings(
        vectors=unit([1, 0.15, 0], [1, 0.15, 0], [0, 0.3, 1], [0.5, 0.5, 0.7], [0, 1, 0]),
        face_up_prob=np.array([0.0, 0.99, 0.0, 0.0, 0.0], np.float32),
    )
    ids = classify(emb, decks)
    got = [c.tolist() for c in sibling_candidates(deck_similarities(emb, decks), decks, ids)]
    # sun and moon are siblings; face up: never; plain has no template; below every threshold:
    # nothing to settle; blue alone: nothing to compare with.
    assert got == [[0, 1], [], [], [], []]


def test_a_card_just_below_threshold_counts_when_it_is_clearly_no_one_elses():
    decks = DeckSet((deck("red", [1, 0, 0, 0]), deck("blue", [0, 1, 0, 0])))
    background = unit([0.3, 0, 0, 1], [0, 0.2, 0.2, -1])
    emb = Embeddings(
        vectors=unit(
            [0.75, 0, 0.66, 0],  # 0.75 to red (threshold 0.8), far from blue and the background
            [0.75, 0, 0, 0.66],  # as close to red, but a random back is closer: a stranger
            [0.6, 0, 0.8, 0],  # too far below red's threshold
            [0.75, 0.62, 0.23, 0],  # red only ~0.13 ahead of blue
        ),
        face_up_prob=np.zeros((4,), np.float32),
    )
    ids = classify(emb, decks, background=background)
    assert ids.deck_index.tolist() == [0, UNKNOWN, UNKNOWN, UNKNOWN]
    # Accepted below the threshold: the confidence stays under a half, so the card is listed
    # for the user to check.
    assert 0.0 < ids.confidence[0] < 0.5
    assert classify(emb, decks).deck_index.tolist() == [UNKNOWN] * 4
    off = IdentifySettings(near_threshold_slack=0.0)
    assert classify(emb, decks, off, background).deck_index.tolist() == [UNKNOWN] * 4


def test_sibling_toss_ups_become_unknown_tied_between_the_two_decks():
    # Flat templates and flat cards: the templates can never settle anything, as when the
    # symbol that tells two decks of a family apart is hidden.
    flat = DeckTemplate(np.full((61, 40, 3), 0.5, np.float32), np.full((61, 40, 3), 0.1, np.float32))
    decks = DeckSet(tuple(
        DeckProfile(name, unit(proto), 0.8, "v", 5, "2026-01-01T00:00:00+00:00", template=flat)
        for name, proto in (("sun", [1, 0, 0]), ("moon", [0.93, 0.37, 0]), ("blue", [0, 1, 0]))
    ))
    # A card nearer sun than moon by less than the tie window, one clearly nearer sun (moon still within the
    # sibling window), and one of blue, which has no sibling near it.
    emb = Embeddings(unit([1, 0.1, 0], [1, 0.0, 0], [0, 1, 0]), np.zeros((3,), np.float32))
    frame_w, frame_h = CARD_FRAME_WH
    rectified = tuple((np.full((frame_h, frame_w, 3), 128, np.uint8), np.ones((frame_h, frame_w), bool))
                      for _ in range(3))
    crops = CardCrops(np.zeros((3, 4, 64, 64), np.float32), np.ones((3,), np.float32), rectified)
    settings = IdentifySettings(near_threshold_slack=0.0)
    before = classify(emb, decks, settings)
    assert before.deck_index.tolist() == [0, 0, 2]
    after = settle_siblings(crops, emb, decks, before, settings)
    assert after.deck_index.tolist() == [UNKNOWN, 0, 2]
    assert [after.ties(i) for i in range(3)] == [("sun", "moon"), None, None]
    off = settle_siblings(crops, emb, decks, before,
                          IdentifySettings(near_threshold_slack=0.0, sibling_tie_window=0.0))
    assert off.deck_index.tolist() == [0, 0, 2]


def test_decide_owners_without_crops_only_when_templates_are_off():
    flat = DeckTemplate(np.full((61, 40, 3), 0.5, np.float32), np.full((61, 40, 3), 0.1, np.float32))
    decks = DeckSet(tuple(
        DeckProfile(name, unit(proto), 0.8, "v", 5, "2026-01-01T00:00:00+00:00", template=flat)
        for name, proto in (("sun", [1, 0, 0]), ("moon", [0.93, 0.37, 0]))
    ))
    emb = Embeddings(unit([1, 0.1, 0], [0.9, 0.5, 0]), np.zeros((2,), np.float32))
    # No slack: the shipped background backs are not of this toy embedding's size.
    off = IdentifySettings(near_threshold_slack=0.0, sibling_templates=False, consensus=None)
    assert decide_owners(None, emb, decks, off).deck_index.tolist() == [0, 1]
    with pytest.raises(ValueError, match="^the sibling templates need the cards' crops$"):
        decide_owners(None, emb, decks, IdentifySettings(near_threshold_slack=0.0))


def test_crops_and_embeddings_pick_the_same_cards():
    frame_w, frame_h = CARD_FRAME_WH
    rectified = tuple((np.full((frame_h, frame_w, 3), k, np.uint8), np.ones((frame_h, frame_w), bool))
                      for k in range(3))
    crops = CardCrops(np.arange(3, dtype=np.float32)[:, None, None, None] * np.ones((3, 4, 64, 64), np.float32),
                      np.array([1.0, 0.5, 0.2], np.float32), rectified)
    emb = Embeddings(unit([1, 0, 0], [0, 1, 0], [0, 0, 1]), np.array([0.1, 0.2, 0.3], np.float32))
    keep = np.array([True, False, True])
    picked, picked_emb = crops[keep], emb[keep]
    assert len(picked) == len(picked_emb) == 2
    assert picked.pixels[:, 0, 0, 0].tolist() == [0.0, 2.0]
    assert picked.visible_fraction.tolist() == [1.0, pytest.approx(0.2)]
    assert [int(frame[0, 0, 0]) for frame, _ in picked.rectified] == [0, 2]
    assert picked_emb.vectors.tolist() == [[1, 0, 0], [0, 0, 1]]
    assert picked_emb.face_up_prob.tolist() == [pytest.approx(0.1), pytest.approx(0.3)]
    assert len(crops[[1]]) == 1 and crops[:0].rectified == ()
