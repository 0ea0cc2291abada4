"""Training targets of the detector, from a hand-made owner map (no torch needed)."""

import numpy as np
import pytest

from cardtally.models.detector.targets import card_long_side_px, detector_targets


def _two_cards():
    owner = np.full((64, 96), -1, np.int32)
    owner[8:48, 8:36] = 0  # card 0: 28 x 40 px, upright
    owner[20:40, 30:90] = 1  # card 1 on top: 60 x 20 px visible, lying (a 60 x 42 card)
    quads = [
        np.array([[8, 8], [36, 8], [36, 48], [8, 48]], np.float32),
        np.array([[30, 20], [90, 20], [90, 62], [30, 62]], np.float32),
    ]
    return owner, quads


def test_log_size_is_the_card_long_side_in_output_pixels():
    owner, quads = _two_cards()
    targets = detector_targets(owner, quads)
    assert targets.log_size.shape == (32, 48)
    assert targets.log_size[15, 8] == pytest.approx(np.log2(40 / 2))  # card 0, long side 40 px
    assert targets.log_size[15, 30] == pytest.approx(np.log2(60 / 2))  # card 1, long side 60 px
    assert targets.log_size[2, 2] == 0.0  # table


def test_a_broken_quad_gives_no_size_target():
    owner, quads = _two_cards()
    # The renderer's lens model can throw the corners of a card far outside the photo away.
    quads[1] = np.array([[14925, -17157], [-6078, 9307], [117, 156], [-74, 527]], np.float32)
    assert card_long_side_px(quads[1]) == 0.0
    targets = detector_targets(owner, quads)
    assert targets.log_size[15, 30] == 0.0
    assert targets.log_size[15, 8] == pytest.approx(np.log2(20))


def test_a_stretched_render_keeps_its_labels_in_place():
    pytest.importorskip("torch")  # the training data module imports it
    from cardtally.models.detector.data import stretched

    owner, quads = _two_cards()
    image = np.dstack([(owner + 1) * 100] * 3).astype(np.uint8)
    wide_image, wide_owner, wide_quads = stretched(image, owner, quads, axis=0, factor=1.5)
    assert wide_image.shape == (64, 144, 3) and wide_owner.shape == (64, 144)
    assert wide_owner.dtype == owner.dtype
    assert wide_owner[30, 80] == 1 and wide_owner[30, 20] == 0 and wide_owner[2, 2] == -1
    assert np.allclose(wide_quads[0], [[12, 8], [54, 8], [54, 48], [12, 48]])
    targets = detector_targets(wide_owner, wide_quads)
    assert targets.log_size[15, 50] == pytest.approx(np.log2(90 / 2))  # card 1 now 90 px long
    _, tall_owner, tall_quads = stretched(image, owner, quads, axis=1, factor=2.0)
    assert tall_owner.shape == (128, 96) and np.allclose(tall_quads[1][2], [90, 124])
