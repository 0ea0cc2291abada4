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


def test_a_centre_peak_can_be_kept_inside_its_own_visible_part():
    owner, quads = _two_cards()
    spilling = detector_targets(owner, quads).centre
    own_part = detector_targets(owner, quads, centre_in_own_part=True).centre
    owner_out = owner[::2, ::2]
    # Card 1's end over card 0 (output x 15-17) lies within card 0's peak but beyond card 1's.
    card_1_end = (owner_out == 1) & (np.arange(owner_out.shape[1])[None, :] <= 17)
    assert spilling[card_1_end].max() > 0.16
    assert own_part[card_1_end].max() == 0.0
    # Inside its own part each card keeps the same peak; nothing lands on the table.
    card_0 = owner_out == 0
    assert np.array_equal(own_part[card_0], spilling[card_0])
    assert (own_part[owner_out < 0] == 0).all()
    assert (own_part >= 0.999).sum() == 2


def test_the_training_mix_reaches_the_rendered_targets():
    pytest.importorskip("torch")
    from cardtally.models.detector.data import TrainingMix, render_samples

    seed = 110_000_000  # a scene whose whole cards spill onto their neighbours
    spilling = render_samples(seed, 256, TrainingMix(knit_share=0.0, stretch_share=0.0))
    own_part = render_samples(seed, 256, TrainingMix(knit_share=0.0, stretch_share=0.0, centre_in_own_part=True))
    for (image_a, maps_a), (image_b, maps_b) in zip(spilling, own_part, strict=True):
        assert np.array_equal(image_a, image_b)
        assert np.array_equal(maps_a["edge"], maps_b["edge"])
        assert (maps_b["centre"] <= maps_a["centre"]).all()
        assert (maps_b["centre"] >= 0.999).sum() == (maps_a["centre"] >= 0.999).sum()
    assert sum(int((a["centre"] > b["centre"]).sum()) for (_, a), (_, b) in zip(spilling, own_part, strict=True)) > 100


def test_impulse_noise_speckles_a_small_share_of_pixels_black_or_white():
    pytest.importorskip("torch")  # the training data module imports it
    from cardtally.models.detector.data import IMPULSE_FRACTION, with_impulse_noise

    grey = np.full((200, 300, 3), 128, np.uint8)
    for seed in range(5):
        noisy = with_impulse_noise(grey, np.random.default_rng(seed))
        assert noisy.shape == grey.shape and noisy.dtype == np.uint8
        speckled = np.abs(noisy.astype(int) - 128).max(axis=2) > 80
        # JPEG blurs a few speckles that land side by side; none appear from nowhere.
        assert 0.5 * IMPULSE_FRACTION[0] <= speckled.mean() <= IMPULSE_FRACTION[1]
    assert (grey == 128).all()


def test_survey_sized_views_can_keep_the_thin_strips_of_shingled_rows():
    pytest.importorskip("torch")  # the training data module imports it
    from cardtally.models.detector.data import (
        MIN_STRIP_PX,
        SMALL_CARD_PX,
        TrainingMix,
        _training_options,
    )
    from cardtally.models.synth.scene import render_scene

    default = TrainingMix(knit_share=0.0, stretch_share=0.0, small_card_share=1.0)
    thin = TrainingMix(knit_share=0.0, stretch_share=0.0, small_card_share=1.0, small_card_strip_frac=0.06)
    views = []
    for seed in range(40):
        before, _ = _training_options(np.random.default_rng(seed), 256, default)
        after, _ = _training_options(np.random.default_rng(seed), 256, thin)
        assert before.preset == after.preset and before.n_cards == after.n_cards
        if before.card_px is None:  # a whole small scene: the option leaves it alone
            assert after.card_px is None and after.min_strip_px == before.min_strip_px == MIN_STRIP_PX
            continue
        assert before.card_px == SMALL_CARD_PX and before.min_strip_px == MIN_STRIP_PX
        card_long_px = after.card_px[0]
        assert after.card_px == (card_long_px, card_long_px)
        assert SMALL_CARD_PX[0] <= card_long_px <= SMALL_CARD_PX[1]
        assert after.min_strip_px == pytest.approx(max(1.0, 0.06 * card_long_px))
        views.append((seed, after))
    rows_seed, rows = next((seed, options) for seed, options in views if options.preset == "rows")
    strips_px = [card.strip_px for card in render_scene(rows_seed, rows).cards]
    assert min(strips_px) < MIN_STRIP_PX


def test_the_edges_between_two_cards_can_be_marked_apart_from_the_table():
    owner, quads = _two_cards()
    plain = detector_targets(owner, quads)
    marked = detector_targets(owner, quads, between_edges=True)
    assert plain.edge_between is None and "edge_between" not in plain.loss_maps()
    between = marked.loss_maps()["edge_between"]
    assert np.array_equal(marked.edge, plain.edge)
    assert ((between > 0) <= (marked.edge > 0)).all()  # a subset of the edges
    # Card 1's end over card 0 (input x 30, output x 15) is an edge between cards; card 0's
    # left side against the table (input x 8, output x 4) is not.
    assert between[15, 14:17].max() == 1.0
    assert between[:, 3:6].max() == 0.0 and marked.edge[10:20, 3:6].max() == 1.0
