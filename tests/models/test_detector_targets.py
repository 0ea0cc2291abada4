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


def test_core_is_one_on_each_visible_part_and_falls_to_its_edges():
    owner, quads = _two_cards()
    core = detector_targets(owner, quads).core
    assert core.shape == (32, 48) and core.max() == pytest.approx(1.0)
    assert core[2, 2] == 0.0  # table
    # Each part reaches 1 on its own medial axis, whatever its width.
    assert core[4:24, 4:15].max() == pytest.approx(1.0)  # card 0's free part (14 px wide)
    assert core[10:20, 15:45].max() == pytest.approx(1.0)  # card 1 (10 px wide)
    # Where card 1 lies on card 0 the cores part: both fall below one half at the shared edge.
    assert core[15, 14] < 0.5 and core[15, 15] < 0.5
    assert (core[(core > 0)] <= 1.0).all()
