"""Finding a calibration photo's cards: the second try that finds lone cards by their shape."""

import cv2
import numpy as np
import pytest
from refused_calibration import family_photo_cut_in_pieces

from cardtally.errors import CardtallyError
from cardtally.models.embedder.scenes import calibrate_from_scene
from cardtally.vision.calibration_cards import card_shaped_blobs, find_card_shapes, find_cards
from cardtally.vision.decks import DeckSet
from cardtally.vision.detections import CardDetections
from cardtally.vision.embed import default_embedder


def _rect_size(box: np.ndarray) -> tuple[float, float]:
    (_, _), (w, h), _ = cv2.minAreaRect(box.astype(np.float32))
    return min(w, h), max(w, h)


def test_only_whole_card_shaped_blobs_are_cards():
    foreground = np.zeros((200, 240), np.float32)
    foreground[20:63, 20:50] = 0.9  # a card, 30 x 43
    turned = cv2.boxPoints(((120.0, 60.0), (28.0, 40.0), 30.0))
    cv2.fillPoly(foreground, [np.round(turned).astype(np.int32)], 0.95)  # a card, turned
    foreground[120:150, 20:50] = 0.9  # square: no card's proportions
    foreground[120:170, 120:135] = 0.9  # an L: fills too little of its rectangle
    foreground[155:170, 120:160] = 0.9
    foreground[150:193, 0:30] = 0.9  # cut by the border: not a whole card
    foreground[100:143, 190:220] = 0.6  # too faint to be card
    boxes = card_shaped_blobs(foreground)
    assert len(boxes) == 2
    centres = sorted(tuple(np.round(box.mean(axis=0)).tolist()) for box in boxes)
    assert centres == [(34.0, 41.0), (120.0, 60.0)]
    sizes = sorted(_rect_size(box) for box in boxes)
    np.testing.assert_allclose(sizes, [(28, 40), (30, 43)], atol=1.5)


def test_a_refused_calibration_photo_is_read_again_by_card_shape():
    # A family deck's calibration photo (seeds as in identify_bench's family scenario, scene 5,
    # deck 1): the detector cuts its cards in pieces that look like two designs; all seven of
    # its whole cards are found by their shape, and the deck is calibrated from them.
    photo = family_photo_cut_in_pieces()
    whole = [card for card in photo.cards if card.visible_fraction > 0.99]
    assert len(photo.cards) == 8 and len(whole) == 7
    found = find_cards(photo.image)
    with pytest.raises(CardtallyError, match=r"^The photos deck1.png mix card designs"):
        calibrate_from_scene("deck1", photo, DeckSet(()), default_embedder(), found)
    shapes = find_card_shapes(photo.image)
    assert len(shapes) == 7
    for quad in shapes.quad_xy:  # each lies on a whole card, at its size
        overlaps = [cv2.intersectConvexConvex(quad, card.quad_xy.astype(np.float32))[0]
                    / cv2.contourArea(card.quad_xy.astype(np.float32)) for card in whole]
        assert max(overlaps) > 0.85
    result = calibrate_from_scene("deck1", photo, DeckSet(()), default_embedder(), found,
                                  second_try=True)
    assert result.n_cards == 7


def test_the_second_try_reads_the_cards_it_is_given():
    # The same refused photo, its second try given a finder that sees no card shape (as a
    # candidate calibration network might): the user sees the detector's refusal, so the
    # given finder, not the shipped one, was read.
    photo = family_photo_cut_in_pieces()
    found = find_cards(photo.image)
    wh = (photo.image.shape[1], photo.image.shape[0])
    with pytest.raises(CardtallyError, match=r"^The photos deck1.png mix card designs"):
        calibrate_from_scene("deck1", photo, DeckSet(()), default_embedder(), found,
                             second_try=True, find_shapes=lambda image: CardDetections.empty(wh))
