"""Face-up cards in a row are told by the embedder's face-up head and count for nobody."""

import numpy as np
import pytest

from cardtally.vision.embed import BackEmbedder
from cardtally.vision.fit.band import row_band
from cardtally.vision.fit.face_up import mark_face_up, strip_inputs
from cardtally.vision.fit.rows import fit_row

from .test_rows import _backs, _row


@pytest.fixture(scope="module")
def embedder():
    return BackEmbedder()


@pytest.mark.parametrize("seed", [3, 7, 9])
def test_fronts_in_a_row_get_no_deck_and_backs_keep_theirs(embedder, seed):
    scene, quads, _ = _row([0, 1, 0, 1, 0, 1, 0, 1], seed=seed, face_up_fraction=0.25)
    truth = [card.deck_name for card in sorted(
        scene.cards, key=lambda c: np.asarray(c.quad_xy).mean(axis=0)[0])]
    assert truth.count("") >= 2
    band = row_band(scene.image, quads)
    fit = fit_row(band, _backs(scene))
    assert fit.count == len(truth)
    order = slice(None, None, -1) if fit.reversed else slice(None)
    # the program alone gives some front a back's deck
    assert [strip.deck_name for strip in fit.strips][order] != truth
    marked = mark_face_up(band, fit, embedder)
    assert [strip.deck_name for strip in marked.strips][order] == truth
    assert [strip.face_up for strip in marked.strips][order] == [not name for name in truth]
    assert [strip.start_px for strip in marked.strips] == [strip.start_px for strip in fit.strips]


def test_each_strip_is_shown_to_the_embedder_as_a_card_frame_part():
    scene, quads, _ = _row([0] * 5)
    band = row_band(scene.image, quads)
    fit = fit_row(band, _backs(scene))
    inputs = strip_inputs(band, fit)
    assert inputs.shape == (5, 4, 64, 64)
    assert (inputs[:, 3] == 1).all()  # each strip shows whole: the mask is full
